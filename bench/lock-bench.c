/*
 * lock-bench: N threads contend for one lock for T seconds, with a
 * critical section of C ns and D ns of work outside it, in scenarios:
 *
 * today's: several placements (one thread per CPU, all on one CPU, 4x and
 * 8x oversubscribed), optionally beside a CPU hog (CFS or FIFO), with the
 * --cs-ns/--outside-ns sections (100 ns each by default);
 *
 * owner off CPU, where asking whether the owner runs should pay: 4x
 * oversubscription with 1, 10 and 50 us critical sections (the owner is
 * preempted inside them); one thread per CPU with a SCHED_FIFO thread on
 * every CPU that preempts whoever runs; an owner that sleeps or waits for
 * I/O (a round trip to an echo thread) inside every fourth critical
 * section.
 *
 * The locks run interleaved in one process: pthread default, ADAPTIVE_NP,
 * a TAS spin lock, il_spin with source none and with source bpf, and
 * il-bpf whose owner asks for a time-slice extension (rseq, Linux 7.0),
 * which reports why it cannot run where the kernel lacks it. Per lock and
 * scenario: ops/s and ratios to pthread and adaptive-np, the CPU a thread
 * burns inside lock() per acquisition (spinning and futex calls; sampled
 * with the thread CPU clock), and the acquisition latency.
 *
 * Also measures what the sched_switch BPF program adds to a context switch
 * (pipe ping-pong between two processes on one CPU, with and without the
 * program; the raw tracepoint and the classic one), each against an empty
 * program at the same hook (switch-floor.bpf.c: the floor no program there
 * goes below), and the futex wake round trip that sets the spin budget.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <x86intrin.h>

#include "il_bench.h"
#include "il_clock.h"
#include "il_env.h"
#include "il_file.h"
#include "il_lock.h"
#include "il_oncpu.h"
#include "il_header.h"
#include "il_parse.h"
#include "il_spin.h"
#include "il_switch_cost.h"
#include "il_tclock.h"
#include "lock-bench.h"

static const char *const placement_names[PL_COUNT] = {"one-per-cpu", "one-cpu", "over4", "over8",
						      "over2"};
/* Today's placements (--placements): over2 serves the owner-off scenarios only. */
#define PL_TODAY_COUNT 4
static const char *const hog_names[HOG_COUNT] = {"none", "cfs", "fifo"};

struct opts {
	uint64_t cs_ns, outside_ns, spin_budget_ns;
	double seconds; /* per lock and config, over all rounds */
	unsigned rounds;
	int switch_rounds; /* of the BPF switch cost (il_switch_cost.h) */
	const char *json;
	int quick;
	unsigned locks_mask, pl_mask, hog_mask;
	int today, owner_off; /* which scenario families run */
};

struct shared {
	struct il_lock lock;
	uint64_t counter; /* guarded by lock */
	uint32_t owner;	  /* guarded by lock; checks exclusion */
} __attribute__((aligned(64)));

struct cell;

struct worker {
	struct cell *c;
	pthread_t th;
	int cpu;
	uint64_t ops, max_cyc, ctxsw, violations;
	uint64_t rng; /* xorshift64 state: which acquisitions are sampled */
	uint64_t cpu_ns, probe_ns, cpu_samples, clock_samples, probe_samples;
	uint64_t futex_ns, futex_calls, futex_samples;
	uint64_t futex_sleeps;
	uint64_t wait_s_cyc, wait_s_n, wait_u_cyc, wait_u_n;
	/* The blocking sections' hold beyond their busy part (result's held_ns). */
	uint64_t block_held_cyc;
	uint64_t hist[HIST_BUCKETS];
	uint64_t entry_hist[HIST_BUCKETS], entry_n, entry_stayed;
} __attribute__((aligned(64)));

struct cell {
	struct shared sh;
	_Atomic int stop __attribute__((aligned(64)));
	pthread_barrier_t go;
	uint64_t cs_cyc, out_cyc;
	int nthreads;
	const struct config *cfg;
	int slice; /* the owner asks for a time-slice extension */
	int io_fd; /* BLK_IO: our end of the echo thread's socket */
	struct worker *w;
};

static double ns_per_cyc;
/* The on-CPU clock the workers sample lock()'s CPU with; NULL: system calls. */
static struct il_tclock *tclock;
static char tclock_why[160];
/* The records keep futex_ns (the futex calls' programs are attached),
 * and what a call costs outside them (NAN, why in futex_why, if unknown). */
int futex_kept;
double futex_outside_ns = NAN;
/* What a call that slept costs outside them: more (the FPU state). */
double futex_sleep_outside_ns = NAN;
char futex_why[160];
static int cpus[MAX_THREADS];
static int ncpu;

static void calibrate_tsc(void)
{
	uint64_t t0 = il_now_ns(), c0 = __rdtsc();
	struct timespec ts = {0, 50000000};

	nanosleep(&ts, NULL);
	ns_per_cyc = (double)(il_now_ns() - t0) / (double)(__rdtsc() - c0);
}

static inline void busy_cyc(uint64_t start, uint64_t cyc)
{
	while (__rdtsc() - start < cyc)
		;
}

static unsigned hist_index(uint64_t ns)
{
	unsigned msb, i;

	if (ns < 64)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	i = 64 + (msb - 6) * HIST_SUB + (unsigned)((ns >> (msb - 5)) & (HIST_SUB - 1));
	return i < HIST_BUCKETS ? i : HIST_BUCKETS - 1;
}

/* Midpoint of a bucket, in ns. */
static double hist_value(unsigned i)
{
	unsigned msb;
	double lo, width;

	if (i < 64)
		return i;
	msb = (i - 64) / HIST_SUB + 6;
	width = ldexp(1.0, (int)msb - 5);
	lo = ldexp(1.0, (int)msb) + (double)((i - 64) % HIST_SUB) * width;
	return lo + width / 2;
}

static double hist_pct(const uint64_t *h, double p)
{
	uint64_t total = 0, acc = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		total += h[i];
	if (!total)
		return 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		acc += h[i];
		if ((double)acc >= p * (double)total)
			return hist_value(i);
	}
	return hist_value(HIST_BUCKETS - 1);
}

static long thread_ctxsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* --- rseq time-slice extension (Linux 7.0) ------------------------------ */
#ifndef PR_RSEQ_SLICE_EXTENSION
#define PR_RSEQ_SLICE_EXTENSION	    79
#define PR_RSEQ_SLICE_EXTENSION_GET 1
#define PR_RSEQ_SLICE_EXTENSION_SET 2
#define PR_RSEQ_SLICE_EXT_ENABLE    0x01
#endif
#ifndef __NR_rseq_slice_yield
#define __NR_rseq_slice_yield 471
#endif
/* struct rseq: cpu_id_start, cpu_id, rseq_cs (u64), flags, node_id, mm_cid,
 * then slice_ctrl {u8 request; u8 granted; u16 reserved}. */
#define RSEQ_SLICE_CTRL_OFFSET 28

/* glibc (2.35+) registers rseq for every thread and says where. */
extern ptrdiff_t __rseq_offset __attribute__((weak));
extern unsigned int __rseq_size __attribute__((weak));

static char slice_why[256];

/*
 * Whether the owner can ask for a time-slice extension: glibc registered
 * an rseq area large enough for slice_ctrl, and the kernel knows
 * PR_RSEQ_SLICE_EXTENSION. Else slice_why says why, and the arm reports
 * that instead of a number.
 */
static int slice_available(void)
{
	struct utsname un;

	uname(&un);
	if (!&__rseq_size || !&__rseq_offset || __rseq_size == 0) {
		snprintf(slice_why, sizeof(slice_why),
			 "not available on this kernel: no rseq area registered by the C library");
		return 0;
	}
	if (prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0) < 0) {
		snprintf(slice_why, sizeof(slice_why),
			 "not available on this kernel: prctl(PR_RSEQ_SLICE_EXTENSION) on %s: %s "
			 "(the rseq time-slice extension came in Linux 7.0)",
			 un.release, strerror(errno));
		return 0;
	}
	/* glibc registers a 32-byte area: slice_ctrl (bytes 28..31) is inside. */
	if (__rseq_size < RSEQ_SLICE_CTRL_OFFSET + 4 && __rseq_size != 20) {
		snprintf(slice_why, sizeof(slice_why),
			 "not available on this kernel: the registered rseq area (%u bytes) has no "
			 "slice_ctrl",
			 __rseq_size);
		return 0;
	}
	slice_why[0] = '\0';
	return 1;
}

