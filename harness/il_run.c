/*
 * `inputlat run`: the stages of one run in order (see il_run.h), with one
 * cleanup path that undoes them in reverse.
 */
#include "il_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_cmd.h"
#include "il_attrib_sink.h"
#include "il_dma_latency.h"
#include "il_file.h"
#include "il_cpustat.h"
#include "il_ctxsw.h"
#include "il_header.h"
#include "il_memlock.h"
#include "il_outputs.h"
#include "il_parse.h"
#include "il_printable.h"
#include "il_procfs.h"
#include "il_run_stats.h"
#include "il_sched.h"
#include "il_sysinfo.h"
#include "il_thread.h"
#include "il_tracefs.h"
#include "il_watchdog.h"
#include "il_work.h"

/* The orchestrator's loop runs above every role so a run can always end. */
#define ORCH_FIFO_PRIO 98

/* Slack of the in-flight window: events between two ticks, a record in transit. */
#define WINDOW_SLACK_MS 100

/* Each output's option, in enum il_run_out's order. */
static const char *out_option(int i)
{
	static const char *const names[IL_OUT_COUNT] = {"--json", "--hist", "--hist-csv",
							"--records", "--trace"};
	return names[i];
}

/*
 * Every output asked for is checked and prepared before anything changes
 * on the machine or any child starts (il_out: regular files or "-" only,
 * never a symlink or another user's file, written beside and renamed at
 * the end), and none may be another, or an input of the run: a mistake
 * there is one line and exit 2 now, not a lost report after the run.
 */
static int outputs_open(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	const char *paths[IL_OUT_COUNT] = {o->json_path, o->hist_path, o->hist_csv_path,
					   o->records_path, o->trace_path};
	const char *inputs[3] = {il_policy_path(r->policy), NULL, o->hog_script};
	const char *input_what[3] = {"the policy file", "the replayed input", "the hog script"};
	char err[1024];

	if (o->input.kind == IL_INPUT_REPLAY)
		inputs[1] = o->input.arg;
	for (int i = 0; i < IL_OUT_COUNT; i++) {
		if (!paths[i])
			continue;
		if (il_out_open(out_option(i), paths[i], &r->out[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "inputlat run: %s\n", err);
			return 2;
		}
		for (int j = 0; j < i; j++)
			if (r->out[j] && il_out_same(r->out[i], r->out[j])) {
				fprintf(stderr,
					"inputlat run: %s %s and %s %s are the same file; give "
					"each output its own\n",
					out_option(j), paths[j], out_option(i), paths[i]);
				return 2;
			}
		for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++)
			if (inputs[k] && il_out_is_file(r->out[i], inputs[k])) {
				fprintf(stderr,
					"inputlat run: %s %s is %s (%s); refusing to overwrite "
					"an input\n",
					out_option(i), paths[i], input_what[k], inputs[k]);
				return 2;
			}
	}
	/* The watchdog removes them if the run dies at its bound (it starts
	 * later; the streamed outputs go to their sinks before it does). */
	for (int i = 0; i < IL_OUT_COUNT; i++) {
		const char *name;
		int dirfd = il_out_temp(r->out[i], &name);

		if (dirfd >= 0)
			il_watchdog_add_temp(dirfd, name);
	}
	return 0;
}

/* True when an output goes to stdout, where the summary line would mix in. */
static bool outputs_to_stdout(const struct il_run_opts *o)
{
	const char *paths[] = {o->json_path, o->hist_path, o->hist_csv_path, o->records_path,
			       o->trace_path};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (paths[i] && strcmp(paths[i], "-") == 0)
			return true;
	return false;
}

/*
 * The run's sinks (il_event_sink.h): the report's statistics always, the
 * streamed outputs when asked for, each taking its output opened by
 * outputs_open. Returns 0 or -errno.
 */
