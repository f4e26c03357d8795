#include "il_report_sane.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "il_chain.h"
#include "il_file.h"

#define MAX_COUNT  9007199254740992.0 /* 2^53: a count JSON keeps exact */
#define MAX_NUMBER 1e18		      /* ns stamps of a machine up for 30 years */
#define MAX_DEPTH  32

static bool is_count(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= MAX_COUNT &&
	       v->valuedouble == floor(v->valuedouble);
}

static bool is_latency(double x)
{
	return isfinite(x) && x >= 0 && x <= IL_REPORT_MAX_LATENCY_US;
}

/* Every number finite and at most 1e18 in size, nesting as a run's. */
static int numbers_sane(const cJSON *o, int depth, char *why, size_t n)
{
	const cJSON *c;

	if (cJSON_IsNumber(o) &&
	    !(isfinite(o->valuedouble) && fabs(o->valuedouble) <= MAX_NUMBER)) {
		snprintf(why, n, "%s = %g is not a number a run writes",
			 o->string ? o->string : "a value", o->valuedouble);
		return -1;
	}
	if (depth > MAX_DEPTH) {
		snprintf(why, n, "%s nested deeper than a run writes",
			 o->string ? o->string : "a value");
		return -1;
	}
	cJSON_ArrayForEach (c, o) {
		/* explain's own check names attribution's values in its words. */
		if (depth == 0 && c->string && !strcmp(c->string, "attribution"))
			continue;
		if (numbers_sane(c, depth + 1, why, n) < 0)
			return -1;
	}
	return 0;
}

/*
 * Every number under latency_us and samples_us is a latency; the
 * per-event lists are of numbers only (a string or null in one was
 * skipped, and "abc" for the list read as no samples at all); the
 * summary figures are latencies or null (nothing completed), counts
 * counts.
 */
static int latencies_sane(const cJSON *root, char *why, size_t n)
{
	static const char *const tops[] = {"latency_us", "samples_us"};

	for (size_t t = 0; t < sizeof(tops) / sizeof(tops[0]); t++) {
		const cJSON *top = il_json_get(root, tops[t]), *lat, *v;

		/* Objects keyed by latency: an array's entries have no names. */
		if (top && !cJSON_IsObject(top)) {
			snprintf(why, n, "%s is not an object of latencies", tops[t]);
			return -1;
		}
		cJSON_ArrayForEach (lat, top) {
			const char *name = lat->string ? lat->string : "?";
			int i = 0;

			if (t == 0 && !cJSON_IsObject(lat)) {
				snprintf(why, n, "latency_us.%s is not an object of latencies",
					 name);
				return -1;
			}

			if (t == 1 &&
			    (!strcmp(name, "processing") || !strcmp(name, "presentation"))) {
				bool numbers = cJSON_IsArray(lat);

				cJSON_ArrayForEach (v, lat)
					numbers = numbers && cJSON_IsNumber(v);
				if (!numbers) {
					snprintf(why, n, "samples_us.%s is not a list of latencies",
						 name);
					return -1;
				}
			}
			cJSON_ArrayForEach (v, lat) {
				const char *key = v->string ? v->string : "?";

				if (t == 0 && cJSON_IsObject(lat) && !strcmp(key, "count")) {
					if (!is_count(v)) {
						snprintf(why, n,
							 "latency_us.%s.count is not a count",
							 name);
						return -1;
					}
				} else if (cJSON_IsNumber(v) && !is_latency(v->valuedouble)) {
					if (cJSON_IsArray(lat))
						snprintf(why, n,
							 "%s.%s[%d] = %g is not a latency (0 to "
							 "%.0f us)",
							 tops[t], name, i, v->valuedouble,
							 IL_REPORT_MAX_LATENCY_US);
					else
						snprintf(
						    why, n,
						    "%s.%s.%s = %g is not a latency (0 to %.0f us)",
						    tops[t], name, key, v->valuedouble,
						    IL_REPORT_MAX_LATENCY_US);
					return -1;
				} else if (t == 0 && cJSON_IsObject(lat) && !cJSON_IsNumber(v) &&
					   !cJSON_IsNull(v)) {
					snprintf(why, n,
						 "latency_us.%s.%s is not a latency or null", name,
						 key);
					return -1;
				}
				i++;
			}
		}
	}
	return 0;
}

/*
 * One run's figures of one latency hang together: min <= p50 <= p90 <=
 * p99 <= p999 <= max, within the histogram's 1% (its percentiles are
 * bucket values, min and max exact), and a count no more than the events
 * completed. A p50 of 1 us beside a min of 1800 us was taken.
 */
static int latency_order_sane(const cJSON *root, char *why, size_t n)
{
	static const char *const order[] = {"min", "p50", "p90", "p99", "p999", "max"};
	const cJSON *lat;

	cJSON_ArrayForEach (lat, il_json_get(root, "latency_us")) {
		double prev = NAN, completed = il_json_num(root, "events.completed");
		const char *prev_key = NULL;

		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(lat, order[i]);

			if (!cJSON_IsNumber(v))
				continue;
			if (prev_key && v->valuedouble < prev / 1.01) {
				snprintf(
				    why, n,
				    "latency_us.%s: %s %g us below its %s %g us: not one run's "
				    "figures",
				    lat->string, order[i], v->valuedouble, prev_key, prev);
				return -1;
			}
			prev = v->valuedouble;
			prev_key = order[i];
		}
		if (!isnan(completed) && il_json_num(lat, "count") > completed) {
			snprintf(why, n,
				 "latency_us.%s.count %g is more than the %g events completed",
				 lat->string, il_json_num(lat, "count"), completed);
			return -1;
		}
	}
	return 0;
}

