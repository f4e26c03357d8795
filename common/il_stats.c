#include "il_stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- random numbers: xoshiro256** (Blackman & Vigna), seeded with splitmix64 */
struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's method). */
static size_t rng_below(struct rng *r, size_t n)
{
	uint64_t x = rng_next(r);
	unsigned __int128 m = (unsigned __int128)x * n;
	uint64_t l = (uint64_t)m;

	if (l < n) {
		uint64_t t = -(uint64_t)n % n;

		while (l < t) {
			x = rng_next(r);
			m = (unsigned __int128)x * n;
			l = (uint64_t)m;
		}
	}
	return (size_t)(m >> 64);
}

/* --- small helpers ------------------------------------------------------ */
const char *il_verdict_name(enum il_verdict v)
{
	switch (v) {
	case IL_VERDICT_NONE:
		return "no clear difference";
	case IL_VERDICT_LOWER:
		return "lower";
	case IL_VERDICT_HIGHER:
		return "higher";
	case IL_VERDICT_NOT_ENOUGH:
		break;
	}
	return "not enough data";
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

double il_stats_quantile_sorted(const double *v, size_t n, double q)
{
	double pos, frac;
	size_t i;

	if (!n)
		return NAN;
	if (q <= 0)
		return v[0];
	if (q >= 1)
		return v[n - 1];
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	frac = pos - (double)i;
	if (i + 1 >= n)
		return v[n - 1];
	return frac == 0 ? v[i] : v[i] + (v[i + 1] - v[i]) * frac;
}

static inline void swap_double(double *v, size_t i, size_t j)
{
	double t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/*
 * Moves the k-th smallest of v[n] to v[k], with nothing larger before it
 * and nothing smaller after it (quickselect, three-way partition so that
 * runs of equal latencies cost nothing, median-of-three pivot).
 */
static void select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, i = lo, gt = hi;
		double x = v[lo], y = v[mid], z = v[hi];
		double pivot =
		    x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));

		/* [lo, lt) < pivot, [lt, i) == pivot, (gt, hi] > pivot. The
		 * pivot is one of the values, so gt never passes lt. */
		while (i <= gt) {
			if (v[i] < pivot)
				swap_double(v, lt++, i++);
			else if (v[i] > pivot)
				swap_double(v, i, gt--);
			else
				i++;
		}
		if (k < lt)
			hi = lt - 1;
		else if (k > gt)
			lo = gt + 1;
		else
			return;
	}
}

/* Quantile q of v[n] (reordered in place), type 7, as il_stats_quantile_sorted. */
static double quantile_select(double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1), frac, lo, hi;
	size_t i = (size_t)pos;

	if (i >= n - 1) {
		select_kth(v, n, n - 1);
		return v[n - 1];
	}
	select_kth(v, n, i);
	lo = v[i];
	frac = pos - (double)i;
	if (frac == 0)
		return lo;
	/* The next order statistic is the smallest of what lies above v[i]. */
	hi = v[i + 1];
	for (size_t j = i + 2; j < n; j++)
		if (v[j] < hi)
			hi = v[j];
	return lo + (hi - lo) * frac;
}

uint64_t il_stats_min_events(double q)
{
	if (q < 0)
		return IL_STATS_MIN_MEAN_EVENTS;
	if (q >= 1)
		return UINT64_MAX;
	/* The small epsilon keeps 5 / 0.01 at 500, not 501 from rounding. */
	return (uint64_t)ceil(IL_STATS_MIN_TAIL / (1.0 - q) - 1e-9);
}

/* C(n, k) as a double (exact up to 2^53, which is all we compare it with). */
static double choose(unsigned n, unsigned k)
{
	double c = 1;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (unsigned i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return round(c);
}

unsigned il_stats_min_rounds(double alpha)
{
	/* With equal sides the observed split and its mirror always count. */
	for (unsigned k = 1; k < 31; k++)
		if (2.0 / choose(2 * k, k) <= alpha)
			return k;
	return 31;
}

static int check_values(const double *v, size_t n, bool positive)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]) || (positive && v[i] <= 0))
			return -EDOM;
	return 0;
}

