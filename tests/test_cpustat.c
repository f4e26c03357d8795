/* /proc/stat snapshots and idle accounting (common/il_cpustat). */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_test.h"

#include "il_cpustat.h"

static const char stat_a[] = "cpu  300 0 300 1400 0 0 0 0 0 0\n"
			     "cpu0 100 0 100 800 0 0 0 0 0 0\n"
			     "cpu2 200 0 200 600 0 0 0 0 0 0\n"
			     "intr 1 2 3\n"
			     "ctxt 5\n";
/* 100 more ticks on each CPU: cpu0 10 idle + 5 iowait, cpu2 all busy. */
static const char stat_b[] = "cpu  490 0 300 1415 5 0 0 0 0 0\n"
			     "cpu0 185 0 100 810 5 0 0 0 0 0\n"
			     "cpu2 300 0 200 600 0 0 0 0 0 0\n";

static void test_cpustat_parse_sparse(void **state)
{
	struct il_cpustat *s = NULL;
	const struct il_cpustat_cpu *c;

	assert_int_equal(il_cpustat_parse(stat_a, &s), 0);
	/* The "cpu " sum line is not CPU 300. */
	assert_int_equal(il_cpustat_ncpu(s), 3);
	c = il_cpustat_cpu(s, 0);
	assert_true(c->present);
	assert_int_equal(c->user, 100);
	assert_int_equal(c->idle, 800);
	assert_false(il_cpustat_cpu(s, 1)->present);
	assert_int_equal(il_cpustat_total(il_cpustat_cpu(s, 2)), 1000);
	assert_null(il_cpustat_cpu(s, 3));
	il_cpustat_free(s);
}

static void test_cpustat_idle_pct_mask(void **state)
{
	struct il_cpustat *a = NULL, *b = NULL;
	cpu_set_t m;

	assert_int_equal(il_cpustat_parse(stat_a, &a), 0);
	assert_int_equal(il_cpustat_parse(stat_b, &b), 0);
	/* Idle counts iowait too: 15 of 100 ticks. */
	CPU_ZERO(&m);
	CPU_SET(0, &m);
	assert_float_equal(il_cpustat_idle_pct(a, b, &m), 15.0, 1e-9);
	CPU_ZERO(&m);
	CPU_SET(2, &m);
	assert_float_equal(il_cpustat_idle_pct(a, b, &m), 0.0, 1e-9);
	/* Both: 15 of 200; CPU 1 has no line and is skipped. */
	CPU_SET(0, &m);
	CPU_SET(1, &m);
	assert_float_equal(il_cpustat_idle_pct(a, b, &m), 7.5, 1e-9);
	assert_float_equal(il_cpustat_idle_pct(a, b, NULL), 7.5, 1e-9);
	/* No time passed: no answer rather than 0%. */
	assert_float_equal(il_cpustat_idle_pct(a, a, NULL), -1.0, 1e-9);
	il_cpustat_free(a);
	il_cpustat_free(b);
}

/* Steal: the eighth column, over every CPU present in both snapshots. */
static void test_cpustat_steal_pct(void **state)
{
	static const char s1[] = "cpu  0 0 0 0 0 0 0 0\ncpu0 100 0 0 100 0 0 0 0 0 0\n"
				 "cpu1 100 0 0 100 0 0 0 0 0 0\n";
	/* 200 more ticks on each CPU: cpu0 20 stolen, cpu1 none. */
	static const char s2[] = "cpu  0 0 0 0 0 0 0 0\ncpu0 180 0 0 200 0 0 0 20 0 0\n"
				 "cpu1 200 0 0 200 0 0 0 0 0 0\n";
	struct il_cpustat *a = NULL, *b = NULL;

	assert_int_equal(il_cpustat_parse(s1, &a), 0);
	assert_int_equal(il_cpustat_parse(s2, &b), 0);
	assert_float_equal(il_cpustat_steal_pct(a, b), 5.0, 1e-9);
	assert_float_equal(il_cpustat_steal_pct(a, a), -1.0, 1e-9);
	/* Whether any steal was ever told: none in s1, cpu0's 20 ticks in s2. */
	assert_false(il_cpustat_steal_seen(a));
	assert_true(il_cpustat_steal_seen(b));
	assert_false(il_cpustat_steal_seen(NULL));
	il_cpustat_free(a);
	il_cpustat_free(b);
}

