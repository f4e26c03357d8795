/*
 * Applying a role's scheduling attributes to the calling thread, and
 * reading back what the kernel actually has, via sched_setattr/getattr.
 */
#ifndef IL_SCHED_H
#define IL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "il_policy.h"

struct cJSON;

/*
 * Applies *a to the calling thread: affinity first (sched_setaffinity),
 * then class, priority, nice, EEVDF slice or deadline parameters and the
 * utilization clamps in one sched_setattr. fifo/rr/deadline threads get SCHED_FLAG_RESET_ON_FORK so
 * that nothing they spawn inherits RT. fifo/rr are refused unless the
 * process has a finite RLIMIT_RTTIME (il_rttime_limit_set): a runaway RT
 * thread must always be killable by the kernel.
 * The result is read back and compared (il_sched_matches); a kernel that
 * silently ignores a field is an error, never a quiet downgrade.
 * The one exception is a setting the policy marked optional: where the
 * kernel lacks its feature it is left out, and *dropped (may be NULL)
 * gets its IL_OPT_* bit so the caller can say so; 0 when nothing was.
 * Returns 0, or -errno with one line in err:
 *   -EPERM  "SCHED_FIFO priority 60 needs CAP_SYS_NICE or RLIMIT_RTPRIO >= 60"
 *   -EBUSY  "SCHED_DEADLINE admission refused: ..."
 *   -EINVAL "EEVDF custom slice not supported by this kernel (needs Linux 6.12+)",
 *           cpus with deadline, fifo/rr without RLIMIT_RTTIME, ...
 *   -EOPNOTSUPP "uclamp_min 20%: kernel built without CONFIG_UCLAMP_TASK ..."
 *           for a clamp not marked optional
 */
int il_sched_apply_self(const struct il_role_attrs *a, unsigned *dropped, char *err, size_t errlen);

/* Room for any CPU list of a cpu_set_t: the worst, every other CPU of
 * CPU_SETSIZE ("0,2,...,1022"), takes 2,349 bytes. */
#define IL_CPULIST_MAX 2400

/* What the kernel reports for a thread. */
struct il_sched_state {
	int sched_class;   /* SCHED_OTHER .. SCHED_DEADLINE */
	int priority;	   /* fifo/rr, else 0 */
	int nice;	   /* other/batch/idle, else 0 */
	uint64_t slice_ns; /* fair classes: the slice in force (6.12+), else 0 */
	uint64_t dl_runtime_ns, dl_deadline_ns, dl_period_ns;
	cpu_set_t set;		     /* affinity */
	char cpus[IL_CPULIST_MAX];   /* the same in list form, "0-1" */
	bool reset_on_fork;	     /* SCHED_FLAG_RESET_ON_FORK is set */
	bool has_uclamp;	     /* the kernel clamps utilization: util_* are read */
	uint32_t util_min, util_max; /* 0..IL_UCLAMP_SCALE, the clamps requested */
};

/* Reads tid's attributes (0 = calling thread). Returns 0 or -errno
 * (-ESRCH for a tid that is gone); *out is untouched on failure. */
int il_sched_read(pid_t tid, struct il_sched_state *out);

/* True when got matches want: class; priority for fifo/rr; nice for
 * other/batch; slice when want sets one; deadline runtime/deadline/period;
 * cpus when want sets them; each clamp want sets, read back exactly where
 * the kernel has uclamp, and absent only where it has none and the policy
 * marked that clamp optional. */
bool il_sched_matches(const struct il_role_attrs *want, const struct il_sched_state *got);

/* Formats a CPU set as a list ("0-1,4") into buf; "" for an empty set.
 * A buf shorter than the list gets whole entries and ",...": a shortened
 * list never reads as the whole set (IL_CPULIST_MAX fits any). */
void il_cpuset_format(const cpu_set_t *set, char *buf, size_t len);

/* Parses a CPU list ("0,1", "0-3", "0-1,4"; CPU numbers below
 * CPU_SETSIZE) into *out. 0, or -EINVAL for anything else or an empty set;
 * *out is untouched on failure. */
int il_cpuset_parse(const char *s, cpu_set_t *out);

/* Sets RLIMIT_RTTIME of the process, in microseconds of RT CPU time
 * without blocking: SIGXCPU at soft_us, SIGKILL at hard_us. Call before
 * any thread goes fifo/rr. Returns 0 or -errno (-EINVAL if soft > hard). */
int il_rttime_limit_set(uint64_t soft_us, uint64_t hard_us);

/* A new cJSON object {policy, priority, nice, slice_ns, dl_runtime_ns,
 * dl_deadline_ns, dl_period_ns, cpus, util_min, util_max} for the
 * report's threads[]; util_* are numbers (0..1024) where the kernel has
 * uclamp, else "unsupported: WHY" (il_sysinfo_uclamp). Caller owns it.
 * NULL on allocation failure. */
struct cJSON *il_sched_state_json(const struct il_sched_state *s);

/*
 * The scheduling a harness thread asked for (the watchdog, the loops that
 * must answer while RT work runs) and what it got, read back from the
 * kernel right away: a report must not claim an RT harness it did not
 * have.
 */
struct il_sched_ask {
	char asked[24]; /* "fifo 99", "other" */
	char got[24];	/* what the kernel says, or "unread: ..." */
	char why[128];	/* "" when granted, else the refusal */
	int tid;	/* the thread's kernel tid; 0: not recorded */
	char comm[112]; /* its name as the kernel has it (ps -L, traces), or "unreadable: ..."; ""
			   not recorded */
};

/* "fifo 99", "rr 6", "other", "other nice 10" (nice shows when not 0). */
void il_sched_text(int cls, int prio, int nice, char *buf, size_t len);

/* Fills *a: asked cls/prio (a fair class at nice 0); err is the apply's
 * errno, either sign (0 when it was granted); got, the tid and the name
 * the kernel gives the thread are read from thread tid (0: the calling
 * thread). */
void il_sched_ask_record(struct il_sched_ask *a, int cls, int prio, int err, pid_t tid);

/* Puts the calling harness thread in cls: SCHED_FIFO/RR at prio, or a
 * fair class at nice 0 whatever it inherited (chrt, nice; every thread it
 * starts inherits its class), and records in *a what it got. */
void il_sched_ask_apply(struct il_sched_ask *a, int cls, int prio);

/* {thread, asked, got, why|null}; NULL on allocation failure. */
struct cJSON *il_sched_ask_json(const struct il_sched_ask *a, const char *thread);

#endif