/* --- permutation test over rounds --------------------------------------- */
struct perm {
	const double *y; /* pooled: A's rounds then B's, on the test's scale */
	unsigned na, nb;
	double d;	      /* observed mean(B) - mean(A) */
	double eps;	      /* rounding of the sums: ties closer than this are ties */
	double total;	      /* sum of y */
	uint64_t bmask;	      /* which pooled items are B's */
	double *lows, *highs; /* each partition's interval of shifts it counts for */
	size_t nint;
	/* Per k (B's rounds among the nb playing B): c and 1 / (1 -+ c). */
	double c[64], inv_minus[64], inv_plus[64];
	double inv_na, inv_nb;
	uint64_t always; /* partitions that accept every shift */
	uint64_t count;
};

/*
 * One partition: the nb pooled rounds in `s` play B. With B shifted by t
 * its statistic is a - t c, against the observed d - t; it counts toward
 * the p-value of t when |a - t c| >= |d - t|, which (|c| <= 1) holds on
 * the closed interval between (d - a) / (1 - c) and (d + a) / (1 + c),
 * or for every t when c = +-1 (the observed split and its mirror). Every
 * such interval contains d: at t = d the observed statistic is 0.
 */
static void perm_visit(struct perm *p, uint64_t s)
{
	double sum_s = 0, a, r1, r2;
	unsigned k = (unsigned)__builtin_popcountll(s & p->bmask);

	for (uint64_t m = s; m; m &= m - 1)
		sum_s += p->y[__builtin_ctzll(m)];
	a = sum_s * p->inv_nb - (p->total - sum_s) * p->inv_na;
	p->count++;
	if (k == p->nb || (k == 0 && p->na == p->nb)) {
		p->always++;
		return;
	}
	r1 = (p->d - a) * p->inv_minus[k];
	r2 = (p->d + a) * p->inv_plus[k];
	if (r1 > r2) {
		double t = r1;

		r1 = r2;
		r2 = t;
	}
	p->lows[p->nint] = r1;
	p->highs[p->nint++] = r2;
}

/* The next larger integer with as many bits set (Gosper's hack). */
static uint64_t next_combination(uint64_t s)
{
	uint64_t c = s & -s, r = s + c;

	return (((r ^ s) >> 2) / c) | r;
}

int il_stats_rounds(const double *a, size_t na, const double *b, size_t nb,
		    enum il_stats_scale scale, double alpha, uint64_t seed,
		    struct il_stats_cmp *out)
{
	return il_stats_rounds_within(a, na, b, nb, scale, alpha, seed, 0, out);
}

/*
 * The p-value of the null "the shift is t" is the share of partitions
 * that count for t; of "the shift lies within [-band, band]", the largest
 * such share over the band, which (every partition's interval holds d)
 * is at the band's point nearest d.
 */
static double p_at(const struct perm *p, double t)
{
	uint64_t n = p->always;

	for (size_t i = 0; i < p->nint; i++)
		/* As extreme as the observed one counts (>=): exact ties must
		 * not be lost to rounding. */
		if (p->lows[i] <= t + p->eps && t - p->eps <= p->highs[i])
			n++;
	return (double)n / (double)p->count;
}

