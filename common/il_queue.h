/*
 * The in-process hop: a preallocated ring of messages guarded by a short
 * lock, plus uv_async_send to wake the consumer's loop. Producers copy a
 * message in and release the lock before the wake; the consumer's loop
 * drains the ring and calls the handler once per message. No allocation
 * after il_queue_init.
 */
#ifndef IL_QUEUE_H
#define IL_QUEUE_H

#include <stdint.h>
#include <uv.h>

#include "il_lock.h"
#include "il_msg.h"

typedef void (*il_queue_cb)(void *ctx, struct il_msg *m);

struct il_queue {
	/* The producer-written fields share a cache line with the lock so a
	 * hop touches as few lines as possible; the async handle sits apart. */
	_Alignas(64) struct il_lock lock;
	uint32_t head, tail, cap;
	uint64_t dropped;
	struct il_msg *ring;
	il_queue_cb cb;
	void *ctx;
	_Alignas(64) uv_async_t async;
};

/*
 * Initialises q on the consumer's loop (call from the consumer thread
 * before any producer runs). cap is rounded up to a power of two; lock is
 * the kind of mutex guarding the ring (--lock). Returns 0, -ENOMEM, -EINVAL
 * or a libuv error.
 */
int il_queue_init(struct il_queue *q, uv_loop_t *consumer, unsigned cap, enum il_lock_kind lock,
		  il_queue_cb cb, void *ctx);

/* Copies m into the ring and wakes the consumer. Any thread. -ENOBUFS when full. */
int il_queue_push(struct il_queue *q, const struct il_msg *m);

/* Closes the async handle (consumer thread); the ring is freed in close_cb's wake. */
void il_queue_close(struct il_queue *q);

#endif