static void test_cpustat_parse_rejects_garbage(void **state)
{
	struct il_cpustat *s = NULL;

	char why[64];

	/* An empty read says so, not "Invalid argument". */
	assert_int_equal(il_cpustat_parse("", &s), -ENODATA);
	assert_string_equal(il_cpustat_why(-ENODATA, why, sizeof(why)), "empty");
	assert_string_equal(il_cpustat_why(-EINVAL, why, sizeof(why)),
			    "no cpuN line, or one not in /proc/stat's format");
	assert_int_equal(il_cpustat_parse("cpu  1 2 3 4 5 6 7 8\n", &s), -EINVAL);
	assert_int_equal(il_cpustat_parse("cpu0 1 2 3\n", &s), -EINVAL);
	assert_int_equal(il_cpustat_parse("hello\nworld\n", &s), -EINVAL);
	assert_null(s);
	il_cpustat_free(NULL);
}

/*
 * What sscanf misread (the fuzz target's inputs, tests/fuzz/regress/cpustat):
 * a CPU number past 2^32 wrapped to a small one, a negative counter became
 * 2^64-1, a line cut short took its counters from the next line, "cpu0100"
 * was CPU 100, a CPU's second line replaced its first, and a cpuN line
 * that could not be read left that CPU silently absent. Each
 * makes the snapshot unreadable now, and says why.
 */
static void test_cpustat_parse_out_of_range(void **state)
{
	struct il_cpustat *s = NULL;
	char why[80];

	/* CPU 4294967297 is not CPU 1. */
	assert_int_equal(il_cpustat_parse("cpu4294967297 1 2 3 4 5 6 7 8\n", &s), -ERANGE);
	assert_int_equal(il_cpustat_parse("cpu65536 1 2 3 4 5 6 7 8\n", &s), -ERANGE);
	/* -1 ticks is not 18446744073709551615, nor is 2^64 its maximum. */
	assert_int_equal(il_cpustat_parse("cpu0 -1 0 0 0 0 0 0 0\n", &s), -ERANGE);
	assert_int_equal(il_cpustat_parse("cpu0 18446744073709551616 0 0 0 0 0 0 0\n", &s),
			 -ERANGE);
	assert_string_equal(il_cpustat_why(-ERANGE, why, sizeof(why)),
			    "a cpuN line's CPU number or counter is out of range");
	/* Three counters, and the next line's numbers are not the rest. */
	assert_int_equal(il_cpustat_parse("cpu0 1 2 3\n4 5 6 7 8\ncpu1 1 2 3 4 5 6 7 8\n", &s),
			 -EINVAL);
	/* "cpu0100" is not a second name for CPU 100, nor a second line one. */
	assert_int_equal(il_cpustat_parse("cpu0100 1 2 3 4 5 6 7 8\n", &s), -EINVAL);
	assert_int_equal(il_cpustat_parse("cpu1 1 2 3 4 5 6 7 8\ncpu1 9 2 3 4 5 6 7 8\n", &s),
			 -EINVAL);
	/* A bad line among good ones: not "CPU 1 absent". */
	assert_int_equal(il_cpustat_parse("cpu0 1 2 3 4 5 6 7 8\ncpu1 1 2 x 4 5 6 7 8\n", &s),
			 -EINVAL);
	assert_null(s);
	/* The largest counters and CPU are still values, with or without a
	 * newline at the end. */
	assert_int_equal(il_cpustat_parse("cpu65535 18446744073709551615 0 0 0 0 0 0", &s), 0);
	assert_int_equal(il_cpustat_ncpu(s), 65536);
	assert_true(il_cpustat_cpu(s, 65535)->user == UINT64_MAX);
	il_cpustat_free(s);
}

static void test_cpustat_read_proc(void **state)
{
	struct il_cpustat *a = NULL, *b = NULL;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned present = 0;

	assert_int_equal(il_cpustat_read(&a), 0);
	for (unsigned i = 0; i < il_cpustat_ncpu(a); i++)
		present += il_cpustat_cpu(a, i)->present;
	assert_int_equal(present, online);
	usleep(50000);
	assert_int_equal(il_cpustat_read(&b), 0);
	/* Counters never go backwards, so the percentage is a percentage. */
	for (unsigned i = 0; i < il_cpustat_ncpu(a); i++)
		assert_true(il_cpustat_total(il_cpustat_cpu(b, i)) >=
			    il_cpustat_total(il_cpustat_cpu(a, i)));
	double p = il_cpustat_idle_pct(a, b, NULL);
	assert_true(p == -1.0 || (p >= 0.0 && p <= 100.0));
	il_cpustat_free(a);
	il_cpustat_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpustat_parse_sparse),
	    cmocka_unit_test(test_cpustat_idle_pct_mask),
	    cmocka_unit_test(test_cpustat_steal_pct),
	    cmocka_unit_test(test_cpustat_parse_rejects_garbage),
	    cmocka_unit_test(test_cpustat_parse_out_of_range),
	    cmocka_unit_test(test_cpustat_read_proc),
	};
	if (il_test_filters("test_cpustat", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
