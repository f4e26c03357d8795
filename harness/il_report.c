/* The run's outputs: summary line, JSON record, histograms, trace. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_ctxsw.h"
#include "il_file.h"
#include "il_header.h"
#include "il_hist.h"
#include "il_memlock.h"
#include "il_rss.h"
#include "il_result.h"
#include "il_run_stats.h"
#include "il_trace.h"

/* A handler whose measured work is further than this from its
 * configured work makes the run's latencies doubtful. */
#define WORK_TOLERANCE 0.10
/* Fewer handlers than this and one slow one moves the p50: no judgement. */
#define WORK_MIN_HANDLERS 20
/*
 * A handler off on its own by at most this much per call, while the run's
 * handlers together did their work: a fixed cost per call (a cold cache
 * after it slept, its system calls: a 10 us browser:evdev takes 16-20 us
 * under load) or a few us short, small against hops of hundreds of us.
 * Further off, the thread's CPU did not run its loop at the run's speed
 * (seen here: a 300 us viz:gpu at 57% while the run did 90%).
 */
#define WORK_FIXED_COST_US 10.0

/* The caller commits the file (il_out); a write error shows there too. */
static int report_done(FILE *f)
{
	return ferror(f) ? -EIO : 0;
}

static double us(uint64_t ns)
{
	return il_ns_to_us(ns);
}

/* " Min 1483 P50 1585 P99 2279 Max 2279", or "-" for each when nothing completed. */
static void summary_part(char *buf, size_t len, const struct il_hist *h)
{
	if (!il_hist_count(h)) {
		snprintf(buf, len, "Min - P50 - P99 - Max -");
		return;
	}
	snprintf(buf, len, "Min %.0f P50 %.0f P99 %.0f Max %.0f", us(il_hist_min(h)),
		 us(il_hist_percentile(h, 50)), us(il_hist_percentile(h, 99)), us(il_hist_max(h)));
}

void il_report_summary(const struct il_result *r)
{
	const struct il_run_stats *h = r->run_stats;
	char proc[128], pres[128];

	/* Timed-out events are in no figure (censored_check): the line says
	 * so where it says the figures, not only in a warning on stderr. */
	const char *only = r->timed_out ? " (completed only)" : "";

	summary_part(proc, sizeof(proc), h->processing);
	summary_part(pres, sizeof(pres), h->presentation);
	/* One line, cyclictest-like: counts, then min/p50/p99/max per latency in
	 * us. The counts are the measured events; warm-up ones come after. */
	printf("inputlat: policy %s events %llu completed %llu timed_out %llu invalid_frames %llu "
	       "warmup %llu | processing us%s %s | presentation us%s %s\n",
	       il_policy_name(r->policy), (unsigned long long)r->nsent,
	       (unsigned long long)r->completed, (unsigned long long)r->timed_out,
	       (unsigned long long)r->invalid_frames, (unsigned long long)r->warmup, only, proc,
	       only, pres);
	fflush(stdout);
}

/* A percentile of h in us, or null when nothing was recorded (never 0). */
static cJSON *pct_json(const struct il_hist *h, double p)
{
	return il_hist_count(h) ? cJSON_CreateNumber(us(il_hist_percentile(h, p)))
				: cJSON_CreateNull();
}

static cJSON *latency_json(const struct il_hist *h)
{
	cJSON *o = cJSON_CreateObject();
	bool any = il_hist_count(h) > 0;

	cJSON_AddItemToObject(o, "min",
			      any ? cJSON_CreateNumber(us(il_hist_min(h))) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "p50", pct_json(h, 50));
	cJSON_AddItemToObject(o, "p90", pct_json(h, 90));
	cJSON_AddItemToObject(o, "p99", pct_json(h, 99));
	cJSON_AddItemToObject(o, "p999", pct_json(h, 99.9));
	cJSON_AddItemToObject(o, "max",
			      any ? cJSON_CreateNumber(us(il_hist_max(h))) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "mean",
			      any ? cJSON_CreateNumber(il_hist_mean(h) / 1e3) : cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "count", (double)il_hist_count(h));
	return o;
}

/* The scheduler facts of the run, added to the header's kernel object. */
static void kernel_json(const struct il_result *r, cJSON *k)
{
	cJSON *fs = cJSON_CreateObject();
	const cJSON *f;

	if (r->rt_runtime_us == LLONG_MIN)
		cJSON_AddNullToObject(k, "sched_rt_runtime_us");
	else
		cJSON_AddNumberToObject(k, "sched_rt_runtime_us", (double)r->rt_runtime_us);
	cJSON_AddBoolToObject(fs, "present", r->fs.present);
	cJSON_AddBoolToObject(fs, "readable", r->fs.readable);
	cJSON_AddBoolToObject(fs, "tunable", r->fs.tunable);
	if (r->fs.runtime_ns >= 0 && r->fs.present)
		cJSON_AddNumberToObject(fs, "runtime_ns", (double)r->fs.runtime_ns);
	else
		cJSON_AddNullToObject(fs, "runtime_ns");
	if (r->fs.period_ns >= 0 && r->fs.present)
		cJSON_AddNumberToObject(fs, "period_ns", (double)r->fs.period_ns);
	else
		cJSON_AddNullToObject(fs, "period_ns");
	cJSON_AddStringToObject(fs, "why", r->fs.why);
	cJSON_AddItemToObject(k, "fair_server", fs);
	/* preempt, sched_features, servers per CPU, RT groups, uclamp, sched_ext. */
	cJSON_ArrayForEach (f, r->kernel_facts)
		cJSON_AddItemToObject(k, f->string, cJSON_Duplicate(f, 1));
}

/* The machine: CPU model, hypervisor, and steal during the run. */
static cJSON *system_json(const struct il_result *r)
{
	cJSON *s = r->system_facts ? cJSON_Duplicate(r->system_facts, 1) : cJSON_CreateObject();

	if (!r->system_facts) {
		cJSON_AddStringToObject(s, "cpu_model",
					"unreadable: the run ended before it was read");
		cJSON_AddStringToObject(s, "hypervisor",
					"unreadable: the run ended before it was read");
	}
	if (r->steal_pct >= 0)
		cJSON_AddNumberToObject(s, "steal_pct", r->steal_pct);
	else
		cJSON_AddStringToObject(s, "steal_pct",
					r->steal_why && r->steal_why[0]
					    ? r->steal_why
					    : "unreadable: the run ended before it was measured");
	return s;
}

static cJSON *scenario_json(const struct il_result *r)
{
	const struct il_run_opts *o = r->o;
	cJSON *s = cJSON_CreateObject(), *w = cJSON_CreateObject();
	char text[300];

	cJSON_AddNumberToObject(s, "events", (double)o->events);
	cJSON_AddNumberToObject(s, "interval_ms", (double)o->interval_us / 1e3);
	cJSON_AddNumberToObject(s, "timeout_ms", (double)o->timeout_ms);
	cJSON_AddNumberToObject(s, "duration_ms", (double)o->duration_ms);
	il_input_spec_format(&o->input, text, sizeof(text));
	cJSON_AddStringToObject(s, "input", text);
	il_present_spec_format(&o->present, text, sizeof(text));
	cJSON_AddStringToObject(s, "present", text);
	for (int t = 0; t < IL_T_COUNT; t++)
		cJSON_AddNumberToObject(w, il_chain_thread(t)->name, (double)o->work_us[t]);
	cJSON_AddItemToObject(s, "work_us", w);
	cJSON_AddNumberToObject(s, "hog_threads", (double)o->hog_threads);
	cJSON_AddStringToObject(s, "hog_mode",
				o->hog_threads ? il_hog_mode_name_of(o->hog_mode) : "none");
	cJSON_AddNumberToObject(s, "load_threads", (double)o->load_threads);
	if (o->background)
		cJSON_AddStringToObject(s, "background", o->background);
	else
		cJSON_AddNullToObject(s, "background");
	cJSON_AddStringToObject(s, "lock", il_lock_kind_name(o->lock));
	return s;
}

