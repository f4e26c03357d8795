#include "il_hog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_clock.h"
#include "il_cpustat.h"
#include "il_js.h"

/* What a JS hog thread publishes for the control thread to read: numbers
 * with relaxed atomics, the first error's text once, behind has_msg. */
struct js_pub {
	uint64_t heap_peak, errors;
	int has_msg;
	char msg[200];
};

struct il_hog {
	struct il_hog_config cfg;
	struct il_workers *w;	      /* the hog threads, gate, stop, accounting */
	struct il_cpustat *mark_stat; /* /proc/stat at the mark, NULL if unreadable */
	struct il_cpustat *halt_stat; /* /proc/stat at the halt (hog_on_halt): the window's end */
	int mark_err, halt_err;	      /* the reads' errors (0: read, or not yet) */
	struct il_js **js;	      /* JavaScript: one engine per thread, else NULL */
	struct js_pub *pub;
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

int il_hog_mode_split(const char *s, enum il_hog_pattern *pattern, bool *js)
{
	static const struct {
		const char *name;
		enum il_hog_pattern pattern;
		bool js;
	} modes[] = {
	    {"busy", IL_HOG_BUSY, false},
	    {"bursty", IL_HOG_BURSTY, false},
	    {"js", IL_HOG_BUSY, true},
	    {"js-bursty", IL_HOG_BURSTY, true},
	};

	for (size_t i = 0; s && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(s, modes[i].name) == 0) {
			*pattern = modes[i].pattern;
			*js = modes[i].js;
			return 0;
		}
	return -EINVAL;
}

/* One unit of work: a tick() of the script, or a chunk of the register loop. */
static inline uint64_t hog_unit(struct il_hog *h, unsigned i, uint64_t x)
{
	struct il_js *js;
	struct js_pub *pub;

	if (!h->js)
		return il_workers_chunk(x);
	js = h->js[i];
	pub = &h->pub[i];
	if (il_js_tick(js) < 0) {
		if (!__atomic_load_n(&pub->has_msg, __ATOMIC_RELAXED)) {
			snprintf(pub->msg, sizeof(pub->msg), "%s", il_js_first_error(js));
			__atomic_store_n(&pub->has_msg, 1, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&pub->errors, il_js_errors(js), __ATOMIC_RELAXED);
	}
	__atomic_store_n(&pub->heap_peak, (uint64_t)il_js_heap_peak(js), __ATOMIC_RELAXED);
	return x;
}

/* One hog: an iteration is one chunk of register work, published at once
 * so the stop flag and the accounting are never more than a chunk behind. */
static void hog_run(struct il_worker *self, void *ctx)
{
	struct il_hog *h = ctx;
	unsigned i = il_worker_index(self);
	uint64_t iterations = 0, x = 0x9e3779b97f4a7c15ull + i;
	volatile uint64_t sink;

	while (!il_worker_stopping(self)) {
		if (h->cfg.mode == IL_HOG_BUSY) {
			x = hog_unit(h, i, x);
			il_worker_publish(self, ++iterations);
			continue;
		}
		/* A long task is a fixed amount of CPU work, not of wall time:
		 * preemption stretches it, as it would stretch real script. */
		uint64_t task_start = il_thread_cpu_ns();

		while (!il_worker_stopping(self)) {
			x = hog_unit(h, i, x);
			if (il_worker_publish(self, ++iterations) - task_start >= h->cfg.task_ns)
				break;
		}
		if (h->cfg.gap_ns) /* a stop never waits for the gap */
			il_worker_sleep_until(self, il_now_ns() + h->cfg.gap_ns);
	}
	sink = x;
	(void)sink;
}

/*
 * The halt's hook (il_workers_config.on_halt), run once while the hogs
 * still run, by this control thread or by the first hog that read the halt
 * word: the idle-waste window ends here, since the CPU time left idle once
 * the hogs have ended is not theirs to waste.
 */
static void hog_on_halt(void *ctx)
{
	struct il_hog *h = ctx;

	if (!h->halt_stat)
		h->halt_err = il_cpustat_read(&h->halt_stat);
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
	/* The engines are made and the script run here, on the starter's
	 * thread: a bad script fails the start before any hog exists, and each
	 * hog thread takes over its own state behind the gate. */
	if (c->script) {
		h->js = calloc(c->threads, sizeof(*h->js));
		h->pub = calloc(c->threads, sizeof(*h->pub));
		if (!h->js || !h->pub) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto fail;
		}
		for (unsigned i = 0; i < c->threads; i++) {
			ret = il_js_new(c->script, c->script_name ? c->script_name : "script",
					c->js_heap_max, &h->js[i], err, errlen);
			if (ret < 0)
				goto fail;
		}
	}
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
	    .halt_word = c->halt_word,
	    .on_halt = hog_on_halt,
	};