static int sinks_build(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	struct il_event_sink s, attrib;
	int rc;

	rc = il_run_stats_new(o->hist_path ? o->hist_max_us : 0, &r->stats);
	if (rc < 0) {
		fprintf(stderr, "inputlat run: out of memory for the run's statistics\n");
		return rc;
	}
	s = il_run_stats_sink(r->stats);
	if ((rc = il_event_sinks_add(&r->sinks, &s)) < 0)
		return rc;
	/* Attribution before the outputs: records and trace read what it found. */
	if ((rc = il_attrib_sink_new(r->attrib, &attrib)) < 0 ||
	    (rc = il_event_sinks_add(&r->sinks, &attrib)) < 0)
		return rc;
	if (r->out[IL_OUT_RECORDS]) {
		rc = il_records_sink_new(
		    r->out[IL_OUT_RECORDS],
		    o->input.kind == IL_INPUT_UINPUT || o->input.kind == IL_INPUT_EVDEV, &s);
		r->out[IL_OUT_RECORDS] = NULL; /* the sink's, even on failure */
		if (rc < 0)
			return rc;
		if (il_attrib_run_available(r->attrib))
			il_records_sink_field(&s, il_attrib_sink_records_field, attrib.ctx);
		if ((rc = il_event_sinks_add(&r->sinks, &s)) < 0)
			return rc;
	}
	if (r->out[IL_OUT_TRACE]) {
		rc = il_trace_sink_new(r->out[IL_OUT_TRACE], o->trace_events, &s);
		r->out[IL_OUT_TRACE] = NULL;
		if (rc < 0)
			return rc;
		il_trace_sink_cpu_tracks(&s, r->attrib);
		if ((rc = il_event_sinks_add(&r->sinks, &s)) < 0)
			return rc;
	}
	return 0;
}

/*
 * Attribution: the BPF capture is loaded and attached before anything
 * runs (it follows the run's threads once they report ready). Where it
 * cannot run, one line says why and the run goes on without it, unless
 * --attribution on asked for it: then the run stops (exit 2). Returns 0
 * or the exit code.
 */
static int attribution_start(struct il_run *r)
{
	char err[512];
	int rc = il_attrib_run_new(r->o->attribution, &r->attrib, err, sizeof(err));

	if (rc == -ENOMEM) {
		fprintf(stderr, "inputlat run: out of memory\n");
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "inputlat run: --attribution on: %s\n", err);
		return 2;
	}
	/* Without attribution, auto says why once the run is up (il_attrib_sink.c). */
	if (r->o->trace_marker) {
		/* Opened here, in a private mount namespace when tracefs is not
		 * mounted (il_tracefs.h); the children open their own. */
		r->marker_fd = il_tracefs_open_marker();
		r->marks.asked = true;
		r->tracing_on = il_tracefs_tracing_on();
		if (r->marker_fd < 0) {
			r->marks.open_err = -r->marker_fd;
			il_warn(&r->warnings,
				"--trace-marker: cannot open tracefs trace_marker: %s (needs root, "
				"and a kernel with tracefs); the run has no markers",
				strerror(-r->marker_fd));
		} else if (r->tracing_on == 0) {
			/* Written, and dropped by the kernel: the trace would show none. */
			il_warn(&r->warnings,
				"--trace-marker: tracefs tracing_on is 0, so the kernel drops "
				"the markers (trace-cmd record, or writing 1 to tracing_on, turns "
				"it on)");
		}
	}
	return 0;
}

/*
 * Events stay in the window from injection until final, and leave in id
 * order: about (timeout + slack) / shortest interval (-10% jitter) of
 * them. The window grows past that if it must (a replayed burst).
 */
static int events_alloc(struct il_run *r)
{
	const struct il_run_opts *o = r->o;
	uint64_t hint = (o->timeout_ms + WINDOW_SLACK_MS) * 1000 * 10 / (9 * o->interval_us) + 64;
	int rc;

	r->threads = cJSON_CreateArray();
	if (!r->threads)
		return -ENOMEM;
	rc = il_event_window_new(il_run_opts_total_events(o), hint, &r->sinks, &r->events);
	if (rc == 0)
		il_event_window_set_warmup(r->events, o->warmup);
	return rc;
}

static void run_free(struct il_run *r)
{
	/* The sinks first: they may point into the threads' ready reports. */
	il_event_sinks_free(&r->sinks);
	il_run_stats_free(r->stats);
	il_event_window_free(r->events);
	cJSON_Delete(r->threads);
	cJSON_Delete(r->facts);
	il_cpustat_free(r->stat_start);
	il_background_stop(r->background);
	cJSON_Delete(r->background_stats);
	il_sampler_free(r->sampler);
	il_attrib_run_free(r->attrib);
	if (r->marker_fd >= 0)
		close(r->marker_fd);
	il_halt_free(&r->halt);
	il_ctxsw_free(r->ctxsw);
	for (int i = 0; i < IL_PROC_COUNT; i++)
		il_proc_free_msgs(&r->procs[i]);
	free(r->cmdline);
	il_injector_free(r->inj);
	if (r->input_wfd >= 0)
		close(r->input_wfd);
	if (r->inject_tfd >= 0)
		close(r->inject_tfd);
	il_policy_free(r->policy);
	if (r->lock_prepared)
		il_lock_kind_release(r->o->lock);
	if (r->dma_fd >= 0)
		close(r->dma_fd);
	free(r->sched_text);
	for (int i = 0; i < IL_OUT_COUNT; i++)
		il_out_free(r->out[i]); /* not written: the previous files stay */
	il_knobs_unlock(r->knobs_lock);
}