static cJSON *hops_json(const struct il_run_stats *h)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_hop_desc *d = il_chain_hop(k);
		uint64_t known = h->same_cpu[k] + h->cross_cpu[k];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "index", k);
		cJSON_AddStringToObject(o, "name", d->name);
		cJSON_AddStringToObject(o, "kind", il_hop_kind_name(d->kind));
		/* Hops up to the flip request add up to processing latency. */
		cJSON_AddBoolToObject(o, "in_processing", k <= IL_STAMP_PROCESSED);
		cJSON_AddStringToObject(o, "from", il_chain_hop_from(d));
		cJSON_AddStringToObject(o, "to", il_chain_hop_to(d));
		cJSON_AddItemToObject(o, "p50_us", pct_json(h->hop[k], 50));
		cJSON_AddItemToObject(o, "p99_us", pct_json(h->hop[k], 99));
		cJSON_AddItemToObject(o, "max_us",
				      il_hist_count(h->hop[k])
					  ? cJSON_CreateNumber(us(il_hist_max(h->hop[k])))
					  : cJSON_CreateNull());
		/* Exact, so the means of hops 1..11 add up to the processing mean
		 * (per-hop medians do not add up to anything). */
		cJSON_AddItemToObject(o, "mean_us",
				      il_hist_count(h->hop[k])
					  ? cJSON_CreateNumber(il_hist_mean(h->hop[k]) / 1e3)
					  : cJSON_CreateNull());
		/* From the stamps alone: the sender's handler, then the wait for the receiver's. */
		cJSON_AddItemToObject(o, "work_p50_us", pct_json(h->hop_work[k], 50));
		cJSON_AddItemToObject(o, "queue_p50_us", pct_json(h->hop_queue[k], 50));
		/* Where sender and receiver ran: the CPU of stamp k-1 and of stamp k. */
		cJSON_AddNumberToObject(o, "same_cpu", (double)h->same_cpu[k]);
		cJSON_AddNumberToObject(o, "cross_cpu", (double)h->cross_cpu[k]);
		cJSON_AddNumberToObject(o, "cpu_unknown", (double)h->cpu_unknown[k]);
		/* Events left out because this hop's stamp came before the last one. */
		cJSON_AddNumberToObject(o, "out_of_order", (double)h->out_of_order_hop[k]);
		if (known)
			cJSON_AddNumberToObject(o, "same_cpu_fraction",
						(double)h->same_cpu[k] / (double)known);
		else
			cJSON_AddNullToObject(o, "same_cpu_fraction");
		/* The hop's latency by placement (null when it never had it). */
		if (h->same_cpu[k])
			cJSON_AddNumberToObject(o, "same_cpu_p50_us",
						us(il_hist_percentile(h->hop_same_cpu[k], 50)));
		else
			cJSON_AddNullToObject(o, "same_cpu_p50_us");
		if (h->cross_cpu[k])
			cJSON_AddNumberToObject(o, "cross_cpu_p50_us",
						us(il_hist_percentile(h->hop_cross_cpu[k], 50)));
		else
			cJSON_AddNullToObject(o, "cross_cpu_p50_us");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* Milliseconds from a to b, or null when either was never reached. */
static void add_span_ms(cJSON *o, const char *key, uint64_t a, uint64_t b)
{
	if (a && b && b >= a)
		cJSON_AddNumberToObject(o, key, (double)(b - a) / 1e6);
	else
		cJSON_AddNullToObject(o, key);
}

/* A milestone on CLOCK_MONOTONIC, or null when the run never reached it. */
static void add_stamp_ns(cJSON *o, const char *key, uint64_t t)
{
	if (t)
		cJSON_AddNumberToObject(o, key, (double)t);
	else
		cJSON_AddNullToObject(o, key);
}

/*
 * Where a run's fixed cost goes: from `inputlat run` to the first injected
 * event (each stage), and from the stop to the outputs. A sweep cell pays
 * it once per run, whatever the number of events.
 */
static void startup_json(const struct il_result *r, cJSON *root)
{
	cJSON *s = cJSON_AddObjectToObject(root, "startup_ms");
	cJSON *t = cJSON_AddObjectToObject(root, "teardown_ms");

	add_span_ms(s, "preflight", r->enter_ns, r->preflight_ns);
	/* The BPF programs' load and attach, and the outputs' sinks. */
	add_span_ms(s, "attribution", r->preflight_ns, r->attributed_ns);
	/* Memory locked, deep idle states held off, the work loop timed. */
	add_span_ms(s, "calibrate", r->attributed_ns, r->calibrated_ns);
	add_span_ms(s, "knobs", r->calibrated_ns, r->knobs_set_ns);
	/* The kernel's configuration and the system's, read for the report
	 * (its BTF, its config, /sys): with the policy's knobs in force. */
	add_span_ms(s, "facts", r->knobs_set_ns, r->facts_ns);
	/* The watchdog, the loop, the background load. */
	add_span_ms(s, "loop", r->facts_ns, r->prespawn_ns);
	add_span_ms(s, "spawn", r->prespawn_ns, r->spawned_ns);
	add_span_ms(s, "children_ready", r->spawned_ns, r->measure_start_ns);
	add_span_ms(s, "settle", r->measure_start_ns, r->first_inject_ns);
	add_span_ms(s, "to_first_event", r->enter_ns, r->first_inject_ns);
	add_span_ms(t, "children_exit", r->stop_ns, r->end_ns);
	add_span_ms(t, "streamed_outputs", r->end_ns, r->outputs_streamed_ns);
	if (r->enter_ns && r->first_inject_ns && r->stop_ns && r->outputs_streamed_ns)
		cJSON_AddNumberToObject(root, "fixed_cost_ms",
					(double)(r->first_inject_ns - r->enter_ns +
						 r->outputs_streamed_ns - r->stop_ns) /
					    1e6);
	else
		cJSON_AddNullToObject(root, "fixed_cost_ms");
	/*
	 * The same milestones as times, on CLOCK_MONOTONIC (perf record -k
	 * mono's clock), for a reader to set beside its own: a child killed
	 * at T is seen dying at stop (a failed run's), and the process's exit
	 * comes after outputs_streamed. Without them a 2 s exit after a kill
	 * could not be split between the two (test_faults, under load).
	 */
	cJSON *m = cJSON_AddObjectToObject(root, "milestones_ns");

	cJSON_AddStringToObject(m, "clock", "CLOCK_MONOTONIC");
	add_stamp_ns(m, "enter", r->enter_ns);
	add_stamp_ns(m, "first_event", r->first_inject_ns);
	add_stamp_ns(m, "stop", r->stop_ns);
	add_stamp_ns(m, "children_exited", r->end_ns);
	add_stamp_ns(m, "outputs_streamed", r->outputs_streamed_ns);
}

/*
 * The files the run wrote besides this report, absolute (a relative name
 * is of the run's working directory, which a later reader does not know),
 * null for those it was not asked for: `explain --event N` points at the
 * records of a run that kept them.
 */