int il_stats_rounds_within(const double *a, size_t na, const double *b, size_t nb,
			   enum il_stats_scale scale, double alpha, uint64_t seed,
			   double resolution, struct il_stats_cmp *out)
{
	struct il_stats_cmp res = {
	    .verdict = IL_VERDICT_NOT_ENOUGH, .seed = seed, .resolution = resolution};
	bool ratio = scale == IL_STATS_RATIO;
	struct perm p = {0};
	double y[64], sa = 0, sb = 0, npart, lo, hi, band;
	size_t n = na + nb, need;
	uint64_t count;
	int rc;

	if (!a || !b || !out || !na || !nb || n > IL_STATS_MAX_ROUNDS ||
	    !(alpha > 0 && alpha < 1) || !(resolution >= 0 && resolution < 0.5) ||
	    (resolution > 0 && !ratio))
		return -EINVAL;
	/* A figure within `resolution` of its true value: the true ratio is
	 * the observed one within (1 + r) / (1 - r) either way. */
	band = log((1 + resolution) / (1 - resolution));
	rc = check_values(a, na, ratio);
	if (rc == 0)
		rc = check_values(b, nb, ratio);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < na; i++)
		sa += y[i] = ratio ? log(a[i]) : a[i];
	for (size_t i = 0; i < nb; i++)
		sb += y[na + i] = ratio ? log(b[i]) : b[i];

	p.y = y;
	p.na = (unsigned)na;
	p.nb = (unsigned)nb;
	p.d = sb / (double)nb - sa / (double)na;
	for (size_t i = 0; i < n; i++)
		p.eps = fmax(p.eps, fabs(y[i]));
	p.eps = 1e-9 * (1 + p.eps);
	p.total = sa + sb;
	p.bmask = ((1ull << nb) - 1) << na;
	p.inv_na = 1.0 / (double)na;
	p.inv_nb = 1.0 / (double)nb;
	for (size_t k = 0; k <= nb; k++) {
		p.c[k] = (double)k / (double)nb - (double)(nb - k) / (double)na;
		p.inv_minus[k] = 1 / (1 - p.c[k]);
		p.inv_plus[k] = 1 / (1 + p.c[k]);
	}
	npart = choose((unsigned)n, (unsigned)nb);
	res.exact = npart <= IL_STATS_MAX_EXACT;
	count = res.exact ? (uint64_t)npart : IL_STATS_MC_PERMUTATIONS + 1;
	res.estimate = ratio ? exp(p.d) : p.d;
	res.lo = res.hi = res.p_value = NAN;
	res.resamples = count;
	/* The observed split (and its mirror, with equal sides) always counts. */
	res.min_p = (na == nb ? 2.0 : 1.0) / (res.exact ? npart : (double)count);
	if (na == nb && !res.exact)
		res.min_p = 1.0 / (double)count;
	snprintf(res.method, sizeof(res.method),
		 "permutation test over rounds (%zu vs %zu), %s %llu partitions", na, nb,
		 res.exact ? "all" : "random", (unsigned long long)count);
	if (res.min_p > alpha) {
		/* Equal sides need il_stats_min_rounds each; unequal ones reach
		 * it with enough partitions (1 round against 20 may). */
		snprintf(res.why, sizeof(res.why),
			 "not enough data: %zu and %zu rounds cannot reach %g (their smallest "
			 "p-value is %.3g); %u rounds of each can",
			 na, nb, alpha, res.min_p, il_stats_min_rounds(alpha));
		*out = res;
		return 0;
	}

	p.lows = malloc(sizeof(*p.lows) * (size_t)count);
	p.highs = malloc(sizeof(*p.highs) * (size_t)count);
	if (!p.lows || !p.highs) {
		free(p.lows);
		free(p.highs);
		return -ENOMEM;
	}
	if (res.exact) {
		uint64_t s = (1ull << nb) - 1, end = 1ull << n;

		for (; s < end; s = next_combination(s))
			perm_visit(&p, s);
	} else {
		struct rng rng;
		unsigned idx[64];

		rng_seed(&rng, seed);
		perm_visit(&p, p.bmask);
		for (unsigned j = 0; j < n; j++)
			idx[j] = j;
		for (uint64_t i = 1; i < count; i++) {
			uint64_t s = 0;

			/* A random nb-subset: the first nb of a partial Fisher-Yates
			 * shuffle, which is uniform whatever order idx was left in. */
			for (unsigned j = 0; j < nb; j++) {
				unsigned r = j + (unsigned)rng_below(&rng, n - j), t = idx[j];

				idx[j] = idx[r];
				idx[r] = t;
				s |= 1ull << idx[j];
			}
			perm_visit(&p, s);
		}
	}

	/*
	 * A shift t is accepted when more than alpha of all partitions count
	 * for it (p-value(t) > alpha). Every partition's interval holds d, so
	 * below d the count is `always` plus the intervals that have opened,
	 * rising with t: the interval starts at the need-th smallest lower end
	 * and, above d, ends at the need-th largest upper end, where need is
	 * how many more than alpha N - always it takes. Exact, and one interval.
	 */
	/* Before the selections below reorder the ends apart. */
	res.p_value = p_at(&p, fmax(-band, fmin(band, p.d)));
	/* The 1e-9: a p-value of exactly alpha rejects, whatever the rounding. */
	need = (size_t)fmax(0, floor(alpha * (double)p.count + 1e-9 - (double)p.always)) + 1;
	if (need > p.nint) {
		/* Only with alpha near 1: nothing but d itself is accepted. */
		lo = hi = p.d;
	} else {
		select_kth(p.lows, p.nint, need - 1);
		lo = p.lows[need - 1];
		select_kth(p.highs, p.nint, p.nint - need);
		hi = p.highs[p.nint - need];
	}
	free(p.lows);
	free(p.highs);
	/* The interval of the true shift: the observed one's, widened by the band. */
	lo -= band;
	hi += band;
	res.lo = ratio ? exp(lo) : lo;
	res.hi = ratio ? exp(hi) : hi;
	if (band > 0) {
		size_t len = strlen(res.method);

		snprintf(res.method + len, sizeof(res.method) - len,
			 "; each round's figure within %.2g%%, so the interval is widened by it",
			 100 * resolution);
	}
	/* An end within rounding of 0 is 0: the interval then holds "no change". */
	res.verdict = hi < -p.eps  ? IL_VERDICT_LOWER
		      : lo > p.eps ? IL_VERDICT_HIGHER
				   : IL_VERDICT_NONE;
	*out = res;
	return 0;
}