static volatile uint8_t *slice_ctrl(void)
{
	return (volatile uint8_t *)((char *)__builtin_thread_pointer() + __rseq_offset +
				    RSEQ_SLICE_CTRL_OFFSET);
}

/* The owner enters its critical section: preempt me later, please. */
static inline void slice_begin(void)
{
	slice_ctrl()[0] = 1;
	__asm__ __volatile__("" ::: "memory");
}

/* Left it: give a granted extension back at once, else drop the request. */
static inline void slice_end(void)
{
	volatile uint8_t *c = slice_ctrl();

	__asm__ __volatile__("" ::: "memory");
	if (c[1])
		syscall(__NR_rseq_slice_yield);
	else
		c[0] = 0;
}

static uint64_t next_random(uint64_t *s)
{
	/* xorshift64 (Marsaglia): enough to pick samples out of step with anything. */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The calling thread's CPU time: its on-CPU clock record when it has one
 * (no system call), else CLOCK_THREAD_CPUTIME_ID. 0: the record was lost.
 */
static uint64_t cpu_now(const struct il_tclock_rec *rec, uint32_t me)
{
	return rec ? il_tclock_now(rec, me) : thread_cpu_ns();
}

/*
 * What the owner does inside a blocking critical section. With the on-CPU
 * clock, it also measures how long the owner stays on its CPU after
 * entering the blocking call: its records before and after the call, if
 * it left the CPU exactly once, give the switch-out time (the slice it
 * was in began at in_ns and ran ran_ns more). A lock that spins while
 * the owner runs spins through that time too.
 */
static void block_in_cs(struct cell *c, struct worker *w, const struct il_tclock_rec *rec,
			uint32_t me)
{
	struct il_tclock_rec a, b;
	int snap = rec && il_tclock_snap(rec, me, &a);
	uint64_t t0 = snap ? il_now_ns() : 0;

	if (c->cfg->block == BLK_SLEEP) {
		struct timespec ts = il_ns_to_ts(c->cfg->block_us * 1000);

		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	} else if (c->cfg->block == BLK_IO) {
		char ch = 'x';

		/* A round trip to the echo thread: the owner waits for I/O. */
		if (write(c->io_fd, &ch, 1) != 1 || read(c->io_fd, &ch, 1) != 1)
			return;
	}
	if (!snap || !il_tclock_snap(rec, me, &b))
		return;
	if (b.seq == a.seq) {
		w->entry_stayed++; /* the call never left the CPU */
	} else if (b.seq == a.seq + 2 && a.in_ns + (b.ran_ns - a.ran_ns) >= t0) {
		w->entry_hist[hist_index(a.in_ns + (b.ran_ns - a.ran_ns) - t0)]++;
		w->entry_n++;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cell *c = w->c;
	struct shared *sh = &c->sh;
	const struct config *cfg = c->cfg;
	unsigned every = cfg->cpu_every;
	uint32_t me = il_spin_tid();
	const struct il_tclock_rec *rec;
	long csw0;

	il_bench_pin(w->cpu);
	rec = tclock ? il_tclock_register(tclock, me) : NULL;
	w->rng = 0x9e3779b97f4a7c15ull ^ me; /* never 0 */
	if (c->slice)
		prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
		      PR_RSEQ_SLICE_EXT_ENABLE, 0, 0);
	pthread_barrier_wait(&c->go);
	csw0 = thread_ctxsw();
	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		int sample = every && next_random(&w->rng) % every == 0;
		uint64_t t0, t1, t2, d, cpu1 = 0, fx1 = 0, fc1 = 0, fs1 = 0, lost1 = 0;

		/*
		 * The CPU burned acquiring (spinning, futex calls) is sampled
		 * in one acquisition of N, at random (a fixed period falls in
		 * step with the blocking scenarios' every 4th section), and
		 * those stay out of the latency histogram. The clock is the
		 * thread's on-CPU clock record (il_tclock: one vDSO clock read,
		 * ~30 ns here), or without BPF CLOCK_THREAD_CPUTIME_ID, a
		 * system call (0.45 us in this VM) that makes the sampled
		 * acquisitions reach the lock late (their waits are reported
		 * beside the others'). A reading brackets lock() with the end
		 * of one clock read and the start of the next: an empty pair
		 * after the unlock, inside the outside work's time, measures
		 * that part, and lock_cpu_ns() takes it off. Of that CPU, the
		 * part inside futex calls (the record's futex_ns, which moves
		 * only inside them) is sleeping and waking; the rest, spin_ns(),
		 * is spinning.
		 */
		if (sample) {
			lost1 = rec ? il_tclock_lost(rec) : 0;
			fx1 = rec && futex_kept ? il_tclock_futex_ns(rec) : 0;
			fc1 = rec && futex_kept ? il_tclock_futex_calls(rec) : 0;
			fs1 = rec && futex_kept ? il_tclock_futex_sleeps(rec) : 0;
			cpu1 = cpu_now(rec, me);
		}
		t0 = __rdtsc();
		il_lock_lock(&sh->lock);
		t1 = __rdtsc();
		if (sample) {
			uint64_t cpu2 = cpu_now(rec, me);

			/* A record lost mid-run (0), or a switch the clock's
			 * program missed meanwhile, leaves the sample out. */
			if (cpu1 && cpu2 && (!rec || il_tclock_lost(rec) == lost1)) {
				w->cpu_ns += cpu2 - cpu1;
				w->cpu_samples++;
				w->clock_samples += rec != NULL;
				if (rec && futex_kept) {
					w->futex_ns += il_tclock_futex_ns(rec) - fx1;
					w->futex_calls += il_tclock_futex_calls(rec) - fc1;
					w->futex_sleeps += il_tclock_futex_sleeps(rec) - fs1;
					w->futex_samples++;
				}
			}
			w->wait_s_cyc += t1 - t0;
			w->wait_s_n++;
			t1 = __rdtsc(); /* the section starts after the reading */
		} else {
			w->wait_u_cyc += t1 - t0;
			w->wait_u_n++;
		}
		if (c->slice)
			slice_begin();
		if (sh->owner)
			w->violations++;
		sh->owner = me;
		busy_cyc(t1, c->cs_cyc);
		/*
		 * How long the lock was held, at least: acquired before t1,
		 * released after the section's busy part ends (t1 + cs, every
		 * section: ops x cs), and a blocking section after its block (a
		 * TSC read once the call is back: every 4th section, whose
		 * block is microseconds). No read at the unlock: a second TSC
		 * read in today's 100 ns sections moved the sampled
		 * acquisitions' waits 0.5-11x.
		 */
		if (cfg->block != BLK_NONE && (w->ops & 3) == 0) {
			block_in_cs(c, w, rec, me);
			w->block_held_cyc += __rdtsc() - t1 - c->cs_cyc;
		}
		sh->counter++;
		if (sh->owner != me)
			w->violations++;
		sh->owner = 0;
		il_lock_unlock(&sh->lock);
		if (c->slice)
			slice_end();
		t2 = __rdtsc();
		if (sample) {
			/*
			 * The empty pair, with the two TSC reads a sample has
			 * between its clock reads: busy_cyc below ends at
			 * t2 + out_cyc all the same.
			 */
			uint64_t e0 = cpu_now(rec, me), e1;

			(void)__rdtsc(); /* an asm volatile: never elided */
			(void)__rdtsc();
			e1 = cpu_now(rec, me);
			if (e0 && e1) {
				w->probe_ns += e1 - e0;
				w->probe_samples++;
			}
		}
		d = t1 - t0;
		if (!sample) {
			if (d > w->max_cyc)
				w->max_cyc = d;
			w->hist[hist_index((uint64_t)((double)d * ns_per_cyc))]++;
		}
		w->ops++;
		busy_cyc(t2, c->out_cyc);
	}
	w->ctxsw = (uint64_t)(thread_ctxsw() - csw0);
	il_tclock_unregister(tclock, rec, me);
	return NULL;
}

/* --- the hog --------------------------------------------------------- */

struct hog_ctl {
	enum hog kind;
	int cpu;
	_Atomic int stop;
	pthread_t th;
	int running;
};

/*
 * A FIFO hog runs 1 ms on, 1 ms off: long enough to preempt a lock holder
 * for a whole millisecond, and it blocks often, so RLIMIT_RTTIME (set in
 * main) never fires unless it is stuck. A CFS hog simply spins.
 */