static cJSON *outputs_json(const struct il_result *r)
{
	const struct {
		const char *key, *path;
		int err;
	} outs[] = {
	    {"json", r->o->json_path, 0},
	    {"records", r->o->records_path, r->records_err},
	    {"trace", r->o->trace_path, r->trace_err},
	    {"hist", r->o->hist_path, r->hist_err},
	    {"hist_csv", r->o->hist_csv_path, r->hist_csv_err},
	};
	cJSON *o = cJSON_CreateObject();
	char cwd[PATH_MAX], abs[2 * PATH_MAX + 2];
	bool have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;

	for (size_t i = 0; o && i < sizeof(outs) / sizeof(outs[0]); i++) {
		const char *p = outs[i].path;

		if (!p || !strcmp(p, "-")) {
			/* Not asked for, or standard output: no file to name. */
			cJSON_AddItemToObject(o, outs[i].key,
					      p ? cJSON_CreateString("-") : cJSON_CreateNull());
			continue;
		}
		if (outs[i].err) {
			/* Asked for and not written: no path to a file that
			 * does not exist (explain --event looks there). */
			snprintf(abs, sizeof(abs), "not written: %s", strerror(-outs[i].err));
			cJSON_AddStringToObject(o, outs[i].key, abs);
			continue;
		}
		if (p[0] != '/' && have_cwd) {
			snprintf(abs, sizeof(abs), "%s/%s", cwd, p);
			p = abs;
		}
		cJSON_AddStringToObject(o, outs[i].key, p);
	}
	return o;
}

static cJSON *threads_json(const struct il_result *r)
{
	cJSON *a = cJSON_CreateArray(), *t;

	/* Flatten each thread's read-back attributes next to its identity. */
	cJSON_ArrayForEach (t, r->threads) {
		cJSON *o = cJSON_Duplicate(t, 1),
		      *sched = cJSON_DetachItemFromObjectCaseSensitive(o, "sched"), *f;

		if (sched) {
			cJSON_ArrayForEach (f, sched)
				cJSON_AddItemToObject(o, f->string, cJSON_Duplicate(f, 1));
			cJSON_Delete(sched);
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *knobs_json(const struct il_result *r)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < r->knobs->n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "path", r->knobs->changes[i].path);
		cJSON_AddStringToObject(o, "original", r->knobs->changes[i].original);
		cJSON_AddStringToObject(o, "applied", r->knobs->changes[i].applied);
		/* What putting it back did, not what it should have done. */
		cJSON_AddBoolToObject(o, "restored", r->knobs->changes[i].restored);
		if (r->knobs->changes[i].restore_err)
			cJSON_AddStringToObject(o, "restore_error",
						strerror(-r->knobs->changes[i].restore_err));
		else
			cJSON_AddNullToObject(o, "restore_error");
		/* Someone else's value, found at the end and left alone. */
		if (r->knobs->changes[i].left_as[0])
			cJSON_AddStringToObject(o, "left_as", r->knobs->changes[i].left_as);
		else
			cJSON_AddNullToObject(o, "left_as");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *histogram_json(const struct il_hist *h)
{
	cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "unit", "us");
	cJSON_AddStringToObject(o, "of", "processing");
	for (size_t i = 0; i < il_hist_nbuckets(); i++) {
		uint64_t n = il_hist_bucket_count(h, i);
		cJSON *pair;

		if (!n)
			continue;
		pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(us(il_hist_bucket_upper(i))));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)n));
		cJSON_AddItemToArray(b, pair);
	}
	cJSON_AddItemToObject(o, "buckets", b);
	return o;
}

/* A JSON array of latencies in us, printed once as raw text: 10^5 numbers
 * as cJSON nodes would cost ~8 MB for a moment, as text ~1 MB. */
static cJSON *samples_array(const uint64_t *ns, size_t n)
{
	size_t cap = 3 + n * 24, len = 0; /* "[", the numbers, "]", NUL */
	char *text = malloc(cap);
	cJSON *a;

	if (!text)
		return cJSON_CreateArray();
	text[len++] = '[';
	for (size_t i = 0; i < n; i++) {
		double v = us(ns[i]);
		char num[32];

		/* As cJSON prints a number: the shorter of %.15g / %.17g that round-trips. */
		snprintf(num, sizeof(num), "%1.15g", v);
		if (strtod(num, NULL) != v)
			snprintf(num, sizeof(num), "%1.17g", v);
		len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? "," : "", num);
	}
	text[len++] = ']';
	text[len] = '\0';
	a = cJSON_CreateRaw(text);
	free(text);
	return a ? a : cJSON_CreateArray();
}

static cJSON *samples_json(const struct il_result *r)
{
	const struct il_run_stats *s = r->run_stats;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "processing", samples_array(s->sample_processing_ns, s->nsamples));
	cJSON_AddItemToObject(o, "presentation",
			      samples_array(s->sample_presentation_ns, s->nsamples));
	/* Every completed event up to the bound, else a uniform sample of them. */
	cJSON_AddStringToObject(o, "method", s->samples_seen > s->nsamples ? "reservoir" : "all");
	cJSON_AddNumberToObject(o, "kept", (double)s->nsamples);
	cJSON_AddNumberToObject(o, "of", (double)s->samples_seen);
	return o;
}

/*
 * One of a child's figures (hog, canary, load) as the child sent it, and
 * KEY_why: null when it is there or was not asked for (no hog: "hog" is
 * null), "unreadable: ..." when the child's stats never came.
 */
static void add_child_stat(cJSON *root, const struct il_result *r, enum il_proc_id p,
			   const char *key)
{
	const cJSON *s = r->stats[p];
	const cJSON *v = s ? cJSON_GetObjectItemCaseSensitive(s, key) : NULL;
	char why_key[32], why[256];

	if (v)
		cJSON_AddItemToObject(root, key, cJSON_Duplicate(v, 1));
	else
		cJSON_AddNullToObject(root, key);
	snprintf(why_key, sizeof(why_key), "%s_why", key);
	if (!s && r->stats_why[p][0]) {
		snprintf(why, sizeof(why), "unreadable: %s sent no stats (%s)",
			 il_chain_proc(p)->program, r->stats_why[p]);
		cJSON_AddStringToObject(root, why_key, why);
	} else {
		cJSON_AddNullToObject(root, why_key);
	}
}

/* stats_missing: each child of the chain whose final stats never came,
 * with why; empty when all came. */
static cJSON *stats_missing_json(const struct il_result *r)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (!r->stats[i] && r->stats_why[i][0])
			cJSON_AddStringToObject(o, il_chain_proc(i)->program, r->stats_why[i]);
	return o;
}

/* --- work accuracy, hygiene, warnings -------------------------------- */

/* One pipeline thread's work: configured per handler, measured (p50). */
struct work_acc {
	uint64_t handlers;
	double configured_us, p50_us, ratio; /* ratio: NAN without work or too few handlers */
};

/* Whether the thread CPU clock can time a handler (il_work.h). */
static bool work_clock_fine(const struct il_result *r)
{
	return r->cpu_clock_step_ns <= IL_WORK_FINE_CLOCK_NS;
}

/*
 * Each handler measures the thread CPU time of its work (il_hop_end), so
 * preemption is not in it. Under the loops model, measured / configured is
 * 1 when the calibrated loop ran as fast as at calibration: a slower CPU
 * (a busy sibling of a shared core, the hypervisor) or a calibration made
 * while the CPU was slow moves it. Under cpu-time it is 1 by construction
 * of the work, so what moves it is the handler's own cost per call, or a
 * work loop that missed its mark: a check of il_work_us, measured.
 */
static void work_accuracy(const struct il_result *r, struct work_acc acc[IL_T_COUNT])
{
	for (int t = 0; t < IL_T_COUNT; t++) {
		const struct il_hist *h = r->run_stats->work[t];

		acc[t] = (struct work_acc){.configured_us = (double)r->o->work_us[t],
					   .handlers = il_hist_count(h),
					   .p50_us = NAN,
					   .ratio = NAN};
		/* A clock that moves in ticks measures most handlers at 0 and
		 * some at a tick: no ratio is judged from it. */
		if (acc[t].handlers >= WORK_MIN_HANDLERS && acc[t].configured_us > 0 &&
		    work_clock_fine(r)) {
			/* Less the cost of the measurement itself (two clock reads). */
			acc[t].p50_us = us(il_hist_percentile(h, 50)) - us(r->clock_overhead_ns);
			acc[t].ratio = acc[t].p50_us / acc[t].configured_us;
		}
	}
}

