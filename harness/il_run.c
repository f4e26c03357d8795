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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_cmd.h"
#include "il_attrib_sink.h"
#include "il_cpustat.h"
#include "il_ctxsw.h"
#include "il_header.h"
#include "il_memlock.h"
#include "il_outputs.h"
#include "il_run_stats.h"
#include "il_sched.h"
#include "il_sysinfo.h"
#include "il_thread.h"
#include "il_tracefs.h"
#include "il_watchdog.h"
#include "il_work.h"

/* The orchestrator's loop runs above every role so a run can always end. */
#define ORCH_FIFO_PRIO 98
/* How long the children have to report ready, and to stop (il_orch.c). */
#define READY_BOUND_MS 10000
#define SLACK_BOUND_MS 10000

/* Slack of the in-flight window: events between two ticks, a record in transit. */
#define WINDOW_SLACK_MS 100

/*
 * The run's sinks (il_event_sink.h): the report's statistics always, the
 * streamed outputs when asked for. Their files are created here, before
 * anything changes on the machine, so a path that cannot be written is
 * reported at once (one line, exit 1). Returns 0 or -errno.
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
	if (o->records_path) {
		if ((rc = il_records_sink_new(o->records_path, &s)) < 0)
			return rc;
		if (il_attrib_run_available(r->attrib))
			il_records_sink_field(&s, il_attrib_sink_records_field, attrib.ctx);
		if ((rc = il_event_sinks_add(&r->sinks, &s)) < 0)
			return rc;
	}
	if (o->trace_path) {
		if ((rc = il_trace_sink_new(o->trace_path, o->trace_events, &s)) < 0)
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
	/* A diagnostic, not progress: --quiet keeps it. */
	if (!il_attrib_run_available(r->attrib) && r->o->attribution == IL_ATTRIB_AUTO)
		fprintf(stderr, "inputlat run: no attribution: %s\n", il_attrib_run_why(r->attrib));
	if (r->o->trace_marker) {
		/* Opened here, in a private mount namespace when tracefs is not
		 * mounted (il_tracefs.h); the children open their own. */
		r->marker_fd = il_tracefs_open_marker();
		if (r->marker_fd < 0)
			fprintf(stderr, "inputlat run: --trace-marker: cannot open tracefs trace_marker: %s "
				"(needs root, and a kernel with tracefs); going on without it\n",
				strerror(-r->marker_fd));
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
}

/* The wall-clock bound of the whole run: start, every event, a drain. */
static uint64_t run_bound_ns(const struct il_run_opts *o)
{
	return il_ms_to_ns(READY_BOUND_MS + o->duration_ms + o->timeout_ms + SLACK_BOUND_MS) +
	       il_us_to_ns(il_run_opts_total_events(o) * o->interval_us * 11 / 10);
}

/*
 * cyclictest's /dev/cpu_dma_latency trick: while the file is held open
 * with 0 written to it, PM QoS keeps every CPU out of deep idle states,
 * whose exit latency would otherwise land in the first hop after an idle
 * gap. Closing it (or dying) ends the request.
 */
