#include "il_event_sink.h"

#include <errno.h>
#include <string.h>

const char *il_event_state_name(enum il_event_state s)
{
	static const char *const names[] = {"unsent", "pending", "completed", "timed_out"};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

int il_event_sinks_add(struct il_event_sinks *s, const struct il_event_sink *sink)
{
	if (s->n >= IL_EVENT_SINKS_MAX) {
		if (sink->free)
			sink->free(sink->ctx);
		return -ENOSPC;
	}
	s->v[s->n] = *sink;
	s->err[s->n] = 0;
	s->n++;
	return 0;
}

int il_event_sinks_start(struct il_event_sinks *s, const struct il_event_run_info *info)
{
	int first = 0;

	if (s->started)
		return 0;
	s->started = true;
	for (size_t i = 0; i < s->n; i++) {
		int rc = s->v[i].start ? s->v[i].start(s->v[i].ctx, info) : 0;

		if (rc < 0) {
			s->err[i] = rc;
			if (!first)
				first = rc;
		}
	}
	return first;
}

void il_event_sinks_event(struct il_event_sinks *s, const struct il_event *ev)
{
	for (size_t i = 0; i < s->n; i++) {
		int rc;

		if (s->err[i])
			continue;
		rc = s->v[i].event(s->v[i].ctx, ev);
		if (rc < 0)
			s->err[i] = rc;
	}
}

int il_event_sinks_finish(struct il_event_sinks *s, const struct il_result *r)
{
	int rc = 0;

	if (s->finished)
		return 0;
	s->finished = true;
	for (size_t i = 0; i < s->n; i++) {
		/* A failed sink still finishes: it closes what it opened. */
		int f = s->v[i].finish ? s->v[i].finish(s->v[i].ctx, r) : 0;

		if (f < 0 && !s->err[i])
			s->err[i] = f;
		if (s->err[i])
			rc = -EIO;
	}
	return rc;
}

void il_event_sinks_report(const struct il_event_sinks *s, const struct il_result *r, cJSON *root)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].report)
			s->v[i].report(s->v[i].ctx, r, root);
}

void il_event_sinks_free(struct il_event_sinks *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].free)
			s->v[i].free(s->v[i].ctx);
	memset(s, 0, sizeof(*s));
}
