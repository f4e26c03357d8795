/*
 * il-workload: the orchestrator's child that carries what is not in the
 * hop chain: the background `load` threads and the `canary`. It is never
 * in the chain, so its threads compete with the pipeline only for CPU.
 *
 *   il-workload --load N [--canary-cpu C] + the options every child gets
 *               (--policy, --builtin-dir, --rttime-us, --parent-pid, ...;
 *               see common/il_child.h)
 *
 * The control channel (fd 3, common/il_ctl.h) is il_child's: "ready" once
 * the canary and every load thread have applied their policy attributes,
 * "start" resets the counters, "ping" gets "pong", and "stop" gets
 *   {"type":"stats","process":"il-workload",
 *    "canary":{max_stall_ms,cpu_share,wakeups,...},
 *    "load":{cpu_share,threads,per_thread:[...]}}
 * before the process exits 0. End of file on fd 3 exits at once.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_canary.h"
#include "il_child.h"
#include "il_load.h"
#include "il_parse.h"

#define PROG "il-workload"

struct wl {
	uint64_t load_threads;
	int canary_cpu;
	struct il_canary *canary;
	struct il_load *load;
};

static int wl_option(struct il_child *c, const char *name, const char *value)
{
	struct wl *w = il_child_data(c);
	uint64_t v;

	if (strcmp(name, "load") == 0)
		return il_parse_u64(value, 0, IL_LOAD_MAX_THREADS, &w->load_threads) < 0 ? -EINVAL
											 : 0;
	if (strcmp(name, "canary-cpu") == 0) {
		if (il_parse_u64(value, 0, CPU_SETSIZE - 1, &v) < 0)
			return -EINVAL;
		w->canary_cpu = (int)v;
		return 0;
	}
	return 1; /* not ours */
}

static void wl_start(struct il_child *c)
{
	struct wl *w = il_child_data(c);

	il_canary_mark_start(w->canary);
	if (w->load)
		il_load_mark_start(w->load);
}

/* The load is told to end (1024 busy threads would starve this thread's
 * own work here), the stats are taken up to that moment, then the threads
 * are joined. */
static void wl_stop(struct il_child *c, cJSON *stats)
{
	struct wl *w = il_child_data(c);
	cJSON *load;

	il_load_halt(w->load);
	cJSON_AddItemToObject(stats, "canary", il_canary_stats_json(w->canary));
	/*
	 * No load asked for: null, as the hog's is without a hog. A share of 0
	 * there was a figure nothing measured, and read as a load that got no
	 * CPU at all.
	 */
	load = w->load ? il_load_stats_json(w->load, 0) : cJSON_CreateNull();
	cJSON_AddItemToObject(stats, "load", load);
	il_load_stop(w->load);
	w->load = NULL;
	il_canary_stop(w->canary);
	w->canary = NULL;
}

int main(int argc, char **argv)
{
	static struct wl w = {.canary_cpu = -1};
	const struct il_child_hooks hooks = {
	    .start = wl_start,
	    .stop = wl_stop,
	    .option = wl_option,
	    .data = &w,
	};
	struct il_child *c = il_child_init(argc, argv, IL_PROC_WORKLOAD, &hooks);
	char err[256] = "";
	int ret;

	ret = il_canary_start(&(struct il_canary_config){.cpu = w.canary_cpu}, il_child_thread_init,
			      c, &w.canary, err, sizeof(err));
	if (ret < 0)
		il_child_fail(c, "%s", err);
	if (w.load_threads) {
		/* Pinned round-robin so every CPU carries load even while RT
		 * hogs keep the load balancer from moving anything. */
		ret = il_load_start(&(struct il_load_config){.threads = (unsigned)w.load_threads,
							     .pin = true,
							     .halt_word = il_child_halt_word(c)},
				    il_child_thread_init, c, &w.load, err, sizeof(err));
		if (ret < 0)
			il_child_fail(c, "%s", err);
	}
	il_child_ready(c);
	return il_child_run(c);
}