/* The run holds PM QoS at 0 (il_dma_latency.h) unless --no-dma-latency. */
static void dma_latency_hold(struct il_run *r)
{
	int32_t v;

	r->dma_fd = -1;
	r->dma_value_us = -1;
	if (r->o->no_dma_latency) {
		snprintf(r->dma_why, sizeof(r->dma_why), "not held: --no-dma-latency");
		return;
	}
	r->dma_fd = il_dma_latency_hold(&v, r->dma_why, sizeof(r->dma_why));
	r->dma_value_us = v;
}

static void result_of(const struct il_run *r, struct il_result *res)
{
	size_t nctr = 0;

	memset(res, 0, sizeof(*res));
	res->o = r->o;
	res->policy = r->policy;
	res->cmdline = r->cmdline;
	res->start_wall = r->start_wall;
	res->rt_runtime_us = r->rt_runtime_us;
	if (r->knobs.fs_probed)
		res->fs = r->knobs.fs;
	else
		il_fair_server_probe(&res->fs); /* for the report; il_knobs.h says why now */
	res->knobs = &r->knobs;
	res->loops_per_us = r->loops_per_us;
	res->clock_overhead_ns = r->clock_overhead_ns;
	res->cpu_clock_step_ns = r->cpu_clock_step_ns;
	res->work_model = r->work_model;
	res->warnings = &r->warnings;
	res->kernel_facts = cJSON_GetObjectItemCaseSensitive(r->facts, "kernel");
	res->system_facts = cJSON_GetObjectItemCaseSensitive(r->facts, "system");
	res->steal_pct = r->steal_pct;
	res->steal_why = r->steal_why;
	res->seed = r->seed;
	res->background = r->background_stats;
	res->start_ns = r->start_ns;
	res->enter_ns = r->enter_ns;
	res->preflight_ns = r->preflight_ns;
	res->attributed_ns = r->attributed_ns;
	res->calibrated_ns = r->calibrated_ns;
	res->knobs_set_ns = r->knobs_set_ns;
	res->facts_ns = r->facts_ns;
	res->prespawn_ns = r->prespawn_ns;
	res->spawned_ns = r->spawned_ns;
	res->first_inject_ns = r->first_inject_ns;
	res->stop_ns = r->stop_ns;
	res->measure_start_ns = r->measure_start_ns;
	res->end_ns = r->end_ns;
	/* Counts of measured events: the warm-up ones are apart. */
	res->warmup = r->o->warmup < il_event_window_sent(r->events)
			  ? r->o->warmup
			  : il_event_window_sent(r->events);
	res->nsent = il_event_window_sent(r->events) - res->warmup;
	res->warmup_completed = il_event_window_warmup_completed(r->events);
	res->warmup_timed_out = il_event_window_warmup_timed_out(r->events);
	res->memlock_why = r->memlock_why;
	res->locked_kib = r->locked_kib;
	res->rttime_why = r->rttime_why;
	res->loop_ask = &r->loop_ask;
	il_watchdog_ask(&res->watchdog_ask);
	res->dma_held = r->dma_fd >= 0;
	res->dma_value_us = r->dma_value_us;
	res->dma_why = r->dma_why;
	res->marks = &r->marks;
	res->tracing_on = r->tracing_on;
	res->run_stats = r->stats;
	res->sinks = &r->sinks;
	res->completed = il_event_window_completed(r->events);
	res->timed_out = il_event_window_timed_out(r->events);
	res->window_slots = il_event_window_slots(r->events);
	res->window_max_held = il_event_window_max_held(r->events);
	res->late = r->late;
	res->stray = r->stray;
	res->inject_errors = r->inject_errors;
	res->invalid_frames = r->invalid_frames;
	res->exit_code = r->exit_code;
	res->interrupted = r->interrupted;
	res->fail_msg = r->fail_msg;
	res->threads = r->threads;
	for (int p = 0; p < IL_PROC_COUNT; p++) {
		const struct il_proc *c = &r->procs[p];
		char *why = res->stats_why[p];
		size_t len = sizeof(res->stats_why[p]);

		res->stats[p] = c->stats_msg;
		why[0] = '\0';
		if (c->stats_msg || !il_chain_proc(p)->in_chain)
			continue;
		if (r->stats_why[p][0])
			snprintf(why, len, "%s", r->stats_why[p]);
		else if (!c->spawned)
			snprintf(why, len, "never started");
		else if (!c->exited)
			snprintf(why, len, "still running at the end");
		else if (c->term_signal)
			snprintf(why, len,
				 "it ended without sending them: killed by signal %d (%s)",
				 c->term_signal, strsignal(c->term_signal));
		else
			snprintf(why, len, "it ended without sending them: exit status %lld",
				 (long long)c->exit_status);
	}
	res->self_pid = getpid();
	res->self_tid = r->self_tid;
	res->ctxsw = r->ctxsw;
	res->counters = il_sampler_counters(r->sampler, &nctr);
	res->ncounters = nctr;
}

