#include "il_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Messages taken per lock acquisition: one lock pair per hop in the common case. */
#define DRAIN_BATCH 4

static void queue_readable_cb(uv_poll_t *h, int status, int events)
{
	struct il_queue *q = h->data;
	struct il_msg batch[DRAIN_BATCH];
	uint64_t n;

	/*
	 * Reset the eventfd, then clear the flag, then drain: a producer that
	 * saw the flag set pushed before we clear it, so the drain below finds
	 * its message; one that pushes after finds the flag clear and writes
	 * the eventfd again (at worst one empty wake-up).
	 */
	if (read(q->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	atomic_store(&q->wake_pending, 0);
	for (;;) {
		unsigned got = 0;

		/* Copied out so the lock is never held across the handler. */
		il_lock_lock(&q->lock);
		while (got < DRAIN_BATCH && il_msg_fifo_pop(&q->fifo, &batch[got]))
			got++;
		il_lock_unlock(&q->lock);
		for (unsigned i = 0; i < got; i++)
			q->cb(q->ctx, &batch[i]);
		/* A short batch emptied the ring; later pushes wake us again. */
		if (got < DRAIN_BATCH)
			return;
	}
}

int il_queue_init(struct il_queue *q, uv_loop_t *consumer, unsigned cap, unsigned max_cap,
		  enum il_lock_kind lock, il_queue_cb cb, void *ctx)
{
	int rc;

	memset(q, 0, sizeof(*q));
	q->efd = -1;
	if (il_msg_fifo_init(&q->fifo, cap, max_cap) < 0)
		return -ENOMEM;
	rc = il_lock_init(&q->lock, lock);
	if (rc < 0)
		goto err_ring;
	q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->efd < 0) {
		rc = -errno;
		goto err_lock;
	}
	q->cb = cb;
	q->ctx = ctx;
	rc = uv_poll_init(consumer, &q->poll, q->efd);
	if (rc < 0)
		goto err_fd;
	q->poll.data = q;
	rc = uv_poll_start(&q->poll, UV_READABLE, queue_readable_cb);
	if (rc < 0) {
		/* The handle exists now: it is released through close. */
		il_queue_close(q);
		return rc;
	}
	return 0;
err_fd:
	close(q->efd);
err_lock:
	il_lock_destroy(&q->lock);
err_ring:
	il_msg_fifo_free(&q->fifo);
	return rc;
}

int il_queue_push(struct il_queue *q, const struct il_msg *m)
{
	static const uint64_t one = 1;
	unsigned want;
	int rc;

	il_lock_lock(&q->lock);
	/* Full: grow into memory allocated and faulted in outside the lock
	 * (the consumer and other producers are not held up by malloc or page
	 * faults), then look again: another producer may have grown it. */
	while ((want = il_msg_fifo_wants(&q->fifo)) != 0) {
		struct il_msg *ring;

		il_lock_unlock(&q->lock);
		ring = malloc((size_t)want * sizeof(*ring));
		if (ring)
			memset(ring, 0, (size_t)want * sizeof(*ring));
		il_lock_lock(&q->lock);
		if (!ring) {
			q->fifo.dropped++;
			il_lock_unlock(&q->lock);
			return -ENOMEM;
		}
		ring = il_msg_fifo_grow_into(&q->fifo, ring, want);
		il_lock_unlock(&q->lock);
		free(ring);
		il_lock_lock(&q->lock);
	}
	rc = il_msg_fifo_push(&q->fifo, m);
	il_lock_unlock(&q->lock);
	if (rc < 0)
		return rc;
	/* One write per wake-up, however many messages it covers. */
	if (atomic_exchange(&q->wake_pending, 1) == 0 && write(q->efd, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

void il_queue_close(struct il_queue *q)
{
	if (q->fifo.ring && !uv_is_closing((uv_handle_t *)&q->poll))
		uv_close((uv_handle_t *)&q->poll, NULL);
}

void il_queue_free(struct il_queue *q)
{
	if (!q || !q->fifo.ring)
		return;
	il_lock_destroy(&q->lock);
	close(q->efd);
	il_msg_fifo_free(&q->fifo);
}
