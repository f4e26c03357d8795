#include "il_hog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_clock.h"
#include "il_cpustat.h"

struct il_hog {
	struct il_hog_config cfg;
	struct il_workers *w;	      /* the hog threads, gate, stop, accounting */
	struct il_cpustat *mark_stat; /* /proc/stat at the mark, NULL if unreadable */
};

int il_hog_mode_parse(const char *s)
{
	if (s && strcmp(s, "busy") == 0)
		return IL_HOG_BUSY;
	if (s && strcmp(s, "bursty") == 0)
		return IL_HOG_BURSTY;
	return -EINVAL;
}

const char *il_hog_mode_name(enum il_hog_pattern m)
{
	return m == IL_HOG_BURSTY ? "bursty" : "busy";
}

/* One hog: an iteration is one chunk of register work, published at once
 * so the stop flag and the accounting are never more than a chunk behind. */
static void hog_run(struct il_worker *self, void *ctx)
{
	const struct il_hog *h = ctx;
	uint64_t iterations = 0, x = 0x9e3779b97f4a7c15ull + il_worker_index(self);
	volatile uint64_t sink;

	while (!il_worker_stopping(self)) {
		if (h->cfg.mode == IL_HOG_BUSY) {
			x = il_workers_chunk(x);
			il_worker_publish(self, ++iterations);
			continue;
		}
		/* A long task is a fixed amount of CPU work, not of wall time:
		 * preemption stretches it, as it would stretch real script. */
		uint64_t task_start = il_thread_cpu_ns();

		while (!il_worker_stopping(self)) {
			x = il_workers_chunk(x);
			if (il_worker_publish(self, ++iterations) - task_start >= h->cfg.task_ns)
				break;
		}
		if (h->cfg.gap_ns) /* a stop never waits for the gap */
			il_worker_sleep_until(self, il_now_ns() + h->cfg.gap_ns);
	}
	sink = x;
	(void)sink;
}

int il_hog_start(const struct il_hog_config *c, il_thread_init_fn init, void *init_ctx,
		 struct il_hog **out, char *err, size_t errlen)
{
	struct il_hog *h;
	int ret;

	if (!c || !init || !out || c->threads == 0 || c->threads > IL_HOG_MAX_THREADS ||
	    (c->mode != IL_HOG_BUSY && c->mode != IL_HOG_BURSTY) ||
	    (c->mode == IL_HOG_BURSTY && c->task_ns == 0)) {
		snprintf(err, errlen,
			 "bad hog configuration (threads 1..%u, bursty needs a task time)",
			 IL_HOG_MAX_THREADS);
		return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->cfg = *c;
	/* Always held by the group: /proc/stat is read before the hogs spin,
	 * since an RT hog may keep this thread off its CPU afterwards. */
	struct il_workers_config wc = {
	    .threads = c->threads,
	    .role = IL_ROLE_JS,
	    .name = "render:js",
	    .indexed = true,
	    .place = c->pin ? IL_WORKERS_SPREAD : IL_WORKERS_ANYWHERE,
	    .init = init,
	    .init_ctx = init_ctx,
	    .run = hog_run,
	    .ctx = h,
	    .units_name = "iterations",
	    .hold = true,
	};

	ret = il_workers_start(&wc, &h->w, err, errlen);
	if (ret < 0) {
		free(h);
		return ret;
	}
	il_cpustat_read(&h->mark_stat);
	if (!c->hold)
		il_workers_open(h->w);
	*out = h;
	return 0;
}

void il_hog_mark_start(struct il_hog *h)
{
	struct il_cpustat *snap = NULL;

	/* Read before releasing held hogs: once RT hogs spin, this thread
	 * may not run again for a while. */
	il_cpustat_read(&snap);
	il_cpustat_free(h->mark_stat);
	h->mark_stat = snap;
	il_workers_mark(h->w);
}

void il_hog_stop(struct il_hog *h)
{
	if (!h)
		return;
	il_workers_stop(h->w);
	il_cpustat_free(h->mark_stat);
	free(h);
}

double il_hog_cpu_share(const struct il_hog *h, uint64_t wall_ns)
{
	return il_workers_cpu_share(h->w, wall_ns);
}

const cpu_set_t *il_hog_cpus(const struct il_hog *h)
{
	return il_workers_cpus(h->w);
}

double il_hog_idle_waste_pct(const struct il_hog *h)
{
	struct il_cpustat *now = NULL;
	double pct;

	if (!h->mark_stat || il_cpustat_read(&now) < 0)
		return -1;
	pct = il_cpustat_idle_pct(h->mark_stat, now, il_workers_cpus(h->w));
	il_cpustat_free(now);
	return pct;
}

cJSON *il_hog_stats_json(const struct il_hog *h, uint64_t wall_ns)
{
	double idle = il_hog_idle_waste_pct(h);
	cJSON *o = il_workers_stats_json(h->w, wall_ns);

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "mode", il_hog_mode_name(h->cfg.mode));
	if (idle >= 0)
		cJSON_AddNumberToObject(o, "idle_waste_pct", idle);
	else
		cJSON_AddNullToObject(o, "idle_waste_pct");
	return o;
}