/*
 * The CPU's speed against the calibration, from every judged handler at
 * once: measured over configured work, summed, so the big handlers
 * weigh most. A slower CPU moves every handler alike; a handler off on
 * its own while this is near 1 either pays a fixed cost per call (a few
 * us, which a 10 us handler shows as 160%: WORK_FIXED_COST_US) or ran on
 * a CPU of another speed than the rest (on this VM the vCPUs' speed moves
 * between threads of one run). NAN when no handler is judged.
 */
static double work_speed(const struct work_acc acc[IL_T_COUNT])
{
	double measured = 0, configured = 0;

	for (int t = 0; t < IL_T_COUNT; t++)
		if (!isnan(acc[t].ratio)) {
			measured += acc[t].p50_us;
			configured += acc[t].configured_us;
		}
	return configured > 0 ? measured / configured : NAN;
}

static cJSON *num_or_null(double v)
{
	return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static cJSON *work_accuracy_json(const struct il_result *r)
{
	struct work_acc acc[IL_T_COUNT];
	cJSON *o = cJSON_CreateObject(), *th = cJSON_CreateObject();
	int worst = -1;

	work_accuracy(r, acc);
	cJSON_AddNumberToObject(o, "tolerance", WORK_TOLERANCE);
	cJSON_AddNumberToObject(o, "min_handlers", WORK_MIN_HANDLERS);
	cJSON_AddStringToObject(o, "model", il_work_model_name(r->work_model));
	if (!work_clock_fine(r)) {
		char why[200];

		if (r->cpu_clock_step_ns == UINT64_MAX)
			snprintf(why, sizeof(why),
				 "unreadable: the thread CPU clock did not move in 20 ms here");
		else
			snprintf(
			    why, sizeof(why),
			    "unreadable: the thread CPU clock moves in %.0f us steps here, too "
			    "coarse to time a handler's work",
			    (double)r->cpu_clock_step_ns / 1e3);
		cJSON_AddStringToObject(o, "why", why);
		/* A clock that never moved has no step to give: said, not a number. */
		if (r->cpu_clock_step_ns == UINT64_MAX)
			cJSON_AddStringToObject(o, "cpu_clock_step_ns", why);
	}
	if (r->cpu_clock_step_ns != UINT64_MAX)
		cJSON_AddNumberToObject(o, "cpu_clock_step_ns", (double)r->cpu_clock_step_ns);
	cJSON_AddNumberToObject(o, "loops_per_us", r->loops_per_us);
	cJSON_AddNumberToObject(o, "test_work_scale", r->o->test.work_scale);
	cJSON_AddNumberToObject(o, "clock_overhead_ns", (double)r->clock_overhead_ns);
	for (int t = 0; t < IL_T_COUNT; t++) {
		const struct il_thread_desc *d = il_chain_thread(t);
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "role", il_role_name(d->role));
		cJSON_AddNumberToObject(e, "configured_us", acc[t].configured_us);
		cJSON_AddItemToObject(e, "measured_p50_us", num_or_null(acc[t].p50_us));
		cJSON_AddItemToObject(e, "ratio", num_or_null(acc[t].ratio));
		cJSON_AddNumberToObject(e, "handlers", (double)acc[t].handlers);
		cJSON_AddItemToObject(th, d->name, e);
		if (!isnan(acc[t].ratio) &&
		    (worst < 0 || fabs(acc[t].ratio - 1) > fabs(acc[worst].ratio - 1)))
			worst = t;
	}
	cJSON_AddItemToObject(o, "speed_ratio", num_or_null(work_speed(acc)));
	if (worst >= 0) {
		cJSON_AddBoolToObject(o, "ok", fabs(acc[worst].ratio - 1) <= WORK_TOLERANCE);
		cJSON_AddStringToObject(o, "worst_thread", il_chain_thread(worst)->name);
		cJSON_AddNumberToObject(o, "worst_ratio", acc[worst].ratio);
	} else {
		/* Nothing to judge: too few events completed, --work none, or a
		 * thread CPU clock too coarse to time a handler (`why`). */
		cJSON_AddNullToObject(o, "ok");
		cJSON_AddNullToObject(o, "worst_thread");
		cJSON_AddNullToObject(o, "worst_ratio");
	}
	cJSON_AddItemToObject(o, "threads", th);
	return o;
}

/*
 * What the harness's own threads asked for and got: the watchdog, this
 * loop, each child's control thread. Under an RT policy they must outrank
 * the pipeline to inject, answer pings and stop in time; a report must not
 * claim that when the kernel refused it. A child that sent no stats has
 * null (stats_missing says why).
 */
static cJSON *harness_threads_json(const struct il_result *r)
{
	cJSON *a = cJSON_CreateArray();

	cJSON_AddItemToArray(a, il_sched_ask_json(&r->watchdog_ask, "inputlat:watchdog"));
	if (r->loop_ask)
		cJSON_AddItemToArray(a, il_sched_ask_json(r->loop_ask, "inputlat:loop"));
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		static const char *const keys[] = {"asked", "got", "why"};
		const cJSON *v = r->stats[i]
				     ? cJSON_GetObjectItemCaseSensitive(r->stats[i], "control_rt")
				     : NULL;
		cJSON *e = cJSON_CreateObject();
		char name[64];

		snprintf(name, sizeof(name), "%s:control", il_chain_proc(i)->program);
		cJSON_AddStringToObject(e, "thread", name);
		for (size_t k = 0; k < 3; k++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(v, keys[k]);

			if (cJSON_IsString(x))
				cJSON_AddStringToObject(e, keys[k], x->valuestring);
			else if (k == 2 && !cJSON_IsObject(v))
				cJSON_AddStringToObject(e, keys[k],
							"unreadable: the process sent no stats");
			else
				cJSON_AddNullToObject(e, keys[k]);
		}
		/* Its tid and kernel name, as the child read them (null when it
		 * sent no stats, or none). */
		{
			const cJSON *tid = cJSON_GetObjectItemCaseSensitive(v, "tid"),
				    *comm = cJSON_GetObjectItemCaseSensitive(v, "comm");

			if (cJSON_IsNumber(tid))
				cJSON_AddNumberToObject(e, "tid", tid->valuedouble);
			else
				cJSON_AddNullToObject(e, "tid");
			if (cJSON_IsString(comm))
				cJSON_AddStringToObject(e, "comm", comm->valuestring);
			else
				cJSON_AddNullToObject(e, "comm");
		}
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* A harness thread that did not get what it asked for: under an RT
 * policy it can be delayed by the work it serves; under a fair one it is
 * not the baseline the run describes (started under chrt or nice, and
 * not allowed to leave it). */
static void harness_threads_check(const struct il_result *r, struct il_warnings *w)
{
	bool rt = il_policy_uses_rt(r->policy);
	const cJSON *e, *first = NULL;
	cJSON *a;
	int n = 0;

	a = harness_threads_json(r);
	/* One line for all of them (they are refused together, as a rule),
	 * naming the first; hygiene.harness_threads has each. */
	cJSON_ArrayForEach (e, a) {
		const char *asked =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "asked"));
		const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "got"));
		const char *thread =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "thread"));

		if (!asked || !got || !strcmp(asked, got))
			continue;
		/* The watchdog outranks everything where it may; under a fair
		 * policy nothing of ours needs it to. */
		if (!rt && thread && !strcmp(thread, "inputlat:watchdog"))
			continue;
		if (!n++)
			first = e;
	}
	if (n) {
		const char *why =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "why"));
		char more[48] = "";

		if (n > 1)
			snprintf(more, sizeof(more), ", and %d more thread%s", n - 1,
				 n > 2 ? "s" : "");
		il_warn(w, "harness: %s runs %s, not the %s it asked for (%s)%s%s",
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "thread")),
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "got")),
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(first, "asked")),
			why ? why : "no reason given", more,
			rt ? ": the policy's RT threads can delay them, so injections, pings and "
			     "the stop may come late"
			   : "");
	}
	cJSON_Delete(a);
}

