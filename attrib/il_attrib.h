/*
 * Why a hop was slow: the decomposition of every hop of every mouse-down
 * into what the kernel's scheduling events say happened (DESIGN.md, "Why
 * a hop was slow"). No BPF and no libuv here: kernel events come in
 * through il_attrib_feed() (from il_capture, or from a test), events to
 * explain through il_attrib_explain().
 *
 * Hop k runs from stamp k-1 (the sender's handler starts) to stamp k (the
 * receiver's handler starts). Its pieces, which add up to it exactly:
 *   sender's handler, stamp k-1 .. end k-1, from the sender's state:
 *     work       on a CPU (interrupts carved out into irq)
 *     preempted  runnable but off the CPU; culprit: who held that CPU
 *   the gap, end k-1 .. stamp k, from the receiver's state:
 *     send       receiver asleep: the sender's post path (queue, eventfd
 *                or pipe write), up to the receiver's sched_waking
 *     wake       sched_waking .. sched_wakeup (wake path, IPI)
 *     runqueue   runnable, not running; culprit: the thread that held
 *                the CPU, "idle" (idle exit) or "throttled" (an RT task
 *                kept off a CPU that idles or runs CFS: RT throttling or
 *                the fair server)
 *     busy       already awake, on a CPU with earlier work (interrupts
 *                carved out into irq)
 *     dispatch   switched in (or woken while still running) .. its stamp
 *   irq          interrupts and softirqs while the sender's handler or
 *                a busy receiver ran
 *   vblank       the display hop only: waiting for the flip
 *   residual     what the events do not explain: a thread asleep inside
 *                its own handler, a thread whose state is unknown, and
 *                the stretch where the stamps and the kernel disagree
 *                (a stamp taken while the kernel says the thread was not
 *                on a CPU)
 * For a receiver asleep when the sender's handler ended, send + wake +
 * runqueue + dispatch is exactly stamp k - end k-1 when stamps and kernel
 * agree: interrupts during those are left in them (they delay the wake
 * path), and the runqueue culprit still names the holder.
 *
 * Memory is bounded whatever the number of events: kernel events live in
 * per-thread and per-CPU timelines that only reach back to the oldest
 * event still to explain (il_attrib_advance() drops what is older, after
 * adding it into per-thread totals), with a hard cap on what is kept;
 * events whose time the timelines no longer cover are counted as not
 * explained, never guessed. Per-event results are reduced to histograms,
 * latency bands and a few stored events.
 */
#ifndef IL_ATTRIB_H
#define IL_ATTRIB_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_chain.h"
#include "il_kev.h"
#include "il_msg.h"

enum il_attrib_comp {
	IL_COMP_WORK,
	IL_COMP_PREEMPTED,
	IL_COMP_SEND,
	IL_COMP_WAKE,
	IL_COMP_RUNQUEUE,
	IL_COMP_BUSY,
	IL_COMP_DISPATCH,
	IL_COMP_IRQ,
	IL_COMP_VBLANK,
	IL_COMP_RESIDUAL,
	IL_NCOMP
};

/* "work", "preempted", ...; NULL out of range. */
const char *il_attrib_comp_name(int c);

/* Culprit ids with a fixed meaning; threads get ids from IL_CULPRIT_FIRST. */
enum {
	IL_CULPRIT_UNKNOWN = 0,	  /* the CPU's holder is not in the events */
	IL_CULPRIT_IDLE = 1,	  /* the CPU was idle: waking it up (idle exit) */
	IL_CULPRIT_THROTTLED = 2, /* an RT task kept waiting while the CPU idled or ran CFS */
	IL_CULPRIT_FIRST = 3,
};
#define IL_ATTRIB_MAX_CULPRITS 256 /* distinct holders kept; the rest count as unknown */

/* The most events a report's attribution keeps (attribution.events): the
 * worst (at most 256) and one example a latency band (41 octaves of 8). */
#define IL_ATTRIB_MAX_STORED (256 + 41 * 8)

