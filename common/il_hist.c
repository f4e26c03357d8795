#include "il_hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct il_hist {
	uint64_t count;
	uint64_t min, max;
	long double sum;
	uint64_t buckets[IL_HIST_NBUCKETS];
};

int il_hist_new(struct il_hist **out)
{
	struct il_hist *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	il_hist_reset(h);
	*out = h;
	return 0;
}

void il_hist_free(struct il_hist *h)
{
	free(h);
}

void il_hist_reset(struct il_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static size_t bucket_of(uint64_t v)
{
	unsigned k;

	if (v < IL_HIST_SUB)
		return (size_t)v;
	k = 63u - (unsigned)__builtin_clzll(v);
	if (k >= IL_HIST_MAX_BITS)
		return IL_HIST_NBUCKETS - 1;
	return IL_HIST_SUB + (size_t)(k - IL_HIST_SUB_BITS) * IL_HIST_SUB +
	       (size_t)((v >> (k - IL_HIST_SUB_BITS)) - IL_HIST_SUB);
}

size_t il_hist_nbuckets(void)
{
	return IL_HIST_NBUCKETS;
}

uint64_t il_hist_bucket_lower(size_t idx)
{
	size_t k, sub;

	if (idx < IL_HIST_SUB)
		return idx;
	k = IL_HIST_SUB_BITS + (idx - IL_HIST_SUB) / IL_HIST_SUB;
	sub = (idx - IL_HIST_SUB) % IL_HIST_SUB;
	return (uint64_t)(IL_HIST_SUB + sub) << (k - IL_HIST_SUB_BITS);
}

uint64_t il_hist_bucket_upper(size_t idx)
{
	if (idx < IL_HIST_SUB)
		return idx + 1;
	return il_hist_bucket_lower(idx) +
	       (1ull << (IL_HIST_SUB_BITS + (idx - IL_HIST_SUB) / IL_HIST_SUB - IL_HIST_SUB_BITS));
}

uint64_t il_hist_bucket_count(const struct il_hist *h, size_t idx)
{
	return idx < IL_HIST_NBUCKETS ? h->buckets[idx] : 0;
}

void il_hist_add(struct il_hist *h, uint64_t v)
{
	h->buckets[bucket_of(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void il_hist_merge(struct il_hist *dst, const struct il_hist *src)
{
	if (!src->count)
		return;
	for (size_t i = 0; i < IL_HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t il_hist_count(const struct il_hist *h)
{
	return h->count;
}

uint64_t il_hist_min(const struct il_hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t il_hist_max(const struct il_hist *h)
{
	return h->max;
}

double il_hist_mean(const struct il_hist *h)
{
	return h->count ? (double)(h->sum / h->count) : 0.0;
}

uint64_t il_hist_percentile(const struct il_hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* Nearest-rank definition: the smallest sample with at least p% of samples <= it. */
	rank = (uint64_t)((p / 100.0) * (double)h->count);
	if ((double)rank < (p / 100.0) * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (size_t i = 0; i < IL_HIST_NBUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			uint64_t lo = il_hist_bucket_lower(i), hi = il_hist_bucket_upper(i);
			uint64_t mid = lo + (hi - lo - 1) / 2;

			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}