/* Steal time from the chain's start to its end (the hypervisor running
 * someone else on our virtual CPUs: latency we did not cause). */
static void steal_measure(struct il_run *r)
{
	struct il_cpustat *end = NULL;
	char why[64];
	int rc;

	r->steal_pct = -1;
	if (!r->stat_start)
		return; /* steal_why says why */
	rc = il_cpustat_read(&end);
	if (rc < 0) {
		snprintf(r->steal_why, sizeof(r->steal_why), "unreadable: /proc/stat: %s",
			 il_cpustat_why(rc, why, sizeof(why)));
		return;
	}
	r->steal_pct = il_cpustat_steal_pct(r->stat_start, end);
	if (r->steal_pct < 0)
		snprintf(r->steal_why, sizeof(r->steal_why),
			 "unreadable: no CPU time passed in /proc/stat");
	else if (!il_sysinfo_steal_told(end, r->steal_why, sizeof(r->steal_why)))
		r->steal_pct = -1;
	il_cpustat_free(end);
}

/* Writes the outputs made at the end and puts them in place; returns the
 * first error (each printed one line). */
static int write_outputs(struct il_run *r, struct il_result *res)
{
	/* The report last: its outputs{} says which of the others were written. */
	const struct {
		enum il_run_out which;
		int (*write)(const struct il_result *r, FILE *f);
		int *err;
	} outputs[] = {
	    {IL_OUT_HIST, il_report_hist, &res->hist_err},
	    {IL_OUT_HIST_CSV, il_report_hist_csv, &res->hist_csv_err},
	    {IL_OUT_JSON, il_report_json, NULL},
	};
	char err[1024];
	int rc = 0;

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		struct il_out *o = r->out[outputs[i].which];
		int w;

		if (!o)
			continue;
		r->out[outputs[i].which] = NULL;
		w = outputs[i].write(res, il_out_file(o));
		/* A write error (-EIO from the stream) is the commit's to report,
		 * with its cause; anything else failed before writing. */
		if (w < 0 && w != -EIO) {
			fprintf(stderr, "inputlat: writing %s %s: %s\n",
				out_option(outputs[i].which), il_out_path(o), strerror(-w));
			il_out_free(o);
		} else if ((w = il_out_commit(o, err, sizeof(err))) < 0) {
			fprintf(stderr, "inputlat: %s\n", err);
		}
		if (w < 0 && outputs[i].err)
			*outputs[i].err = w;
		if (w < 0 && rc == 0)
			rc = w;
	}
	return rc;
}

/*
 * Puts the knobs back from r->knobs (never from the state file, which a
 * run cannot trust to still be there, or to be its own) and lets the
 * machine's lock go. A knob that could not be put back is one line here,
 * and knobs[].restored in the report says which.
 */
static int release_knobs(struct il_run *r)
{
	char err[512];
	int rc = il_knobs_release(&r->knobs, r->knobs_lock, err, sizeof(err));

	if (rc < 0)
		fprintf(stderr, "inputlat: restoring system knobs: %s\n", err);
	il_knobs_unlock(r->knobs_lock);
	r->knobs_lock = NULL;
	return rc;
}

