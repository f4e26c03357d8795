/*
 * lock-bench: N threads contend for one lock for T seconds, with a
 * critical section of C ns and D ns of work outside it, under several
 * placements (one thread per CPU, all on one CPU, 4x and 8x
 * oversubscribed), optionally beside a CPU hog (CFS or FIFO). The locks
 * run interleaved in one process: pthread default, ADAPTIVE_NP, a TAS
 * spin lock, il_spin with source none and with source bpf.
 *
 * Also measures what the sched_switch BPF program adds to a context switch
 * (pipe ping-pong between two processes on one CPU, with and without the
 * program) and the futex wake round trip that sets the spin budget.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <x86intrin.h>

#include "il_clock.h"
#include "il_lock.h"
#include "il_oncpu.h"
#include "il_header.h"
#include "il_parse.h"
#include "il_spin.h"

#define MAX_THREADS 1024
#define MAX_CONFIGS 16
/* Log-linear histogram: exact below 64 ns, then 32 sub-buckets per power of 2. */
#define HIST_SUB 32
#define HIST_BUCKETS (64 + 40 * HIST_SUB)

enum placement { PL_ONE_PER_CPU, PL_ONE_CPU, PL_OVER4, PL_OVER8, PL_COUNT };
enum hog { HOG_NONE, HOG_CFS, HOG_FIFO, HOG_COUNT };

static const char *const placement_names[PL_COUNT] = { "one-per-cpu", "one-cpu", "over4", "over8" };
static const char *const hog_names[HOG_COUNT] = { "none", "cfs", "fifo" };

struct config {
	enum placement pl;
	enum hog hog;
};

struct opts {
	uint64_t cs_ns, outside_ns, spin_budget_ns;
	double seconds; /* per lock and config, over all rounds */
	unsigned rounds;
	const char *json;
	int quick;
	unsigned locks_mask, pl_mask, hog_mask;
};

/* Result of one lock in one config, accumulated over rounds. */
struct result {
	uint64_t ops, min_ops, max_ops, ctxsw, max_ns, violations;
	double elapsed_s;
	uint64_t hist[HIST_BUCKETS];
	int skipped;
};

struct shared {
	struct il_lock lock;
	uint64_t counter; /* guarded by lock */
	uint32_t owner;   /* guarded by lock; checks exclusion */
} __attribute__((aligned(64)));

struct cell;

struct worker {
	struct cell *c;
	pthread_t th;
	int cpu;
	uint64_t ops, max_cyc, ctxsw, violations;
	uint64_t hist[HIST_BUCKETS];
} __attribute__((aligned(64)));

struct cell {
	struct shared sh;
	_Atomic int stop __attribute__((aligned(64)));
	pthread_barrier_t go;
	uint64_t cs_cyc, out_cyc;
	int nthreads;
	struct worker *w;
};

static double ns_per_cyc;
static int cpus[MAX_THREADS];
static int ncpu;

static void calibrate_tsc(void)
{
	uint64_t t0 = il_now_ns(), c0 = __rdtsc();
	struct timespec ts = { 0, 50000000 };

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

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static long thread_ctxsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cell *c = w->c;
	struct shared *sh = &c->sh;
	uint32_t me = il_spin_tid();
	long csw0;

	pin_self(w->cpu);
	pthread_barrier_wait(&c->go);
	csw0 = thread_ctxsw();
	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		uint64_t t0 = __rdtsc(), t1, t2, d;

		il_lock_lock(&sh->lock);
		t1 = __rdtsc();
		if (sh->owner)
			w->violations++;
		sh->owner = me;
		busy_cyc(t1, c->cs_cyc);
		sh->counter++;
		if (sh->owner != me)
			w->violations++;
		sh->owner = 0;
		il_lock_unlock(&sh->lock);
		t2 = __rdtsc();
		d = t1 - t0;
		if (d > w->max_cyc)
			w->max_cyc = d;
		w->hist[hist_index((uint64_t)((double)d * ns_per_cyc))]++;
		w->ops++;
		busy_cyc(t2, c->out_cyc);
	}
	w->ctxsw = (uint64_t)(thread_ctxsw() - csw0);
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
	struct timespec off = { 0, 1000000 };

	pin_self(h->cpu);
	if (h->kind == HOG_FIFO) {
		struct sched_param sp = { .sched_priority = 1 };

		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
			return (void *)1;
	}
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		busy_cyc(__rdtsc(), (uint64_t)(1e6 / ns_per_cyc));
		if (h->kind == HOG_FIFO)
			nanosleep(&off, NULL);
	}
	return NULL;
}

