/*
 * The decomposition engine (see il_attrib.h for the components).
 *
 * Kernel events become timelines as they arrive:
 *   - per run thread: (time, state, CPU) entries, state one of sleeping,
 *     waking (sched_waking .. sched_wakeup), runnable (queued on a CPU),
 *     running; flagged where a sched_waking or a migration happened;
 *   - per CPU: the slices of who held it, one per switch (the holder up
 *     to a switch is that switch's prev), and the spans of interrupts.
 * One thread's events, and one CPU's, reach us in time order (they are
 * causally ordered, or come from one CPU); only the interleaving between
 * CPUs is loose, and per-entity timelines do not care.
 *
 * The BPF program emits every switch on a CPU while one of the run's
 * threads waits there, so the holder of a CPU during such a wait is the
 * prev of the next switch on it even when earlier switches were filtered
 * out. A slice's start is known when its holder was the next of the
 * switch before, and otherwise from the moment a run thread began to wait.
 * When the switches stopped in between (the waiter migrated away) and the
 * next one's prev is another thread, the next of the switch before held
 * the CPU up to where they stopped, and between that and the moment a run
 * thread waited there again the holder is unknown (held_until()).
 *
 * Explaining a hop is then interval arithmetic over the sender's and the
 * receiver's timelines, the holders of the CPUs they waited on and the
 * interrupts on the CPUs they ran on.
 */
#include "il_attrib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_env.h"
#include "il_hist.h"

#define DEFAULT_MAX_KEVENTS 262144
/* An RT task kept from a CPU that the scheduler gave to CFS or to idle
 * while it waited, for longer than this, is throttled (RT throttling or the
 * fair server); shorter, it is the ordinary wake-up preemption latency,
 * charged to whoever ran. */
#define DEFAULT_THROTTLE_MIN_NS 50000
/*
 * A CFS task that already ran when the RT task woke keeps the CPU until
 * its kernel code reaches a preemption point: on a kernel without full
 * preemption that took 119-480 us here (perf sched beside a run; these
 * stretches were called "throttling" while sched_rt_runtime_us was -1).
 * Held that long it is the holder's, named; only past this is it the
 * fair server or throttling keeping the CPU for CFS (windows of tens of
 * ms).
 */
#define HOLDOVER_THROTTLE_MIN_NS 2000000
#define DEFAULT_WORST		 16
#define MAX_WORST		 256
#define MAX_THREADS		 1024
#define THREAD_HASH		 4096
#define CULPRIT_HASH		 1024
#define MAX_CPUS		 1024
#define MAX_LOST		 64
#define BANDS_PER_OCTAVE	 8
#define NBANDS			 (41 * BANDS_PER_OCTAVE)
#define HOP_ACC			 16
_Static_assert(MAX_WORST + NBANDS <= IL_ATTRIB_MAX_STORED,
	       "explain takes every event a report keeps");
#define THREAD_TOP 8
/* send + wake + runqueue + dispatch vs the stamps, for asleep receivers. */
#define IDENTITY_TOL_NS 2000

static const char *const comp_names[IL_NCOMP] = {
    [IL_COMP_WORK] = "work",	     [IL_COMP_PREEMPTED] = "preempted",
    [IL_COMP_SEND] = "send",	     [IL_COMP_WAKE] = "wake",
    [IL_COMP_RUNQUEUE] = "runqueue", [IL_COMP_BUSY] = "busy",
    [IL_COMP_DISPATCH] = "dispatch", [IL_COMP_IRQ] = "irq",
    [IL_COMP_VBLANK] = "vblank",     [IL_COMP_RESIDUAL] = "residual",
};

const char *il_attrib_comp_name(int c)
{
	return c >= 0 && c < IL_NCOMP ? comp_names[c] : NULL;
}

/* --- rings: FIFO arrays whose elements start with a uint64_t time ------- */
struct ring {
	unsigned char *buf;
	size_t esz, head, n, cap;
};

static void *ring_at(const struct ring *r, size_t i)
{
	return r->buf + ((r->head + i) % r->cap) * r->esz;
}

static int ring_push(struct ring *r, const void *e)
{
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 32;
		unsigned char *nb = malloc(ncap * r->esz);

		if (!nb)
			return -ENOMEM;
		for (size_t i = 0; i < r->n; i++)
			memcpy(nb + i * r->esz, ring_at(r, i), r->esz);
		free(r->buf);
		r->buf = nb;
		r->head = 0;
		r->cap = ncap;
	}
	memcpy(r->buf + ((r->head + r->n) % r->cap) * r->esz, e, r->esz);
	r->n++;
	return 0;
}

