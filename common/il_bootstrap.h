/*
 * Bootstrap confidence interval for the ratio of two means: how much
 * slower or faster B is than A, and how sure we can be of it.
 */
#ifndef IL_BOOTSTRAP_H
#define IL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Estimates mean(b) / mean(a) and its 95% percentile-bootstrap interval.
 *
 * Each of `resamples` rounds draws na values from a and nb values from b,
 * independently and with replacement, and records the ratio of the two
 * resampled means; *lo and *hi are the 2.5th and 97.5th percentiles of
 * those ratios (linear interpolation between order statistics). *ratio is
 * the ratio of the full-sample means. The generator is xoshiro256**
 * seeded through splitmix64, so the same inputs and seed always give the
 * same interval on every platform.
 *
 * The values are typically latencies in microseconds, but any positive
 * quantity works; units cancel. A resample whose mean of a is 0 yields an
 * infinite ratio, which lands in the upper tail.
 *
 * Returns 0 and fills *ratio, *lo, *hi; -EINVAL for a NULL pointer, an
 * empty sample or resamples == 0; -EDOM when mean(a) is 0 or a value is
 * not finite; -ENOMEM. On error the out-parameters are untouched.
 */
int il_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
			  unsigned resamples, uint64_t seed, double *ratio, double *lo,
			  double *hi);

#endif
