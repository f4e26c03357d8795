#include "il_workers.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_thread.h"

struct il_worker {
	struct il_workers *w;
	unsigned index;
	pthread_t th;
	bool created;
	char name[16];
	int cpu; /* pinned CPU, -1 when not pinned */
	/* Written by the member before it reports (under the gate lock), read
	 * by the starter after it has seen the report. */
	int tid;
	/* Published by the member; read by the stats. */
	_Atomic uint64_t cpu_ns, units;
	/* Values at the mark, owned by the control thread. */
	uint64_t base_cpu_ns, base_units;
};

struct il_workers {
	struct il_workers_config cfg;

	pthread_mutex_t lock;
	pthread_cond_t cond; /* the starter waits on it for the members' reports */
	unsigned reported;   /* members that are ready or failed */
	int first_err;
	char err[256];
	bool open; /* the starter's: il_workers_open was called */
	/*
	 * A futex word, not the condition variable: a broadcast to 1024 members
	 * waiting with the lock makes each one take the lock in turn on its way
	 * out, one wake-up after the other among those already busy, and the
	 * load took seconds to reach its strength after the start. Members
	 * waiting on the word (at the gate, or asleep once past it) wake and
	 * go, each on its own.
	 */
	_Atomic uint32_t gate; /* GATE_OPEN | GATE_STOP, 0 while closed */
	cpu_set_t cpus;	       /* the union of the members' affinity in force */

	uint64_t mark_ns;
	/* When the group was halted, else 0: written under lock by the halt
	 * (a member's, on reading the halt word, or the control thread's). */
	_Atomic uint64_t halt_ns;
	unsigned n;
	struct il_worker m[];
};

#define GATE_OPEN 1u
#define GATE_STOP 2u

/* Sleeps while *word is val, until abs_ns (CLOCK_MONOTONIC; 0: no bound)
 * or a wake; returns at once when *word is no longer val. */
static void word_wait(_Atomic uint32_t *word, uint32_t val, uint64_t abs_ns)
{
	struct timespec ts = il_ns_to_ts(abs_ns);

	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val,
		abs_ns ? &ts : NULL, NULL, FUTEX_BITSET_MATCH_ANY);
}

static void word_wake_all(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL,
		0);
}

/* The i-th CPU of allowed, modulo its size (round-robin placement); -1 if empty. */
static int nth_cpu(const cpu_set_t *allowed, unsigned i)
{
	int count = CPU_COUNT(allowed), want;

	if (count <= 0)
		return -1;
	want = (int)(i % (unsigned)count);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed) && want-- == 0)
			return c;
	return -1;
}

/* The CPU member i pins itself to, -1 for none. */
static int placement(const struct il_workers_config *c, const cpu_set_t *allowed, unsigned i)
{
	switch (c->place) {
	case IL_WORKERS_SPREAD:
		return nth_cpu(allowed, i);
	case IL_WORKERS_ON_CPU:
		return c->cpu;
	default:
		return -1;
	}
}

