#include "il_sampler.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_procfs.h"
#include "il_sched.h"

static const char CANARY_WAIT[] = "canary run-queue wait (ms per 100 ms)";
/* Of the CPUs the hogs may use, as the report's hog.cpu_share. */
static const char HOG_SHARE[] = "hog CPU share (% of their CPUs)";

struct tracked {
	int pid, tid;
	int is_canary;
	uint64_t on_cpu_ns, wait_ns;
};

struct il_sampler {
	/* Every canary and js thread (--hog takes up to 1024): a fixed 64
	 * left the rest out of the hog share the trace showed. */
	struct tracked *t;
	int n, nhogs;
	int hog_cpus; /* the union of the hogs' affinity masks, counted */
	uint64_t last_ns;
	struct il_trace_counter *ctr;
	size_t nctr, cap;
	/* Per canary sample: its interval, the wait put in it, its counter. */
	struct canary_interval {
		uint64_t wall_ns, wait_ns;
		size_t ctr;
	} * cw;
	size_t ncw;
};

static int read_schedstat(const struct tracked *t, uint64_t *on_cpu, uint64_t *wait)
{
	return il_procfs_schedstat(t->pid, t->tid, on_cpu, wait, NULL);
}

struct il_sampler *il_sampler_new(const cJSON *threads, int cpus_allowed, size_t max_samples)
{
	struct il_sampler *s = calloc(1, sizeof(*s));
	const cJSON *t;
	cpu_set_t hogs;
	int masks = 1; /* every hog's mask read back */

	if (!s)
		return NULL;
	CPU_ZERO(&hogs);
	s->t = calloc((size_t)cJSON_GetArraySize(threads) + 1, sizeof(*s->t));
	if (!s->t) {
		free(s);
		return NULL;
	}
	cJSON_ArrayForEach (t, threads) {
		const char *role =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "role"));

		if (!role || (strcmp(role, "canary") && strcmp(role, "js")))
			continue;
		s->t[s->n].pid =
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "pid"));
		s->t[s->n].tid =
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "tid"));
		s->t[s->n].is_canary = strcmp(role, "canary") == 0;
		if (!s->t[s->n].is_canary) {
			const char *cpus =
			    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "cpus"));
			cpu_set_t one;

			s->nhogs++;
			if (cpus && il_cpuset_parse(cpus, &one) == 0)
				CPU_OR(&hogs, &hogs, &one);
			else
				masks = 0;
		}
		read_schedstat(&s->t[s->n], &s->t[s->n].on_cpu_ns, &s->t[s->n].wait_ns);
		s->n++;
	}
	/* Hogs pinned to fewer CPUs than the machine has: a share of the
	 * machine would understate theirs by that ratio. A mask not read
	 * back leaves the whole machine (what the hogs may use at most). */
	s->hog_cpus = masks && CPU_COUNT(&hogs) ? CPU_COUNT(&hogs)
		      : cpus_allowed > 0	? cpus_allowed
						: 1;
	s->cap = max_samples;
	s->ctr = calloc(s->cap, sizeof(*s->ctr));
	s->cw = calloc(s->cap, sizeof(*s->cw));
	if (!s->n || !s->ctr || !s->cw) {
		il_sampler_free(s);
		return NULL;
	}
	return s;
}

void il_sampler_free(struct il_sampler *s)
{
	if (!s)
		return;
	free(s->ctr);
	free(s->cw);
	free(s->t);
	free(s);
}

/* A sample of the interval [from, to), stamped at its start: a Chrome
 * counter holds a value from its ts on. */
static int add(struct il_sampler *s, uint64_t from, uint64_t to, const char *name, double v)
{
	if (s->nctr >= s->cap)
		return -1;
	s->ctr[s->nctr++] =
	    (struct il_trace_counter){.ts_ns = from, .name = name, .value = v, .end_ns = to};
	return 0;
}

static double per_100ms(const struct canary_interval *c)
{
	return (double)c->wait_ns / 1e6 * (1e8 / (double)c->wall_ns);
}

/*
 * The canary's run-queue wait that ended in the interval just sampled.
 * The kernel adds a wait to run_delay when it ends, so a 900 ms stall
 * read 0 for eight samples and then 900 ms in one 100 ms interval. It
 * is laid back from the interval's end over this interval and those
 * before it, none given more than its own length: where the wait was,
 * to within the interval it ended in. What reaches past the first sample
 * began before sampling did and is left out.
 */
static void canary_wait(struct il_sampler *s, uint64_t now_ns, uint64_t wall, uint64_t wait)
{
	struct canary_interval *c;
	uint64_t reach;

	if (s->ncw >= s->cap || add(s, now_ns - wall, now_ns, CANARY_WAIT, 0) < 0)
		return;
	c = &s->cw[s->ncw++];
	*c = (struct canary_interval){.wall_ns = wall, .ctr = s->nctr - 1};
	/* It ended after the last sample, so began at most wait + wall ago. */
	reach = wait + wall;
	for (size_t i = s->ncw; i-- > 0 && wait && reach;) {
		uint64_t take = s->cw[i].wall_ns - s->cw[i].wait_ns;

		reach -= reach < s->cw[i].wall_ns ? reach : s->cw[i].wall_ns;
		take = take < wait ? take : wait;
		s->cw[i].wait_ns += take;
		wait -= take;
		s->ctr[s->cw[i].ctr].value = per_100ms(&s->cw[i]);
	}
}

void il_sampler_tick(struct il_sampler *s, uint64_t now_ns)
{
	uint64_t hog_cpu = 0, waited = 0, wall = now_ns - s->last_ns;
	int have_canary = 0;

	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		uint64_t on, wait;

		if (read_schedstat(&s->t[i], &on, &wait) < 0)
			continue;
		if (s->t[i].is_canary) {
			waited += wait - s->t[i].wait_ns;
			have_canary = 1;
		} else {
			hog_cpu += on - s->t[i].on_cpu_ns;
		}
		s->t[i].on_cpu_ns = on;
		s->t[i].wait_ns = wait;
	}
	if (s->last_ns && wall) {
		if (have_canary)
			canary_wait(s, now_ns, wall, waited);
		if (s->nhogs)
			add(s, s->last_ns, now_ns, HOG_SHARE,
			    100.0 * (double)hog_cpu / ((double)wall * s->hog_cpus));
	}
	s->last_ns = now_ns;
}

const struct il_trace_counter *il_sampler_counters(const struct il_sampler *s, size_t *n)
{
	*n = s ? s->nctr : 0;
	return s ? s->ctr : NULL;
}
