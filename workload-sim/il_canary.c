#include "il_canary.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "il_clock.h"
#include "il_workers.h"

struct il_canary {
	struct il_canary_config cfg;
	struct il_workers *w; /* the one canary thread */

	/* Counters, written by the canary on every run and reset by the
	 * control thread; the lock is uncontended almost always. */
	pthread_mutex_t lock;
	uint64_t mark_ns, last_run_ns, next_due_ns;
	uint64_t max_gap_ns, waited_ns, wakeups;
};

static void canary_run(struct il_worker *self, void *ctx)
{
	struct il_canary *c = ctx;
	uint64_t period = c->cfg.period_ns, runs = 0, due;

	/* The default 50 us timer slack would read as lateness. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&c->lock);
	/*
	 * The first period runs from the mark (the gate opened then), not from
	 * this thread's first run: a canary whose CPU an RT thread held from
	 * the start was due all that while. Counted from its first run, such
	 * a canary (one CPU, rt --hog: 1 run in 597 ms) read cpu_share 0.993.
	 */
	due = (c->mark_ns ? c->mark_ns : il_now_ns()) + period;
	c->next_due_ns = due;
	pthread_mutex_unlock(&c->lock);

	/* Its own timer, not il_worker_sleep_until: the wake-up is the thing
	 * measured, and a stop waits at most one period. */
	while (!il_worker_stopping(self)) {
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
		pthread_mutex_unlock(&c->lock);
		il_worker_publish(self, ++runs);
	}
}

int il_canary_start(const struct il_canary_config *cfg, il_thread_init_fn init, void *init_ctx,
		    struct il_canary **out, char *err, size_t errlen)
{
	struct il_canary *c;
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
	pthread_mutex_init(&c->lock, NULL);
	/* Held until the counters start below: the first gap is counted from
	 * when the canary was set up, not from before its init. */
	struct il_workers_config wc = {
	    .threads = 1,
	    .role = IL_ROLE_CANARY,
	    .name = "il:canary",
	    .place = cfg->cpu >= 0 ? IL_WORKERS_ON_CPU : IL_WORKERS_ANYWHERE,
	    .cpu = cfg->cpu,
	    .init = init,
	    .init_ctx = init_ctx,
	    .run = canary_run,
	    .ctx = c,
	    .hold = true,
	};

	ret = il_workers_start(&wc, &c->w, err, errlen);
	if (ret < 0) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return ret;
	}
	il_canary_mark_start(c); /* opens the gate */
	*out = c;
	return 0;
}

int il_canary_tid(const struct il_canary *c)
{
	return il_workers_tid(c->w, 0);
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
	pthread_mutex_unlock(&c->lock);
	il_workers_mark(c->w);
}

void il_canary_get(struct il_canary *c, struct il_canary_stats *s)
{
	uint64_t now, max_gap, waited, wall;

	/*
	 * The clock is read under the lock: read before it, a caller held off
	 * its CPU on the way in (a starved CPU is what the canary is for) took
	 * a wall that ended before the lateness the canary added meanwhile,
	 * and waited_ms came out above wall_ms.
	 */
	pthread_mutex_lock(&c->lock);
	now = il_now_ns();
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
	    .cpu_ns = il_workers_cpu_ns(c->w, 0),
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
	/* Its period, as it ran: a report's reader says it from here, not
	 * from a default it assumes. */
	cJSON_AddNumberToObject(o, "interval_us", (double)c->cfg.period_ns / 1e3);
	/* The CPU it is pinned to; null when it may run on any (not a -1 to misread). */
	if (c->cfg.cpu >= 0)
		cJSON_AddNumberToObject(o, "cpu", c->cfg.cpu);
	else
		cJSON_AddNullToObject(o, "cpu");
	return o;
}

void il_canary_stop(struct il_canary *c)
{
	if (!c)
		return;
	il_workers_stop(c->w);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
