/*
 * Whether a run report's numbers are ones a run writes. A report is a
 * file anybody may have written: compare and explain read the same one,
 * and a value no run writes (1e308, inf, a negative count, a string for
 * a latency, a hop 99) must be refused by both alike, in one line naming
 * the value, never printed as "inf ms" or silently dropped.
 */
#ifndef IL_REPORT_SANE_H
#define IL_REPORT_SANE_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The longest latency a report can hold: a run's watchdog ends it long before. */
#define IL_REPORT_MAX_LATENCY_US 3.6e9 /* one hour */

/* The most per-event samples of a latency a run keeps (samples_us.<latency>,
 * IL_RUN_STATS_MAX_SAMPLES): a reader's work over them is bounded by it. */
#define IL_REPORT_MAX_SAMPLES 100000

/*
 * Checks root (a JSON object): every number finite and at most 1e18
 * (outside attribution, which explain checks in its own words);
 * latency_us and samples_us latencies (0 to an hour); the event counts
 * whole and consistent; hops[] entries as a run writes them, their
 * percentiles in order; kernel.nr_cpus a CPU count; every other figure a
 * run writes in its domain (durations 0 or more, shares 0 to 1,
 * percentages 0 to 100, counts whole: "canary.max_stall_ms = -50 is not
 * an amount (0 or more)"). 0, or -1 with why (e.g. "latency_us.processing.p50 = -5 is
 * not a latency (0 to 3600000000 us)"), one printable line (il_printable).
 */
int il_report_sane(const cJSON *root, char *why, size_t n);

#endif
