/*
 * lock-bench's shared picture: what a scenario is (struct config), what a
 * cell measured (struct result), the figures made of it
 * (lock-bench-figures.c) and the verdicts against the targets
 * (lock-bench-verdict.c). The bench itself is lock-bench.c.
 */
#ifndef LOCK_BENCH_H
#define LOCK_BENCH_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "il_lock.h"

#define MAX_THREADS 1024
#define MAX_CONFIGS 32
/* The arms: the lock kinds, and il-bpf with the owner's time-slice extension. */
#define ARM_SLICE IL_LOCK_KIND_COUNT
#define NARMS	  (IL_LOCK_KIND_COUNT + 1)
/* Log-linear histogram: exact below 64 ns, then 32 sub-buckets per power of 2. */
#define HIST_SUB     32
#define HIST_BUCKETS (64 + 40 * HIST_SUB)

enum placement { PL_ONE_PER_CPU, PL_ONE_CPU, PL_OVER4, PL_OVER8, PL_OVER2, PL_COUNT };
enum hog { HOG_NONE, HOG_CFS, HOG_FIFO, HOG_COUNT };

enum block { BLK_NONE, BLK_SLEEP, BLK_IO };

struct config {
	char name[48];
	enum placement pl;
	enum hog hog;
	uint64_t cs_ns, outside_ns;
	enum block block;   /* what the owner does inside every 4th section */
	uint64_t block_us;  /* BLK_SLEEP: how long */
	int preempt;	    /* a SCHED_FIFO preemptor on every CPU */
	int owner_off;	    /* an owner-off-CPU scenario: il-bpf's targets apply */
	unsigned cpu_every; /* sample the thread CPU clock every Nth acquisition */
};

#define MAX_ROUNDS 100 /* --rounds */

/* Result of one lock in one config, accumulated over rounds. */
struct result {
	uint64_t ops, min_ops, max_ops, ctxsw, max_ns, violations;
	double elapsed_s;
	uint64_t hist[HIST_BUCKETS];
	/* Thread CPU inside lock(), sampled (cpu_samples), and what a pair of
	 * readings costs (probe_samples of them, after the unlock; cpu_ns is
	 * still raw: spin_ns() subtracts); clock_samples of them read the
	 * on-CPU clock (il_tclock), the others CLOCK_THREAD_CPUTIME_ID. */
	uint64_t cpu_ns, probe_ns, cpu_samples, clock_samples, probe_samples;
	/* Of cpu_ns, on a CPU inside futex calls (futex_samples of the
	 * samples had the on-CPU clock's futex_ns): going to sleep and
	 * waking, not spinning. */
	uint64_t futex_ns, futex_calls, futex_samples;
	uint64_t futex_sleeps; /* of futex_calls, those that left the CPU */
	/* Wall time in lock() of sampled and of other acquisitions (TSC
	 * cycles): whether the samples waited as the others did. */
	uint64_t wait_s_cyc, wait_s_n, wait_u_cyc, wait_u_n;
	/* il_spin's anti-starvation handoffs during the cell (il locks only). */
	uint64_t handoffs;
	/* Time the lock was held, at least (ns): each section's busy part, and
	 * a blocking section's block; mutual exclusion keeps it within the
	 * elapsed time, so ops over it is the most ops/s any lock holding it
	 * as long could pass (ops_ceiling). */
	double held_ns;
	/* il-bpf's rounds that ran without the on-CPU source (il-none, then). */
	unsigned unaware_rounds;
	/* Blocking sections: from entering the blocking call to leaving the
	 * CPU (on-CPU clock records), and calls that returned on the CPU. */
	uint64_t entry_hist[HIST_BUCKETS], entry_n, entry_stayed;
	int skipped;
	char skipped_why[200]; /* why, when skipped (the first round's reason) */
};

/* The futex records are kept (futex_why says why not) and what a call
 * costs outside its tracepoints, plain and when it slept (lock-bench.c
 * measures them at the start). */
extern int futex_kept;
extern double futex_outside_ns, futex_sleep_outside_ns;
extern char futex_why[160];
/* Why an il-bpf round ran without the on-CPU source (the first such). */
extern char unaware_why[200];
/* Ops/s and spin_ns of each lock in each round (lock-bench.c fills them). */
extern double round_ops[MAX_CONFIGS][NARMS][MAX_ROUNDS];
extern double round_spin[MAX_CONFIGS][NARMS][MAX_ROUNDS];

/* --- figures of a result (lock-bench-figures.c) ----------------------- */
double ops_per_s(const struct result *r);
double held_share(const struct result *r);
double ops_ceiling(const struct result *r);
double probe_ns(const struct result *r);
double lock_cpu_ns(const struct result *r);
double futex_cpu_ns(const struct result *r);
double spin_ns(const struct result *r);
double spin_ns_between(const struct result *now, const struct result *before);
/* v as a JSON number, or null when it is not one (NAN, infinite). */
void add_num_or_null(cJSON *j, const char *key, double v);

/* --- il-bpf against adaptive-np (lock-bench-verdict.c) ---------------- */
cJSON *targets_json(const struct config *cfg, int ncfg, struct result (*res)[NARMS],
		    unsigned rounds, int *met, int *checked, int *agreed);
void print_targets(const cJSON *t, int met, int checked, int agreed, unsigned rounds);

#endif
