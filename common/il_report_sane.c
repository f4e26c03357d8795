#include "il_report_sane.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_chain.h"
#include "il_file.h"
#include "il_printable.h"

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
/*
 * The figures of stats under keys (in rising order) do not fall, beyond
 * the 1% a histogram's rounding allows; keys without a number are passed
 * over. 0, or -1 with why naming the first that falls, after where.
 */
static int rising(const cJSON *stats, const char *const *keys, size_t nkeys, const char *where,
		  char *why, size_t n)
{
	const char *prev_key = NULL;
	double prev = NAN;

	for (size_t i = 0; i < nkeys; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(stats, keys[i]);

		if (!cJSON_IsNumber(v))
			continue;
		if (prev_key && v->valuedouble < prev / 1.01) {
			snprintf(why, n, "%s: %s %g us below its %s %g us: not one run's figures",
				 where, keys[i], v->valuedouble, prev_key, prev);
			return -1;
		}
		prev = v->valuedouble;
		prev_key = keys[i];
	}
	return 0;
}

static int latency_order_sane(const cJSON *root, char *why, size_t n)
{
	static const char *const order[] = {"min", "p50", "p90", "p99", "p999", "max"};
	const cJSON *lat;

	cJSON_ArrayForEach (lat, il_json_get(root, "latency_us")) {
		double completed = il_json_num(root, "events.completed");
		char where[96];

		snprintf(where, sizeof(where), "latency_us.%.64s", lat->string ? lat->string : "?");
		if (rising(lat, order, sizeof(order) / sizeof(order[0]), where, why, n) < 0)
			return -1;
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
 * million samples of a 30-event run were not written by a run) nor than
 * IL_REPORT_MAX_SAMPLES.
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
		/* A run keeps at most so many, whatever it completed: compare
		 * resamples them thousands of times. */
		if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > IL_REPORT_MAX_SAMPLES) {
			snprintf(why, n, "%s has %d samples, more than the %d a run keeps", key,
				 cJSON_GetArraySize(a), IL_REPORT_MAX_SAMPLES);
			return -1;
		}
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

/*
 * The domain of every other figure a run writes (harness/il_report.c and
 * the stats its children send: il_canary.c, il_workers.c, il_hog.c,
 * il_background.c, il_ctxsw.c, il_sysinfo.c, il_sched.c). A value outside
 * it reached the sweep's summary ("the CFS canary's longest stall ... rt
 * -50.0 ms") and reproduce ("so only -5.00% was left idle"). Only numbers
 * are judged: null and "unreadable: ..." stand where a figure could not be
 * had. scripts/inputlat_stats.py holds the same table (DOMAINS).
 */
enum domain {
	DOM_DURATION,	/* a time taken: 0 or more */
	DOM_AMOUNT,	/* a size or a ratio of two: 0 or more */
	DOM_COUNT,	/* a whole number, 0 or more */
	DOM_SHARE,	/* a share of one: 0 to 1 */
	DOM_CPU_SHARE,	/* CPU time over wall x CPUs, two clocks: 0 to 1, 1% over allowed */
	DOM_PCT,	/* a percentage: 0 to 100 */
	DOM_RT_RUNTIME, /* sched_rt_runtime_us: -1 (no limit) or a whole number of us */
	DOM_RT_PRIO,	/* an RT priority: whole, 0 to 99 */
	DOM_NICE,	/* a nice value: whole, -20 to 19 */
	DOM_UCLAMP,	/* a utilization clamp: whole, 0 to 1024 */
	DOM_CPU,	/* a CPU number, or -1 for none: whole, -1 or more */
};

static const char *const domain_words[] = {
    [DOM_DURATION] = "a duration (0 or more)",
    [DOM_AMOUNT] = "an amount (0 or more)",
    [DOM_COUNT] = "a count (a whole number, 0 or more)",
    [DOM_SHARE] = "a share (0 to 1)",
    [DOM_CPU_SHARE] = "a share (0 to 1)",
    [DOM_PCT] = "a percentage (0 to 100)",
    [DOM_RT_RUNTIME] = "an RT runtime (-1, or a whole number of us)",
    [DOM_RT_PRIO] = "an RT priority (0 to 99)",
    [DOM_NICE] = "a nice value (-20 to 19)",
    [DOM_UCLAMP] = "a utilization clamp (0 to 1024)",
    [DOM_CPU] = "a CPU number (-1 or more)",
};