static void ring_pop(struct ring *r)
{
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

static uint64_t ring_ts(const struct ring *r, size_t i)
{
	uint64_t t;

	memcpy(&t, ring_at(r, i), sizeof(t));
	return t;
}

/* The last index whose time is <= t, or -1. */
static long ring_last_le(const struct ring *r, uint64_t t)
{
	long lo = 0, hi = (long)r->n - 1, ans = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (ring_ts(r, (size_t)mid) <= t) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

/* The first index whose time is > t (n when none). */
static size_t ring_first_gt(const struct ring *r, uint64_t t)
{
	return (size_t)(ring_last_le(r, t) + 1);
}

/* --- the engine's state -------------------------------------------------- */
enum tstate { TS_UNKNOWN, TS_SLEEPING, TS_WAKING, TS_RUNNABLE, TS_RUNNING };
#define TF_WOKEN    1
#define TF_MIGRATED 2

struct tl {
	uint64_t ts;
	uint8_t state, flags;
	int16_t cpu;
	int32_t waker; /* TF_WOKEN: who woke it (the current task at sched_waking), -1 unknown */
};

struct cacc {
	int id;
	uint64_t ns;
};

struct thread {
	int pid, tid;
	char name[32], process[32], role[16], policy[16];
	int priority, nice;
	bool rt; /* RT or deadline: a CPU running CFS or idle is throttling it */
	bool name_only;
	bool migrated; /* a migration to put on its next entry */
	int culprit;
	struct ring tl;
	uint64_t acct_until;
	uint64_t runq_ns, run_ns, wakeups, waits;
	int last_state; /* of the last piece added to the totals */
	struct cacc top[THREAD_TOP];
	/*
	 * The waits counted as schedstat's run_delay counts them, for the
	 * cross-check: each whole wait, when it ends, if it ends between the
	 * two readings (ss_from, ss_to]. A clipped total differs from that by
	 * the waits in progress at either reading: under RT throttling a CFS
	 * thread's waits last up to a second. wait_start is 0 when the wait
	 * began before the capture followed the thread (its length unknown:
	 * ss_unknown counts those). A wait ended by a switch-in the kernel did
	 * not report (TS_UNKNOWN) ended between the CPU's last reported switch
	 * and the thread's switch-out: ss_ns gets the shortest it can have
	 * been, ss_slack_ns how much longer it may have been.
	 */
	uint64_t ss_from, ss_to, ss_ns, ss_slack_ns, wait_start, unseen_from;
	unsigned ss_unknown;
	/*
	 * Its time on a CPU between the same readings, for schedstat's first
	 * field (the kernel's own on-CPU time): ss_run_ns what the capture
	 * saw running, ss_run_slack_ns what it could not tell (TS_UNKNOWN:
	 * after a switch-in the kernel did not report), which may have been
	 * running too.
	 */
	uint64_t ss_run_ns, ss_run_slack_ns;
};

struct slice {
	uint64_t end, start; /* end first: rings are searched by their first field */
	int32_t culprit, prio;
};

struct span {
	uint64_t end, start;
};

struct cpu {
	struct ring slices, irqs;
	bool seen;
	uint64_t open_start, wait_mark;
	int open_culprit, open_prio;
	/*
	 * The BPF program emits this CPU's switches only while a run thread
	 * waits here (or one is switched): nwait counts them, gap says the
	 * count fell to 0 (at gap_from) since the last emitted switch, and
	 * watch_from is when it last rose from 0. Across a gap the holder
	 * switched in at open_start is known up to gap_from only.
	 */
	int nwait;
	bool gap;
	uint64_t gap_from, watch_from;
	int irq_depth;
	uint64_t irq_start;
};

struct band {
	uint64_t n;
	double lat_ns;
	double comp_ns[IL_NSTAMPS][IL_NCOMP];
	double culprit_ns[IL_ATTRIB_MAX_CULPRITS];
	struct il_attrib_event exemplar;
};

struct lost {
	uint64_t from, to;
};

struct il_attrib {
	struct il_attrib_opts o;
	struct thread *threads[MAX_THREADS];
	int nthreads;
	int thash[THREAD_HASH]; /* tid -> index + 1 */
	struct il_attrib_culprit culprits[IL_ATTRIB_MAX_CULPRITS];
	int nculprits;
	int chash_tid[CULPRIT_HASH], chash_id[CULPRIT_HASH];
	int ckprio[IL_ATTRIB_MAX_CULPRITS];	/* the kernel prio a culprit ran at */
	uint64_t cseen[IL_ATTRIB_MAX_CULPRITS]; /* when last matched, in cclock ticks */
	uint64_t cclock;
	bool cnamed[IL_ATTRIB_MAX_CULPRITS]; /* named by a comm, not "tid N" */
	struct cpu *cpus[MAX_CPUS];
	uint64_t kevents, kept, capped, newest;
	uint64_t unseen_switch_ins; /* switched out with no switch-in reported */
	uint64_t window_start, capped_until, from_ns, to_ns;
	uint64_t end_ns; /* the window's end once known (il_attrib_stop), 0 before */
	bool started, finished;
	struct lost lost[MAX_LOST];
	int nlost;
	il_attrib_slice_cb slice_cb;
	void *slice_ctx;

	/* Figures over the explained events. */
	uint64_t explained, unexplained;
	struct il_hist *hist[IL_NSTAMPS][IL_NCOMP];
	struct il_hist *proc_hist[IL_NCOMP]; /* per event, summed over the processing hops */
	struct il_hist *resid_ppm;
	uint64_t resid_within5;
	double hop_comp_ns[IL_NSTAMPS][IL_NCOMP];
	double hop_total_ns[IL_NSTAMPS];
	double hop_culprit_ns[IL_NSTAMPS][IL_ATTRIB_MAX_CULPRITS];
	uint64_t hop_n[IL_NSTAMPS], hop_asleep[IL_NSTAMPS], hop_consistent[IL_NSTAMPS];
	uint64_t hop_same_cpu[IL_NSTAMPS], hop_cross_cpu[IL_NSTAMPS], hop_migrations[IL_NSTAMPS];
	uint64_t identity_n, identity_ok, identity_uncovered;
	double proc_total_ns;
	struct band *bands[NBANDS];
	struct il_attrib_event *worst;
	size_t nworst;
};

/* --- threads and culprits ------------------------------------------------ */
static unsigned hash_tid(int tid, unsigned size)
{
	return ((unsigned)tid * 2654435761u) & (size - 1);
}

static struct thread *thread_of(const struct il_attrib *a, int tid)
{
	unsigned h = hash_tid(tid, THREAD_HASH);

	if (tid <= 0)
		return NULL;
	for (unsigned i = 0; i < THREAD_HASH; i++) {
		int v = a->thash[(h + i) & (THREAD_HASH - 1)];

		if (!v)
			return NULL;
		if (a->threads[v - 1]->tid == tid)
			return a->threads[v - 1];
	}
	return NULL;
}

/* A thread whose own events build a timeline (not one only named). */
static struct thread *followed(const struct il_attrib *a, int tid)
{
	struct thread *th = thread_of(a, tid);

	return th && !th->name_only ? th : NULL;
}

static bool policy_is_rt(const char *p)
{
	return p && (!strcmp(p, "fifo") || !strcmp(p, "rr") || !strcmp(p, "deadline"));
}

/*
 * A new culprit slot for tid; UNKNOWN when full. A TID has one slot per
 * (command name, kernel priority) it was seen with: a shell child that
 * exec's another program, or a thread whose class or priority changes,
 * is a new culprit from then on, and the time before stays with the
 * name it ran under.
 */
static int culprit_new(struct il_attrib *a, int tid)
{
	unsigned h = hash_tid(tid, CULPRIT_HASH);

	if (a->nculprits >= IL_ATTRIB_MAX_CULPRITS)
		return IL_CULPRIT_UNKNOWN;
	for (unsigned i = 0; i < CULPRIT_HASH; i++) {
		unsigned j = (h + i) & (CULPRIT_HASH - 1);

		if (!a->chash_id[j]) {
			a->chash_tid[j] = tid;
			a->chash_id[j] = a->nculprits++;
			return a->chash_id[j];
		}
	}
	return IL_CULPRIT_UNKNOWN;
}

/*
 * The slot of tid named comm at kernel priority kprio, or (comm NULL)
 * the slot it was last seen with; 0 when there is none.
 */
static int culprit_find(const struct il_attrib *a, int tid, const char *comm, int kprio)
{
	unsigned h = hash_tid(tid, CULPRIT_HASH);
	int latest = 0;

	for (unsigned i = 0; i < CULPRIT_HASH; i++) {
		unsigned j = (h + i) & (CULPRIT_HASH - 1);
		int id = a->chash_id[j];

		if (!id)
			break;
		if (a->chash_tid[j] != tid)
			continue;
		if (!comm) {
			if (!latest || a->cseen[id] > a->cseen[latest])
				latest = id;
		} else if (a->cnamed[id] && a->ckprio[id] == kprio &&
			   !strcmp(a->culprits[id].thread, comm)) {
			return id;
		}
	}
	return latest;
}

/* A culprit slot for tid, its latest or a new one; UNKNOWN when full. */
static int culprit_slot(struct il_attrib *a, int tid, bool *fresh)
{
	int id = culprit_find(a, tid, NULL, 0);

	*fresh = !id;
	return id ? id : culprit_new(a, tid);
}

/*
 * The class of a thread that is not the run's, from the kernel priority
 * sched_switch carries: "deadline", "rt" or "fair", never "fifo" or
 * "other", because that priority cannot tell FIFO from RR or OTHER from
 * BATCH and IDLE. The run's own threads carry the policy they read back
 * (sched_getattr: "fifo", "other", ...). So one culprit list can hold
 * "other" for the canary and "fair" for rcu_preempt, both CFS: a reader
 * grouping culprits by class maps rt to fifo/rr and fair to
 * other/batch/idle.
 */
static void kprio_class(int kprio, char *policy, size_t len, int *priority)
{
	if (kprio < 0) {
		snprintf(policy, len, "deadline");
		*priority = 0;
	} else if (kprio < IL_KEV_PRIO_FAIR) {
		snprintf(policy, len, "rt");
		*priority = 99 - kprio;
	} else {
		snprintf(policy, len, "fair");
		*priority = kprio - 120;
	}
}

/*
 * The culprit id of whoever ran as tid, named by comm and kernel prio as
 * it was then; an event without a comm is the TID's latest culprit.
 */
static int culprit_of(struct il_attrib *a, int tid, const char *comm, int kprio)
{
	struct thread *th;
	struct il_attrib_culprit *c;
	char name[17] = "";
	int id;

	if (tid == 0)
		return IL_CULPRIT_IDLE;
	th = thread_of(a, tid);
	if (th)
		return th->culprit;
	if (comm) {
		memcpy(name, comm, 16);
		name[16] = '\0';
	}
	id = culprit_find(a, tid, name[0] ? name : NULL, kprio);
	if (!id && name[0]) {
		/* First seen without a name ("tid N"): the name it gets next,
		 * at the same priority, is its own. */
		id = culprit_find(a, tid, NULL, 0);
		if (id && (a->cnamed[id] || a->ckprio[id] != kprio))
			id = 0;
		if (id) {
			snprintf(a->culprits[id].thread, sizeof(a->culprits[id].thread), "%s",
				 name);
			a->cnamed[id] = true;
		}
	}
	if (!id) {
		id = culprit_new(a, tid);
		if (id == IL_CULPRIT_UNKNOWN)
			return id;
		c = &a->culprits[id];
		c->tid = tid;
		a->ckprio[id] = kprio;
		a->cnamed[id] = name[0] != '\0';
		kprio_class(kprio, c->policy, sizeof(c->policy), &c->priority);
		if (name[0])
			snprintf(c->thread, sizeof(c->thread), "%s", name);
		else
			snprintf(c->thread, sizeof(c->thread), "tid %d", tid);
	}
	a->cseen[id] = ++a->cclock;
	return id;
}

const struct il_attrib_culprit *il_attrib_culprit(const struct il_attrib *a, int id)
{
	return id >= 0 && id < a->nculprits ? &a->culprits[id] : NULL;
}

int il_attrib_thread_add(struct il_attrib *a, const struct il_attrib_thread *t)
{
	struct thread *th;
	struct il_attrib_culprit *c;
	unsigned h;
	bool fresh;
	int id;

	if (t->tid <= 0)
		return -EINVAL;
	if (thread_of(a, t->tid))
		return 0;
	if (a->nthreads >= MAX_THREADS)
		return -ENOSPC;
	id = culprit_slot(a, t->tid, &fresh);
	if (id == IL_CULPRIT_UNKNOWN)
		return -ENOSPC;
	th = calloc(1, sizeof(*th));
	if (!th)
		return -ENOMEM;
	th->pid = t->pid;
	th->tid = t->tid;
	snprintf(th->name, sizeof(th->name), "%s", t->name ? t->name : "?");
	snprintf(th->process, sizeof(th->process), "%s", t->process ? t->process : "");
	snprintf(th->role, sizeof(th->role), "%s", t->role ? t->role : "");
	snprintf(th->policy, sizeof(th->policy), "%s", t->policy ? t->policy : "");
	th->priority = t->priority;
	th->nice = t->nice;
	th->rt = policy_is_rt(t->policy);
	th->name_only = t->name_only;
	th->culprit = id;
	th->ss_to = UINT64_MAX;
	th->tl.esz = sizeof(struct tl);
	c = &a->culprits[id];
	memset(c, 0, sizeof(*c));
	c->tid = t->tid;
	c->pid = t->pid;
	c->run_thread = true;
	snprintf(c->thread, sizeof(c->thread), "%s", th->name);
	snprintf(c->process, sizeof(c->process), "%s", th->process);
	snprintf(c->policy, sizeof(c->policy), "%s", th->policy[0] ? th->policy : "?");
	c->priority = th->rt ? t->priority : t->nice;
	a->threads[a->nthreads++] = th;
	h = hash_tid(t->tid, THREAD_HASH);
	for (unsigned i = 0; i < THREAD_HASH; i++)
		if (!a->thash[(h + i) & (THREAD_HASH - 1)]) {
			a->thash[(h + i) & (THREAD_HASH - 1)] = a->nthreads;
			break;
		}
	return 0;
}

/* --- life cycle ---------------------------------------------------------- */
int il_attrib_new(const struct il_attrib_opts *opts, struct il_attrib **out)
{
	struct il_attrib *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	if (opts)
		a->o = *opts;
	if (!a->o.max_kevents)
		a->o.max_kevents = DEFAULT_MAX_KEVENTS;
	if (!a->o.throttle_min_ns)
		a->o.throttle_min_ns = DEFAULT_THROTTLE_MIN_NS;
	if (!a->o.worst_kept)
		a->o.worst_kept = DEFAULT_WORST;
	if (a->o.worst_kept > MAX_WORST)
		a->o.worst_kept = MAX_WORST;
	a->worst = calloc(a->o.worst_kept, sizeof(*a->worst));
	if (!a->worst)
		goto fail;
	for (int k = 1; k <= IL_NHOPS; k++)
		for (int c = 0; c < IL_NCOMP; c++)
			if (il_hist_new(&a->hist[k][c]) < 0)
				goto fail;
	for (int c = 0; c < IL_NCOMP; c++)
		if (il_hist_new(&a->proc_hist[c]) < 0)
			goto fail;
	if (il_hist_new(&a->resid_ppm) < 0)
		goto fail;
	a->nculprits = IL_CULPRIT_FIRST;
	snprintf(a->culprits[IL_CULPRIT_UNKNOWN].thread, 32, "unknown");
	snprintf(a->culprits[IL_CULPRIT_IDLE].thread, 32, "idle");
	snprintf(a->culprits[IL_CULPRIT_THROTTLED].thread, 32, "throttled");
	*out = a;
	return 0;
fail:
	il_attrib_free(a);
	return -ENOMEM;
}

void il_attrib_free(struct il_attrib *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->nthreads; i++) {
		free(a->threads[i]->tl.buf);
		free(a->threads[i]);
	}
	for (int c = 0; c < MAX_CPUS; c++)
		if (a->cpus[c]) {
			free(a->cpus[c]->slices.buf);
			free(a->cpus[c]->irqs.buf);
			free(a->cpus[c]);
		}
	for (int k = 0; k < IL_NSTAMPS; k++)
		for (int c = 0; c < IL_NCOMP; c++)
			il_hist_free(a->hist[k][c]);
	for (int c = 0; c < IL_NCOMP; c++)
		il_hist_free(a->proc_hist[c]);
	il_hist_free(a->resid_ppm);
	for (int b = 0; b < NBANDS; b++)
		free(a->bands[b]);
	free(a->worst);
	free(a);
}

void il_attrib_on_slice(struct il_attrib *a, il_attrib_slice_cb cb, void *ctx)
{
	a->slice_cb = cb;
	a->slice_ctx = ctx;
}

void il_attrib_counts(const struct il_attrib *a, struct il_attrib_counts *c)
{
	c->kevents = a->kevents;
	c->kept = a->kept;
	c->capped = a->capped;
	c->explained = a->explained;
	c->unexplained = a->unexplained;
	c->unseen_switch_ins = a->unseen_switch_ins;
}

void il_attrib_mark_lost(struct il_attrib *a, uint64_t from_ns, uint64_t to_ns)
{
	if (a->nlost == MAX_LOST) {
		/* Merge into the last range: coarser, never forgotten. */
		a->lost[MAX_LOST - 1].to = to_ns;
		return;
	}
	a->lost[a->nlost].from = from_ns;
	a->lost[a->nlost].to = to_ns;
	a->nlost++;
}

/* --- feeding ------------------------------------------------------------- */
static struct cpu *cpu_get(struct il_attrib *a, int c)
{
	if (c < 0 || c >= MAX_CPUS)
		return NULL;
	if (!a->cpus[c]) {
		a->cpus[c] = calloc(1, sizeof(struct cpu));
		if (!a->cpus[c])
			return NULL;
		a->cpus[c]->slices.esz = sizeof(struct slice);
		a->cpus[c]->irqs.esz = sizeof(struct span);
	}
	return a->cpus[c];
}

static void cpu_wait_mark(struct il_attrib *a, int c, uint64_t ts)
{
	struct cpu *cp = cpu_get(a, c);

	if (cp && !cp->wait_mark)
		cp->wait_mark = ts;
}

static const struct tl *tl_back(const struct thread *th)
{
	return th->tl.n ? ring_at(&th->tl, th->tl.n - 1) : NULL;
}

/*
 * A wait begins where the thread becomes runnable (woken, or switched out
 * still runnable: where the kernel's sched_info_enqueue() stamps it) and
 * ends at its next other state; see struct thread.
 */
static void ss_note(struct thread *th, const struct tl *last, const struct tl *e)
{
	bool was = last && last->state == TS_RUNNABLE, is = e->state == TS_RUNNABLE;

	if (th->unseen_from) {
		/* The switch-out after an unseen switch-in: the wait ended no
		 * later than this. */
		th->ss_slack_ns += e->ts - th->unseen_from;
		th->unseen_from = 0;
	}
	if (!was && is) {
		/* A first entry is assumed (tl_first, at 0): its start is unknown. */
		th->wait_start = e->ts;
		return;
	}
	/* Only waits that end between the readings (none before the first). */
	if (!was || is || !th->ss_from || e->ts <= th->ss_from || e->ts > th->ss_to)
		return;
	if (!th->wait_start) {
		th->ss_unknown++;
		return;
	}
	th->ss_ns += e->ts - th->wait_start;
	/* Ended by a switch-in the kernel did not report: at the earliest here. */
	if (e->state == TS_UNKNOWN)
		th->unseen_from = e->ts;
}

/* Keeps the CPUs' counts of waiting run threads (struct cpu) as a
 * thread's entry last becomes e. */
static void waiters_note(struct il_attrib *a, const struct tl *last, const struct tl *e)
{
	bool was = last && last->state == TS_RUNNABLE, is = e->state == TS_RUNNABLE;
	bool moved = last && last->cpu != e->cpu;
	struct cpu *cp;

	if (was && (!is || moved) && (cp = cpu_get(a, last->cpu)) && cp->nwait > 0 &&
	    --cp->nwait == 0 && !cp->gap) {
		cp->gap = true;
		cp->gap_from = e->ts;
	}
	if (is && (!was || moved) && (cp = cpu_get(a, e->cpu)) && cp->nwait++ == 0)
		cp->watch_from = e->ts;
}

static void tl_push_by(struct il_attrib *a, struct thread *th, uint64_t ts, int state, int cpu,
		       int flags, int waker)
{
	const struct tl *last = tl_back(th);
	struct tl e = {.ts = ts,
		       .state = (uint8_t)state,
		       .flags = (uint8_t)flags,
		       .cpu = (int16_t)cpu,
		       .waker = waker};

	/* One thread's events are causally ordered; never let time run back. */
	if (last && e.ts < last->ts)
		e.ts = last->ts;
	ss_note(th, last, &e);
	waiters_note(a, last, &e);
	if (th->migrated) {
		e.flags |= TF_MIGRATED;
		th->migrated = false;
	}
	if (ring_push(&th->tl, &e) == 0)
		a->kept++;
}

static void tl_push(struct il_attrib *a, struct thread *th, uint64_t ts, int state, int cpu,
		    int flags)
{
	tl_push_by(a, th, ts, state, cpu, flags, 0);
}

/* Before a thread's first event, what it must have been doing. */
static void tl_first(struct il_attrib *a, struct thread *th, int state, int cpu)
{
	if (!th->tl.n)
		tl_push(a, th, 0, state, cpu, 0);
}

static void slice_push(struct il_attrib *a, struct cpu *cp, uint64_t start, uint64_t end,
		       int culprit, int prio)
{
	struct slice s = {
	    .end = end, .start = start < end ? start : end, .culprit = culprit, .prio = prio};

	if (ring_push(&cp->slices, &s) == 0)
		a->kept++;
}

/*
 * The slices of CPU cp up to switch e, whose prev is culprit pc. The
 * holder is the next of the CPU's last emitted switch for as long as
 * switches were emitted; when they stopped in between (no run thread
 * waited there: the waiter migrated away, or was switched out asleep)
 * and e's prev is someone else, the holder switched in then is known up
 * to where they stopped, pc from where they started again (a run thread
 * came to wait: its first switch after that is e), and the stretch
 * between is unknown. It once all went to pc: a receiver's wait read
 * "3.95 ms behind browser:ui", the receiver itself, asleep meanwhile.
 */
static void held_until(struct il_attrib *a, struct cpu *cp, const struct il_kev *e, int pc)
{
	if (cp->seen && cp->gap && cp->open_culprit != pc) {
		uint64_t from = cp->nwait > 0 ? cp->watch_from : e->ts_ns;

		if (from < cp->gap_from)
			from = cp->gap_from;
		if (from > e->ts_ns)
			from = e->ts_ns;
		if (cp->gap_from > cp->open_start)
			slice_push(a, cp, cp->open_start, cp->gap_from, cp->open_culprit,
				   cp->open_prio);
		if (from > cp->gap_from)
			slice_push(a, cp, cp->gap_from, from, IL_CULPRIT_UNKNOWN, 0);
		slice_push(a, cp, from, e->ts_ns, pc, e->prio);
		return;
	}
	/* Known from the switch before when nothing unseen came between. */
	if (cp->seen && cp->open_culprit == pc)
		slice_push(a, cp, cp->open_start, e->ts_ns, pc, e->prio);
	else
		slice_push(a, cp, cp->wait_mark ? cp->wait_mark : e->ts_ns, e->ts_ns, pc, e->prio);
}

static void on_switch(struct il_attrib *a, const struct il_kev *e)
{
	struct thread *prev = followed(a, e->pid), *next = followed(a, e->pid2);
	struct cpu *cp = cpu_get(a, e->cpu);
	int pc = culprit_of(a, e->pid, e->comm, e->prio);
	bool runnable = (e->arg & IL_KEV_STATE_MASK) == 0;

	/* Who held the CPU up to this switch, before the switch's own
	 * threads change the count of those waiting here. */
	if (cp)
		held_until(a, cp, e, pc);
	if (prev) {
		const struct tl *last = tl_back(prev);

		/*
		 * Switched out with no switch-in reported since it last stopped:
		 * the kernel emitted none (here, a thread of PID 1 is switched in
		 * every second and its switch-out never traced, tracefs and BPF
		 * alike, so whoever follows it on that CPU arrives unseen). From
		 * the CPU's last reported switch (or the thread's last entry, if
		 * later) until now, what it did is not known: never counted as
		 * waiting, and the hops over it are inconsistent.
		 */
		if (last && last->state != TS_RUNNING && last->state != TS_UNKNOWN) {
			uint64_t from =
			    cp && cp->seen && cp->open_start > last->ts ? cp->open_start : last->ts;

			tl_push(a, prev, from, TS_UNKNOWN, e->cpu, 0);
			a->unseen_switch_ins++;
		}
		tl_first(a, prev, TS_RUNNING, e->cpu);
		tl_push(a, prev, e->ts_ns, runnable ? TS_RUNNABLE : TS_SLEEPING, e->cpu, 0);
	}
	if (next) {
		tl_first(a, next, TS_RUNNABLE, e->cpu);
		tl_push(a, next, e->ts_ns, TS_RUNNING, e->cpu, 0);
	}
	if (!cp)
		return;
	cp->seen = true;
	cp->open_start = e->ts_ns;
	cp->open_culprit = culprit_of(a, e->pid2, e->comm2, e->prio2);
	cp->open_prio = e->prio2;
	cp->wait_mark = 0;
	cp->gap = cp->nwait == 0;
	cp->gap_from = e->ts_ns;
}

static void on_wake(struct il_attrib *a, const struct il_kev *e)
{
	struct thread *th = followed(a, e->pid);
	const struct tl *last;

	if (!th)
		return;
	if (!th->rt && e->prio >= 0 && e->prio < IL_KEV_PRIO_FAIR && !th->policy[0])
		th->rt = true;
	/*
	 * Its first event a move while queued, not woken: it was runnable
	 * since before the capture (its sched_wakeup came earlier), so its
	 * wait counts from the window's start, clipped, as a first switch-in
	 * does. It was assumed asleep, and the wait dropped (the canary lost
	 * 923 ms of one under RT throttling).
	 */
	if (e->type == IL_KEV_MIGRATE && !e->waking)
		tl_first(a, th, TS_RUNNABLE, e->arg);
	tl_first(a, th, TS_SLEEPING, e->arg);
	last = tl_back(th);
	switch (e->type) {
	case IL_KEV_WAKING:
		if (last->state == TS_SLEEPING || last->state == TS_UNKNOWN)
			tl_push_by(a, th, e->ts_ns, TS_WAKING, e->arg, TF_WOKEN, e->pid2);
		else /* woken while still on a CPU or queued: no wake path */
			tl_push_by(a, th, e->ts_ns, last->state, last->cpu, TF_WOKEN, e->pid2);
		break;
	case IL_KEV_WAKEUP:
		if (e->type == IL_KEV_WAKEUP && e->waking_ns && e->waking_ns <= e->ts_ns) {
			/* The capture folded the sched_waking into this record. */
			struct il_kev w = *e;

			w.type = IL_KEV_WAKING;
			w.ts_ns = e->waking_ns;
			w.arg = last->cpu;
			on_wake(a, &w);
			last = tl_back(th);
		}
		if (last->state == TS_WAKING || last->state == TS_SLEEPING ||
		    last->state == TS_UNKNOWN) {
			/* A wake-up without its waking (lost, or before tracking) still
			 * wakes, by a waker nobody saw. */
			tl_push_by(a, th, e->ts_ns, TS_RUNNABLE, e->arg,
				   last->state == TS_WAKING ? 0 : TF_WOKEN, -1);
			/* Counted in the window only, as its run and wait times
			 * are: the rings drain after it ends, with the stop's own
			 * wake-up of every thread. */
			if ((!a->started || e->ts_ns >= a->from_ns) &&
			    (!a->end_ns || e->ts_ns <= a->end_ns))
				th->wakeups++;
			cpu_wait_mark(a, e->arg, e->ts_ns);
		} else if (last->state == TS_RUNNABLE && last->cpu != e->arg) {
			tl_push(a, th, e->ts_ns, TS_RUNNABLE, e->arg, 0);
			cpu_wait_mark(a, e->arg, e->ts_ns);
		}
		break;
	case IL_KEV_MIGRATE:
		if (last->state == TS_SLEEPING) {
			/* Placed on a new CPU while being woken, before its wake-up
			 * record (which may carry an earlier sched_waking): noted on
			 * the next entry, so time never runs back. */
			th->migrated = true;
			break;
		}
		{
			/* Read before the push: it may move the timeline (last). */
			int state = last->state;

			tl_push(a, th, e->ts_ns, state, e->arg2, TF_MIGRATED);
			if (state == TS_RUNNABLE)
				cpu_wait_mark(a, e->arg2, e->ts_ns);
		}
		break;
	default:
		break;
	}
}

static void on_irq(struct il_attrib *a, const struct il_kev *e, bool entry)
{
	struct cpu *cp = cpu_get(a, e->cpu);

	if (!cp)
		return;
	if (entry) {
		if (cp->irq_depth++ == 0)
			cp->irq_start = e->ts_ns;
		return;
	}
	if (cp->irq_depth == 0)
		return; /* its entry came before the capture, or was filtered */
	if (--cp->irq_depth == 0) {
		struct span s = {.end = e->ts_ns, .start = cp->irq_start};

		if (ring_push(&cp->irqs, &s) == 0)
			a->kept++;
	}
}

static void fold_to(struct il_attrib *a, uint64_t w);

void il_attrib_feed(struct il_attrib *a, const struct il_kev *e)
{
	a->kevents++;
	if (e->ts_ns > a->newest)
		a->newest = e->ts_ns;
	switch (e->type) {
	case IL_KEV_SWITCH:
		on_switch(a, e);
		break;
	case IL_KEV_WAKING:
	case IL_KEV_WAKEUP:
	case IL_KEV_MIGRATE:
		on_wake(a, e);
		break;
	case IL_KEV_IRQ_ENTRY:
	case IL_KEV_SOFTIRQ_ENTRY:
	case IL_KEV_TIMER_ENTRY:
		on_irq(a, e, true);
		break;
	case IL_KEV_IRQ_EXIT:
	case IL_KEV_SOFTIRQ_EXIT:
	case IL_KEV_TIMER_EXIT:
		on_irq(a, e, false);
		break;
	default:
		break;
	}
	if (a->kept > a->o.max_kevents) {
		/* Over the cap: drop the older half of what is kept. Events that
		 * needed it are counted as not explained. */
		uint64_t w = a->window_start + (a->newest - a->window_start) / 2;

		a->capped++;
		if (w > a->capped_until)
			a->capped_until = w;
		fold_to(a, w);
	}
}

/* --- queries ------------------------------------------------------------- */
static const struct tl *tl_get(const struct thread *th, long i)
{
	return i >= 0 && (size_t)i < th->tl.n ? ring_at(&th->tl, (size_t)i) : NULL;
}

/* The entry in force at t (NULL before the first). */
static const struct tl *state_at(const struct thread *th, uint64_t t, long *idx)
{
	long i = ring_last_le(&th->tl, t);

	if (idx)
		*idx = i;
	return tl_get(th, i);
}

static uint64_t cpu_irq_ns(const struct il_attrib *a, int c, uint64_t x, uint64_t y)
{
	const struct cpu *cp = c >= 0 && c < MAX_CPUS ? a->cpus[c] : NULL;
	uint64_t sum = 0;

	if (!cp || y <= x)
		return 0;
	for (size_t i = ring_first_gt(&cp->irqs, x); i < cp->irqs.n; i++) {
		const struct span *s = ring_at(&cp->irqs, i);
		uint64_t lo = s->start > x ? s->start : x, hi = s->end < y ? s->end : y;

		if (s->start >= y)
			break;
		if (hi > lo)
			sum += hi - lo;
	}
	if (cp->irq_depth > 0 && cp->irq_start < y)
		sum += y - (cp->irq_start > x ? cp->irq_start : x);
	return sum > y - x ? y - x : sum;
}

/* One stretch of a CPU with one holder. */
struct seg {
	uint64_t x, y, hstart;
	int culprit, prio;
};

/* Visits the holders of CPU c over [x, y). Returns the number visited. */
static size_t cpu_holders(const struct il_attrib *a, int c, uint64_t x, uint64_t y,
			  void (*visit)(void *ctx, const struct seg *s), void *ctx)
{
	const struct cpu *cp = c >= 0 && c < MAX_CPUS ? a->cpus[c] : NULL;
	uint64_t pos = x;
	size_t n = 0;
	struct seg s;

	if (y <= x)
		return 0;
	if (!cp) {
		s = (struct seg){x, y, x, IL_CULPRIT_UNKNOWN, 0};
		visit(ctx, &s);
		return 1;
	}
	for (size_t i = ring_first_gt(&cp->slices, x); i < cp->slices.n && pos < y; i++) {
		const struct slice *sl = ring_at(&cp->slices, i);

		s.x = pos;
		s.y = sl->end < y ? sl->end : y;
		s.hstart = sl->start;
		s.culprit = sl->culprit;
		s.prio = sl->prio;
		visit(ctx, &s);
		n++;
		pos = s.y;
	}
	if (pos < y) {
		/* After the CPU's last switch: whoever it switched to, if seen,
		 * for as long as its switches were emitted (struct cpu). */
		uint64_t known_to = cp->seen && cp->gap ? cp->gap_from : UINT64_MAX;

		s.x = pos;
		s.y = y < known_to || pos >= known_to ? y : known_to;
		s.hstart = cp->seen ? cp->open_start : pos;
		s.culprit = cp->seen && cp->open_start <= pos && pos < known_to
				? cp->open_culprit
				: IL_CULPRIT_UNKNOWN;
		s.prio = cp->open_prio;
		visit(ctx, &s);
		n++;
		if (s.y < y) {
			s = (struct seg){s.y, y, s.y, IL_CULPRIT_UNKNOWN, 0};
			visit(ctx, &s);
			n++;
		}
	}
	return n;
}

/* The runnable stretch of th around entry idx: [*ws, *we). */
static void stretch_of(const struct thread *th, long idx, uint64_t *ws, uint64_t *we)
{
	long i = idx, j = idx + 1;
	const struct tl *e;

	while (i > 0 && (e = tl_get(th, i - 1)) && e->state == TS_RUNNABLE)
		i--;
	*ws = tl_get(th, i)->ts;
	while ((e = tl_get(th, j)) && e->state == TS_RUNNABLE)
		j++;
	*we = (e = tl_get(th, j)) ? e->ts : UINT64_MAX;
}

/*
 * How a holder segment keeps an RT waiter off a CPU that CFS or idle has:
 * picked while the wait went on (the CPU went idle, or switched to CFS,
 * after it began: only throttling or the fair server does that), held
 * over from before it (a CFS task that ran when the RT task woke), or
 * not at all (an RT holder, or one unknown).
 */
enum cand { CAND_NONE, CAND_PICKED, CAND_HELD };

static enum cand throttle_candidate(const struct seg *s, uint64_t ws)
{
	if (s->culprit == IL_CULPRIT_IDLE)
		return s->hstart > ws ? CAND_PICKED : CAND_NONE;
	if (s->culprit == IL_CULPRIT_UNKNOWN || s->prio < IL_KEV_PRIO_FAIR)
		return CAND_NONE;
	return s->hstart >= ws ? CAND_PICKED : CAND_HELD;
}

struct cand_ctx {
	uint64_t ws, ns[3];
};

static void cand_visit(void *ctx, const struct seg *s)
{
	struct cand_ctx *c = ctx;

	c->ns[throttle_candidate(s, c->ws)] += s->y - s->x;
}

/* Candidate time of each kind over the whole stretch [ws, we) of th,
 * across its CPUs, into ns[CAND_*]. */
static void stretch_candidate_ns(const struct il_attrib *a, const struct thread *th, uint64_t ws,
				 uint64_t we, uint64_t ns[3])
{
	struct cand_ctx c = {.ws = ws};
	long i = ring_last_le(&th->tl, ws);

	for (const struct tl *e; (e = tl_get(th, i)) && e->ts < we; i++) {
		const struct tl *nx = tl_get(th, i + 1);
		uint64_t x = e->ts > ws ? e->ts : ws, y = nx && nx->ts < we ? nx->ts : we;

		if (y == UINT64_MAX)
			y = a->newest > x ? a->newest : x;
		cpu_holders(a, e->cpu, x, y, cand_visit, &c);
	}
	memcpy(ns, c.ns, sizeof(c.ns));
}

static void acc_add(struct cacc *acc, size_t cap, size_t *n, int id, uint64_t ns)
{
	size_t small = 0;

	if (!ns)
		return;
	for (size_t i = 0; i < *n; i++)
		if (acc[i].id == id) {
			acc[i].ns += ns;
			return;
		}
	if (*n < cap) {
		acc[*n].id = id;
		acc[(*n)++].ns = ns;
		return;
	}
	/* Full: the smallest entry gives way (heavy hitters stay). */
	for (size_t i = 1; i < cap; i++)
		if (acc[i].ns < acc[small].ns)
			small = i;
	if (acc[small].ns < ns) {
		acc[small].id = id;
		acc[small].ns = ns;
	}
}

/* Culprits of one wait of th over [x, y) on CPU c. */
struct wait_ctx {
	struct cacc *acc;
	size_t cap, *n;
	bool rt, throttled[3]; /* by enum cand: whose time is throttling's */
	uint64_t ws;
};

static void wait_visit(void *ctx, const struct seg *s)
{
	struct wait_ctx *w = ctx;
	int id = s->culprit;

	if (w->rt && w->throttled[throttle_candidate(s, w->ws)])
		id = IL_CULPRIT_THROTTLED;
	acc_add(w->acc, w->cap, w->n, id, s->y - s->x);
}

static void wait_culprits(const struct il_attrib *a, const struct thread *th, long idx, int cpu,
			  uint64_t x, uint64_t y, struct cacc *acc, size_t cap, size_t *n)
{
	struct wait_ctx w = {.acc = acc, .cap = cap, .n = n, .rt = th->rt};
	uint64_t we, ns[3];

	if (th->rt) {
		stretch_of(th, idx, &w.ws, &we);
		stretch_candidate_ns(a, th, w.ws, we, ns);
		w.throttled[CAND_PICKED] = ns[CAND_PICKED] >= a->o.throttle_min_ns;
		/* Held over: throttling only when long past a preemption point's
		 * reach, or when the stretch had CPUs picked away from it too. */
		w.throttled[CAND_HELD] =
		    ns[CAND_HELD] >= HOLDOVER_THROTTLE_MIN_NS || w.throttled[CAND_PICKED];
	}
	cpu_holders(a, cpu, x, y, wait_visit, &w);
}

/* --- explaining one hop --------------------------------------------------- */
struct hopctx {
	struct il_attrib *a;
	struct il_attrib_hop *h;
	struct cacc acc[HOP_ACC];
	size_t nacc;
	bool unknown; /* a stretch inside the hop the kernel's events do not cover */
};

/* Calls fn for every piece of th's timeline within [x, y). */
static void pieces(const struct thread *th, uint64_t x, uint64_t y,
		   void (*fn)(struct hopctx *c, const struct thread *th, long idx,
			      const struct tl *e, uint64_t px, uint64_t py, void *arg),
		   struct hopctx *c, void *arg)
{
	long i = ring_last_le(&th->tl, x);

	if (y <= x)
		return;
	if (i < 0) {
		const struct tl *first = tl_get(th, 0);
		uint64_t end = first && first->ts < y ? first->ts : y;
		struct tl unknown = {.ts = x, .state = TS_UNKNOWN, .cpu = -1};

		fn(c, th, -1, &unknown, x, end, arg);
		x = end;
		i = 0;
	}
	for (const struct tl *e; x < y && (e = tl_get(th, i)); i++) {
		const struct tl *nx = tl_get(th, i + 1);
		uint64_t py = nx && nx->ts < y ? nx->ts : y;

		if (py > x)
			fn(c, th, i, e, x, py, arg);
		if (py > x)
			x = py;
	}
}

static void count_migrations(struct hopctx *c, const struct thread *th, uint64_t x, uint64_t y)
{
	for (long i = ring_last_le(&th->tl, x) + 1; (size_t)i < th->tl.n; i++) {
		const struct tl *e = tl_get(th, i);

		if (e->ts > y)
			break;
		if ((e->flags & TF_MIGRATED) && c->h->migrations < UINT8_MAX)
			c->h->migrations++;
	}
}

static void sender_piece(struct hopctx *c, const struct thread *th, long idx, const struct tl *e,
			 uint64_t x, uint64_t y, void *arg)
{
	uint64_t *comp = c->h->comp_ns, irq;

	switch (e->state) {
	case TS_RUNNING:
		irq = cpu_irq_ns(c->a, e->cpu, x, y);
		comp[IL_COMP_WORK] += y - x - irq;
		comp[IL_COMP_IRQ] += irq;
		break;
	case TS_RUNNABLE:
		comp[IL_COMP_PREEMPTED] += y - x;
		wait_culprits(c->a, th, idx, e->cpu, x, y, c->acc, HOP_ACC, &c->nacc);
		break;
	case TS_UNKNOWN:
		c->unknown = true;
		/* fall through */
	default: /* asleep inside its own handler, or unknown */
		comp[IL_COMP_RESIDUAL] += y - x;
		break;
	}
}

/* The sender's culprits while the receiver still sleeps (its post path). */
static void send_piece(struct hopctx *c, const struct thread *th, long idx, const struct tl *e,
		       uint64_t x, uint64_t y, void *arg)
{
	if (e->state == TS_RUNNABLE)
		wait_culprits(c->a, th, idx, e->cpu, x, y, c->acc, HOP_ACC, &c->nacc);
}

struct recv_arg {
	const struct thread *sender;
	uint64_t woken; /* the receiver's last sched_waking in the hop, 0 none */
};

static void receiver_piece(struct hopctx *c, const struct thread *th, long idx, const struct tl *e,
			   uint64_t x, uint64_t y, void *arg)
{
	struct recv_arg *r = arg;
	uint64_t *comp = c->h->comp_ns, irq, split;

	switch (e->state) {
	case TS_SLEEPING:
		comp[IL_COMP_SEND] += y - x;
		if (r->sender)
			pieces(r->sender, x, y, send_piece, c, NULL);
		break;
	case TS_WAKING:
		comp[IL_COMP_WAKE] += y - x;
		break;
	case TS_RUNNABLE:
		comp[IL_COMP_RUNQUEUE] += y - x;
		wait_culprits(c->a, th, idx, e->cpu, x, y, c->acc, HOP_ACC, &c->nacc);
		break;
	case TS_RUNNING:
		/* Running before its last wake-up: earlier work (busy); after it,
		 * on its way to this message's handler (dispatch). */
		split = r->woken ? (r->woken < x ? x : r->woken > y ? y : r->woken) : y;
		if (split > x) {
			irq = cpu_irq_ns(c->a, e->cpu, x, split);
			comp[IL_COMP_BUSY] += split - x - irq;
			comp[IL_COMP_IRQ] += irq;
		}
		comp[IL_COMP_DISPATCH] += y - split;
		break;
	default: /* unknown: a switch-in never reported came in between */
		c->unknown = true;
		comp[IL_COMP_RESIDUAL] += y - x;
		break;
	}
}

static int cacc_cmp(const void *x, const void *y)
{
	const struct cacc *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : a->id - b->id;
}

/*
 * Where the stamps and the kernel disagree, the stretch from the last
 * kernel event to the stamp is residual: returns where the explained
 * part of [x, stamp) ends (stamp when consistent).
 */
static uint64_t trail_check(const struct thread *th, uint64_t x, uint64_t stamp, uint32_t want_cpu,
			    bool *ok)
{
	const struct tl *e = state_at(th, stamp, NULL);

	if (e && e->state == TS_RUNNING && (want_cpu == UINT32_MAX || (uint32_t)e->cpu == want_cpu))
		return stamp;
	*ok = false;
	if (!e || e->state == TS_RUNNING) /* on another CPU: only the check fails */
		return e ? stamp : x;
	return e->ts > x ? e->ts : x;
}

static void explain_hop(struct hopctx *c, const struct il_msg *m, int k)
{
	struct il_attrib *a = c->a;
	struct il_attrib_hop *h = c->h;
	uint64_t t0 = m->stamp_ns[k - 1], t2 = m->stamp_ns[k], t1 = m->end_ns[k - 1];
	const struct thread *S = followed(a, (int)m->tid[k - 1]);
	const struct thread *R = k < IL_STAMP_PRESENTED ? followed(a, (int)m->tid[k]) : NULL;
	struct recv_arg ra = {.sender = S};
	bool ok = true;
	uint64_t lo, hi;

	long wi = -1;
	const struct tl *we = NULL;

	h->total_ns = t2 - t0;
	h->cpu_from = m->cpu[k - 1] == UINT32_MAX ? -1 : (int)m->cpu[k - 1];
	h->cpu_to = k < IL_STAMP_PRESENTED && m->cpu[k] != UINT32_MAX ? (int)m->cpu[k] : -1;
	/*
	 * The receiver's last sched_waking in the hop: the post, or what came
	 * after it. One inside the sender's handler (before its end stamp) is
	 * the post only when the sender woke it (the injector posts before its
	 * end), or when who woke it is unknown: a wake-up by another thread
	 * then (viz:drm's flip feedback waking viz:io while render:comp still
	 * ran) is earlier work's, not this message's.
	 */
	if (R) {
		/* Without an end stamp in order, any wake-up in the hop may be the post. */
		uint64_t end = t1 >= t0 && t1 <= t2 ? t1 : t0;

		for (wi = ring_last_le(&R->tl, t2 > 0 ? t2 - 1 : 0);
		     (we = tl_get(R, wi)) && we->ts > t0; wi--)
			if ((we->flags & TF_WOKEN) &&
			    (we->ts >= end || we->waker < 0 || (S && we->waker == S->tid))) {
				ra.woken = we->ts;
				break;
			}
		if (!ra.woken)
			we = NULL;
	}
	/* A sender that posts before its end stamp (the injector: its write is
	 * its handler) hands over at the post: the rest is not this hop's. */
	if (we && S && we->waker == S->tid && ra.woken < t1)
		t1 = ra.woken;
	if (t1 < t0 || t1 > t2) /* no end stamp, or one out of order: the gap starts at the start */
		t1 = t1 < t0 ? t0 : t2;

	/* The sender's handler: it must be on a CPU at both of its stamps. */
	if (!S) {
		h->comp_ns[IL_COMP_RESIDUAL] += t1 - t0;
		ok = false;
	} else {
		const struct tl *e0 = state_at(S, t0, NULL);
		long i0;

		lo = t0;
		if (!e0 || e0->state != TS_RUNNING) {
			const struct tl *nx;

			state_at(S, t0, &i0);
			nx = tl_get(S, i0 + 1);
			lo = nx && nx->ts < t1 ? nx->ts : t1;
			h->comp_ns[IL_COMP_RESIDUAL] += lo - t0;
			ok = false;
		}
		hi = t1 > lo ? trail_check(S, lo, t1, UINT32_MAX, &ok) : lo;
		pieces(S, lo, hi, sender_piece, c, NULL);
		h->comp_ns[IL_COMP_RESIDUAL] += t1 - hi;
		count_migrations(c, S, t0, t1);
	}

	/* The gap up to the receiver's stamp. */
	if (k == IL_STAMP_PRESENTED) {
		h->comp_ns[IL_COMP_VBLANK] += t2 - t1;
	} else if (!R) {
		h->comp_ns[IL_COMP_RESIDUAL] += t2 - t1;
		ok = false;
	} else {
		long i = wi;
		const struct tl *e = we, *at1 = state_at(R, t1, NULL);

		if (ra.woken) {
			/* The wake-up chain that led to this stamp. */
			if (e->state == TS_WAKING)
				h->waking_ns = e->ts;
			for (long j = i; (e = tl_get(R, j)) && e->ts <= t2; j++) {
				if (e->state == TS_RUNNABLE && !h->wakeup_ns && h->waking_ns)
					h->wakeup_ns = e->ts;
				if (e->state == TS_RUNNING && j > i) {
					h->switch_in_ns = e->ts;
					break;
				}
			}
		}
		h->asleep = at1 && at1->state == TS_SLEEPING;
		hi = trail_check(R, t1, t2, m->cpu[k], &ok);
		pieces(R, t1, hi, receiver_piece, c, &ra);
		h->comp_ns[IL_COMP_RESIDUAL] += t2 - hi;
		count_migrations(c, R, t0, t2);
	}
	/* Endpoints on their CPUs are not enough: a stretch between them the
	 * events do not cover (an unreported switch-in) leaves the split unknown. */
	if (c->unknown)
		ok = false;
	h->consistent = ok;
	if (!ok && il_env_switch("IL_ATTRIB_DEBUG_HOP") == 1) {
		fprintf(stderr, "event %llu hop %d: t0 %llu t1 %llu t2 %llu cpu %u->%u S %d R %d\n",
			(unsigned long long)m->event_id, k, (unsigned long long)t0,
			(unsigned long long)t1, (unsigned long long)t2, m->cpu[k - 1], m->cpu[k],
			(int)m->tid[k - 1], (int)m->tid[k]);
		for (int w = 0; w < 2; w++) {
			const struct thread *th = w ? R : S;
			long i = th ? ring_last_le(&th->tl, t0) : -1;

			for (int n = 0; th && n < 8; n++, i++) {
				const struct tl *e = tl_get(th, i);

				if (e)
					fprintf(stderr, "  %s %llu state %d cpu %d flags %d\n",
						w ? "R" : "S", (unsigned long long)e->ts, e->state,
						e->cpu, e->flags);
			}
		}
	}

	qsort(c->acc, c->nacc, sizeof(c->acc[0]), cacc_cmp);
	for (size_t i = 0; i < c->nacc && i < IL_ATTRIB_HOP_CULPRITS; i++) {
		h->culprit[i].id = c->acc[i].id;
		h->culprit[i].ns = c->acc[i].ns;
	}
}

/* --- figures -------------------------------------------------------------- */
static int band_of(uint64_t ns)
{
	int b;

	if (ns < 1000)
		return 0;
	b = (int)floor(log2((double)ns) * BANDS_PER_OCTAVE);
	return b < 0 ? 0 : b >= NBANDS ? NBANDS - 1 : b;
}

/*
 * Where band b starts, ns. Band 0 holds every event under 1 us (band_of),
 * so it starts at 0, and the first band above it at 1 us, not at its
 * nominal 2^(b/8) ns: band 0 was written as 0.00 to 0.00 us while it held
 * events of up to 999 ns, and the band holding 1 us as from 0.94 us. A
 * band's top is the next band's start.
 */
static double band_lo_ns(int b)
{
	return b == 0 ? 0 : fmax(1000.0, pow(2.0, (double)b / BANDS_PER_OCTAVE));
}

static void worst_add(struct il_attrib *a, const struct il_attrib_event *ev)
{
	size_t min = 0;

	if (a->nworst < a->o.worst_kept) {
		a->worst[a->nworst++] = *ev;
		return;
	}
	for (size_t i = 1; i < a->nworst; i++)
		if (a->worst[i].processing_ns < a->worst[min].processing_ns)
			min = i;
	if (ev->processing_ns > a->worst[min].processing_ns)
		a->worst[min] = *ev;
}

static void add_figures(struct il_attrib *a, const struct il_attrib_event *ev,
			struct cacc acc[][HOP_ACC], const size_t *nacc, int nhops,
			const struct il_msg *m)
{
	uint64_t sum[IL_NCOMP] = {0};
	struct band *b;
	int bi = band_of(ev->processing_ns);

	if (!a->bands[bi])
		a->bands[bi] = calloc(1, sizeof(struct band));
	b = a->bands[bi];
	for (int k = 1; k <= nhops; k++) {
		const struct il_attrib_hop *h = &ev->hop[k];
		bool processing = k <= IL_STAMP_PROCESSED;

		for (int c = 0; c < IL_NCOMP; c++) {
			il_hist_add(a->hist[k][c], h->comp_ns[c]);
			a->hop_comp_ns[k][c] += (double)h->comp_ns[c];
			if (processing)
				sum[c] += h->comp_ns[c];
			if (b)
				b->comp_ns[k][c] += (double)h->comp_ns[c];
		}
		for (size_t i = 0; i < nacc[k]; i++) {
			a->hop_culprit_ns[k][acc[k][i].id] += (double)acc[k][i].ns;
			if (b && processing)
				b->culprit_ns[acc[k][i].id] += (double)acc[k][i].ns;
		}
		a->hop_total_ns[k] += (double)h->total_ns;
		a->hop_n[k]++;
		a->hop_asleep[k] += h->asleep;
		a->hop_consistent[k] += h->consistent;
		a->hop_migrations[k] += h->migrations;
		if (h->cpu_from >= 0 && h->cpu_to >= 0) {
			if (h->cpu_from == h->cpu_to)
				a->hop_same_cpu[k]++;
			else
				a->hop_cross_cpu[k]++;
		}
		/* Stamps against the kernel: for an asleep receiver the wake path
		 * tiles end k-1 .. stamp k. Judged where the kernel's events cover
		 * the hop (consistent): one they do not (a switch never reported)
		 * has its unknown stretch in residual, and is counted once, by
		 * consistent_pct, not again here as a stamp that disagrees. */
		if (h->asleep && processing && !h->comp_ns[IL_COMP_BUSY] && !h->consistent)
			a->identity_uncovered++;
		else if (h->asleep && processing && !h->comp_ns[IL_COMP_BUSY]) {
			uint64_t gap = m->stamp_ns[k] - m->end_ns[k - 1];
			uint64_t parts = h->comp_ns[IL_COMP_SEND] + h->comp_ns[IL_COMP_WAKE] +
					 h->comp_ns[IL_COMP_RUNQUEUE] +
					 h->comp_ns[IL_COMP_DISPATCH];
			uint64_t d = parts > gap ? parts - gap : gap - parts;

			a->identity_n++;
			a->identity_ok += d <= IDENTITY_TOL_NS;
		}
	}
	for (int c = 0; c < IL_NCOMP; c++)
		il_hist_add(a->proc_hist[c], sum[c]);
	if (ev->processing_ns) {
		double pct = 100.0 * (double)sum[IL_COMP_RESIDUAL] / (double)ev->processing_ns;

		il_hist_add(a->resid_ppm, (uint64_t)(pct * 10000.0));
		a->resid_within5 += pct <= 5.0;
	}
	a->proc_total_ns += (double)ev->processing_ns;
	if (b) {
		b->n++;
		b->lat_ns += (double)ev->processing_ns;
		b->exemplar = *ev;
	}
	worst_add(a, ev);
}

/* Whether the timelines cover [x, y); why not otherwise. */
static const char *coverage(const struct il_attrib *a, uint64_t x, uint64_t y)
{
	if (a->started && x < a->from_ns)
		return "it began before the capture followed the run's threads";
	if (x < a->window_start)
		return a->capped_until > x ? "its kernel events were dropped (too many kept)"
					   : "its kernel events were already dropped";
	for (int i = 0; i < a->nlost; i++)
		if (a->lost[i].from < y && a->lost[i].to > x)
			return "kernel events were lost then (event ring full)";
	return NULL;
}

int il_attrib_explain(struct il_attrib *a, const struct il_msg *m, struct il_attrib_event *out)
{
	struct cacc acc[IL_NSTAMPS][HOP_ACC];
	size_t nacc[IL_NSTAMPS] = {0};
	int nhops = m->stamp_ns[IL_STAMP_PRESENTED] ? IL_NHOPS : IL_STAMP_PROCESSED;
	uint64_t last = m->stamp_ns[nhops];

	memset(out, 0, sizeof(*out));
	out->id = m->event_id;
	for (int k = 0; k <= IL_STAMP_PROCESSED; k++)
		if (!m->stamp_ns[k])
			return -EINVAL;
	for (int k = 1; k <= nhops; k++)
		if (m->stamp_ns[k] < m->stamp_ns[k - 1])
			out->why = "its stamps go back in time";
	if (!out->why)
		out->processing_ns = m->stamp_ns[IL_STAMP_PROCESSED] - m->stamp_ns[IL_STAMP_INJECT];
	if (!out->why)
		out->why = coverage(a, m->stamp_ns[IL_STAMP_INJECT], last);
	if (out->why) {
		a->unexplained++;
		return 0;
	}
	for (int k = 1; k <= nhops; k++) {
		struct hopctx c = {.a = a, .h = &out->hop[k]};

		explain_hop(&c, m, k);
		memcpy(acc[k], c.acc, sizeof(c.acc));
		nacc[k] = c.nacc;
	}
	out->explained = true;
	a->explained++;
	add_figures(a, out, acc, nacc, nhops, m);
	return 0;
}

/* --- folding what no event needs any more --------------------------------- */
static void account(struct il_attrib *a, struct thread *th, long idx, uint64_t x, uint64_t y)
{
	const struct tl *e = tl_get(th, idx);
	size_t n;

	if (a->started && x < a->from_ns)
		x = a->from_ns;
	if (a->finished && y > a->to_ns)
		y = a->to_ns;
	if (!e || y <= x)
		return;
	if (th->ss_from && (e->state == TS_RUNNING || e->state == TS_UNKNOWN)) {
		uint64_t lo = x > th->ss_from ? x : th->ss_from, hi = y < th->ss_to ? y : th->ss_to;

		if (hi > lo)
			*(e->state == TS_RUNNING ? &th->ss_run_ns : &th->ss_run_slack_ns) +=
			    hi - lo;
	}
	if (e->state == TS_RUNNING) {
		th->run_ns += y - x;
	} else if (e->state == TS_RUNNABLE) {
		th->runq_ns += y - x;
		th->waits += th->last_state != TS_RUNNABLE;
		for (n = 0; n < THREAD_TOP && th->top[n].ns; n++)
			;
		wait_culprits(a, th, idx, e->cpu, x, y, th->top, THREAD_TOP, &n);
	}
	th->last_state = e->state;
}

static void fold_thread(struct il_attrib *a, struct thread *th, uint64_t w)
{
	/* Keep the entry in force at w: it says what the thread did then. */
	while (th->tl.n >= 2 && ring_ts(&th->tl, 1) <= w) {
		const struct tl *e = tl_get(th, 0);
		uint64_t x = e->ts > th->acct_until ? e->ts : th->acct_until;

		account(a, th, 0, x, ring_ts(&th->tl, 1));
		/* Never back: an entry that came after a fold past it must not
		 * have its stretch counted a second time. */
		if (ring_ts(&th->tl, 1) > th->acct_until)
			th->acct_until = ring_ts(&th->tl, 1);
		ring_pop(&th->tl);
		a->kept--;
	}
	if (th->tl.n && ring_ts(&th->tl, 0) < w && th->acct_until < w) {
		uint64_t x =
		    ring_ts(&th->tl, 0) > th->acct_until ? ring_ts(&th->tl, 0) : th->acct_until;

		account(a, th, 0, x, w);
		th->acct_until = w;
	}
}

static void emit_slice(struct il_attrib *a, int c, const struct slice *s)
{
	struct il_attrib_slice out = {c, s->start, s->end, s->culprit};

	/* Inside the capture window, as every per-thread total (account):
	 * the last fold hands out what the rings held past to_ns, and the
	 * trace's CPU tracks summed 10 ms more than running_ms. */
	if (a->started && out.start_ns < a->from_ns)
		out.start_ns = a->from_ns;
	if (a->finished && out.end_ns > a->to_ns)
		out.end_ns = a->to_ns;
	/* What is not known is not drawn. */
	if (a->slice_cb && out.end_ns > out.start_ns && s->culprit != IL_CULPRIT_UNKNOWN)
		a->slice_cb(a->slice_ctx, &out);
}

static void fold_cpu(struct il_attrib *a, int c, uint64_t w)
{
	struct cpu *cp = a->cpus[c];

	while (cp->slices.n && ring_ts(&cp->slices, 0) <= w) {
		emit_slice(a, c, ring_at(&cp->slices, 0));
		ring_pop(&cp->slices);
		a->kept--;
	}
	while (cp->irqs.n && ring_ts(&cp->irqs, 0) <= w) {
		ring_pop(&cp->irqs);
		a->kept--;
	}
}

static void fold_to(struct il_attrib *a, uint64_t w)
{
	if (w <= a->window_start)
		return;
	a->window_start = w;
	/* Threads first: their totals look up the CPUs' holders. */
	for (int i = 0; i < a->nthreads; i++)
		fold_thread(a, a->threads[i], w);
	for (int c = 0; c < MAX_CPUS; c++)
		if (a->cpus[c])
			fold_cpu(a, c, w);
}

void il_attrib_advance(struct il_attrib *a, uint64_t t_ns)
{
	fold_to(a, t_ns);
}

void il_attrib_start(struct il_attrib *a, uint64_t from_ns)
{
	a->started = true;
	a->from_ns = from_ns;
}

void il_attrib_stop(struct il_attrib *a, uint64_t to_ns)
{
	if (!a->end_ns)
		a->end_ns = to_ns;
}

void il_attrib_finish(struct il_attrib *a, uint64_t to_ns)
{
	if (a->finished)
		return;
	il_attrib_stop(a, to_ns);
	a->finished = true;
	a->to_ns = to_ns;
	fold_to(a, to_ns);
	for (int i = 0; i < a->nthreads; i++) {
		struct thread *th = a->threads[i];

		if (th->tl.n) {
			uint64_t x = ring_ts(&th->tl, 0) > th->acct_until ? ring_ts(&th->tl, 0)
									  : th->acct_until;

			account(a, th, (long)th->tl.n - 1, x, to_ns);
		}
	}
	for (int c = 0; c < MAX_CPUS; c++) {
		struct cpu *cp = a->cpus[c];

		if (!cp)
			continue;
		fold_cpu(a, c, UINT64_MAX);
		if (cp->seen && to_ns > cp->open_start) {
			struct slice s = {.end = cp->gap && cp->gap_from < to_ns ? cp->gap_from
										 : to_ns,
					  .start = cp->open_start,
					  .culprit = cp->open_culprit};

			emit_slice(a, c, &s);
		}
	}
}

bool il_attrib_thread_known(const struct il_attrib *a, int tid)
{
	const struct thread *th = thread_of(a, tid);
	const struct tl *last = th ? tl_back(th) : NULL;

	/* ts 0: only what tl_first assumed before its first event. */
	return last && last->ts && !(last->state == TS_RUNNABLE && !th->wait_start);
}

int il_attrib_thread_readings(struct il_attrib *a, int tid, uint64_t from_ns, uint64_t to_ns)
{
	struct thread *th = thread_of(a, tid);

	if (!th)
		return -ENOENT;
	if (from_ns)
		th->ss_from = from_ns;
	if (to_ns)
		th->ss_to = to_ns;
	return 0;
}

size_t il_attrib_threads(const struct il_attrib *a, struct il_attrib_thread_total *out, size_t n)
{
	size_t k = 0;

	for (int i = 0; i < a->nthreads && k < n; i++) {
		const struct thread *th = a->threads[i];
		size_t best = 0;

		if (th->name_only)
			continue;
		out[k].tid = th->tid;
		out[k].name = th->name;
		out[k].runqueue_ns = th->runq_ns;
		out[k].running_ns = th->run_ns;
		out[k].wakeups = th->wakeups;
		out[k].waits = th->waits;
		out[k].schedstat_rule_ns = th->ss_ns;
		out[k].schedstat_rule_unknown = th->ss_unknown;
		out[k].schedstat_rule_slack_ns = th->ss_slack_ns;
		out[k].schedstat_running_ns = th->ss_run_ns;
		out[k].schedstat_running_slack_ns = th->ss_run_slack_ns;
		out[k].top_culprit = -1;
		out[k].top_culprit_ns = 0;
		for (size_t j = 0; j < THREAD_TOP; j++)
			if (th->top[j].ns > th->top[best].ns)
				best = j;
		if (th->top[best].ns) {
			out[k].top_culprit = th->top[best].id;
			out[k].top_culprit_ns = th->top[best].ns;
		}
		k++;
	}
	return k;
}

/* --- JSON ------------------------------------------------------------------ */

/*
 * runqueue_as_schedstat_ms: the same waits counted as run_delay counts
 * them between the thread's two schedstat readings (struct thread), what
 * the cross-check compares; a string saying why where a wait that counts
 * there began before the capture followed the thread. _slack_ms: how much
 * longer they may have been, where the kernel reported no switch-in.
 */
static void schedstat_rule_json(cJSON *to, const struct thread *th)
{
	char why[128];

	if (!th->ss_from || th->ss_to == UINT64_MAX) {
		cJSON_AddNullToObject(to, "runqueue_as_schedstat_ms");
		return;
	}
	if (th->ss_unknown) {
		snprintf(why, sizeof(why),
			 "unreadable: %u wait(s) began before the capture followed the thread",
			 th->ss_unknown);
		cJSON_AddStringToObject(to, "runqueue_as_schedstat_ms", why);
		cJSON_AddNullToObject(to, "runqueue_as_schedstat_slack_ms");
		return;
	}
	cJSON_AddNumberToObject(to, "runqueue_as_schedstat_ms",
				round((double)th->ss_ns / 1e3) / 1e3);
	cJSON_AddNumberToObject(to, "runqueue_as_schedstat_slack_ms",
				round((double)th->ss_slack_ns / 1e3) / 1e3);
}

/*
 * running_as_schedstat_ms: its time running between the same two readings,
 * beside schedstat's on-CPU time (the run adds it); _slack_ms: the time
 * the capture could not tell, after a switch-in the kernel did not report.
 */
static void schedstat_running_json(cJSON *to, const struct thread *th)
{
	if (!th->ss_from || th->ss_to == UINT64_MAX) {
		cJSON_AddNullToObject(to, "running_as_schedstat_ms");
		cJSON_AddNullToObject(to, "running_as_schedstat_slack_ms");
		return;
	}
	cJSON_AddNumberToObject(to, "running_as_schedstat_ms",
				round((double)th->ss_run_ns / 1e3) / 1e3);
	cJSON_AddNumberToObject(to, "running_as_schedstat_slack_ms",
				round((double)th->ss_run_slack_ns / 1e3) / 1e3);
}

static double us(double ns)
{
	return round(ns / 10.0) / 100.0; /* 10 ns resolution keeps the files small */
}

static cJSON *culprit_json(const struct il_attrib *a, int id, double ns, double share_of)
{
	const struct il_attrib_culprit *c = il_attrib_culprit(a, id);
	cJSON *o = cJSON_CreateObject();

	if (!o || !c)
		return o;
	cJSON_AddStringToObject(o, "thread", c->thread);
	if (c->process[0])
		cJSON_AddStringToObject(o, "process", c->process);
	else
		cJSON_AddNullToObject(o, "process");
	if (id >= IL_CULPRIT_FIRST) {
		cJSON_AddStringToObject(o, "class", c->policy);
		cJSON_AddNumberToObject(o, "priority", c->priority);
		cJSON_AddNumberToObject(o, "tid", c->tid);
	} else {
		cJSON_AddNullToObject(o, "class");
		cJSON_AddNullToObject(o, "priority");
	}
	cJSON_AddNumberToObject(o, "total_ms", round(ns / 1e3) / 1e3);
	cJSON_AddNumberToObject(o, "share", share_of > 0 ? round(ns / share_of * 1e4) / 1e4 : 0);
	return o;
}

struct idns {
	int id;
	double ns;
};

static int idns_cmp(const void *x, const void *y)
{
	const struct idns *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : a->id - b->id;
}

/* The top `max` culprits of a per-id table, largest first, as JSON. */
static cJSON *culprits_json(const struct il_attrib *a, const double *ns, double share_of,
			    size_t max)
{
	struct idns v[IL_ATTRIB_MAX_CULPRITS];
	size_t n = 0;
	cJSON *arr = cJSON_CreateArray();

	for (int id = 0; id < a->nculprits; id++)
		if (ns[id] > 0)
			v[n++] = (struct idns){id, ns[id]};
	qsort(v, n, sizeof(v[0]), idns_cmp);
	for (size_t i = 0; i < n && i < max; i++)
		cJSON_AddItemToArray(arr, culprit_json(a, v[i].id, v[i].ns, share_of));
	return arr;
}

/* A component's p50/p99/mean over the events explained; null, not 0,
 * when there were none. */
static cJSON *comp_stats_json(const struct il_hist *h)
{
	cJSON *o = cJSON_CreateObject();

	if (!h || il_hist_count(h) == 0) {
		cJSON_AddNullToObject(o, "p50_us");
		cJSON_AddNullToObject(o, "p99_us");
		cJSON_AddNullToObject(o, "mean_us");
		return o;
	}
	cJSON_AddNumberToObject(o, "p50_us", us((double)il_hist_percentile(h, 50)));
	cJSON_AddNumberToObject(o, "p99_us", us((double)il_hist_percentile(h, 99)));
	cJSON_AddNumberToObject(o, "mean_us", us(il_hist_mean(h)));
	return o;
}

cJSON *il_attrib_event_json(const struct il_attrib *a, const struct il_attrib_event *e)
{
	cJSON *o = cJSON_CreateObject(), *hops;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)e->id);
	cJSON_AddBoolToObject(o, "explained", e->explained);
	if (!e->explained) {
		cJSON_AddStringToObject(o, "why", e->why ? e->why : "");
		return o;
	}
	cJSON_AddNumberToObject(o, "processing_us", us((double)e->processing_ns));
	hops = cJSON_AddArrayToObject(o, "hops");
	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_attrib_hop *h = &e->hop[k];
		cJSON *ho, *comp, *cul;

		if (!h->total_ns && k > IL_STAMP_PROCESSED)
			break;
		ho = cJSON_CreateObject();
		cJSON_AddItemToArray(hops, ho);
		cJSON_AddNumberToObject(ho, "index", k);
		cJSON_AddNumberToObject(ho, "total_us", us((double)h->total_ns));
		comp = cJSON_AddObjectToObject(ho, "components_us");
		for (int c = 0; c < IL_NCOMP; c++)
			cJSON_AddNumberToObject(comp, comp_names[c], us((double)h->comp_ns[c]));
		cJSON_AddBoolToObject(ho, "asleep", h->asleep);
		cJSON_AddBoolToObject(ho, "consistent", h->consistent);
		cJSON_AddNumberToObject(ho, "migrations", h->migrations);
		if (h->cpu_from >= 0)
			cJSON_AddNumberToObject(ho, "cpu_from", h->cpu_from);
		else
			cJSON_AddNullToObject(ho, "cpu_from");
		if (h->cpu_to >= 0)
			cJSON_AddNumberToObject(ho, "cpu_to", h->cpu_to);
		else
			cJSON_AddNullToObject(ho, "cpu_to");
		if (h->waking_ns) {
			cJSON_AddNumberToObject(ho, "waking_ns", (double)h->waking_ns);
			cJSON_AddNumberToObject(ho, "wakeup_ns", (double)h->wakeup_ns);
		}
		if (h->switch_in_ns)
			cJSON_AddNumberToObject(ho, "switch_in_ns", (double)h->switch_in_ns);
		cul = cJSON_AddArrayToObject(ho, "culprits");
		for (int i = 0; i < IL_ATTRIB_HOP_CULPRITS && h->culprit[i].ns; i++) {
			const struct il_attrib_culprit *c = il_attrib_culprit(a, h->culprit[i].id);
			cJSON *co = cJSON_CreateObject();

			cJSON_AddStringToObject(co, "thread", c ? c->thread : "unknown");
			if (c && h->culprit[i].id >= IL_CULPRIT_FIRST) {
				cJSON_AddStringToObject(co, "class", c->policy);
				cJSON_AddNumberToObject(co, "priority", c->priority);
				/* Two threads of one name are two culprits: which. */
				cJSON_AddNumberToObject(co, "tid", c->tid);
				/* null: a thread of no process of the run (explain
				 * says so: another program's "inputlat" is not ours). */
				if (c->process[0])
					cJSON_AddStringToObject(co, "process", c->process);
				else
					cJSON_AddNullToObject(co, "process");
			}
			cJSON_AddNumberToObject(co, "us", us((double)h->culprit[i].ns));
			cJSON_AddItemToArray(cul, co);
		}
	}
	return o;
}