static void *hog_main(void *arg)
{
	struct hog_ctl *h = arg;
	struct timespec off = {0, 1000000};

	il_bench_pin(h->cpu);
	if (h->kind == HOG_FIFO) {
		struct sched_param sp = {.sched_priority = 1};

		int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (e != 0)
			return (void *)(intptr_t)e;
	}
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		busy_cyc(__rdtsc(), (uint64_t)(1e6 / ns_per_cyc));
		if (h->kind == HOG_FIFO)
			nanosleep(&off, NULL);
	}
	return NULL;
}

/* Why a cell could not run as configured, kept in its result (the first
 * reason of its rounds): a row that says skipped says why. */
static void skip_cell(struct result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void skip_cell(struct result *res, const char *fmt, ...)
{
	va_list ap;

	res->skipped = 1;
	if (res->skipped_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(res->skipped_why, sizeof(res->skipped_why), fmt, ap);
	va_end(ap);
}

/* "Operation not permitted (SCHED_FIFO needs CAP_SYS_NICE or an
 * RLIMIT_RTPRIO of at least prio)", or strerror. */
static const char *fifo_refusal(int e, int prio, char *buf, size_t len)
{
	if (e == EPERM)
		snprintf(buf, len,
			 "%s (SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least %d)",
			 strerror(e), prio);
	else
		snprintf(buf, len, "%s", strerror(e));
	return buf;
}

static int hog_start(struct hog_ctl *h, enum hog kind)
{
	int e;

	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->cpu = cpus[0];
	if (kind == HOG_NONE)
		return 0;
	e = pthread_create(&h->th, NULL, hog_main, h);
	if (e != 0)
		return -e;
	h->running = 1;
	return 0;
}

/* Watchdog: a hog that does not stop within 1 s is demoted, then joined. */
static int hog_stop(struct hog_ctl *h)
{
	struct timespec dl;
	void *ret = NULL;

	if (!h->running)
		return 0;
	atomic_store(&h->stop, 1);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 1;
	if (pthread_timedjoin_np(h->th, &ret, &dl) != 0) {
		struct sched_param sp = {.sched_priority = 0};

		fprintf(stderr, "lock-bench: hog did not stop; demoting it to SCHED_OTHER\n");
		pthread_setschedparam(h->th, SCHED_OTHER, &sp);
		pthread_join(h->th, &ret);
	}
	h->running = 0;
	return ret ? -(int)(intptr_t)ret : 0;
}

/*
 * Preemptors: one SCHED_FIFO thread per CPU, 100 us on every 500 us, the
 * CPUs' phases apart, so a lock owner is often switched out with the lock
 * held by something it cannot outrank. They block 80% of the time, well
 * inside RLIMIT_RTTIME.
 */
#define PREEMPT_ON_NS	  100000ull
#define PREEMPT_PERIOD_NS 500000ull

struct preemptors {
	pthread_t th[MAX_THREADS];
	int n, cpu[MAX_THREADS];
	_Atomic int stop, failed;
};

struct preemptor_arg {
	struct preemptors *p;
	int i;
};

static void *preemptor_main(void *arg)
{
	struct preemptor_arg *a = arg;
	struct preemptors *p = a->p;
	struct sched_param sp = {.sched_priority = 2};
	struct timespec next;
	uint64_t t;

	il_bench_pin(p->cpu[a->i]);
	int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	if (e != 0) {
		atomic_store(&p->failed, e);
		return NULL;
	}
	t = il_now_ns() + (uint64_t)a->i * PREEMPT_PERIOD_NS / (uint64_t)(p->n ? p->n : 1);
	while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
		next = il_ns_to_ts(t);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		busy_cyc(__rdtsc(), (uint64_t)((double)PREEMPT_ON_NS / ns_per_cyc));
		t += PREEMPT_PERIOD_NS;
	}
	return NULL;
}

static struct preemptor_arg preempt_args[MAX_THREADS];

static int preemptors_start(struct preemptors *p)
{
	int e;

	memset(p, 0, sizeof(*p));
	p->n = ncpu;
	for (int i = 0; i < p->n; i++) {
		p->cpu[i] = cpus[i];
		preempt_args[i] = (struct preemptor_arg){p, i};
		e = pthread_create(&p->th[i], NULL, preemptor_main, &preempt_args[i]);
		if (e != 0) {
			p->n = i;
			return -e;
		}
	}
	return 0;
}

/* 0, or -errno of the first preemptor refused SCHED_FIFO. */
static int preemptors_stop(struct preemptors *p)
{
	int e;

	atomic_store(&p->stop, 1);
	for (int i = 0; i < p->n; i++)
		pthread_join(p->th[i], NULL);
	e = atomic_load(&p->failed);
	return e ? -e : 0;
}

/* The I/O a blocking owner waits for: a thread that echoes every byte. */
static void *echo_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char b;

	while (read(fd, &b, 1) == 1)
		if (write(fd, &b, 1) != 1)
			break;
	return NULL;
}

/* --- one cell: one lock, one config, one round ----------------------- */

static int nthreads_of(enum placement pl)
{
	switch (pl) {
	case PL_ONE_PER_CPU:
	case PL_ONE_CPU:
		return ncpu;
	case PL_OVER2:
		return 2 * ncpu;
	case PL_OVER4:
		return 4 * ncpu;
	case PL_OVER8:
		return 8 * ncpu;
	default:
		return ncpu;
	}
}

static int run_cell(const struct config *cfg, enum il_lock_kind kind, int slice, double secs,
		    struct result *res)
{
	int n = nthreads_of(cfg->pl), io[2] = {-1, -1};
	struct cell *c;
	struct hog_ctl hog;
	struct preemptors *pre = NULL;
	pthread_t echo;
	uint64_t t0, t1, sum = 0, h0;
	struct timespec run;
	char why[120];
	int r = 0, e;