/* --- blocked bootstrap of two single runs -------------------------------- */
unsigned il_stats_block_length(const double *v, size_t n)
{
	unsigned floor_len, len, kn, maxlag;
	double mean = 0, var = 0, c, *x;
	size_t m = 0, run = 0;

	if (!v || n < 8)
		return 1;
	floor_len = (unsigned)ceil(cbrt((double)n));
	maxlag = n / 10 < 200 ? (unsigned)(n / 10) : 200;
	x = malloc(sizeof(*x) * n);
	if (!x)
		return floor_len;
	for (size_t i = 0; i < n; i++)
		mean += x[i] = log(v[i]);
	mean /= (double)n;
	for (size_t i = 0; i < n; i++) {
		x[i] -= mean;
		var += x[i] * x[i];
	}
	/* Politis & White: the first lag m after which K_N autocorrelations in
	 * a row stay below 2 sqrt(log10(n) / n). */
	c = 2 * sqrt(log10((double)n) / (double)n);
	kn = (unsigned)fmax(5, ceil(sqrt(log10((double)n))));
	len = maxlag;
	if (var > 0) {
		for (size_t lag = 1; lag <= maxlag; lag++) {
			double acc = 0;

			for (size_t i = lag; i < n; i++)
				acc += x[i] * x[i - lag];
			if (fabs(acc / var) < c) {
				if (++run >= kn) {
					m = lag - kn;
					len = (unsigned)(2 * m);
					break;
				}
			} else {
				run = 0;
			}
		}
	} else {
		len = 1;
	}
	free(x);
	if (len < floor_len)
		len = floor_len;
	/* At least ten blocks: with fewer, the resamples are a handful of
	 * rearrangements of the same few stretches of the run. */
	if (len > n / 10)
		len = (unsigned)(n / 10);
	return len ? len : 1;
}

