/*
 * The in-process hop: a ring of messages guarded by a short lock, and a
 * wake-up of the consumer's uv_loop. Producers copy a message in and
 * release the lock before the wake; the consumer's loop drains the ring
 * and calls the handler once per message. No allocation after
 * il_queue_init while the consumer keeps up; a consumer that falls a
 * whole ring behind (a stalled thread) makes the ring double, allocated
 * outside the lock, up to max_cap (il_msg_fifo.h says why it grows).
 *
 * Why not uv_async_send: in libuv up to 1.44 (Debian 12's), the receiving
 * loop busy-waits (uv__async_spin, with sched_yield) while a sender is
 * between its two atomic steps. Under SCHED_FIFO a consumer of higher
 * priority than the producer, woken by the producer's own write on the same
 * CPU, preempts it inside that window and spins forever: sched_yield never
 * lets a lower priority run. The chain hands work to higher priorities at
 * nearly every hop, so this livelocked `--policy rt` runs. The wake here
 * is the same one system call (an eventfd write, coalesced by a flag),
 * polled by the consumer's loop, with no waiting on the producer at all.
 */
#ifndef IL_QUEUE_H
#define IL_QUEUE_H

#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "il_lock.h"
#include "il_msg.h"
#include "il_msg_fifo.h"

/* Every hop's first ring: 256 records (95 KB), 77 ms of clicks at the fastest pace. */
#define IL_QUEUE_CAP 256u

typedef void (*il_queue_cb)(void *ctx, struct il_msg *m);

struct il_queue {
	/* Producer-side state shares a cache line with the lock so a hop
	 * touches as few lines as possible; the consumer's handle sits apart. */
	_Alignas(64) struct il_lock lock;
	struct il_msg_fifo fifo;  /* guarded by lock */
	_Atomic int wake_pending; /* an eventfd write is outstanding */
	int efd;
	il_queue_cb cb;
	void *ctx;
	_Alignas(64) uv_poll_t poll;
};

/*
 * Initialises q on the consumer's loop (call from the consumer thread
 * before any producer runs). cap (the first ring) and max_cap are rounded
 * up to powers of two; lock is the kind of mutex guarding the ring
 * (--lock). Returns 0, -ENOMEM, -EINVAL, -errno of eventfd or a libuv
 * error.
 */
int il_queue_init(struct il_queue *q, uv_loop_t *consumer, unsigned cap, unsigned max_cap,
		  enum il_lock_kind lock, il_queue_cb cb, void *ctx);

/*
 * Copies m into the ring and wakes the consumer. Any thread. -ENOBUFS
 * when full at max_cap, -ENOMEM when the ring could not grow (both
 * counted in the fifo's dropped).
 */
int il_queue_push(struct il_queue *q, const struct il_msg *m);

/*
 * Closes the consumer's handle (consumer thread): nothing more is
 * delivered. The ring, its lock and its eventfd stay valid, so a producer
 * on another thread that pushes after this (a vblank callback racing the
 * stop) writes into memory that still exists and is simply never read.
 */
void il_queue_close(struct il_queue *q);

/*
 * Releases the ring, the lock and the eventfd. Call only once every
 * thread that could push or consume has been joined: freeing at close
 * let a producer still running push into freed memory. NULL-safe, and a
 * second call does nothing.
 */
void il_queue_free(struct il_queue *q);

#endif
