/* The run's outputs: summary line, JSON record, histograms, trace. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_file.h"
#include "il_header.h"
#include "il_hist.h"
#include "il_rss.h"
#include "il_result.h"
#include "il_trace.h"

#define IL_JSON_FILE_VERSION 1
#define MAX_SAMPLES 100000

/* Histograms of one run, built from the completed records. */
struct run_hists {
	struct il_hist *processing, *presentation, *hop[IL_NSTAMPS];
};

static void hists_free(struct run_hists *h)
{
	il_hist_free(h->processing);
	il_hist_free(h->presentation);
	for (int k = 0; k < IL_NSTAMPS; k++)
		il_hist_free(h->hop[k]);
}

static int hists_build(const struct il_result *r, struct run_hists *h)
{
	memset(h, 0, sizeof(*h));
	if (il_hist_new(&h->processing) < 0 || il_hist_new(&h->presentation) < 0)
		goto fail;
	for (int k = 1; k <= IL_NHOPS; k++)
		if (il_hist_new(&h->hop[k]) < 0)
			goto fail;
	for (uint64_t id = 1; id <= r->nsent; id++) {
		const struct il_msg *m = &r->msgs[id];

		if (r->state[id] != IL_EV_COMPLETED)
			continue;
		il_hist_add(h->processing, m->stamp_ns[IL_STAMP_PROCESSED] - m->stamp_ns[IL_STAMP_INJECT]);
		il_hist_add(h->presentation, m->stamp_ns[IL_STAMP_PRESENTED] - m->stamp_ns[IL_STAMP_INJECT]);
		for (int k = 1; k <= IL_NHOPS; k++)
			il_hist_add(h->hop[k], m->stamp_ns[k] - m->stamp_ns[k - 1]);
	}
	return 0;
fail:
	hists_free(h);
	return -ENOMEM;
}