static void member_failed(struct il_workers *w, int err, const char *msg)
{
	pthread_mutex_lock(&w->lock);
	if (!w->first_err) {
		w->first_err = err;
		snprintf(w->err, sizeof(w->err), "%s", msg);
	}
	w->reported++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Reports ready, then waits at the gate. Returns false when the group
 * stopped before the gate opened. */
static bool member_ready(struct il_worker *m)
{
	struct il_workers *w = m->w;
	cpu_set_t mine;
	bool go;

	pthread_mutex_lock(&w->lock);
	/* The policy may set its own affinity for the role: count what is in force. */
	if (sched_getaffinity(0, sizeof(mine), &mine) == 0)
		CPU_OR(&w->cpus, &w->cpus, &mine);
	w->reported++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	while (atomic_load(&w->gate) == 0)
		word_wait(&w->gate, 0, 0);
	go = !(atomic_load(&w->gate) & GATE_STOP);
	return go;
}

static void *member_main(void *arg)
{
	struct il_worker *m = arg;
	struct il_workers *w = m->w;
	char err[256] = "";
	int ret;

	m->tid = il_gettid();
	ret = il_thread_pin_init(m->cpu, w->cfg.init, w->cfg.init_ctx, w->cfg.role, m->name, err,
				 sizeof(err));
	if (ret < 0) {
		member_failed(w, ret, err);
		return NULL;
	}
	/* Set-up CPU time is not work: the start's mark counts from here. */
	il_worker_publish(m, 0);
	if (member_ready(m))
		w->cfg.run(m, w->cfg.ctx);
	return NULL;
}

/*
 * Created as SCHED_OTHER whatever the caller's class: until the member
 * applies its role, nothing runs at a priority nobody asked for.
 */
static int spawn(struct il_worker *m)
{
	struct sched_param sp = {.sched_priority = 0};
	pthread_attr_t a;
	int rc;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	rc = pthread_create(&m->th, &a, member_main, m);
	pthread_attr_destroy(&a);
	return -rc;
}

/* Waits until `created` members reported; the first member error, or 0. */
static int wait_reported(struct il_workers *w, unsigned created, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&w->lock);
	while (w->reported < created)
		pthread_cond_wait(&w->cond, &w->lock);
	if (w->first_err) {
		rc = w->first_err;
		snprintf(err, errlen, "%s", w->err);
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

static bool config_ok(const struct il_workers_config *c)
{
	return c && c->threads >= 1 && c->threads <= IL_WORKERS_MAX_THREADS && c->name && c->init &&
	       c->run && (c->place != IL_WORKERS_ON_CPU || (c->cpu >= 0 && c->cpu < CPU_SETSIZE)) &&
	       (c->place == IL_WORKERS_ANYWHERE || c->place == IL_WORKERS_SPREAD ||
		c->place == IL_WORKERS_ON_CPU);
}

int il_workers_start(const struct il_workers_config *c, struct il_workers **out, char *err,
		     size_t errlen)
{
	struct il_workers *w;
	cpu_set_t allowed;
	unsigned created = 0;
	int ret = 0, member_err;

	if (!config_ok(c) || !out) {
		snprintf(err, errlen, "bad worker group configuration (threads 1..%u)",
			 IL_WORKERS_MAX_THREADS);
		return -EINVAL;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		ret = -errno;
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return ret;
	}
	w = calloc(1, sizeof(*w) + c->threads * sizeof(w->m[0]));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->cfg = *c;
	w->n = c->threads;
	CPU_ZERO(&w->cpus);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);

	for (unsigned i = 0; i < w->n; i++) {
		struct il_worker *m = &w->m[i];

		m->w = w;
		m->index = i;
		m->cpu = placement(c, &allowed, i);
		if (c->indexed)
			snprintf(m->name, sizeof(m->name), "%s%u", c->name, i);
		else
			snprintf(m->name, sizeof(m->name), "%s", c->name);
		ret = spawn(m);
		if (ret < 0) {
			snprintf(err, errlen, "cannot start %s: %s%s", m->name, strerror(-ret),
				 il_thread_limit_why(-ret));
			break;
		}
		m->created = true;
		created++;
	}
	/* Every member waits at the gate until all are set up, so an RT
	 * member cannot starve the creation of the next one. */
	member_err = wait_reported(w, created, ret ? NULL : err, ret ? 0 : errlen);
	if (ret == 0)
		ret = member_err;
	if (ret < 0) {
		il_workers_stop(w);
		return ret;
	}
	w->mark_ns = il_now_ns();
	for (unsigned i = 0; i < w->n; i++) {
		w->m[i].base_cpu_ns = atomic_load_explicit(&w->m[i].cpu_ns, memory_order_relaxed);
		w->m[i].base_units = 0;
	}
	if (!c->hold)
		il_workers_open(w);
	*out = w;
	return 0;
}

void il_workers_open(struct il_workers *w)
{
	pthread_mutex_lock(&w->lock);
	w->open = true;
	atomic_fetch_or(&w->gate, GATE_OPEN);
	word_wake_all(&w->gate);
	pthread_mutex_unlock(&w->lock);
}

void il_workers_mark(struct il_workers *w)
{
	for (unsigned i = 0; i < w->n; i++) {
		struct il_worker *m = &w->m[i];

		m->base_cpu_ns = atomic_load_explicit(&m->cpu_ns, memory_order_relaxed);
		m->base_units = atomic_load_explicit(&m->units, memory_order_relaxed);
	}
	w->mark_ns = il_now_ns();
	il_workers_open(w);
}

/* The halt, once, with w->lock held: its time, the user's hook while the
 * members still run, then the stop flag and every sleeper woken. */
static void halt_locked(struct il_workers *w, uint64_t at_ns)
{
	if (!w->halt_ns) {
		w->halt_ns = at_ns;
		if (w->cfg.on_halt)
			w->cfg.on_halt(w->cfg.ctx);
	}
	atomic_fetch_or(&w->gate, GATE_STOP);
	word_wake_all(&w->gate);
}

/* The orchestrator's stop time from the halt word, 0 when not written. */
static uint64_t halt_word_ns(const struct il_workers *w)
{
	return w->cfg.halt_word ? atomic_load_explicit(w->cfg.halt_word, memory_order_acquire) : 0;
}

/*
 * The stop is told first and the stats taken after: members that are
 * still busy then end as soon as they next run, and each one ended is a
 * thread less for the control thread to share the CPUs with. Taken first,
 * the stats were built among 1024 busy members, at a thousandth of a CPU,
 * and a stop that wakes threads in four processes took 3 to 6 s. (Demoting
 * the members to SCHED_IDLE instead starved their very end whenever other
 * work kept the CPUs busy.)
 */
void il_workers_halt(struct il_workers *w)
{
	uint64_t at;

	if (!w)
		return;
	at = halt_word_ns(w);
	pthread_mutex_lock(&w->lock);
	halt_locked(w, at ? at : il_now_ns());
	pthread_mutex_unlock(&w->lock);
}

void il_workers_stop(struct il_workers *w)
{
	if (!w)
		return;
	il_workers_halt(w);
	for (unsigned i = 0; i < w->n; i++)
		if (w->m[i].created)
			pthread_join(w->m[i].th, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int il_workers_tid(const struct il_workers *w, unsigned i)
{
	return i < w->n ? w->m[i].tid : -1;
}

uint64_t il_workers_cpu_ns(const struct il_workers *w, unsigned i)
{
	const struct il_worker *m;
	uint64_t now;

	if (i >= w->n)
		return 0;
	m = &w->m[i];
	now = atomic_load_explicit(&m->cpu_ns, memory_order_relaxed);
	return now > m->base_cpu_ns ? now - m->base_cpu_ns : 0;
}

static uint64_t units_since_mark(const struct il_worker *m)
{
	return atomic_load_explicit(&m->units, memory_order_relaxed) - m->base_units;
}

uint64_t il_workers_mark_ns(const struct il_workers *w)
{
	return w->mark_ns;
}

const cpu_set_t *il_workers_cpus(const struct il_workers *w)
{
	return &w->cpus;
}

static uint64_t wall_since_mark(const struct il_workers *w, uint64_t wall_ns)
{
	uint64_t end;

	if (wall_ns)
		return wall_ns;
	/* Held at the gate until the halt: the members never ran. */
	if (!w->open)
		return 0;
	end = w->halt_ns ? w->halt_ns : il_now_ns();
	/* A halt word written before this process got to its mark: no wall. */
	return end > w->mark_ns ? end - w->mark_ns : 0;
}

double il_workers_cpu_share(const struct il_workers *w, uint64_t wall_ns)
{
	uint64_t sum = 0;
	int ncpu = CPU_COUNT(&w->cpus);

	wall_ns = wall_since_mark(w, wall_ns);
	for (unsigned i = 0; i < w->n; i++)
		sum += il_workers_cpu_ns(w, i);
	if (wall_ns == 0 || ncpu <= 0)
		return 0;
	return (double)sum / ((double)wall_ns * ncpu);
}

cJSON *il_workers_stats_json(const struct il_workers *w, uint64_t wall_ns)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	uint64_t sum = 0;

	if (!o)
		return NULL;
	wall_ns = wall_since_mark(w, wall_ns);
	cJSON_AddNumberToObject(o, "threads", w->n);
	cJSON_AddNumberToObject(o, "cpus", CPU_COUNT(&w->cpus));
	arr = cJSON_AddArrayToObject(o, "cpu_set");
	for (int c = 0; arr && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &w->cpus))
			cJSON_AddItemToArray(arr, cJSON_CreateNumber(c));
	cJSON_AddNumberToObject(o, "wall_ns", (double)wall_ns);
	arr = cJSON_AddArrayToObject(o, "per_thread");
	for (unsigned i = 0; i < w->n; i++) {
		const struct il_worker *m = &w->m[i];
		cJSON *e = cJSON_CreateObject();
		uint64_t cpu = il_workers_cpu_ns(w, i);

		sum += cpu;
		if (!e)
			continue;
		cJSON_AddStringToObject(e, "name", m->name);
		cJSON_AddNumberToObject(e, "tid", m->tid);
		cJSON_AddNumberToObject(e, "cpu", m->cpu);
		cJSON_AddNumberToObject(e, "cpu_ns", (double)cpu);
		if (w->cfg.units_name)
			cJSON_AddNumberToObject(e, w->cfg.units_name, (double)units_since_mark(m));
		if (!arr || !cJSON_AddItemToArray(arr, e))
			cJSON_Delete(e);
	}
	cJSON_AddNumberToObject(o, "cpu_ns", (double)sum);
	cJSON_AddNumberToObject(o, "cpu_share", il_workers_cpu_share(w, wall_ns));
	return o;
}

unsigned il_worker_index(const struct il_worker *self)
{
	return self->index;
}

bool il_worker_stopping(const struct il_worker *self)
{
	struct il_workers *w = self->w;
	uint64_t at;

	if (atomic_load_explicit(&w->gate, memory_order_relaxed) & GATE_STOP)
		return true;
	at = halt_word_ns(w);
	if (!at)
		return false;
	/* The first member to read the word halts the group for everyone. */
	pthread_mutex_lock(&w->lock);
	halt_locked(w, at);
	pthread_mutex_unlock(&w->lock);
	return true;
}

uint64_t il_worker_publish(struct il_worker *self, uint64_t units)
{
	uint64_t cpu_ns = il_thread_cpu_ns();

	atomic_store_explicit(&self->cpu_ns, cpu_ns, memory_order_relaxed);
	atomic_store_explicit(&self->units, units, memory_order_relaxed);
	return cpu_ns;
}

void il_worker_sleep_until(struct il_worker *self, uint64_t abs_ns)
{
	struct il_workers *w = self->w;

	/* Past the gate, the word is GATE_OPEN until the halt adds GATE_STOP. */
	while (!il_worker_stopping(self) && il_now_ns() < abs_ns)
		word_wait(&w->gate, GATE_OPEN, abs_ns);
}

uint64_t il_workers_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

uint64_t il_workers_rand_between(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return lo + il_workers_rand(state) % (hi - lo + 1);
}

uint64_t il_workers_chunk(uint64_t x)
{
	/* The same mixing as the PRNG; x stays in a register throughout. */
	for (unsigned i = 0; i < 20000; i++)
		il_workers_rand(&x);
	return x;
}
