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

/*
 * Type-7 quantile q over all n events of which the c fastest completed
 * (the rest at +infinity): its position h = (n - 1) q reaches a lost event
 * when ceil(h) >= c; below that it is the completed events' own quantile at
 * h / (c - 1), read from their samples (a sampled subset gives an estimate
 * at the same relative position).
 */
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

static enum il_round_status quantile_with_lost(const cJSON *report, const char *latency, double q,
					       double c, double n, double *value)
{
	double h = (n - 1) * q, *v;
	size_t k = 0;

	if (c < 1 || ceil(h) >= c)
		return IL_ROUND_CENSORED;
	v = il_round_samples(report, latency, &k);
	if (!v)
		return IL_ROUND_MISSING;
	qsort(v, k, sizeof(*v), cmp_double);
	*value = il_stats_quantile_sorted(v, k, c > 1 ? h / (c - 1) : 0);
	free(v);
	return k ? IL_ROUND_VALUE : IL_ROUND_MISSING;
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