static void dma_latency_hold(struct il_run *r)
{
	static const char path[] = "/dev/cpu_dma_latency";
	int32_t zero = 0;

	r->dma_fd = -1;
	if (r->o->no_dma_latency) {
		snprintf(r->dma_why, sizeof(r->dma_why), "not held: --no-dma-latency");
		return;
	}
	r->dma_fd = open(path, O_RDWR | O_CLOEXEC);
	if (r->dma_fd < 0) {
		snprintf(r->dma_why, sizeof(r->dma_why), "%s: %s", path,
			 errno == ENOENT ? "absent (kernel without CONFIG_PM_QOS device)"
					 : strerror(errno));
		return;
	}
	if (write(r->dma_fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		snprintf(r->dma_why, sizeof(r->dma_why), "%s: writing 0: %s", path, strerror(errno));
		close(r->dma_fd);
		r->dma_fd = -1;
	}
}

static void result_of(const struct il_run *r, struct il_result *res)
{
	size_t nctr = 0;

	memset(res, 0, sizeof(*res));
	res->o = r->o;
	res->policy = r->policy;
	res->cmdline = r->cmdline;
	res->start_wall = r->start_wall;
	res->nr_cpus = r->nr_cpus;
	res->rt_runtime_us = r->rt_runtime_us;
	res->fs = r->knobs.fs;
	res->knobs = &r->knobs;
	res->loops_per_us = r->loops_per_us;
	res->clock_overhead_ns = r->clock_overhead_ns;
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
	res->calibrated_ns = r->calibrated_ns;
	res->knobs_ns = r->knobs_ns;
	res->spawned_ns = r->spawned_ns;
	res->first_inject_ns = r->first_inject_ns;
	res->stop_ns = r->stop_ns;
	res->measure_start_ns = r->measure_start_ns;
	res->end_ns = r->end_ns;
	/* Counts of measured events: the warm-up ones are apart. */
	res->warmup = r->o->warmup < il_event_window_sent(r->events) ? r->o->warmup
								   : il_event_window_sent(r->events);
	res->nsent = il_event_window_sent(r->events) - res->warmup;
	res->warmup_completed = il_event_window_warmup_completed(r->events);
	res->warmup_timed_out = il_event_window_warmup_timed_out(r->events);
	res->memlock_why = r->memlock_why;
	res->dma_held = r->dma_fd >= 0;
	res->dma_why = r->dma_why;
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
	for (int p = 0; p < IL_PROC_COUNT; p++)
		res->stats[p] = r->procs[p].stats_msg;
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
	int rc;

	r->steal_pct = -1;
	if (!r->stat_start)
		return; /* steal_why says why */
	rc = il_cpustat_read(&end);
	if (rc < 0) {
		snprintf(r->steal_why, sizeof(r->steal_why), "unreadable: /proc/stat: %s",
			 strerror(-rc));
		return;
	}
	r->steal_pct = il_cpustat_steal_pct(r->stat_start, end);
	if (r->steal_pct < 0)
		snprintf(r->steal_why, sizeof(r->steal_why),
			 "unreadable: no CPU time passed in /proc/stat");
	il_cpustat_free(end);
}

/* Writes every output asked for; returns the first error (each printed one line). */
static int write_outputs(const struct il_result *res)
{
	static const struct {
		size_t path_offset;
		int (*write)(const struct il_result *r, const char *path);
	} outputs[] = {
		{ offsetof(struct il_run_opts, json_path), il_report_json },
		{ offsetof(struct il_run_opts, hist_path), il_report_hist },
		{ offsetof(struct il_run_opts, hist_csv_path), il_report_hist_csv },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		const char *path = *(const char *const *)((const char *)res->o + outputs[i].path_offset);

		if (path && outputs[i].write(res, path) < 0 && rc == 0)
			rc = -EIO;
	}
	return rc;
}

int il_cmd_run(int argc, char **argv)
{
	struct il_run_opts o;
	struct il_run r;
	struct il_result res;
	char err[1024];
	int64_t rt_runtime;
	int rc, exit_code;

	/* Stage 1: options. */
	rc = il_run_opts_parse(argc, argv, &o);
	if (rc == 1)
		return 0;
	if (rc)
		return 2;
	memset(&r, 0, sizeof(r));
	r.enter_ns = il_now_ns();
	r.o = &o;
	r.input_wfd = -1;
	r.inject_tfd = -1;
	r.marker_fd = -1;
	r.dma_fd = -1;
	r.self_tid = il_gettid();
	r.nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	/* Stage 2: preflight; nothing has changed on the machine yet. */
	exit_code = il_preflight(&r);
	if (exit_code)
		goto out_free;
	r.preflight_ns = il_now_ns();
	r.cmdline = il_cmdline_join("inputlat", argc, argv);
	if (events_alloc(&r) < 0 || !r.cmdline) {
		fprintf(stderr, "inputlat run: out of memory for %llu events\n", (unsigned long long)o.events);
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
	r.rng = r.seed = o.seed ? o.seed : il_now_ns();
	clock_gettime(CLOCK_REALTIME, &r.start_wall);
	r.start_ns = il_now_ns();
	/* Hygiene before anything is measured: memory locked, this thread's
	 * stack present, deep idle states off. The children do their own. */
	if (il_memlock_all(r.memlock_why, sizeof(r.memlock_why)) == 0)
		r.memlock_why[0] = '\0';
	il_memlock_prefault_stack();
	dma_latency_hold(&r);
	r.loops_per_us = il_work_calibrate() * o.test.work_scale;
	r.clock_overhead_ns = il_work_clock_overhead_ns();
	r.calibrated_ns = il_now_ns();

	/* Knobs: originals go to the state file before anything changes. */
	rc = il_knobs_apply(il_policy_knobs(r.policy), il_knobs_state_dir(), &r.knobs, err, sizeof(err));
	if (rc == -EBUSY) {
		/* Another run took the knobs since preflight: not the user's mistake. */
		fprintf(stderr, "inputlat run: %s\n", err);
		exit_code = IL_EXIT_KNOBS_BUSY;
		goto out_free;
	}
	if (rc < 0) {
		fprintf(stderr, "inputlat run: policy %s: %s\n", il_policy_name(r.policy), err);
		exit_code = 2;
		goto out_free;
	}
	/* The report gives the value in force during the run; the one before it
	 * is in knobs[].original. */
	r.rt_runtime_us = il_sysinfo_rt_runtime_us(&rt_runtime) == 0 ? rt_runtime : LLONG_MIN;
	/* The configuration the run measures, with the policy's knobs in force. */
	r.facts = cJSON_CreateObject();
	il_sysinfo_kernel_facts(cJSON_AddObjectToObject(r.facts, "kernel"));
	il_sysinfo_system_facts(cJSON_AddObjectToObject(r.facts, "system"));

	r.rttime_us = o.rttime_ms ? o.rttime_ms * 1000 : run_bound_ns(&o) / 1000;
	if (il_watchdog_start(run_bound_ns(&o), &r.knobs) < 0) {
		fprintf(stderr, "inputlat run: cannot start the watchdog thread\n");
		exit_code = 1;
		goto out_knobs;
	}
	if (il_policy_uses_rt(r.policy)) {
		struct sched_param sp = { .sched_priority = ORCH_FIFO_PRIO };

		il_rttime_limit_set(r.rttime_us, r.rttime_us + 1000000);
		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}

	/* Stages 3 and 4: wiring, then the loop until every child is gone. */
	rc = il_cpustat_read(&r.stat_start);
	if (rc < 0)
		snprintf(r.steal_why, sizeof(r.steal_why), "unreadable: /proc/stat: %s", strerror(-rc));
	il_orch_init(&r);
	/* Stage 3a: the background load, in its own process group, for the
	 * length of the run; the watchdog kills the group if the run hangs.
	 * After il_orch_init, so that a Ctrl-C from here on is the loop's
	 * orderly stop, which stops the load too. */
	if (o.background) {
		rc = il_background_start(o.background, il_knobs_state_dir(), &r.background, err,
					 sizeof(err));
		if (rc < 0) {
			il_orch_fail(&r, "%s", err);
			if (rc == -ECHILD)
				r.exit_code = 2; /* the user's command: not there, or ends at once */
		} else {
			il_watchdog_add_pid(-il_background_pgid(r.background));
		}
	}

	r.knobs_ns = il_now_ns();
	/* A run that failed already starts no child. */
	rc = r.exit_code ? 0 : il_wiring_start(&r, err, sizeof(err));
	r.spawned_ns = il_now_ns();
	if (rc < 0) {
		il_orch_fail(&r, "%s", err);
		if (rc == -ENOENT || rc == -EACCES || rc == -ENODEV)
			r.exit_code = 2;
	}
	il_orch_run(&r);
	steal_measure(&r);
	if (r.background) {
		r.background_stats = il_background_stats_json(r.background);
		il_background_stop(r.background);
		r.background = NULL;
	}

	/* Stage 5: the result, handed to the outputs. */
	if (r.knobs.n && il_knobs_restore(il_knobs_state_dir(), NULL, err, sizeof(err)) < 0)
		fprintf(stderr, "inputlat: restoring system knobs: %s\n", err);
	result_of(&r, &res);
	/* The streamed statistics are complete once the window was flushed:
	 * judge the run's work and hygiene before the report is written. */
	il_report_check(&res, &r.warnings);
	/* An output that could not be written fails the run: its results are lost.
	 * The streamed ones end first, so the report sees them complete. */
	if (il_event_sinks_finish(&r.sinks, &res) < 0 && r.exit_code == 0)
		r.exit_code = 1;
	res.exit_code = r.exit_code;
	res.outputs_streamed_ns = il_now_ns();
	if (write_outputs(&res) < 0 && r.exit_code == 0)
		r.exit_code = 1;
	if (r.exit_code == 0 || res.completed)
		il_report_summary(&res);
	exit_code = r.exit_code;
	il_watchdog_stop();
	goto out_free;
out_knobs:
	il_knobs_restore(il_knobs_state_dir(), NULL, err, sizeof(err));
out_free:
	run_free(&r);
	return exit_code;
}
