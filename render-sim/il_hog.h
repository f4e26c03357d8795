/*
 * JS hogs in render-sim (role js): a crypto miner on the renderer's main
 * thread, or a page of long tasks. The work is real JavaScript (libmujs
 * running a script's tick(), il_js.h) or a register loop. The policy decides
 * their class, so in `rt` they are SCHED_FIFO and show what an RT thread
 * that never blocks does to everything else. The threads, their gated
 * start and their CPU accounting are a worker group (sim/il_workers.h);
 * what is the hog's own is the busy/bursty pattern, the iteration count
 * and the idle time of its CPUs.
 */
#ifndef IL_HOG_H
#define IL_HOG_H

#include <cjson/cJSON.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_thread.h"
#include "il_workers.h"

enum il_hog_pattern {
	IL_HOG_BUSY,   /* never blocks */
	IL_HOG_BURSTY, /* task_ns of CPU work, then a gap_ns sleep, repeated */
};

struct il_hog_config {
	unsigned threads; /* 1..IL_HOG_MAX_THREADS */
	enum il_hog_pattern mode;
	/* JavaScript: the script's text and its name for messages; each hog
	 * thread gets its own engine state and calls tick() as its work unit.
	 * NULL: the register loop (il_workers_chunk). */
	const char *script;
	const char *script_name;
	size_t js_heap_max; /* bytes per hog thread; 0 = IL_JS_HEAP_MAX */
	uint64_t task_ns;   /* bursty: CPU time per long task (> 0) */
	uint64_t gap_ns;    /* bursty: sleep between tasks */
	bool pin;	    /* hog i on the i-th CPU the process may use, mod count */
	/* Threads set up (named, attributes applied) but wait without using
	 * CPU until il_hog_mark_start: the run's setup is not starved. */
	bool hold;
	/* The run's halt word (wire/il_halt.h), or NULL: the hogs end as soon
	 * as the orchestrator writes it, RT ones included. */
	const _Atomic uint64_t *halt_word;
};

#define IL_HOG_MAX_THREADS IL_WORKERS_MAX_THREADS

struct il_hog;

/* "busy" or "bursty"; -EINVAL for anything else. */
int il_hog_mode_parse(const char *s);
const char *il_hog_mode_name(enum il_hog_pattern m);

/* A whole --hog-mode: "busy", "bursty" (the register loop), "js",
 * "js-bursty" (JavaScript). 0, or -EINVAL for anything else. */
int il_hog_mode_split(const char *s, enum il_hog_pattern *pattern, bool *js);

/*
 * Starts c->threads hog threads named render:js0, render:js1, ... With a
 * script, each thread's engine is made and the script loaded here first,
 * so a script that does not compile fails the start (-EINVAL, one line
 * "NAME:LINE: SyntaxError: ...") before any thread exists. Each
 * pins itself first (when c->pin; an affinity the policy sets for role js
 * then overrides the pin), then calls init(init_ctx, IL_ROLE_JS, name),
 * which applies the policy. Returns once every thread has initialized:
 * 0 with *out set (unless c->hold the hogs are already running), or the
 * first thread's error (-errno, one line in err) after stopping the others.
 * -EINVAL for a bad config.
 */
int il_hog_start(const struct il_hog_config *c, il_thread_init_fn init, void *init_ctx,
		 struct il_hog **out, char *err, size_t errlen);

/*
 * Measurement starts now: counters (CPU time, iterations, wall clock)
 * are reset, and held hogs are released.
 */
void il_hog_mark_start(struct il_hog *h);

/* At the stop, before the stats: the hogs are told to end
 * (il_workers_halt); the stats end here, or at the halt word's time when
 * the orchestrator wrote it. NULL-safe. */
void il_hog_halt(struct il_hog *h);

/*
 * Stops and joins every hog, then frees h (NULL-safe). A busy hog checks
 * the stop flag after every iteration (about 50 us of work), so this
 * returns promptly even when the hogs are RT and the caller is not.
 */
void il_hog_stop(struct il_hog *h);

/*
 * {"threads":N, "mode":"busy", "cpus":K, "cpu_set":[0,1], "idle_waste_pct":P,
 *  "wall_ns":W, "cpu_ns":SUM, "cpu_share":F,
 *  "per_thread":[{"name","tid","cpu","cpu_ns","iterations"}]}
 * plus, for JavaScript hogs, "engine", "script", "js_heap_max_bytes",
 * "js_heap_peak_bytes" (the most any hog's engine held), "js_errors" and
 * "js_first_error" (ticks that threw, e.g. out of memory at the cap).
 * counted since il_hog_mark_start (or since start).
 * wall_ns is the wall time to divide by; pass 0 for "since the mark",
 * which is right even when the caller was starved by RT hogs between the
 * mark and its own clock reading. cpu_share = sum of CPU time /
 * (wall_ns x K), K = number of CPUs the hogs may use (the union of their
 * affinity masks, listed in cpu_set), so 1.0 means the hogs had all of
 * their CPUs. idle_waste_pct is il_hog_idle_waste_pct (null when
 * /proc/stat is unreadable), idle_waste_why says why it is null
 * ("unreadable: /proc/stat at the hogs' start: empty"), else null. "cpu"
 * is the CPU a pinned hog is on, -1 when
 * not pinned. Take the stats before il_hog_stop. Caller frees.
 */
cJSON *il_hog_stats_json(const struct il_hog *h, uint64_t wall_ns);

/* The same share as a number, for callers that do not want JSON. */
double il_hog_cpu_share(const struct il_hog *h, uint64_t wall_ns);

/* The union of the hogs' affinity masks (the CPUs where a hog existed). */
const cpu_set_t *il_hog_cpus(const struct il_hog *h);

/*
 * Idle time (from /proc/stat, idle + iowait) of the hogs' CPUs since the
 * mark, as a percentage of their total time: the CPU time that RT
 * throttling keeps from a runnable hog although nothing else wants it.
 * -1 when /proc/stat could not be read.
 */
double il_hog_idle_waste_pct(const struct il_hog *h);

#endif
