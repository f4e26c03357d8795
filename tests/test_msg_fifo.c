/* The growing record fifo: order across growth and index wrap, its bound, its stats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "il_msg_fifo.h"

static struct il_msg msg(uint64_t id)
{
	struct il_msg m;

	memset(&m, 0, sizeof(m));
	m.event_id = id;
	m.stamp_ns[IL_NSTAMPS - 1] = id * 3; /* the whole record moves, not just its head */
	return m;
}

/*
 * Growth while the free-running indices wrap past 2^32: the records come
 * out in order and whole, whatever slot the new mask puts them in.
 */
static void test_fifo_grows_in_order_across_index_wrap(void **state)
{
	struct il_msg_fifo f;
	struct il_msg m, out;
	uint64_t next_out = 0;

	assert_int_equal(il_msg_fifo_init(&f, 3, 1000), 0);
	assert_int_equal(f.cap, 4);
	assert_int_equal(f.max_cap, 1024);
	f.head = f.tail = UINT32_MAX - 5;
	for (uint64_t id = 0; id < 700; id++) {
		m = msg(id);
		assert_int_equal(il_msg_fifo_push(&f, &m), 0);
		/* Take one out now and then, so the tail moves too. */
		if (id % 3 == 0) {
			assert_true(il_msg_fifo_pop(&f, &out));
			assert_int_equal(out.event_id, next_out);
			assert_int_equal(out.stamp_ns[IL_NSTAMPS - 1], next_out * 3);
			next_out++;
		}
	}
	assert_int_equal(f.cap, 512);
	assert_int_equal(f.max_depth, 700 - 700 / 3);
	while (il_msg_fifo_pop(&f, &out)) {
		assert_int_equal(out.event_id, next_out);
		assert_int_equal(out.stamp_ns[IL_NSTAMPS - 1], next_out * 3);
		next_out++;
	}
	assert_int_equal(next_out, 700);
	assert_int_equal(f.dropped, 0);
	il_msg_fifo_free(&f);
	il_msg_fifo_free(&f); /* a second free does nothing */
}

/* At max_cap it refuses, counts, and keeps what it holds. */
static void test_fifo_refuses_past_its_bound(void **state)
{
	struct il_msg_fifo f;
	struct il_msg m = msg(1), out;

	assert_int_equal(il_msg_fifo_init(&f, 2, 8), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(il_msg_fifo_push(&f, &m), 0);
	assert_int_equal(il_msg_fifo_wants(&f), 0);
	assert_int_equal(il_msg_fifo_push(&f, &m), -ENOBUFS);
	assert_int_equal(il_msg_fifo_push(&f, &m), -ENOBUFS);
	assert_int_equal(f.dropped, 2);
	assert_int_equal(il_msg_fifo_depth(&f), 8);
	for (int i = 0; i < 8; i++)
		assert_true(il_msg_fifo_pop(&f, &out));
	assert_false(il_msg_fifo_pop(&f, &out));
	il_msg_fifo_free(&f);
}

/* A lock owner's growth: a ring offered too late (grown meanwhile) is handed back. */
static void test_fifo_grow_into_hands_back_a_stale_ring(void **state)
{
	struct il_msg_fifo f;
	struct il_msg m = msg(7), out;
	struct il_msg *spare, *back;

	assert_int_equal(il_msg_fifo_init(&f, 2, 64), 0);
	assert_int_equal(il_msg_fifo_wants(&f), 0); /* not full */
	assert_int_equal(il_msg_fifo_push(&f, &m), 0);
	assert_int_equal(il_msg_fifo_push(&f, &m), 0);
	assert_int_equal(il_msg_fifo_wants(&f), 4);
	spare = calloc(4, sizeof(*spare));
	assert_non_null(spare);
	back = il_msg_fifo_grow_into(&f, spare, 4);
	assert_ptr_not_equal(back, spare); /* the old ring, the caller's to free */
	free(back);
	assert_int_equal(f.cap, 4);
	/* Another thread's ring of the same size, now stale: returned untouched. */
	spare = calloc(4, sizeof(*spare));
	assert_non_null(spare);
	assert_ptr_equal(il_msg_fifo_grow_into(&f, spare, 4), spare);
	free(spare);
	assert_true(il_msg_fifo_pop(&f, &out));
	assert_int_equal(out.event_id, 7);
	il_msg_fifo_free(&f);
}

static void test_fifo_stats_json(void **state)
{
	struct il_msg_fifo f;
	struct il_msg m = msg(1);
	cJSON *to = cJSON_CreateObject(), *o;

	assert_int_equal(il_msg_fifo_init(&f, 1, 2), 0);
	for (int i = 0; i < 3; i++)
		il_msg_fifo_push(&f, &m);
	il_msg_fifo_stats_json(&f, "pending_flips", to);
	o = cJSON_GetObjectItemCaseSensitive(to, "pending_flips");
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "capacity")), 2);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "max_depth")), 2);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "dropped")), 1);
	cJSON_Delete(to);
	il_msg_fifo_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fifo_grows_in_order_across_index_wrap),
	    cmocka_unit_test(test_fifo_refuses_past_its_bound),
	    cmocka_unit_test(test_fifo_grow_into_hands_back_a_stale_ring),
	    cmocka_unit_test(test_fifo_stats_json),
	};
	if (il_test_filters("test_msg_fifo", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
