/*
 * Preflight: everything a user can get wrong is checked before anything
 * changes on the machine or any process starts.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "il_cmd.h"
#include "il_file.h"
#include "il_lock.h"
#include "il_paths.h"
#include "il_present.h"
#include "il_run.h"
#include "il_sysinfo.h"

static int policy_max_rt_prio(const struct il_policy *p)
{
	int max = 0;

	for (int i = 0; i < IL_ROLE_COUNT; i++) {
		const struct il_role_attrs *a = il_policy_role(p, (enum il_role)i);

		if (il_sched_class_is_rt(a->sched_class) && a->priority > max)
			max = a->priority;
	}
	return max;
}

static bool policy_has_deadline(const struct il_policy *p)
{
	for (int i = 0; i < IL_ROLE_COUNT; i++)
		if (il_policy_role(p, (enum il_role)i)->sched_class == SCHED_DEADLINE)
			return true;
	return false;
}

/*
 * The watchdog (FIFO 99) and the loop that handles Ctrl-C (FIFO 98) stay
 * above every RT priority a policy may ask for, but any SCHED_DEADLINE
 * thread runs before any FIFO thread. What keeps deadline threads from
 * holding every CPU is the kernel's deadline admission control, which
 * sched_rt_runtime_us bounds; at -1 (or runtime = period) it is off, and
 * busy deadline threads could starve the watchdog for good. Such a run is
 * refused: it could not be stopped.
 */
static int check_deadline_bound(const struct il_policy *p, char *err, size_t errlen)
{
	const struct il_knob_settings *k = il_policy_knobs(p);
	int64_t runtime, period;

	if (!policy_has_deadline(p))
		return 0;
	if (il_sysinfo_rt_runtime_us(&runtime) < 0 || il_sysinfo_rt_period_us(&period) < 0)
		return 0; /* nothing to go on: the kernel's own checks stand */
	if (k->has_rt_runtime)
		runtime = k->rt_runtime_us;
	if (k->has_rt_period)
		period = k->rt_period_us;
	if (runtime >= 0 && runtime < period)
		return 0;
	snprintf(err, errlen,
		 "policy %s: SCHED_DEADLINE threads with sched_rt_runtime_us %lld of %lld: the "
		 "kernel's deadline admission control is off, and they could hold every CPU away "
		 "from the watchdog and Ctrl-C (want sched_rt_runtime_us below "
		 "sched_rt_period_us)",
		 il_policy_name(p), (long long)runtime, (long long)period);
	return -EINVAL;
}

static bool policy_sets_knobs(const struct il_policy *p)
{
	const struct il_knob_settings *k = il_policy_knobs(p);

	return k->has_rt_runtime || k->has_rt_period || k->has_fair_server;
}

int il_preflight(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	char err[1024];
	int prio, rc;

	if (il_input_check(&o->input, err, sizeof(err)) < 0 ||
	    il_present_check(&o->present, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	/* Each child prepares its own lock; check here that it can. */
	if (il_lock_kind_prepare(o->lock, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: --lock %s\n", err);
		return 2;
	}
	il_lock_kind_release(o->lock);
	if (il_paths_children(r->children_dir, sizeof(r->children_dir), err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 1;
	}
	il_paths_policies(r->policy_dir, sizeof(r->policy_dir));
	/* A policy path must be a regular file: a FIFO would block the start
	 * (no watchdog exists yet), a device would never end. */
	if (strchr(o->policy, '/')) {
		char why[64];
		int fd = il_file_open_input(o->policy, false, why, sizeof(why));

		if (fd == -EINVAL || fd == -EISDIR) {
			fprintf(stderr, "inputlat run: --policy %s: %s, not a regular file\n",
				o->policy, why);
			return 2;
		}
		if (fd >= 0)
			close(fd);
	}
	if (il_policy_load(o->policy, r->policy_dir, &r->policy, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	if (check_deadline_bound(r->policy, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	prio = policy_max_rt_prio(r->policy);
	if (prio && !il_sysinfo_may_use_rt(prio)) {
		fprintf(stderr,
			"inputlat run: policy %s needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d (run as root)\n",
			il_policy_name(r->policy), prio);
		return 2;
	}
	/*
	 * A policy that sets knobs takes the machine's knob lock now, for the
	 * whole run; taking it puts back what a dead run left. A run that sets
	 * no knobs repairs a dead run's knobs too when it can, and otherwise
	 * says nothing: who holds the lock, or that a user may not take it,
	 * is none of its business.
	 */
	if (policy_sets_knobs(r->policy)) {
		rc = il_knobs_lock(il_knobs_state_dir(), stderr, &r->knobs_lock, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "inputlat run: %s\n", err);
			return rc == -EBUSY ? IL_EXIT_KNOBS_BUSY : rc == -EACCES ? 2 : 1;
		}
	} else {
		struct il_knobs_lock *l = NULL;

		if (il_knobs_lock(il_knobs_state_dir(), stderr, &l, err, sizeof(err)) == 0)
			il_knobs_unlock(l);
	}
	return 0;
}
