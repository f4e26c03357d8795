/*
 * Chrome trace-event JSON for `inputlat run --trace FILE`: one slice per
 * hop handler on the thread that ran it, flows linking the hops of one
 * mouse-down, counters over time. Perfetto and chrome://tracing open it.
 */
#ifndef IL_TRACE_H
#define IL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "il_msg.h"

/* One thread of the run: every tid found in a message should be listed. */
struct il_trace_thread {
	int pid;
	int tid;
	const char *process; /* "browser-sim", ... */
	const char *thread;  /* "browser:ui", ... */
};

/*
 * One sample of a counter track, e.g. "canary stall ms" or "hog share":
 * its value over [ts_ns, end_ns). A Chrome counter holds its value from
 * its ts until the next sample, so the sample is written at the start of
 * the interval it describes, once; where each track's last interval ends
 * is otherData.counters_end_ts (the format cannot end a track; end_ns 0:
 * null there).
 */
struct il_trace_counter {
	uint64_t ts_ns; /* CLOCK_MONOTONIC: the interval's start */
	const char *name;
	double value;
	uint64_t end_ns; /* the interval's end */
};

/*
 * A trace written as the run goes: events go to the file as they are
 * added, so memory does not grow with their number.
 *
 * il_trace_open creates `path` (0644 or truncated, never through a
 * symlink) and keeps at most max_events mouse-downs (0 = all).
 * il_trace_set_t0 sets the time origin (CLOCK_MONOTONIC ns); without it
 * the first stamp added (or the first counter) is t0. il_trace_add writes
 * one mouse-down: a slice "inject" (hop 0) on the injector's thread, a
 * slice per hop 1..12 named after il_chain_hop(k) on the thread that ran
 * it (args event_id, hop, queue_us), and a flow with id = event_id
 * through them in hop order; hops never reached (stamp 0) are left out;
 * threads (which may be NULL) give each tid its pid. il_trace_close
 * writes the thread and process names (sorted in the order a mouse-down
 * visits them), the counters, and closes the file; it frees w in every
 * case. Time is in microseconds since t0 (0: absolute CLOCK_MONOTONIC),
 * written from whole nanoseconds with three decimals (a ts + dur is exact).
 *
 * Return 0 or a negative errno: open -EINVAL (NULL path), -ENOMEM, the
 * -errno of creating the file (-ELOOP for a symlink); add and close the
 * -errno of writing.
 */
struct il_trace_writer;

int il_trace_open(const char *path, size_t max_events, struct il_trace_writer **out);
/* The same into a stream the caller made (an il_out) and closes after
 * il_trace_close, which then only flushes it. */
int il_trace_open_file(FILE *f, size_t max_events, struct il_trace_writer **out);
void il_trace_set_t0(struct il_trace_writer *w, uint64_t t0_ns);
/* Marks the trace as a run stopped short (a signal): otherData.interrupted. */
void il_trace_set_interrupted(struct il_trace_writer *w, bool interrupted);
int il_trace_add(struct il_trace_writer *w, const struct il_msg *m,
		 const struct il_trace_thread *threads, size_t nthreads);
/*
 * One slice of a per-CPU scheduling track ("CPU n"): thread `name` (tid,
 * its class and priority, cls may be NULL) ran on cpu over [start_ns,
 * end_ns). Returns 0 or the -errno of writing.
 */
int il_trace_add_cpu_slice(struct il_trace_writer *w, int cpu, uint64_t start_ns, uint64_t end_ns,
			   const char *name, int tid, const char *cls, int priority);
/* Mouse-downs written so far. */
size_t il_trace_count(const struct il_trace_writer *w);
/*
 * The number of warm-up mouse-downs (--warmup) its caller kept out of the
 * trace, as out of every statistic; il_trace_close writes it to
 * otherData.warmup_left_out (0 unless set).
 */
void il_trace_set_warmup_left_out(struct il_trace_writer *w, size_t n);
int il_trace_close(struct il_trace_writer *w, const struct il_trace_thread *threads,
		   size_t nthreads, const struct il_trace_counter *ctr, size_t nctr);

/*
 * The whole trace in one call, for callers that hold every message: the
 * first `max_events` messages of msgs (0 = all), time since the earliest
 * stamp or counter written. Returns 0, -EINVAL for a NULL path or NULL
 * arrays with a non-zero count, -ENOMEM, or the -errno of
 * open/write/close (-ELOOP for a symlink).
 */
int il_trace_write(const char *path, const struct il_msg *msgs, size_t n,
		   const struct il_trace_thread *threads, size_t nthreads,
		   const struct il_trace_counter *ctr, size_t nctr, size_t max_events);

#endif
