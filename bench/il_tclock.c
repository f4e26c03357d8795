/* Loading the on-CPU clock program and handing threads their records. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "il_bpf_attach.h"
#include "il_tclock.h"
#include "il_tracefs.h"
#include "thread-clock.skel.h"

/* A registered thread waits this many short sleeps for its first switch-in. */
#define REGISTER_TRIES 8

struct il_tclock {
	struct thread_clock_bpf *skel;
	struct il_tclock_rec *recs; /* IL_TCLOCK_SLOTS, mapped read-only */
	size_t len;
	char futex_why[160]; /* why futex_ns is not kept, "" when it is */
};

/* futex_ns: the futex calls' entry and exit programs; without them, why. */
static void attach_futex(struct il_tclock *c)
{
	static const char *const ev[] = {"syscalls/sys_enter_futex", "syscalls/sys_exit_futex"};
	int id[2], e;

	if (il_tracefs_event_ids(ev, 2, id) < 0) {
		snprintf(c->futex_why, sizeof(c->futex_why),
			 "no tracefs id for syscalls/sys_enter_futex and sys_exit_futex (a kernel "
			 "without CONFIG_FTRACE_SYSCALLS)");
		return;
	}
	c->skel->links.il_tclock_futex_enter =
	    il_bpf_attach_tracepoint(c->skel->progs.il_tclock_futex_enter, id[0]);
	c->skel->links.il_tclock_futex_exit =
	    c->skel->links.il_tclock_futex_enter
		? il_bpf_attach_tracepoint(c->skel->progs.il_tclock_futex_exit, id[1])
		: NULL;
	if (!c->skel->links.il_tclock_futex_exit) {
		e = errno;
		snprintf(c->futex_why, sizeof(c->futex_why),
			 "attaching to the futex system calls' tracepoints: %s", strerror(e));
		bpf_link__destroy(c->skel->links.il_tclock_futex_enter);
		c->skel->links.il_tclock_futex_enter = NULL;
	}
}

struct il_tclock *il_tclock_open(char *why, size_t len)
{
	static const char *const ev[] = {"sched/sched_switch"};
	struct il_tclock *c = calloc(1, sizeof(*c));
	libbpf_print_fn_t old = libbpf_set_print(il_bpf_debug_print);
	int id, e;
	void *p;

	if (!c) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	c->skel = thread_clock_bpf__open_and_load();
	if (!c->skel) {
		e = errno;
		snprintf(why, len, "loading the sched_switch program: %s", strerror(e));
		goto fail;
	}
	if (il_tracefs_event_ids(ev, 1, &id) < 0) {
		snprintf(why, len, "no id for sched/sched_switch (tracefs)");
		goto fail;
	}
	c->skel->links.il_tclock_switch =
	    il_bpf_attach_tracepoint(c->skel->progs.il_tclock_switch, id);
	if (!c->skel->links.il_tclock_switch) {
		e = errno;
		snprintf(why, len, "attaching to sched/sched_switch: %s", strerror(e));
		goto fail;
	}
	attach_futex(c);
	c->len = IL_TCLOCK_SLOTS * sizeof(struct il_tclock_rec);
	/* Read-only: records change by the program or by bpf_map_update_elem. */
	p = mmap(NULL, c->len, PROT_READ, MAP_SHARED, bpf_map__fd(c->skel->maps.tclock), 0);
	if (p == MAP_FAILED) {
		e = errno;
		snprintf(why, len, "mapping the records: %s", strerror(e));
		goto fail;
	}
	c->recs = p;
	goto out;
fail:
	il_tclock_close(c);
	c = NULL;
out:
	libbpf_set_print(old);
	return c;
}

#define OUTSIDE_BATCHES 9
#define OUTSIDE_CALLS	2000

/* One measurement of a futex call's cost outside its tracepoints, made by
 * a thread of its own (its record is registered for it alone). */