/* A thread whose scheduling someone else changed during the run (read
 * again before the stop, "changed" in its record). */
static void threads_changed_check(const struct il_result *r, struct il_warnings *w)
{
	const cJSON *t;

	cJSON_ArrayForEach (t, r->threads) {
		const char *c =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "changed"));

		if (c)
			il_warn(w,
				"threads: %s's scheduling was changed during the run (%s): the run "
				"was not under its policy throughout",
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")),
				c);
	}
}

/* A knob someone else changed while the run held it: theirs now, left
 * alone at the end, and the run was not under its policy's value all
 * along. */
static void knobs_check(const struct il_result *r, struct il_warnings *w)
{
	for (size_t i = 0; r->knobs && i < r->knobs->n; i++) {
		const struct il_knob_change *c = &r->knobs->changes[i];

		if (c->left_as[0])
			il_warn(w,
				"knobs: %s was changed to %s by someone else during the run (the "
				"policy set %s): left as it is, and the run was not under the "
				"policy's value throughout",
				c->path, c->left_as, c->applied);
	}
}

/* A --background load that ended during the run: the run was measured
 * under it for part of its time only. */
static void background_check(const struct il_result *r, struct il_warnings *w)
{
	const char *ended =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->background, "ended"));

	if (ended)
		il_warn(w,
			"--background '%s' %s: only part of the run had the background load it "
			"asked for",
			cJSON_GetStringValue(
			    cJSON_GetObjectItemCaseSensitive(r->background, "command")),
			ended);
}

/*
 * RLIMIT_RTTIME as the kernel holds it for every thread of ours (set before
 * the first RT one, the watchdog, and never changed): read back, not the
 * value asked for. A limit is null with why when there is none.
 */
static cJSON *rttime_json(const struct il_result *r)
{
	cJSON *o = cJSON_CreateObject();
	struct rlimit rl;
	char why[160];

	if (getrlimit(RLIMIT_RTTIME, &rl) != 0) {
		snprintf(why, sizeof(why), "unreadable: getrlimit: %s", strerror(errno));
		cJSON_AddNullToObject(o, "soft_us");
		cJSON_AddNullToObject(o, "hard_us");
		cJSON_AddStringToObject(o, "why", why);
		return o;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		cJSON_AddNullToObject(o, "soft_us");
	else
		cJSON_AddNumberToObject(o, "soft_us", (double)rl.rlim_cur);
	if (rl.rlim_max == RLIM_INFINITY)
		cJSON_AddNullToObject(o, "hard_us");
	else
		cJSON_AddNumberToObject(o, "hard_us", (double)rl.rlim_max);
	if (r->rttime_why && r->rttime_why[0])
		cJSON_AddStringToObject(o, "why", r->rttime_why);
	else if (rl.rlim_cur == RLIM_INFINITY)
		cJSON_AddStringToObject(o, "why", "unlimited: never set");
	else
		cJSON_AddNullToObject(o, "why");
	return o;
}

static cJSON *hygiene_json(const struct il_result *r)
{
	cJSON *o = cJSON_CreateObject(), *ml = cJSON_CreateObject(), *me, *dma;

	cJSON_AddNumberToObject(o, "warmup_events", (double)r->warmup);
	cJSON_AddNumberToObject(o, "stack_prefault_kib", IL_STACK_PREFAULT_KIB);
	/* Memory locking, per process: ours here, the children's from their stats. */
	me = cJSON_AddObjectToObject(ml, "inputlat");
	cJSON_AddBoolToObject(me, "locked", !r->memlock_why[0]);
	/* At the stop, as the children's: read here, after the teardown, it
	 * was another figure (138 MiB against 105 MiB during the run). */
	if (r->locked_kib >= 0)
		cJSON_AddNumberToObject(me, "locked_vm_kib", (double)r->locked_kib);
	else
		cJSON_AddNullToObject(me, "locked_vm_kib");
	if (r->memlock_why[0])
		cJSON_AddStringToObject(me, "why", r->memlock_why);
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *s = r->stats[i];
		const cJSON *v = s ? cJSON_GetObjectItemCaseSensitive(s, "memlock") : NULL;

		cJSON_AddItemToObject(ml, il_chain_proc(i)->program,
				      v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
	}
	cJSON_AddItemToObject(o, "memlock", ml);
	cJSON_AddItemToObject(o, "harness_threads", harness_threads_json(r));
	cJSON_AddItemToObject(o, "rttime", rttime_json(r));
	dma = cJSON_AddObjectToObject(o, "cpu_dma_latency");
	cJSON_AddBoolToObject(dma, "held", r->dma_held);
	if (r->dma_held && r->dma_value_us >= 0) {
		cJSON_AddNumberToObject(dma, "value_us", (double)r->dma_value_us);
		cJSON_AddNullToObject(dma, "why");
	} else if (r->dma_held) {
		cJSON_AddNullToObject(dma, "value_us");
		cJSON_AddStringToObject(dma, "why", r->dma_why ? r->dma_why : "");
	} else {
		cJSON_AddNullToObject(dma, "value_us");
		cJSON_AddStringToObject(dma, "why", r->dma_why ? r->dma_why : "");
	}
	return o;
}

/*
 * trace_marker: null without --trace-marker; else whether tracing was on
 * at the start, and per process what it wrote, what the kernel refused,
 * or why it could not open the file at all: a trace that lacks markers
 * says why here.
 */
static cJSON *trace_marker_json(const struct il_result *r)
{
	cJSON *o, *p;
	char why[96];

	if (!r->marks || !r->marks->asked)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (r->tracing_on >= 0) {
		cJSON_AddBoolToObject(o, "tracing_on", r->tracing_on);
		cJSON_AddNullToObject(o, "tracing_on_why");
	} else {
		snprintf(why, sizeof(why), "unreadable: %s", strerror(-r->tracing_on));
		cJSON_AddNullToObject(o, "tracing_on");
		cJSON_AddStringToObject(o, "tracing_on_why", why);
	}
	p = cJSON_AddObjectToObject(o, "processes");
	cJSON_AddItemToObject(p, "inputlat", il_marks_json(r->marks));
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *m = r->stats[i]
				     ? cJSON_GetObjectItemCaseSensitive(r->stats[i], "trace_marker")
				     : NULL;

		if (il_chain_proc(i)->in_chain)
			cJSON_AddItemToObject(p, il_chain_proc(i)->program,
					      m ? cJSON_Duplicate(m, 1) : cJSON_CreateNull());
	}
	return o;
}

/*
 * Why markers failed, in words: the kernel answers EBADF to a write while
 * tracing_on is 0 (6.18), which read as a bad descriptor of ours.
 */
static const char *marker_error_words(const struct il_result *r, const char *err)
{
	if (r->tracing_on == 0 && err && strcmp(err, strerror(EBADF)) == 0)
		return "refused by the kernel while tracing_on is 0: EBADF";
	return err ? err : "?";
}

