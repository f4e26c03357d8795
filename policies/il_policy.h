/*
 * Scheduling policies as data: a policy file maps every role of the hop
 * chain to scheduling attributes and may ask for system knob settings.
 * Files are INI (parsed with inih); see policies/cfs.policy for the format.
 */
#ifndef IL_POLICY_H
#define IL_POLICY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_chain.h"
#include "il_role.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/*
 * The highest RT priority a policy may ask for. The harness keeps the
 * ones above for itself, so that it can always end a run: the watchdog
 * is FIFO 99, the orchestrator's loop 98, the children's control threads
 * 97. A policy thread at 99 that spins would take the CPU from the
 * watchdog and from Ctrl-C; 90..99 stay free of policy threads.
 */
#define IL_POLICY_RT_PRIO_MAX 89

/* The capacity scale of sched_attr.sched_util_min/max (SCHED_CAPACITY_SCALE). */
#define IL_UCLAMP_SCALE 1024u

/*
 * Settings a policy may mark "optional" (`optional uclamp_min = 20`): a
 * kernel that lacks the feature runs the policy without that setting and
 * the run says so, instead of failing. Bits of il_role_attrs.optional.
 */
enum il_policy_optional {
	IL_OPT_UCLAMP_MIN = 1u << 0,
	IL_OPT_UCLAMP_MAX = 1u << 1,
};

/* What one role (or one thread) asks for. Fields that do not apply to the
 * class are 0. */
struct il_role_attrs {
	int sched_class;   /* SCHED_OTHER, _BATCH, _IDLE, _FIFO, _RR, _DEADLINE */
	int priority;	   /* 1..IL_POLICY_RT_PRIO_MAX for fifo/rr, else 0 */
	int nice;	   /* -20..19 for other/batch, else 0 */
	uint64_t slice_ns; /* EEVDF custom slice (other/batch), 0 = kernel default */
	uint64_t dl_runtime_ns, dl_deadline_ns, dl_period_ns; /* deadline only */
	bool has_cpus; /* false: inherit the process affinity */
	cpu_set_t cpus;
	/* Utilization clamps (CONFIG_UCLAMP_TASK), percent of the capacity of
	 * the biggest CPU; not for deadline. */
	bool has_uclamp_min, has_uclamp_max;
	unsigned uclamp_min_pct, uclamp_max_pct;
	unsigned optional; /* enum il_policy_optional bits */
};

/* Percent to the kernel's 0..1024 scale, rounded as Chromium rounds it
 * (base/threading/platform_thread_cros.cc): 20% -> 205. */
static inline uint32_t il_uclamp_pct_to_util(unsigned pct)
{
	return (uint32_t)((pct * IL_UCLAMP_SCALE + 50) / 100);
}

/* System knobs a policy asks for; has_* false means "leave it alone". */
struct il_knob_settings {
	bool has_rt_runtime;
	int64_t rt_runtime_us; /* -1 disables legacy RT throttling */
	bool has_rt_period;
	int64_t rt_period_us;
	bool has_fair_server; /* runtime and period always come together */
	uint64_t fs_runtime_ns, fs_period_ns;
};

struct il_policy;

/* The longest [policy] name: one word of printable ASCII without '/'. */
#define IL_POLICY_NAME_MAX 64

/*
 * Loads a policy. A name without '/' is a built-in, read from
 * builtin_dir/NAME.policy; anything with a '/' is a path.
 * On success *out owns the policy (free with il_policy_free); on failure
 * *out is untouched and err holds one line:
 *   -ENOENT  "unknown policy 'nope' (built-ins: cfs, cfs-chrome, ...)"
 *            or "PATH: No such file or directory"
 *   -EINVAL  "FILE:LINE: what is wrong (what would be right)", including
 *            an RT priority above IL_POLICY_RT_PRIO_MAX
 *   -ENOMEM, or another -errno from opening the file.
 */
int il_policy_load(const char *name_or_path, const char *builtin_dir, struct il_policy **out,
		   char *err, size_t errlen);

/* NULL-safe. */
void il_policy_free(struct il_policy *p);

/* [policy] name (the file's stem when absent), the file actually read,
 * and [policy] description ("" when absent). Owned by the policy. */
const char *il_policy_name(const struct il_policy *p);
const char *il_policy_path(const struct il_policy *p);
const char *il_policy_description(const struct il_policy *p);

/* Attributes of a role; roles not in the file are SCHED_OTHER nice 0.
 * NULL for an out-of-range role. Owned by the policy. */
const struct il_role_attrs *il_policy_role(const struct il_policy *p, enum il_role r);

/*
 * Attributes of one thread: its own section when the policy has one for
 * its name ("[viz:io]", a thread of il_chain), else its role's. name may
 * be NULL or a name outside the chain (hog, load, canary threads), which
 * always take their role's. NULL for an out-of-range role. Owned by the
 * policy.
 */
const struct il_role_attrs *il_policy_thread(const struct il_policy *p, enum il_role r,
					     const char *name);

/*
 * Every attribute set the policy defines, for code that must look at all
 * of them (privilege, features, listings): i = 0 .. IL_ROLE_COUNT-1 are
 * the roles, the following ones the thread sections the file has, in
 * il_chain order. NULL past the end. *label (may be NULL) gets the role
 * or thread name. Owned by the policy.
 */
const struct il_role_attrs *il_policy_attrs_at(const struct il_policy *p, size_t i,
					       const char **label);

/* Knob settings of the policy. Owned by the policy. */
const struct il_knob_settings *il_policy_knobs(const struct il_policy *p);

/* True when any role or thread is fifo, rr or deadline: the run then
 * needs RLIMIT_RTTIME and the RT watchdog. */
bool il_policy_uses_rt(const struct il_policy *p);

/*
 * Lists the built-in policy names (file stems of builtin_dir/ *.policy),
 * sorted. On success *names_out is a malloc'd array of *n_out malloc'd
 * strings, freed with il_policy_list_free. Returns 0 or -errno of opendir.
 */
int il_policy_list(const char *builtin_dir, char ***names_out, size_t *n_out);
void il_policy_list_free(char **names, size_t n);

/* "other", "batch", "idle", "fifo", "rr", "deadline"; NULL for others. */
const char *il_sched_class_name(int cls);

/* The SCHED_* value for a class name, or -EINVAL. */
int il_sched_class_parse(const char *s);

/* Class predicates. fifo/rr have a priority; other/batch a nice and a
 * slice; fifo/rr/deadline are what RLIMIT_RTTIME and the watchdog guard. */
static inline bool il_sched_class_is_rt(int cls)
{
	return cls == SCHED_FIFO || cls == SCHED_RR;
}

static inline bool il_sched_class_is_fair(int cls)
{
	return cls == SCHED_OTHER || cls == SCHED_BATCH;
}

static inline bool il_sched_class_needs_rttime(int cls)
{
	return il_sched_class_is_rt(cls) || cls == SCHED_DEADLINE;
}

#endif
