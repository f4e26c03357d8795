#include "il_ctxsw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_chain.h"
#include "il_procfs.h"

struct counted {
	int pid, tid;
	int thread; /* enum il_thread_id, IL_T_NONE for the orchestrator */
	const char *name;
	unsigned long long vol[2], invol[2];
	int ok[2];
};

struct il_ctxsw {
	struct counted t[IL_T_COUNT + 1];
	int n;
};

struct il_ctxsw *il_ctxsw_new(const cJSON *threads, int self_pid, int self_tid)
{
	struct il_ctxsw *c = calloc(1, sizeof(*c));
	const cJSON *t;

	if (!c)
		return NULL;
	cJSON_ArrayForEach (t, threads) {
		const char *name =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));
		int id = name ? il_chain_thread_parse(name) : -1;

		if (id < 0 || c->n >= IL_T_COUNT)
			continue;
		c->t[c->n] = (struct counted){
		    .pid = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "pid")),
		    .tid = (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "tid")),
		    .thread = id,
		    .name = il_chain_thread(id)->name,
		};
		c->n++;
	}
	c->t[c->n++] = (struct counted){
	    .pid = self_pid, .tid = self_tid, .thread = IL_T_NONE, .name = "inputlat"};
	return c;
}

void il_ctxsw_free(struct il_ctxsw *c)
{
	free(c);
}

static int read_status(struct counted *t, int at)
{
	char text[IL_PROCFS_STATUS_MAX];
	uint64_t vol, invol;

	if (il_procfs_status(t->pid, t->tid, text, sizeof(text)) ||
	    il_procfs_status_field(text, "voluntary_ctxt_switches", 10, &vol) ||
	    il_procfs_status_field(text, "nonvoluntary_ctxt_switches", 10, &invol))
		return -1;
	t->vol[at] = vol;
	t->invol[at] = invol;
	return 0;
}

void il_ctxsw_sample(struct il_ctxsw *c, int at)
{
	if (!c || at < 0 || at > 1)
		return;
	for (int i = 0; i < c->n; i++)
		c->t[i].ok[at] = read_status(&c->t[i], at) == 0;
}

/* Handlers thread t runs per event: the hops that end on it (the flip
 * completion runs on the drm thread too). */
static int handlers_of(int thread)
{
	int n = 0;

	if (thread == IL_T_NONE)
		return 1; /* the orchestrator takes the finished record */
	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_hop_desc *h = il_chain_hop(k);

		if (h->to == thread || (h->kind == IL_HOP_DISPLAY && h->from == thread))
			n++;
	}
	return n;
}

/* The orchestrator's wakes per event beside its handler (the record). */
static const char ORCH_OTHER[] = "the injection timer and the click's release timer; its "
				 "housekeeping tick comes on top, per time, not per event";

/* Wakes per event by design: the handlers, and the other one if any. */
static int design_of(int thread, const char **why)
{
	*why = thread == IL_T_NONE ? ORCH_OTHER : il_chain_thread(thread)->other_wake;
	return handlers_of(thread) + (thread == IL_T_NONE ? 2 : *why ? 1 : 0);
}

cJSON *il_ctxsw_json(const struct il_ctxsw *c, uint64_t events, double seconds)
{
	cJSON *o = cJSON_CreateObject(), *a, *pe;
	unsigned long long vol = 0, invol = 0;
	int complete = 1, design = 0;

	if (!c) {
		cJSON_AddStringToObject(o, "why", "unreadable: no thread list");
		return o;
	}
	a = cJSON_AddArrayToObject(o, "threads");
	for (int i = 0; i < c->n; i++) {
		const struct counted *t = &c->t[i];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddStringToObject(j, "name", t->name);
		const char *why;
		int d = design_of(t->thread, &why);

		cJSON_AddNumberToObject(j, "handlers_per_event", handlers_of(t->thread));
		/* What the wakes per event should be, and why beyond the handlers:
		 * more than that is waiting that no hop explains. */
		cJSON_AddNumberToObject(j, "design_per_event", d);
		if (why)
			cJSON_AddStringToObject(j, "other_wake", why);
		else
			cJSON_AddNullToObject(j, "other_wake");
		if (t->thread != IL_T_NONE)
			design += d;
		if (t->ok[0] && t->ok[1]) {
			unsigned long long v = t->vol[1] - t->vol[0], n = t->invol[1] - t->invol[0];

			cJSON_AddNumberToObject(j, "voluntary", (double)v);
			cJSON_AddNumberToObject(j, "involuntary", (double)n);
			if (events)
				cJSON_AddNumberToObject(j, "voluntary_per_event",
							(double)v / (double)events);
			else
				cJSON_AddNullToObject(j, "voluntary_per_event");
			if (t->thread != IL_T_NONE) {
				vol += v;
				invol += n;
			}
		} else {
			cJSON_AddNullToObject(j, "voluntary");
			cJSON_AddNullToObject(j, "involuntary");
			cJSON_AddNullToObject(j, "voluntary_per_event");
			cJSON_AddStringToObject(j, "why", "unreadable: /proc/PID/task/TID/status");
			if (t->thread != IL_T_NONE)
				complete = 0;
		}
		cJSON_AddItemToArray(a, j);
	}
	/* The chain's threads only (the orchestrator injects and collects). */
	pe = cJSON_AddObjectToObject(o, "chain_per_event");
	if (events && complete) {
		cJSON_AddNumberToObject(pe, "voluntary", (double)vol / (double)events);
		cJSON_AddNumberToObject(pe, "involuntary", (double)invol / (double)events);
	} else {
		cJSON_AddNullToObject(pe, "voluntary");
		cJSON_AddNullToObject(pe, "involuntary");
	}
	cJSON_AddNumberToObject(pe, "hops", IL_NHOPS);
	cJSON_AddNumberToObject(pe, "design", design);
	cJSON_AddNumberToObject(o, "events", (double)events);
	cJSON_AddNumberToObject(o, "seconds", seconds);
	return o;
}
