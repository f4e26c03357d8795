/*
 * Starting a role thread: every thread of every process names itself,
 * applies its role's scheduling attributes itself and reads them back.
 */
#ifndef IL_THREAD_H
#define IL_THREAD_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "il_role.h"

/*
 * Called first thing on a new thread. Names it (pthread_setname_np, 15
 * chars max), applies the policy's attributes for `role` and records the
 * read-back for the ready report. Returns 0 or -errno with one line in err.
 */
typedef int (*il_thread_init_fn)(void *ctx, enum il_role role, const char *name, char *err,
				 size_t errlen);

/*
 * What every extra thread (hog, load, canary) does first: pin itself to
 * cpu (when cpu >= 0), then run init for its role. Pinning comes first so
 * that an affinity the policy sets for the role overrides it. Returns 0 or
 * -errno with one line in err.
 */
int il_thread_pin_init(int cpu, il_thread_init_fn init, void *init_ctx, enum il_role role,
		       const char *name, char *err, size_t errlen);

/*
 * What a failed fork or pthread_create's err (a positive errno) says beyond
 * strerror: for EAGAIN, the limit that refused the task (" (a process and
 * thread limit: RLIMIT_NPROC, ulimit -u, or the cgroup's pids.max)"), else
 * "". A static string.
 */
const char *il_thread_limit_why(int err);

/* The calling thread's kernel tid (cached per thread). */
pid_t il_gettid(void);

/* The CPU the calling thread runs on (sched_getcpu: vDSO/rseq, no system
 * call); UINT32_MAX when the kernel cannot say. */
uint32_t il_cpu_now(void);

/*
 * How many CPUs the calling thread may run on (sched_getaffinity: taskset,
 * a cpuset), at least 1; the online count when the mask is unreadable
 * (more CPUs than a cpu_set_t holds). What a run's busy threads share,
 * and "one per CPU" counts.
 */
int il_cpus_allowed(void);

#endif