/* A warning for each process whose markers did not all reach the trace. */
static void trace_marker_check(const struct il_result *r, struct il_warnings *w)
{
	if (!r->marks || !r->marks->asked)
		return;
	if (atomic_load(&r->marks->failed))
		il_warn(w, "--trace-marker: inputlat: %llu of %llu markers not written (%s)",
			(unsigned long long)atomic_load(&r->marks->failed),
			(unsigned long long)(atomic_load(&r->marks->failed) +
					     atomic_load(&r->marks->written)),
			marker_error_words(r, strerror(atomic_load(&r->marks->first_err))));
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *m = r->stats[i]
				     ? cJSON_GetObjectItemCaseSensitive(r->stats[i], "trace_marker")
				     : NULL;
		const char *open_err =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "open_error"));
		const cJSON *failed = cJSON_GetObjectItemCaseSensitive(m, "failed");
		const cJSON *written = cJSON_GetObjectItemCaseSensitive(m, "written");

		if (open_err)
			il_warn(w,
				"--trace-marker: %s could not open trace_marker: %s; its hops "
				"have no markers",
				il_chain_proc(i)->program, open_err);
		else if (cJSON_IsNumber(failed) && failed->valuedouble > 0)
			il_warn(w, "--trace-marker: %s: %.0f of %.0f markers not written (%s)",
				il_chain_proc(i)->program, failed->valuedouble,
				failed->valuedouble + cJSON_GetNumberValue(written),
				marker_error_words(
				    r, cJSON_GetStringValue(
					   cJSON_GetObjectItemCaseSensitive(m, "first_error"))));
	}
}

/*
 * Events a full queue inside the chain refused (each process's stats
 * `queues`): they never reached the screen, so the run counts them timed
 * out, and this says where they went. `where` names the queues. -1 when
 * a chain process's stats are missing (then nobody knows).
 */
static double dropped_in_chain(const struct il_result *r, char *where, size_t len)
{
	double total = 0;
	size_t off = 0;

	if (len)
		where[0] = '\0';
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *qs =
		    r->stats[i] ? cJSON_GetObjectItemCaseSensitive(r->stats[i], "queues") : NULL;
		const cJSON *q;

		if (i != IL_PROC_WORKLOAD && !cJSON_IsObject(qs))
			return -1;
		cJSON_ArrayForEach (q, qs) {
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(q, "dropped");

			if (!cJSON_IsNumber(d) || d->valuedouble <= 0)
				continue;
			total += d->valuedouble;
			if (off < len)
				off += (size_t)snprintf(where + off, len - off, "%s%s %s %.0f",
							off ? ", " : "", il_chain_proc(i)->program,
							q->string, d->valuedouble);
		}
	}
	return total;
}

/*
 * Frames a chain process could not write to the next (each process's
 * stats `send_errors`; viz-sim's record to the orchestrator is the last
 * of them, its feedback to browser-sim apart, after the event was
 * presented): an event whose frame was lost never reaches the orchestrator
 * and counts as timed out (or in flight, if the run was stopped first), so
 * the report says where sends failed. The processes count only what
 * failed before they were told to stop (il_hop_send): at the stop they
 * close their ends, and frames still in flight fail.
 */
static void send_errors_check(const struct il_result *r, struct il_warnings *w)
{
	char where[200] = "";
	size_t off = 0;
	double total = 0;

	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *e = r->stats[i]
				     ? cJSON_GetObjectItemCaseSensitive(r->stats[i], "send_errors")
				     : NULL;

		if (!cJSON_IsNumber(e) || e->valuedouble <= 0)
			continue;
		total += e->valuedouble;
		if (off < sizeof(where))
			off += (size_t)snprintf(where + off, sizeof(where) - off, "%s%s %.0f",
						off ? ", " : "", il_chain_proc(i)->program,
						e->valuedouble);
	}
	if (total > 0)
		il_warn(w,
			"events: %.0f frames could not be sent on between processes (%s); their "
			"events were never measured (timed out, or in flight at the stop)",
			total, where);
}

/*
 * A timed-out event (one dropped in the chain counts as one) was slower
 * than every completed event, yet latency_us ranks the completed ones
 * only: with 5 of 300 timed out its p99 is the completed events' p99, and
 * the run's own is beyond the timeout. Said for the figures the timed-out
 * events reach (nearest rank over completed and timed out, as
 * il_hist_percentile ranks; compare and reproduce rank them so, censored).
 * Events in flight at an interrupt were not shown slow and are not
 * counted. The presentation figures, fewer, are reached when these are.
 */
static void censored_check(const struct il_result *r, struct il_warnings *w)
{
	static const double qs[] = {50, 90, 99, 99.9};
	static const char *const names[] = {"p50", "p90", "p99", "p999"};
	double c = (double)il_hist_count(r->run_stats->processing), t = (double)r->timed_out;
	char list[64] = "";
	size_t i = 0, used = 0;

	if (t <= 0 || c <= 0)
		return; /* none lost; or none measured: every figure is null */
	while (i < 4 && ceil(qs[i] / 100 * (c + t)) <= c)
		i++;
	for (; i < 4; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s, ", names[i]);
	il_warn(
	    w,
	    "latency: %.0f of %.0f measured mouse-downs timed out (no frame within %llu ms) and "
	    "are in no latency figure: %smax and mean are of the %.0f completed only; over all "
	    "%.0f the run's are above the timeout or unknown",
	    t, c + t, (unsigned long long)r->o->timeout_ms, list, c, c + t);
}

void il_report_check(const struct il_result *r, struct il_warnings *w)
{
	struct work_acc acc[IL_T_COUNT];
	char cause[200], where[200];
	double speed, dropped;

	/* A run that failed has its one line on the terminal, the error; what
	 * it was under stays in its report (a memory-lock warning followed a
	 * fork failure's line). */
	w->report_only = r->fail_msg && r->fail_msg[0];
	/* A replay plays each recorded click once: fewer than asked is said. */
	if (r->o->input.kind == IL_INPUT_REPLAY && !r->interrupted &&
	    !(r->fail_msg && r->fail_msg[0]) && r->nsent < r->o->events)
		il_warn(w,
			"input: %s ran out after %llu measured mouse-downs of the %llu asked (%llu "
			"warm-up first): a replay plays each recorded click once",
			r->o->input.arg, (unsigned long long)r->nsent,
			(unsigned long long)r->o->events, (unsigned long long)r->o->warmup);
	censored_check(r, w);
	dropped = dropped_in_chain(r, where, sizeof(where));
	if (dropped > 0)
		il_warn(w,
			"events: %.0f dropped inside the chain by a queue full at its bound (%s); "
			"they count as timed out",
			dropped, where);
	if (r->run_stats->out_of_order) {
		int k = 1;

		while (k < IL_NHOPS && !r->run_stats->out_of_order_hop[k])
			k++;
		il_warn(w,
			"stamps out of order: %llu of %llu completed events had a stamp before "
			"the one before it (first at hop %d %s); they are left out of every "
			"latency figure",
			(unsigned long long)r->run_stats->out_of_order,
			(unsigned long long)r->completed, k, il_chain_hop(k)->name);
	}
	work_accuracy(r, acc);
	speed = work_speed(acc);
	/* Why a run's handlers as a whole miss their work, by work model. */
	if (r->work_model == IL_WORK_LOOPS)
		snprintf(cause, sizeof(cause),
			 "the CPU's speed during the run did not match the calibration (%.0f "
			 "loops/us)",
			 r->loops_per_us);
	else
		snprintf(cause, sizeof(cause),
			 "its handlers did not spend the CPU time they were given (work model "
			 "cpu-time, scale %g)",
			 r->o->test.work_scale);
	for (int t = 0; t < IL_T_COUNT; t++) {
		if (isnan(acc[t].ratio) || fabs(acc[t].ratio - 1) <= WORK_TOLERANCE)
			continue;
		/* Not "work: ": scripts/policy-sweep runs a round again for those. */
		if (fabs(speed - 1) <= WORK_TOLERANCE) {
			double d = acc[t].p50_us - acc[t].configured_us;

			if (fabs(d) <= WORK_FIXED_COST_US) {
				il_warn(
				    w,
				    "work cost: %s took %.0f us of CPU per handler (p50 over %llu "
				    "handlers) for %.0f us configured (%.0f%%), while the run's "
				    "handlers together did %.0f%% of theirs: %+.0f us a call, %s, "
				    "so the run stays comparable",
				    il_chain_thread(t)->name, acc[t].p50_us,
				    (unsigned long long)acc[t].handlers, acc[t].configured_us,
				    100 * acc[t].ratio, 100 * speed, d,
				    d > 0 ? "a fixed cost of this handler per call (a cold cache "
					    "after it slept, its system calls), not the CPU's speed"
					  : "small against the hops");
				continue;
			}
			/* Not "work: " either: on a VM whose vCPUs share cores
			 * the threads of one run see different speeds (most
			 * rounds of a sweep here); rounds average that out, and
			 * running them again would triple a sweep. */
			il_warn(w,
				"work spread: %s did %.0f%% of its configured work (%.0f us of "
				"CPU per handler, p50 over %llu handlers, for %.0f us configured) "
				"while the run's handlers together did %.0f%% of theirs: %+.0f us "
				"a call is more than a fixed cost: %s, and its hops' times "
				"carry that difference",
				il_chain_thread(t)->name, 100 * acc[t].ratio, acc[t].p50_us,
				(unsigned long long)acc[t].handlers, acc[t].configured_us,
				100 * speed, d,
				r->work_model == IL_WORK_LOOPS
				    ? "this thread's CPU ran its loop at another speed than the "
				      "run's others did"
				    : "this thread's handlers spent more or less CPU time than "
				      "their work, which the others did not");
			continue;
		}
		il_warn(w,
			"work: %s did %.0f%% of its configured work (%.0f us of CPU per "
			"handler, p50 over %llu handlers, for %.0f us configured): %s, so this "
			"run's latencies are not comparable with other runs",
			il_chain_thread(t)->name, 100 * acc[t].ratio, acc[t].p50_us,
			(unsigned long long)acc[t].handlers, acc[t].configured_us, cause);
	}
	trace_marker_check(r, w);
	/* What the run was under, said of a run that measured: a run that
	 * failed to start has its one line, the error (the report keeps the
	 * facts). */
	if (!(r->fail_msg && r->fail_msg[0])) {
		/* A failed run's peers fail their sends as it ends: its one error says it. */
		send_errors_check(r, w);
		harness_threads_check(r, w);
		background_check(r, w);
		knobs_check(r, w);
		threads_changed_check(r, w);
	}
	if (r->memlock_why && r->memlock_why[0])
		il_warn(w, "memory: inputlat could not lock its memory: %s", r->memlock_why);
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *ml =
		    r->stats[i] ? cJSON_GetObjectItemCaseSensitive(r->stats[i], "memlock") : NULL;
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(ml, "why");

		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ml, "locked")))
			il_warn(w, "memory: %s could not lock its memory: %s",
				il_chain_proc(i)->program,
				cJSON_IsString(why) ? why->valuestring : "?");
	}
}