static bool in_domain(double x, enum domain d)
{
	bool whole = x == floor(x);

	switch (d) {
	case DOM_DURATION:
	case DOM_AMOUNT:
		return x >= 0;
	case DOM_COUNT:
		return x >= 0 && whole;
	case DOM_SHARE:
		return x >= 0 && x <= 1;
	case DOM_CPU_SHARE:
		return x >= 0 && x <= 1.01;
	case DOM_PCT:
		return x >= 0 && x <= 100;
	case DOM_RT_RUNTIME:
		return x >= -1 && whole;
	case DOM_RT_PRIO:
		return x >= 0 && x <= 99 && whole;
	case DOM_NICE:
		return x >= -20 && x <= 19 && whole;
	case DOM_UCLAMP:
		return x >= 0 && x <= 1024 && whole;
	case DOM_CPU:
		return x >= -1 && whole;
	}
	return false;
}

/* A path: keys split by '.', "*" for every member of an object, "[]"
 * for every entry of a list, digits for one entry of a list. */
struct domain_rule {
	const char *path;
	enum domain d;
};

static const struct domain_rule domains[] = {
    {"kernel.sched_rt_runtime_us", DOM_RT_RUNTIME},
    {"kernel.fair_server.runtime_ns", DOM_COUNT},
    {"kernel.fair_server.period_ns", DOM_COUNT},
    {"kernel.fair_server_per_cpu.[].cpu", DOM_COUNT},
    {"kernel.fair_server_per_cpu.[].runtime_ns", DOM_COUNT},
    {"kernel.fair_server_per_cpu.[].period_ns", DOM_COUNT},
    {"kernel.ext_server_per_cpu.[].cpu", DOM_COUNT},
    {"kernel.ext_server_per_cpu.[].runtime_ns", DOM_COUNT},
    {"kernel.ext_server_per_cpu.[].period_ns", DOM_COUNT},
    {"kernel.rt_group_sched.root_rt_runtime_us", DOM_RT_RUNTIME},
    {"kernel.rt_throttling.runtime_us", DOM_COUNT},
    {"kernel.rt_throttling.period_us", DOM_COUNT},
    {"system.cpus_allowed_count", DOM_COUNT},
    {"system.cpu_bandwidth.cpus", DOM_AMOUNT},
    {"system.cpu_bandwidth.quota_us", DOM_COUNT},
    {"system.cpu_bandwidth.period_us", DOM_COUNT},
    {"system.steal_pct", DOM_PCT},
    {"scenario.events", DOM_COUNT},
    {"scenario.interval_ms", DOM_DURATION},
    {"scenario.timeout_ms", DOM_DURATION},
    {"scenario.duration_ms", DOM_DURATION},
    {"scenario.work_us.*", DOM_DURATION},
    {"scenario.hog_threads", DOM_COUNT},
    {"scenario.load_threads", DOM_COUNT},
    {"duration_s", DOM_DURATION},
    {"startup_ms.*", DOM_DURATION},
    {"teardown_ms.*", DOM_DURATION},
    {"fixed_cost_ms", DOM_DURATION},
    {"milestones_ns.*", DOM_COUNT},
    {"context_switches.events", DOM_COUNT},
    {"context_switches.seconds", DOM_DURATION},
    {"context_switches.chain_per_event.*", DOM_AMOUNT},
    {"context_switches.threads.[].voluntary", DOM_COUNT},
    {"context_switches.threads.[].involuntary", DOM_COUNT},
    {"context_switches.threads.[].voluntary_per_event", DOM_AMOUNT},
    {"context_switches.threads.[].handlers_per_event", DOM_AMOUNT},
    {"context_switches.threads.[].design_per_event", DOM_AMOUNT},
    {"exit_code", DOM_COUNT},
    {"events.mean_spacing_ms", DOM_DURATION},
    {"events.warmup.*", DOM_COUNT},
    {"hops.[].same_cpu_fraction", DOM_SHARE},
    {"threads.[].pid", DOM_COUNT},
    {"threads.[].tid", DOM_COUNT},
    {"threads.[].priority", DOM_RT_PRIO},
    {"threads.[].nice", DOM_NICE},
    {"threads.[].slice_ns", DOM_COUNT},
    {"threads.[].dl_runtime_ns", DOM_COUNT},
    {"threads.[].dl_deadline_ns", DOM_COUNT},
    {"threads.[].dl_period_ns", DOM_COUNT},
    {"threads.[].util_min", DOM_UCLAMP},
    {"threads.[].util_max", DOM_UCLAMP},
    {"loops_per_us", DOM_AMOUNT},
    {"work_accuracy.tolerance", DOM_AMOUNT},
    {"work_accuracy.min_handlers", DOM_COUNT},
    {"work_accuracy.cpu_clock_step_ns", DOM_DURATION},
    {"work_accuracy.loops_per_us", DOM_AMOUNT},
    {"work_accuracy.test_work_scale", DOM_AMOUNT},
    {"work_accuracy.clock_overhead_ns", DOM_DURATION},
    {"work_accuracy.speed_ratio", DOM_AMOUNT},
    {"work_accuracy.worst_ratio", DOM_AMOUNT},
    {"work_accuracy.threads.*.configured_us", DOM_DURATION},
    {"work_accuracy.threads.*.measured_p50_us", DOM_DURATION},
    {"work_accuracy.threads.*.ratio", DOM_AMOUNT},
    {"work_accuracy.threads.*.handlers", DOM_COUNT},
    {"hygiene.warmup_events", DOM_COUNT},
    {"hygiene.stack_prefault_kib", DOM_COUNT},
    {"hygiene.memlock.*.locked_vm_kib", DOM_COUNT},
    {"hygiene.rttime.soft_us", DOM_COUNT},
    {"hygiene.rttime.hard_us", DOM_COUNT},
    {"hygiene.cpu_dma_latency.value_us", DOM_COUNT},
    {"trace_marker.processes.*.written", DOM_COUNT},
    {"trace_marker.processes.*.failed", DOM_COUNT},
    {"rss_kib.*", DOM_COUNT},
    {"processes.*.queues.*.capacity", DOM_COUNT},
    {"processes.*.queues.*.max_depth", DOM_COUNT},
    {"processes.*.queues.*.dropped", DOM_COUNT},
    {"processes.*.rss_kib", DOM_COUNT},
    {"processes.*.memlock.locked_vm_kib", DOM_COUNT},
    {"histogram.buckets.[].0", DOM_DURATION},
    {"histogram.buckets.[].1", DOM_COUNT},
    {"samples_us.kept", DOM_COUNT},
    {"samples_us.of", DOM_COUNT},
    {"event_window.slots", DOM_COUNT},
    {"event_window.max_in_flight", DOM_COUNT},
    {"background.pid", DOM_COUNT},
    {"background.pgid", DOM_COUNT},
    {"background.wall_ns", DOM_COUNT},
    {"background.cpu_ns", DOM_COUNT},
    {"background.cpu_share", DOM_CPU_SHARE},
    {"background.cpus", DOM_COUNT},
    {"background.outside_group", DOM_COUNT},
    /* The children's own figures, in the report and under processes. */
    {"canary.max_stall_ms", DOM_DURATION},
    {"canary.cpu_share", DOM_SHARE},
    {"canary.wakeups", DOM_COUNT},
    {"canary.expected_wakeups", DOM_COUNT},
    {"canary.waited_ms", DOM_DURATION},
    {"canary.cpu_ms", DOM_DURATION},
    {"canary.wall_ms", DOM_DURATION},
    {"canary.tid", DOM_COUNT},
    {"canary.interval_us", DOM_DURATION},
    {"canary.cpu", DOM_COUNT},
    {"hog.idle_waste_pct", DOM_PCT},
    {"hog.js_heap_max_bytes", DOM_COUNT},
    {"hog.js_heap_peak_bytes", DOM_COUNT},
    {"hog.js_errors", DOM_COUNT},
};

