#include "il_bootstrap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* xoshiro256** (Blackman & Vigna), seeded with splitmix64 as they advise. */
struct il_rng {
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

static void rng_seed(struct il_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rng_next(struct il_rng *r)
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

/* Uniform index in [0, n), without modulo bias (Lemire's method). */
static size_t rng_below(struct il_rng *r, size_t n)
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

static int mean_of(const double *v, size_t n, double *out)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return -EDOM;
		sum += v[i];
	}
	*out = sum / (double)n;
	return 0;
}

static double resampled_mean(struct il_rng *r, const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[rng_below(r, n)];
	return sum / (double)n;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* Percentile q (0..1) of sorted v by linear interpolation. */
static double sorted_quantile(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double frac = pos - (double)i;

	if (i + 1 >= n)
		return v[n - 1];
	if (frac == 0)
		return v[i];
	return v[i] + (v[i + 1] - v[i]) * frac;
}

int il_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
			  unsigned resamples, uint64_t seed, double *ratio, double *lo,
			  double *hi)
{
	struct il_rng rng;
	double mean_a, mean_b, *ratios;
	int r;

	if (!a || !b || !ratio || !lo || !hi || na == 0 || nb == 0 || resamples == 0)
		return -EINVAL;
	r = mean_of(a, na, &mean_a);
	if (r == 0)
		r = mean_of(b, nb, &mean_b);
	if (r < 0)
		return r;
	if (mean_a == 0)
		return -EDOM;

	ratios = malloc(sizeof(*ratios) * resamples);
	if (!ratios)
		return -ENOMEM;
	rng_seed(&rng, seed);
	for (unsigned i = 0; i < resamples; i++) {
		double ma = resampled_mean(&rng, a, na);
		double mb = resampled_mean(&rng, b, nb);

		ratios[i] = ma != 0 ? mb / ma : INFINITY;
	}
	qsort(ratios, resamples, sizeof(*ratios), cmp_double);
	*ratio = mean_b / mean_a;
	*lo = sorted_quantile(ratios, resamples, 0.025);
	*hi = sorted_quantile(ratios, resamples, 0.975);
	free(ratios);
	return 0;
}
