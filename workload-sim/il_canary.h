/*
 * The canary: one small CFS thread (role canary, "il:canary") that asks
 * for the CPU every millisecond, the way an admin's shell or sshd would,
 * and records how often and how late it got it. It answers "can anything
 * that is not RT still run?" without competing for the CPU itself.
 *
 * Metrics, counted since il_canary_mark_start:
 *   max_stall_ms  the longest gap between two consecutive runs of the
 *                 canary (about 1 ms when nothing holds it off). A gap
 *                 still open when the stats are taken counts.
 *   wakeups       how many times it ran (one per 1 ms period; periods it
 *                 slept through while starved are skipped, not run late).
 *   cpu_share     the share of wall time during which the CPU was there
 *                 for the canary when it asked for it:
 *                   1 - (time it was due but not running) / wall time,
 *                 where "due but not running" is, for every run, the time
 *                 from its timer expiry to when it actually ran. It is not
 *                 the CPU time the canary used (that is tiny by design)
 *                 but the share of the CPU a CFS task that wanted it could
 *                 have had: about 1.0 on an idle or fairly shared machine,
 *                 about runtime/period (0.05) beside an RT hog held back
 *                 only by the fair server or RT throttling, 0 when starved
 *                 for the whole run. Wake-up latency (tens of us per 1 ms
 *                 period) makes an unloaded canary read 0.95 to 1.0.
 *
 * The thread is a worker group of one (sim/il_workers.h): its gated start,
 * pinning, stop and CPU time (cpu_ms) come from there; the 1 ms cycle and
 * the stall and share metrics are the canary's own.
 */
#ifndef IL_CANARY_H
#define IL_CANARY_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "il_thread.h"

struct il_canary_config {
	int cpu;	    /* pin to this CPU; -1 = the process affinity */
	uint64_t period_ns; /* 0 = 1 ms */
};

struct il_canary_stats {
	double max_stall_ms;
	double cpu_share;
	uint64_t wakeups;
	uint64_t expected_wakeups; /* wall / period */
	uint64_t waited_ns;	   /* due but not running, summed */
	uint64_t cpu_ns;	   /* CPU time the canary itself used */
	uint64_t wall_ns;
};

struct il_canary;

/*
 * Starts the canary thread: it pins itself (c->cpu >= 0), calls
 * init(init_ctx, IL_ROLE_CANARY, "il:canary"), and begins its 1 ms
 * cycle. Returns 0 with *out set once init succeeded, or init's -errno
 * (one line in err), -EINVAL for a bad CPU, -errno of pthread_create.
 */
int il_canary_start(const struct il_canary_config *c, il_thread_init_fn init, void *init_ctx,
		    struct il_canary **out, char *err, size_t errlen);

/* The canary's kernel tid. */
int il_canary_tid(const struct il_canary *c);

/* Resets every counter: measurement starts now. */
void il_canary_mark_start(struct il_canary *c);

/* Stats since the mark (or since start). Safe while the canary runs. */
void il_canary_get(struct il_canary *c, struct il_canary_stats *out);

/* {"max_stall_ms","cpu_share","wakeups","expected_wakeups","waited_ms",
 *  "cpu_ms","wall_ms","tid","interval_us","cpu"}; interval_us is its
 *  period in microseconds. Caller frees. */
cJSON *il_canary_stats_json(struct il_canary *c);

/* Stops and joins the canary (it sleeps at most one period), frees c.
 * NULL-safe. */
void il_canary_stop(struct il_canary *c);

#endif
