/*
 * The physical floor of one hop: how long the bare primitives the chain
 * uses take to wake a waiting thread, measured without the harness.
 */
#ifndef IL_FLOOR_H
#define IL_FLOOR_H

#include <stddef.h>
#include <stdint.h>

enum il_floor_prim {
	IL_FLOOR_UV_ASYNC,    /* thread to thread: uv_async_send between two uv loops */
	IL_FLOOR_EVENTFD,     /* thread to thread: a bare eventfd */
	IL_FLOOR_UNIX_SOCKET, /* process to process: a Unix stream socket */
	IL_FLOOR_PRIM_COUNT
};

struct il_floor_cfg {
	enum il_floor_prim prim;
	int policy;	   /* SCHED_OTHER or SCHED_FIFO */
	int cpu_a, cpu_b;  /* sender and receiver CPU, -1 = not pinned */
	unsigned samples;
	uint64_t gap_us;   /* pause between messages, so the receiver sleeps each time */
};

struct il_floor_result {
	uint64_t n, p50_ns, p99_ns, max_ns;
};

const char *il_floor_prim_name(enum il_floor_prim p);

/*
 * One-way latency from the sender's timestamp to the receiver's first
 * instruction after waking. Returns 0 or -errno with one line in err
 * (-EPERM: SCHED_FIFO not allowed).
 */
int il_floor_measure(const struct il_floor_cfg *c, struct il_floor_result *out, char *err,
		     size_t errlen);

#endif
