#include "il_canary.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "il_clock.h"

#define IL_CANARY_NAME "il:canary"


/*
 * New threads start as SCHED_OTHER whatever the creator is (a child's
 * control thread is SCHED_FIFO under RT policies): until init applies
 * the role's attributes, nothing runs at a priority nobody asked for.
 */
static void plain_thread_attr(pthread_attr_t *a)
{
	struct sched_param sp = { .sched_priority = 0 };

	pthread_attr_init(a);
	pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(a, SCHED_OTHER);
	pthread_attr_setschedparam(a, &sp);
}

struct il_canary {
	struct il_canary_config cfg;
	il_thread_init_fn init;
	void *init_ctx;
	pthread_t th;
	atomic_bool stop;
	_Atomic int tid;

	/* Start-up handshake. */
	pthread_mutex_t start_lock;
	pthread_cond_t start_cond;
	bool started;
	int start_err;
	char err[256];

	/* Counters, written by the canary on every run and reset by the
	 * control thread; the lock is uncontended almost always. */
	pthread_mutex_t lock;
	uint64_t mark_ns, last_run_ns, next_due_ns;
	uint64_t max_gap_ns, waited_ns, wakeups, cpu_base_ns, cpu_now_ns;
};

static void canary_run(struct il_canary *c)
{
	uint64_t period = c->cfg.period_ns;
	uint64_t due = il_now_ns() + period;

	pthread_mutex_lock(&c->lock);
	c->next_due_ns = due;
	pthread_mutex_unlock(&c->lock);

	while (!atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		struct timespec ts = il_ns_to_ts(due);
		uint64_t now, gap;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;
		now = il_now_ns();

		pthread_mutex_lock(&c->lock);
		/* A reset may have moved the window past this due time. */
		if (due < c->mark_ns)
			due = c->mark_ns;
		gap = now - c->last_run_ns;
		if (now > c->last_run_ns && gap > c->max_gap_ns)
			c->max_gap_ns = gap;
		if (now > due)
			c->waited_ns += now - due;
		c->wakeups++;
		c->last_run_ns = now;
		/* Periods slept through while starved are skipped: a canary
		 * that ran them back to back would look like a CPU hog. */
		due += period;
		if (due <= now)
			due += ((now - due) / period + 1) * period;
		c->next_due_ns = due;
		c->cpu_now_ns = il_thread_cpu_ns();
		pthread_mutex_unlock(&c->lock);
	}
}

