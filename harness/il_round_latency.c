#include "il_round_latency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "il_file.h"
#include "il_stats.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

double *il_round_samples(const cJSON *report, const char *latency, size_t *n)
{
	char key[64];
	const cJSON *arr, *it;
	double *v;

	snprintf(key, sizeof(key), "samples_us.%s", latency);
	arr = il_json_get(report, key);
	*n = 0;
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
		return NULL;
	v = malloc(sizeof(*v) * (size_t)cJSON_GetArraySize(arr));
	if (!v)
		return NULL;
	cJSON_ArrayForEach (it, arr)
		if (cJSON_IsNumber(it) && it->valuedouble > 0)
			v[(*n)++] = it->valuedouble;
	return v;
}

/*
 * Quantile q over all n events of which the c fastest completed (the rest
 * at +infinity), by the nearest rank, as the report's own percentiles
 * (il_hist_percentile): the k-th smallest, k = ceil(q n). It lies beyond
 * the timeout when k > c; below that it is the k-th smallest completed
 * event, read from the samples (a sampled subset of m gives the one at the
 * same relative rank, ceil(k m / c)). One definition for every round: a
 * type-7 interpolation here against the reports' nearest rank moved a
 * round's p50 by up to 3% by the definition alone.
 */
static enum il_round_status quantile_with_lost(const cJSON *report, const char *latency, double q,
					       double c, double n, double *value)
{
	double k = ceil(q * n), *v;
	size_t m = 0, i;

	if (k < 1)
		k = 1;
	if (c < 1 || k > c)
		return IL_ROUND_CENSORED;
	v = il_round_samples(report, latency, &m);
	if (!m) {
		free(v);
		return IL_ROUND_MISSING;
	}
	qsort(v, m, sizeof(*v), cmp_double);
	i = m < c ? (size_t)ceil(k * (double)m / c) : (size_t)k;
	*value = v[(i < 1 ? 1 : i > m ? m : i) - 1];
	free(v);
	return IL_ROUND_VALUE;
}

enum il_round_status il_round_latency(const cJSON *report, const char *latency, const char *stat,
				      double q, double *value, double *lost)
{
	char key[96];
	double sent = il_json_num(report, "events.sent");
	double completed = il_json_num(report, "events.completed"), c, x, gone;

	snprintf(key, sizeof(key), "latency_us.%s.count", latency);
	c = il_json_num(report, key);
	if (isnan(c))
		c = completed;
	/*
	 * Lost: sent but never completed (timed out, dropped, in flight). A
	 * completed event whose stamps were out of order is in no latency
	 * figure (c) but was not slow: it is in neither c nor the lost, so
	 * the events ranked are the c measured ones and the lost ones.
	 */
	gone = !isnan(sent) && !isnan(completed) && sent > completed ? sent - completed : 0;
	if (lost)
		*lost = gone;
	snprintf(key, sizeof(key), "latency_us.%s.%s", latency, stat);
	x = il_json_num(report, key);
	/* Nothing lost (or no count to tell): the report's own figure. */
	if (gone == 0 || isnan(c)) {
		if (isnan(x))
			return IL_ROUND_MISSING;
		*value = x;
		return IL_ROUND_VALUE;
	}
	/* A mean over events of which some never ended is beyond any figure. */
	if (q < 0)
		return IL_ROUND_CENSORED;
	return quantile_with_lost(report, latency, q, c, c + gone, value);
}
