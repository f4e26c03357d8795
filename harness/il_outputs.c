#include "il_outputs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_attrib.h"
#include "il_file.h"
#include "il_result.h"
#include "il_trace.h"

/* --- records ----------------------------------------------------------- */
struct records {
	const char *path;
	struct il_out *out; /* large blocks: a record costs no system call */
	FILE *f;
	il_records_field_fn field;
	void *field_ctx;
	bool kernel_stamps; /* the reader's event times are the kernel's */
};

static void put_u64_array(FILE *f, const char *key, const uint64_t *v)
{
	fprintf(f, ",\"%s\":[", key);
	for (int k = 0; k < IL_NSTAMPS; k++)
		fprintf(f, k ? ",%llu" : "%llu", (unsigned long long)v[k]);
	fputc(']', f);
}

static void put_u32_array(FILE *f, const char *key, const uint32_t *v)
{
	fprintf(f, ",\"%s\":[", key);
	for (int k = 0; k < IL_NSTAMPS; k++)
		fprintf(f, k ? ",%lu" : "%lu", (unsigned long)v[k]);
	fputc(']', f);
}

static int records_event(void *ctx, const struct il_event *ev)
{
	struct records *rc = ctx;
	const struct il_msg *m = ev->msg;
	FILE *f = rc->f;

	/* Warm-up events are kept here, flagged; no statistic uses them. */
	fprintf(f, "{\"id\":%llu,\"state\":\"%s\",\"warmup\":%s", (unsigned long long)ev->id,
		il_event_state_name(ev->state), ev->warmup ? "true" : "false");
	/* Synthetic and replayed events carry the injector's own time, not
	 * the kernel's: no kernel timestamp exists to report. */
	if (rc->kernel_stamps)
		fprintf(f, ",\"kernel_ns\":%llu", (unsigned long long)m->kernel_ns);
	else
		fputs(",\"kernel_ns\":null", f);
	put_u64_array(f, "stamp_ns", m->stamp_ns);
	put_u64_array(f, "end_ns", m->end_ns);
	put_u32_array(f, "tid", m->tid);
	fputs(",\"cpu\":[", f);
	for (int k = 0; k < IL_NSTAMPS; k++) {
		if (k)
			fputc(',', f);
		if (m->cpu[k] == UINT32_MAX || !m->stamp_ns[k])
			fputs("null", f);
		else
			fprintf(f, "%lu", (unsigned long)m->cpu[k]);
	}
	fputc(']', f);
	put_u32_array(f, "work_cpu_ns", m->work_cpu_ns);
	if (rc->field)
		rc->field(rc->field_ctx, ev, f);
	fputs("}\n", f);
	/* A write error (a full disk) is said once, by the commit in
	 * records_finish, with its cause and the promise that the previous
	 * file stays. */
	if (ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static int records_finish(void *ctx, const struct il_result *r)
{
	struct records *rc = ctx;
	char err[512];
	int e;

	/* A run cut short says so where a reader of the records looks: a last
	 * line that is no event ("id" is what readers look events up by). */
	if (r->interrupted)
		fprintf(rc->f, "{\"interrupted\":true,\"completed\":%llu,\"error\":%s}\n",
			(unsigned long long)r->completed,
			r->fail_msg && r->fail_msg[0] ? "\"interrupted before any event completed\""
						      : "null");
	e = il_out_commit(rc->out, err, sizeof(err));

	rc->out = NULL;
	rc->f = NULL;
	if (e < 0)
		fprintf(stderr, "inputlat: %s\n", err);
	return e;
}

static void records_free(void *ctx)
{
	struct records *rc = ctx;

	il_out_free(rc->out); /* never finished: the previous file stays */
	free(rc);
}

int il_records_sink_new(struct il_out *o, bool kernel_stamps, struct il_event_sink *out)
{
	struct records *rc = calloc(1, sizeof(*rc));

	if (!rc) {
		fprintf(stderr, "inputlat: cannot write %s: out of memory\n", il_out_path(o));
		il_out_free(o);
		return -ENOMEM;
	}
	rc->path = il_out_path(o);
	rc->out = o;
	rc->f = il_out_file(o);
	rc->kernel_stamps = kernel_stamps;
	*out = (struct il_event_sink){
	    .name = "records",
	    .ctx = rc,
	    .event = records_event,
	    .finish = records_finish,
	    .free = records_free,
	};
	return 0;
}

void il_records_sink_field(struct il_event_sink *s, il_records_field_fn fn, void *ctx)
{
	struct records *rc = s->ctx;

	rc->field = fn;
	rc->field_ctx = ctx;
}

/* --- trace ------------------------------------------------------------- */
struct trace {
	const char *path;
	struct il_out *out;
	struct il_trace_writer *w;
	struct il_trace_thread *threads;
	size_t nthreads;
	size_t max_events;
	struct il_attrib_run *attrib; /* per-CPU tracks from it, or NULL */
	uint64_t first_ns, last_ns;   /* the traced mouse-downs' span */
	size_t warmup;		      /* warm-up mouse-downs left out */
};

static int trace_start(void *ctx, const struct il_event_run_info *info)
{
	struct trace *t = ctx;
	int n = cJSON_GetArraySize(info->threads), i = 0;
	const cJSON *th;

	/* The ready reports live as long as the run; the names point into them. */
	t->threads = calloc((size_t)n + 1, sizeof(*t->threads));
	if (!t->threads) {
		fprintf(stderr, "inputlat: cannot write trace %s: out of memory\n", t->path);
		return -ENOMEM;
	}
	cJSON_ArrayForEach (th, info->threads) {
		t->threads[i].pid =
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(th, "pid"));
		t->threads[i].tid =
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(th, "tid"));
		t->threads[i].process =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(th, "process"));
		t->threads[i].thread =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(th, "name"));
		i++;
	}
	/* The injector is the orchestrator's own thread. */
	t->threads[i] =
	    (struct il_trace_thread){info->self_pid, info->self_tid, "inputlat", "inputlat"};
	t->nthreads = (size_t)i + 1;
	/* Absolute CLOCK_MONOTONIC: the trace merges with kernel traces on that clock. */
	il_trace_set_t0(t->w, 0);
	return 0;
}

