/*
 * Preflight: everything a user can get wrong is checked before anything
 * changes on the machine or any process starts.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>

#include "il_cmd.h"
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
	/*
	 * The lock is prepared here and kept for the run: for il-bpf that loads
	 * the one BPF program of the run, whose records the children get over
	 * their control channel (il_wiring.c) instead of loading a copy each
	 * (every copy runs on every context switch of the machine).
	 */
	if (il_lock_kind_prepare(o->lock, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: --lock %s\n", err);
		return 2;
	}
	r->lock_prepared = true;
	if (il_paths_children(r->children_dir, sizeof(r->children_dir), err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 1;
	}
	il_paths_policies(r->policy_dir, sizeof(r->policy_dir));
	if (il_policy_load(o->policy, r->policy_dir, &r->policy, err, sizeof(err)) < 0) {
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
	/* A crashed run's knobs are put back first. A live run's knobs are left
	 * alone, and only a policy that needs knobs of its own must wait for it. */
	rc = il_knobs_recover_stale(il_knobs_state_dir(), stderr);
	if (rc < 0 && policy_sets_knobs(r->policy)) /* its one line is printed */
		return rc == -EBUSY ? IL_EXIT_KNOBS_BUSY : 1;
	return 0;
}
