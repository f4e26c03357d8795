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
		while (got < DRAIN_BATCH && q->tail != q->head)
			batch[got++] = q->ring[q->tail++ & (q->cap - 1)];
		il_lock_unlock(&q->lock);
		for (unsigned i = 0; i < got; i++)
			q->cb(q->ctx, &batch[i]);
		/* A short batch emptied the ring; later pushes wake us again. */
		if (got < DRAIN_BATCH)
			return;
	}
}

int il_queue_init(struct il_queue *q, uv_loop_t *consumer, unsigned cap, enum il_lock_kind lock,
		  il_queue_cb cb, void *ctx)
{
	unsigned c = 1;
	int rc;

	while (c < cap)
		c <<= 1;
	memset(q, 0, sizeof(*q));
	q->efd = -1;
	q->ring = calloc(c, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	rc = il_lock_init(&q->lock, lock);
	if (rc < 0)
		goto err_ring;
	q->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->efd < 0) {
		rc = -errno;
		goto err_lock;
	}
	q->cap = c;
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
	free(q->ring);
	q->ring = NULL;
	return rc;
}

int il_queue_push(struct il_queue *q, const struct il_msg *m)
{
	static const uint64_t one = 1;

	il_lock_lock(&q->lock);
	if (q->head - q->tail >= q->cap) {
		q->dropped++;
		il_lock_unlock(&q->lock);
		return -ENOBUFS;
	}
	q->ring[q->head & (q->cap - 1)] = *m;
	q->head++;
	il_lock_unlock(&q->lock);
	/* One write per wake-up, however many messages it covers. */
	if (atomic_exchange(&q->wake_pending, 1) == 0 && write(q->efd, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

void il_queue_close(struct il_queue *q)
{
	if (q->ring && !uv_is_closing((uv_handle_t *)&q->poll))
		uv_close((uv_handle_t *)&q->poll, NULL);
}

void il_queue_free(struct il_queue *q)
{
	if (!q || !q->ring)
		return;
	il_lock_destroy(&q->lock);
	close(q->efd);
	free(q->ring);
	q->ring = NULL;
}
