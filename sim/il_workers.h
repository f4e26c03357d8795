/*
 * A group of worker threads that are not in the hop chain: the JS-like
 * hogs (render-sim), the background load and the canary (il-workload).
 * The group owns what they share; each user keeps only its own loop.
 *
 * Start-up is gated. Every member is created SCHED_OTHER, whatever the
 * starter's class (a child's control thread is FIFO under RT policies),
 * pins itself, runs init (which applies the policy for its role), then
 * reports ready or its one-line error and waits at the gate. The starter
 * waits for every member, then opens the gate. So an RT member cannot
 * starve the creation or set-up of the next one, and one member's failure
 * fails the whole start with its reason.
 *
 * Accounting: each member publishes its CPU time (CLOCK_THREAD_CPUTIME_ID)
 * and a count of its own work units with relaxed atomics, so the control
 * thread reads them without stopping anyone; il_workers_mark resets both.
 *
 * Functions named il_workers_* are the starter's (control thread);
 * il_worker_* are called by a member on itself from its run callback.
 */
#ifndef IL_WORKERS_H
#define IL_WORKERS_H

#include <cjson/cJSON.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_role.h"
#include "il_thread.h"

#define IL_WORKERS_MAX_THREADS 1024

struct il_workers;
struct il_worker;

/* Where the members run. A policy that sets an affinity for the role wins
 * over the pin, because init runs after the pin. */
enum il_workers_place {
	IL_WORKERS_ANYWHERE, /* the process affinity, not pinned */
	IL_WORKERS_SPREAD,   /* member i on the i-th CPU the process may use, mod count */
	IL_WORKERS_ON_CPU,   /* every member on cpu */
};

/* A member's body, run once the gate opens; it returns when
 * il_worker_stopping says so. ctx is the config's ctx. */
typedef void (*il_workers_run_fn)(struct il_worker *self, void *ctx);

struct il_workers_config {
	unsigned threads; /* 1..IL_WORKERS_MAX_THREADS */
	enum il_role role;
	/* Thread name (15 characters at most); with indexed, member i is
	 * "<name><i>" (render:js0, render:js1, ...). */
	const char *name;
	bool indexed;
	enum il_workers_place place;
	int cpu; /* IL_WORKERS_ON_CPU: 0..CPU_SETSIZE-1 */
	il_thread_init_fn init;
	void *init_ctx;
	il_workers_run_fn run;
	void *ctx;
	/* Per-thread JSON key for the count members publish ("iterations",
	 * "slices"); NULL leaves it out. Kept, not copied: a string literal. */
	const char *units_name;
	/* The gate stays closed after start until il_workers_mark or
	 * il_workers_open: members are set up but use no CPU. */
	bool hold;
	/*
	 * The run's halt word (wire/il_halt.h), or NULL: once the
	 * orchestrator writes its stop time there, il_worker_stopping is true
	 * and the group is halted at that time, as by il_workers_halt, without
	 * this process's control thread having run.
	 */
	const _Atomic uint64_t *halt_word;
	/*
	 * Called once, at the halt, before any member is told to stop (the
	 * members still run): by il_workers_halt, or by the first member that
	 * read the halt word. With the group's lock held; ctx is the config's
	 * ctx. NULL: nothing to do.
	 */
	void (*on_halt)(void *ctx);
};

/*
 * Starts c->threads members and waits until every one of them has run
 * init. Returns 0 with *out set (the accounting starts now; the gate is
 * open unless c->hold), or the first error (-errno, one line in err: a
 * member's init message, or "cannot start <name>: ...") after stopping
 * and joining the members already created; *out is then untouched.
 * -EINVAL for a bad config.
 */
int il_workers_start(const struct il_workers_config *c, struct il_workers **out, char *err,
		     size_t errlen);

/* Opens the gate (no-op when open): held members start their run. */
void il_workers_open(struct il_workers *w);

/*
 * Measurement starts now: every member's CPU time and unit count are
 * counted from here, the wall clock too; then the gate opens.
 */
void il_workers_mark(struct il_workers *w);

/*
 * Tells the members to stop, wakes the sleeping and the held ones, joins
 * them and frees w (NULL-safe). Returns as soon as each member next looks
 * at il_worker_stopping; take the stats before (after il_workers_halt).
 */
void il_workers_stop(struct il_workers *w);

/*
 * At the stop, before the stats: tells the members to stop and wakes the
 * sleeping ones, without waiting; each ends when it next runs. The stats
 * count up to this moment (wall_ns 0), or up to the time in the halt word
 * when the orchestrator wrote one. il_workers_stop halts them too;
 * calling it twice is harmless.
 */
void il_workers_halt(struct il_workers *w);

/* Member i's kernel tid. */
int il_workers_tid(const struct il_workers *w, unsigned i);

/* Member i's CPU time since the mark, in ns, as it last published it. */
uint64_t il_workers_cpu_ns(const struct il_workers *w, unsigned i);

/* CLOCK_MONOTONIC time of the mark (or of the start). */
uint64_t il_workers_mark_ns(const struct il_workers *w);

/* The union of the members' affinity masks as they were after init: the
 * CPUs where the group exists. */
const cpu_set_t *il_workers_cpus(const struct il_workers *w);

/*
 * The members' CPU time since the mark divided by wall_ns x the number of
 * CPUs in il_workers_cpus: 1.0 means they had all of their CPUs. wall_ns 0
 * means "since the mark" (up to il_workers_halt when they were halted),
 * right even when the caller was starved between the mark and its own
 * clock reading; no time at all for a group halted before its gate opened.
 */
double il_workers_cpu_share(const struct il_workers *w, uint64_t wall_ns);

/*
 * {"threads":N, "cpus":K, "cpu_set":[0,1], "wall_ns":W, "cpu_ns":SUM,
 *  "cpu_share":F, "per_thread":[{"name","tid","cpu","cpu_ns",<units>}]}
 * counted since the mark (wall_ns as for il_workers_cpu_share); "cpu" is
 * the CPU a member was pinned to, -1 when not pinned. The caller adds its
 * own keys and frees it. NULL when out of memory.
 */
cJSON *il_workers_stats_json(const struct il_workers *w, uint64_t wall_ns);

/* --- called by a member on itself ------------------------------------ */

unsigned il_worker_index(const struct il_worker *self);

/* True once the group was halted (il_workers_halt, il_workers_stop, or
 * the halt word): the run callback returns. */
bool il_worker_stopping(const struct il_worker *self);

/*
 * Publishes the member's CPU time (read now) and its running count of
 * work units (the total since it started, never reset by the member).
 * Returns the CPU time, in ns. Cheap: one vDSO clock read.
 */
uint64_t il_worker_publish(struct il_worker *self, uint64_t units);

/* Sleeps until abs_ns (CLOCK_MONOTONIC), or less when the group stops. */
void il_worker_sleep_until(struct il_worker *self, uint64_t abs_ns);

/* --- the work members do --------------------------------------------- */

/*
 * One chunk of register-only busy work (xorshift mixing), roughly 20-50 us
 * on current CPUs: short enough that an RT member notices the stop flag at
 * once, long enough that publishing after each chunk costs under 1%.
 * Returns the new state; keep it, or the work may be optimised away.
 */
uint64_t il_workers_chunk(uint64_t x);

/* xorshift64: the members' random numbers (fast, not for statistics).
 * The state must not be 0. */
uint64_t il_workers_rand(uint64_t *state);

/* Uniform in [lo, hi] (slightly biased to low values; fine for shapes). */
uint64_t il_workers_rand_between(uint64_t *state, uint64_t lo, uint64_t hi);

#endif
