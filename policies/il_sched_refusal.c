/* Why the kernel refuses a scheduling class (il_sched_refusal.h). */
#include "il_sched_refusal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "il_rt_throttle.h"
#include "il_sched.h"
#include "il_sysinfo.h"

#define ONLINE_CPUS "/sys/devices/system/cpu/online"

/* "; euid 0 but CAP_SYS_NICE is not effective", so that a root user in a
 * container learns why "run as root" is not the answer. */
static const char *root_note(void)
{
	return geteuid() == 0 ? "; euid 0, but CAP_SYS_NICE is not effective" : "";
}

static unsigned long long rlimit_cur(int resource)
{
	struct rlimit rl = {0};

	getrlimit(resource, &rl);
	return (unsigned long long)rl.rlim_cur;
}

bool il_sched_refusal_privileged(const struct il_role_attrs *a, char *why, size_t len)
{
	const char *cname = il_sched_class_name(a->sched_class);

	if (il_sysinfo_cap_effective(CAP_SYS_NICE))
		return true;
	if (il_sched_class_is_rt(a->sched_class)) {
		unsigned long long rl = rlimit_cur(RLIMIT_RTPRIO);

		if (rl == (unsigned long long)RLIM_INFINITY ||
		    rl >= (unsigned long long)a->priority)
			return true;
		snprintf(why, len,
			 "%s priority %d needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d "
			 "(RLIMIT_RTPRIO is %llu%s)",
			 cname, a->priority, a->priority, rl, root_note());
		return false;
	}
	if (a->sched_class == SCHED_DEADLINE) {
		snprintf(why, len, "deadline needs CAP_SYS_NICE (no limit grants it%s)",
			 root_note());
		return false;
	}
	if (il_sched_class_is_fair(a->sched_class) && a->nice < 0) {
		unsigned long long rl = rlimit_cur(RLIMIT_NICE);

		/* The kernel's can_nice(): RLIMIT_NICE counts 20 - nice. */
		if (rl == (unsigned long long)RLIM_INFINITY ||
		    rl >= (unsigned long long)(20 - a->nice))
			return true;
		snprintf(why, len,
			 "%s nice %d needs CAP_SYS_NICE or RLIMIT_NICE >= %d "
			 "(RLIMIT_NICE is %llu%s)",
			 cname, a->nice, 20 - a->nice, rl, root_note());
		return false;
	}
	return true;
}

/* fifo/rr: a cgroup-v1 cpu group without RT runtime, while the kernel
 * enforces RT bandwidth (with sched_rt_runtime_us = -1 it does not look). */
static int rt_blocker(char *why, size_t len)
{
	char dir[300];
	long long grp = -1;
	int64_t rt;

	if (il_sysinfo_rt_runtime_us(&rt) < 0 || rt < 0 ||
	    il_rt_group_of_thread(dir, sizeof(dir), &grp) < 0 || grp != 0)
		return 0;
	snprintf(why, len,
		 "the thread's cpu cgroup %s has no RT runtime (cpu.rt_runtime_us = 0, "
		 "RT_GROUP_SCHED, enforced while sched_rt_runtime_us is %lld): give the group "
		 "RT runtime or run from one that has it",
		 dir, (long long)rt);
	return 1;
}

/* deadline: an affinity narrower than the root domain (the online CPUs,
 * unless cpuset partitions split them), or no deadline bandwidth. */
static int deadline_blocker(char *why, size_t len)
{
	char online_text[256], mine[256];
	cpu_set_t online, aff, both;
	int64_t rt;

	if (il_sysinfo_read_value(ONLINE_CPUS, online_text, sizeof(online_text)) == 0 &&
	    il_cpuset_parse(online_text, &online) == 0 &&
	    sched_getaffinity(0, sizeof(aff), &aff) == 0) {
		CPU_AND(&both, &online, &aff);
		if (!CPU_EQUAL(&both, &online)) {
			il_cpuset_format(&aff, mine, sizeof(mine));
			snprintf(why, len,
				 "the thread may run on CPUs %s of the online %s: SCHED_DEADLINE "
				 "needs an affinity covering its whole root domain (taskset or a "
				 "cpuset narrows it)",
				 mine, online_text);
			return 1;
		}
	}
	if (il_sysinfo_rt_runtime_us(&rt) == 0 && rt == 0) {
		snprintf(why, len,
			 "no deadline bandwidth: sched_rt_runtime_us is 0, which gives "
			 "SCHED_DEADLINE none either");
		return 1;
	}
	return 0;
}

/*
 * After EPERM although the privilege is there: the refusal privilege does
 * not lift that holds now for the calling thread, in why, and 1; 0 when
 * none of them holds (why then names what else refuses).
 */
static int blocker(const struct il_role_attrs *a, char *why, size_t len)
{
	if (il_sched_class_is_rt(a->sched_class) && rt_blocker(why, len))
		return 1;
	if (a->sched_class == SCHED_DEADLINE && deadline_blocker(why, len))
		return 1;
	snprintf(why, len,
		 "refused (EPERM) although CAP_SYS_NICE is effective, and none of the causes "
		 "inputlat can read holds (RT group runtime, deadline affinity and bandwidth): "
		 "a cpuset partition, seccomp or a security module may refuse it");
	return 0;
}

bool il_sched_refusal_deadline_blocked(char *why, size_t len)
{
	return deadline_blocker(why, len) == 1;
}

void il_sched_refusal_explain(int e, const struct il_role_attrs *a, char *err, size_t len)
{
	const char *cname = il_sched_class_name(a->sched_class);
	char why[1024];

	if (e == EPERM) {
		if (!il_sched_refusal_privileged(a, err, len))
			return;
		blocker(a, why, sizeof(why));
		if (a->sched_class == SCHED_DEADLINE)
			snprintf(err, len, "deadline: %s", why);
		else if (il_sched_class_is_rt(a->sched_class))
			snprintf(err, len, "%s priority %d: %s", cname, a->priority, why);
		else
			snprintf(err, len, "%s nice %d: %s", cname, a->nice, why);
	} else if (e == EBUSY && a->sched_class == SCHED_DEADLINE) {
		char rt_runtime[32], rt_period[32];

		if (il_sysinfo_read_value(IL_SYSINFO_RT_RUNTIME, rt_runtime, sizeof(rt_runtime)) <
		    0)
			snprintf(rt_runtime, sizeof(rt_runtime), "unreadable");
		if (il_sysinfo_read_value(IL_SYSINFO_RT_PERIOD, rt_period, sizeof(rt_period)) < 0)
			snprintf(rt_period, sizeof(rt_period), "unreadable");
		snprintf(err, len,
			 "SCHED_DEADLINE admission refused: runtime %" PRIu64 " us per %" PRIu64
			 " us does not fit the free deadline bandwidth "
			 "(sched_rt_runtime_us=%s of sched_rt_period_us=%s per CPU)",
			 a->dl_runtime_ns / 1000, a->dl_period_ns / 1000, rt_runtime, rt_period);
	} else {
		snprintf(err, len, "sched_setattr(%s): %s", cname ? cname : "?", strerror(e));
	}
}
