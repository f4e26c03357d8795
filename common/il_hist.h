/*
 * Log-linear latency histogram (HdrHistogram-like): exact below 128 ns,
 * then 128 sub-buckets per power of two, so every bucket is at most 1/128
 * of its lower bound wide and a percentile read from it is within 0.4%
 * (the bucket midpoint) of the true sample. Fixed size, no allocation
 * after il_hist_new.
 */
#ifndef IL_HIST_H
#define IL_HIST_H

#include <stddef.h>
#include <stdint.h>

#define IL_HIST_SUB_BITS 7
#define IL_HIST_SUB	 (1u << IL_HIST_SUB_BITS)
/* Values up to 2^IL_HIST_MAX_BITS ns (about 18 minutes); larger are clamped. */
#define IL_HIST_MAX_BITS 40
#define IL_HIST_NBUCKETS (IL_HIST_SUB + (IL_HIST_MAX_BITS - IL_HIST_SUB_BITS) * IL_HIST_SUB)
/*
 * How far a percentile read from it may lie from the true sample, relative
 * to the value: half a bucket, a bucket being at most 1/IL_HIST_SUB of
 * its lower bound wide.
 */
#define IL_HIST_PCT_RESOLUTION (0.5 / IL_HIST_SUB)

struct il_hist;

/* Allocates an empty histogram. Returns 0 or -ENOMEM; *out untouched on failure. */
int il_hist_new(struct il_hist **out);
void il_hist_free(struct il_hist *h);
void il_hist_reset(struct il_hist *h);

/* Records one value in nanoseconds. */
void il_hist_add(struct il_hist *h, uint64_t value_ns);
/* Adds all of src into dst. */
void il_hist_merge(struct il_hist *dst, const struct il_hist *src);

uint64_t il_hist_count(const struct il_hist *h);
uint64_t il_hist_min(const struct il_hist *h); /* exact; 0 when empty */
uint64_t il_hist_max(const struct il_hist *h); /* exact; 0 when empty */
double il_hist_mean(const struct il_hist *h);  /* exact; 0 when empty */

/*
 * The value at percentile p (0 < p <= 100) in ns: the midpoint of the
 * bucket holding the ceil(p/100 * count)-th smallest sample, clamped to
 * [min, max]. 0 when empty.
 */
uint64_t il_hist_percentile(const struct il_hist *h, double p);

/* Bucket access for exporters: count and [lower, upper) bounds in ns. */
size_t il_hist_nbuckets(void);
uint64_t il_hist_bucket_count(const struct il_hist *h, size_t idx);
uint64_t il_hist_bucket_lower(size_t idx);
uint64_t il_hist_bucket_upper(size_t idx);

#endif