	ret = il_workers_start(&wc, &h->w, err, errlen);
	if (ret < 0)
		goto fail;
	h->mark_err = il_cpustat_read(&h->mark_stat);
	if (!c->hold)
		il_workers_open(h->w);
	*out = h;
	return 0;
fail:
	/* A start that failed halted (and joined) the hogs: the halt's hook
	 * read /proc/stat. */
	il_cpustat_free(h->halt_stat);
	for (unsigned i = 0; h->js && i < c->threads; i++)
		il_js_free(h->js[i]);
	free(h->js);
	free(h->pub);
	free(h);
	return ret;
}

void il_hog_mark_start(struct il_hog *h)
{
	struct il_cpustat *snap = NULL;

	/* Read before releasing held hogs: once RT hogs spin, this thread
	 * may not run again for a while. */
	h->mark_err = il_cpustat_read(&snap);
	il_cpustat_free(h->mark_stat);
	h->mark_stat = snap;
	il_workers_mark(h->w);
}

void il_hog_halt(struct il_hog *h)
{
	if (h)
		il_workers_halt(h->w);
}

void il_hog_stop(struct il_hog *h)
{
	if (!h)
		return;
	il_workers_stop(h->w);
	il_cpustat_free(h->mark_stat);
	il_cpustat_free(h->halt_stat);
	for (unsigned i = 0; h->js && i < h->cfg.threads; i++)
		il_js_free(h->js[i]);
	free(h->js);
	free(h->pub);
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

/* The idle waste, or -1 with why (the window's end read now when the
 * hogs have not halted yet). */
static double idle_waste(const struct il_hog *h, char *why, size_t len)
{
	struct il_cpustat *now = NULL;
	const struct il_cpustat *end = h->halt_stat;
	char what[64];
	double pct;
	int err;

	if (!h->mark_stat) {
		snprintf(why, len, "unreadable: /proc/stat at the hogs' start: %s",
			 h->mark_err ? il_cpustat_why(h->mark_err, what, sizeof(what))
				     : "not read");
		return -1;
	}
	if (!end && h->halt_err) {
		snprintf(why, len, "unreadable: /proc/stat at the hogs' halt: %s",
			 il_cpustat_why(h->halt_err, what, sizeof(what)));
		return -1;
	}
	if (!end && (err = il_cpustat_read(&now)) < 0) {
		snprintf(why, len, "unreadable: /proc/stat at the hogs' end: %s",
			 il_cpustat_why(err, what, sizeof(what)));
		return -1;
	}
	pct = il_cpustat_idle_pct(h->mark_stat, end ? end : now, il_workers_cpus(h->w));
	il_cpustat_free(now);
	if (pct < 0)
		snprintf(why, len,
			 "unreadable: the hogs' CPUs accumulated no ticks in /proc/stat "
			 "between start and end");
	return pct;
}

double il_hog_idle_waste_pct(const struct il_hog *h)
{
	char why[160];

	return idle_waste(h, why, sizeof(why));
}

cJSON *il_hog_stats_json(const struct il_hog *h, uint64_t wall_ns)
{
	char why[160];
	double idle = idle_waste(h, why, sizeof(why));
	cJSON *o = il_workers_stats_json(h->w, wall_ns);

	if (!o)
		return NULL;
	if (!h->js) {
		cJSON_AddStringToObject(o, "mode", il_hog_mode_name(h->cfg.mode));
	} else {
		uint64_t peak = 0, errors = 0;
		const char *first = NULL;

		cJSON_AddStringToObject(o, "mode",
					h->cfg.mode == IL_HOG_BURSTY ? "js-bursty" : "js");
		cJSON_AddStringToObject(o, "engine", il_js_engine());
		cJSON_AddStringToObject(o, "script", h->cfg.script_name ? h->cfg.script_name : "");
		cJSON_AddNumberToObject(
		    o, "js_heap_max_bytes",
		    (double)(h->cfg.js_heap_max ? h->cfg.js_heap_max : IL_JS_HEAP_MAX));
		for (unsigned i = 0; i < h->cfg.threads; i++) {
			uint64_t p = __atomic_load_n(&h->pub[i].heap_peak, __ATOMIC_RELAXED);

			peak = p > peak ? p : peak;
			errors += __atomic_load_n(&h->pub[i].errors, __ATOMIC_RELAXED);
			if (!first && __atomic_load_n(&h->pub[i].has_msg, __ATOMIC_ACQUIRE))
				first = h->pub[i].msg;
		}
		cJSON_AddNumberToObject(o, "js_heap_peak_bytes", (double)peak);
		cJSON_AddNumberToObject(o, "js_errors", (double)errors);
		if (first)
			cJSON_AddStringToObject(o, "js_first_error", first);
		else
			cJSON_AddNullToObject(o, "js_first_error");
	}
	if (idle >= 0) {
		cJSON_AddNumberToObject(o, "idle_waste_pct", idle);
		cJSON_AddNullToObject(o, "idle_waste_why");
	} else {
		cJSON_AddNullToObject(o, "idle_waste_pct");
		cJSON_AddStringToObject(o, "idle_waste_why", why);
	}
	return o;
}
