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
	/*
	 * The chain's own primitives, each received by a uv loop as the
	 * chain's threads receive a hop: an eventfd write polled by uv_poll
	 * (il_queue's wake-up), and a frame-sized write on a Unix stream
	 * socket polled by the receiving process's uv loop (a cross-process
	 * hop). These are what bench/overhead compares the harness with.
	 */
	IL_FLOOR_EVENTFD_UV_POLL,
	IL_FLOOR_UNIX_SOCKET_UV,
	IL_FLOOR_PRIM_COUNT
};

struct il_floor_cfg {
	enum il_floor_prim prim;
	int policy;	  /* SCHED_OTHER or SCHED_FIFO */
	int cpu_a, cpu_b; /* sender and receiver CPU, -1 = not pinned */
	/* SCHED_FIFO only: receiver priority minus sender priority. A higher
	 * receiver on the sender's CPU preempts it at the wake-up; an equal or
	 * lower one waits until the sender sleeps. */
	int prio_delta;
	unsigned samples;
	uint64_t gap_us; /* pause between messages, so the receiver sleeps each time */
};

struct il_floor_result {
	uint64_t n, p50_ns, p99_ns, max_ns;
};

struct il_hist;

const char *il_floor_prim_name(enum il_floor_prim p);

/*
 * One-way latency from the sender's timestamp to the receiver's first
 * instruction after waking. Returns 0 or -errno with one line in err
 * (-EPERM: SCHED_FIFO not allowed).
 */
int il_floor_measure(const struct il_floor_cfg *c, struct il_floor_result *out, char *err,
		     size_t errlen);

/* As il_floor_measure, adding every sample (ns) to h, for callers that
 * merge rounds or mix placements. */
int il_floor_measure_into(const struct il_floor_cfg *c, struct il_hist *h, char *err,
			  size_t errlen);

#endif
