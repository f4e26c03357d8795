/*
 * The kernel's struct sched_attr and the two system calls, private to
 * policies/. glibc 2.36 has no wrappers and newer glibc declares its own
 * struct sched_attr, so we keep a copy of the kernel's layout
 * (include/uapi/linux/sched/types.h, SCHED_ATTR_SIZE_VER1: with the
 * utilization clamps) and call syscall() directly.
 */
#ifndef IL_SCHED_ATTR_H
#define IL_SCHED_ATTR_H

#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif
#ifndef SCHED_FLAG_KEEP_POLICY
#define SCHED_FLAG_KEEP_POLICY 0x08
#define SCHED_FLAG_KEEP_PARAMS 0x10
#endif
#ifndef SCHED_FLAG_UTIL_CLAMP_MIN
#define SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#endif

struct il_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

static inline int il_sys_sched_setattr(pid_t tid, struct il_sched_attr *attr)
{
	return (int)syscall(SYS_sched_setattr, tid, attr, 0u);
}

static inline int il_sys_sched_getattr(pid_t tid, struct il_sched_attr *attr)
{
	return (int)syscall(SYS_sched_getattr, tid, attr, (unsigned)sizeof(*attr), 0u);
}

#endif