/* The statistic on v[n] (reordered): quantile q, or the mean for q < 0. */
static double stat_of(double *v, size_t n, double q)
{
	double s = 0;

	if (q >= 0)
		return quantile_select(v, n, q);
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

/* One circular block bootstrap resample of v[n] into out[n]. */
static void block_resample(struct rng *r, const double *v, size_t n, unsigned len, double *out)
{
	size_t filled = 0;

	while (filled < n) {
		size_t start = rng_below(r, n);

		for (unsigned j = 0; j < len && filled < n; j++)
			out[filled++] = v[(start + j) % n];
	}
}

int il_stats_runs_blocked(const double *a, size_t na, const double *b, size_t nb, double q,
			  double alpha, unsigned resamples, uint64_t seed, struct il_stats_cmp *out)
{
	struct il_stats_cmp res = {.verdict = IL_VERDICT_NOT_ENOUGH, .seed = seed};
	double *buf = NULL, *diffs = NULL, full_a, full_b;
	uint64_t need = il_stats_min_events(q);
	size_t below = 0, above = 0;
	struct rng rng;
	int rc;

	if (!a || !b || !out || !na || !nb || !resamples || !(alpha > 0 && alpha < 1) ||
	    !(q == IL_STATS_MEAN || (q > 0 && q < 1)))
		return -EINVAL;
	rc = check_values(a, na, true);
	if (rc == 0)
		rc = check_values(b, nb, true);
	if (rc < 0)
		return rc;
	res.estimate = res.lo = res.hi = res.p_value = NAN;
	res.resamples = resamples;
	res.min_p = 1.0 / resamples;
	res.block_a = il_stats_block_length(a, na);
	res.block_b = il_stats_block_length(b, nb);
	snprintf(
	    res.method, sizeof(res.method),
	    "circular block bootstrap of one run each (blocks of %u and %u events), %u resamples",
	    res.block_a, res.block_b, resamples);
	if (na < need || nb < need) {
		snprintf(res.why, sizeof(res.why),
			 "not enough data: %s needs at least %llu events per run (has %zu and %zu)",
			 q < 0 ? "the mean" : "this percentile", (unsigned long long)need, na, nb);
		*out = res;
		return 0;
	}

	buf = malloc(sizeof(*buf) * (na > nb ? na : nb));
	diffs = malloc(sizeof(*diffs) * resamples);
	if (!buf || !diffs) {
		free(buf);
		free(diffs);
		return -ENOMEM;
	}
	memcpy(buf, a, sizeof(*buf) * na);
	full_a = stat_of(buf, na, q);
	memcpy(buf, b, sizeof(*buf) * nb);
	full_b = stat_of(buf, nb, q);
	rng_seed(&rng, seed);
	for (unsigned i = 0; i < resamples; i++) {
		double sa, sb;

		block_resample(&rng, a, na, res.block_a, buf);
		sa = stat_of(buf, na, q);
		block_resample(&rng, b, nb, res.block_b, buf);
		sb = stat_of(buf, nb, q);
		diffs[i] = log(sb) - log(sa);
		below += diffs[i] <= 0;
		above += diffs[i] >= 0;
	}
	qsort(diffs, resamples, sizeof(*diffs), cmp_double);
	res.estimate = full_b / full_a;
	res.lo = exp(il_stats_quantile_sorted(diffs, resamples, alpha / 2));
	res.hi = exp(il_stats_quantile_sorted(diffs, resamples, 1 - alpha / 2));
	res.p_value = fmin(1.0, 2.0 * (double)(below < above ? below : above) / resamples);
	res.verdict = res.hi < 1   ? IL_VERDICT_LOWER
		      : res.lo > 1 ? IL_VERDICT_HIGHER
				   : IL_VERDICT_NONE;
	free(buf);
	free(diffs);
	*out = res;
	return 0;
}

/* --- one-sample interval for a median ------------------------------------ */
int il_stats_median_ci(const double *v, size_t n, double alpha, double *median, double *lo,
		       double *hi, double *coverage)
{
	double *s, pmf, cdf, cover = 0;
	size_t k = 0;
	int rc;

	if (!v || !median || !lo || !hi || !coverage || !n || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	rc = check_values(v, n, false);
	if (rc < 0)
		return rc;
	s = malloc(sizeof(*s) * n);
	if (!s)
		return -ENOMEM;
	memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);

	/* Coverage of [x(j), x(n+1-j)] is 1 - 2 P(Bin(n, 1/2) <= j - 1). */
	pmf = pow(0.5, (double)n);
	cdf = 0;
	for (size_t j = 1; j <= (n + 1) / 2; j++) {
		double c;

		cdf += pmf; /* P(X <= j - 1) */
		pmf = pmf * (double)(n - (j - 1)) / (double)j;
		c = 1 - 2 * cdf;
		if (c < 1 - alpha)
			break;
		k = j;
		cover = c;
	}
	*median = il_stats_quantile_sorted(s, n, 0.5);
	if (k == 0) {
		*lo = s[0];
		*hi = s[n - 1];
		*coverage = n > 1 ? 1 - 2 * pow(0.5, (double)n) : 0;
		free(s);
		return 1;
	}
	*lo = s[k - 1];
	*hi = s[n - k];
	*coverage = cover;
	free(s);
	return 0;
}

/* --- a family of verdicts ------------------------------------------------ */
double il_stats_fdr_level(const double *p, size_t m, double alpha, size_t *rejected)
{
	size_t r = 0;
	double *s;

	if (!p || m == 0 || !(alpha > 0 && alpha < 1))
		return NAN;
	for (size_t i = 0; i < m; i++)
		if (!(p[i] >= 0 && p[i] <= 1))
			return NAN;
	s = malloc(sizeof(*s) * m);
	if (!s)
		return NAN;
	memcpy(s, p, sizeof(*s) * m);
	qsort(s, m, sizeof(*s), cmp_double);
	/* Step-up: the largest k whose p_(k) is within its threshold, the
	 * same 1e-9 as il_stats_rounds so that a p of exactly the level rejects. */
	for (size_t k = m; k >= 1; k--)
		if (s[k - 1] <= alpha * (double)k / (double)m + 1e-9) {
			r = k;
			break;
		}
	free(s);
	if (rejected)
		*rejected = r;
	return alpha * (double)(r ? r : 1) / (double)m;
}
