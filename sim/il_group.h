/*
 * A gated group of worker threads (the JS hogs, the background load): each
 * member starts as SCHED_OTHER, applies its role, reports ready (or its
 * error) and waits at the gate; the starter waits for all of them, then
 * opens the gate. So an RT member cannot starve the creation of the next
 * one, and a failed member fails the whole start with its one-line reason.
 */
#ifndef IL_GROUP_H
#define IL_GROUP_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct il_group {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* CLOCK_MONOTONIC, so members can sleep on it */
	unsigned ready;
	int first_err;
	char err[256];
	bool go;
	atomic_bool stop;
	cpu_set_t cpus; /* the union of the members' affinity in force */
};

void il_group_init(struct il_group *g);
void il_group_destroy(struct il_group *g);

/*
 * Creates a member thread as SCHED_OTHER, whatever the caller's class (a
 * child's control thread is FIFO under RT policies): until the member
 * applies its role, nothing runs at a priority nobody asked for.
 * Returns 0 or -errno.
 */
int il_group_spawn(struct il_group *g, pthread_t *th, void *(*fn)(void *), void *arg);

/* Member: its set-up failed (first error wins); it must return after this. */
void il_group_member_failed(struct il_group *g, int err, const char *msg);

/* Member: set up; records its affinity, then waits until the gate opens or the group stops. */
void il_group_member_ready(struct il_group *g);

/*
 * Starter: waits until `created` members reported. Returns 0 or the first
 * member's error, with its message in err.
 */
int il_group_wait_ready(struct il_group *g, unsigned created, char *err, size_t errlen);

/* Opens the gate: the members start working. */
void il_group_open(struct il_group *g);

/* Tells every member to stop (the caller joins them). */
void il_group_stop(struct il_group *g);

static inline bool il_group_stopping(struct il_group *g)
{
	return atomic_load_explicit(&g->stop, memory_order_relaxed);
}

/* Member: sleeps until abs_ns (CLOCK_MONOTONIC) unless the group stops first. */
void il_group_sleep_until(struct il_group *g, uint64_t abs_ns);

/* The i-th CPU of allowed, modulo its size (round-robin placement); -1 if empty. */
int il_cpu_nth(const cpu_set_t *allowed, unsigned i);

#endif
