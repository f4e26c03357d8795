/* The options of `inputlat run`, parsed and checked before anything starts. */
#ifndef IL_RUN_OPTS_H
#define IL_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "il_attrib_run.h"
#include "il_chain.h"
#include "il_input.h"
#include "il_lock.h"
#include "il_present.h"
#include "il_work.h"

/* Test hooks, never set by a normal run; gathered here so that the
 * production path shows where they act. */
struct il_test_hooks {
	int runaway_thread; /* enum il_thread_id that spins forever, or -1 */
	int garbage_proc;   /* enum il_proc_id that gets a garbage control frame, or -1 */
	/* The loop held up once, 2 s inside a tick, right after pinging every
	 * child: stall_proc (enum il_proc_id, or -1: none) is killed in it.
	 * stall_at_stop: held up 2 s instead right after the stop is sent,
	 * past the stop's bound, while the children exit. */
	bool stall, stall_at_stop;
	int stall_proc;
	double work_scale; /* every handler does this times its work (1: as configured) */
	/* The thread CPU clock's step is taken to be a 4 ms tick, as in qemu
	 * without KVM: the run's fallback to loops, where it acts. */
	bool coarse_clock;
};

/* The hog's work and pattern: a register loop or JavaScript (a script's
 * tick(), libmujs), never blocking or in long tasks with gaps. */
enum il_hog_mode { IL_HOG_MODE_BUSY, IL_HOG_MODE_BURSTY, IL_HOG_MODE_JS, IL_HOG_MODE_JS_BURSTY };

/* "busy", "bursty", "js", "js-bursty". */
const char *il_hog_mode_name_of(enum il_hog_mode m);

static inline bool il_hog_mode_is_js(enum il_hog_mode m)
{
	return m == IL_HOG_MODE_JS || m == IL_HOG_MODE_JS_BURSTY;
}

struct il_run_opts {
	uint64_t events;      /* measured mouse-downs */
	uint64_t warmup;      /* mouse-downs before them, kept out of every statistic */
	uint64_t interval_us; /* --interval-ms, which takes decimals down to 0.1 */
	uint64_t timeout_ms;
	uint64_t duration_ms; /* run at least this long (0: until the events are done) */
	uint64_t seed;
	uint64_t work_us[IL_T_COUNT];
	enum il_work_model work_model; /* --work-model */
	char policy[512];
	struct il_input_spec input;
	struct il_present_spec present;
	const char *json_path;
	const char *records_path;
	const char *hist_path;
	const char *hist_csv_path;
	uint64_t hist_max_us;
	const char *trace_path;
	uint64_t trace_events;
	uint64_t hog_threads; /* 0: no hog */
	enum il_hog_mode hog_mode;
	uint64_t hog_task_ms, hog_gap_ms;
	const char *hog_script; /* --hog-script FILE; NULL: the default miner.js */
	const char *background; /* --background CMD: sh -c CMD for the run; NULL: none */
	uint64_t load_threads;
	enum il_lock_kind lock;
	struct il_test_hooks test;
	uint64_t rttime_ms; /* RLIMIT_RTTIME; 0: the run's time bound */
	uint64_t bound_ms;  /* the watchdog's bound; 0: from the run's size */
	bool quiet;
	enum il_attrib_mode attribution; /* kernel attribution of every hop */
	bool trace_marker;		 /* hop boundaries into tracefs trace_marker */
	bool no_dma_latency;		 /* do not hold /dev/cpu_dma_latency at 0 */
};

/* Mouse-downs the run injects: the warm-up ones, then the measured ones
 * (none at all with --events 0: that run only keeps time). */
static inline uint64_t il_run_opts_total_events(const struct il_run_opts *o)
{
	return o->events ? o->events + o->warmup : 0;
}

/*
 * Parses `run` options (argv[0] is "run"). On a user error prints one line
 * naming the option to stderr and returns 2; 0 on success; 1 after --help.
 */
int il_run_opts_parse(int argc, char **argv, struct il_run_opts *o);

#endif
