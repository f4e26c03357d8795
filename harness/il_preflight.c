/*
 * Preflight: everything a user can get wrong is checked before anything
 * changes on the machine or any process starts.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_background.h"
#include "il_cmd.h"
#include "il_file.h"
#include "il_js.h"
#include "il_lock.h"
#include "il_paths.h"
#include "il_present.h"
#include "il_run.h"
#include "il_sched_refusal.h"
#include "il_sysinfo.h"

/* Roles and thread sections alike. */
static bool policy_has_deadline(const struct il_policy *p)
{
	const struct il_role_attrs *a;

	for (size_t i = 0; (a = il_policy_attrs_at(p, i, NULL)); i++)
		if (a->sched_class == SCHED_DEADLINE)
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

			fprintf(stderr,
				"inputlat run: policy %s: [%s] %s = %u needs uclamp: %s "
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
			kinds == (IL_OPT_UCLAMP_MIN | IL_OPT_UCLAMP_MAX)
			    ? "uclamp_min and uclamp_max"
			: kinds & IL_OPT_UCLAMP_MIN ? "uclamp_min"
						    : "uclamp_max",
			asked, why);
	return 0;
}

static bool policy_sets_knobs(const struct il_policy *p)
{
	const struct il_knob_settings *k = il_policy_knobs(p);

	return k->has_rt_runtime || k->has_rt_period || k->has_fair_server;
}

/* Descriptors the orchestrator may need at once: channels to and from
 * four children, the loop, signal pipe, timers, pidfds, outputs. */
/*
 * Descriptors a run may hold at once beyond those it started with: at its
 * peak on the 2-CPU VM the orchestrator held 59 in a default run and 81
 * with every output, the trace marker, a background command, --lock il-bpf
 * and attribution's BPF programs and maps (2026-12; none of it grows with
 * the CPUs or the hog and load threads; a child holds 41 at most). 64 was
 * too few: the run it let start failed at "starting il-workload: too many
 * open files".
 */
#define RUN_FDS_FREE 128

/*
 * Enough free file descriptors for the whole run, checked before anything
 * starts: libuv aborts the process when it cannot make its signal pipe,
 * and a run that runs out half way has changed knobs and started
 * children. The soft limit is raised towards the hard one when that is
 * enough; otherwise one line, exit 2.
 */
static int check_open_files(void)
{
	struct rlimit rl;
	unsigned long used = 0;
	struct dirent *e;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	d = opendir("/proc/self/fd");
	if (!d) {
		if (errno != EMFILE && errno != ENFILE)
			return 0; /* no /proc: nothing to count with */
		used = rl.rlim_cur;
	} else {
		while ((e = readdir(d)))
			used += e->d_name[0] != '.';
		closedir(d);
		used--; /* the directory's own descriptor */
	}
	if (rl.rlim_cur >= used + RUN_FDS_FREE)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= used + RUN_FDS_FREE) {
		rl.rlim_cur = used + RUN_FDS_FREE;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return 0;
	}
	fprintf(stderr,
		"inputlat run: the open-file limit is %llu with %lu open already; a run "
		"needs %d more (raise it: ulimit -n %lu)\n",
		(unsigned long long)rl.rlim_cur, used, RUN_FDS_FREE, used + RUN_FDS_FREE);
	return 2;
}

/*
 * A replay plays its recorded spacing: a click after a gap of a day waits
 * a day. The run's bound counts the recording's span (il_run_bound_ns; the
 * policy is loaded);
 * one that cannot hold it is refused before anything starts (a 27-hour
 * gap ran into the watchdog after 21 s, "the run outlived its time bound",
 * and wrote nothing), as is an explicit --bound-ms shorter than it.
 */
