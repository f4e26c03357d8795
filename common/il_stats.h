/*
 * The statistics engine: every verdict inputlat gives ("B is lower /
 * higher / no clear difference / not enough data") comes from here, for
 * `inputlat compare`, `inputlat reproduce` and scripts/policy-sweep alike.
 *
 * Events inside one run are correlated (a noisy neighbour, a frequency
 * change or a CPU migration moves many consecutive mouse-downs), and whole
 * runs differ from each other by more than their events' scatter
 * suggests. So the unit of replication is the run (the round):
 *
 *  - il_stats_rounds() compares per-round values of one statistic (each
 *    round's p50, say) with a permutation test over the rounds, and gives
 *    the interval of the shift by inverting that test exactly. Under "no
 *    difference" the rounds of A and B are exchangeable (they were
 *    interleaved), so the error rate is at most alpha whatever the
 *    distribution of the rounds, with 4 or more rounds a side.
 *  - il_stats_runs_blocked() compares two single runs with a circular
 *    block bootstrap over consecutive events, which keeps the events'
 *    correlation inside a block. It covers the variation within a run
 *    only, never the variation from run to run.
 *  - il_stats_median_ci() is a distribution-free interval for the median
 *    of a few rounds (order statistics), for one-sample claims.
 *  - il_stats_fdr_level() holds a family of such verdicts (a sweep's
 *    table) to one error rate: the level at which to judge each of them.
 *
 * Every function is deterministic: the same inputs and seed give the
 * same answer on every platform (xoshiro256** seeded through splitmix64).
 */
#ifndef IL_STATS_H
#define IL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The error rate every verdict is held to, two-sided. */
#define IL_STATS_ALPHA 0.05
/* A quantile q of a run is only read when at least this many events lie
 * beyond it: a run's p99 needs 500 events, its p90 50, its p50 10. */
#define IL_STATS_MIN_TAIL 5
/* Fewer events than this and a run's mean is not compared either. */
#define IL_STATS_MIN_MEAN_EVENTS 20
/* The most rounds il_stats_rounds takes in all (a partition is a 64-bit mask). */
#define IL_STATS_MAX_ROUNDS 63

/* Up to this many partitions of the rounds are enumerated exactly;
 * beyond it, IL_STATS_MC_PERMUTATIONS random ones (seeded). */
#define IL_STATS_MAX_EXACT	 200000u
#define IL_STATS_MC_PERMUTATIONS 10000u
#define IL_STATS_RESAMPLES	 2000u
#define IL_STATS_SEED		 1u
/* il_stats_runs_blocked's q for "the mean", not a quantile. */
#define IL_STATS_MEAN (-1.0)

enum il_verdict {
	IL_VERDICT_NOT_ENOUGH, /* the data cannot support a verdict; why says what it needs */
	IL_VERDICT_NONE,       /* the interval contains "no difference" */
	IL_VERDICT_LOWER,      /* B is lower than A: the whole interval is below */
	IL_VERDICT_HIGHER,     /* B is higher than A */
};

/* "not enough data", "no clear difference", "lower", "higher". */
const char *il_verdict_name(enum il_verdict v);

enum il_stats_scale {
	IL_STATS_RATIO, /* values > 0, compared as B/A (on log scale) */
	IL_STATS_DIFF,	/* any values, compared as B - A */
};

/* One comparison of B against A. */
struct il_stats_cmp {
	enum il_verdict verdict;
	/* B/A (IL_STATS_RATIO) or B - A (IL_STATS_DIFF) and its interval at
	 * confidence 1 - alpha; NAN when not computed (not enough data). */
	double estimate, lo, hi;
	double p_value;	    /* of "no difference"; NAN when not computed */
	double min_p;	    /* the smallest p-value this design can give */
	uint64_t resamples; /* partitions or bootstrap resamples used */
	bool exact;	    /* every partition enumerated (no randomness) */
	uint64_t seed;	    /* the seed of any random draws, to recompute */
	unsigned block_a;   /* blocked bootstrap: block lengths in events */
	unsigned block_b;
	/* il_stats_rounds_within's resolution (0: the figures are exact). */
	double resolution;
	char method[192]; /* in words, for reports */
	char why[192];	  /* not enough data: what it needs; else "" */
};

/*
 * Permutation test over rounds: a[na] and b[nb] are one statistic per
 * round (e.g. each round's processing p50). The test statistic is the
 * difference of the sides' mean (of logs, for IL_STATS_RATIO), so the
 * estimate is the ratio of geometric means (or the difference of
 * means). Every partition of the na + nb rounds into two groups of na
 * and nb is visited when there are at most IL_STATS_MAX_EXACT of them,
 * otherwise IL_STATS_MC_PERMUTATIONS random ones drawn with `seed` plus
 * the observed one. The interval is the set of shifts d for which "B
 * shifted by d is exchangeable with A" is not rejected at alpha, found
 * exactly: each partition counts for the shifts of one closed interval
 * around the estimate, so the set is one interval, found by selection in
 * time linear in the partitions. Verdict: lower/higher when the interval
 * excludes no change.
 *
 * Not enough data (verdict IL_VERDICT_NOT_ENOUGH, why filled, return 0)
 * when no arrangement of the rounds could reach alpha: fewer than 4
 * rounds a side for alpha 0.05.
 *
 * Returns 0; -EINVAL for NULL pointers, empty sides, alpha outside (0, 1)
 * or na + nb > 63; -EDOM for a value that is not finite, or not > 0 on
 * IL_STATS_RATIO; -ENOMEM. On error *out is untouched.
 */
