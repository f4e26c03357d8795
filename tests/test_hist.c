/* The log-linear histogram against sorted-array truth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <math.h>
#include <stdlib.h>

#include "il_hist.h"

#define N 200000

static uint64_t rng = 12345;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_against_truth(uint64_t *v, size_t n)
{
	static const double ps[] = {1, 10, 50, 90, 99, 99.9, 99.99};
	struct il_hist *h;

	assert_int_equal(il_hist_new(&h), 0);
	for (size_t i = 0; i < n; i++)
		il_hist_add(h, v[i]);
	qsort(v, n, sizeof(*v), cmp);
	assert_int_equal(il_hist_count(h), n);
	assert_int_equal(il_hist_min(h), v[0]);
	assert_int_equal(il_hist_max(h), v[n - 1]);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		/* Nearest rank: the ceil(p*n)-th smallest sample. */
		size_t rank = (size_t)ceil(ps[i] / 100.0 * (double)n);
		double truth = (double)v[rank - 1];
		double got = (double)il_hist_percentile(h, ps[i]);

		assert_true(fabs(got - truth) <= 0.01 * truth + 1.0);
	}
	il_hist_free(h);
}

static void test_hist_uniform(void **state)
{
	uint64_t *v = malloc(N * sizeof(*v));

	for (size_t i = 0; i < N; i++)
		v[i] = 1000 + next() % 5000000;
	check_against_truth(v, N);
	free(v);
}

static void test_hist_heavy_tail(void **state)
{
	uint64_t *v = malloc(N * sizeof(*v));

	/* Pareto(alpha = 1.2) scaled to microseconds: most small, a few huge. */
	for (size_t i = 0; i < N; i++) {
		double u = ((double)(next() % 1000000) + 0.5) / 1000000.0;

		v[i] = (uint64_t)(20000.0 / pow(u, 1.0 / 1.2));
	}
	check_against_truth(v, N);
	free(v);
}

static void test_hist_small_values_exact(void **state)
{
	struct il_hist *h;

	assert_int_equal(il_hist_new(&h), 0);
	for (uint64_t v = 0; v < 100; v++)
		il_hist_add(h, v);
	assert_int_equal(il_hist_percentile(h, 50), 49);
	assert_int_equal(il_hist_percentile(h, 100), 99);
	il_hist_free(h);
}

static void test_hist_bucket_width(void **state)
{
	/* Every bucket is at most 1/128 of its lower bound wide. */
	for (size_t i = 128; i < il_hist_nbuckets(); i++) {
		uint64_t lo = il_hist_bucket_lower(i), hi = il_hist_bucket_upper(i);

		assert_true(hi > lo);
		assert_true((hi - lo) * 128 <= lo);
		assert_int_equal(il_hist_bucket_lower(i + 1 < il_hist_nbuckets() ? i + 1 : i) >=
					 hi ||
				     i + 1 == il_hist_nbuckets(),
				 1);
	}
}

static void test_hist_merge_and_empty(void **state)
{
	struct il_hist *a, *b;

	assert_int_equal(il_hist_new(&a), 0);
	assert_int_equal(il_hist_new(&b), 0);
	assert_int_equal(il_hist_percentile(a, 50), 0);
	assert_int_equal(il_hist_min(a), 0);
	il_hist_add(a, 10);
	il_hist_add(b, 1000000);
	il_hist_merge(a, b);
	assert_int_equal(il_hist_count(a), 2);
	assert_int_equal(il_hist_max(a), 1000000);
	assert_int_equal(il_hist_min(a), 10);
	il_hist_free(a);
	il_hist_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hist_uniform),
	    cmocka_unit_test(test_hist_heavy_tail),
	    cmocka_unit_test(test_hist_small_values_exact),
	    cmocka_unit_test(test_hist_bucket_width),
	    cmocka_unit_test(test_hist_merge_and_empty),
	};
	if (il_test_filters("test_hist", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
