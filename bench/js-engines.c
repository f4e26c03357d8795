/*
 * js-engines: the measurement behind the JavaScript hog's engine (issue
 * 15): Debian's two small embeddable engines, libmujs and duktape, run the
 * hog's script (render-sim/js/miner.js) the way the hog runs it, one
 * tick() call at a time. For each: load time, heap after load, time per
 * tick and hashes per second, the heap's peak over many ticks (does the
 * garbage stay bounded), how a runaway script meets a memory cap, and what
 * a syntax error says. Prints figures; it is a benchmark, not a test.
 *
 *   build/bench/js-engines [render-sim/js/miner.js] [ticks]
 */
#include <duktape.h>
#include <mujs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "il_bench.h"
#include "il_parse.h"

#define CAP_BYTES (16u << 20)

struct heap {
	size_t used, peak, cap;
	unsigned failed;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A size header in front of every block, so that frees can be counted. */
static void *heap_realloc(struct heap *h, void *ptr, size_t size)
{
	size_t old = 0;
	char *p = ptr ? (char *)ptr - 16 : NULL;

	if (p)
		memcpy(&old, p, sizeof(old));
	if (size == 0) {
		free(p);
		h->used -= old;
		return NULL;
	}
	if (h->used - old + size > h->cap) {
		h->failed++;
		return NULL;
	}
	p = realloc(p, size + 16);
	if (!p)
		return NULL;
	memcpy(p, &size, sizeof(size));
	h->used = h->used - old + size;
	if (h->used > h->peak)
		h->peak = h->used;
	return p + 16;
}

static void *mujs_alloc(void *ctx, void *ptr, int size)
{
	return heap_realloc(ctx, ptr, size < 0 ? 0 : (size_t)size);
}

static void *duk_alloc_fn(void *ctx, duk_size_t size)
{
	return size ? heap_realloc(ctx, NULL, size) : NULL;
}

static void *duk_realloc_fn(void *ctx, void *ptr, duk_size_t size)
{
	return heap_realloc(ctx, ptr, size);
}

static void duk_free_fn(void *ctx, void *ptr)
{
	if (ptr)
		heap_realloc(ctx, ptr, 0);
}

static void duk_fatal_fn(void *ctx, const char *msg)
{
	fprintf(stderr, "duktape fatal: %s\n", msg ? msg : "?");
	abort();
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char bad_script[] = "function tick() {\n  var x = 1;\n  return x +;\n}\n";
static const char runaway[] =
    "var keep = [];\n"
    "function tick() { for (var i = 0; i < 1000; i++) keep.push({ i: i, s: 'x' + i }); }\n";

/* --- mujs ------------------------------------------------------------- */
static int mujs_tick(js_State *J)
{
	js_getglobal(J, "tick");
	js_pushundefined(J);
	if (js_pcall(J, 0)) {
		js_pop(J, 1);
		return -1;
	}
	js_pop(J, 1);
	return 0;
}

static void bench_mujs(const char *src, long ticks)
{
	struct heap h = {.cap = CAP_BYTES};
	uint64_t t0 = now_ns(), t1, t2;
	js_State *J = js_newstate(mujs_alloc, &h, JS_STRICT);

	if (js_ploadstring(J, "miner.js", src) || (js_pushundefined(J), js_pcall(J, 0))) {
		printf("mujs: load failed: %s\n", js_trystring(J, -1, "?"));
		return;
	}
	js_pop(J, 1);
	t1 = now_ns();
	size_t after_load = h.used;
	for (long i = 0; i < ticks / 10; i++) /* warm-up */
		mujs_tick(J);
	h.peak = h.used;
	t2 = now_ns();
	for (long i = 0; i < ticks; i++)
		if (mujs_tick(J) < 0) {
			printf("mujs: tick failed\n");
			break;
		}
	uint64_t t3 = now_ns();
	printf("mujs %s: load %.2f ms, heap after load %zu KiB, %.1f us per tick (%.0f hashes/s), "
	       "heap peak over %ld ticks %zu KiB, now %zu KiB\n",
	       "1.3.2", (t1 - t0) / 1e6, after_load >> 10, (t3 - t2) / 1e3 / (double)ticks,
	       2.0 * (double)ticks / ((t3 - t2) / 1e9), ticks, h.peak >> 10, h.used >> 10);
	js_freestate(J);
	(void)t2;

	J = js_newstate(mujs_alloc, &h, JS_STRICT);
	if (js_ploadstring(J, "bad.js", bad_script))
		printf("mujs syntax error: %s\n", js_trystring(J, -1, "?"));
	js_freestate(J);

	struct heap cap = {.cap = CAP_BYTES};
	J = js_newstate(mujs_alloc, &cap, JS_STRICT);
	if (!js_ploadstring(J, "runaway.js", runaway) && (js_pushundefined(J), !js_pcall(J, 0))) {
		long i = 0;

		js_pop(J, 1);
		while (i < 100000 && mujs_tick(J) == 0)
			i++;
		printf("mujs runaway under a %u MiB cap: stopped after %ld ticks, %u refused "
		       "allocations, heap %zu KiB, peak %zu KiB: %s\n",
		       CAP_BYTES >> 20, i, cap.failed, cap.used >> 10, cap.peak >> 10,
		       i < 100000 ? "error caught, state usable" : "never hit the cap");
	}
	js_freestate(J);
}

/* --- duktape ---------------------------------------------------------- */
static int duk_tick(duk_context *ctx)
{
	int rc;

	duk_get_global_string(ctx, "tick");
	rc = duk_pcall(ctx, 0);
	duk_pop(ctx);
	return rc == DUK_EXEC_SUCCESS ? 0 : -1;
}

static void bench_duktape(const char *src, long ticks)
{
	struct heap h = {.cap = CAP_BYTES};
	uint64_t t0 = now_ns(), t1, t2, t3;
	duk_context *ctx =
	    duk_create_heap(duk_alloc_fn, duk_realloc_fn, duk_free_fn, &h, duk_fatal_fn);

	duk_push_string(ctx, "miner.js");
	if (duk_pcompile_string_filename(ctx, 0, src) || duk_pcall(ctx, 0)) {
		printf("duktape: load failed: %s\n", duk_safe_to_string(ctx, -1));
		return;
	}
	duk_pop(ctx);
	t1 = now_ns();
	size_t after_load = h.used;
	for (long i = 0; i < ticks / 10; i++)
		duk_tick(ctx);
	h.peak = h.used;
	t2 = now_ns();
	for (long i = 0; i < ticks; i++)
		if (duk_tick(ctx) < 0) {
			printf("duktape: tick failed\n");
			break;
		}
	t3 = now_ns();
	printf("duktape %ld: load %.2f ms, heap after load %zu KiB, %.1f us per tick (%.0f "
	       "hashes/s), heap peak over %ld ticks %zu KiB, now %zu KiB\n",
	       (long)DUK_VERSION, (t1 - t0) / 1e6, after_load >> 10,
	       (t3 - t2) / 1e3 / (double)ticks, 2.0 * (double)ticks / ((t3 - t2) / 1e9), ticks,
	       h.peak >> 10, h.used >> 10);
	duk_destroy_heap(ctx);

	ctx = duk_create_heap(duk_alloc_fn, duk_realloc_fn, duk_free_fn, &h, duk_fatal_fn);
	duk_push_string(ctx, "bad.js");
	if (duk_pcompile_string_filename(ctx, 0, bad_script))
		printf("duktape syntax error: %s\n", duk_safe_to_string(ctx, -1));
	duk_destroy_heap(ctx);

	struct heap cap = {.cap = CAP_BYTES};
	ctx = duk_create_heap(duk_alloc_fn, duk_realloc_fn, duk_free_fn, &cap, duk_fatal_fn);
	duk_push_string(ctx, "runaway.js");
	if (!duk_pcompile_string_filename(ctx, 0, runaway) && !duk_pcall(ctx, 0)) {
		long i = 0;

		duk_pop(ctx);
		while (i < 100000 && duk_tick(ctx) == 0)
			i++;
		printf("duktape runaway under a %u MiB cap: stopped after %ld ticks, %u refused "
		       "allocations, heap %zu KiB, peak %zu KiB: %s\n",
		       CAP_BYTES >> 20, i, cap.failed, cap.used >> 10, cap.peak >> 10,
		       i < 100000 ? "error caught, state usable" : "never hit the cap");
	}
	duk_destroy_heap(ctx);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "render-sim/js/miner.js";
	uint64_t ticks = 20000;
	char *src;

	il_bench_stdout_checked("js-engines");
	/* Options first: '--help' was read as the script's path. */
	if (argc > 1 && argv[1][0] == '-') {
		if (strcmp(argv[1], "--help") != 0) {
			fprintf(stderr, "js-engines: unknown option '%.40s' (see --help)\n",
				argv[1]);
			return 2;
		}
		if (argc > 2) {
			fprintf(stderr, "js-engines: unexpected argument '%.40s' (see --help)\n",
				argv[2]);
			return 2;
		}
		printf("Usage: js-engines [SCRIPT] [TICKS]\n"
		       "  libmujs against duktape on the JS hog's script (default\n"
		       "  render-sim/js/miner.js), TICKS tick() calls each (default 20000,\n"
		       "  1..100000000): load time, heap, time per tick, heap peak, a runaway\n"
		       "  under a %u MiB cap, a syntax error\n",
		       CAP_BYTES >> 20);
		return 0;
	}
	if (argc > 3) {
		fprintf(stderr, "js-engines: unexpected argument '%s' (want [SCRIPT] [TICKS])\n",
			argv[3]);
		return 2;
	}
	/* Per-tick figures divide by it: 0, a sign or a word would print inf or garbage. */
	if (argc > 2 && il_parse_u64(argv[2], 1, 100000000, &ticks) < 0) {
		fprintf(stderr, "js-engines: TICKS '%.40s': want a whole number 1..100000000\n",
			argv[2]);
		return 2;
	}
	src = slurp(path);
	if (!src) {
		fprintf(stderr, "js-engines: cannot read %s\n", path);
		return 2;
	}
	for (int round = 0; round < 3; round++) {
		bench_mujs(src, (long)ticks);
		bench_duktape(src, (long)ticks);
	}
	free(src);
	return 0;
}
