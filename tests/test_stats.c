/*
 * The statistics engine: verdicts on known data, the exactness of the
 * permutation interval, and the error rates on this machine's real
 * round-to-round variance (tests/data/round-variance.csv).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_stats.h"
#include "il_test.h"

/* Deterministic normal draws (Box-Muller on a 64-bit LCG): tests only. */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u1 = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u2 = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static void test_stats_identical_rounds_no_difference(void **state)
{
	const double a[] = {1700, 2290, 1650, 1700, 2060};
	struct il_stats_cmp c;

	(void)state;
	assert_int_equal(il_stats_rounds(a, 5, a, 5, IL_STATS_RATIO, 0.05, 1, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_NONE);
	assert_float_equal(c.estimate, 1.0, 1e-12);
	assert_true(c.lo < 1.0 && c.hi > 1.0);
	assert_true(c.exact);
	assert_int_equal(c.resamples, 252);
	assert_string_equal(c.why, "");
}

static void test_stats_shifted_rounds_found(void **state)
{
	const double cfs[] = {3580, 1855, 2810, 2580, 2597};
	const double rt[] = {1610, 1700, 1610, 1585, 1536};
	struct il_stats_cmp c;

	(void)state;
	assert_int_equal(il_stats_rounds(cfs, 5, rt, 5, IL_STATS_RATIO, 0.05, 1, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_LOWER);
	assert_true(c.hi < 1.0 && c.lo <= c.estimate && c.estimate <= c.hi);
	assert_float_equal(c.p_value, 2.0 / 252, 1e-12);
	/* And the other way round. */
	assert_int_equal(il_stats_rounds(rt, 5, cfs, 5, IL_STATS_RATIO, 0.05, 1, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_HIGHER);
	assert_true(c.lo > 1.0);
}

/* Brute force: p(t) over every partition, on a fine grid of shifts. */
static double brute_p(const double *y, int na, int nb, double t)
{
	int n = na + nb, count = 0, total = 0;
	double z[64], obs;
	double sa = 0, sb = 0;

	for (int i = 0; i < n; i++)
		z[i] = y[i] - (i >= na ? t : 0);
	for (int i = 0; i < na; i++)
		sa += z[i];
	for (int i = na; i < n; i++)
		sb += z[i];
	obs = fabs(sb / nb - sa / na);
	for (uint64_t s = 0; s < (1ull << n); s++) {
		double s1 = 0, s0 = 0;

		if (__builtin_popcountll(s) != nb)
			continue;
		for (int i = 0; i < n; i++)
			if (s >> i & 1)
				s1 += z[i];
			else
				s0 += z[i];
		total++;
		if (fabs(s1 / nb - s0 / na) >= obs - 1e-12)
			count++;
	}
	return (double)count / total;
}

static void test_stats_interval_is_the_inverted_test(void **state)
{
	uint64_t seed = 11;
	double a[6], b[5], y[11];
	struct il_stats_cmp c;

	(void)state;
	for (int i = 0; i < 6; i++)
		y[i] = a[i] = 5 + 0.1 * gauss(&seed);
	for (int i = 0; i < 5; i++)
		y[6 + i] = b[i] = 5.12 + 0.1 * gauss(&seed);
	assert_int_equal(il_stats_rounds(a, 6, b, 5, IL_STATS_DIFF, 0.05, 1, &c), 0);
	/* Just inside the interval the test accepts; just outside it rejects. */
	assert_true(brute_p(y, 6, 5, c.lo + 1e-9) > 0.05);
	assert_true(brute_p(y, 6, 5, c.hi - 1e-9) > 0.05);
	assert_true(brute_p(y, 6, 5, c.lo - 1e-6) <= 0.05);
	assert_true(brute_p(y, 6, 5, c.hi + 1e-6) <= 0.05);
	assert_float_equal(c.p_value, brute_p(y, 6, 5, 0), 1e-12);
	assert_int_equal(c.verdict, c.lo > 0   ? IL_VERDICT_HIGHER
				    : c.hi < 0 ? IL_VERDICT_LOWER
					       : IL_VERDICT_NONE);
}

/*
 * Figures known to within a resolution (a histogram's half bucket): rounds
 * 0.05% apart, which neighbouring buckets show 0.8% apart, are no clear
 * difference; the interval is the exact one widened by the band, and the
 * p-value is the brute-force one at the band's edge nearest the estimate,
 * so it agrees with the verdict.
 */
static void test_stats_resolution_band(void **state)
{
	const double e = 1.0 / 256, rho = (1 + e) / (1 - e);
	/* 2000 and 2001 us, read as the midpoints of neighbouring buckets. */
	const double near_a[] = {1996.1, 1996.1, 1996.1, 1996.1, 1996.1};
	const double near_b[] = {2011.7, 2011.7, 2011.7, 2011.7, 2011.7};
	uint64_t seed = 5;
	double a[5], b[5], y[10];
	struct il_stats_cmp plain, c;

	(void)state;
	assert_int_equal(il_stats_rounds(near_a, 5, near_b, 5, IL_STATS_RATIO, 0.05, 1, &plain), 0);
	assert_int_equal(plain.verdict, IL_VERDICT_HIGHER);
	assert_int_equal(
	    il_stats_rounds_within(near_a, 5, near_b, 5, IL_STATS_RATIO, 0.05, 1, e, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_NONE);
	assert_float_equal(c.p_value, 1.0, 1e-12);
	assert_float_equal(c.lo, plain.lo / rho, 1e-12);
	assert_float_equal(c.hi, plain.hi * rho, 1e-12);
	assert_float_equal(c.resolution, e, 0);
	assert_non_null(strstr(c.method, "widened"));

	/* Scattered rounds 3% apart: still found, p-value at the band's edge. */
	for (int i = 0; i < 5; i++) {
		a[i] = 2000 * exp(0.01 * gauss(&seed));
		b[i] = 2060 * exp(0.01 * gauss(&seed));
		y[i] = log(a[i]);
		y[5 + i] = log(b[i]);
	}
	assert_int_equal(il_stats_rounds(a, 5, b, 5, IL_STATS_RATIO, 0.05, 1, &plain), 0);
	assert_int_equal(il_stats_rounds_within(a, 5, b, 5, IL_STATS_RATIO, 0.05, 1, e, &c), 0);
	assert_true(c.estimate > rho);
	assert_float_equal(c.p_value, brute_p(y, 5, 5, log(rho)), 1e-12);
	assert_true(c.p_value >= plain.p_value);
	assert_int_equal(c.verdict, IL_VERDICT_HIGHER);
	assert_true(c.p_value <= 0.05);
	assert_int_equal(c.verdict, c.lo > 1 ? IL_VERDICT_HIGHER : IL_VERDICT_NONE);
	assert_float_equal(c.lo, plain.lo / rho, 1e-12);

	/* Exact figures are il_stats_rounds; a band needs the ratio scale. */
	assert_int_equal(il_stats_rounds_within(a, 5, b, 5, IL_STATS_RATIO, 0.05, 1, 0, &c), 0);
	assert_float_equal(c.p_value, plain.p_value, 0);
	assert_float_equal(c.lo, plain.lo, 0);
	assert_int_equal(il_stats_rounds_within(a, 5, b, 5, IL_STATS_DIFF, 0.05, 1, e, &c),
			 -EINVAL);
	assert_int_equal(il_stats_rounds_within(a, 5, b, 5, IL_STATS_RATIO, 0.05, 1, -e, &c),
			 -EINVAL);
	assert_int_equal(il_stats_rounds_within(a, 5, b, 5, IL_STATS_RATIO, 0.05, 1, NAN, &c),
			 -EINVAL);
}

static void test_stats_few_rounds_not_enough(void **state)
{
	const double a[] = {1000, 1040, 980}, b[] = {700, 720, 690};
	struct il_stats_cmp c;

	(void)state;
	assert_int_equal(il_stats_min_rounds(0.05), 4);
	assert_int_equal(il_stats_rounds(a, 3, b, 3, IL_STATS_RATIO, 0.05, 1, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_NOT_ENOUGH);
	assert_string_equal(c.why,
			    "not enough data: 3 and 3 rounds cannot reach 0.05 (their smallest "
			    "p-value is 0.1); 4 rounds of each can");
	assert_true(isnan(c.lo) && isnan(c.hi));
	assert_float_equal(
	    c.estimate,
	    exp((log(700) + log(720) + log(690)) / 3 - (log(1000) + log(1040) + log(980)) / 3),
	    1e-12);
	/* Four a side reach 5% when the difference is that clear. */
	const double a4[] = {1000, 1040, 980, 1010}, b4[] = {700, 720, 690, 705};

	assert_int_equal(il_stats_rounds(a4, 4, b4, 4, IL_STATS_RATIO, 0.05, 1, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_LOWER);
}

static void test_stats_many_rounds_sampled_with_seed(void **state)
{
	uint64_t s = 5;
	double a[20], b[20];
	struct il_stats_cmp c1, c2, c3;

	(void)state;
	for (int i = 0; i < 20; i++) {
		a[i] = exp(7 + 0.05 * gauss(&s));
		b[i] = exp(7.1 + 0.05 * gauss(&s));
	}
	assert_int_equal(il_stats_rounds(a, 20, b, 20, IL_STATS_RATIO, 0.05, 3, &c1), 0);
	assert_false(c1.exact);
	assert_int_equal(c1.resamples, IL_STATS_MC_PERMUTATIONS + 1);
	assert_int_equal(c1.verdict, IL_VERDICT_HIGHER);
	assert_int_equal(il_stats_rounds(a, 20, b, 20, IL_STATS_RATIO, 0.05, 3, &c2), 0);
	assert_true(c1.lo == c2.lo && c1.hi == c2.hi && c1.seed == 3);
	assert_int_equal(il_stats_rounds(a, 20, b, 20, IL_STATS_RATIO, 0.05, 4, &c3), 0);
	assert_true(c1.lo != c3.lo || c1.hi != c3.hi);
}

static void test_stats_errors(void **state)
{
	const double one[] = {1, 2, 3, 4}, zero[] = {0, 1, 2, 3}, bad[] = {1, NAN, 2, 3};
	struct il_stats_cmp c = {.estimate = -7};
	double m = -1, lo = -1, hi = -1, cov = -1;

	(void)state;
	assert_int_equal(il_stats_rounds(one, 0, one, 4, IL_STATS_RATIO, 0.05, 1, &c), -EINVAL);
	assert_int_equal(il_stats_rounds(NULL, 4, one, 4, IL_STATS_RATIO, 0.05, 1, &c), -EINVAL);
	assert_int_equal(il_stats_rounds(one, 4, one, 4, IL_STATS_RATIO, 1.5, 1, &c), -EINVAL);
	assert_int_equal(il_stats_rounds(zero, 4, one, 4, IL_STATS_RATIO, 0.05, 1, &c), -EDOM);
	assert_int_equal(il_stats_rounds(zero, 4, one, 4, IL_STATS_DIFF, 0.05, 1, &c), 0);
	c.estimate = -7;
	assert_int_equal(il_stats_rounds(bad, 4, one, 4, IL_STATS_DIFF, 0.05, 1, &c), -EDOM);
	assert_int_equal(il_stats_runs_blocked(one, 4, one, 4, 1.0, 0.05, 10, 1, &c), -EINVAL);
	assert_int_equal(il_stats_runs_blocked(one, 4, one, 4, 0.5, 0.05, 0, 1, &c), -EINVAL);
	assert_int_equal(il_stats_runs_blocked(zero, 4, one, 4, 0.5, 0.05, 10, 1, &c), -EDOM);
	assert_true(c.estimate == -7);
	assert_int_equal(il_stats_median_ci(bad, 4, 0.05, &m, &lo, &hi, &cov), -EDOM);
	assert_int_equal(il_stats_median_ci(one, 0, 0.05, &m, &lo, &hi, &cov), -EINVAL);
	assert_true(m == -1 && lo == -1 && hi == -1 && cov == -1);
}

/* An AR(1) latency series: consecutive events are correlated, as in a run. */
static void ar1_run(double *v, size_t n, double median_us, double rho, uint64_t seed)
{
	double x = 0;

	for (size_t i = 0; i < n; i++) {
		x = rho * x + sqrt(1 - rho * rho) * gauss(&seed);
		v[i] = median_us * exp(0.25 * x);
	}
}

static void test_stats_blocked_same_run_and_scaled_run(void **state)
{
	enum { N = 2000 };
	double a[N], b[N];
	const double qs[] = {0.5, 0.9, 0.99, IL_STATS_MEAN};
	struct il_stats_cmp c;

	(void)state;
	ar1_run(a, N, 1700, 0.6, 21);
	for (size_t i = 0; i < N; i++)
		b[i] = 1.2 * a[i];
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(il_stats_runs_blocked(a, N, a, N, qs[k], 0.05, 2000, 1, &c), 0);
		assert_int_equal(c.verdict, IL_VERDICT_NONE);
		assert_float_equal(c.estimate, 1.0, 1e-12);
		assert_int_equal(il_stats_runs_blocked(a, N, b, N, qs[k], 0.05, 2000, 1, &c), 0);
		assert_int_equal(c.verdict, IL_VERDICT_HIGHER);
		assert_float_equal(c.estimate, 1.2, 1e-9);
	}
	/* Strongly correlated events make longer blocks than the n^(1/3) floor;
	 * independent ones stay at it. */
	ar1_run(b, N, 1700, 0.9, 22);
	assert_true(il_stats_block_length(b, N) > 2 * (unsigned)ceil(cbrt(N)));
	ar1_run(b, N, 1700, 0.0, 23);
	assert_int_equal(il_stats_block_length(b, N), (unsigned)ceil(cbrt(N)));
	/* 100 events cannot carry a p99. */
	assert_int_equal(il_stats_runs_blocked(a, 100, b, 100, 0.99, 0.05, 2000, 1, &c), 0);
	assert_int_equal(c.verdict, IL_VERDICT_NOT_ENOUGH);
	assert_string_equal(c.why, "not enough data: this percentile needs at least 500 events per "
				   "run (has 100 and 100)");
	assert_int_equal(il_stats_min_events(0.99), 500);
	assert_int_equal(il_stats_min_events(0.9), 50);
	assert_int_equal(il_stats_min_events(0.5), 10);
}

static void test_stats_median_interval(void **state)
{
	const double v[] = {5, 1, 4, 2, 3, 6}, five[] = {1, 2, 3, 4, 5};
	double m, lo, hi, cov;

	(void)state;
	assert_int_equal(il_stats_median_ci(v, 6, 0.05, &m, &lo, &hi, &cov), 0);
	assert_float_equal(m, 3.5, 1e-12);
	assert_true(lo == 1 && hi == 6);
	assert_float_equal(cov, 1 - 2.0 / 64, 1e-12);
	/* Five values cover only 93.75% with their whole range. */
	assert_int_equal(il_stats_median_ci(five, 5, 0.05, &m, &lo, &hi, &cov), 1);
	assert_true(lo == 1 && hi == 5);
	assert_float_equal(cov, 1 - 2.0 / 32, 1e-12);
}

/* --- a family of verdicts ------------------------------------------------ */

static void test_stats_fdr_level(void **state)
{
	/* Sorted .005 .01 .03 .04 against .0125 .025 .0375 .05: all four. */
	const double all[] = {0.01, 0.04, 0.03, 0.005};
	/* .02 <= .025, .5 > .05: the first only. */
	const double one[] = {0.5, 0.02};
	/* Step-up: .04 > .025 (k = 2 of 4) but .045 <= .05 (k = 4): all. */
	const double up[] = {0.045, 0.04, 0.045, 0.001};
	/* Nothing: .03 > .05 / 4. */
	const double none[] = {0.03, 0.2, 0.9, 1};
	const double bad[] = {0.1, 1.5};
	const double nan_p[] = {0.1, NAN};
	size_t r = 99;

	(void)state;
	assert_float_equal(il_stats_fdr_level(all, 4, 0.05, &r), 0.05, 1e-12);
	assert_int_equal(r, 4);
	assert_float_equal(il_stats_fdr_level(one, 2, 0.05, &r), 0.025, 1e-12);
	assert_int_equal(r, 1);
	assert_float_equal(il_stats_fdr_level(up, 4, 0.05, &r), 0.05, 1e-12);
	assert_int_equal(r, 4);
	/* None rejected: the level is alpha / m, below every p-value given. */
	assert_float_equal(il_stats_fdr_level(none, 4, 0.05, &r), 0.0125, 1e-12);
	assert_int_equal(r, 0);
	/* A family of one is the comparison itself. */
	assert_float_equal(il_stats_fdr_level(one + 1, 1, 0.05, NULL), 0.05, 1e-12);
	/* A p-value of exactly its threshold rejects, as il_stats_rounds does. */
	assert_float_equal(il_stats_fdr_level((const double[]){0.025, 0.9}, 2, 0.05, &r), 0.025,
			   1e-12);
	assert_int_equal(r, 1);
	assert_true(isnan(il_stats_fdr_level(bad, 2, 0.05, &r)));
	assert_true(isnan(il_stats_fdr_level(nan_p, 2, 0.05, &r)));
	assert_true(isnan(il_stats_fdr_level(all, 0, 0.05, &r)));
	assert_true(isnan(il_stats_fdr_level(NULL, 2, 0.05, &r)));
	assert_true(isnan(il_stats_fdr_level(all, 4, 0, &r)));
	assert_true(isnan(il_stats_fdr_level(all, 4, 1, &r)));
}

/* --- calibration on this machine's round-to-round variance ------------- */

#define MAX_FIXTURE 64
/* The sweep's and the quick sweep's rounds a side. */
#define DEFAULT_ROUNDS 16
#define QUICK_ROUNDS   4
#define SIMS	       500

struct config {
	char name[32];
	double p50[MAX_FIXTURE], p99[MAX_FIXTURE]; /* log of each usable round's value */
	size_t n;
};

/* tests/data/round-variance.csv: the rounds whose work was within 10%. */
static size_t load_fixture(struct config *cfg, size_t max)
{
	const char *src = getenv("IL_SOURCE_DIR");
	char path[512], line[512], name[32], session[32];
	size_t ncfg = 0;
	FILE *f;

	if (src) {
		snprintf(path, sizeof(path), "%s/tests/data/round-variance.csv", src);
	} else {
		snprintf(path, sizeof(path), "%s", __FILE__);
		snprintf(strrchr(path, '/'), 40, "/data/round-variance.csv");
	}
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		double p50, p90, p99, mean, work;
		int round, events;
		size_t i;

		if (line[0] == '#' ||
		    sscanf(line, "%31[^,],%31[^,],%d,%d,%lf,%lf,%lf,%lf,%lf", name, session, &round,
			   &events, &p50, &p90, &p99, &mean, &work) != 9)
			continue;
		if (fabs(work - 1) > 0.10)
			continue;
		for (i = 0; i < ncfg && strcmp(cfg[i].name, name); i++)
			;
		if (i == ncfg) {
			assert_true(ncfg < max);
			memset(&cfg[ncfg], 0, sizeof(cfg[0]));
			snprintf(cfg[ncfg++].name, sizeof(cfg[0].name), "%s", name);
		}
		assert_true(cfg[i].n < MAX_FIXTURE);
		cfg[i].p50[cfg[i].n] = log(p50);
		cfg[i].p99[cfg[i].n++] = log(p99);
	}
	fclose(f);
	return ncfg;
}

/* One simulated round: a real round's deviation from its configuration's
 * mean (on log scale), drawn with replacement, around 1000 us. */
static double draw(const double *logs, size_t n, double mean, uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return 1000.0 * exp(logs[(*s >> 33) % n] - mean);
}

/*
 * Rejection rate of il_stats_rounds on simulated sweeps with `rounds` a
 * side, B shifted by `shift` (1: A/A). A rejection is a verdict other than
 * "no clear difference"; with a shift only the right direction counts.
 */
static double reject_rate(const double *logs, size_t n, unsigned rounds, double shift,
			  uint64_t seed)
{
	double mean = 0, a[32], b[32];
	unsigned hits = 0;

	for (size_t i = 0; i < n; i++)
		mean += logs[i] / (double)n;
	for (int sim = 0; sim < SIMS; sim++) {
		struct il_stats_cmp c;

		for (unsigned i = 0; i < rounds; i++) {
			a[i] = draw(logs, n, mean, &seed);
			b[i] = shift * draw(logs, n, mean, &seed);
		}
		assert_int_equal(il_stats_rounds(a, rounds, b, rounds, IL_STATS_RATIO, 0.05, 1, &c),
				 0);
		if (shift == 1.0 ? c.verdict == IL_VERDICT_LOWER || c.verdict == IL_VERDICT_HIGHER
				 : c.verdict == (shift > 1 ? IL_VERDICT_HIGHER : IL_VERDICT_LOWER))
			hits++;
	}
	return (double)hits / SIMS;
}

static double sd_of(const double *v, size_t n)
{
	double m = 0, s = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)(n - 1));
}

static void test_stats_sim_calibrated_on_this_machine(void **state)
{
	struct config cfg[8];
	size_t ncfg;
	/* An A/A rate at most 5% plus twice its simulation error. */
	const double fpr_max = 0.05 + 2 * sqrt(0.05 * 0.95 / SIMS);

	(void)state;
	ncfg = load_fixture(cfg, 8);
	assert_int_equal(ncfg, 3);
	for (size_t i = 0; i < ncfg; i++) {
		double aa50 = reject_rate(cfg[i].p50, cfg[i].n, DEFAULT_ROUNDS, 1.0, 11 + i);
		double aa99 = reject_rate(cfg[i].p99, cfg[i].n, DEFAULT_ROUNDS, 1.0, 21 + i);
		double aaq = reject_rate(cfg[i].p50, cfg[i].n, QUICK_ROUNDS, 1.0, 31 + i);
		/* The test is symmetric: a shift down is found as often as up. */
		double up = reject_rate(cfg[i].p50, cfg[i].n, DEFAULT_ROUNDS, 1.10, 41 + i);

		print_message("%-9s %2zu rounds, sd(log p50) %.3f sd(log p99) %.3f: A/A p50 %.3f "
			      "p99 %.3f (%u rounds) p50 %.3f (%u rounds); power for p50 x1.10 %.3f "
			      "(%u rounds)\n",
			      cfg[i].name, cfg[i].n, sd_of(cfg[i].p50, cfg[i].n),
			      sd_of(cfg[i].p99, cfg[i].n), aa50, aa99, DEFAULT_ROUNDS, aaq,
			      QUICK_ROUNDS, up, DEFAULT_ROUNDS);
		assert_true(cfg[i].n >= 8);
		assert_true(aa50 <= fpr_max);
		assert_true(aa99 <= fpr_max);
		assert_true(aaq <= fpr_max);
		assert_true(up >= 0.80);
	}
}

/*
 * A whole A/A sweep table, as scripts/policy-sweep judges it (*one_by_one:
 * the rate had each verdict been judged at 5% on its own): SCENARIOS
 * scenarios, each a reference cell and OTHERS more cells from the same
 * configuration, every cell DEFAULT_ROUNDS rounds; each round's p50 and
 * p99 come from one real round (so they move together, as they do). The
 * p50 and p99 of every other cell against the scenario's reference (which
 * they all share) form the family; il_stats_fdr_level gives the level, and
 * a table with any verdict at that level is a false positive. Returns the
 * rate over TABLES tables.
 */
#define SCENARIOS 2
#define OTHERS	  3
#define TABLES	  200
static double table_false_positive_rate(const struct config *c, uint64_t seed, double *one_by_one)
{
	double m50 = 0, m99 = 0;
	unsigned hits = 0, raw = 0;

	for (size_t i = 0; i < c->n; i++) {
		m50 += c->p50[i] / (double)c->n;
		m99 += c->p99[i] / (double)c->n;
	}
	for (int t = 0; t < TABLES; t++) {
		double p[SCENARIOS * OTHERS * 2], level;
		size_t np = 0, r;

		for (int s = 0; s < SCENARIOS; s++) {
			double cell50[OTHERS + 1][DEFAULT_ROUNDS],
			    cell99[OTHERS + 1][DEFAULT_ROUNDS];

			for (int k = 0; k <= OTHERS; k++)
				for (int i = 0; i < DEFAULT_ROUNDS; i++) {
					size_t j;

					seed =
					    seed * 6364136223846793005ull + 1442695040888963407ull;
					j = (seed >> 33) % c->n;
					cell50[k][i] = 1000.0 * exp(c->p50[j] - m50);
					cell99[k][i] = 3000.0 * exp(c->p99[j] - m99);
				}
			for (int k = 1; k <= OTHERS; k++) {
				struct il_stats_cmp a, b;

				assert_int_equal(il_stats_rounds(cell50[0], DEFAULT_ROUNDS,
								 cell50[k], DEFAULT_ROUNDS,
								 IL_STATS_RATIO, IL_STATS_ALPHA, 1,
								 &a),
						 0);
				assert_int_equal(il_stats_rounds(cell99[0], DEFAULT_ROUNDS,
								 cell99[k], DEFAULT_ROUNDS,
								 IL_STATS_RATIO, IL_STATS_ALPHA, 1,
								 &b),
						 0);
				p[np++] = a.p_value;
				p[np++] = b.p_value;
			}
		}
		level = il_stats_fdr_level(p, np, IL_STATS_ALPHA, &r);
		assert_false(isnan(level));
		hits += r > 0;
		for (size_t i = 0; i < np; i++)
			if (p[i] <= IL_STATS_ALPHA) {
				raw++;
				break;
			}
	}
	*one_by_one = (double)raw / TABLES;
	return (double)hits / TABLES;
}

static void test_stats_sim_sweep_table_holds_its_rate(void **state)
{
	struct config cfg[8];
	size_t ncfg;
	const double fpr_max = 0.05 + 2 * sqrt(0.05 * 0.95 / TABLES);

	(void)state;
	ncfg = load_fixture(cfg, 8);
	for (size_t i = 0; i < ncfg; i++) {
		double raw, rate = table_false_positive_rate(&cfg[i], 51 + i, &raw);

		print_message("%-9s A/A table of %d verdicts (%d scenarios x %d cells x p50, p99), "
			      "%d rounds: a verdict in %.3f of %d tables (%.3f judged one by one "
			      "at 5%%)\n",
			      cfg[i].name, SCENARIOS * OTHERS * 2, SCENARIOS, OTHERS,
			      DEFAULT_ROUNDS, rate, TABLES, raw);
		assert_true(rate <= fpr_max);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stats_identical_rounds_no_difference),
	    cmocka_unit_test(test_stats_shifted_rounds_found),
	    cmocka_unit_test(test_stats_interval_is_the_inverted_test),
	    cmocka_unit_test(test_stats_resolution_band),
	    cmocka_unit_test(test_stats_few_rounds_not_enough),
	    cmocka_unit_test(test_stats_many_rounds_sampled_with_seed),
	    cmocka_unit_test(test_stats_errors),
	    cmocka_unit_test(test_stats_blocked_same_run_and_scaled_run),
	    cmocka_unit_test(test_stats_median_interval),
	    cmocka_unit_test(test_stats_sim_calibrated_on_this_machine),
	    cmocka_unit_test(test_stats_fdr_level),
	    cmocka_unit_test(test_stats_sim_sweep_table_holds_its_rate),
	};

	/* ctest runs the two error-rate simulations (test_stats_sim_*) as a
	 * test of their own, beside the ASan pass (tests/sweep.cmake). */
	if (il_test_filters("test_stats", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
