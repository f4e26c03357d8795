/* The in-process hop queue: order, no loss, wake-ups across threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <uv.h>

#include "il_queue.h"

#define PRODUCERS    3
#define PER_PRODUCER 20000

struct consumer {
	uv_loop_t loop;
	struct il_queue q;
	uv_async_t done;
	uint64_t next[PRODUCERS];
	uint64_t received;
	int out_of_order;
};

static void on_msg(void *ctx, struct il_msg *m)
{
	struct consumer *c = ctx;
	unsigned p = (unsigned)(m->event_id >> 32);
	uint64_t seq = m->event_id & 0xffffffffu;

	if (p >= PRODUCERS || seq != c->next[p])
		c->out_of_order++;
	else
		c->next[p]++;
	if (++c->received == (uint64_t)PRODUCERS * PER_PRODUCER) {
		il_queue_close(&c->q);
		uv_close((uv_handle_t *)&c->done, NULL);
	}
}

static void done_cb(uv_async_t *a)
{
}

struct producer {
	struct consumer *c;
	unsigned id;
	uint64_t retries;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct il_msg m;

	memset(&m, 0, sizeof(m));
	for (uint64_t i = 0; i < PER_PRODUCER; i++) {
		m.event_id = ((uint64_t)p->id << 32) | i;
		/* A full ring is back-pressure: the producer retries, nothing is lost. */
		while (il_queue_push(&p->c->q, &m) == -ENOBUFS) {
			p->retries++;
			sched_yield();
		}
	}
	return NULL;
}

static void test_queue_order_and_no_loss(void **state)
{
	static struct consumer c;
	struct producer p[PRODUCERS];
	pthread_t th[PRODUCERS];

	memset(&c, 0, sizeof(c));
	assert_int_equal(uv_loop_init(&c.loop), 0);
	assert_int_equal(il_queue_init(&c.q, &c.loop, 64, IL_LOCK_PTHREAD, on_msg, &c), 0);
	assert_int_equal(c.q.cap, 64);
	uv_async_init(&c.loop, &c.done, done_cb);
	for (unsigned i = 0; i < PRODUCERS; i++) {
		p[i] = (struct producer){.c = &c, .id = i};
		pthread_create(&th[i], NULL, produce, &p[i]);
	}
	uv_run(&c.loop, UV_RUN_DEFAULT);
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(c.received, (uint64_t)PRODUCERS * PER_PRODUCER);
	assert_int_equal(c.out_of_order, 0);
	for (unsigned i = 0; i < PRODUCERS; i++)
		assert_int_equal(c.next[i], PER_PRODUCER);
	assert_int_equal(uv_loop_close(&c.loop), 0);
	il_queue_free(&c.q);
}

static void test_queue_full_reports_enobufs(void **state)
{
	uv_loop_t loop;
	struct il_queue q;
	struct il_msg m;

	memset(&m, 0, sizeof(m));
	uv_loop_init(&loop);
	assert_int_equal(il_queue_init(&q, &loop, 5, IL_LOCK_PTHREAD, on_msg, NULL), 0);
	assert_int_equal(q.cap, 8); /* rounded up to a power of two */
	for (int i = 0; i < 8; i++)
		assert_int_equal(il_queue_push(&q, &m), 0);
	assert_int_equal(il_queue_push(&q, &m), -ENOBUFS);
	assert_int_equal(q.dropped, 1);
	il_queue_close(&q);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	il_queue_free(&q);
}

struct late_producer {
	struct il_queue *q;
	int rc;
};

static void *push_late(void *arg)
{
	struct late_producer *p = arg;
	struct il_msg m;

	memset(&m, 0, sizeof(m));
	p->rc = il_queue_push(p->q, &m);
	return NULL;
}

/*
 * The stop race viz-sim had: its drm thread's vblank callback pushed into
 * the io thread's queue after that thread's teardown had closed it. A
 * push after close must land in memory that still exists (ASan checks)
 * and be harmless; the memory goes only at il_queue_free, after joins.
 */
static void test_queue_push_after_close_is_harmless(void **state)
{
	uv_loop_t loop;
	struct il_queue q;
	struct late_producer p = {.q = &q, .rc = -1};
	pthread_t th;

	uv_loop_init(&loop);
	assert_int_equal(il_queue_init(&q, &loop, 4, IL_LOCK_PTHREAD, on_msg, NULL), 0);
	il_queue_close(&q);
	uv_run(&loop, UV_RUN_DEFAULT); /* the close completes: nothing is delivered any more */
	assert_int_equal(pthread_create(&th, NULL, push_late, &p), 0);
	pthread_join(th, NULL);
	assert_int_equal(p.rc, 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	il_queue_free(&q);
	il_queue_free(&q); /* a second free does nothing */
	il_queue_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queue_order_and_no_loss),
	    cmocka_unit_test(test_queue_full_reports_enobufs),
	    cmocka_unit_test(test_queue_push_after_close_is_harmless),
	};
	if (il_test_filters("test_queue", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
