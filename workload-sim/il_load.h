/*
 * Background CFS load (role load, threads "il:load0", ...): CPU work in
 * short slices with an occasional short sleep, the way compile jobs use a
 * machine. It is what the pipeline competes with under `--load`, and in
 * claim 4 it is the "busy CFS thread per CPU" whose share the fair
 * server protects.
 *
 * Each thread alternates: a slice of 2-10 ms of CPU time (uniformly
 * random), then with probability 1/4 a sleep of 0.5-2 ms. So an
 * unhindered thread is busy about 95% of the time.
 *
 * The threads, their gated start and their CPU accounting are a worker
 * group (sim/il_workers.h); the slice/sleep shape is the load's own.
 */
#ifndef IL_LOAD_H
#define IL_LOAD_H

#include <cjson/cJSON.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_thread.h"
#include "il_workers.h"

#define IL_LOAD_MAX_THREADS IL_WORKERS_MAX_THREADS

struct il_load_config {
	unsigned threads; /* 1..IL_LOAD_MAX_THREADS */
	/* Thread i on the i-th CPU the process may use (mod count), so every
	 * CPU carries load even while an RT hog stops the load balancer from
	 * moving anything. An affinity set by the policy for role load wins. */
	bool pin;
	/* The run's halt word (wire/il_halt.h), or NULL: the threads end as
	 * soon as the orchestrator writes it. */
	const _Atomic uint64_t *halt_word;
};

struct il_load;

/*
 * Starts the threads; each pins itself (c->pin), calls
 * init(init_ctx, IL_ROLE_LOAD, "il:loadN") and waits until all are set
 * up, then they start working. Returns 0 with *out set, or the first
 * error (-errno, one line in err) after stopping the others; -EINVAL for
 * a bad config.
 */
int il_load_start(const struct il_load_config *c, il_thread_init_fn init, void *init_ctx,
		  struct il_load **out, char *err, size_t errlen);

/* Resets the counters: measurement starts now. */
void il_load_mark_start(struct il_load *l);

/*
 * Sum of the threads' CPU time (CLOCK_THREAD_CPUTIME_ID) since the mark
 * divided by wall time x the number of CPUs they may use (the union of
 * their affinity masks): 1.0 = they had all of those CPUs. wall_ns 0
 * means "since the mark".
 */
double il_load_cpu_share(const struct il_load *l, uint64_t wall_ns);

/* {"threads":N,"cpus":K,"cpu_set":[...],"wall_ns","cpu_ns","cpu_share",
 *  "per_thread":[{"name","tid","cpu","cpu_ns","slices"}]} since the mark
 * (wall_ns as for il_load_cpu_share); caller frees. */
cJSON *il_load_stats_json(const struct il_load *l, uint64_t wall_ns);

/* At the stop, before the stats: the threads are told to end
 * (il_workers_halt); the stats end here. NULL-safe. */
void il_load_halt(struct il_load *l);

/* Stops and joins the threads, frees l. NULL-safe. */
void il_load_stop(struct il_load *l);

#endif
