/* The watchdog's bound of a whole run (il_run.h). */
#include <stdbool.h>
#include <stdint.h>

#include "il_clock.h"
#include "il_policy.h"
#include "il_run.h"

/* How long the children have to report ready, and to stop (il_orch.c). */
#define READY_BOUND_MS 10000
#define SLACK_BOUND_MS 10000
/*
 * The loop's own work per event, which the pacing adds to the interval
 * (the next injection is armed when one ends): a run here with --trace,
 * --records and kernel attribution spent 0.37 ms per event on it, and a
 * million such events at --interval-ms 1 outran a bound of 1.1 intervals
 * per event at 83% done (the watchdog killed a healthy run).
 */
#define LOOP_BOUND_US_PER_EVENT 500
/* What one wake-up of a SCHED_OTHER thread may wait per busy nice-0 thread
 * on its CPU: half of them run a 3 ms slice first (EEVDF). */
#define WAKE_WAIT_US_PER_BUSY 1500

/*
 * What the whole run needs of the wall clock: start, every event with the
 * loop's work on it (a replay: its recorded span), and a drain. Under a policy without RT
 * the loop is SCHED_OTHER among the run's own hog and load threads, and
 * each event's timer wake-up may wait for half of its CPU's busy threads
 * to run a slice each (EEVDF): 1024 load threads on 2 CPUs paced the
 * events at about 8 a second here, not 50, and a healthy ASan run outlived
 * a bound that left this out.
 */
static uint64_t run_bound_ns(const struct il_run_opts *o, bool loop_is_rt, int cpus_allowed,
			     uint64_t replay_span_ns)
{
	uint64_t busy = (uint64_t)o->hog_threads + (uint64_t)o->load_threads;
	/* A replay plays its recorded spacing, not --interval-ms. */
	uint64_t per_event_us =
	    (replay_span_ns ? 0 : o->interval_us * 11 / 10) + LOOP_BOUND_US_PER_EVENT;

	if (!loop_is_rt)
		per_event_us +=
		    busy * WAKE_WAIT_US_PER_BUSY / (uint64_t)(cpus_allowed > 0 ? cpus_allowed : 1);
	return il_ms_to_ns(READY_BOUND_MS + o->duration_ms + o->timeout_ms + SLACK_BOUND_MS) +
	       replay_span_ns / 10 * 11 + il_us_to_ns(il_run_opts_total_events(o) * per_event_us);
}

uint64_t il_run_bound_needed_ns(const struct il_run *r)
{
	return run_bound_ns(r->o, il_policy_uses_rt(r->policy), r->cpus_allowed, r->replay.span_ns);
}

uint64_t il_run_bound_ns(const struct il_run *r)
{
	return r->o->bound_ms ? il_ms_to_ns(r->o->bound_ms) : il_run_bound_needed_ns(r);
}