static void add_pct(cJSON *o, const char *key, uint64_t num, uint64_t den)
{
	if (den)
		cJSON_AddNumberToObject(o, key, round(1e4 * (double)num / (double)den) / 100.0);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *hops_report(const struct il_attrib *a)
{
	cJSON *arr = cJSON_CreateArray();

	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_hop_desc *d = il_chain_hop(k);
		cJSON *o, *comp, *cpus;

		if (!a->hop_n[k])
			continue;
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		cJSON_AddNumberToObject(o, "index", k);
		cJSON_AddStringToObject(o, "name", d->name);
		cJSON_AddStringToObject(o, "from", il_chain_hop_from(d));
		cJSON_AddStringToObject(o, "to", il_chain_hop_to(d));
		cJSON_AddNumberToObject(o, "events", (double)a->hop_n[k]);
		cJSON_AddNumberToObject(o, "mean_us", us(a->hop_total_ns[k] / (double)a->hop_n[k]));
		comp = cJSON_AddObjectToObject(o, "components");
		for (int c = 0; c < IL_NCOMP; c++) {
			if (c == IL_COMP_VBLANK && k != IL_STAMP_PRESENTED)
				continue;
			cJSON_AddItemToObject(comp, comp_names[c], comp_stats_json(a->hist[k][c]));
		}
		cJSON_AddItemToObject(
		    o, "culprits", culprits_json(a, a->hop_culprit_ns[k], a->hop_total_ns[k], 5));
		add_pct(o, "asleep_pct", a->hop_asleep[k], a->hop_n[k]);
		add_pct(o, "consistent_pct", a->hop_consistent[k], a->hop_n[k]);
		cJSON_AddNumberToObject(o, "migrations", (double)a->hop_migrations[k]);
		cpus = cJSON_AddObjectToObject(o, "cpus");
		cJSON_AddNumberToObject(cpus, "same", (double)a->hop_same_cpu[k]);
		cJSON_AddNumberToObject(cpus, "cross", (double)a->hop_cross_cpu[k]);
	}
	return arr;
}

