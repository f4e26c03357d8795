/*
 * The figures lock-bench reports of a cell's result: ops/s, how long the
 * lock was held and the ceiling that puts on ops, lock()'s CPU per
 * acquisition and, of it, the futex calls' and the spinning.
 */
#include <math.h>
#include <string.h>

#include "lock-bench.h"

double ops_per_s(const struct result *r)
{
	return r->elapsed_s > 0 && !r->skipped ? (double)r->ops / r->elapsed_s : 0;
}

/* The share of the run the lock was held, at least (NAN if not run). */
double held_share(const struct result *r)
{
	return ops_per_s(r) > 0 ? r->held_ns / (r->elapsed_s * 1e9) : NAN;
}

/*
 * The most ops/s a lock could pass with this cell's holds: the lock never
 * free, each acquisition held as long as here (mean, at least). Mutual
 * exclusion bounds every lock by its own holds; where the owner blocks
 * or is preempted, no lock shortens them much.
 */
double ops_ceiling(const struct result *r)
{
	return ops_per_s(r) > 0 && r->held_ns > 0 ? (double)r->ops / (r->held_ns / 1e9) : NAN;
}

/* The clock readings' own cost per sample (ns), NAN when never sampled. */
double probe_ns(const struct result *r)
{
	return r->probe_samples ? (double)r->probe_ns / (double)r->probe_samples : NAN;
}

/*
 * CPU burned inside lock() per acquisition (ns): the readings around it
 * less the empty readings beside them; NAN when never sampled. A mean
 * below zero (a lock cheaper than the readings' jitter) is 0.
 */
double lock_cpu_ns(const struct result *r)
{
	double v;

	if (!r->cpu_samples || !r->probe_samples)
		return NAN;
	v = (double)r->cpu_ns / (double)r->cpu_samples - probe_ns(r);
	return v > 0 ? v : 0;
}

/*
 * Of it, on a CPU in futex calls: between their two tracepoints, and
 * each call's entry and exit outside them (futex_outside_ns, and
 * futex_sleep_outside_ns for a call that slept). NAN unless every sample
 * kept it.
 */
double futex_cpu_ns(const struct result *r)
{
	double plain = (double)(r->futex_calls - r->futex_sleeps);

	if (!r->cpu_samples || r->futex_samples != r->cpu_samples)
		return NAN;
	return ((double)r->futex_ns + plain * futex_outside_ns +
		(double)r->futex_sleeps * futex_sleep_outside_ns) /
	       (double)r->futex_samples;
}

/*
 * The CPU burned spinning per acquisition: lock()'s CPU less its futex
 * calls' (the system calls of sleeping and waking, about 4 us a sleep
 * on the 2-CPU VM, which no lock that must sleep avoids). NAN when the
 * futex part is unknown.
 */
double spin_ns(const struct result *r)
{
	double v = lock_cpu_ns(r) - futex_cpu_ns(r);

	return isnan(v) ? NAN : v > 0 ? v : 0;
}

void add_num_or_null(cJSON *j, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(j, key);
	else
		cJSON_AddNumberToObject(j, key, v);
}

/* spin_ns of what a round added to a cell's result (now less before). */
double spin_ns_between(const struct result *now, const struct result *before)
{
	struct result d;

	memset(&d, 0, sizeof(d));
	d.cpu_ns = now->cpu_ns - before->cpu_ns;
	d.cpu_samples = now->cpu_samples - before->cpu_samples;
	d.futex_ns = now->futex_ns - before->futex_ns;
	d.futex_calls = now->futex_calls - before->futex_calls;
	d.futex_sleeps = now->futex_sleeps - before->futex_sleeps;
	d.futex_samples = now->futex_samples - before->futex_samples;
	d.probe_ns = now->probe_ns - before->probe_ns;
	d.probe_samples = now->probe_samples - before->probe_samples;
	return spin_ns(&d);
}
