/*
 * Counter tracks for the trace: every 100 ms the orchestrator reads the
 * scheduler's own accounting (/proc/PID/task/TID/schedstat: time on CPU,
 * time waiting on a run queue) of the canary and the hog threads, so the
 * trace shows when the canary was held off and how much CPU the hogs got,
 * without asking the children anything.
 */
#ifndef IL_SAMPLER_H
#define IL_SAMPLER_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "il_trace.h"

#define IL_SAMPLER_PERIOD_MS 100

struct il_sampler;

/*
 * Picks the canary and js threads out of the ready reports. The hog share
 * is of the CPUs the hogs may use (the union of their "cpus"), as the
 * report's hog.cpu_share; cpus_allowed (the run's) when a mask is missing. NULL when none.
 */
struct il_sampler *il_sampler_new(const cJSON *threads, int cpus_allowed, size_t max_samples);
void il_sampler_free(struct il_sampler *s);

/*
 * Takes one sample at now_ns (call every IL_SAMPLER_PERIOD_MS): each
 * counter of the interval since the previous tick has ts_ns its start
 * and end_ns now_ns, as a Chrome counter is drawn from its ts on.
 */
void il_sampler_tick(struct il_sampler *s, uint64_t now_ns);

/* The counter samples so far (owned by s). */
const struct il_trace_counter *il_sampler_counters(const struct il_sampler *s, size_t *n);

#endif
