/*
 * Preflight: everything a user can get wrong is checked before anything
 * changes on the machine or any process starts.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_background.h"
#include "il_cmd.h"
#include "il_js.h"
#include "il_lock.h"
#include "il_paths.h"
#include "il_present.h"
#include "il_run.h"
#include "il_sysinfo.h"

static int policy_max_rt_prio(const struct il_policy *p)
{
	const struct il_role_attrs *a;
	int max = 0;

	for (size_t i = 0; (a = il_policy_attrs_at(p, i, NULL)); i++)
		if (il_sched_class_is_rt(a->sched_class) && a->priority > max)
			max = a->priority;
	return max;
}

/*
 * The JS hog's script compiles, here, before any thread starts: a syntax
 * error is one line, exit 2. Only compiled: its top level runs in
 * render-sim (il_hog_start), under the run's bounds, so a script that
 * loops there cannot hang the orchestrator; an error there, or a missing
 * tick(), fails the run with one line. r->hog_script gets its absolute
 * path for render-sim.
 */
static int check_hog_script(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	char path[4096], err[600], *src = NULL;
	int rc;

	if (!o->hog_threads || !il_hog_mode_is_js(o->hog_mode))
		return 0;
	if (o->hog_script) {
		snprintf(path, sizeof(path), "%s", o->hog_script);
	} else {
		il_paths_js(path, sizeof(path));
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/miner.js");
	}
	rc = il_js_read_file(path, &src, err, sizeof(err));
	if (rc == 0)
		rc = il_js_check(src, path, err, sizeof(err));
	free(src);
	if (rc < 0) {
		fprintf(stderr, "inputlat run: --hog-script %s%s\n", err,
			o->hog_script ? "" : " (the default script; --hog-mode busy needs none)");
		return 2;
	}
	if (!realpath(path, r->hog_script)) {
		fprintf(stderr, "inputlat run: --hog-script %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

/*
 * Utilization clamps where the kernel has none: a clamp the policy did
 * not mark optional stops the run here, before anything starts (exit 2);
 * optional ones go, with one warning naming the sections that asked. The
 * threads themselves leave them out (il_sched_apply_self) and say so in
 * threads[]. Where the probe was refused, the threads' own sched_setattr
 * decides.
 */
static int check_uclamp(struct il_run *r)
{
	const struct il_role_attrs *a;
	const char *label;
	char why[160], asked[256] = "";
	size_t off = 0;
	unsigned kinds = 0;

	if (il_sysinfo_uclamp(why, sizeof(why)) != 0)
		return 0;
	for (size_t i = 0; (a = il_policy_attrs_at(r->policy, i, &label)); i++) {
		unsigned clamps = (a->has_uclamp_min ? IL_OPT_UCLAMP_MIN : 0u) |
				  (a->has_uclamp_max ? IL_OPT_UCLAMP_MAX : 0u);

		if (!clamps)
			continue;
		if (clamps & ~a->optional) {
			bool min = (clamps & ~a->optional) & IL_OPT_UCLAMP_MIN;

			fprintf(stderr, "inputlat run: policy %s: [%s] %s = %u needs uclamp: %s "
				"(write 'optional %s = %u' to run without it)\n",
				il_policy_name(r->policy), label, min ? "uclamp_min" : "uclamp_max",
				min ? a->uclamp_min_pct : a->uclamp_max_pct, why,
				min ? "uclamp_min" : "uclamp_max",
				min ? a->uclamp_min_pct : a->uclamp_max_pct);
			return 2;
		}
		kinds |= clamps;
		if (off < sizeof(asked))
			off += (size_t)snprintf(asked + off, sizeof(asked) - off, "%s%s",
						off ? ", " : "", label);
	}
	if (kinds)
		il_warn(&r->warnings, "policy %s: optional %s not applied to %s: %s",
			il_policy_name(r->policy),
			kinds == (IL_OPT_UCLAMP_MIN | IL_OPT_UCLAMP_MAX) ? "uclamp_min and uclamp_max"
			: kinds & IL_OPT_UCLAMP_MIN ? "uclamp_min" : "uclamp_max", asked, why);
	return 0;
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
	rc = check_uclamp(r);
	if (rc)
		return rc;
	rc = check_hog_script(r);
	if (rc)
		return rc;
	prio = policy_max_rt_prio(r->policy);
	if (prio && !il_sysinfo_may_use_rt(prio)) {
		fprintf(stderr,
			"inputlat run: policy %s needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d (run as root)\n",
			il_policy_name(r->policy), prio);
		return 2;
	}
	/* A SIGKILLed run's background load is stopped first (it may be the
	 * load this run would otherwise measure under). */
	il_background_recover_stale(il_knobs_state_dir(), stderr);
	/* A crashed run's knobs are put back first. A live run's knobs are left
	 * alone, and only a policy that needs knobs of its own must wait for it. */
	rc = il_knobs_recover_stale(il_knobs_state_dir(), stderr);
	if (rc < 0 && policy_sets_knobs(r->policy)) /* its one line is printed */
		return rc == -EBUSY ? IL_EXIT_KNOBS_BUSY : 1;
	return 0;
}
