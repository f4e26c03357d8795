/*
 * One `inputlat run`: the orchestrator's state from start to report.
 * il_run.c drives the run on a libuv loop; il_report.c turns the state
 * into the summary line, JSON, histograms and the trace.
 */
#ifndef IL_RUN_H
#define IL_RUN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "il_input.h"
#include "il_knobs.h"
#include "il_policy.h"
#include "il_run_opts.h"
#include "il_sampler.h"
#include "il_spawn.h"

enum il_proc_id { IL_P_BROWSER, IL_P_RENDER, IL_P_VIZ, IL_P_WORKLOAD, IL_P_COUNT };

enum il_event_state { IL_EV_UNSENT, IL_EV_PENDING, IL_EV_COMPLETED, IL_EV_TIMED_OUT };

enum il_phase { IL_PH_STARTING, IL_PH_RUNNING, IL_PH_DRAINING, IL_PH_STOPPING, IL_PH_DONE };

struct il_run {
	struct il_run_opts *o;
	struct il_policy *policy;
	char policy_dir[4096];
	char children_dir[4096];
	char *cmdline;
	struct timespec start_wall;
	uint64_t start_ns, measure_start_ns, end_ns;
	double loops_per_us;
	struct il_knob_report knobs;
	struct il_fair_server fs;
	long long rt_runtime_us; /* at start; LLONG_MIN when unreadable */
	int nr_cpus;

	uv_loop_t loop;
	struct il_proc procs[IL_P_COUNT];
	int nprocs;
	uv_pipe_t records;
	struct il_frame_reader *records_reader;
	struct il_injector *inj;
	int input_wfd;
	uv_timer_t inject_timer, release_timer, tick_timer;
	uv_signal_t sig[3];
	uint64_t rng;

	/* Events, indexed by event id (1-based). */
	uint64_t capacity;
	uint64_t nsent;
	uint64_t oldest_pending;
	uint64_t *stamp0;
	uint64_t *stamp0_end;
	uint8_t *state;
	struct il_msg *msgs;
	uint64_t completed, timed_out, late, stray, inject_errors;
	uint64_t invalid_frames;

	enum il_phase phase;
	uint64_t phase_deadline_ns;
	int exit_code;
	bool interrupted;
	bool garbage_sent;
	uint64_t inject_epipe_ns; /* the input pipe broke: browser-sim died */
	char fail_msg[512];
	cJSON *threads; /* every thread's ready report, owned */
	struct il_sampler *sampler; /* trace counters, NULL without --trace */
	uint64_t last_sample_ns;
	pid_t self_tid;
};

/* `inputlat run`: returns the process exit code (0, 1 or 2). */
int il_cmd_run(int argc, char **argv);

/* Outputs (il_report.c). Each returns 0 or -errno after printing one line. */
void il_report_summary(const struct il_run *r);
int il_report_json(const struct il_run *r, const char *path);
int il_report_hist(const struct il_run *r, const char *path);
int il_report_hist_csv(const struct il_run *r, const char *path);
int il_report_trace(const struct il_run *r, const char *path);
int il_report_records(const struct il_run *r, const char *path);

#endif