/* The worker groups' figures (il_workers_stats_json), under each of these. */
static const char *const worker_groups[] = {"hog", "load", "processes.*.hog", "processes.*.load"};

static const struct domain_rule worker_domains[] = {
    {"threads", DOM_COUNT},
    {"cpus", DOM_COUNT},
    {"cpu_set.[]", DOM_COUNT},
    {"wall_ns", DOM_COUNT},
    {"per_thread.[].tid", DOM_COUNT},
    {"per_thread.[].cpu", DOM_CPU},
    {"per_thread.[].cpu_ns", DOM_COUNT},
    {"per_thread.[].iterations", DOM_COUNT},
    {"per_thread.[].slices", DOM_COUNT},
    {"cpu_ns", DOM_COUNT},
    {"cpu_share", DOM_CPU_SHARE},
};

/*
 * Judges every value at path (from o, where is its name so far) against
 * d; 0, or -1 with why naming the first value outside it.
 */
static int domain_walk(const cJSON *o, const char *path, const char *where, enum domain d,
		       char *why, size_t n)
{
	char key[64], here[192];
	const char *dot = strchr(path, '.');
	size_t len = dot ? (size_t)(dot - path) : strlen(path);
	const char *rest = dot ? dot + 1 : NULL;
	const cJSON *c;
	int i = 0;

	if (!o)
		return 0;
	if (!path[0]) {
		if (cJSON_IsNumber(o) && !in_domain(o->valuedouble, d)) {
			snprintf(why, n, "%s = %g is not %s", where, o->valuedouble,
				 domain_words[d]);
			return -1;
		}
		return 0;
	}
	snprintf(key, sizeof(key), "%.*s", (int)len, path);
	if (!strcmp(key, "*") || !strcmp(key, "[]")) {
		if (!strcmp(key, "*") ? !cJSON_IsObject(o) : !cJSON_IsArray(o))
			return 0;
		cJSON_ArrayForEach (c, o) {
			if (c->string)
				snprintf(here, sizeof(here), "%s%s%s", where, where[0] ? "." : "",
					 c->string);
			else
				snprintf(here, sizeof(here), "%s[%d]", where, i);
			if (domain_walk(c, rest ? rest : "", here, d, why, n) < 0)
				return -1;
			i++;
		}
		return 0;
	}
	if (key[0] >= '0' && key[0] <= '9') {
		if (!cJSON_IsArray(o))
			return 0;
		c = cJSON_GetArrayItem(o, atoi(key));
		snprintf(here, sizeof(here), "%s[%s]", where, key);
	} else {
		if (!cJSON_IsObject(o))
			return 0;
		c = cJSON_GetObjectItemCaseSensitive(o, key);
		snprintf(here, sizeof(here), "%s%s%s", where, where[0] ? "." : "", key);
	}
	return domain_walk(c, rest ? rest : "", here, d, why, n);
}