static int report_close(FILE *f, const char *path)
{
	if (ferror(f) | (fclose(f) != 0)) {
		fprintf(stderr, "inputlat: writing %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static double us(uint64_t ns)
{
	return il_ns_to_us(ns);
}

void il_report_summary(const struct il_result *r)
{
	struct run_hists h;

	if (hists_build(r, &h) < 0)
		return;
	/* One line, cyclictest-like: counts, then min/p50/p99/max per latency in us. */
	printf("inputlat: policy %s events %llu completed %llu timed_out %llu invalid_frames %llu | "
	       "processing us Min %.0f P50 %.0f P99 %.0f Max %.0f | "
	       "presentation us Min %.0f P50 %.0f P99 %.0f Max %.0f\n",
	       il_policy_name(r->policy), (unsigned long long)r->nsent,
	       (unsigned long long)r->completed, (unsigned long long)r->timed_out,
	       (unsigned long long)r->invalid_frames, us(il_hist_min(h.processing)),
	       us(il_hist_percentile(h.processing, 50)), us(il_hist_percentile(h.processing, 99)),
	       us(il_hist_max(h.processing)), us(il_hist_min(h.presentation)),
	       us(il_hist_percentile(h.presentation, 50)), us(il_hist_percentile(h.presentation, 99)),
	       us(il_hist_max(h.presentation)));
	fflush(stdout);
	hists_free(&h);
}

static cJSON *latency_json(const struct il_hist *h)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "min", us(il_hist_min(h)));
	cJSON_AddNumberToObject(o, "p50", us(il_hist_percentile(h, 50)));
	cJSON_AddNumberToObject(o, "p90", us(il_hist_percentile(h, 90)));
	cJSON_AddNumberToObject(o, "p99", us(il_hist_percentile(h, 99)));
	cJSON_AddNumberToObject(o, "p999", us(il_hist_percentile(h, 99.9)));
	cJSON_AddNumberToObject(o, "max", us(il_hist_max(h)));
	cJSON_AddNumberToObject(o, "mean", il_hist_mean(h) / 1e3);
	cJSON_AddNumberToObject(o, "count", (double)il_hist_count(h));
	return o;
}

/* The scheduler facts of the run, added to the header's kernel object. */
static void kernel_json(const struct il_result *r, cJSON *k)
{
	cJSON *fs = cJSON_CreateObject();

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
}

static cJSON *scenario_json(const struct il_result *r)
{
	const struct il_run_opts *o = r->o;
	cJSON *s = cJSON_CreateObject(), *w = cJSON_CreateObject();
	char text[300];

	cJSON_AddNumberToObject(s, "events", (double)o->events);
	cJSON_AddNumberToObject(s, "interval_ms", (double)o->interval_ms);
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
	cJSON_AddStringToObject(s, "hog_mode", o->hog_threads ? (o->hog_mode == IL_HOG_MODE_BURSTY ? "bursty" : "busy") : "none");
	cJSON_AddNumberToObject(s, "load_threads", (double)o->load_threads);
	cJSON_AddStringToObject(s, "lock", il_lock_kind_name(o->lock));
	return s;
}

static cJSON *hops_json(const struct run_hists *h)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_hop_desc *d = il_chain_hop(k);
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "index", k);
		cJSON_AddStringToObject(o, "name", d->name);
		cJSON_AddStringToObject(o, "kind", il_hop_kind_name(d->kind));
		/* Hops up to the flip request add up to processing latency. */
		cJSON_AddBoolToObject(o, "in_processing", k <= IL_STAMP_PROCESSED);
		cJSON_AddStringToObject(o, "from", il_chain_hop_from(d));
		cJSON_AddStringToObject(o, "to", il_chain_hop_to(d));
		cJSON_AddNumberToObject(o, "p50_us", us(il_hist_percentile(h->hop[k], 50)));
		cJSON_AddNumberToObject(o, "p99_us", us(il_hist_percentile(h->hop[k], 99)));
		cJSON_AddNumberToObject(o, "max_us", us(il_hist_max(h->hop[k])));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *threads_json(const struct il_result *r)
{
	cJSON *a = cJSON_CreateArray(), *t;

	/* Flatten each thread's read-back attributes next to its identity. */
	cJSON_ArrayForEach(t, r->threads) {
		cJSON *o = cJSON_Duplicate(t, 1), *sched = cJSON_DetachItemFromObjectCaseSensitive(o, "sched"), *f;

		if (sched) {
			cJSON_ArrayForEach(f, sched)
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
		cJSON_AddBoolToObject(o, "restored", true);
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

static cJSON *samples_json(const struct il_result *r)
{
	cJSON *o = cJSON_CreateObject(), *p = cJSON_CreateArray(), *q = cJSON_CreateArray();
	size_t n = 0;

	for (uint64_t id = 1; id <= r->nsent && n < MAX_SAMPLES; id++) {
		const struct il_msg *m = &r->msgs[id];

		if (r->state[id] != IL_EV_COMPLETED)
			continue;
		cJSON_AddItemToArray(p, cJSON_CreateNumber(us(m->stamp_ns[IL_STAMP_PROCESSED] -
								  m->stamp_ns[IL_STAMP_INJECT])));
		cJSON_AddItemToArray(q, cJSON_CreateNumber(us(m->stamp_ns[IL_STAMP_PRESENTED] -
								  m->stamp_ns[IL_STAMP_INJECT])));
		n++;
	}
	cJSON_AddItemToObject(o, "processing", p);
	cJSON_AddItemToObject(o, "presentation", q);
	return o;
}

/* Copies one key of a child's stats message into the report (or null). */
static void add_child_stat(cJSON *root, const struct il_result *r, enum il_proc_id p, const char *key)
{
	const cJSON *s = r->stats[p];
	const cJSON *v = s ? cJSON_GetObjectItemCaseSensitive(s, key) : NULL;

	if (v)
		cJSON_AddItemToObject(root, key, cJSON_Duplicate(v, 1));
	else
		cJSON_AddNullToObject(root, key);
}

const char *il_event_state_name(enum il_event_state s)
{
	static const char *const names[] = { "unsent", "pending", "completed", "timed_out" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int il_report_json(const struct il_result *r, const char *path)
{
	struct run_hists h;
	cJSON *root, *ev, *lat, *procs;
	char *text;
	FILE *f;
	int rc;

	if (hists_build(r, &h) < 0)
		return -ENOMEM;
	root = il_header_new(IL_JSON_FILE_VERSION, r->cmdline, &r->start_wall);
	if (!root) {
		hists_free(&h);
		return -ENOMEM;
	}
	kernel_json(r, cJSON_GetObjectItemCaseSensitive(root, "kernel"));
	cJSON_AddStringToObject(root, "policy", il_policy_name(r->policy));
	cJSON_AddStringToObject(root, "policy_file", il_policy_path(r->policy));
	cJSON_AddItemToObject(root, "scenario", scenario_json(r));
	cJSON_AddNumberToObject(root, "duration_s", (double)(r->end_ns - r->start_ns) / 1e9);
	cJSON_AddNumberToObject(root, "exit_code", r->exit_code);
	if (r->fail_msg[0])
		cJSON_AddStringToObject(root, "error", r->fail_msg);
	cJSON_AddBoolToObject(root, "interrupted", r->interrupted);

	ev = cJSON_AddObjectToObject(root, "events");
	cJSON_AddNumberToObject(ev, "sent", (double)r->nsent);
	cJSON_AddNumberToObject(ev, "completed", (double)r->completed);
	cJSON_AddNumberToObject(ev, "timed_out", (double)r->timed_out);
	cJSON_AddNumberToObject(ev, "invalid_frames", (double)r->invalid_frames);
	cJSON_AddNumberToObject(ev, "late", (double)r->late);
	cJSON_AddNumberToObject(ev, "stray", (double)r->stray);
	cJSON_AddNumberToObject(ev, "inject_errors", (double)r->inject_errors);

	lat = cJSON_AddObjectToObject(root, "latency_us");
	cJSON_AddItemToObject(lat, "processing", latency_json(h.processing));
	cJSON_AddItemToObject(lat, "presentation", latency_json(h.presentation));
	cJSON_AddItemToObject(root, "hops", hops_json(&h));
	cJSON_AddItemToObject(root, "threads", threads_json(r));
	cJSON_AddItemToObject(root, "knobs", knobs_json(r));
	cJSON_AddNumberToObject(root, "loops_per_us", r->loops_per_us);
	add_child_stat(root, r, IL_PROC_WORKLOAD, "canary");
	add_child_stat(root, r, IL_PROC_RENDER, "hog");
	add_child_stat(root, r, IL_PROC_WORKLOAD, "load");
	{
		cJSON *rss = cJSON_AddObjectToObject(root, "rss_kib");

		/* Peak RSS per process (VmHWM), as each process read it at its end. */
		cJSON_AddNumberToObject(rss, "inputlat", (double)il_rss_peak_kib());
		for (int i = 0; i < IL_PROC_COUNT; i++) {
			const cJSON *s = r->stats[i];
			const cJSON *v = s ? cJSON_GetObjectItemCaseSensitive(s, "rss_kib") : NULL;

			if (cJSON_IsNumber(v))
				cJSON_AddNumberToObject(rss, il_chain_proc(i)->program, v->valuedouble);
		}
	}
	procs = cJSON_AddObjectToObject(root, "processes");
	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (r->stats[i])
			cJSON_AddItemToObject(procs, il_chain_proc(i)->program, cJSON_Duplicate(r->stats[i], 1));
	cJSON_AddItemToObject(root, "histogram", histogram_json(h.processing));
	cJSON_AddItemToObject(root, "samples_us", samples_json(r));
	hists_free(&h);

	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return -ENOMEM;
	f = il_file_create(path);
	if (!f) {
		rc = -errno;
		fprintf(stderr, "inputlat: cannot write %s: %s\n", path, strerror(errno));
		free(text);
		return rc;
	}
	fputs(text, f);
	fputc('\n', f);
	free(text);
	return report_close(f, path);
}

int il_report_hist(const struct il_result *r, const char *path)
{
	uint64_t max_us = r->o->hist_max_us;
	uint64_t *cnt = calloc(2 * max_us, sizeof(*cnt));
	uint64_t over[2] = { 0, 0 }, total = 0;
	struct run_hists h;
	FILE *f;

	if (!cnt || hists_build(r, &h) < 0) {
		free(cnt);
		return -ENOMEM;
	}
	for (uint64_t id = 1; id <= r->nsent; id++) {
		const struct il_msg *m = &r->msgs[id];
		uint64_t v[2];

		if (r->state[id] != IL_EV_COMPLETED)
			continue;
		v[0] = (m->stamp_ns[IL_STAMP_PROCESSED] - m->stamp_ns[IL_STAMP_INJECT]) / 1000;
		v[1] = (m->stamp_ns[IL_STAMP_PRESENTED] - m->stamp_ns[IL_STAMP_INJECT]) / 1000;
		total++;
		for (int c = 0; c < 2; c++) {
			if (v[c] < max_us)
				cnt[2 * v[c] + (uint64_t)c]++;
			else
				over[c]++;
		}
	}
	f = il_file_create(path);
	if (!f) {
		fprintf(stderr, "inputlat: cannot write %s: %s\n", path, strerror(errno));
		free(cnt);
		hists_free(&h);
		return -errno;
	}
	/* cyclictest's layout: one row per 1 us bucket, one column per series. */
	fprintf(f, "# inputlat histogram, 1 us buckets; columns: processing presentation\n");
	fprintf(f, "# policy %s\n", il_policy_name(r->policy));
	fprintf(f, "# Histogram\n");
	for (uint64_t b = 0; b < max_us; b++)
		fprintf(f, "%06llu %06llu\t%06llu\n", (unsigned long long)b,
			(unsigned long long)cnt[2 * b], (unsigned long long)cnt[2 * b + 1]);
	fprintf(f, "# Total: %09llu %09llu\n", (unsigned long long)total, (unsigned long long)total);
	fprintf(f, "# Min Latencies: %05.0f %05.0f\n", us(il_hist_min(h.processing)),
		us(il_hist_min(h.presentation)));
	fprintf(f, "# Avg Latencies: %05.0f %05.0f\n", il_hist_mean(h.processing) / 1e3,
		il_hist_mean(h.presentation) / 1e3);
	fprintf(f, "# Max Latencies: %05.0f %05.0f\n", us(il_hist_max(h.processing)),
		us(il_hist_max(h.presentation)));
	fprintf(f, "# Histogram Overflows: %05llu %05llu\n", (unsigned long long)over[0],
		(unsigned long long)over[1]);
	fprintf(f, "# Timed out: %llu\n", (unsigned long long)r->timed_out);
	free(cnt);
	hists_free(&h);
	return report_close(f, path);
}

int il_report_hist_csv(const struct il_result *r, const char *path)
{
	struct run_hists h;
	FILE *f;

	if (hists_build(r, &h) < 0)
		return -ENOMEM;
	f = il_file_create(path);
	if (!f) {
		fprintf(stderr, "inputlat: cannot write %s: %s\n", path, strerror(errno));
		hists_free(&h);
		return -errno;
	}
	fprintf(f, "lower_us,upper_us,processing,presentation\n");
	for (size_t i = 0; i < il_hist_nbuckets(); i++) {
		uint64_t a = il_hist_bucket_count(h.processing, i);
		uint64_t b = il_hist_bucket_count(h.presentation, i);

		if (a || b)
			fprintf(f, "%.3f,%.3f,%llu,%llu\n", us(il_hist_bucket_lower(i)),
				us(il_hist_bucket_upper(i)), (unsigned long long)a, (unsigned long long)b);
	}
	hists_free(&h);
	return report_close(f, path);
}

int il_report_trace(const struct il_result *r, const char *path)
{
	int n = cJSON_GetArraySize(r->threads), i = 0, rc;
	struct il_trace_thread *th = calloc((size_t)n + 1, sizeof(*th));
	struct il_msg *msgs = calloc(r->nsent + 1, sizeof(*msgs));
	size_t nmsgs = 0;
	const cJSON *t;

	if (!th || !msgs) {
		free(th);
		free(msgs);
		return -ENOMEM;
	}
	cJSON_ArrayForEach(t, r->threads) {
		th[i].pid = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "pid"));
		th[i].tid = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "tid"));
		th[i].process = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "process"));
		th[i].thread = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
		i++;
	}
	/* The injector is the orchestrator's own thread. */
	th[i].pid = r->self_pid;
	th[i].tid = r->self_tid;
	th[i].process = "inputlat";
	th[i].thread = "inputlat";
	i++;
	for (uint64_t id = 1; id <= r->nsent; id++)
		if (r->state[id] == IL_EV_COMPLETED)
			msgs[nmsgs++] = r->msgs[id];
	rc = il_trace_write(path, msgs, nmsgs, th, (size_t)i, r->counters, r->ncounters,
			    r->o->trace_events);
	if (rc < 0)
		fprintf(stderr, "inputlat: cannot write trace %s: %s\n", path, strerror(-rc));
	free(th);
	free(msgs);
	return rc;
}

