#include "il_group.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "il_clock.h"

void il_group_init(struct il_group *g)
{
	pthread_condattr_t ca;

	memset(g, 0, sizeof(*g));
	CPU_ZERO(&g->cpus);
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
}

void il_group_destroy(struct il_group *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

int il_group_spawn(struct il_group *g, pthread_t *th, void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = 0 };
	pthread_attr_t a;
	int rc;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	rc = pthread_create(th, &a, fn, arg);
	pthread_attr_destroy(&a);
	return -rc;
}

void il_group_member_failed(struct il_group *g, int err, const char *msg)
{
	pthread_mutex_lock(&g->lock);
	if (!g->first_err) {
		g->first_err = err;
		snprintf(g->err, sizeof(g->err), "%s", msg);
	}
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void il_group_member_ready(struct il_group *g)
{
	cpu_set_t mine;

	pthread_mutex_lock(&g->lock);
	/* The policy may set its own affinity for the role: count what is in force. */
	if (sched_getaffinity(0, sizeof(mine), &mine) == 0)
		CPU_OR(&g->cpus, &g->cpus, &mine);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->go && !atomic_load(&g->stop))
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

int il_group_wait_ready(struct il_group *g, unsigned created, char *err, size_t errlen)
{
	int rc = 0;

	pthread_mutex_lock(&g->lock);
	while (g->ready < created)
		pthread_cond_wait(&g->cond, &g->lock);
	if (g->first_err) {
		rc = g->first_err;
		snprintf(err, errlen, "%s", g->err);
	}
	pthread_mutex_unlock(&g->lock);
	return rc;
}

void il_group_open(struct il_group *g)
{
	pthread_mutex_lock(&g->lock);
	g->go = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void il_group_stop(struct il_group *g)
{
	atomic_store(&g->stop, true);
	pthread_mutex_lock(&g->lock);
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

void il_group_sleep_until(struct il_group *g, uint64_t abs_ns)
{
	struct timespec ts = il_ns_to_ts(abs_ns);

	pthread_mutex_lock(&g->lock);
	while (!atomic_load(&g->stop) && il_now_ns() < abs_ns)
		if (pthread_cond_timedwait(&g->cond, &g->lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&g->lock);
}

int il_cpu_nth(const cpu_set_t *allowed, unsigned i)
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
