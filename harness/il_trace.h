/*
 * Chrome trace-event JSON for `inputlat run --trace FILE`: one slice per
 * hop handler on the thread that ran it, flows linking the hops of one
 * mouse-down, counters over time. Perfetto and chrome://tracing open it.
 */
#ifndef IL_TRACE_H
#define IL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "il_msg.h"

/* One thread of the run: every tid found in a message should be listed. */
struct il_trace_thread {
	int pid;
	int tid;
	const char *process; /* "browser-sim", ... */
	const char *thread;  /* "browser:ui", ... */
};

/* One sample of a counter track, e.g. "canary stall ms" or "hog share". */
struct il_trace_counter {
	uint64_t ts_ns; /* CLOCK_MONOTONIC */
	const char *name;
	double value;
};

/*
 * Writes the trace of the first `max_events` messages of msgs (0 = all)
 * to `path`. Time is in microseconds since the earliest stamp or counter
 * sample written. For every message: a slice "inject" (hop 0) on the
 * injector's thread, a slice per hop 1..12 named after il_chain_hop(k) on
 * the thread that ran it (args event_id, hop, queue_us), and a flow with
 * id = event_id through them in hop order. Hops never reached (stamp 0)
 * are left out. Counters go on the calling process's counter tracks.
 *
 * The file is created 0644 or truncated, never through a symlink.
 * Returns 0, -EINVAL for a NULL path or NULL arrays with a non-zero count,
 * -ENOMEM, or the -errno of open/write/close (-ELOOP for a symlink).
 */
int il_trace_write(const char *path, const struct il_msg *msgs, size_t n,
		   const struct il_trace_thread *threads, size_t nthreads,
		   const struct il_trace_counter *ctr, size_t nctr, size_t max_events);

#endif
