/*
 * bench/il_floor.c, the floor bench/overhead holds each hop against: a
 * same-CPU SCHED_FIFO pair of equal priority (the chain's receivers that
 * do not outrank their sender) must measure the wake-up, not the sender.
 * The sender polled for the stamp with 5 us sleeps that ended before it
 * was switched out, so it kept the CPU and this floor read 3-5 ms (the
 * other placements 10-50 us): the hops held against it read 0.05x.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "il_floor.h"
#include "il_test.h"

static void test_floor_fifo_same_cpu_equal_priority(void **state)
{
	static const enum il_floor_prim prims[] = {IL_FLOOR_EVENTFD, IL_FLOOR_UV_ASYNC,
						   IL_FLOOR_EVENTFD_UV_POLL};
	/* The threads block between samples; a runaway one gets SIGXCPU. */
	struct rlimit old, lim = {.rlim_cur = 1000000, .rlim_max = 1000000}; /* us */
	cpu_set_t set;
	int cpu = -1;

	(void)state;
	IL_TEST_NEED_ROOT("SCHED_FIFO for the sender and the receiver");
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	assert_true(cpu >= 0);
	assert_int_equal(getrlimit(RLIMIT_RTTIME, &old), 0);
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &lim), 0);
	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++) {
		struct il_floor_cfg c = {.prim = prims[i],
					 .policy = SCHED_FIFO,
					 .cpu_a = cpu,
					 .cpu_b = cpu,
					 .prio_delta = 0,
					 .samples = 150,
					 .gap_us = 2000};
		struct il_floor_result r;
		char err[256] = "";
		int rc = il_floor_measure(&c, &r, err, sizeof(err));

		if (rc < 0) {
			setrlimit(RLIMIT_RTTIME, &old);
			fail_msg("%s: %s", il_floor_prim_name(prims[i]), err);
		}
		print_message("%s fifo same-cpu equal priority: p50 %.1f us, p99 %.1f us (%llu)\n",
			      il_floor_prim_name(prims[i]), (double)r.p50_ns / 1e3,
			      (double)r.p99_ns / 1e3, (unsigned long long)r.n);
		assert_int_equal(r.n, c.samples);
		/* A wake-up here is 10-40 us; the polling sender's was 3-5 ms. */
		assert_true(r.p50_ns < 1000000);
	}
	setrlimit(RLIMIT_RTTIME, &old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_floor_fifo_same_cpu_equal_priority),
	};
	if (il_test_filters("test_floor", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