static void warn_append(struct il_warnings *w, bool print, const char *fmt, va_list ap)
{
	char msg[sizeof(w->msg[0])];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (print && !w->report_only)
		fprintf(stderr, "inputlat run: warning: %s\n", msg);
	if (w->n < IL_WARNINGS_MAX)
		memcpy(w->msg[w->n++], msg, sizeof(msg));
	else
		w->dropped++;
}

void il_warn(struct il_warnings *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_append(w, true, fmt, ap);
	va_end(ap);
}

void il_warn_said(struct il_warnings *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_append(w, false, fmt, ap);
	va_end(ap);
}

/* warnings[]: every warning of the run, [] when there were none. */
static cJSON *warnings_json(const struct il_result *r)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; r->warnings && i < r->warnings->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->warnings->msg[i]));
	if (r->warnings && r->warnings->dropped) {
		char msg[80];

		snprintf(msg, sizeof(msg), "%zu more warnings (printed on stderr)",
			 r->warnings->dropped);
		cJSON_AddItemToArray(a, cJSON_CreateString(msg));
	}
	return a;
}

int il_report_json(const struct il_result *r, FILE *f)
{
	const struct il_run_stats *h = r->run_stats;
	cJSON *root, *ev, *lat, *procs;
	char *text;

	root = il_header_new(IL_RUN_FILE_VERSION, r->cmdline, &r->start_wall);
	if (!root)
		return -ENOMEM;
	kernel_json(r, cJSON_GetObjectItemCaseSensitive(root, "kernel"));
	cJSON_AddItemToObject(root, "system", system_json(r));
	/* As --seed repeats it: a string beyond 2^53. */
	cJSON_AddItemToObject(root, "seed", il_json_u64(r->seed));
	cJSON_AddStringToObject(root, "policy", il_policy_name(r->policy));
	cJSON_AddStringToObject(root, "policy_file", il_policy_path(r->policy));
	cJSON_AddItemToObject(root, "scenario", scenario_json(r));
	cJSON_AddItemToObject(root, "outputs", outputs_json(r));
	cJSON_AddNumberToObject(root, "duration_s", (double)(r->end_ns - r->start_ns) / 1e9);
	startup_json(r, root);
	/* Wake-ups per event: one per hop is the floor; the stop is not counted.
	 * The counts run from the start of the warm-up (the first sample is
	 * taken when every thread is ready), so the warm-up events divide too:
	 * dividing by the measured ones alone read 1.05 wakes a handler. */
	cJSON_AddItemToObject(root, "context_switches",
			      il_ctxsw_json(r->ctxsw, r->completed + r->warmup_completed,
					    r->stop_ns > r->measure_start_ns
						? (double)(r->stop_ns - r->measure_start_ns) / 1e9
						: 0));
	cJSON_AddNumberToObject(root, "exit_code", r->exit_code);
	if (r->fail_msg[0])
		cJSON_AddStringToObject(root, "error", r->fail_msg);
	cJSON_AddBoolToObject(root, "interrupted", r->interrupted);
	cJSON_AddItemToObject(root, "warnings", warnings_json(r));
	if (r->background)
		cJSON_AddItemToObject(root, "background", cJSON_Duplicate(r->background, 1));
	else
		cJSON_AddNullToObject(root, "background");

	ev = cJSON_AddObjectToObject(root, "events");
	cJSON_AddNumberToObject(ev, "sent", (double)r->nsent);
	cJSON_AddNumberToObject(ev, "completed", (double)r->completed);
	cJSON_AddNumberToObject(ev, "timed_out", (double)r->timed_out);
	/* Sent but neither completed nor timed out when the run ended (a stop
	 * by signal, a failure): sent = completed + timed_out + in_flight. */
	cJSON_AddNumberToObject(ev, "in_flight", (double)(r->nsent - r->completed - r->timed_out));
	/* Of timed_out, refused by a full queue inside the chain (processes.*.queues). */
	{
		double d = dropped_in_chain(r, NULL, 0);

		if (d >= 0)
			cJSON_AddNumberToObject(ev, "dropped_in_chain", d);
		else
			cJSON_AddNullToObject(ev, "dropped_in_chain");
	}
	/* Completed, with stamps out of chain order: in no figure below. */
	cJSON_AddNumberToObject(ev, "out_of_order", (double)h->out_of_order);
	cJSON_AddNumberToObject(ev, "invalid_frames", (double)r->invalid_frames);
	cJSON_AddNumberToObject(ev, "late", (double)r->late);
	cJSON_AddNumberToObject(ev, "stray", (double)r->stray);
	cJSON_AddNumberToObject(ev, "inject_errors", (double)r->inject_errors);
	/* Measured, beside the scenario's interval_ms that was asked for. */
	if (h->injected >= 2)
		cJSON_AddNumberToObject(ev, "mean_spacing_ms",
					(double)(h->inject_last_ns - h->inject_first_ns) /
					    (double)(h->injected - 1) / 1e6);
	else
		cJSON_AddNullToObject(ev, "mean_spacing_ms");
	{
		cJSON *w = cJSON_AddObjectToObject(ev, "warmup");

		/* Not in the counts above nor in any statistic of the report. */
		cJSON_AddNumberToObject(w, "sent", (double)r->warmup);
		cJSON_AddNumberToObject(w, "completed", (double)r->warmup_completed);
		cJSON_AddNumberToObject(w, "timed_out", (double)r->warmup_timed_out);
	}

	lat = cJSON_AddObjectToObject(root, "latency_us");
	cJSON_AddItemToObject(lat, "processing", latency_json(h->processing));
	cJSON_AddItemToObject(lat, "presentation", latency_json(h->presentation));
	cJSON_AddItemToObject(root, "hops", hops_json(h));
	cJSON_AddItemToObject(root, "threads", threads_json(r));
	cJSON_AddItemToObject(root, "knobs", knobs_json(r));
	cJSON_AddStringToObject(root, "work_model", il_work_model_name(r->work_model));
	cJSON_AddNumberToObject(root, "loops_per_us", r->loops_per_us);
	cJSON_AddItemToObject(root, "work_accuracy", work_accuracy_json(r));
	cJSON_AddItemToObject(root, "hygiene", hygiene_json(r));
	cJSON_AddItemToObject(root, "trace_marker", trace_marker_json(r));
	add_child_stat(root, r, IL_PROC_WORKLOAD, "canary");
	add_child_stat(root, r, IL_PROC_RENDER, "hog");
	cJSON_AddItemToObject(root, "stats_missing", stats_missing_json(r));
	add_child_stat(root, r, IL_PROC_WORKLOAD, "load");
	{
		cJSON *rss = cJSON_AddObjectToObject(root, "rss_kib");

		/* Peak RSS per process (VmHWM), as each process read it at its end. */
		cJSON_AddNumberToObject(rss, "inputlat", (double)il_rss_peak_kib());
		for (int i = 0; i < IL_PROC_COUNT; i++) {
			const cJSON *s = r->stats[i];
			const cJSON *v = s ? cJSON_GetObjectItemCaseSensitive(s, "rss_kib") : NULL;

			if (cJSON_IsNumber(v))
				cJSON_AddNumberToObject(rss, il_chain_proc(i)->program,
							v->valuedouble);
		}
	}
	procs = cJSON_AddObjectToObject(root, "processes");
	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (r->stats[i])
			cJSON_AddItemToObject(procs, il_chain_proc(i)->program,
					      cJSON_Duplicate(r->stats[i], 1));
	cJSON_AddItemToObject(root, "histogram", histogram_json(h->processing));
	cJSON_AddItemToObject(root, "samples_us", samples_json(r));
	{
		cJSON *mem = cJSON_AddObjectToObject(root, "event_window");

		/* Per-event memory is this window, not the run: see il_event_window.h. */
		cJSON_AddNumberToObject(mem, "slots", (double)r->window_slots);
		cJSON_AddNumberToObject(mem, "max_in_flight", (double)r->window_max_held);
	}
	il_event_sinks_report(r->sinks, r, root);

	/* Paths and names may hold any bytes; JSON holds UTF-8. */
	text = il_json_sanitize(root) == 0 ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	if (!text)
		return -ENOMEM;
	fputs(text, f);
	fputc('\n', f);
	free(text);
	return report_done(f);
}

