/*
 * What one `inputlat run` produced, handed to the report (il_report.c)
 * once the run is over: the outputs read this and nothing of the
 * orchestrator's live state, so the report needs no libuv and can be
 * tested from a result built by hand.
 */
#ifndef IL_RESULT_H
#define IL_RESULT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "il_chain.h"
#include "il_event_sink.h"
#include "il_knobs.h"
#include "il_marks.h"
#include "il_msg.h"
#include "il_policy.h"
#include "il_run_opts.h"
#include "il_sched.h"
#include "il_trace.h"

struct il_run_stats;

/*
 * What the reader of a run must know that did not fail it: a setting the
 * kernel could not apply and the policy allowed to go, work not done as
 * configured. One sentence each. Any stage appends with il_warn; the
 * report writes them once, as warnings[].
 */
#define IL_WARNINGS_MAX 16

struct il_warnings {
	size_t n;	  /* entries in msg; at most IL_WARNINGS_MAX */
	size_t dropped;	  /* warnings beyond IL_WARNINGS_MAX, counted */
	bool report_only; /* a failed run's: kept for its report, not printed */
	char msg[IL_WARNINGS_MAX][400];
};

/* Appends one warning and prints it as one line on stderr,
 * "inputlat run: warning: ...". Never fails: past IL_WARNINGS_MAX the
 * warning is printed and counted in dropped. */
void il_warn(struct il_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* As il_warn, for what stderr has already said in its own words: only
 * appended, so that the report says it too. */
void il_warn_said(struct il_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct il_result {
	/* What was asked for. */
	const struct il_run_opts *o;
	const struct il_policy *policy;
	const char *cmdline;
	struct timespec start_wall;

	/* The machine while the run ran. */
	long long rt_runtime_us; /* in force during the run; LLONG_MIN when unreadable */
	struct il_fair_server fs;
	const struct il_knob_report *knobs;
	double loops_per_us;
	uint64_t clock_overhead_ns;    /* part of each handler's measured work */
	uint64_t cpu_clock_step_ns;    /* the thread CPU clock's step (il_work.h) */
	enum il_work_model work_model; /* the one the run used */
	const struct il_warnings *warnings;
	/* What the run measured on (il_sysinfo): facts for the header's
	 * kernel object and the system object, read once the policy's knobs
	 * were in force; steal during the run, -1 with steal_why when
	 * unreadable; the seed of the interval jitter. */
	const cJSON *kernel_facts, *system_facts;
	double steal_pct;
	const char *steal_why;
	uint64_t seed;
	const cJSON *background; /* --background's stats, NULL without one */

	/* Time (CLOCK_MONOTONIC ns). */
	uint64_t start_ns, measure_start_ns, end_ns;
	/* Start-up and teardown milestones (il_run.h; 0: not reached), and
	 * when the streamed outputs were closed. */
	uint64_t enter_ns, preflight_ns, attributed_ns, calibrated_ns, knobs_set_ns, facts_ns,
	    prespawn_ns, spawned_ns, first_inject_ns, stop_ns;
	uint64_t outputs_streamed_ns;
	/* Outputs that were asked for and not written (-errno, 0 when written
	 * or not asked for): outputs{} names no file that does not exist. */
	int records_err, trace_err, hist_err, hist_csv_err;

	/*
	 * Events 1..nsent went through the run's sinks one at a time
	 * (il_event_sink.h); what the report needs of them is in run_stats, and
	 * every other sink adds its own keys through its report callback.
	 * No per-event array is kept.
	 */
	uint64_t nsent;
	const struct il_run_stats *run_stats;
	const struct il_event_sinks *sinks;
	uint64_t completed, timed_out, late, stray, inject_errors, invalid_frames;
	/* The in-flight window: slots allocated, most events held at once. */
	uint64_t window_slots, window_max_held;
	/* Events 1..warmup are warm-up: in the records, flagged, and out of
	 * every statistic and of the counts above (nsent included). */
	uint64_t warmup, warmup_completed, warmup_timed_out;

	/* How it ended. */
	int exit_code;
	bool interrupted;
	const char *fail_msg; /* "" when none */

	/* Every thread's ready report, and each child's final stats (NULL
	 * when the child sent none). */
	const cJSON *threads;
	const cJSON *stats[IL_PROC_COUNT];
	/* For a child of the chain whose stats are NULL, why ("killed at the
	 * stop: ...", "... killed by signal 9"); "" otherwise. */
	char stats_why[IL_PROC_COUNT][160];

	/* Hygiene: "" when the orchestrator's memory is locked, else why not;
	 * /dev/cpu_dma_latency held at 0 for the run, else why not. */
	const char *memlock_why;
	int64_t locked_kib;	/* VmLck at the stop; -1 when the run never stopped in order */
	const char *rttime_why; /* "" when il_run set RLIMIT_RTTIME, else why not */
	bool dma_held;
	int64_t dma_value_us; /* read back from the kernel once held; -1 when not read */
	const char *dma_why;
	/* The harness's own threads: what they asked for and got (the
	 * children's control threads are in their stats, "control_rt"). */
	const struct il_sched_ask *loop_ask;
	struct il_sched_ask watchdog_ask;

	/* --trace-marker: the orchestrator's account (its injection slices;
	 * the children's are in their stats, "trace_marker"), and tracefs's
	 * tracing_on at the start: 1, 0, or -errno when unreadable. */
	const struct il_marks *marks;
	int tracing_on;

	/* The orchestrator itself (the injector's thread in the trace). */
	int self_pid, self_tid;

	/* Context switches of the chain's threads while measuring (il_ctxsw.h). */
	const struct il_ctxsw *ctxsw;

	/* Counter samples for the trace (may be empty). */
	const struct il_trace_counter *counters;
	size_t ncounters;
};

/*
 * Outputs written once the run is over (--records and --trace are
 * written while it runs: il_outputs.h), each into a stream the run
 * opened before it started (il_out) and commits after. Each returns 0 or
 * -errno; the commit reports a failed write.
 */
void il_report_summary(const struct il_result *r);
int il_report_json(const struct il_result *r, FILE *f);
int il_report_hist(const struct il_result *r, FILE *f);
int il_report_hist_csv(const struct il_result *r, FILE *f);

/*
 * Appends to w what makes this run's figures doubtful, one sentence each
 * (il_warn prints it too): a pipeline thread whose measured work was
 * more than 10% off its configured work ("work: ..."), a process that
 * could not lock its memory ("memory: ...").
 */
void il_report_check(const struct il_result *r, struct il_warnings *w);

#endif
