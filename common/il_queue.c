#include "il_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void queue_async_cb(uv_async_t *a)
{
	struct il_queue *q = a->data;
	struct il_msg m;

	/* uv_async_send coalesces wakes, so drain everything that is there.
	 * The message is copied out so the lock is never held across the handler. */
	for (;;) {
		il_lock_lock(&q->lock);
		if (q->head == q->tail) {
			il_lock_unlock(&q->lock);
			return;
		}
		m = q->ring[q->tail & (q->cap - 1)];
		q->tail++;
		il_lock_unlock(&q->lock);
		q->cb(q->ctx, &m);
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
	q->ring = calloc(c, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	rc = il_lock_init(&q->lock, lock);
	if (rc < 0)
		goto err_ring;
	q->cap = c;
	q->cb = cb;
	q->ctx = ctx;
	rc = uv_async_init(consumer, &q->async, queue_async_cb);
	if (rc < 0)
		goto err_lock;
	q->async.data = q;
	return 0;
err_lock:
	il_lock_destroy(&q->lock);
err_ring:
	free(q->ring);
	q->ring = NULL;
	return rc;
}

int il_queue_push(struct il_queue *q, const struct il_msg *m)
{
	il_lock_lock(&q->lock);
	if (q->head - q->tail >= q->cap) {
		q->dropped++;
		il_lock_unlock(&q->lock);
		return -ENOBUFS;
	}
	q->ring[q->head & (q->cap - 1)] = *m;
	q->head++;
	il_lock_unlock(&q->lock);
	return uv_async_send(&q->async);
}

static void queue_closed_cb(uv_handle_t *h)
{
	struct il_queue *q = h->data;

	il_lock_destroy(&q->lock);
	free(q->ring);
	q->ring = NULL;
}

void il_queue_close(struct il_queue *q)
{
	if (q->ring && !uv_is_closing((uv_handle_t *)&q->async))
		uv_close((uv_handle_t *)&q->async, queue_closed_cb);
}
