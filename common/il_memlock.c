#include "il_memlock.h"
#include "il_procfs.h"
#include "il_rss.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

/* Is CAP_IPC_LOCK (bit 14) in our effective set? From /proc/self/status. */
static bool has_ipc_lock(void)
{
	char text[IL_PROCFS_STATUS_MAX];
	uint64_t caps;

	return il_procfs_status(0, 0, text, sizeof(text)) == 0 &&
	       il_procfs_status_field(text, "CapEff", 16, &caps) == 0 && (caps >> 14 & 1);
}

int il_memlock_all(char *why, size_t whylen)
{
	struct rlimit rl;
	int err;

	/*
	 * Without CAP_IPC_LOCK, MCL_FUTURE charges every later mapping to
	 * RLIMIT_MEMLOCK (8 MiB by default) by its full size, and the next
	 * thread's 8 MiB stack would fail to map: the run would break rather
	 * than be less tidy. So lock only where nothing can hit the limit.
	 */
	if (!has_ipc_lock() && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY) {
		snprintf(why, whylen,
			 "not locked: no CAP_IPC_LOCK and RLIMIT_MEMLOCK is %llu KiB (run as root)",
			 (unsigned long long)rl.rlim_cur / 1024);
		return -EPERM;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0)
		return 0;
	if (errno == EINVAL && mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
		return 0;
	err = errno;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(why, whylen, "mlockall: %s (RLIMIT_MEMLOCK %llu KiB, no CAP_IPC_LOCK?)",
			 strerror(err), (unsigned long long)rl.rlim_cur / 1024);
	else
		snprintf(why, whylen, "mlockall: %s", strerror(err));
	return -err;
}

void il_memlock_prefault_stack(void)
{
	/* volatile: the compiler may not drop stores it cannot see read. */
	volatile unsigned char stack[IL_STACK_PREFAULT_KIB * 1024];

	for (size_t i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 0;
	stack[sizeof(stack) - 1] = 0;
}

uint64_t il_memlock_locked_kib(void)
{
	return il_rss_status_kib("VmLck");
}