	if (n > MAX_THREADS)
		n = MAX_THREADS;
	c = aligned_alloc(64, sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->w = aligned_alloc(64, sizeof(struct worker) * (size_t)n);
	if (!c->w) {
		free(c);
		return -ENOMEM;
	}
	memset(c->w, 0, sizeof(struct worker) * (size_t)n);
	c->nthreads = n;
	c->cfg = cfg;
	c->slice = slice;
	c->io_fd = -1;
	c->cs_cyc = (uint64_t)((double)cfg->cs_ns / ns_per_cyc);
	c->out_cyc = (uint64_t)((double)cfg->outside_ns / ns_per_cyc);
	il_lock_init(&c->sh.lock, kind);
	pthread_barrier_init(&c->go, NULL, (unsigned)n + 1);

	if (cfg->block == BLK_IO) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, io) < 0 ||
		    pthread_create(&echo, NULL, echo_main, (void *)(intptr_t)io[1]) != 0) {
			fprintf(stderr, "lock-bench: cannot start the echo thread\n");
			exit(1);
		}
		c->io_fd = io[0];
	}
	if (cfg->preempt) {
		pre = calloc(1, sizeof(*pre));
		r = pre ? preemptors_start(pre) : -ENOMEM;
		if (r < 0)
			skip_cell(res, "cannot start the preemptor threads: %s", strerror(-r));
	}
	if (r == 0) {
		r = hog_start(&hog, cfg->hog);
		if (r < 0)
			skip_cell(res, "cannot start the %s hog thread: %s", hog_names[cfg->hog],
				  strerror(-r));
	} else {
		memset(&hog, 0, sizeof(hog));
	}
	for (int i = 0; r == 0 && i < n; i++) {
		c->w[i].c = c;
		c->w[i].cpu = cfg->pl == PL_ONE_CPU ? cpus[0] : cpus[i % ncpu];
		if (pthread_create(&c->w[i].th, NULL, worker_main, &c->w[i]) != 0) {
			fprintf(stderr, "lock-bench: cannot create %d threads\n", n);
			exit(1);
		}
	}
	if (r == 0) {
		h0 = il_spin_handoffs();
		pthread_barrier_wait(&c->go);
		t0 = il_now_ns();
		run = il_ns_to_ts((uint64_t)(secs * 1e9));
		while (nanosleep(&run, &run) < 0 && errno == EINTR)
			;
		atomic_store(&c->stop, 1);
		t1 = il_now_ns();
		for (int i = 0; i < n; i++)
			pthread_join(c->w[i].th, NULL);
		res->elapsed_s += (double)(t1 - t0) / 1e9;
		res->handoffs += il_spin_handoffs() - h0;
		for (int i = 0; i < n; i++) {
			struct worker *w = &c->w[i];
			uint64_t max_ns = (uint64_t)((double)w->max_cyc * ns_per_cyc);

			sum += w->ops;
			res->ops += w->ops;
			res->ctxsw += w->ctxsw;
			res->violations += w->violations;
			res->cpu_ns += w->cpu_ns;
			res->probe_ns += w->probe_ns;
			res->cpu_samples += w->cpu_samples;
			res->futex_ns += w->futex_ns;
			res->futex_calls += w->futex_calls;
			res->futex_sleeps += w->futex_sleeps;
			res->futex_samples += w->futex_samples;
			res->probe_samples += w->probe_samples;
			res->clock_samples += w->clock_samples;
			res->wait_s_cyc += w->wait_s_cyc;
			res->wait_s_n += w->wait_s_n;
			res->wait_u_cyc += w->wait_u_cyc;
			res->wait_u_n += w->wait_u_n;
			res->held_ns +=
			    ((double)w->ops * (double)c->cs_cyc + (double)w->block_held_cyc) *
			    ns_per_cyc;
			if (max_ns > res->max_ns)
				res->max_ns = max_ns;
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				res->hist[b] += w->hist[b];
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				res->entry_hist[b] += w->entry_hist[b];
			res->entry_n += w->entry_n;
			res->entry_stayed += w->entry_stayed;
		}
		/* Fairness over the whole run: per-thread totals of this round. */
		for (int i = 0; i < n; i++) {
			if (!res->min_ops || c->w[i].ops < res->min_ops)
				res->min_ops = c->w[i].ops;
			if (c->w[i].ops > res->max_ops)
				res->max_ops = c->w[i].ops;
		}
		if (sum != c->sh.counter)
			res->violations++;
	}
	if ((e = hog_stop(&hog)) < 0) {
		skip_cell(res, "the %s hog was refused SCHED_FIFO priority 1: %s",
			  hog_names[cfg->hog], fifo_refusal(-e, 1, why, sizeof(why)));
		r = e;
	}
	if (pre && (e = preemptors_stop(pre)) < 0) {
		skip_cell(res, "the preemptors were refused SCHED_FIFO priority 2: %s",
			  fifo_refusal(-e, 2, why, sizeof(why)));
		r = e;
	}
	free(pre);
	if (io[0] >= 0) {
		/* End of file ends the echo thread. */
		shutdown(io[0], SHUT_RDWR);
		pthread_join(echo, NULL);
		close(io[0]);
		close(io[1]);
	}
	pthread_barrier_destroy(&c->go);
	il_lock_destroy(&c->sh.lock);
	free(c->w);
	free(c);
	return r;
}

/* --- options --------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: lock-bench [options]\n"
	    "  --cs-ns NS            critical section length, ns (default 100)\n"
	    "  --help                show this help\n"
	    "  --hogs LIST           none,cfs,fifo: CPU hog beside the threads (default none;\n"
	    "                        fifo runs 1 ms on/1 ms off under RLIMIT_RTTIME)\n"
	    "  --json FILE           write results as JSON to FILE\n"
	    "  --locks LIST          pthread,adaptive-np,tas,il-none,il-bpf (default all)\n"
	    "  --outside-ns NS       work between critical sections, ns (default 100)\n"
	    "  --placements LIST     one-per-cpu,one-cpu,over4,over8 (default all)\n"
	    "  --quick               short run (< 1 min on 2 CPUs): 0.8 s per lock and config,\n"
	    "                        all placements, plus one-per-cpu beside a cfs and a fifo hog\n"
	    "  --rounds N            interleaving rounds per config (default 3)\n"
	    "  --scenarios LIST      today (the placements and hogs above, --cs-ns/--outside-ns),\n"
	    "                        owner-off (oversubscription with 1/10/50 us sections, a\n"
	    "                        preempted owner, an owner that sleeps or waits for I/O)\n"
	    "                        (default today,owner-off)\n"
	    "  --seconds S           run time per lock and config over all rounds (default 3)\n"
	    "  --spin-budget-ns NS   il_spin spin budget (default: il_spin's, %u)\n"
	    "  --switch-rounds N     rounds of the BPF switch cost, %d..%d (default %d; more\n"
	    "                        narrow its interval, about 1 s per 3 rounds and hook)\n"
	    "  --version             print the version\n",
	    IL_SPIN_DEFAULT_BUDGET_NS, IL_SWITCH_ROUNDS_MIN, IL_SWITCH_ROUNDS_MAX,
	    IL_SWITCH_ROUNDS);
}

/*
 * Parses "a,b,c" against names[] (no empty item); returns a bit mask,
 * -EINVAL, or -EEXIST for a name given twice ("none,none" ran one arm
 * where two were asked for, silently).
 */
static int parse_list(const char *s, const char *const *names, int n)
{
	char buf[256], *save = NULL, *tok;
	int mask = 0, k;

	if (strlen(s) >= sizeof(buf) || il_parse_list_has_empty(s))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < n && strcmp(tok, names[k]) != 0; k++)
			;
		if (k == n)
			return -EINVAL;
		if (mask & (1 << k))
			return -EEXIST;
		mask |= 1 << k;
	}
	return mask;
}

static void bad_arg(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "lock-bench: invalid %s '%s': expected %s\n", opt, val, want);
	exit(2);
}