static int hog_start(struct hog_ctl *h, enum hog kind)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->cpu = cpus[0];
	if (kind == HOG_NONE)
		return 0;
	if (pthread_create(&h->th, NULL, hog_main, h) != 0)
		return -EAGAIN;
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
		struct sched_param sp = { .sched_priority = 0 };

		fprintf(stderr, "lock-bench: hog did not stop; demoting it to SCHED_OTHER\n");
		pthread_setschedparam(h->th, SCHED_OTHER, &sp);
		pthread_join(h->th, &ret);
	}
	h->running = 0;
	return ret ? -EPERM : 0;
}

/* --- one cell: one lock, one config, one round ----------------------- */

static int nthreads_of(enum placement pl)
{
	switch (pl) {
	case PL_ONE_PER_CPU:
	case PL_ONE_CPU:
		return ncpu;
	case PL_OVER4:
		return 4 * ncpu;
	case PL_OVER8:
		return 8 * ncpu;
	default:
		return ncpu;
	}
}

static int run_cell(const struct opts *o, struct config cfg, enum il_lock_kind kind, double secs,
		    struct result *res)
{
	int n = nthreads_of(cfg.pl);
	struct cell *c;
	struct hog_ctl hog;
	uint64_t t0, t1, sum = 0;
	struct timespec run;
	int r = 0;

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
	c->cs_cyc = (uint64_t)((double)o->cs_ns / ns_per_cyc);
	c->out_cyc = (uint64_t)((double)o->outside_ns / ns_per_cyc);
	il_lock_init(&c->sh.lock, kind);
	pthread_barrier_init(&c->go, NULL, (unsigned)n + 1);

