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

/*
 * What a successful mlockall left: 0 when the kernel counts none of our
 * memory locked (VmLck 0 kB), 1 when it counts some, -1 unreadable. An
 * interposed mlockall can return 0 without calling the kernel:
 * AddressSanitizer's is a no-op, and every process of an ASan build said
 * "locked" with VmLck 0.
 */
static int kernel_counts_locked(void)
{
	char text[IL_PROCFS_STATUS_MAX];
	uint64_t kib;

	if (il_procfs_status(0, 0, text, sizeof(text)) ||
	    il_procfs_status_field(text, "VmLck", 10, &kib))
		return -1;
	return kib > 0;
}

static int locked_or_why(char *why, size_t whylen)
{
	if (kernel_counts_locked() != 0)
		return 0;
	snprintf(why, whylen,
		 "mlockall returned 0 but the kernel counts nothing locked (VmLck 0 kB): an "
		 "interposed no-op mlockall, as AddressSanitizer's");
	return -ENOTSUP;
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
		return locked_or_why(why, whylen);
	if (errno == EINVAL && mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
		return locked_or_why(why, whylen);
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