struct futex_measure {
	struct il_tclock *c;
	_Atomic uint32_t word; /* the sleeping one's: wakes so far */
	double ns;
	char why[120];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void *outside_main(void *arg)
{
	struct futex_measure *o = arg;
	uint32_t tid = (uint32_t)syscall(SYS_gettid), word = 0;
	const struct il_tclock_rec *r = il_tclock_register(o->c, tid);
	double per[OUTSIDE_BATCHES];
	int n = 0;

	if (!r) {
		snprintf(o->why, sizeof(o->why), "no on-CPU clock record for the measuring thread");
		return NULL;
	}
	for (int b = 0; b < OUTSIDE_BATCHES; b++) {
		uint64_t l0 = il_tclock_lost(r), a0 = il_tclock_now(r, tid),
			 f0 = il_tclock_futex_ns(r), k0 = il_tclock_futex_calls(r), a1, f1, k1;

		/* No waiter on the word: each wake returns at once. */
		for (int i = 0; i < OUTSIDE_CALLS; i++)
			syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		a1 = il_tclock_now(r, tid);
		f1 = il_tclock_futex_ns(r);
		k1 = il_tclock_futex_calls(r);
		/* A switch or a lost record inside the batch: not a clean one. */
		if (a0 && a1 && k1 - k0 == OUTSIDE_CALLS && a1 - a0 > f1 - f0 &&
		    il_tclock_lost(r) == l0)
			per[n++] = (double)(a1 - a0 - (f1 - f0)) / OUTSIDE_CALLS;
	}
	il_tclock_unregister(o->c, r, tid);
	if (n < OUTSIDE_BATCHES / 2 + 1) {
		snprintf(o->why, sizeof(o->why),
			 "only %d of %d batches of futex calls counted whole", n, OUTSIDE_BATCHES);
		return NULL;
	}
	qsort(per, (size_t)n, sizeof(per[0]), cmp_double);
	o->ns = per[n / 2];
	return NULL;
}

/* Runs fn in a thread of its own; its figure, or NAN with why. */
static double measure_in_thread(struct il_tclock *c, void *(*fn)(void *), char *why, size_t len)
{
	struct futex_measure m = {.c = c, .ns = NAN};
	pthread_t th;

	if (c->futex_why[0]) {
		snprintf(why, len, "%s", c->futex_why);
		return NAN;
	}
	if (pthread_create(&th, NULL, fn, &m) != 0) {
		snprintf(why, len, "no thread to measure with");
		return NAN;
	}
	pthread_join(th, NULL);
	if (isnan(m.ns))
		snprintf(why, len, "%s", m.why);
	return m.ns;
}

double il_tclock_futex_outside_ns(struct il_tclock *c, char *why, size_t len)
{
	return measure_in_thread(c, outside_main, why, len);
}

#define SLEEP_CALLS 301 /* wakes, 50 us apart: 15 ms */
#define SLEEP_MIN   101 /* calls that slept, for a median */

/* Wakes the waiter every 50 us: by then it is asleep, most times. */
static void *waker_main(void *arg)
{
	struct futex_measure *s = arg;
	struct timespec ts = {0, 50000};

	for (int i = 0; i < SLEEP_CALLS; i++) {
		nanosleep(&ts, NULL);
		atomic_fetch_add(&s->word, 1);
		syscall(SYS_futex, &s->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

/*
 * The waiter: each FUTEX_WAIT that left the CPU and came back, and an
 * empty pair of clock readings beside it (their own cost, taken off).
 */
static void *sleeper_main(void *arg)
{
	struct futex_measure *s = arg;
	uint32_t tid = (uint32_t)syscall(SYS_gettid), seen = 0;
	const struct il_tclock_rec *r = il_tclock_register(s->c, tid);
	struct timespec limit = {0, 100000000}; /* a lost wake costs 100 ms, not a hang */
	double per[SLEEP_CALLS], empty[SLEEP_CALLS];
	int n = 0, ne = 0;
	pthread_t waker;

	if (!r) {
		snprintf(s->why, sizeof(s->why), "no on-CPU clock record for the measuring thread");
		return NULL;
	}
	if (pthread_create(&waker, NULL, waker_main, s) != 0) {
		snprintf(s->why, sizeof(s->why), "no thread to wake the measuring one");
		il_tclock_unregister(s->c, r, tid);
		return NULL;
	}
	while (seen < SLEEP_CALLS && n < SLEEP_CALLS) {
		uint64_t e0 = il_tclock_now(r, tid), e1 = il_tclock_now(r, tid);
		uint64_t l0 = il_tclock_lost(r), a0 = il_tclock_now(r, tid),
			 f0 = il_tclock_futex_ns(r), k0 = il_tclock_futex_calls(r),
			 s0 = il_tclock_futex_sleeps(r), a1;

		syscall(SYS_futex, &s->word, FUTEX_WAIT_PRIVATE, seen, &limit, NULL, 0);
		a1 = il_tclock_now(r, tid);
		if (e0 && e1 && ne < SLEEP_CALLS)
			empty[ne++] = (double)(e1 - e0);
		/* One call that slept, on one record throughout. */
		if (a0 && a1 && il_tclock_futex_calls(r) - k0 == 1 &&
		    il_tclock_futex_sleeps(r) - s0 == 1 && a1 - a0 >= il_tclock_futex_ns(r) - f0 &&
		    il_tclock_lost(r) == l0)
			per[n++] = (double)(a1 - a0 - (il_tclock_futex_ns(r) - f0));
		seen = atomic_load(&s->word);
	}
	pthread_join(waker, NULL);
	il_tclock_unregister(s->c, r, tid);
	if (n < SLEEP_MIN || !ne) {
		snprintf(s->why, sizeof(s->why),
			 "only %d of %d futex waits counted as one call that slept", n,
			 SLEEP_CALLS);
		return NULL;
	}
	qsort(per, (size_t)n, sizeof(per[0]), cmp_double);
	qsort(empty, (size_t)ne, sizeof(empty[0]), cmp_double);
	s->ns = per[n / 2] - empty[ne / 2];
	return NULL;
}

double il_tclock_futex_sleep_outside_ns(struct il_tclock *c, char *why, size_t len)
{
	return measure_in_thread(c, sleeper_main, why, len);
}

const char *il_tclock_futex_why(const struct il_tclock *c)
{
	return c->futex_why;
}

void il_tclock_close(struct il_tclock *c)
{
	if (!c)
		return;
	if (c->recs)
		munmap(c->recs, c->len);
	thread_clock_bpf__destroy(c->skel);
	free(c);
}

static int set_slot(struct il_tclock *c, uint32_t tid, uint32_t owner)
{
	uint32_t k = tid & (IL_TCLOCK_SLOTS - 1);
	struct il_tclock_rec v = {.tid = owner};

	return bpf_map_update_elem(bpf_map__fd(c->skel->maps.tclock), &k, &v, BPF_ANY);
}

const struct il_tclock_rec *il_tclock_register(struct il_tclock *c, uint32_t tid)
{
	const volatile struct il_tclock_rec *r = &c->recs[tid & (IL_TCLOCK_SLOTS - 1)];
	struct timespec ts = {0, 100000};

	if (!tid || r->tid || set_slot(c, tid, tid) < 0)
		return NULL;
	for (int i = 0; i < REGISTER_TRIES; i++) {
		/* The program fills in_ns when it next sees us switched in. */
		nanosleep(&ts, NULL);
		if (r->tid != tid)
			return NULL; /* a rival took the slot at the same time */
		if (r->in_ns)
			return (const struct il_tclock_rec *)r;
	}
	set_slot(c, tid, 0);
	return NULL;
}

void il_tclock_unregister(struct il_tclock *c, const struct il_tclock_rec *rec, uint32_t tid)
{
	if (c && rec && ((const volatile struct il_tclock_rec *)rec)->tid == tid)
		set_slot(c, tid, 0);
}
