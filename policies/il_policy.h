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

#include "il_role.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

/* What one role asks for. Fields that do not apply to the class are 0. */
struct il_role_attrs {
	int sched_class;	/* SCHED_OTHER, _BATCH, _IDLE, _FIFO, _RR, _DEADLINE */
	int priority;		/* 1..99 for fifo/rr, else 0 */
	int nice;		/* -20..19 for other/batch, else 0 */
	uint64_t slice_ns;	/* EEVDF custom slice (other/batch), 0 = kernel default */
	uint64_t dl_runtime_ns, dl_deadline_ns, dl_period_ns; /* deadline only */
	bool has_cpus;		/* false: inherit the process affinity */
	cpu_set_t cpus;
};

/* System knobs a policy asks for; has_* false means "leave it alone". */
struct il_knob_settings {
	bool has_rt_runtime;
	int64_t rt_runtime_us;	/* -1 disables legacy RT throttling */
	bool has_rt_period;
	int64_t rt_period_us;
	bool has_fair_server;	/* runtime and period always come together */
	uint64_t fs_runtime_ns, fs_period_ns;
};

struct il_policy;

/*
 * Loads a policy. A name without '/' is a built-in, read from
 * builtin_dir/NAME.policy; anything with a '/' is a path.
 * On success *out owns the policy (free with il_policy_free); on failure
 * *out is untouched and err holds one line:
 *   -ENOENT  "unknown policy 'nope' (built-ins: cfs, cfs-chrome, ...)"
 *            or "PATH: No such file or directory"
 *   -EINVAL  "FILE:LINE: what is wrong (what would be right)"
 *   -ENOMEM, or another -errno from opening the file.
 */
int il_policy_load(const char *name_or_path, const char *builtin_dir,
		   struct il_policy **out, char *err, size_t errlen);

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

/* Knob settings of the policy. Owned by the policy. */
const struct il_knob_settings *il_policy_knobs(const struct il_policy *p);

/* True when any role is fifo, rr or deadline: the run then needs
 * RLIMIT_RTTIME and the RT watchdog. */
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