/*
 * IL_RUN_PARENT=PID (il_cmd.h): the run stops, as by a stop signal, when
 * its parent PID dies. PR_SET_PDEATHSIG sends the first of SIGTERM,
 * SIGINT, SIGHUP that is a stop signal here (stop_sigs: one ignored at
 * the start stays ignored); blocked until the loop's handlers exist, it
 * waits for them, and the loop stops in order. A parent gone before the
 * signal was asked for is seen by getppid(): nothing started, one line,
 * exit 1. A parent that is alive but not ours (a wrapper in between,
 * sudo) cannot be followed: one line, and the run goes on untied.
 * Returns 0, 1 or 2 (the entry is not a pid: one line).
 */
static int tie_to_parent(const sigset_t *stop_sigs)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	const char *env = getenv(IL_RUN_PARENT_ENV);
	uint64_t want;
	pid_t now;
	int sig = 0;

	if (!env)
		return 0;
	if (il_parse_u64(env, 1, INT32_MAX, &want) < 0) {
		fprintf(stderr,
			"inputlat run: %s='%s': expected the pid of the process that starts "
			"the run\n",
			IL_RUN_PARENT_ENV, env);
		return 2;
	}
	/* Ours alone: not the children's, nor the background command's. */
	unsetenv(IL_RUN_PARENT_ENV);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]) && !sig; i++)
		if (sigismember(stop_sigs, sigs[i]) == 1)
			sig = sigs[i];
	if (!sig)
		return 0; /* every one ignored (nohup and more): nothing would stop it */
	if (prctl(PR_SET_PDEATHSIG, sig) < 0) {
		fprintf(stderr, "inputlat run: %s=%d: PR_SET_PDEATHSIG: %s; not tied to it\n",
			IL_RUN_PARENT_ENV, (int)want, strerror(errno));
		return 0;
	}
	now = getppid();
	if (now == (pid_t)want)
		return 0;
	prctl(PR_SET_PDEATHSIG, 0);
	if (kill((pid_t)want, 0) == 0 || errno == EPERM) {
		/* Most often a command between them that forked the run and
		 * inherited the entry: 'bpf-floor -- sh -c "inputlat run ..."'.
		 * Named, with the way to a run that is tied. */
		struct il_procfs_stat ws, ns;
		char *wn = il_procfs_stat((pid_t)want, 0, 0, &ws) == 0 ? ws.comm : NULL;
		char *nn = il_procfs_stat(now, 0, 0, &ns) == 0 ? ns.comm : NULL;

		fprintf(stderr,
			"inputlat run: %s=%d (%s) is not this run's parent (%d, %s): the run is "
			"not tied to it (have %d start inputlat itself, or the command between "
			"them exec it: sh -c 'exec inputlat run ...')\n",
			IL_RUN_PARENT_ENV, (int)want, wn ? il_printable(wn) : "?", (int)now,
			nn ? il_printable(nn) : "?", (int)want);
		return 0;
	}
	fprintf(stderr, "inputlat run: the process that started it (%s=%d) is gone: not run\n",
		IL_RUN_PARENT_ENV, (int)want);
	return 1;
}