/*
 * cyclictest's --histogram layout and meaning: one row per 1 us bucket
 * (the latency truncated to whole microseconds) below --hist-max-us, one
 * column per series (processing, presentation); "# Total" counts the
 * samples inside the buckets only; "# Min/Avg/Max Latencies" cover every
 * sample, in whole microseconds; "# Histogram Overflows" counts the
 * samples at or above --hist-max-us, and "# Histogram Overflow at cycle
 * number" lists their event ids (cyclictest's cycles), at most
 * --hist-max-us of them, then "# NNNNN others". The differences (comment
 * lines before "# Histogram", "# Timed out", warm-up events left out)
 * are named in the README.
 */
int il_report_hist(const struct il_result *r, FILE *f)
{
	const struct il_run_stats *h = r->run_stats;
	uint64_t max_us = h->hist_max_us;
	bool any = il_hist_count(h->processing) > 0;

	if (!h->hist_count)
		return -EINVAL;
	fprintf(f, "# inputlat histogram, 1 us buckets; columns: processing presentation\n");
	fprintf(f, "# policy %s; %llu warm-up events left out\n", il_policy_name(r->policy),
		(unsigned long long)r->warmup);
	fprintf(f, "# Histogram\n");
	for (uint64_t b = 0; b < max_us; b++)
		fprintf(f, "%06llu %06llu\t%06llu\n", (unsigned long long)b,
			(unsigned long long)h->hist_count[2 * b],
			(unsigned long long)h->hist_count[2 * b + 1]);
	fprintf(f, "# Total: %09llu %09llu\n", (unsigned long long)h->hist_total[0],
		(unsigned long long)h->hist_total[1]);
	/* Whole microseconds, truncated, as cyclictest's integer arithmetic. */
	fprintf(f, "# Min Latencies: %05llu %05llu\n",
		(unsigned long long)(il_hist_min(h->processing) / 1000),
		(unsigned long long)(il_hist_min(h->presentation) / 1000));
	fprintf(f, "# Avg Latencies: %05llu %05llu\n",
		(unsigned long long)(any ? il_hist_mean(h->processing) / 1000 : 0),
		(unsigned long long)(any ? il_hist_mean(h->presentation) / 1000 : 0));
	fprintf(f, "# Max Latencies: %05llu %05llu\n",
		(unsigned long long)(il_hist_max(h->processing) / 1000),
		(unsigned long long)(il_hist_max(h->presentation) / 1000));
	fprintf(f, "# Histogram Overflows: %05llu %05llu\n", (unsigned long long)h->hist_over[0],
		(unsigned long long)h->hist_over[1]);
	fprintf(f, "# Histogram Overflow at cycle number:\n");
	for (int c = 0; c < 2; c++) {
		fprintf(f, "# Thread %d:", c);
		for (size_t i = 0; i < h->hist_over_listed[c]; i++)
			fprintf(f, " %05llu", (unsigned long long)h->hist_over_id[c][i]);
		if (h->hist_over_listed[c] < h->hist_over[c])
			fprintf(f, " # %05llu others",
				(unsigned long long)(h->hist_over[c] - h->hist_over_listed[c]));
		fprintf(f, "\n");
	}
	fprintf(f, "# Timed out: %llu\n", (unsigned long long)r->timed_out);
	return report_done(f);
}

int il_report_hist_csv(const struct il_result *r, FILE *f)
{
	const struct il_run_stats *h = r->run_stats;

	fprintf(f, "lower_us,upper_us,processing,presentation\n");
	for (size_t i = 0; i < il_hist_nbuckets(); i++) {
		uint64_t a = il_hist_bucket_count(h->processing, i);
		uint64_t b = il_hist_bucket_count(h->presentation, i);

		if (a || b)
			fprintf(f, "%.3f,%.3f,%llu,%llu\n", us(il_hist_bucket_lower(i)),
				us(il_hist_bucket_upper(i)), (unsigned long long)a,
				(unsigned long long)b);
	}
	return report_done(f);
}
