/*
 * What the report needs from the events of a run, accumulated one event
 * at a time (an il_event_sink), in memory that does not grow with the
 * number of events: histograms of processing and presentation latency and
 * of every hop, the 1 us counts of --hist, how often each hop's sender
 * and receiver ran on the same CPU, each pipeline thread's measured work,
 * and a bounded sample of per-event latencies for the JSON record.
 * Warm-up events (ev->warmup) are in none of it.
 */
#ifndef IL_RUN_STATS_H
#define IL_RUN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "il_chain.h"
#include "il_event_sink.h"
#include "il_hist.h"

/*
 * Per-event samples kept for the JSON record: every completed event up to
 * this many, then a uniform reservoir sample (Vitter's algorithm R) of
 * this size over all completed events, written in event-id order.
 */
#define IL_RUN_STATS_MAX_SAMPLES 100000

struct il_run_stats {
	/*
	 * The injections of every measured event (completed or not), for the
	 * spacing they really had: the next is armed when one ends, so the
	 * loop's own work per event adds to --interval-ms.
	 */
	uint64_t inject_first_ns, inject_last_ns, injected;

	/* Completed events only. */
	struct il_hist *processing, *presentation;
	struct il_hist *hop[IL_NSTAMPS]; /* hop k = stamp k - stamp k-1, k = 1..IL_NHOPS */
	/*
	 * The user-space split of hop k from stamps alone (no BPF): hop_work =
	 * the sender's handler, stamp k-1 .. end k-1; hop_queue = end k-1 ..
	 * stamp k. An end after stamp k (a sender preempted by its receiver
	 * before it took its end stamp) counts as stamp k: they add up to the hop.
	 */
	struct il_hist *hop_work[IL_NSTAMPS], *hop_queue[IL_NSTAMPS];

	/*
	 * Placement of hop k over completed events: whether the handler
	 * before it (stamp k-1) and its own handler (stamp k) started on the
	 * same CPU. Unknown when either CPU is (a physical mouse's stamp 0,
	 * the display's flip).
	 */
	uint64_t same_cpu[IL_NSTAMPS], cross_cpu[IL_NSTAMPS], cpu_unknown[IL_NSTAMPS];
	/* Hop k split by that placement: a same-CPU hop and a cross-CPU hop
	 * are different primitives (no wake-up of another CPU in the first). */
	struct il_hist *hop_same_cpu[IL_NSTAMPS], *hop_cross_cpu[IL_NSTAMPS];

	/*
	 * Completed events with a stamp before the stamp before it (a clock
	 * that went back, a harness defect): their figures would be a wrapped
	 * 584-year hop, so they are left out of every figure here, counted,
	 * and by the first hop where it happened.
	 */
	uint64_t out_of_order, out_of_order_hop[IL_NSTAMPS];

	/*
	 * Work accuracy: the thread CPU time each pipeline thread's handlers
	 * measured for their work (il_hop_end), over completed events, for
	 * the threads with work configured.
	 */
	struct il_hist *work[IL_T_COUNT];

	/* --hist: 1 us buckets [0, hist_max_us) of processing (column 0) and
	 * presentation (1); hist_count[2 * us + column]. As cyclictest: the
	 * samples in range (hist_total[column]) and the ids of the ones at or
	 * above it (the first hist_max_us of them; hist_over counts all). */
	uint64_t hist_max_us;
	uint64_t *hist_count;
	uint64_t hist_over[2], hist_total[2];
	uint64_t *hist_over_id[2];
	size_t hist_over_listed[2], hist_over_cap[2];

	/* Samples: ids and latencies in ns, nsamples of them (unordered while
	 * the run goes; il_run_stats_samples_sort orders them by id). */
	uint64_t *sample_id, *sample_processing_ns, *sample_presentation_ns;
	size_t nsamples, samples_cap;
	uint64_t samples_seen; /* completed events offered to the sample */
	uint64_t rng;
};

/*
 * An empty set of statistics; hist_max_us sizes the --hist buckets (0: no
 * --hist). Returns 0 or -ENOMEM (*out untouched).
 */
int il_run_stats_new(uint64_t hist_max_us, struct il_run_stats **out);
void il_run_stats_free(struct il_run_stats *s);

/* Adds one event (only completed ones count). */
void il_run_stats_add(struct il_run_stats *s, const struct il_event *ev);

/* Orders the kept samples by event id (once the run is over). */
void il_run_stats_samples_sort(struct il_run_stats *s);

/*
 * A sink that feeds s (not owned: the caller frees s after the sinks).
 * Its finish sorts the samples.
 */
struct il_event_sink il_run_stats_sink(struct il_run_stats *s);

#endif
