#include "il_attrib_sink.h"

#include <errno.h>
#include <stdlib.h>

#include "il_file.h"
#include "il_run_opts.h"

struct attrib_sink {
	struct il_attrib_run *a;
	struct il_attrib_event last; /* the event explained last, for --records */
	bool have_last;
};

static int sink_start(void *ctx, const struct il_event_run_info *info)
{
	struct attrib_sink *s = ctx;

	/*
	 * Attribution never fails a run: it says why it is missing instead,
	 * here, once the run is up. Said at the start, it came before the one
	 * line of a run that then failed to start (a --background not found).
	 * A diagnostic, not progress: --quiet keeps it; --attribution off
	 * asked for none.
	 */
	if (il_attrib_run_available(s->a)
		? il_attrib_run_threads(s->a, info->threads, info->self_pid, info->self_tid) < 0
		: info->o->attribution == IL_ATTRIB_AUTO)
		fprintf(stderr, "inputlat run: no attribution: %s\n", il_attrib_run_why(s->a));
	return 0;
}

static int sink_event(void *ctx, const struct il_event *ev)
{
	struct attrib_sink *s = ctx;

	s->have_last = false;
	/* Warm-up events are left out of every statistic, attribution's too. */
	if (ev->state == IL_EV_COMPLETED && !ev->warmup)
		s->have_last = il_attrib_run_event(s->a, ev->msg, &s->last) == 0;
	else
		il_attrib_run_skip(s->a, ev->msg);
	return 0;
}

/* Before the trace closes: it gets the last of what ran on each CPU. */
static int sink_finish(void *ctx, const struct il_result *r)
{
	struct attrib_sink *s = ctx;

	il_attrib_run_close(s->a);
	return 0;
}

static int sink_report(void *ctx, const struct il_result *r, cJSON *root)
{
	struct attrib_sink *s = ctx;

	return il_attrib_run_report(s->a, root);
}

static void sink_free(void *ctx)
{
	free(ctx);
}

void il_attrib_sink_records_field(void *ctx, const struct il_event *ev, FILE *f)
{
	struct attrib_sink *s = ctx;
	cJSON *o;
	char *text;

	if (!s->have_last || s->last.id != ev->id)
		return;
	o = il_attrib_run_event_json(s->a, &s->last);
	/* Culprits are other processes' names: any bytes. */
	text = o && il_json_sanitize(o) == 0 ? cJSON_PrintUnformatted(o) : NULL;
	if (text) {
		fputs(",\"attribution\":", f);
		fputs(text, f);
	}
	cJSON_free(text);
	cJSON_Delete(o);
}

int il_attrib_sink_new(struct il_attrib_run *a, struct il_event_sink *out)
{
	struct attrib_sink *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->a = a;
	*out = (struct il_event_sink){
	    .name = "attribution",
	    .ctx = s,
	    .start = sink_start,
	    .event = sink_event,
	    .finish = sink_finish,
	    .report = sink_report,
	    .free = sink_free,
	};
	return 0;
}