static cJSON *bands_report(const struct il_attrib *a)
{
	cJSON *arr = cJSON_CreateArray();

	for (int b = 0; b < NBANDS; b++) {
		const struct band *bd = a->bands[b];
		cJSON *o, *comp, *hops;
		double tot[IL_NCOMP] = {0};

		if (!bd || !bd->n)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		cJSON_AddNumberToObject(o, "lo_us", us(band_lo_ns(b)));
		cJSON_AddNumberToObject(o, "hi_us", us(band_lo_ns(b + 1)));
		cJSON_AddNumberToObject(o, "count", (double)bd->n);
		cJSON_AddNumberToObject(o, "mean_us", us(bd->lat_ns / (double)bd->n));
		hops = cJSON_AddArrayToObject(o, "hops_us");
		for (int k = 1; k <= IL_STAMP_PROCESSED; k++) {
			cJSON *h = cJSON_CreateArray();

			for (int c = 0; c < IL_NCOMP; c++) {
				tot[c] += bd->comp_ns[k][c];
				cJSON_AddItemToArray(
				    h, cJSON_CreateNumber(us(bd->comp_ns[k][c] / (double)bd->n)));
			}
			cJSON_AddItemToArray(hops, h);
		}
		comp = cJSON_AddObjectToObject(o, "components_us");
		for (int c = 0; c < IL_NCOMP; c++)
			cJSON_AddNumberToObject(comp, comp_names[c], us(tot[c] / (double)bd->n));
		cJSON_AddItemToObject(o, "culprits",
				      culprits_json(a, bd->culprit_ns, bd->lat_ns, 3));
		cJSON_AddNumberToObject(o, "event", (double)bd->exemplar.id);
	}
	return arr;
}