/* parse_list, or exit with one line saying what is wrong with the list. */
static unsigned list_arg(const char *opt, const char *val, const char *const *names, int n,
			 const char *want)
{
	int m = parse_list(val, names, n);

	if (m == -EEXIST) {
		fprintf(stderr, "lock-bench: invalid %s '%s': a name given twice\n", opt, val);
		exit(2);
	}
	if (m < 0)
		bad_arg(opt, val, want);
	return (unsigned)m;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
	    {"cs-ns", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {"hogs", required_argument, NULL, 'H'},
	    {"json", required_argument, NULL, 'j'},
	    {"locks", required_argument, NULL, 'l'},
	    {"outside-ns", required_argument, NULL, 'o'},
	    {"placements", required_argument, NULL, 'p'},
	    {"quick", no_argument, NULL, 'q'},
	    {"rounds", required_argument, NULL, 'r'},
	    {"scenarios", required_argument, NULL, 'S'},
	    {"seconds", required_argument, NULL, 's'},
	    {"spin-budget-ns", required_argument, NULL, 'b'},
	    {"switch-rounds", required_argument, NULL, 'w'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	static const char *const lock_names[] = {"pthread", "adaptive-np", "tas", "il-none",
						 "il-bpf"};
	uint64_t v;
	int c, m, help = 0, version = 0;

	static const char *const families[] = {"today", "owner-off"};

	*o = (struct opts){.cs_ns = 100,
			   .outside_ns = 100,
			   .seconds = 3,
			   .rounds = 3,
			   .switch_rounds = IL_SWITCH_ROUNDS,
			   .locks_mask = 0x1f,
			   .pl_mask = 0xf,
			   .hog_mask = 1,
			   .today = 1,
			   .owner_off = 1};
	char bad[300];

	opterr = 0; /* one line of our own, not getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (il_parse_u64(optarg, 0, 100000000, &o->cs_ns) < 0)
				bad_arg("--cs-ns", optarg, "0..100000000 ns");
			break;
		case 'o':
			if (il_parse_u64(optarg, 0, 100000000, &o->outside_ns) < 0)
				bad_arg("--outside-ns", optarg, "0..100000000 ns");
			break;
		case 'b':
			if (il_parse_u64(optarg, 1, 1000000000, &o->spin_budget_ns) < 0)
				bad_arg("--spin-budget-ns", optarg, "1..1000000000 ns");
			break;
		case 'r':
			if (il_parse_u64(optarg, 1, MAX_ROUNDS, &v) < 0)
				bad_arg("--rounds", optarg, "1..100");
			o->rounds = (unsigned)v;
			break;
		case 'w':
			if (il_parse_u64(optarg, IL_SWITCH_ROUNDS_MIN, IL_SWITCH_ROUNDS_MAX, &v) <
			    0) {
				snprintf(bad, sizeof(bad), "%d..%d", IL_SWITCH_ROUNDS_MIN,
					 IL_SWITCH_ROUNDS_MAX);
				bad_arg("--switch-rounds", optarg, bad);
			}
			o->switch_rounds = (int)v;
			break;
		case 's':
			if (il_parse_double(optarg, 0.01, 3600, &o->seconds) < 0)
				bad_arg("--seconds", optarg, "0.01..3600 seconds");
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'q':
			o->quick = 1;
			break;
		case 'l':
			o->locks_mask =
			    list_arg("--locks", optarg, lock_names, 5,
				     "a list of pthread,adaptive-np,tas,il-none,il-bpf");
			break;
		case 'S':
			m = (int)list_arg("--scenarios", optarg, families, 2,
					  "a list of today,owner-off");
			o->today = m & 1;
			o->owner_off = (m >> 1) & 1;
			break;
		case 'p':
			o->pl_mask =
			    list_arg("--placements", optarg, placement_names, PL_TODAY_COUNT,
				     "a list of one-per-cpu,one-cpu,over4,over8");
			break;
		case 'H':
			o->hog_mask = list_arg("--hogs", optarg, hog_names, HOG_COUNT,
					       "a list of none,cfs,fifo");
			break;
		case 'h':
			help = 1;
			break;
		case 'V':
			version = 1;
			break;
		case ':':
			fprintf(stderr, "lock-bench: %s needs a value; see --help\n",
				argv[optind - 1]);
			exit(2);
		default:
			fprintf(stderr, "lock-bench: %s; see --help\n",
				il_parse_option_error(argv, lo, bad, sizeof(bad)));
			exit(2);
		}
	}
	/* Before --help and --version act: '--version x' printed the version. */
	if (optind < argc) {
		fprintf(stderr, "lock-bench: unexpected argument '%s'; see --help\n", argv[optind]);
		exit(2);
	}
	if (help) {
		usage(stdout);
		exit(0);
	}
	if (version) {
		printf("lock-bench %s\n", IL_VERSION);
		exit(0);
	}
	if (il_bench_out_check("lock-bench", o->json) < 0)
		exit(2);
}

static void add_config(struct config *cfg, int *n, struct config c)
{
	if (*n < MAX_CONFIGS)
		cfg[(*n)++] = c;
}

/* Today's scenario: a placement, maybe beside a hog, the --cs-ns sections. */
static struct config today_config(const struct opts *o, enum placement pl, enum hog hog)
{
	struct config c = {
	    .pl = pl, .hog = hog, .cs_ns = o->cs_ns, .outside_ns = o->outside_ns, .cpu_every = 64};

	snprintf(c.name, sizeof(c.name), "%s%s%s", placement_names[pl], hog ? "+hog-" : "",
		 hog ? hog_names[hog] : "");
	return c;
}

static int build_configs(const struct opts *o, struct config *cfg)
{
	int n = 0;

	if (o->today) {
		for (int h = 0; h < HOG_COUNT; h++)
			for (int p = 0; p < PL_TODAY_COUNT; p++)
				if ((o->hog_mask >> h & 1) && (o->pl_mask >> p & 1))
					add_config(cfg, &n,
						   today_config(o, (enum placement)p, (enum hog)h));
		if (o->quick) {
			/* The hog rows where on-CPU awareness matters most: a preempted holder. */
			if (!(o->hog_mask >> HOG_CFS & 1) || !(o->pl_mask & 1))
				add_config(cfg, &n, today_config(o, PL_ONE_PER_CPU, HOG_CFS));
			if (!(o->hog_mask >> HOG_FIFO & 1) || !(o->pl_mask & 1))
				add_config(cfg, &n, today_config(o, PL_ONE_PER_CPU, HOG_FIFO));
		}
	}
	if (o->owner_off) {
		/*
		 * The owner is often off its CPU while it holds the lock: this
		 * is where asking whether it runs should win. Sections long
		 * enough to be preempted in (threads > CPUs), a higher-priority
		 * thread on every CPU, an owner that sleeps or waits for I/O.
		 */
		static const uint64_t cs_us[] = {1, 10, 50};

		for (size_t i = 0; i < sizeof(cs_us) / sizeof(cs_us[0]); i++) {
			struct config c = {.pl = PL_OVER4,
					   .cs_ns = cs_us[i] * 1000,
					   .outside_ns = cs_us[i] * 1000,
					   .owner_off = 1,
					   .cpu_every = 8};

			snprintf(c.name, sizeof(c.name), "oversub-cs%llu",
				 (unsigned long long)cs_us[i]);
			add_config(cfg, &n, c);
		}
		add_config(cfg, &n,
			   (struct config){.name = "preempted-owner",
					   .pl = PL_ONE_PER_CPU,
					   .cs_ns = 5000,
					   .outside_ns = 5000,
					   .preempt = 1,
					   .owner_off = 1,
					   .cpu_every = 8});
		add_config(cfg, &n,
			   (struct config){.name = "blocking-sleep",
					   .pl = PL_OVER2,
					   .cs_ns = 2000,
					   .outside_ns = 2000,
					   .block = BLK_SLEEP,
					   .block_us = 50,
					   .owner_off = 1,
					   .cpu_every = 8});
		add_config(cfg, &n,
			   (struct config){.name = "blocking-io",
					   .pl = PL_OVER2,
					   .cs_ns = 2000,
					   .outside_ns = 2000,
					   .block = BLK_IO,
					   .owner_off = 1,
					   .cpu_every = 8});
	}
	return n;
}

/* --- output ---------------------------------------------------------- */

static const char *arm_name(int arm)
{
	return arm == ARM_SLICE ? "il-bpf+slice" : il_lock_kind_name((enum il_lock_kind)arm);
}

/* Which clock the result's spin samples were read with. */
static const char *spin_clock_name(const struct result *r)
{
	if (!r->cpu_samples)
		return "none";
	if (r->clock_samples == r->cpu_samples)
		return "on-cpu clock";
	return r->clock_samples ? "mixed" : "thread cpu clock";
}

/*
 * Mean wall time in lock() of the sampled acquisitions over that of the
 * others: near 1 when sampling does not change what it samples. NAN
 * when either kind is missing.
 */
static double sampled_wait_ratio(const struct result *r)
{
	if (!r->wait_s_n || !r->wait_u_n || !r->wait_u_cyc)
		return NAN;
	return ((double)r->wait_s_cyc / (double)r->wait_s_n) /
	       ((double)r->wait_u_cyc / (double)r->wait_u_n);
}

/* Sampling changed the acquisitions it sampled (see sampled_wait_ratio). */
static int sample_skewed(const struct result *r)
{
	double v = sampled_wait_ratio(r);

	return !isnan(v) && (v < 2.0 / 3.0 || v > 1.5);
}

/* A ratio for the table, or "-" when the lock it is against did not run. */
static const char *ratio_text(char buf[16], double ops_s, double against)
{
	if (against > 0)
		snprintf(buf, 16, "%.2f", ops_s / against);
	else
		snprintf(buf, 16, "-");
	return buf;
}

static cJSON *result_json(const struct config *cfg, int arm, const struct result *r, double base,
			  double adaptive)
{
	cJSON *j = cJSON_CreateObject();
	double ops_s = ops_per_s(r);

	cJSON_AddStringToObject(j, "scenario", cfg->name);
	cJSON_AddStringToObject(j, "lock", arm_name(arm));
	cJSON_AddNumberToObject(j, "threads", nthreads_of(cfg->pl));
	cJSON_AddStringToObject(j, "placement", placement_names[cfg->pl]);
	cJSON_AddNumberToObject(j, "cs_ns", (double)cfg->cs_ns);
	cJSON_AddNumberToObject(j, "outside_ns", (double)cfg->outside_ns);
	cJSON_AddStringToObject(j, "hog", hog_names[cfg->hog]);
	cJSON_AddBoolToObject(j, "preemptor_per_cpu", cfg->preempt);
	cJSON_AddStringToObject(j, "owner_blocks",
				cfg->block == BLK_SLEEP ? "sleep"
				: cfg->block == BLK_IO	? "io"
							: "no");
	cJSON_AddBoolToObject(j, "owner_often_off_cpu", cfg->owner_off);
	if (arm == ARM_SLICE && slice_why[0]) {
		/* Never a number where the kernel could not do it: the fields
		 * every entry has are null, and why is said. */
		cJSON_AddBoolToObject(j, "available", 0);
		cJSON_AddStringToObject(j, "not_available", slice_why);
		cJSON_AddNullToObject(j, "ops_per_s");
		cJSON_AddNullToObject(j, "ratio_vs_adaptive");
		cJSON_AddNullToObject(j, "spin_ns_per_acquire");
		return j;
	}
	if (r->skipped) {
		cJSON_AddBoolToObject(j, "skipped", 1);
		cJSON_AddStringToObject(j, "skipped_why",
					r->skipped_why[0] ? r->skipped_why : "no reason kept");
		cJSON_AddNullToObject(j, "ops_per_s");
		cJSON_AddNullToObject(j, "ratio_vs_adaptive");
		cJSON_AddNullToObject(j, "spin_ns_per_acquire");
		return j;
	}
	cJSON_AddNumberToObject(j, "ops_per_s", round(ops_s));
	add_num_or_null(j, "ratio_vs_pthread", base > 0 ? round(ops_s / base * 1000) / 1000 : NAN);
	add_num_or_null(j, "ratio_vs_adaptive",
			adaptive > 0 ? round(ops_s / adaptive * 1000) / 1000 : NAN);
	add_num_or_null(j, "spin_ns_per_acquire", round(spin_ns(r)));
	add_num_or_null(j, "lock_cpu_ns_per_acquire", round(lock_cpu_ns(r)));
	add_num_or_null(j, "futex_cpu_ns_per_acquire", round(futex_cpu_ns(r)));
	cJSON_AddNumberToObject(j, "spin_samples", (double)r->cpu_samples);
	add_num_or_null(j, "spin_probe_ns", round(probe_ns(r)));
	cJSON_AddStringToObject(j, "spin_clock", spin_clock_name(r));
	add_num_or_null(j, "sampled_wait_ratio", round(sampled_wait_ratio(r) * 1000) / 1000);
	cJSON_AddNumberToObject(j, "acquire_p50_ns", round(hist_pct(r->hist, 0.50)));
	cJSON_AddNumberToObject(j, "acquire_p99_ns", round(hist_pct(r->hist, 0.99)));
	cJSON_AddNumberToObject(j, "acquire_max_ns", (double)r->max_ns);
	cJSON_AddNumberToObject(
	    j, "fairness",
	    r->max_ops ? round((double)r->min_ops / (double)r->max_ops * 1000) / 1000 : 0);
	cJSON_AddNumberToObject(j, "min_ops_per_thread", (double)r->min_ops);
	cJSON_AddNumberToObject(j, "max_ops_per_thread", (double)r->max_ops);
	if (arm == IL_LOCK_IL_NONE || arm == IL_LOCK_IL_BPF || arm == ARM_SLICE)
		cJSON_AddNumberToObject(j, "handoffs", (double)r->handoffs);
	else
		cJSON_AddNullToObject(j, "handoffs");
	cJSON_AddNumberToObject(j, "ctx_switches", (double)r->ctxsw);
	add_num_or_null(j, "lock_held_share", round(held_share(r) * 1000) / 1000);
	add_num_or_null(j, "ops_ceiling_per_s", round(ops_ceiling(r)));
	cJSON_AddBoolToObject(j, "exclusion_ok", r->violations == 0);
	if (r->entry_n) {
		cJSON *e = cJSON_AddObjectToObject(j, "owner_block_entry_ns");

		cJSON_AddNumberToObject(e, "p50", round(hist_pct(r->entry_hist, 0.50)));
		cJSON_AddNumberToObject(e, "p90", round(hist_pct(r->entry_hist, 0.90)));
		cJSON_AddNumberToObject(e, "samples", (double)r->entry_n);
		cJSON_AddNumberToObject(e, "returned_on_cpu", (double)r->entry_stayed);
	} else {
		cJSON_AddNullToObject(j, "owner_block_entry_ns");
	}
	return j;
}

/* Widens [*lo, *hi] to hold v (NAN is left out). */
static void range_add(double *lo, double *hi, double v)
{
	if (isnan(v))
		return;
	*lo = v < *lo ? v : *lo;
	*hi = v > *hi ? v : *hi;
}

/*
 * pthread never spins: what spin_ns reads for it is what the split leaves
 * over (interrupts, the lock word's cache misses, a sleeping call's way
 * out beyond the median one measured). Printed so that no spin figure is
 * read below it.
 */
static void print_spin_floor(int ncfg, struct result res[][NARMS])
{
	double lo = INFINITY, hi = -INFINITY;

	for (int c = 0; c < ncfg; c++)
		if (!res[c][IL_LOCK_PTHREAD].skipped)
			range_add(&lo, &hi, spin_ns(&res[c][IL_LOCK_PTHREAD]));
	if (lo <= hi)
		printf("# spin_ns floor: pthread, which never spins, reads %.0f-%.0f ns (what the "
		       "futex split leaves over: interrupts, the lock word's cache misses)\n",
		       lo, hi);
}

/*
 * For each scenario whose owner blocks: how long owners stayed on their
 * CPU after entering the blocking call, over every lock of the scenario
 * (the kernel's path into sleep, not the lock's). Says why when the
 * on-CPU clock could not run.
 */
static void print_block_entry(const struct config *cfg, int ncfg, struct result res[][NARMS])
{
	for (int c = 0; c < ncfg; c++) {
		uint64_t h[HIST_BUCKETS] = {0}, n = 0, stayed = 0;

		if (cfg[c].block == BLK_NONE)
			continue;
		if (tclock_why[0]) {
			printf("# %s: an owner's time on its CPU inside its blocking call: not "
			       "measured "
			       "(the on-CPU clock could not run)\n",
			       cfg[c].name);
			continue;
		}
		for (int k = 0; k < NARMS; k++) {
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				h[b] += res[c][k].entry_hist[b];
			n += res[c][k].entry_n;
			stayed += res[c][k].entry_stayed;
		}
		if (!n)
			continue;
		printf("# %s: from entering its blocking call to leaving its CPU an owner took p50 "
		       "%.1f us, p90 %.1f us (%llu calls; %llu returned without leaving it): an "
		       "owner-aware spinner sees it running all that time\n",
		       cfg[c].name, hist_pct(h, 0.5) / 1e3, hist_pct(h, 0.9) / 1e3,
		       (unsigned long long)n, (unsigned long long)stayed);
	}
}

/*
 * How spin_ns was measured, and whether sampling changed the acquisitions
 * it sampled (their waits against the others', over every lock cell).
 */
static void print_spin_clock(struct result res[][NARMS], int ncfg)
{
	double lo = INFINITY, hi = -INFINITY;

	for (int c = 0; c < ncfg; c++)
		for (int k = 0; k < NARMS; k++)
			if (!res[c][k].skipped)
				range_add(&lo, &hi, sampled_wait_ratio(&res[c][k]));
	if (tclock_why[0])
		printf(
		    "# cpu_ns: CPU in lock() of sampled acquisitions, by CLOCK_THREAD_CPUTIME_ID "
		    "(a system call right before lock(); the on-CPU clock could not run: %s)",
		    tclock_why);
	else
		printf("# cpu_ns: CPU in lock() of sampled acquisitions, by each thread's on-CPU "
		       "clock (a sched_switch program, attached for every lock alike)");
	if (futex_kept)
		printf("; spin_ns: of it, what was not in futex calls (programs at their entry "
		       "and exit add up the clock between them, plus the system call's way in "
		       "and out, measured: %.0f ns a call, %.0f ns one that slept): the CPU "
		       "burned spinning",
		       futex_outside_ns, futex_sleep_outside_ns);
	else
		printf("; spin_ns: unknown (nan), the futex calls' part cannot be told apart: %s",
		       futex_why);
	if (lo <= hi)
		printf("; the sampled acquisitions waited %.2f-%.2fx as long as the others\n", lo,
		       hi);
	else
		printf("\n");
}

static char bpf_source[16] = "not run", bpf_reason[200], bpf_program[16] = "none";
/* Why an il-bpf round ran without the on-CPU source (the first such). */
char unaware_why[200];

/*
 * Opens the il-bpf source and remembers what it was for the report: 0,
 * or -1 when il-bpf runs without it (source none) this time.
 */
static int bpf_source_open(const struct il_spin_opts *so)
{
	il_spin_init(IL_SPIN_SOURCE_AUTO, so);
	snprintf(bpf_source, sizeof(bpf_source), "%s", il_spin_source_name(il_spin_source_get()));
	snprintf(bpf_reason, sizeof(bpf_reason), "%s", il_spin_source_reason());
	snprintf(bpf_program, sizeof(bpf_program), "%s", il_spin_source_program());
	if (il_spin_source_get() == IL_SPIN_SOURCE_BPF)
		return 0;
	if (!unaware_why[0])
		snprintf(unaware_why, sizeof(unaware_why), "%s",
			 bpf_reason[0] ? bpf_reason : "source none");
	return -1;
}

/* Ops/s of each lock in each round: the rounds run the locks of a config
 * back to back, so a round's ratio compares like with like. */
double round_ops[MAX_CONFIGS][NARMS][MAX_ROUNDS];
/* Each round's spin_ns per cell: adaptive-np's alone moves 3x from run to run here. */
double round_spin[MAX_CONFIGS][NARMS][MAX_ROUNDS];

int main(int argc, char **argv)
{
	static struct result res[MAX_CONFIGS][NARMS], before;
	uint64_t ops0;
	double el0;
	struct config cfg[MAX_CONFIGS];
	struct il_spin_opts so = {0};
	struct opts o;
	struct rlimit rt = {200000, 500000}; /* us of RT CPU without blocking */
	struct il_switch_cost sw, sw_raw, sw_tp;
	double rtt;
	int ncfg, progress = isatty(2), cells = 0, total_cells, have_slice, met = 0, checked = 0;
	int agreed = 0, any_skewed = 0, skewed;
	struct timespec start_wall;
	struct utsname un;
	char *cmdline;
	cJSON *root, *arr;

	il_bench_stdout_checked("lock-bench");
	parse_opts(argc, argv, &o);
	if (il_env_switch_check("lock-bench", "IL_BPF_DEBUG") < 0)
		return 2;
	if (o.quick) {
		o.seconds = 0.8;
		o.rounds = 2;
	}
	clock_gettime(CLOCK_REALTIME, &start_wall);
	uname(&un);
	cmdline = il_cmdline_join(argv[0], argc - 1, argv + 1);

	ncpu = il_bench_cpus(cpus, MAX_THREADS);
	/* Safety net for the FIFO hog: the kernel kills an RT thread that never blocks. */
	setrlimit(RLIMIT_RTTIME, &rt);
	calibrate_tsc();
	ncfg = build_configs(&o, cfg);
	have_slice = slice_available();

	if (progress)
		fprintf(stderr, "lock-bench: measuring context switch cost...\n");
	sw = il_switch_cost_measure(IL_ONCPU_PROG_AUTO, cpus[0], o.switch_rounds);
	sw_raw = il_switch_cost_measure(IL_ONCPU_PROG_RAW_TP, cpus[0], o.switch_rounds);
	sw_tp = il_switch_cost_measure(IL_ONCPU_PROG_TRACEPOINT, cpus[0], o.switch_rounds);
	rtt = il_futex_wake_rtt_ns(cpus[ncpu > 1 ? 1 : 0]);
	/* After the switch costs: they measure il_spin's program alone. */
	tclock = il_tclock_open(tclock_why, sizeof(tclock_why));
	if (tclock) {
		futex_outside_ns = il_tclock_futex_outside_ns(tclock, futex_why, sizeof(futex_why));
		if (!isnan(futex_outside_ns))
			futex_sleep_outside_ns =
			    il_tclock_futex_sleep_outside_ns(tclock, futex_why, sizeof(futex_why));
	} else {
		snprintf(futex_why, sizeof(futex_why), "%s", tclock_why);
	}
	futex_kept = !isnan(futex_outside_ns) && !isnan(futex_sleep_outside_ns);

	so.spin_budget_ns = o.spin_budget_ns;
	if (o.spin_budget_ns)
		il_spin_budget_set_ns(o.spin_budget_ns);

	total_cells = ncfg * (int)o.rounds *
		      (__builtin_popcount(o.locks_mask) +
		       ((o.locks_mask >> IL_LOCK_IL_BPF & 1) && have_slice));
	for (int c = 0; c < ncfg; c++)
		for (unsigned r = 0; r < o.rounds; r++)
			for (int k = 0; k < NARMS; k++) {
				int lock = k == ARM_SLICE ? IL_LOCK_IL_BPF : k;

				if (!(o.locks_mask >> lock & 1) || res[c][k].skipped)
					continue;
				if (k == ARM_SLICE && !have_slice)
					continue;
				if (progress)
					fprintf(stderr, "\rlock-bench: %d/%d", ++cells,
						total_cells);
				/*
				 * The program runs on every context switch of the
				 * machine, so it is attached only while il-bpf runs:
				 * the other locks must not pay for it.
				 */
				if (lock == IL_LOCK_IL_BPF && bpf_source_open(&so) < 0)
					res[c][k].unaware_rounds++;
				ops0 = res[c][k].ops;
				el0 = res[c][k].elapsed_s;
				before = res[c][k];
				run_cell(&cfg[c], (enum il_lock_kind)lock, k == ARM_SLICE,
					 o.seconds / o.rounds, &res[c][k]);
				round_spin[c][k][r] = spin_ns_between(&res[c][k], &before);
				round_ops[c][k][r] = res[c][k].elapsed_s > el0
							 ? (double)(res[c][k].ops - ops0) /
							       (res[c][k].elapsed_s - el0)
							 : 0;
				if (lock == IL_LOCK_IL_BPF)
					il_spin_close();
			}
	if (progress)
		fprintf(stderr, "\n");
	il_tclock_close(tclock);

	printf("# lock-bench %s, kernel %s, %d CPUs, today's sections cs %llu ns, outside %llu ns, "
	       "%.2f s x %u rounds per cell\n",
	       IL_VERSION, un.release, ncpu, (unsigned long long)o.cs_ns,
	       (unsigned long long)o.outside_ns, o.seconds, o.rounds);
	printf(
	    "# il-bpf source: %s (%s)%s%s%s; spin budget %llu ns; futex wake round trip %.0f ns\n",
	    bpf_source, bpf_program, bpf_reason[0] ? " (" : "", bpf_reason,
	    bpf_reason[0] ? ")" : "", (unsigned long long)il_spin_budget_get_ns(), rtt);
	print_spin_clock(res, ncfg);
	if (isnan(sw.cost_ns)) {
		printf("# bpf switch cost: not measured (%s)\n", sw.why);
	} else {
		char fl[48], raw[48], rawfl[48], tp[48], tpfl[48];

		printf(
		    "# bpf switch cost: %+.0f ns per context switch (base %.0f ns per switch), the "
		    "program il_spin loads (%s); an empty %s program there %s; raw tracepoint %s "
		    "(empty %s), classic tracepoint %s (empty %s); medians of %d rounds\n",
		    sw.cost_ns, sw.base_ns, sw.program, sw.program,
		    il_switch_ns_or_why(fl, sw.floor_ns), il_switch_ns_or_why(raw, sw_raw.cost_ns),
		    il_switch_ns_or_why(rawfl, sw_raw.floor_ns),
		    il_switch_ns_or_why(tp, sw_tp.cost_ns),
		    il_switch_ns_or_why(tpfl, sw_tp.floor_ns), sw.rounds);
		/* The target, judged by the median's interval (met or not
		 * only when the whole interval says so), and against what no
		 * program at the hook can beat. */
		printf("# bpf switch cost target <= %d ns: %s (95%% interval of the median %+.0f "
		       "to %+.0f ns)",
		       IL_SWITCH_TARGET_NS, il_switch_cost_verdict(&sw), sw.cost_lo_ns,
		       sw.cost_hi_ns);
		if (sw.floor_lo_ns > IL_SWITCH_TARGET_NS)
			printf("; below this machine's floor: an empty %s program at sched_switch "
			       "adds %+.0f ns (%+.0f to %+.0f)",
			       sw.program, sw.floor_ns, sw.floor_lo_ns, sw.floor_hi_ns);
		printf("; the program's own work %+.0f ns (%+.0f to %+.0f)\n", sw.own_ns,
		       sw.own_lo_ns, sw.own_hi_ns);
	}
	printf("# il-bpf+slice (owner asks for an rseq time-slice extension): %s\n",
	       have_slice ? "measured" : slice_why);
	printf("%-18s %4s %-12s %11s %6s %6s %8s %7s %8s %9s %5s %9s\n", "#scenario", "thr", "lock",
	       "ops/s", "x_pth", "x_adap", "spin_ns", "cpu_ns", "p50_ns", "p99_ns", "fair",
	       "ctxsw");

	root = il_header_new(3, cmdline, &start_wall);
	cJSON_AddNumberToObject(root, "cpus", ncpu);
	cJSON_AddStringToObject(root, "il_bpf_source", bpf_source);
	cJSON_AddStringToObject(root, "il_bpf_program", bpf_program);
	cJSON_AddStringToObject(root, "il_bpf_source_reason", bpf_reason);
	cJSON_AddNumberToObject(root, "spin_budget_ns", (double)il_spin_budget_get_ns());
	cJSON_AddNumberToObject(root, "futex_wake_rtt_ns", round(rtt));
	if (isnan(sw.cost_ns)) {
		cJSON_AddNullToObject(root, "bpf_switch_cost_ns");
		cJSON_AddStringToObject(root, "bpf_switch_cost_note", sw.why);
	} else {
		cJSON_AddNumberToObject(root, "bpf_switch_cost_ns", round(sw.cost_ns));
		cJSON_AddNumberToObject(root, "switch_base_ns", round(sw.base_ns));
		cJSON_AddStringToObject(root, "bpf_switch_cost_program", sw.program);
	}
	/* Each an empty program at the same hook: the floor under the cost. */
	add_num_or_null(root, "bpf_switch_cost_lo_ns", round(sw.cost_lo_ns));
	add_num_or_null(root, "bpf_switch_cost_hi_ns", round(sw.cost_hi_ns));
	if (!isnan(sw.cost_ns))
		cJSON_AddStringToObject(root, "bpf_switch_verdict", il_switch_cost_verdict(&sw));
	add_num_or_null(root, "bpf_switch_floor_ns", round(sw.floor_ns));
	add_num_or_null(root, "bpf_switch_floor_lo_ns", round(sw.floor_lo_ns));
	add_num_or_null(root, "bpf_switch_floor_hi_ns", round(sw.floor_hi_ns));
	add_num_or_null(root, "bpf_switch_own_ns", round(sw.own_ns));
	add_num_or_null(root, "bpf_switch_own_lo_ns", round(sw.own_lo_ns));
	add_num_or_null(root, "bpf_switch_own_hi_ns", round(sw.own_hi_ns));
	add_num_or_null(root, "bpf_switch_cost_raw_tp_ns", round(sw_raw.cost_ns));
	add_num_or_null(root, "bpf_switch_floor_raw_tp_ns", round(sw_raw.floor_ns));
	add_num_or_null(root, "bpf_switch_cost_tracepoint_ns", round(sw_tp.cost_ns));
	add_num_or_null(root, "bpf_switch_floor_tracepoint_ns", round(sw_tp.floor_ns));
	cJSON_AddNumberToObject(root, "bpf_switch_target_ns", IL_SWITCH_TARGET_NS);
	cJSON_AddNumberToObject(root, "bpf_switch_rounds", sw.rounds);
	cJSON_AddStringToObject(root, "slice_extension", have_slice ? "available" : slice_why);
	cJSON_AddNumberToObject(root, "handoffs", (double)il_spin_handoffs());
	cJSON_AddStringToObject(
	    root, "spin_ns_per_acquire_means",
	    "CPU burned spinning per acquisition: lock_cpu_ns_per_acquire less "
	    "futex_cpu_ns_per_acquire (null when the futex part is unknown). "
	    "lock_cpu_ns_per_acquire: thread CPU time inside lock() per acquisition (spinning "
	    "and futex calls), sampled every Nth acquisition with the clock named by each "
	    "result's spin_clock (on-cpu clock: a sched_switch program's per-thread record, "
	    "read without a system call; thread cpu clock: CLOCK_THREAD_CPUTIME_ID), less the "
	    "cost of the readings themselves (spin_probe_ns: an empty pair of readings beside "
	    "each). futex_cpu_ns_per_acquire: of it, on a CPU in futex system calls "
	    "(programs at their entry and exit add up the on-CPU clock between them, and each "
	    "call adds futex_call_outside_ns, the system call's way in and out, measured with "
	    "futex wakes that return at once, or futex_sleep_outside_ns for a call that left "
	    "the CPU, measured with futex waits woken 50 us apart): going to sleep and waking. "
	    "sampled_wait_ratio: the "
	    "sampled acquisitions' mean wait in "
	    "lock() over the others', near 1 when sampling does not change them");
	cJSON_AddStringToObject(root, "futex_cpu", futex_kept ? "available" : futex_why);
	add_num_or_null(root, "futex_call_outside_ns", round(futex_outside_ns));
	add_num_or_null(root, "futex_sleep_outside_ns", round(futex_sleep_outside_ns));
	cJSON_AddStringToObject(
	    root, "owner_block_entry_ns_means",
	    "in scenarios whose owner blocks (sleep, io): time from the owner's entering its "
	    "blocking call to its leaving the CPU, by its on-CPU clock record before and after "
	    "the call (calls that left the CPU exactly once; returned_on_cpu: calls that never "
	    "left it); null without the on-CPU clock or where the owner never blocks");
	if (tclock_why[0])
		cJSON_AddStringToObject(root, "on_cpu_clock", tclock_why);
	else
		cJSON_AddStringToObject(root, "on_cpu_clock", "available");
	arr = cJSON_AddArrayToObject(root, "results");

	for (int c = 0; c < ncfg; c++) {
		double base = ops_per_s(&res[c][IL_LOCK_PTHREAD]);
		double adaptive = ops_per_s(&res[c][IL_LOCK_ADAPTIVE_NP]);

		for (int k = 0; k < NARMS; k++) {
			int lock = k == ARM_SLICE ? IL_LOCK_IL_BPF : k;
			struct result *r = &res[c][k];
			double ops_s = ops_per_s(r);
			char x_pth[16], x_adap[16];

			if (!(o.locks_mask >> lock & 1))
				continue;
			cJSON_AddItemToArray(arr, result_json(&cfg[c], k, r, base, adaptive));
			if (k == ARM_SLICE && !have_slice) {
				printf(
				    "%-18s %4d %-12s  not available on this kernel (see above)\n",
				    cfg[c].name, nthreads_of(cfg[c].pl), arm_name(k));
				continue;
			}
			if (r->skipped || r->elapsed_s <= 0) {
				printf("%-18s %4d %-12s %11s  (skipped: %s)\n", cfg[c].name,
				       nthreads_of(cfg[c].pl), arm_name(k), "-",
				       r->skipped_why[0] ? r->skipped_why : "no time measured");
				continue;
			}
			skewed = sample_skewed(r);
			any_skewed |= skewed;
			printf("%-18s %4d %-12s %11.0f %6s %6s %7.0f%c %7.0f %8.0f %9.0f %5.2f "
			       "%9llu%s\n",
			       cfg[c].name, nthreads_of(cfg[c].pl), arm_name(k), ops_s,
			       ratio_text(x_pth, ops_s, base), ratio_text(x_adap, ops_s, adaptive),
			       spin_ns(r), skewed ? '*' : ' ', lock_cpu_ns(r),
			       hist_pct(r->hist, 0.5), hist_pct(r->hist, 0.99),
			       r->max_ops ? (double)r->min_ops / (double)r->max_ops : 0,
			       (unsigned long long)r->ctxsw,
			       r->violations ? "  EXCLUSION VIOLATED" : "");
		}
	}
	print_block_entry(cfg, ncfg, res);
	print_spin_floor(ncfg, res);
	if (any_skewed)
		printf("# * the sampled acquisitions waited under 2/3 or over 1.5x as long as the "
		       "others (sampled_wait_ratio): that spin_ns is theirs, not the mean "
		       "acquisition's\n");
	if ((o.locks_mask >> IL_LOCK_IL_BPF & 1) && (o.locks_mask >> IL_LOCK_ADAPTIVE_NP & 1)) {
		cJSON *t = targets_json(cfg, ncfg, res, o.rounds, &met, &checked, &agreed);

		cJSON_AddItemToObject(root, "targets", t);
		print_targets(t, met, checked, agreed, o.rounds);
	}
	printf("lock-bench: %d scenarios x %d locks, il-bpf source %s, bpf switch cost ", ncfg,
	       __builtin_popcount(o.locks_mask), bpf_source);
	if (isnan(sw.cost_ns))
		printf("n/a\n");
	else
		printf("%.0f ns\n", sw.cost_ns);

	if (o.json) {
		int w = il_json_write(o.json, root);

		if (w < 0) {
			fprintf(stderr, "lock-bench: cannot write %s: %s\n", o.json, strerror(-w));
			return 1;
		}
	}
	cJSON_Delete(root);
	free(cmdline);
	return 0;
}