	r = hog_start(&hog, cfg.hog);
	for (int i = 0; r == 0 && i < n; i++) {
		c->w[i].c = c;
		c->w[i].cpu = cfg.pl == PL_ONE_CPU ? cpus[0] : cpus[i % ncpu];
		if (pthread_create(&c->w[i].th, NULL, worker_main, &c->w[i]) != 0) {
			fprintf(stderr, "lock-bench: cannot create %d threads\n", n);
			exit(1);
		}
	}
	if (r == 0) {
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
		for (int i = 0; i < n; i++) {
			struct worker *w = &c->w[i];
			uint64_t max_ns = (uint64_t)((double)w->max_cyc * ns_per_cyc);

			sum += w->ops;
			res->ops += w->ops;
			res->ctxsw += w->ctxsw;
			res->violations += w->violations;
			if (max_ns > res->max_ns)
				res->max_ns = max_ns;
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				res->hist[b] += w->hist[b];
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
	if (hog_stop(&hog) < 0) {
		res->skipped = 1;
		r = -EPERM;
	}
	pthread_barrier_destroy(&c->go);
	il_lock_destroy(&c->sh.lock);
	free(c->w);
	free(c);
	return r;
}

/* --- BPF switch cost and futex round trip ---------------------------- */

/* Round trips per second of a pipe ping-pong between two processes on one CPU. */
static double pingpong_ns_per_switch(int rounds)
{
	int ab[2], ba[2], st;
	char b = 0;
	uint64_t t0, t1;
	pid_t pid;

	if (pipe(ab) < 0 || pipe(ba) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		pin_self(cpus[0]);
		for (int i = 0; i < rounds; i++)
			if (read(ab[0], &b, 1) != 1 || write(ba[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	pin_self(cpus[0]);
	t0 = il_now_ns();
	for (int i = 0; i < rounds; i++)
		if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
			break;
	t1 = il_now_ns();
	waitpid(pid, &st, 0);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	{
		cpu_set_t all;

		CPU_ZERO(&all);
		for (int i = 0; i < ncpu; i++)
			CPU_SET(cpus[i], &all);
		pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	}
	/* Each round trip is two context switches, each running the program once. */
	return (double)(t1 - t0) / rounds / 2;
}

/*
 * Alternates off/on five times and keeps the fastest run of each side:
 * on a shared machine the minimum is the run least disturbed by others.
 * Returns NAN when the program cannot be loaded or someone else's copy
 * is already attached (no baseline).
 */
static double bpf_switch_cost_ns(const char **why, double *base_ns)
{
	double off = INFINITY, on = INFINITY, v;
	struct il_oncpu *o;
	int r;

	if (il_oncpu_open_pinned(NULL, &o) == 0) {
		il_oncpu_free(o);
		*why = "a pinned copy (ilspin-oncpu) is attached: no baseline";
		return NAN;
	}
	for (int i = 0; i < 5; i++) {
		v = pingpong_ns_per_switch(20000);
		off = v < off ? v : off;
		r = il_oncpu_load(&o);
		if (r < 0) {
			*why = "cannot load the BPF program";
			return NAN;
		}
		v = pingpong_ns_per_switch(20000);
		on = v < on ? v : on;
		il_oncpu_free(o);
	}
	*base_ns = off;
	*why = "";
	return on - off;
}

struct futex_pp {
	_Atomic uint32_t turn;
	int rounds;
};

static void *futex_pp_peer(void *arg)
{
	struct futex_pp *p = arg;

	pin_self(cpus[ncpu > 1 ? 1 : 0]);
	for (int i = 0; i < p->rounds; i++) {
		while (atomic_load(&p->turn) != 1)
			syscall(SYS_futex, &p->turn, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		atomic_store(&p->turn, 0);
		syscall(SYS_futex, &p->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

/*
 * Sleep/wake round trip between two threads on two CPUs: what a waiter
 * pays to go to sleep instead of spinning. The spin budget default is
 * set from it (il_spin.h).
 */
static double futex_wake_rtt_ns(void)
{
	struct futex_pp p = { .turn = 0, .rounds = 5000 };
	uint64_t t0, t1;
	pthread_t t;

	pthread_create(&t, NULL, futex_pp_peer, &p);
	t0 = il_now_ns();
	for (int i = 0; i < p.rounds; i++) {
		atomic_store(&p.turn, 1);
		syscall(SYS_futex, &p.turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		while (atomic_load(&p.turn) != 0)
			syscall(SYS_futex, &p.turn, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
	}
	t1 = il_now_ns();
	pthread_join(t, NULL);
	return (double)(t1 - t0) / p.rounds;
}

/* --- options --------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
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
		"  --seconds S           run time per lock and config over all rounds (default 3)\n"
		"  --spin-budget-ns NS   il_spin spin budget (default: il_spin's, %u)\n"
		"  --version             print the version\n",
		IL_SPIN_DEFAULT_BUDGET_NS);
}

/* Parses "a,b,c" against names[]; returns a bit mask or -EINVAL. */
static int parse_list(const char *s, const char *const *names, int n)
{
	char buf[256], *save = NULL, *tok;
	int mask = 0, k;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < n && strcmp(tok, names[k]) != 0; k++)
			;
		if (k == n)
			return -EINVAL;
		mask |= 1 << k;
	}
	return mask ? mask : -EINVAL;
}

static void bad_arg(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "lock-bench: invalid %s '%s': expected %s\n", opt, val, want);
	exit(2);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "cs-ns", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "hogs", required_argument, NULL, 'H' },
		{ "json", required_argument, NULL, 'j' },
		{ "locks", required_argument, NULL, 'l' },
		{ "outside-ns", required_argument, NULL, 'o' },
		{ "placements", required_argument, NULL, 'p' },
		{ "quick", no_argument, NULL, 'q' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ "spin-budget-ns", required_argument, NULL, 'b' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const lock_names[] = { "pthread", "adaptive-np", "tas", "il-none", "il-bpf" };
	uint64_t v;
	int c, m;

	*o = (struct opts){ .cs_ns = 100, .outside_ns = 100, .seconds = 3, .rounds = 3,
			    .locks_mask = 0x1f, .pl_mask = 0xf, .hog_mask = 1 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
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
			if (il_parse_u64(optarg, 1, 100, &v) < 0)
				bad_arg("--rounds", optarg, "1..100");
			o->rounds = (unsigned)v;
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
			if ((m = parse_list(optarg, lock_names, 5)) < 0)
				bad_arg("--locks", optarg, "a list of pthread,adaptive-np,tas,il-none,il-bpf");
			o->locks_mask = (unsigned)m;
			break;
		case 'p':
			if ((m = parse_list(optarg, placement_names, PL_COUNT)) < 0)
				bad_arg("--placements", optarg, "a list of one-per-cpu,one-cpu,over4,over8");
			o->pl_mask = (unsigned)m;
			break;
		case 'H':
			if ((m = parse_list(optarg, hog_names, HOG_COUNT)) < 0)
				bad_arg("--hogs", optarg, "a list of none,cfs,fifo");
			o->hog_mask = (unsigned)m;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("lock-bench %s\n", IL_VERSION);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lock-bench: unexpected argument '%s'; see --help\n", argv[optind]);
		exit(2);
	}
}

static int build_configs(const struct opts *o, struct config *cfg)
{
	int n = 0;

	for (int h = 0; h < HOG_COUNT; h++)
		for (int p = 0; p < PL_COUNT; p++)
			if ((o->hog_mask >> h & 1) && (o->pl_mask >> p & 1))
				cfg[n++] = (struct config){ (enum placement)p, (enum hog)h };
	if (o->quick) {
		/* The hog rows where on-CPU awareness matters most: a preempted holder. */
		if (!(o->hog_mask >> HOG_CFS & 1) || !(o->pl_mask & 1))
			cfg[n++] = (struct config){ PL_ONE_PER_CPU, HOG_CFS };
		if (!(o->hog_mask >> HOG_FIFO & 1) || !(o->pl_mask & 1))
			cfg[n++] = (struct config){ PL_ONE_PER_CPU, HOG_FIFO };
	}
	return n;
}

/* --- output ---------------------------------------------------------- */

static cJSON *result_json(const struct opts *o, struct config cfg, enum il_lock_kind k,
			  const struct result *r, double ops_s, double base)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "lock", il_lock_kind_name(k));
	cJSON_AddNumberToObject(j, "threads", nthreads_of(cfg.pl));
	cJSON_AddStringToObject(j, "placement", placement_names[cfg.pl]);
	cJSON_AddNumberToObject(j, "cs_ns", (double)o->cs_ns);
	cJSON_AddNumberToObject(j, "outside_ns", (double)o->outside_ns);
	cJSON_AddStringToObject(j, "hog", hog_names[cfg.hog]);
	if (r->skipped) {
		cJSON_AddBoolToObject(j, "skipped", 1);
		return j;
	}
	cJSON_AddNumberToObject(j, "ops_per_s", round(ops_s));
	if (base > 0)
		cJSON_AddNumberToObject(j, "ratio_vs_pthread", round(ops_s / base * 1000) / 1000);
	else
		cJSON_AddNullToObject(j, "ratio_vs_pthread");
	cJSON_AddNumberToObject(j, "acquire_p50_ns", round(hist_pct(r->hist, 0.50)));
	cJSON_AddNumberToObject(j, "acquire_p99_ns", round(hist_pct(r->hist, 0.99)));
	cJSON_AddNumberToObject(j, "acquire_max_ns", (double)r->max_ns);
	cJSON_AddNumberToObject(j, "fairness",
				r->max_ops ? round((double)r->min_ops / (double)r->max_ops * 1000) / 1000 : 0);
	cJSON_AddNumberToObject(j, "min_ops_per_thread", (double)r->min_ops);
	cJSON_AddNumberToObject(j, "max_ops_per_thread", (double)r->max_ops);
	cJSON_AddNumberToObject(j, "ctx_switches", (double)r->ctxsw);
	cJSON_AddBoolToObject(j, "exclusion_ok", r->violations == 0);
	return j;
}

static char bpf_source[16] = "not run", bpf_reason[200];

/* Opens the il-bpf source and remembers what it was for the report. */
static void bpf_source_open(const struct il_spin_opts *so)
{
	il_spin_init(IL_SPIN_SOURCE_AUTO, so);
	snprintf(bpf_source, sizeof(bpf_source), "%s", il_spin_source_name(il_spin_source_get()));
	snprintf(bpf_reason, sizeof(bpf_reason), "%s", il_spin_source_reason());
}

int main(int argc, char **argv)
{
	static struct result res[MAX_CONFIGS][IL_LOCK_KIND_COUNT];
	struct config cfg[MAX_CONFIGS];
	struct il_spin_opts so = { 0 };
	struct opts o;
	struct rlimit rt = { 200000, 500000 }; /* us of RT CPU without blocking */
	const char *why = "";
	double cost = NAN, base_switch = NAN, rtt;
	int ncfg, progress = isatty(2), cells = 0, total_cells;
	struct timespec start_wall;
	struct utsname un;
	char *cmdline;
	cpu_set_t set;
	cJSON *root, *arr;

	parse_opts(argc, argv, &o);
	if (o.quick) {
		o.seconds = 0.8;
		o.rounds = 2;
	}
	clock_gettime(CLOCK_REALTIME, &start_wall);
	uname(&un);
	cmdline = il_cmdline_join(argv[0], argc - 1, argv + 1);

	sched_getaffinity(0, sizeof(set), &set);
	for (int i = 0; i < CPU_SETSIZE && ncpu < MAX_THREADS; i++)
		if (CPU_ISSET(i, &set))
			cpus[ncpu++] = i;
	/* Safety net for the FIFO hog: the kernel kills an RT thread that never blocks. */
	setrlimit(RLIMIT_RTTIME, &rt);
	calibrate_tsc();
	ncfg = build_configs(&o, cfg);

	if (progress)
		fprintf(stderr, "lock-bench: measuring context switch cost...\n");
	cost = bpf_switch_cost_ns(&why, &base_switch);
	rtt = futex_wake_rtt_ns();

	so.spin_budget_ns = o.spin_budget_ns;
	if (o.spin_budget_ns)
		il_spin_budget_set_ns(o.spin_budget_ns);

	total_cells = ncfg * (int)o.rounds * __builtin_popcount(o.locks_mask);
	for (int c = 0; c < ncfg; c++)
		for (unsigned r = 0; r < o.rounds; r++)
			for (int k = 0; k < IL_LOCK_KIND_COUNT; k++) {
				if (!(o.locks_mask >> k & 1) || res[c][k].skipped)
					continue;
				if (progress)
					fprintf(stderr, "\rlock-bench: %d/%d", ++cells, total_cells);
				/*
				 * The program runs on every context switch of the
				 * machine, so it is attached only while il-bpf runs:
				 * the other locks must not pay for it.
				 */
				if (k == IL_LOCK_IL_BPF)
					bpf_source_open(&so);
				run_cell(&o, cfg[c], (enum il_lock_kind)k, o.seconds / o.rounds, &res[c][k]);
				if (k == IL_LOCK_IL_BPF)
					il_spin_close();
			}
	if (progress)
		fprintf(stderr, "\n");

	printf("# lock-bench %s, kernel %s, %d CPUs, cs %llu ns, outside %llu ns, %.2f s x %u rounds per cell\n",
	       IL_VERSION, un.release, ncpu, (unsigned long long)o.cs_ns,
	       (unsigned long long)o.outside_ns, o.seconds, o.rounds);
	printf("# il-bpf source: %s%s%s%s; spin budget %llu ns; futex wake round trip %.0f ns\n",
	       bpf_source, bpf_reason[0] ? " (" : "", bpf_reason, bpf_reason[0] ? ")" : "",
	       (unsigned long long)il_spin_budget_get_ns(), rtt);
	if (isnan(cost))
		printf("# bpf switch cost: not measured (%s)\n", why);
	else
		printf("# bpf switch cost: %+.0f ns per context switch (base %.0f ns per switch)\n", cost,
		       base_switch);
	printf("%-12s %4s %-5s %-12s %12s %6s %8s %9s %10s %6s %9s\n", "#placement", "thr", "hog",
	       "lock", "ops/s", "ratio", "p50_ns", "p99_ns", "max_ns", "fair", "ctxsw");

	root = il_header_new(2, cmdline, &start_wall);
	cJSON_AddNumberToObject(root, "cpus", ncpu);
	cJSON_AddStringToObject(root, "il_bpf_source", bpf_source);
	cJSON_AddStringToObject(root, "il_bpf_source_reason", bpf_reason);
	cJSON_AddNumberToObject(root, "spin_budget_ns", (double)il_spin_budget_get_ns());
	cJSON_AddNumberToObject(root, "futex_wake_rtt_ns", round(rtt));
	if (isnan(cost)) {
		cJSON_AddNullToObject(root, "bpf_switch_cost_ns");
		cJSON_AddStringToObject(root, "bpf_switch_cost_note", why);
	} else {
		cJSON_AddNumberToObject(root, "bpf_switch_cost_ns", round(cost));
		cJSON_AddNumberToObject(root, "switch_base_ns", round(base_switch));
	}
	cJSON_AddNumberToObject(root, "handoffs", (double)il_spin_handoffs());
	arr = cJSON_AddArrayToObject(root, "results");

	for (int c = 0; c < ncfg; c++) {
		double base = 0;

		if ((o.locks_mask & 1) && res[c][IL_LOCK_PTHREAD].elapsed_s > 0)
			base = (double)res[c][IL_LOCK_PTHREAD].ops / res[c][IL_LOCK_PTHREAD].elapsed_s;
		for (int k = 0; k < IL_LOCK_KIND_COUNT; k++) {
			struct result *r = &res[c][k];
			double ops_s;

			if (!(o.locks_mask >> k & 1))
				continue;
			cJSON_AddItemToArray(arr, result_json(&o, cfg[c], (enum il_lock_kind)k, r,
							     r->elapsed_s > 0 ? (double)r->ops / r->elapsed_s : 0,
							     base));
			if (r->skipped || r->elapsed_s <= 0) {
				printf("%-12s %4d %-5s %-12s %12s  (skipped: cannot run this hog here)\n",
				       placement_names[cfg[c].pl], nthreads_of(cfg[c].pl), hog_names[cfg[c].hog],
				       il_lock_kind_name((enum il_lock_kind)k), "-");
				continue;
			}
			ops_s = (double)r->ops / r->elapsed_s;
			printf("%-12s %4d %-5s %-12s %12.0f %6.2f %8.0f %9.0f %10llu %6.2f %9llu%s\n",
			       placement_names[cfg[c].pl], nthreads_of(cfg[c].pl), hog_names[cfg[c].hog],
			       il_lock_kind_name((enum il_lock_kind)k), ops_s, base > 0 ? ops_s / base : 0,
			       hist_pct(r->hist, 0.5), hist_pct(r->hist, 0.99), (unsigned long long)r->max_ns,
			       r->max_ops ? (double)r->min_ops / (double)r->max_ops : 0,
			       (unsigned long long)r->ctxsw, r->violations ? "  EXCLUSION VIOLATED" : "");
		}
	}
	printf("lock-bench: %d configs x %d locks, il-bpf source %s, bpf switch cost %s%.0f ns\n", ncfg,
	       __builtin_popcount(o.locks_mask), bpf_source,
	       isnan(cost) ? "n/a " : "", isnan(cost) ? 0.0 : cost);

	if (o.json) {
		char *txt = cJSON_Print(root);
		FILE *f = fopen(o.json, "we");

		if (!f || !txt || fputs(txt, f) < 0 || fputc('\n', f) < 0) {
			fprintf(stderr, "lock-bench: cannot write %s: %s\n", o.json, strerror(errno));
			if (f)
				fclose(f);
			free(txt);
			return 1;
		}
		fclose(f);
		free(txt);
	}
	cJSON_Delete(root);
	free(cmdline);
	return 0;
}