static int trace_event(void *ctx, const struct il_event *ev)
{
	struct trace *t = ctx;
	int rc;

	/* Warm-up events are in no statistic, so in no trace either: they
	 * neither show nor count against --trace-events. */
	if (ev->warmup) {
		t->warmup++;
		return 0;
	}
	if (ev->state != IL_EV_COMPLETED)
		return 0;
	if (!t->max_events || il_trace_count(t->w) < t->max_events) {
		const struct il_msg *m = ev->msg;

		if (!t->first_ns)
			t->first_ns = m->stamp_ns[IL_STAMP_INJECT];
		for (int k = 0; k < IL_NSTAMPS; k++)
			if (m->stamp_ns[k] > t->last_ns)
				t->last_ns = m->stamp_ns[k];
	}
	rc = il_trace_add(t->w, ev->msg, t->threads, t->nthreads);
	/* A write error (a full disk) is said once, by the commit in
	 * trace_finish, with the promise that the previous file stays. */
	if (rc < 0 && !ferror(il_out_file(t->out)))
		fprintf(stderr, "inputlat: cannot write trace %s: %s\n", t->path, strerror(-rc));
	return rc;
}

static int trace_finish(void *ctx, const struct il_result *r)
{
	struct trace *t = ctx;
	char err[512];
	int rc;

	il_trace_set_warmup_left_out(t->w, t->warmup);
	il_trace_set_interrupted(t->w, r->interrupted);
	rc = il_trace_close(t->w, t->threads, t->nthreads, r->counters, r->ncounters);

	t->w = NULL;
	/* A write error shows in the commit, with its cause and the promise
	 * that the previous file is untouched. */
	if (rc < 0 && !ferror(il_out_file(t->out))) {
		fprintf(stderr, "inputlat: cannot write trace %s: %s\n", t->path, strerror(-rc));
		il_out_free(t->out);
	} else if ((rc = il_out_commit(t->out, err, sizeof(err))) < 0) {
		fprintf(stderr, "inputlat: %s\n", err);
	}
	t->out = NULL;
	return rc;
}

static void trace_free(void *ctx)
{
	struct trace *t = ctx;

	/* Never finished (the run failed early): the previous file stays. */
	if (t->w)
		il_trace_close(t->w, t->threads, t->nthreads, NULL, 0);
	il_out_free(t->out);
	free(t->threads);
	free(t);
}

int il_trace_sink_new(struct il_out *o, size_t max_events, struct il_event_sink *out)
{
	struct trace *t = calloc(1, sizeof(*t));
	int rc;

	if (!t) {
		fprintf(stderr, "inputlat: cannot write trace %s: out of memory\n", il_out_path(o));
		il_out_free(o);
		return -ENOMEM;
	}
	t->path = il_out_path(o);
	t->out = o;
	t->max_events = max_events;
	rc = il_trace_open_file(il_out_file(o), max_events, &t->w);
	if (rc < 0) {
		fprintf(stderr, "inputlat: cannot write trace %s: %s\n", t->path, strerror(-rc));
		il_out_free(o);
		free(t);
		return rc;
	}
	*out = (struct il_event_sink){
	    .name = "trace",
	    .ctx = t,
	    .start = trace_start,
	    .event = trace_event,
	    .finish = trace_finish,
	    .free = trace_free,
	};
	return 0;
}

/* What ran on a CPU, from the attribution engine: kept while the traced
 * mouse-downs last (the engine hands slices out in time order per CPU). */
static void trace_slice_cb(void *ctx, const struct il_attrib_slice *sl)
{
	struct trace *t = ctx;
	const struct il_attrib_culprit *c;
	bool done = t->max_events && il_trace_count(t->w) >= t->max_events;

	if (!t->w || !t->first_ns || sl->end_ns < t->first_ns ||
	    (done && sl->start_ns > t->last_ns))
		return;
	if (sl->culprit == IL_CULPRIT_IDLE)
		return;
	c = il_attrib_culprit(il_attrib_run_engine(t->attrib), sl->culprit);
	il_trace_add_cpu_slice(t->w, sl->cpu, sl->start_ns, sl->end_ns, c ? c->thread : "?",
			       c ? c->tid : 0, c && c->policy[0] ? c->policy : NULL,
			       c ? c->priority : 0);
}

void il_trace_sink_cpu_tracks(struct il_event_sink *s, struct il_attrib_run *a)
{
	struct trace *t = s->ctx;

	if (!il_attrib_run_available(a))
		return;
	t->attrib = a;
	il_attrib_run_on_slice(a, trace_slice_cb, t);
}
