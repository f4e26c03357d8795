/*
 * The hop chain's one table (common/il_chain.c): its rows must describe a
 * chain the processes can actually be wired into.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "il_test.h"

#include "il_chain.h"

static void test_chain_table_hops_connect(void **state)
{
	assert_null(il_chain_hop(0));
	assert_null(il_chain_hop(IL_NHOPS + 1));
	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_hop_desc *h = il_chain_hop(k);

		assert_non_null(h);
		assert_int_equal(h->index, k);
		assert_non_null(h->chrome);
		/* Each hop starts where the previous one ended. */
		if (k > 1)
			assert_int_equal(h->from, il_chain_hop(k - 1)->to);
	}
	assert_string_equal(il_chain_hop_from(il_chain_hop(1)), "inject");
	assert_string_equal(il_chain_hop_to(il_chain_hop(IL_NHOPS)), "display");
	assert_int_equal(IL_STAMP_PRESENTED, IL_NHOPS);
	assert_true(IL_STAMP_PROCESSED < IL_STAMP_PRESENTED);
}

/* A hop between two threads of different processes must be a socket write;
 * one inside a process a queue. The table says which, so check it. */
static void test_chain_table_hop_kinds(void **state)
{
	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct il_hop_desc *h = il_chain_hop(k);

		if (h->from == IL_T_NONE) {
			assert_int_equal(h->kind, IL_HOP_INPUT);
			continue;
		}
		if (h->to == IL_T_NONE) {
			assert_int_equal(h->kind, IL_HOP_DISPLAY);
			continue;
		}
		if (il_chain_thread(h->from)->proc == il_chain_thread(h->to)->proc)
			assert_int_equal(h->kind, IL_HOP_IN_PROCESS);
		else
			assert_int_equal(h->kind, IL_HOP_CROSS_PROCESS);
	}
	assert_string_equal(il_hop_kind_name(IL_HOP_IN_PROCESS), "in-process");
	assert_string_equal(il_hop_kind_name(IL_HOP_CROSS_PROCESS), "cross-process");
}

static void test_chain_table_threads(void **state)
{
	for (int t = 0; t < IL_T_COUNT; t++) {
		const struct il_thread_desc *d = il_chain_thread(t);
		const struct il_proc_desc *p = il_chain_proc(d->proc);
		size_t plen = strlen(p->prefix);

		/* pthread_setname_np takes 15 characters; names are prefix:role. */
		assert_true(strlen(d->name) <= 15);
		assert_true(p->in_chain);
		assert_memory_equal(d->name, p->prefix, plen);
		assert_int_equal(d->name[plen], ':');
		assert_int_equal(il_chain_thread_parse(d->name), t);
	}
	assert_null(il_chain_thread(IL_T_COUNT));
	assert_int_equal(il_chain_thread_parse("browser:nope"), -22);
	assert_int_equal(il_chain_proc_parse("viz-sim"), IL_PROC_VIZ);
	assert_int_equal(il_chain_proc_parse("nope"), -22);
}

/* Every fd a child is handed is above the control channel, below the
 * spawn limit, and used once in that process. */
static void test_chain_table_channels(void **state)
{
	for (int p = 0; p < IL_PROC_COUNT; p++) {
		int used[IL_CHILD_MAX_FDS] = {0};

		used[IL_FD_CONTROL] = 1;
		for (int ch = 0; ch < IL_CH_COUNT; ch++) {
			int fd = il_chain_fd(ch, p);

			if (fd < 0)
				continue;
			assert_true(fd > IL_FD_CONTROL);
			assert_true(fd < IL_CHILD_MAX_FDS);
			assert_int_equal(used[fd], 0);
			used[fd] = 1;
		}
	}
	for (int ch = 0; ch < IL_CH_COUNT; ch++) {
		const struct il_channel_desc *d = il_chain_channel(ch);

		assert_int_not_equal(d->writer, d->reader);
		assert_int_equal(il_chain_fd(ch, IL_PROC_ORCH), -1);
	}
	assert_int_equal(il_chain_fd(IL_CH_RECORDS, IL_PROC_WORKLOAD), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chain_table_hops_connect),
	    cmocka_unit_test(test_chain_table_hop_kinds),
	    cmocka_unit_test(test_chain_table_threads),
	    cmocka_unit_test(test_chain_table_channels),
	};

	if (il_test_filters("test_chain_table", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