int il_stats_rounds(const double *a, size_t na, const double *b, size_t nb,
		    enum il_stats_scale scale, double alpha, uint64_t seed,
		    struct il_stats_cmp *out);

/*
 * As il_stats_rounds, for figures known only to within a relative
 * `resolution` (0 <= r < 0.5, IL_STATS_RATIO only): a percentile read from
 * an il_hist is its bucket's midpoint, within IL_HIST_PCT_RESOLUTION of
 * the true value. The true ratio of the sides then lies within a factor
 * (1 + r) / (1 - r) of the observed one, either way, so the interval is
 * the observed one widened by that factor, the verdict says lower or
 * higher only when the widened interval excludes 1, and the p-value is
 * that of "the observed ratio lies within the factor of 1" (the largest
 * over that band). Two policies 0.05% apart, whose figures fall into
 * neighbouring buckets 0.8% apart, are then no clear difference rather
 * than "higher": the histogram cannot tell them apart.
 * resolution 0 is il_stats_rounds. -EINVAL also for a resolution out of
 * range or on IL_STATS_DIFF.
 */
int il_stats_rounds_within(const double *a, size_t na, const double *b, size_t nb,
			   enum il_stats_scale scale, double alpha, uint64_t seed,
			   double resolution, struct il_stats_cmp *out);

/*
 * Two single runs: a[na] and b[nb] are per-event values (latencies > 0)
 * in event order. Compares quantile q (0 < q < 1, type-7 interpolation)
 * or, with q = IL_STATS_MEAN, the mean, as B/A: each of `resamples`
 * rounds rebuilds each run from blocks of consecutive events (circular
 * block bootstrap, block length from the run's own autocorrelation, at
 * least n^(1/3)) and records log(stat B) - log(stat A); the interval is
 * the percentile interval of those. Not enough data when a run has fewer
 * than IL_STATS_MIN_TAIL / (1 - q) events (IL_STATS_MIN_MEAN_EVENTS for
 * the mean).
 *
 * Returns 0; -EINVAL for NULL pointers, empty runs, a bad q or alpha, or
 * resamples == 0; -EDOM for a value that is not finite and > 0; -ENOMEM.
 * On error *out is untouched.
 */
int il_stats_runs_blocked(const double *a, size_t na, const double *b, size_t nb, double q,
			  double alpha, unsigned resamples, uint64_t seed,
			  struct il_stats_cmp *out);

/*
 * Distribution-free interval for the median of v[n] (say one figure per
 * round): [x(k), x(n+1-k)] with the largest k whose exact coverage
 * 1 - 2 P(Binomial(n, 1/2) < k) is at least 1 - alpha. *median is the
 * sample median, *coverage the interval's exact coverage. With too few
 * values for 1 - alpha (5 or fewer for 0.05) the interval is [min, max]
 * and *coverage says how much less it covers; the return is then 1.
 *
 * Returns 0 or 1 as above; -EINVAL for NULL pointers or n == 0; -EDOM for
 * a value that is not finite; -ENOMEM. On error the out-parameters are
 * untouched.
 */
int il_stats_median_ci(const double *v, size_t n, double alpha, double *median, double *lo,
		       double *hi, double *coverage);

/* Quantile q (0..1) of sorted v[n], type-7 linear interpolation; NAN when n == 0. */
double il_stats_quantile_sorted(const double *v, size_t n, double q);

/* Events a run needs for its quantile q (IL_STATS_MEAN: for its mean). */
uint64_t il_stats_min_events(double q);

/*
 * A family of m comparisons judged together (Benjamini-Hochberg): R is the
 * largest k with p_(k) <= alpha k / m (p sorted ascending), 0 if none.
 * Judging every comparison of the family at level alpha max(R, 1) / m
 * gives exactly BH's verdicts (the R smallest p-values and no other), and
 * its intervals at confidence 1 - alpha R / m are Benjamini and
 * Yekutieli's false-coverage-rate intervals, which agree with those
 * verdicts. The expected share of wrong verdicts among those given is at
 * most alpha; where nothing differs (an A/A family) that is the chance of
 * any verdict at all. Holds for independent or positively dependent
 * p-values, as comparisons against one shared reference are.
 *
 * Returns the level, and R in *rejected (may be NULL); NAN for m == 0,
 * a NULL p, alpha outside (0, 1) or a p-value outside [0, 1].
 */
double il_stats_fdr_level(const double *p, size_t m, double alpha, size_t *rejected);

/* Rounds a side il_stats_rounds needs to reach alpha with equal sides. */
unsigned il_stats_min_rounds(double alpha);

/*
 * The blocked bootstrap's block length for v[n]: twice the lag after which
 * the autocorrelation of log v stays insignificant (Politis & White's
 * flat-top rule), at least ceil(n^(1/3)), at most n / 10 (and >= 1).
 */
unsigned il_stats_block_length(const double *v, size_t n);

#endif
