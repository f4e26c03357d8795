/* The options of `inputlat run`, parsed and checked before anything starts. */
#ifndef IL_RUN_OPTS_H
#define IL_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "il_input.h"
#include "il_present.h"

/* The ten pipeline threads, in hop order of their first stamp. */
enum il_thread_id {
	IL_T_BROWSER_EVDEV,
	IL_T_BROWSER_UI,
	IL_T_BROWSER_IO,
	IL_T_RENDER_IO,
	IL_T_RENDER_COMP,
	IL_T_RENDER_MAIN,
	IL_T_VIZ_IO,
	IL_T_VIZ_COMP,
	IL_T_VIZ_GPU,
	IL_T_VIZ_DRM,
	IL_T_COUNT
};

/* "browser:ui", ... */
const char *il_thread_name(enum il_thread_id t);

enum il_hog_mode { IL_HOG_MODE_BUSY, IL_HOG_MODE_BURSTY };

struct il_run_opts {
	uint64_t events;
	uint64_t interval_ms;
	uint64_t timeout_ms;
	uint64_t duration_ms; /* run at least this long (0: until the events are done) */
	uint64_t seed;
	uint64_t work_us[IL_T_COUNT];
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
	uint64_t load_threads;
	char lock[32];
	char runaway[16]; /* test hook: this thread spins forever */
	char garbage[16]; /* test hook: this child gets a garbage control frame */
	uint64_t rttime_ms; /* RLIMIT_RTTIME; 0: the run's time bound */
	bool quiet;
};

/*
 * Parses `run` options (argv[0] is "run"). On a user error prints one line
 * naming the option to stderr and returns 2; 0 on success; 1 after --help.
 */
int il_run_opts_parse(int argc, char **argv, struct il_run_opts *o);

#endif