static int ev_cmp_id(const void *x, const void *y)
{
	const struct il_attrib_event *const *a = x, *const *b = y;

	return (*a)->id < (*b)->id ? -1 : (*a)->id > (*b)->id;
}

int il_attrib_report(const struct il_attrib *a, cJSON *obj)
{
	cJSON *o, *arr, *names;
	const struct il_attrib_event *stored[MAX_WORST + NBANDS];
	size_t n = 0;
	double proc_culprits[IL_ATTRIB_MAX_CULPRITS] = {0};

	add_pct(obj, "events_explained_pct", a->explained, a->explained + a->unexplained);
	cJSON_AddNumberToObject(obj, "events_explained", (double)a->explained);
	cJSON_AddNumberToObject(obj, "events_unexplained", (double)a->unexplained);
	o = cJSON_AddObjectToObject(obj, "residual_pct");
	/* No event explained: no residual to have a percentile of (it read 0). */
	if (a->explained) {
		cJSON_AddNumberToObject(
		    o, "p50", round(il_hist_percentile(a->resid_ppm, 50) / 100.0) / 100.0);
		cJSON_AddNumberToObject(
		    o, "p95", round(il_hist_percentile(a->resid_ppm, 95) / 100.0) / 100.0);
	} else {
		cJSON_AddNullToObject(o, "p50");
		cJSON_AddNullToObject(o, "p95");
	}
	add_pct(obj, "residual_within_5pct_pct", a->resid_within5, a->explained);
	names = cJSON_AddArrayToObject(obj, "component_names");
	for (int c = 0; c < IL_NCOMP; c++)
		cJSON_AddItemToArray(names, cJSON_CreateString(comp_names[c]));

	/* Per event, summed over the processing hops 1..IL_STAMP_PROCESSED. */
	o = cJSON_AddObjectToObject(obj, "processing");
	for (int c = 0; c < IL_NCOMP; c++)
		if (c != IL_COMP_VBLANK)
			cJSON_AddItemToObject(o, comp_names[c], comp_stats_json(a->proc_hist[c]));
	cJSON_AddItemToObject(obj, "hops", hops_report(a));
	for (int k = 1; k <= IL_STAMP_PROCESSED; k++)
		for (int id = 0; id < a->nculprits; id++)
			proc_culprits[id] += a->hop_culprit_ns[k][id];
	cJSON_AddItemToObject(obj, "culprits",
			      culprits_json(a, proc_culprits, a->proc_total_ns, 10));

	arr = cJSON_AddArrayToObject(obj, "threads");
	for (int i = 0; i < a->nthreads; i++) {
		const struct thread *th = a->threads[i];
		cJSON *to;

		if (th->name_only)
			continue;
		to = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, to);
		cJSON_AddStringToObject(to, "name", th->name);
		cJSON_AddNumberToObject(to, "tid", th->tid);
		cJSON_AddNumberToObject(to, "runqueue_ms", round((double)th->runq_ns / 1e3) / 1e3);
		cJSON_AddNumberToObject(to, "running_ms", round((double)th->run_ns / 1e3) / 1e3);
		cJSON_AddNumberToObject(to, "wakeups", (double)th->wakeups);
		cJSON_AddNumberToObject(to, "waits", (double)th->waits);
		schedstat_rule_json(to, th);
		schedstat_running_json(to, th);
		{
			double top[IL_ATTRIB_MAX_CULPRITS] = {0};

			for (size_t j = 0; j < THREAD_TOP; j++)
				if (th->top[j].ns)
					top[th->top[j].id] += (double)th->top[j].ns;
			cJSON_AddItemToObject(to, "culprits",
					      culprits_json(a, top, (double)th->runq_ns, 3));
		}
	}
	cJSON_AddItemToObject(obj, "bands", bands_report(a));

	/* Stored breakdowns: the worst events, and one per latency band. */
	for (size_t i = 0; i < a->nworst; i++)
		stored[n++] = &a->worst[i];
	for (int b = 0; b < NBANDS; b++) {
		bool dup = false;

		if (!a->bands[b] || !a->bands[b]->n)
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= stored[i]->id == a->bands[b]->exemplar.id;
		if (!dup)
			stored[n++] = &a->bands[b]->exemplar;
	}
	qsort(stored, n, sizeof(stored[0]), ev_cmp_id);
	arr = cJSON_AddArrayToObject(obj, "events");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, il_attrib_event_json(a, stored[i]));

	o = cJSON_AddObjectToObject(obj, "check");
	{
		uint64_t hops = 0, cons = 0, same = 0, cross = 0;

		for (int k = 1; k <= IL_NHOPS; k++) {
			hops += a->hop_n[k];
			cons += a->hop_consistent[k];
			same += a->hop_same_cpu[k];
			cross += a->hop_cross_cpu[k];
		}
		cJSON_AddNumberToObject(o, "hops", (double)hops);
		add_pct(o, "consistent_pct", cons, hops);
		cJSON_AddNumberToObject(o, "asleep_hops", (double)a->identity_n);
		cJSON_AddNumberToObject(o, "asleep_hops_uncovered", (double)a->identity_uncovered);
		add_pct(o, "identity_within_2us_pct", a->identity_ok, a->identity_n);
		add_pct(o, "cross_cpu_pct", cross, same + cross);
	}
	o = cJSON_AddObjectToObject(obj, "kernel_events");
	cJSON_AddNumberToObject(o, "received", (double)a->kevents);
	cJSON_AddNumberToObject(o, "window_caps", (double)a->capped);
	cJSON_AddNumberToObject(o, "max_kept", (double)a->o.max_kevents);
	cJSON_AddNumberToObject(o, "unseen_switch_ins", (double)a->unseen_switch_ins);
	return 0;
}
