/*
 * bench/hop-cost: user-space instructions of one hop's machinery, handler
 * excluded, for counting under callgrind (which counts instructions, not
 * time, so the figure is stable on a noisy machine):
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/hop-cost MODE N
 *
 * MODE: loop   N turns of an idle uv_run(UV_RUN_NOWAIT) (the baseline)
 *       queue  N in-process hops: il_queue_push, then the consumer's turn
 *       async  N bare uv_async_send + turn (libuv's own wake-up path)
 *       frame  N cross-process hops' user-space part: encode + write a frame
 *              on a socketpair, then read, reassemble and decode it
 * Instructions per hop = (Ir(MODE) - Ir(loop)) / N. scripts/hop-cost runs
 * all four and prints the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uv.h>

#include "il_bench.h"
#include "il_ctl.h"
#include "il_parse.h"
#include "il_queue.h"

static uint64_t handled;

static void on_msg(void *ctx, struct il_msg *m)
{
	handled++;
}

static void on_async(uv_async_t *a)
{
	handled++;
}

static void on_frame(void *ctx, const struct il_frame *f, const struct il_msg *m, cJSON *json)
{
	handled++;
}

static void on_eof(void *ctx, int status)
{
}

int main(int argc, char **argv)
{
	uv_loop_t loop;
	struct il_queue q;
	uv_async_t async;
	uv_pipe_t a, b;
	struct il_frame_reader *reader = NULL;
	struct il_msg m;
	uint64_t n;
	int sv[2];

	il_bench_stdout_checked("hop-cost");
	/* Each refusal names the argument and why (a bare usage line did not). */
	if (argc < 3) {
		fprintf(stderr, "hop-cost: %s (usage: hop-cost loop|queue|async|frame N)\n",
			argc < 2 ? "no MODE and N given" : "no N given");
		return 2;
	}
	if (argc > 3) {
		fprintf(
		    stderr,
		    "hop-cost: unexpected argument '%s' (usage: hop-cost loop|queue|async|frame "
		    "N)\n",
		    argv[3]);
		return 2;
	}
	if (strcmp(argv[1], "loop") && strcmp(argv[1], "queue") && strcmp(argv[1], "async") &&
	    strcmp(argv[1], "frame")) {
		fprintf(stderr, "hop-cost: unknown mode '%s' (loop, queue, async, frame)\n",
			argv[1]);
		return 2;
	}
	if (il_parse_u64(argv[2], 1, 100000000, &n) < 0) {
		fprintf(stderr, "hop-cost: N '%s' is not a count of hops (1..100000000)\n",
			argv[2]);
		return 2;
	}
	memset(&m, 0, sizeof(m));
	uv_loop_init(&loop);
	if (strcmp(argv[1], "queue") == 0) {
		il_queue_init(&q, &loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX, IL_LOCK_PTHREAD, on_msg,
			      NULL);
		for (uint64_t i = 0; i < n; i++) {
			il_queue_push(&q, &m);
			uv_run(&loop, UV_RUN_NOWAIT);
		}
	} else if (strcmp(argv[1], "async") == 0) {
		uv_async_init(&loop, &async, on_async);
		for (uint64_t i = 0; i < n; i++) {
			uv_async_send(&async);
			uv_run(&loop, UV_RUN_NOWAIT);
		}
	} else if (strcmp(argv[1], "frame") == 0) {
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		uv_pipe_init(&loop, &a, 0);
		uv_pipe_init(&loop, &b, 0);
		uv_pipe_open(&a, sv[0]);
		uv_pipe_open(&b, sv[1]);
		il_frame_reader_start((uv_stream_t *)&b, on_frame, on_eof, NULL, &reader);
		for (uint64_t i = 0; i < n; i++) {
			il_frame_send_event((uv_stream_t *)&a, &m);
			uv_run(&loop, UV_RUN_NOWAIT);
		}
	} else if (strcmp(argv[1], "loop") == 0) {
		uv_async_init(&loop, &async, on_async);
		for (uint64_t i = 0; i < n; i++)
			uv_run(&loop, UV_RUN_NOWAIT);
	} else {
		fprintf(stderr, "hop-cost: unknown mode '%s' (loop, queue, async, frame)\n",
			argv[1]);
		return 2;
	}
	printf("%s: %llu handled of %llu\n", argv[1], (unsigned long long)handled,
	       (unsigned long long)n);
	return handled == n || strcmp(argv[1], "loop") == 0 ? 0 : 1;
}