int il_report_records(const struct il_result *r, const char *path)
{
	FILE *f = il_file_create(path);

	if (!f) {
		fprintf(stderr, "inputlat: cannot write %s: %s\n", path, strerror(errno));
		return -errno;
	}
	/* One JSON object per event (JSON Lines), so a reader can stream them. */
	for (uint64_t id = 1; id <= r->nsent; id++) {
		const struct il_msg *m = &r->msgs[id];
		cJSON *o = cJSON_CreateObject(), *st = cJSON_CreateArray(), *en = cJSON_CreateArray(),
		      *ti = cJSON_CreateArray(), *cpu = cJSON_CreateArray(), *wk = cJSON_CreateArray();
		char *text;

		cJSON_AddNumberToObject(o, "id", (double)id);
		cJSON_AddStringToObject(o, "state", il_event_state_name(r->state[id]));
		cJSON_AddNumberToObject(o, "kernel_ns", (double)m->kernel_ns);
		for (int k = 0; k < IL_NSTAMPS; k++) {
			cJSON_AddItemToArray(st, cJSON_CreateNumber((double)m->stamp_ns[k]));
			cJSON_AddItemToArray(en, cJSON_CreateNumber((double)m->end_ns[k]));
			cJSON_AddItemToArray(ti, cJSON_CreateNumber((double)m->tid[k]));
			if (m->cpu[k] == UINT32_MAX || !m->stamp_ns[k])
				cJSON_AddItemToArray(cpu, cJSON_CreateNull());
			else
				cJSON_AddItemToArray(cpu, cJSON_CreateNumber(m->cpu[k]));
			cJSON_AddItemToArray(wk, cJSON_CreateNumber(m->work_cpu_ns[k]));
		}
		cJSON_AddItemToObject(o, "stamp_ns", st);
		cJSON_AddItemToObject(o, "end_ns", en);
		cJSON_AddItemToObject(o, "tid", ti);
		cJSON_AddItemToObject(o, "cpu", cpu);
		cJSON_AddItemToObject(o, "work_cpu_ns", wk);
		text = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (text) {
			fputs(text, f);
			fputc('\n', f);
			free(text);
		}
	}
	return report_close(f, path);
}