static void *canary_main(void *arg)
{
	struct il_canary *c = arg;
	char err[256] = "";
	int ret = 0;

	atomic_store(&c->tid, il_gettid());
	ret = il_thread_pin_init(c->cfg.cpu, c->init, c->init_ctx, IL_ROLE_CANARY, IL_CANARY_NAME, err,
				 sizeof(err));
	/* The default 50 us timer slack would read as lateness. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	pthread_mutex_lock(&c->lock);
	c->mark_ns = c->last_run_ns = il_now_ns();
	c->cpu_base_ns = c->cpu_now_ns = il_thread_cpu_ns();
	pthread_mutex_unlock(&c->lock);

	pthread_mutex_lock(&c->start_lock);
	c->started = true;
	c->start_err = ret;
	snprintf(c->err, sizeof(c->err), "%s", err);
	pthread_cond_broadcast(&c->start_cond);
	pthread_mutex_unlock(&c->start_lock);

	if (ret == 0)
		canary_run(c);
	return NULL;
}

int il_canary_start(const struct il_canary_config *cfg, il_thread_init_fn init, void *init_ctx,
		    struct il_canary **out, char *err, size_t errlen)
{
	struct il_canary *c;
	pthread_attr_t attr;
	int ret;

	if (!cfg || !init || !out || cfg->cpu >= CPU_SETSIZE || cfg->cpu < -1) {
		snprintf(err, errlen, "bad canary configuration");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->cfg = *cfg;
	if (!c->cfg.period_ns)
		c->cfg.period_ns = il_ms_to_ns(1);
	c->init = init;
	c->init_ctx = init_ctx;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->start_lock, NULL);
	pthread_cond_init(&c->start_cond, NULL);

	plain_thread_attr(&attr);
	ret = -pthread_create(&c->th, &attr, canary_main, c);
	pthread_attr_destroy(&attr);
	if (ret < 0) {
		snprintf(err, errlen, "cannot start %s: %s", IL_CANARY_NAME, strerror(-ret));
		goto fail;
	}
	pthread_mutex_lock(&c->start_lock);
	while (!c->started)
		pthread_cond_wait(&c->start_cond, &c->start_lock);
	ret = c->start_err;
	pthread_mutex_unlock(&c->start_lock);
	if (ret < 0) {
		snprintf(err, errlen, "%s", c->err);
		pthread_join(c->th, NULL);
		goto fail;
	}
	*out = c;
	return 0;
fail:
	pthread_cond_destroy(&c->start_cond);
	pthread_mutex_destroy(&c->start_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return ret;
}

int il_canary_tid(const struct il_canary *c)
{
	return atomic_load(&((struct il_canary *)c)->tid);
}

void il_canary_mark_start(struct il_canary *c)
{
	uint64_t now = il_now_ns();

	pthread_mutex_lock(&c->lock);
	c->mark_ns = now;
	/* A stall in progress counts from the mark, not from before it. */
	c->last_run_ns = now;
	if (c->next_due_ns < now)
		c->next_due_ns = now;
	c->max_gap_ns = c->waited_ns = c->wakeups = 0;
	c->cpu_base_ns = c->cpu_now_ns;
	pthread_mutex_unlock(&c->lock);
}

void il_canary_get(struct il_canary *c, struct il_canary_stats *s)
{
	uint64_t now = il_now_ns(), max_gap, waited, wall;

	pthread_mutex_lock(&c->lock);
	wall = now - c->mark_ns;
	max_gap = c->max_gap_ns;
	waited = c->waited_ns;
	/* A canary starved right now has an open gap and is late already. */
	if (now > c->last_run_ns && now - c->last_run_ns > max_gap)
		max_gap = now - c->last_run_ns;
	if (now > c->next_due_ns)
		waited += now - c->next_due_ns;
	*s = (struct il_canary_stats){
		.max_stall_ms = il_ns_to_ms(max_gap),
		.wakeups = c->wakeups,
		.expected_wakeups = wall / c->cfg.period_ns,
		.waited_ns = waited,
		.cpu_ns = c->cpu_now_ns - c->cpu_base_ns,
		.wall_ns = wall,
	};
	pthread_mutex_unlock(&c->lock);
	if (waited > wall)
		waited = wall;
	s->cpu_share = wall ? 1.0 - (double)waited / (double)wall : 0.0;
}

cJSON *il_canary_stats_json(struct il_canary *c)
{
	struct il_canary_stats s;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	il_canary_get(c, &s);
	cJSON_AddNumberToObject(o, "max_stall_ms", s.max_stall_ms);
	cJSON_AddNumberToObject(o, "cpu_share", s.cpu_share);
	cJSON_AddNumberToObject(o, "wakeups", (double)s.wakeups);
	cJSON_AddNumberToObject(o, "expected_wakeups", (double)s.expected_wakeups);
	cJSON_AddNumberToObject(o, "waited_ms", il_ns_to_ms(s.waited_ns));
	cJSON_AddNumberToObject(o, "cpu_ms", il_ns_to_ms(s.cpu_ns));
	cJSON_AddNumberToObject(o, "wall_ms", il_ns_to_ms(s.wall_ns));
	cJSON_AddNumberToObject(o, "tid", il_canary_tid(c));
	cJSON_AddNumberToObject(o, "cpu", c->cfg.cpu);
	return o;
}

void il_canary_stop(struct il_canary *c)
{
	if (!c)
		return;
	atomic_store(&c->stop, true);
	pthread_join(c->th, NULL);
	pthread_cond_destroy(&c->start_cond);
	pthread_mutex_destroy(&c->start_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
