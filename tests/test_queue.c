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

/* PRODUCERS threads push PER_PRODUCER each into a ring of cap growing to max_cap. */
static struct consumer *run_producers(unsigned cap, unsigned max_cap, uint64_t *retries)
{
	static struct consumer c;
	struct producer p[PRODUCERS];
	pthread_t th[PRODUCERS];

	memset(&c, 0, sizeof(c));
	assert_int_equal(uv_loop_init(&c.loop), 0);
	assert_int_equal(il_queue_init(&c.q, &c.loop, cap, max_cap, IL_LOCK_PTHREAD, on_msg, &c),
			 0);
	assert_int_equal(c.q.fifo.cap, cap);
	uv_async_init(&c.loop, &c.done, done_cb);
	for (unsigned i = 0; i < PRODUCERS; i++) {
		p[i] = (struct producer){.c = &c, .id = i};
		/* A producer that never started would leave the loop waiting for ever. */
		assert_int_equal(pthread_create(&th[i], NULL, produce, &p[i]), 0);
	}
	uv_run(&c.loop, UV_RUN_DEFAULT);
	*retries = 0;
	for (unsigned i = 0; i < PRODUCERS; i++) {
		pthread_join(th[i], NULL);
		*retries += p[i].retries;
	}
	return &c;
}

/* Every record arrived, each producer's in order; then the loop and queue go. */
static void check_all_received(struct consumer *c)
{
	assert_int_equal(c->received, (uint64_t)PRODUCERS * PER_PRODUCER);
	assert_int_equal(c->out_of_order, 0);
	for (unsigned i = 0; i < PRODUCERS; i++)
		assert_int_equal(c->next[i], PER_PRODUCER);
	assert_int_equal(uv_loop_close(&c->loop), 0);
	il_queue_free(&c->q);
}

/* A ring that may not grow is back-pressure: producers retry, nothing is lost. */
static void test_queue_order_and_no_loss(void **state)
{
	uint64_t retries;

	check_all_received(run_producers(64, 64, &retries));
}

/*
 * A ring that grows under three producers racing a consumer: every push
 * succeeds the first time (the growth never loses or reorders a record,
 * TSan watches the swap), and the ring ends no bigger than it needed.
 */
static void test_queue_grows_under_producers(void **state)
{
	uint64_t retries;
	struct consumer *c = run_producers(4, 1u << 16, &retries);

	assert_int_equal(retries, 0);
	assert_int_equal(c->q.fifo.dropped, 0);
	assert_true(c->q.fifo.cap >= 4 && c->q.fifo.cap <= 2 * (uint32_t)PRODUCERS * PER_PRODUCER);
	assert_true(c->q.fifo.max_depth <= c->q.fifo.cap);
	check_all_received(c);
}

/* viz-sim's case: a consumer that does not run while 1000 records arrive. */
static void test_queue_grows_while_consumer_stalls(void **state)
{
	static struct consumer c;
	struct il_msg m;

	memset(&c, 0, sizeof(c));
	memset(&m, 0, sizeof(m));
	uv_loop_init(&c.loop);
	assert_int_equal(il_queue_init(&c.q, &c.loop, 4, 1024, IL_LOCK_PTHREAD, on_msg, &c), 0);
	for (uint64_t i = 0; i < 1000; i++) {
		m.event_id = i; /* producer 0, in order */
		assert_int_equal(il_queue_push(&c.q, &m), 0);
	}
	assert_int_equal(c.q.fifo.cap, 1024);
	assert_int_equal(c.q.fifo.max_depth, 1000);
	/* Past max_cap: refused and counted, the records already in kept. */
	for (uint64_t i = 1000; i < 1100; i++) {
		m.event_id = i;
		assert_int_equal(il_queue_push(&c.q, &m), i < 1024 ? 0 : -ENOBUFS);
	}
	assert_int_equal(c.q.fifo.dropped, 1100 - 1024);
	uv_run(&c.loop, UV_RUN_NOWAIT);
	assert_int_equal(c.received, 1024);
	assert_int_equal(c.next[0], 1024);
	assert_int_equal(c.out_of_order, 0);
	il_queue_close(&c.q);
	uv_run(&c.loop, UV_RUN_DEFAULT);
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
	assert_int_equal(il_queue_init(&q, &loop, 5, 5, IL_LOCK_PTHREAD, on_msg, NULL), 0);
	assert_int_equal(q.fifo.cap, 8); /* rounded up to a power of two */
	for (int i = 0; i < 8; i++)
		assert_int_equal(il_queue_push(&q, &m), 0);
	assert_int_equal(il_queue_push(&q, &m), -ENOBUFS);
	assert_int_equal(q.fifo.dropped, 1);
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
	assert_int_equal(il_queue_init(&q, &loop, 4, 4, IL_LOCK_PTHREAD, on_msg, NULL), 0);
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
	    cmocka_unit_test(test_queue_grows_under_producers),
	    cmocka_unit_test(test_queue_grows_while_consumer_stalls),
	    cmocka_unit_test(test_queue_full_reports_enobufs),
	    cmocka_unit_test(test_queue_push_after_close_is_harmless),
	};
	if (il_test_filters("test_queue", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
