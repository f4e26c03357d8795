/*
 * One `inputlat run`, inside the harness. The run goes through stages,
 * each in a file of its own:
 *   options    il_run_opts.c  what the user asked for, checked
 *   preflight  il_preflight.c everything a user can get wrong, before any change
 *   wiring     il_wiring.c    sockets and pipes from il_chain, the children spawned
 *   loop       il_orch.c      ready, start, inject, records, liveness, stop
 *   result     il_run.c       the struct il_result the report reads
 * il_run.c runs them in order with one cleanup path.
 */
#ifndef IL_RUN_H
#define IL_RUN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "il_background.h"
#include "il_chain.h"
#include "il_event_sink.h"
#include "il_event_window.h"
#include "il_stop_signals.h"
#include "il_file.h"
#include "il_halt.h"
#include "il_input.h"
#include "il_knobs.h"
#include "il_policy.h"
#include "il_progress.h"
#include "il_result.h"
#include "il_run_opts.h"
#include "il_sampler.h"
#include "il_spawn.h"

enum il_phase { IL_PH_STARTING, IL_PH_RUNNING, IL_PH_DRAINING, IL_PH_STOPPING, IL_PH_DONE };

/* The run's output files, opened and checked before it starts (il_out). */
enum il_run_out {
	IL_OUT_JSON,
	IL_OUT_HIST,
	IL_OUT_HIST_CSV,
	IL_OUT_RECORDS,
	IL_OUT_TRACE,
	IL_OUT_COUNT
};

struct il_run {
	const struct il_run_opts *o;
	struct il_policy *policy;
	char *sched_text; /* the policy resolved for the children (il_sched_table.h) */
	struct il_out *out[IL_OUT_COUNT]; /* NULL: not asked for, or handed to a sink */
	char policy_dir[4096];
	char children_dir[4096];
	char hog_script[4096]; /* the JS hog's script, resolved by preflight */
	char *cmdline;
	struct timespec start_wall;
	uint64_t start_ns, measure_start_ns, end_ns;
	/* Start-up and teardown milestones (CLOCK_MONOTONIC ns, 0: not reached):
	 * `inputlat run` entered, preflight done, attribution attached and the
	 * outputs' sinks built, work calibrated, knobs set, the kernel's and
	 * system's facts read, the loop ready to spawn (watchdog, loop,
	 * background load), children spawned, (every child ready =
	 * measure_start_ns), first event injected, stop sent, (every child
	 * gone = end_ns). */
	uint64_t enter_ns, preflight_ns, attributed_ns, calibrated_ns, knobs_set_ns, facts_ns,
	    prespawn_ns, spawned_ns, first_inject_ns, stop_ns;
	double loops_per_us;
	uint64_t clock_overhead_ns;    /* in each handler's measured work (il_work.h) */
	uint64_t cpu_clock_step_ns;    /* the thread CPU clock's step (il_work.h) */
	enum il_work_model work_model; /* the one the run used (--work-model, or loops) */
	uint64_t rttime_us;	       /* RLIMIT_RTTIME of every RT thread of the run */
	struct il_knob_report knobs;
	struct il_knobs_lock *knobs_lock; /* the machine's, while the policy sets knobs */
	long long rt_runtime_us;	  /* in force during the run; LLONG_MIN when unreadable */
	int cpus_allowed; /* CPUs the run may use (il_cpus_allowed): busy threads share these */
	struct il_warnings warnings;
	uint64_t seed;		       /* of the interval jitter, given or from the clock */
	cJSON *facts;		       /* {kernel, system}: il_sysinfo facts in force, owned */
	struct il_cpustat *stat_start; /* /proc/stat when the chain starts, for steal */
	double steal_pct;	       /* during the run; -1 unreadable (steal_why says why) */
	char steal_why[256];
	struct il_background *background; /* --background, NULL when none */
	cJSON *background_stats;	  /* its CPU share, taken before it stops */

	uv_loop_t loop;
	bool loop_open;
	struct il_proc procs[IL_PROC_COUNT];
	uv_pipe_t records;
	struct il_frame_reader *records_reader;
	struct il_injector *inj;
	int input_wfd;
	/* Injection is paced by a timerfd (ns resolution; uv timers have ms). */
	uv_poll_t inject_poll;
	int inject_tfd;
	uv_timer_t release_timer, tick_timer;
	/* Everything that had arrived by io_seen_ns has been read: the time
	 * the loop went to poll (its prepare phase), committed once the poll's
	 * callbacks are done (its check phase). Not the check's own time: a
	 * callback of the poll may itself hold the loop up (a stop sent from
	 * the last record, then a slow step), and what arrived meanwhile is
	 * still unread. Timeouts are judged as of then: a child is hung only
	 * on a ping unanswered by then, late at the stop only if not gone by
	 * then. */
	uv_prepare_t io_prepare;
	uv_check_t io_check;
	uint64_t poll_from_ns, io_seen_ns;
	/* One per IL_RUN_STOP_SIGNALS: each ends the run (il_orch.c). */
	uv_signal_t sig[IL_RUN_NSTOP_SIGNALS];
	uint64_t rng;