/* Who held a CPU, as the report names it. */
struct il_attrib_culprit {
	int tid;	  /* 0 for the fixed ones */
	int pid;	  /* thread group, 0 when not one of the run's threads */
	char thread[32];  /* "render:js0", "kworker/1:2", "idle", "throttled" */
	char process[32]; /* "render-sim"; "" when not one of the run's threads */
	char policy[16];  /* "other", "fifo", ...; "rt"/"fair"/"deadline" from the kernel prio */
	int priority;	  /* RT priority, or nice for fair classes */
	bool run_thread;  /* one of the run's threads */
};

/* One thread of the run (from the children's ready reports). */
struct il_attrib_thread {
	int pid, tid;
	const char *name;    /* "render:main" */
	const char *process; /* "render-sim" */
	const char *role;    /* "main", "js", "load", "canary", ... */
	const char *policy;  /* "fifo", "other", ... (read back); NULL unknown */
	int priority, nice;
	bool name_only; /* only names it as a culprit: its own events are not followed */
};

#define IL_ATTRIB_HOP_CULPRITS 3

struct il_attrib_hop {
	uint64_t total_ns; /* stamp k - stamp k-1 */
	uint64_t comp_ns[IL_NCOMP];
	bool asleep;	    /* the receiver slept when the sender's handler ended */
	bool consistent;    /* on a CPU at their stamps, nothing between unknown, per the kernel */
	uint8_t migrations; /* of the sender or receiver during the hop */
	int cpu_from, cpu_to; /* from the stamps; -1 unknown */
	/* The receiver's last wake-up in the hop (0: none in it). */
	uint64_t waking_ns, wakeup_ns, switch_in_ns;
	struct {
		int id; /* culprit id, IL_CULPRIT_* or a thread's */
		uint64_t ns;
	} culprit[IL_ATTRIB_HOP_CULPRITS]; /* largest first; ns 0 ends the list */
};

struct il_attrib_event {
	uint64_t id;
	bool explained;
	const char *why;		      /* when not explained */
	uint64_t processing_ns;		      /* stamp IL_STAMP_PROCESSED - stamp 0 */
	struct il_attrib_hop hop[IL_NSTAMPS]; /* 1..IL_NHOPS */
};

struct il_attrib_opts {
	size_t max_kevents;	  /* kept in the timelines at most (0: default 262144) */
	uint64_t throttle_min_ns; /* see il_attrib.c (0: default 50 us) */
	size_t worst_kept;	  /* worst events stored with their breakdown (0: 16) */
};

struct il_attrib;

/* Returns 0 or -ENOMEM; *out set on success only. opts may be NULL. */
int il_attrib_new(const struct il_attrib_opts *opts, struct il_attrib **out);
void il_attrib_free(struct il_attrib *a);

/* Registers one of the run's threads (names the culprits, makes its
 * kernel events count). The strings are copied. Returns 0, -ENOSPC. */
int il_attrib_thread_add(struct il_attrib *a, const struct il_attrib_thread *t);

/* One kernel event. The capture hands them on in time order; events
 * slightly out of it are sorted on the way in all the same. */
void il_attrib_feed(struct il_attrib *a, const struct il_kev *ev);

/* Kernel events may be missing between these times (a ring was full, or
 * a record was given up): events overlapping them are not explained. */
void il_attrib_mark_lost(struct il_attrib *a, uint64_t from_ns, uint64_t to_ns);

/*
 * Decomposes event m (its stamps filled up to IL_STAMP_PRESENTED) into
 * *out and adds it to the run's figures. Events must come in id order,
 * each once. Returns 0 (out->explained says whether the kernel events
 * covered it), or -EINVAL for a record without stamps.
 */
int il_attrib_explain(struct il_attrib *a, const struct il_msg *m, struct il_attrib_event *out);

/* No event still to explain starts before t_ns: what is older is added
 * into the per-thread totals and dropped. */
void il_attrib_advance(struct il_attrib *a, uint64_t t_ns);