int il_cmd_run(int argc, char **argv)
{
	struct il_run_opts o;
	struct il_run r;
	struct il_result res;
	char err[1024];
	sigset_t stop_sigs, old_mask;
	int64_t rt_runtime;
	uint64_t bound_ns;
	int rc, exit_code;

	/* Stage 1: options. */
	rc = il_run_opts_parse(argc, argv, &o);
	if (rc == 1)
		return 0;
	if (rc)
		return 2;
	/*
	 * From here until the loop's handlers exist, a stop signal waits
	 * instead of killing the run by its default action, which would leave
	 * knobs changed (or the lock taken, a child started) with nobody to
	 * put them back. Threads started meanwhile (the watchdog) keep them
	 * blocked for good: the loop's thread is the one that handles them.
	 */
	sigemptyset(&stop_sigs);
	{
		static const int sigs[] = {IL_RUN_STOP_SIGNALS};

		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (!il_stop_signal_ignored(sigs[i]))
				sigaddset(&stop_sigs, sigs[i]);
	}
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old_mask);
	rc = tie_to_parent(&stop_sigs);
	if (rc) {
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		return rc;
	}
	signal(SIGPIPE, SIG_IGN);
	/* A run in the background of a terminal with `stty tostop` is stopped
	 * by its first line there (SIGTTOU), knobs changed and watchdog
	 * stopped, until somebody brings it back: ignored, the line is written
	 * (a handler would not do: the write would restart and stop again). */
	signal(SIGTTOU, SIG_IGN);
	memset(&r, 0, sizeof(r));
	r.enter_ns = il_now_ns();
	r.o = &o;
	r.input_wfd = -1;
	r.inject_tfd = -1;
	r.marker_fd = -1;
	r.dma_fd = -1;
	r.halt = IL_HALT_NONE;
	r.self_tid = il_gettid();
	r.cpus_allowed = il_cpus_allowed();

	/* Stage 2: preflight and the outputs, checked before anything changes
	 * on the machine; then a crashed run's leftovers repaired, knobs locked. */
	exit_code = il_preflight(&r);
	if (exit_code || (exit_code = outputs_open(&r)) || (exit_code = il_preflight_claim(&r)))
		goto out_free;
	r.preflight_ns = il_now_ns();
	/* The kernel facts' BTF parse overlaps the attribution's attach. */
	il_sysinfo_prefetch();
	r.cmdline = il_cmdline_join("inputlat", argc, argv);
	if (events_alloc(&r) < 0 || !r.cmdline) {
		fprintf(stderr, "inputlat run: out of memory for %llu events\n",
			(unsigned long long)o.events);
		exit_code = 1;
		goto out_free;
	}
	exit_code = attribution_start(&r);
	if (exit_code)
		goto out_free;
	if (sinks_build(&r) < 0) {
		exit_code = 1;
		goto out_free;
	}
	r.attributed_ns = il_now_ns();
	r.rng = r.seed = o.seed ? o.seed : il_now_ns();
	clock_gettime(CLOCK_REALTIME, &r.start_wall);
	r.start_ns = il_now_ns();
	r.locked_kib = -1; /* read at the stop */
	/* Hygiene before anything is measured: memory locked, this thread's
	 * stack present, deep idle states off. The children do their own. */
	if (il_memlock_all(r.memlock_why, sizeof(r.memlock_why)) == 0)
		r.memlock_why[0] = '\0';
	il_memlock_prefault_stack();
	dma_latency_hold(&r);
	/* Measured once, for the calibration and the work model both; the
	 * test hook's tick reaches the calibration's wall-clock path too. */
	r.cpu_clock_step_ns = o.test.coarse_clock ? 4000000 : il_work_cpu_clock_step_ns();
	r.loops_per_us = il_work_calibrate(r.cpu_clock_step_ns);
	r.clock_overhead_ns = il_work_clock_overhead_ns();
	r.work_model = o.work_model;
	if (r.work_model == IL_WORK_CPU_TIME && r.cpu_clock_step_ns > IL_WORK_FINE_CLOCK_NS) {
		/* A handler cannot spend 10 us by a clock that moves in 4 ms
		 * ticks: the run goes on with the loops model, and says so. */
		r.work_model = IL_WORK_LOOPS;
		if (r.cpu_clock_step_ns == UINT64_MAX)
			il_warn(&r.warnings,
				"work model: cpu-time needs the thread CPU clock, which did not "
				"move in 20 ms here; the run used loops");
		else
			il_warn(&r.warnings,
				"work model: cpu-time needs a thread CPU clock finer than %u us; "
				"this kernel's moves in %.0f us steps (typically a sched_clock "
				"that is not the TSC's, as under qemu without KVM); the run used "
				"loops",
				IL_WORK_FINE_CLOCK_NS / 1000, (double)r.cpu_clock_step_ns / 1e3);
	}
	r.calibrated_ns = il_now_ns();

	/* Knobs: originals go to the state file before anything changes (the
	 * machine's knob lock is held since preflight). */
	rc = il_knobs_apply(il_policy_knobs(r.policy), r.knobs_lock, &r.knobs, err, sizeof(err));
	if (rc == -EBUSY) {
		fprintf(stderr, "inputlat run: %s\n", err);
		exit_code = IL_EXIT_KNOBS_BUSY;
		goto out_free;
	}
	if (rc < 0) {
		fprintf(stderr, "inputlat run: policy %s: %s\n", il_policy_name(r.policy), err);
		exit_code = 2;
		goto out_free;
	}
	/* Asked for and not set (debugfs locked, or a server that cannot be
	 * lowered): the run goes on with what is in force, and says so where
	 * a reader of the run looks, not only in kernel.fair_server. */
	{
		const struct il_knob_settings *ks = il_policy_knobs(r.policy);

		if (ks->has_fair_server && !r.knobs.fs.tunable)
			il_warn(&r.warnings,
				"policy %s: fair server %llu us per %llu us not applied: %s; the "
				"run had the values in force",
				il_policy_name(r.policy),
				(unsigned long long)(ks->fs_runtime_ns / 1000),
				(unsigned long long)(ks->fs_period_ns / 1000),
				r.knobs.fs.why[0] ? r.knobs.fs.why : "not tunable");
	}
	r.knobs_set_ns = il_now_ns();
	/* The report gives the value in force during the run; the one before it
	 * is in knobs[].original. */
	r.rt_runtime_us = il_sysinfo_rt_runtime_us(&rt_runtime) == 0 ? rt_runtime : LLONG_MIN;
	/* The configuration the run measures, with the policy's knobs in force. */
	r.facts = cJSON_CreateObject();
	il_sysinfo_kernel_facts(cJSON_AddObjectToObject(r.facts, "kernel"));
	il_sysinfo_system_facts(cJSON_AddObjectToObject(r.facts, "system"));
	r.facts_ns = il_now_ns();
	{
		const struct il_knob_settings *ks = il_policy_knobs(r.policy);
		const cJSON *tf = il_json_get(r.facts, "kernel.rt_throttling.in_force");

		/* A policy named for RT throttling on a kernel that has none
		 * (6.12+ without RT groups) measures something else: said. */
		if (ks->has_rt_runtime && ks->rt_runtime_us >= 0 &&
		    (!ks->has_rt_period || ks->rt_runtime_us < ks->rt_period_us) &&
		    cJSON_IsFalse(tf))
			il_warn(
			    &r.warnings,
			    "policy %s asks for RT throttling (sched_rt_runtime_us %lld), but "
			    "none was in force: %s",
			    il_policy_name(r.policy), (long long)ks->rt_runtime_us,
			    cJSON_GetStringValue(il_json_get(r.facts, "kernel.rt_throttling.why")));
	}
	{
		const cJSON *bw = il_json_get(r.facts, "system.cpu_bandwidth");

		/* As a confining affinity would: said where a reader looks. */
		if (cJSON_IsObject(bw))
			il_warn(&r.warnings,
				"the run's cgroup allows %.3g CPUs' worth of time (%s: %.0f us per "
				"%.0f us): its latencies include that group's throttling, not only "
				"the policy's",
				il_json_num(bw, "cpus"),
				cJSON_GetStringValue(cJSON_GetObjectItem(bw, "file")),
				il_json_num(bw, "quota_us"), il_json_num(bw, "period_us"));
	}

	bound_ns = il_run_bound_ns(&r);
	r.rttime_us = o.rttime_ms ? o.rttime_ms * 1000 : bound_ns / 1000;
	/* Before the watchdog: it is FIFO 99 under every policy, and every RT
	 * thread of ours runs under RLIMIT_RTTIME. The report reads it back. */
	rc = il_rttime_limit_set(r.rttime_us, r.rttime_us + 1000000);
	if (rc < 0)
		snprintf(r.rttime_why, sizeof(r.rttime_why), "not set: setrlimit: %s",
			 strerror(-rc));
	rc = il_watchdog_start(bound_ns, &r.knobs);
	if (rc < 0) {
		fprintf(stderr, "inputlat run: cannot start the watchdog thread: %s%s\n",
			strerror(-rc), il_thread_limit_why(-rc));
		/* A process limit refuses the run before it starts, as a child's
		 * thread refused by it does (exit 2); anything else is a failure. */
		exit_code = rc == -EAGAIN ? 2 : 1;
		goto out_knobs;
	}
	/* FIFO 98 under an RT policy, else SCHED_OTHER nice 0 whatever we were
	 * started with (chrt, nice): the children inherit this loop's class. */
	if (il_policy_uses_rt(r.policy)) {
		il_sched_ask_apply(&r.loop_ask, SCHED_FIFO, ORCH_FIFO_PRIO);
	} else {
		il_sched_ask_apply(&r.loop_ask, SCHED_OTHER, 0);
	}

	/* Stages 3 and 4: wiring, then the loop until every child is gone. The
	 * stop signals, blocked since the start, reach the loop's handlers once
	 * it exists (and before the background load is forked, which must not
	 * inherit them blocked). */
	rc = il_cpustat_read(&r.stat_start);
	if (rc < 0)
		snprintf(r.steal_why, sizeof(r.steal_why), "unreadable: /proc/stat: %s",
			 il_cpustat_why(rc, err, sizeof(err)));
	il_orch_init(&r);
	if (!r.exit_code) /* else the loop has no handlers: they wait till the end */
		pthread_sigmask(SIG_UNBLOCK, &stop_sigs, NULL);
	/* Stage 3a: the background load, in its own process group, for the
	 * length of the run; the watchdog kills the group if the run hangs.
	 * After il_orch_init, so that a Ctrl-C from here on is the loop's
	 * orderly stop, which stops the load too. */
	if (o.background && !r.exit_code) {
		rc = il_background_start(o.background, il_knobs_state_dir(), &r.background, err,
					 sizeof(err));
		if (rc < 0) {
			il_orch_fail(&r, "%s", err);
			/* Refused before anything was measured, as a knob that cannot
			 * be set is: the user's command not there or ending at once,
			 * a process limit, a state directory it cannot write. */
			r.exit_code = 2;
		} else {
			il_watchdog_add_pid(-il_background_pgid(r.background));
		}
	}

	r.prespawn_ns = il_now_ns();
	/* A run that failed already starts no child. */
	rc = r.exit_code ? 0 : il_wiring_start(&r, err, sizeof(err));
	r.spawned_ns = il_now_ns();
	if (rc < 0) {
		il_orch_fail(&r, "%s", err);
		/* Not there, not allowed, or past a process limit (EAGAIN: the
		 * exit a child's thread refused by the limit gives too). */
		if (rc == -ENOENT || rc == -EACCES || rc == -ENODEV || rc == -EAGAIN)
			r.exit_code = 2;
	}
	il_orch_run(&r);
	steal_measure(&r);
	if (r.background) {
		r.background_stats = il_background_stats_json(r.background);
		il_background_stop(r.background);
		r.background = NULL;
	}

	/* Stage 5: the knobs back, from what the run holds in memory; the
	 * watchdog first lets go of them, so that however long the outputs
	 * take it can never write them again over a later run's. The loop's
	 * signal handlers are gone: stop signals wait again until the end. */
	pthread_sigmask(SIG_BLOCK, &stop_sigs, NULL);
	il_watchdog_knobs_done();
	if (release_knobs(&r) < 0 && r.exit_code == 0)
		r.exit_code = 1;
	result_of(&r, &res);
	/* Stopped before any measured event came back: a report of nothing
	 * is no result. One line, exit 1; the outputs say it too. Stopped
	 * after some, the run is a shorter measurement and exits 0. */
	if (r.interrupted && !res.completed && !r.exit_code) {
		snprintf(r.fail_msg, sizeof(r.fail_msg),
			 "interrupted before any event completed: the run measured nothing");
		il_progress_clear(&r.progress);
		fprintf(stderr, "inputlat: %s\n", r.fail_msg);
		r.exit_code = 1;
	}
	/* The streamed statistics are complete once the window was flushed:
	 * judge the run's work and hygiene before the report is written. */
	il_report_check(&res, &r.warnings);
	/* An output that could not be written fails the run: its results are lost.
	 * The streamed ones end first, so the report sees them complete. */
	if (il_event_sinks_finish(&r.sinks, &res) < 0) {
		/* The report is written next: it says why its exit code is 1. */
		for (size_t i = 0; i < r.sinks.n; i++)
			if (r.sinks.err[i])
				il_warn_said(&r.warnings, "the run's %s failed: %s; it exits 1",
					     r.sinks.v[i].name, strerror(-r.sinks.err[i]));
		for (size_t i = 0; i < r.sinks.n; i++) {
			if (!r.sinks.err[i])
				continue;
			if (!strcmp(r.sinks.v[i].name, "records"))
				res.records_err = r.sinks.err[i];
			else if (!strcmp(r.sinks.v[i].name, "trace"))
				res.trace_err = r.sinks.err[i];
		}
		if (r.exit_code == 0)
			r.exit_code = 1;
	}
	res.exit_code = r.exit_code;
	res.outputs_streamed_ns = il_now_ns();
	if (write_outputs(&r, &res) < 0 && r.exit_code == 0)
		r.exit_code = 1;
	if ((r.exit_code == 0 || res.completed) && !outputs_to_stdout(&o))
		il_report_summary(&res);
	exit_code = r.exit_code;
	il_watchdog_stop();
	goto out_free;
out_knobs:
	release_knobs(&r);
out_free:
	il_watchdog_stop(); /* again, or its copies of the outputs' names */
	il_sysinfo_prefetch_join();
	run_free(&r);
	/* A stop signal that came after the loop (or before it existed) found
	 * the run ending anyway: it is spent, not left to kill the caller. */
	{
		const struct timespec zero = {0, 0};

		while (sigtimedwait(&stop_sigs, NULL, &zero) > 0)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	return exit_code;
}
