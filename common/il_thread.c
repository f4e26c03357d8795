#include "il_thread.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *il_thread_limit_why(int err)
{
	/* "Resource temporarily unavailable" names no resource. */
	return err == EAGAIN ? " (a process and thread limit: RLIMIT_NPROC, ulimit -u, or the "
			       "cgroup's pids.max)"
			     : "";
}

pid_t il_gettid(void)
{
	/* gettid() is a system call; the hop path asks for it once per message. */
	static __thread pid_t tid;

	if (!tid)
		tid = gettid();
	return tid;
}

uint32_t il_cpu_now(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? UINT32_MAX : (uint32_t)cpu;
}

int il_cpus_allowed(void)
{
	cpu_set_t set;
	long online;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (int)online : 1;
}

int il_thread_pin_init(int cpu, il_thread_init_fn init, void *init_ctx, enum il_role role,
		       const char *name, char *err, size_t errlen)
{
	int ret;

	if (cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: cannot pin to CPU %d: %s", name, cpu,
				 strerror(errno));
			return ret;
		}
	}
	err[0] = '\0';
	ret = init(init_ctx, role, name, err, errlen);
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s: thread init failed", name);
	return ret;
}