/* The per-thread totals count from from_ns on (when the run's threads were
 * handed to the capture; compare with schedstat read then). */
void il_attrib_start(struct il_attrib *a, uint64_t from_ns);

/* The window ends at to_ns: events fed after this that are later (the
 * capture draining its rings) are no per-thread wake-up. il_attrib_finish
 * does it too, if not done before. */
void il_attrib_stop(struct il_attrib *a, uint64_t to_ns);

/* The run is over: everything is folded, the per-thread totals end at to_ns. */
void il_attrib_finish(struct il_attrib *a, uint64_t to_ns);

/* A culprit by id (NULL out of range). */
const struct il_attrib_culprit *il_attrib_culprit(const struct il_attrib *a, int id);

/* One run thread's totals over the capture (after il_attrib_finish). */
struct il_attrib_thread_total {
	int tid;
	const char *name;
	uint64_t runqueue_ns; /* every runnable-not-running stretch */
	uint64_t running_ns;
	uint64_t wakeups;
	uint64_t waits; /* runnable stretches (wake-ups and preemptions) */
	/* The waits that ended between the two schedstat readings
	 * (il_attrib_thread_readings), each whole, as run_delay counts them;
	 * _unknown of them began before the thread was followed. */
	uint64_t schedstat_rule_ns;
	unsigned schedstat_rule_unknown;
	uint64_t schedstat_rule_slack_ns; /* how much longer, for unseen switch-ins */
	/* Running between the same readings (schedstat's on-CPU time), and
	 * the time after unseen switch-ins that may have been running too. */
	uint64_t schedstat_running_ns, schedstat_running_slack_ns;
	int top_culprit; /* id of who held its CPU the longest while it waited, -1 none */
	uint64_t top_culprit_ns;
};
size_t il_attrib_threads(const struct il_attrib *a, struct il_attrib_thread_total *out, size_t n);

/*
 * When the thread's schedstat was read, at the start (from_ns) or the end
 * (to_ns; 0 leaves a bound as it is): its schedstat_rule_ns counts the
 * waits that end in between. Call with from_ns before any of its events
 * is added, and to_ns before those after the reading. -ENOENT if tid is
 * not followed.
 */
int il_attrib_thread_readings(struct il_attrib *a, int tid, uint64_t from_ns, uint64_t to_ns);

/* Whether the thread's state is known from its events since it was
 * followed (and, if it waits, since when): a reading now can be matched. */
bool il_attrib_thread_known(const struct il_attrib *a, int tid);

/*
 * Adds the run's attribution figures to obj: events_explained_pct,
 * residual_pct{p50, p95}, residual_within_5pct_pct, hops[], culprits[],
 * threads[], bands[], events[] (stored breakdowns), check{}. Returns 0 or -ENOMEM.
 */
int il_attrib_report(const struct il_attrib *a, cJSON *obj);

/* One event's breakdown as JSON ({id, explained, processing_us, hops[...]}), for
 * --records and the stored events. NULL on OOM. */
cJSON *il_attrib_event_json(const struct il_attrib *a, const struct il_attrib_event *e);

/* One CPU slice of what ran, handed out as timelines are dropped (for the
 * trace's per-CPU tracks). start_ns is where the holder is known from;
 * clipped to the capture window (il_attrib_start to il_attrib_finish),
 * as every per-thread total. */
struct il_attrib_slice {
	int cpu;
	uint64_t start_ns, end_ns;
	int culprit; /* id: who ran */
};
typedef void (*il_attrib_slice_cb)(void *ctx, const struct il_attrib_slice *s);
void il_attrib_on_slice(struct il_attrib *a, il_attrib_slice_cb cb, void *ctx);

/* Counts so far: kernel events fed, kept now, dropped for the cap; run
 * threads switched out with no switch-in reported (its time unknown). */
struct il_attrib_counts {
	uint64_t kevents, kept, capped, explained, unexplained, unseen_switch_ins;
};
void il_attrib_counts(const struct il_attrib *a, struct il_attrib_counts *c);

#endif
