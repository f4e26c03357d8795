#include "il_hog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "il_clock.h"
#include "il_cpustat.h"
#include "il_group.h"


struct hog_thread {
	struct il_hog *h;
	unsigned index;
	pthread_t th;
	bool created;
	char name[16];
	int cpu; /* pinned CPU, -1 when not pinned */
	_Atomic int tid;
	/* Published by the hog after every iteration; read by the stats. */
	_Atomic uint64_t cpu_ns, iterations;
	/* Values at il_hog_mark_start, owned by the control thread. */
	uint64_t base_cpu_ns, base_iterations;
};

struct il_hog {
	struct il_hog_config cfg;
	il_thread_init_fn init;
	void *init_ctx;

	struct il_group g; /* start gate, stop flag, gap sleeps, the CPUs in use */

	uint64_t mark_ns;
	struct il_cpustat *mark_stat; /* /proc/stat at the mark, NULL if unreadable */
	unsigned nthreads;
	struct hog_thread t[];
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

/*
 * One iteration of JS-like work: integer mixing that stays in registers,
 * roughly 20-50 us on current CPUs. Short enough that an RT hog notices
 * the stop flag at once, long enough that reading the thread CPU clock
 * after each iteration costs under 1%.
 */
static uint64_t hog_work(uint64_t x)
{
	for (unsigned i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static void publish(struct hog_thread *t, uint64_t iterations)
{
	atomic_store_explicit(&t->cpu_ns, il_thread_cpu_ns(), memory_order_relaxed);
	atomic_store_explicit(&t->iterations, iterations, memory_order_relaxed);
}

static void run_hog(struct hog_thread *t)
{
	struct il_hog *h = t->h;
	uint64_t iterations = 0, x = 0x9e3779b97f4a7c15ull + t->index;
	volatile uint64_t sink;

	while (!il_group_stopping(&h->g)) {
		if (h->cfg.mode == IL_HOG_BUSY) {
			x = hog_work(x);
			publish(t, ++iterations);
			continue;
		}
		/* A long task is a fixed amount of CPU work, not of wall time:
		 * preemption stretches it, as it would stretch real script. */
		uint64_t task_start = il_thread_cpu_ns();

		while (!il_group_stopping(&h->g)) {
			x = hog_work(x);
			publish(t, ++iterations);
			if (atomic_load_explicit(&t->cpu_ns, memory_order_relaxed) - task_start >=
			    h->cfg.task_ns)
				break;
		}
		if (h->cfg.gap_ns)
			il_group_sleep_until(&h->g, il_now_ns() + h->cfg.gap_ns); /* a stop never waits */
	}
	sink = x;
	(void)sink;
}

static void *hog_main(void *arg)
{
	struct hog_thread *t = arg;
	struct il_hog *h = t->h;
	char err[256] = "";
	int ret;

	atomic_store(&t->tid, il_gettid());
	ret = il_thread_pin_init(t->cpu, h->init, h->init_ctx, IL_ROLE_JS, t->name, err, sizeof(err));
	if (ret < 0) {
		il_group_member_failed(&h->g, ret, err);
		return NULL;
	}
	publish(t, 0);

	il_group_member_ready(&h->g);

	run_hog(t);
	return NULL;
}

static void join_all(struct il_hog *h)
{
	il_group_stop(&h->g);
	for (unsigned i = 0; i < h->nthreads; i++)
		if (h->t[i].created)
			pthread_join(h->t[i].th, NULL);
}

static void hog_free(struct il_hog *h)
{
	il_cpustat_free(h->mark_stat);
	il_group_destroy(&h->g);
	free(h);
}

int il_hog_start(const struct il_hog_config *c, il_thread_init_fn init, void *init_ctx,
		 struct il_hog **out, char *err, size_t errlen)
{
	struct il_hog *h;
	cpu_set_t allowed;
	unsigned created = 0;
	int ret = 0;

	if (!c || !init || !out || c->threads == 0 || c->threads > IL_HOG_MAX_THREADS ||
	    (c->mode != IL_HOG_BUSY && c->mode != IL_HOG_BURSTY) ||
	    (c->mode == IL_HOG_BURSTY && c->task_ns == 0)) {
		snprintf(err, errlen, "bad hog configuration (threads 1..%u, bursty needs a task time)",
			 IL_HOG_MAX_THREADS);
		return -EINVAL;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		ret = -errno;
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return ret;
	}
	h = calloc(1, sizeof(*h) + c->threads * sizeof(h->t[0]));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->cfg = *c;
	h->init = init;
	h->init_ctx = init_ctx;
	h->nthreads = c->threads;
	il_group_init(&h->g);
	for (unsigned i = 0; i < c->threads; i++) {
		struct hog_thread *t = &h->t[i];

		t->h = h;
		t->index = i;
		t->cpu = c->pin ? il_cpu_nth(&allowed, i) : -1;
		snprintf(t->name, sizeof(t->name), "render:js%hu", (unsigned short)i);
		ret = il_group_spawn(&h->g, &t->th, hog_main, t);
		if (ret < 0) {
			snprintf(err, errlen, "cannot start hog thread %s: %s", t->name,
				 strerror(-ret));
			break;
		}
		t->created = true;
		created++;
	}
	/* Every hog waits at the gate until all are set up, so an RT hog
	 * cannot starve the creation of the next one. */
	{
		int member_err = il_group_wait_ready(&h->g, created, ret ? NULL : err, ret ? 0 : errlen);

		if (ret == 0)
			ret = member_err;
	}
	if (ret < 0) {
		join_all(h);
		hog_free(h);
		return ret;
	}

	il_cpustat_read(&h->mark_stat);
	h->mark_ns = il_now_ns();
	if (!c->hold)
		il_group_open(&h->g);
	*out = h;
	return 0;
}

void il_hog_mark_start(struct il_hog *h)
{
	struct il_cpustat *snap = NULL;

	/* Read before taking the lock and before releasing held hogs: once
	 * RT hogs spin, this thread may not run again for a while. */
	il_cpustat_read(&snap);
	pthread_mutex_lock(&h->g.lock);
	il_cpustat_free(h->mark_stat);
	h->mark_stat = snap;
	for (unsigned i = 0; i < h->nthreads; i++) {
		struct hog_thread *t = &h->t[i];

		t->base_cpu_ns = atomic_load_explicit(&t->cpu_ns, memory_order_relaxed);
		t->base_iterations = atomic_load_explicit(&t->iterations, memory_order_relaxed);
	}
	h->mark_ns = il_now_ns();
	pthread_mutex_unlock(&h->g.lock);
	il_group_open(&h->g);
}

void il_hog_stop(struct il_hog *h)
{
	if (!h)
		return;
	join_all(h);
	hog_free(h);
}

static uint64_t thread_cpu(const struct hog_thread *t)
{
	uint64_t now = atomic_load_explicit(&t->cpu_ns, memory_order_relaxed);

	return now > t->base_cpu_ns ? now - t->base_cpu_ns : 0;
}

static uint64_t wall_since_mark(const struct il_hog *h, uint64_t wall_ns)
{
	return wall_ns ? wall_ns : il_now_ns() - h->mark_ns;
}

double il_hog_cpu_share(const struct il_hog *h, uint64_t wall_ns)
{
	uint64_t sum = 0;
	int ncpu = CPU_COUNT(&h->g.cpus);

	wall_ns = wall_since_mark(h, wall_ns);
	for (unsigned i = 0; i < h->nthreads; i++)
		sum += thread_cpu(&h->t[i]);
	if (wall_ns == 0 || ncpu <= 0)
		return 0;
	return (double)sum / ((double)wall_ns * ncpu);
}

const cpu_set_t *il_hog_cpus(const struct il_hog *h)
{
	return &h->g.cpus;
}

double il_hog_idle_waste_pct(const struct il_hog *h)
{
	struct il_cpustat *now = NULL;
	double pct;

	if (!h->mark_stat || il_cpustat_read(&now) < 0)
		return -1;
	pct = il_cpustat_idle_pct(h->mark_stat, now, &h->g.cpus);
	il_cpustat_free(now);
	return pct;
}

cJSON *il_hog_stats_json(const struct il_hog *h, uint64_t wall_ns)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	uint64_t sum = 0;
	double idle;

	if (!o)
		return NULL;
	idle = il_hog_idle_waste_pct(h);
	wall_ns = wall_since_mark(h, wall_ns);
	cJSON_AddNumberToObject(o, "threads", h->nthreads);
	cJSON_AddStringToObject(o, "mode", il_hog_mode_name(h->cfg.mode));
	cJSON_AddNumberToObject(o, "cpus", CPU_COUNT(&h->g.cpus));
	arr = cJSON_AddArrayToObject(o, "cpu_set");
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &h->g.cpus))
			cJSON_AddItemToArray(arr, cJSON_CreateNumber(c));
	if (idle >= 0)
		cJSON_AddNumberToObject(o, "idle_waste_pct", idle);
	else
		cJSON_AddNullToObject(o, "idle_waste_pct");
	cJSON_AddNumberToObject(o, "wall_ns", (double)wall_ns);
	arr = cJSON_AddArrayToObject(o, "per_thread");
	for (unsigned i = 0; i < h->nthreads; i++) {
		const struct hog_thread *t = &h->t[i];
		cJSON *e = cJSON_CreateObject();
		uint64_t cpu = thread_cpu(t);

		sum += cpu;
		if (!e)
			continue;
		cJSON_AddStringToObject(e, "name", t->name);
		cJSON_AddNumberToObject(e, "tid", atomic_load(&t->tid));
		cJSON_AddNumberToObject(e, "cpu", t->cpu);
		cJSON_AddNumberToObject(e, "cpu_ns", (double)cpu);
		cJSON_AddNumberToObject(
			e, "iterations",
			(double)(atomic_load_explicit(&t->iterations, memory_order_relaxed) -
				 t->base_iterations));
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddNumberToObject(o, "cpu_ns", (double)sum);
	cJSON_AddNumberToObject(o, "cpu_share", il_hog_cpu_share(h, wall_ns));
	return o;
}