/*
 * The event counts are whole numbers: completed + timed_out <= sent, and a
 * latency's per-event samples no more than the events completed (two
 * million samples of a 30-event run were not written by a run).
 */
static int counts_sane(const cJSON *root, char *why, size_t n)
{
	static const char *const keys[] = {"events.sent", "events.completed", "events.timed_out"};
	static const char *const lats[] = {"processing", "presentation"};
	const cJSON *ev = il_json_get(root, "events"), *c;
	double v[3];

	/* Missing is for the reader to mind (compare requires them). */
	for (size_t i = 0; i < 3; i++) {
		const cJSON *x = il_json_get(root, keys[i]);

		if (x && !is_count(x)) {
			snprintf(why, n, "%s is not a count of events", keys[i]);
			return -1;
		}
		v[i] = x ? x->valuedouble : NAN;
	}
	if (ev && !cJSON_IsObject(ev)) {
		snprintf(why, n, "events is not an object of counts");
		return -1;
	}
	/* The other counts too (dropped_in_chain, late, ...): a -5 was printed. */
	cJSON_ArrayForEach (c, ev)
		if (cJSON_IsNumber(c) && !is_count(c) && strcmp(c->string, "mean_spacing_ms")) {
			snprintf(why, n, "events.%s is not a count of events", c->string);
			return -1;
		}
	if (v[1] + v[2] > v[0]) { /* false with one missing (NAN) */
		snprintf(why, n,
			 "events.completed + events.timed_out (%.0f) exceed events.sent (%.0f)",
			 v[1] + v[2], v[0]);
		return -1;
	}
	for (size_t i = 0; i < 2; i++) {
		char key[64];
		const cJSON *a;

		snprintf(key, sizeof(key), "samples_us.%s", lats[i]);
		a = il_json_get(root, key);
		if (cJSON_IsArray(a) && !isnan(v[1]) && (double)cJSON_GetArraySize(a) > v[1]) {
			snprintf(why, n, "%s has %d samples for %.0f completed events", key,
				 cJSON_GetArraySize(a), v[1]);
			return -1;
		}
	}
	return 0;
}

/*
 * hops[] as a run writes it: objects, their index 1..IL_NHOPS once each,
 * every *_us a latency or null, the per-hop tallies counts. A p50 of 1e30
 * us was printed as a 31-digit figure with a ratio beside it.
 */
static int hops_sane(const cJSON *root, char *why, size_t n)
{
	static const char *const tallies[] = {"same_cpu", "cross_cpu", "cpu_unknown",
					      "out_of_order"};
	const cJSON *hops = il_json_get(root, "hops"), *h;
	bool seen[IL_NHOPS + 1] = {false};
	int k = 0;

	if (!hops)
		return 0;
	if (!cJSON_IsArray(hops)) {
		snprintf(why, n, "hops is not a list");
		return -1;
	}
	cJSON_ArrayForEach (h, hops) {
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(h, "index"), *v;

		if (!cJSON_IsObject(h)) {
			snprintf(why, n, "hops[%d] is not an object", k);
			return -1;
		}
		if (idx && (!is_count(idx) || idx->valuedouble < 1 || idx->valuedouble > IL_NHOPS ||
			    seen[(int)idx->valuedouble])) {
			snprintf(why, n,
				 "hops[%d].index is not a hop of the chain (1..%d, once each)", k,
				 IL_NHOPS);
			return -1;
		}
		if (idx)
			seen[(int)idx->valuedouble] = true;
		cJSON_ArrayForEach (v, h) {
			size_t len = strlen(v->string);

			if (len > 3 && !strcmp(v->string + len - 3, "_us") && !cJSON_IsNull(v) &&
			    !(cJSON_IsNumber(v) && is_latency(v->valuedouble))) {
				snprintf(why, n,
					 "hops[%d].%s is not a latency (0 to %.0f us) or null", k,
					 v->string, IL_REPORT_MAX_LATENCY_US);
				return -1;
			}
		}
		for (size_t i = 0; i < sizeof(tallies) / sizeof(tallies[0]); i++) {
			v = cJSON_GetObjectItemCaseSensitive(h, tallies[i]);
			if (v && !is_count(v)) {
				snprintf(why, n, "hops[%d].%s is not a count of events", k,
					 tallies[i]);
				return -1;
			}
		}
		k++;
	}
	return 0;
}

int il_report_sane(const cJSON *root, char *why, size_t n)
{
	const cJSON *cpus = il_json_get(root, "kernel.nr_cpus");

	/* The named checks first, so their words name the value; any other
	 * number a run cannot write last. */
	if (latencies_sane(root, why, n) < 0 || counts_sane(root, why, n) < 0 ||
	    latency_order_sane(root, why, n) < 0 || hops_sane(root, why, n) < 0 ||
	    numbers_sane(root, 0, why, n) < 0)
		return -1;
	/* "inf CPUs" was printed; a CPU count is whole and at least 1. */
	if (cpus && !(is_count(cpus) && cpus->valuedouble >= 1 && cpus->valuedouble <= 65536)) {
		snprintf(why, n, "kernel.nr_cpus is not a count of CPUs");
		return -1;
	}
	return 0;
}
