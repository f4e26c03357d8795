#include "il_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "il_clock.h"

/* Compile-job shape; see the header. */
#define SLICE_MIN_NS 2000000ull
#define SLICE_MAX_NS 10000000ull
#define SLEEP_MIN_NS 500000ull
#define SLEEP_MAX_NS 2000000ull
#define SLEEP_ONE_IN 4

struct il_load {
	struct il_workers *w;
};

static void load_run(struct il_worker *self, void *ctx)
{
	uint64_t rng = 0x2545f4914f6cdd1dull * (il_worker_index(self) + 1), x = rng, slices = 0;
	volatile uint64_t sink;

	while (!il_worker_stopping(self)) {
		uint64_t want = il_workers_rand_between(&rng, SLICE_MIN_NS, SLICE_MAX_NS);
		uint64_t start = il_worker_publish(self, slices), now = start;

		while (now - start < want && !il_worker_stopping(self)) {
			x = il_workers_chunk(x);
			now = il_worker_publish(self, slices);
		}
		il_worker_publish(self, ++slices);
		if (il_workers_rand(&rng) % SLEEP_ONE_IN == 0) {
			uint64_t nap_ns = il_workers_rand_between(&rng, SLEEP_MIN_NS, SLEEP_MAX_NS);

			il_worker_sleep_until(self, il_now_ns() + nap_ns);
		}
	}
	sink = x;
	(void)sink;
}

int il_load_start(const struct il_load_config *c, il_thread_init_fn init, void *init_ctx,
		  struct il_load **out, char *err, size_t errlen)
{
	struct il_load *l;
	int ret;

	if (!c || !init || !out || c->threads == 0 || c->threads > IL_LOAD_MAX_THREADS) {
		snprintf(err, errlen, "bad load configuration (threads 1..%u)",
			 IL_LOAD_MAX_THREADS);
		return -EINVAL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct il_workers_config wc = {
	    .threads = c->threads,
	    .role = IL_ROLE_LOAD,
	    .name = "il:load",
	    .indexed = true,
	    .place = c->pin ? IL_WORKERS_SPREAD : IL_WORKERS_ANYWHERE,
	    .init = init,
	    .init_ctx = init_ctx,
	    .run = load_run,
	    .units_name = "slices",
	    /* Held until the run starts: 1024 busy threads during the start
	     * made each of its hand-shakes wait about 0.8 s for a CPU. */
	    .hold = true,
	    .halt_word = c->halt_word,
	};

	ret = il_workers_start(&wc, &l->w, err, errlen);
	if (ret < 0) {
		free(l);
		return ret;
	}
	*out = l;
	return 0;
}

void il_load_mark_start(struct il_load *l)
{
	il_workers_mark(l->w);
}

double il_load_cpu_share(const struct il_load *l, uint64_t wall_ns)
{
	return il_workers_cpu_share(l->w, wall_ns);
}

cJSON *il_load_stats_json(const struct il_load *l, uint64_t wall_ns)
{
	return il_workers_stats_json(l->w, wall_ns);
}

void il_load_halt(struct il_load *l)
{
	if (l)
		il_workers_halt(l->w);
}

void il_load_stop(struct il_load *l)
{
	if (!l)
		return;
	il_workers_stop(l->w);
	free(l);
}
