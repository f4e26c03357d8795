#include "il_load.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "il_clock.h"
#include "il_group.h"

/* Compile-job shape; see the header. */
#define SLICE_MIN_NS 2000000ull
#define SLICE_MAX_NS 10000000ull
#define SLEEP_MIN_NS 500000ull
#define SLEEP_MAX_NS 2000000ull
#define SLEEP_ONE_IN 4


struct load_thread {
	struct il_load *l;
	unsigned index;
	pthread_t th;
	bool created;
	char name[16];
	int cpu;
	_Atomic int tid;
	_Atomic uint64_t cpu_ns, slices;
	uint64_t base_cpu_ns, base_slices;
};

struct il_load {
	il_thread_init_fn init;
	void *init_ctx;
	struct il_group g; /* start gate, stop flag, the CPUs in use */
	uint64_t mark_ns;
	unsigned nthreads;
	struct load_thread t[];
};

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint64_t uniform(uint64_t *s, uint64_t lo, uint64_t hi)
{
	return lo + xorshift(s) % (hi - lo + 1);
}

/* About 20-50 us of register-only work between looks at the clock. */
static uint64_t spin_chunk(uint64_t x)
{
	for (unsigned i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static void run_load(struct load_thread *t)
{
	struct il_load *l = t->l;
	uint64_t rng = 0x2545f4914f6cdd1dull * (t->index + 1), x = rng, slices = 0;
	volatile uint64_t sink;

	while (!il_group_stopping(&l->g)) {
		uint64_t start = il_thread_cpu_ns(), want = uniform(&rng, SLICE_MIN_NS, SLICE_MAX_NS);
		uint64_t now = start;

		while (now - start < want && !il_group_stopping(&l->g)) {
			x = spin_chunk(x);
			now = il_thread_cpu_ns();
			atomic_store_explicit(&t->cpu_ns, now, memory_order_relaxed);
		}
		atomic_store_explicit(&t->slices, ++slices, memory_order_relaxed);
		if (xorshift(&rng) % SLEEP_ONE_IN == 0) {
			struct timespec ts = il_ns_to_ts(uniform(&rng, SLEEP_MIN_NS, SLEEP_MAX_NS));

			nanosleep(&ts, NULL);
		}
	}
	sink = x;
	(void)sink;
}

static void *load_main(void *arg)
{
	struct load_thread *t = arg;
	struct il_load *l = t->l;
	char err[256] = "";
	int ret;

	atomic_store(&t->tid, il_gettid());
	ret = il_thread_pin_init(t->cpu, l->init, l->init_ctx, IL_ROLE_LOAD, t->name, err, sizeof(err));
	if (ret < 0) {
		il_group_member_failed(&l->g, ret, err);
		return NULL;
	}
	atomic_store(&t->cpu_ns, il_thread_cpu_ns());

	il_group_member_ready(&l->g);

	run_load(t);
	return NULL;
}

static void load_free(struct il_load *l)
{
	il_group_stop(&l->g);
	for (unsigned i = 0; i < l->nthreads; i++)
		if (l->t[i].created)
			pthread_join(l->t[i].th, NULL);
	il_group_destroy(&l->g);
	free(l);
}

int il_load_start(const struct il_load_config *c, il_thread_init_fn init, void *init_ctx,
		  struct il_load **out, char *err, size_t errlen)
{
	struct il_load *l;
	cpu_set_t allowed;
	unsigned created = 0;
	int ret = 0;

	if (!c || !init || !out || c->threads == 0 || c->threads > IL_LOAD_MAX_THREADS) {
		snprintf(err, errlen, "bad load configuration (threads 1..%u)",
			 IL_LOAD_MAX_THREADS);
		return -EINVAL;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		ret = -errno;
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return ret;
	}
	l = calloc(1, sizeof(*l) + c->threads * sizeof(l->t[0]));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	l->init = init;
	l->init_ctx = init_ctx;
	l->nthreads = c->threads;
	il_group_init(&l->g);
	for (unsigned i = 0; i < c->threads; i++) {
		struct load_thread *t = &l->t[i];

		t->l = l;
		t->index = i;
		t->cpu = c->pin ? il_cpu_nth(&allowed, i) : -1;
		snprintf(t->name, sizeof(t->name), "il:load%hu", (unsigned short)i);
		ret = il_group_spawn(&l->g, &t->th, load_main, t);
		if (ret < 0) {
			snprintf(err, errlen, "cannot start %s: %s", t->name, strerror(-ret));
			break;
		}
		t->created = true;
		created++;
	}
	{
		int member_err = il_group_wait_ready(&l->g, created, ret ? NULL : err, ret ? 0 : errlen);

		if (ret == 0)
			ret = member_err;
	}
	if (ret == 0) {
		l->mark_ns = il_now_ns();
		il_group_open(&l->g);
	}
	if (ret < 0) {
		load_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

void il_load_mark_start(struct il_load *l)
{
	for (unsigned i = 0; i < l->nthreads; i++) {
		struct load_thread *t = &l->t[i];

		t->base_cpu_ns = atomic_load_explicit(&t->cpu_ns, memory_order_relaxed);
		t->base_slices = atomic_load_explicit(&t->slices, memory_order_relaxed);
	}
	l->mark_ns = il_now_ns();
}

static uint64_t thread_cpu(const struct load_thread *t)
{
	uint64_t now = atomic_load_explicit(&t->cpu_ns, memory_order_relaxed);

	return now > t->base_cpu_ns ? now - t->base_cpu_ns : 0;
}

double il_load_cpu_share(const struct il_load *l, uint64_t wall_ns)
{
	uint64_t sum = 0;
	int ncpu = CPU_COUNT(&l->g.cpus);

	if (!wall_ns)
		wall_ns = il_now_ns() - l->mark_ns;
	for (unsigned i = 0; i < l->nthreads; i++)
		sum += thread_cpu(&l->t[i]);
	if (!wall_ns || ncpu <= 0)
		return 0;
	return (double)sum / ((double)wall_ns * ncpu);
}

cJSON *il_load_stats_json(const struct il_load *l, uint64_t wall_ns)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	uint64_t sum = 0;

	if (!o)
		return NULL;
	if (!wall_ns)
		wall_ns = il_now_ns() - l->mark_ns;
	cJSON_AddNumberToObject(o, "threads", l->nthreads);
	cJSON_AddNumberToObject(o, "cpus", CPU_COUNT(&l->g.cpus));
	cJSON_AddNumberToObject(o, "wall_ns", (double)wall_ns);
	arr = cJSON_AddArrayToObject(o, "per_thread");
	for (unsigned i = 0; i < l->nthreads; i++) {
		const struct load_thread *t = &l->t[i];
		cJSON *e = cJSON_CreateObject();
		uint64_t cpu = thread_cpu(t);

		sum += cpu;
		if (!e)
			continue;
		cJSON_AddStringToObject(e, "name", t->name);
		cJSON_AddNumberToObject(e, "tid", atomic_load(&((struct load_thread *)t)->tid));
		cJSON_AddNumberToObject(e, "cpu", t->cpu);
		cJSON_AddNumberToObject(e, "cpu_ns", (double)cpu);
		cJSON_AddNumberToObject(
			e, "slices",
			(double)(atomic_load_explicit(&((struct load_thread *)t)->slices,
						      memory_order_relaxed) -
				 t->base_slices));
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddNumberToObject(o, "cpu_ns", (double)sum);
	cJSON_AddNumberToObject(o, "cpu_share", il_load_cpu_share(l, wall_ns));
	return o;
}

void il_load_stop(struct il_load *l)
{
	if (l)
		load_free(l);
}
