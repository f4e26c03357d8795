/*
 * Whether two run reports are comparable: runs of one machine (kernel
 * release, CPU count, CPU model) and one scenario (events, interval, work
 * model, background load, hog), so that what differs between them is what
 * is being compared. compare, explain and reproduce judge with this;
 * scripts/inputlat_stats.py (comparable_differences) mirrors it for the
 * sweep's resume. Which differences refuse and which only warn is each
 * command's: a report that is not what its place says is refused, two
 * machines the user chose to compare are said in one warning.
 */
#ifndef IL_COMPARABLE_H
#define IL_COMPARABLE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which facts il_comparable_diff judges (or'ed). */
enum il_comparable_what {
	IL_COMPARABLE_MACHINE = 1,  /* kernel.release, kernel.nr_cpus, system.cpu_model */
	IL_COMPARABLE_SCENARIO = 2, /* scenario.events, .interval_ms, .load_threads,
				       .hog_threads, .hog_mode, .background */
	IL_COMPARABLE_WORK = 4,	    /* work_model (none written: loops) */
};
#define IL_COMPARABLE_ALL (IL_COMPARABLE_MACHINE | IL_COMPARABLE_SCENARIO | IL_COMPARABLE_WORK)

/*
 * The fields of `what` in which reports a and b differ, said into buf as
 * "kernel.nr_cpus 2 vs 64, scenario.load_threads 4 vs 0" (a's value
 * first; strings made printable; "" when none). A field one of them does
 * not carry is not judged (a trimmed report, or one from before it was
 * written), but for work_model, whose absence means loops. Returns how
 * many fields differ.
 */
int il_comparable_diff(const cJSON *a, const cJSON *b, unsigned what, char *buf, size_t len);

/*
 * What a report's place (a file name, a sweep's cell, a reproduce
 * scenario) says it holds; a NULL policy, hog_mode or background, or a
 * negative count, is not judged. hog_mode is as a report writes
 * scenario.hog_mode: "none" without hogs, else the --hog-mode ("busy",
 * "js", ...). background is the --background command, "" for a run
 * without one (its report writes scenario.background null).
 */
struct il_comparable_place {
	const char *policy;
	int64_t events, interval_ms, load_threads, hog_threads;
	const char *hog_mode;
	const char *background;
};

/*
 * The fields in which report differs from what its place says, into buf
 * as "policy cfs, its place's rt; scenario.load_threads 0, its place's 4"
 * ("" when none; a field the report lacks differs: it does not say it is
 * what its place says). Returns how many differ.
 */
int il_comparable_place_diff(const cJSON *report, const struct il_comparable_place *want, char *buf,
			     size_t len);

/*
 * Whether two reports are of one run: the same seed, start_time and,
 * where written, milestones_ns.enter (a CLOCK_MONOTONIC time: no two runs
 * share it); a copy of a report is one. A report without a seed or a
 * start time is not judged so (false).
 */
bool il_comparable_same_run(const cJSON *x, const cJSON *y);

#endif