static int domains_sane(const cJSON *root, char *why, size_t n)
{
	char path[128];

	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
		if (domain_walk(root, domains[i].path, "", domains[i].d, why, n) < 0)
			return -1;
		snprintf(path, sizeof(path), "processes.*.%s", domains[i].path);
		if ((!strncmp(domains[i].path, "canary.", 7) ||
		     !strncmp(domains[i].path, "hog.", 4)) &&
		    domain_walk(root, path, "", domains[i].d, why, n) < 0)
			return -1;
	}
	for (size_t g = 0; g < sizeof(worker_groups) / sizeof(worker_groups[0]); g++)
		for (size_t i = 0; i < sizeof(worker_domains) / sizeof(worker_domains[0]); i++) {
			snprintf(path, sizeof(path), "%s.%s", worker_groups[g],
				 worker_domains[i].path);
			if (domain_walk(root, path, "", worker_domains[i].d, why, n) < 0)
				return -1;
		}
	return 0;
}

/*
 * A hop's percentiles are in order, p50 <= p99 <= max, within the
 * histogram's 1% as latency_us's are.
 */
static int hop_order_sane(const cJSON *root, char *why, size_t n)
{
	static const char *const order[] = {"p50_us", "p99_us", "max_us"};
	const cJSON *h;
	int k = 0;

	cJSON_ArrayForEach (h, il_json_get(root, "hops")) {
		char where[32];

		snprintf(where, sizeof(where), "hops[%d]", k++);
		if (rising(h, order, sizeof(order) / sizeof(order[0]), where, why, n) < 0)
			return -1;
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
	    hop_order_sane(root, why, n) < 0 || numbers_sane(root, 0, why, n) < 0 ||
	    domains_sane(root, why, n) < 0) {
		/* why names the value by its keys, which are any bytes the
		 * file holds: a newline forged a second line of the refusal,
		 * an escape sequence acted on the reader's terminal. */
		if (n)
			il_printable(why);
		return -1;
	}
	/* "inf CPUs" was printed; a CPU count is whole and at least 1. */
	if (cpus && !(is_count(cpus) && cpus->valuedouble >= 1 && cpus->valuedouble <= 65536)) {
		snprintf(why, n, "kernel.nr_cpus is not a count of CPUs");
		return -1;
	}
	return 0;
}