static int check_replay_span(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	/* --bound-ms's own limit, the longest a run may be bounded to. */
	const uint64_t max_ns = il_ms_to_ns(86400000);
	char err[1024], gap[96] = "";

	if (o->input.kind != IL_INPUT_REPLAY)
		return 0;
	if (il_input_replay_span(&o->input, il_us_to_ns(o->interval_us),
				 il_run_opts_total_events(o), &r->replay, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	if (r->replay.longest_gap_ns)
		snprintf(gap, sizeof(gap), "; its longest gap, %.1f s, comes before click %llu",
			 (double)r->replay.longest_gap_ns / 1e9,
			 (unsigned long long)r->replay.longest_gap_before);
	if (!o->bound_ms && il_run_bound_needed_ns(r) > max_ns)
		fprintf(
		    stderr,
		    "inputlat run: %s: its %llu clicks take %.0f s to play%s, and the run would "
		    "need %.0f s in all: more than a run's longest bound (24 h); trim the "
		    "recording or ask fewer --events\n",
		    o->input.arg, (unsigned long long)r->replay.clicks,
		    (double)r->replay.span_ns / 1e9, gap, (double)il_run_bound_needed_ns(r) / 1e9);
	else if (o->bound_ms && il_ms_to_ns(o->bound_ms) <= r->replay.span_ns)
		fprintf(stderr,
			"inputlat run: --bound-ms %llu is shorter than the %.1f s that %s's %llu "
			"clicks take to play%s\n",
			(unsigned long long)o->bound_ms, (double)r->replay.span_ns / 1e9,
			o->input.arg, (unsigned long long)r->replay.clicks, gap);
	else
		return 0;
	return 2;
}

int il_preflight(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	char err[1024];
	const struct il_role_attrs *a;
	int rc;

	rc = check_open_files();
	if (rc)
		return rc;
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
	/* il_policy_load opens the file as every input is: a FIFO (no watchdog
	 * exists yet) or a device is refused, not waited on or read forever. */
	if (il_policy_load(o->policy, r->policy_dir, &r->policy, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	if (check_deadline_bound(r->policy, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	rc = check_uclamp(r);
	if (rc)
		return rc;
	rc = check_hog_script(r);
	if (rc)
		return rc;
	rc = check_replay_span(r);
	if (rc)
		return rc;
	/* SCHED_DEADLINE under taskset or a narrow cpuset: refused here, not
	 * by the first child that asks for it after the chain started. */
	for (size_t i = 0; (a = il_policy_attrs_at(r->policy, i, NULL)); i++)
		if (a->sched_class == SCHED_DEADLINE) {
			if (il_sched_refusal_deadline_blocked(err, sizeof(err))) {
				fprintf(stderr, "inputlat run: policy %s: %s\n",
					il_policy_name(r->policy), err);
				return 2;
			}
			break;
		}
	/* Privilege, as the kernel judges it (a capability, not the user id):
	 * refused here in one line, before any child starts. */
	for (size_t i = 0; (a = il_policy_attrs_at(r->policy, i, NULL)); i++) {
		if (!il_sched_refusal_privileged(a, err, sizeof(err))) {
			fprintf(stderr, "inputlat run: policy %s: %s\n", il_policy_name(r->policy),
				err);
			return 2;
		}
	}
	return 0;
}

int il_preflight_claim(struct il_run *r)
{
	char err[1024];
	int rc;

	/* A SIGKILLed run's background load is stopped first (it may be the
	 * load this run would otherwise measure under). */
	il_background_recover_stale(il_knobs_state_dir(), stderr);
	/*
	 * A policy that sets knobs takes the machine's knob lock now, for the
	 * whole run; taking it puts back what a dead run left. A run that sets
	 * no knobs repairs a dead run's knobs too when it can, and otherwise
	 * says nothing: who holds the lock, or that a user may not take it,
	 * is none of its business.
	 */
	if (policy_sets_knobs(r->policy)) {
		rc = il_knobs_lock_wait(il_knobs_state_dir(), stderr, IL_KNOBS_LOCK_WAIT_MS,
					&r->knobs_lock, err, sizeof(err));
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
