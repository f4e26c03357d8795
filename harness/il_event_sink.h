/*
 * The run's event stream: how finished mouse-downs reach whatever consumes
 * them, one at a time, so that no part of the harness keeps every event of
 * a run (a run of 10^6 events would otherwise hold ~400 MB of records).
 *
 * The orchestrator keeps only the events in flight (il_event_window.h) and
 * hands each one, once it is final, to every sink of the run, in event-id
 * order, exactly once:
 *
 *   start   once, when the children are ready and measuring begins, before
 *           the first event; gets the run's facts (threads, t0, options)
 *   event   once per event, in id order (1, 2, 3, ...): state COMPLETED or
 *           TIMED_OUT during the run; at the end of the run the events
 *           still in flight follow with state PENDING (or UNSENT for an
 *           evdev id never seen). ev->msg is only valid during the call.
 *   finish  once, after the last event, with the whole result (counts,
 *           threads, counters); close files here
 *   report  optional: add this sink's keys to the run's JSON record
 *   free    always, last (also when start or finish was never called)
 *
 * A sink that fails (a full disk, say) returns -errno from event or
 * finish; the run goes on, the dispatcher stops calling that sink's
 * event, and the run fails with exit 1 at the end (its output is lost).
 *
 * Adding a consumer (the statistics engine, kernel attribution, ...):
 * write a constructor that fills a struct il_event_sink, add it to the
 * run's sinks in il_run.c (il_run_sinks_build), and read what it kept in
 * its report callback. Everything runs on the orchestrator's loop thread,
 * between injections: keep event() cheap (no system call per event
 * beyond buffered output) and its memory bounded whatever the number of
 * events.
 */
#ifndef IL_EVENT_SINK_H
#define IL_EVENT_SINK_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_msg.h"

struct il_result;
struct il_run_opts;

enum il_event_state { IL_EV_UNSENT, IL_EV_PENDING, IL_EV_COMPLETED, IL_EV_TIMED_OUT };

/* "unsent", "pending", "completed", "timed_out". */
const char *il_event_state_name(enum il_event_state s);

/* One finished (or, at the end, abandoned) event. */
struct il_event {
	uint64_t id; /* 1-based */
	enum il_event_state state;
	/*
	 * Stamp 0 (injection: time, end, orchestrator tid, CPU) is always
	 * filled; the others when the record came back from viz-sim (state
	 * COMPLETED, or TIMED_OUT after presentation came too late).
	 */
	const struct il_msg *msg;
	/* One of the first --warmup events: outputs keep it, flagged; no
	 * statistic counts it. */
	bool warmup;
};

/* What a sink learns when measuring starts. */
struct il_event_run_info {
	const struct il_run_opts *o;
	const cJSON
	    *threads; /* every thread's ready report (process, role, name, pid, tid, sched) */
	uint64_t measure_start_ns; /* CLOCK_MONOTONIC: t0 of the run's measurements */
	int self_pid, self_tid;	   /* the orchestrator, which injects (stamp 0) */
};

struct il_event_sink {
	const char *name; /* for messages: "records", "trace", ... */
	void *ctx;
	int (*start)(void *ctx, const struct il_event_run_info *info);	  /* optional */
	int (*event)(void *ctx, const struct il_event *ev);		  /* required */
	int (*finish)(void *ctx, const struct il_result *r);		  /* optional */
	int (*report)(void *ctx, const struct il_result *r, cJSON *root); /* optional */
	void (*free)(void *ctx);					  /* optional */
};

#define IL_EVENT_SINKS_MAX 16

/* The run's sinks, called in the order they were added. */
struct il_event_sinks {
	struct il_event_sink v[IL_EVENT_SINKS_MAX];
	int err[IL_EVENT_SINKS_MAX]; /* first error of each sink, 0 if none */
	size_t n;
	bool started, finished;
};

/* Adds a sink (copied). Returns 0 or -ENOSPC. On failure the sink is freed. */
int il_event_sinks_add(struct il_event_sinks *s, const struct il_event_sink *sink);

/* Calls start on every sink. Returns the first error (the others still start). */
int il_event_sinks_start(struct il_event_sinks *s, const struct il_event_run_info *info);

/* Hands ev to every sink that has not failed. */
void il_event_sinks_event(struct il_event_sinks *s, const struct il_event *ev);

/*
 * Calls finish on every sink (once). Returns 0, or -EIO when any sink
 * failed during the run or in finish (each printed its own line).
 */
int il_event_sinks_finish(struct il_event_sinks *s, const struct il_result *r);

/* Lets every sink that has a report callback add its keys to root. */
void il_event_sinks_report(const struct il_event_sinks *s, const struct il_result *r, cJSON *root);

/* Frees every sink. NULL-safe. */
void il_event_sinks_free(struct il_event_sinks *s);

#endif