	/* Events in flight, and where final ones go (il_event_sink.h). */
	struct il_event_window *events;
	struct il_event_sinks sinks;
	struct il_run_stats *stats; /* fed by one of the sinks */
	uint64_t late, stray, inject_errors;
	uint64_t invalid_frames;

	struct il_progress progress; /* events, elapsed, p50/p99 on a terminal */
	enum il_phase phase;
	uint64_t phase_deadline_ns;
	int exit_code;
	bool interrupted;
	bool garbage_sent, stalled;
	/* Why a child's final stats never came ("" when they did). */
	char stats_why[IL_PROC_COUNT][160];
	uint64_t inject_epipe_ns; /* the input pipe broke: browser-sim died */
	char fail_msg[512];
	cJSON *threads;		      /* every thread's ready report, owned */
	struct il_sampler *sampler;   /* trace counters, NULL without --trace */
	struct il_attrib_run *attrib; /* kernel attribution (available or saying why not) */
	int marker_fd;		      /* tracefs trace_marker with --trace-marker, else -1 */
	struct il_marks marks;	      /* what became of the orchestrator's markers */
	int tracing_on;		      /* tracefs's, at the start, with --trace-marker */
	struct il_ctxsw *ctxsw;	      /* wake-ups of the chain's threads */
	bool lock_prepared;	      /* il_lock_kind_prepare(o->lock) held for the run */
	/* --input replay: what its clicks take to play (span_ns 0 otherwise). */
	struct il_replay_span replay;
	uint64_t last_sample_ns;
	pid_t self_tid;

	/* Hygiene (il_run.c): memory locked, /dev/cpu_dma_latency held. */
	char rttime_why[96];	      /* "" when RLIMIT_RTTIME was set */
	char memlock_why[192];	      /* "" when the orchestrator's memory is locked */
	int dma_fd;		      /* held open for the run, -1 when not */
	char dma_why[192];	      /* why it is not held, or its value unread */
	int64_t dma_value_us;	      /* the kernel's limit read back once held, -1 unread */
	struct il_sched_ask loop_ask; /* this loop: FIFO 98 under RT, else OTHER */
	/* VmLck at the stop, as each child reads its own then (not after the
	 * teardown, when the report is built); -1 before the stop. */
	int64_t locked_kib;

	/* Written at the stop; the load and hog threads read it (wire/il_halt.h). */
	struct il_halt halt;
};

/*
 * Preflight: checks input, presenter, lock, child programs, the policy
 * and the privilege it needs. Fills r->policy, r->policy_dir,
 * r->children_dir. Returns 0 or the exit code, after one line on stderr.
 */
int il_preflight(struct il_run *r);

/*
 * The watchdog's bound of the whole run: --bound-ms, else what it needs
 * (il_run_bound_needed_ns: start-up, every event, a replay's recorded
 * span, a drain). Needs the policy loaded.
 */
uint64_t il_run_bound_ns(const struct il_run *r);
uint64_t il_run_bound_needed_ns(const struct il_run *r);

/*
 * Once every check passed, outputs included: stops a crashed run's
 * background load and repairs the knobs it left; a policy that sets
 * knobs takes the machine's knob lock here, for the run's life
 * (r->knobs_lock). A run refused for bad input does neither (its one
 * line stays one line, and it touches nothing). Returns 0 or the exit
 * code, after one line on stderr.
 */
int il_preflight_claim(struct il_run *r);

/*
 * Wiring: creates the channels of il_chain, opens the injector, spawns
 * every child with its fds and options, and starts reading the records.
 * Returns 0 or a negative errno with one line in err.
 */
int il_wiring_start(struct il_run *r, char *err, size_t errlen);

/* The loop: timers and signals on r->loop, then run until the run ends
 * and every handle is closed. il_orch_fail stops the run with a message. */
void il_orch_init(struct il_run *r);
void il_orch_run(struct il_run *r);
void il_orch_fail(struct il_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What the loop calls back into, for the wiring to hand to the children. */
extern const struct il_proc_events il_orch_proc_events;
int il_orch_records_start(struct il_run *r, int fd);

#endif
