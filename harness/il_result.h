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
#include <time.h>

#include "il_chain.h"
#include "il_event_sink.h"
#include "il_knobs.h"
#include "il_msg.h"
#include "il_policy.h"
#include "il_run_opts.h"
#include "il_trace.h"

struct il_run_stats;

struct il_result {
	/* What was asked for. */
	const struct il_run_opts *o;
	const struct il_policy *policy;
	const char *cmdline;
	struct timespec start_wall;

	/* The machine while the run ran. */
	int nr_cpus;
	long long rt_runtime_us; /* in force during the run; LLONG_MIN when unreadable */
	struct il_fair_server fs;
	const struct il_knob_report *knobs;
	double loops_per_us;

	/* Time (CLOCK_MONOTONIC ns). */
	uint64_t start_ns, measure_start_ns, end_ns;
	/* Start-up and teardown milestones (il_run.h; 0: not reached), and
	 * when the streamed outputs were closed. */
	uint64_t enter_ns, preflight_ns, calibrated_ns, knobs_ns, spawned_ns, first_inject_ns, stop_ns;
	uint64_t outputs_streamed_ns;

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

	/* How it ended. */
	int exit_code;
	bool interrupted;
	const char *fail_msg; /* "" when none */

	/* Every thread's ready report, and each child's final stats (NULL
	 * when the child sent none). */
	const cJSON *threads;
	const cJSON *stats[IL_PROC_COUNT];

	/* The orchestrator itself (the injector's thread in the trace). */
	int self_pid, self_tid;

	/* Counter samples for the trace (may be empty). */
	const struct il_trace_counter *counters;
	size_t ncounters;
};

/*
 * Outputs written once the run is over (--records and --trace are
 * written while it runs: il_outputs.h). Each returns 0 or -errno after
 * printing one line on stderr.
 */
void il_report_summary(const struct il_result *r);
int il_report_json(const struct il_result *r, const char *path);
int il_report_hist(const struct il_result *r, const char *path);
int il_report_hist_csv(const struct il_result *r, const char *path);

#endif
