/* Bootstrap ratio interval: known shifts are found, no shift is not invented. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_bootstrap.h"

#define N 400

/* Deterministic latency-like samples: log-normal-ish around `median_us`. */
static void fill(double *v, size_t n, double median_us, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		double u = 0;

		for (int j = 0; j < 4; j++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			u += (double)(seed >> 11) / 9007199254740992.0;
		}
		v[i] = median_us * exp((u - 2.0) * 0.5);
	}
}

static void test_bootstrap_shift_excludes_one(void **state)
{
	double a[N], b[N], ratio, lo, hi;

	(void)state;
	fill(a, N, 500, 1);
	fill(b, N, 1000, 2);
	assert_int_equal(il_bootstrap_ratio_ci(a, N, b, N, 2000, 42, &ratio, &lo, &hi), 0);
	assert_true(ratio > 1.8 && ratio < 2.2);
	assert_true(lo > 1.0);
	assert_true(lo <= ratio && ratio <= hi);

	/* And the other way round: B twice as fast. */
	assert_int_equal(il_bootstrap_ratio_ci(b, N, a, N, 2000, 42, &ratio, &lo, &hi), 0);
	assert_true(hi < 1.0);
}

static void test_bootstrap_identical_includes_one(void **state)
{
	double a[N], b[N], ratio, lo, hi;

	(void)state;
	fill(a, N, 700, 7);
	assert_int_equal(il_bootstrap_ratio_ci(a, N, a, N, 2000, 42, &ratio, &lo, &hi), 0);
	assert_float_equal(ratio, 1.0, 1e-12);
	assert_true(lo < 1.0 && hi > 1.0);

	/* Same distribution, different draws: still no difference. */
	fill(b, N, 700, 8);
	assert_int_equal(il_bootstrap_ratio_ci(a, N, b, N, 2000, 42, &ratio, &lo, &hi), 0);
	assert_true(lo < 1.0 && hi > 1.0);
}

/* The sweep's use: three rounds' p50s per cell. */
static void test_bootstrap_few_rounds(void **state)
{
	const double cfs[] = { 1000, 1040, 980 }, rt[] = { 700, 720, 690 };
	double ratio, lo, hi;

	(void)state;
	assert_int_equal(il_bootstrap_ratio_ci(cfs, 3, rt, 3, 2000, 1, &ratio, &lo, &hi), 0);
	assert_float_equal(ratio, 2110.0 / 3020.0, 1e-12);
	assert_true(hi < 1.0);
}

static void test_bootstrap_deterministic(void **state)
{
	double a[N], b[N], r1, lo1, hi1, r2, lo2, hi2;

	(void)state;
	fill(a, N, 500, 3);
	fill(b, N, 520, 4);
	assert_int_equal(il_bootstrap_ratio_ci(a, N, b, N, 500, 9, &r1, &lo1, &hi1), 0);
	assert_int_equal(il_bootstrap_ratio_ci(a, N, b, N, 500, 9, &r2, &lo2, &hi2), 0);
	assert_true(r1 == r2 && lo1 == lo2 && hi1 == hi2);
	assert_int_equal(il_bootstrap_ratio_ci(a, N, b, N, 500, 10, &r2, &lo2, &hi2), 0);
	assert_true(lo1 != lo2 || hi1 != hi2);
}

static void test_bootstrap_errors(void **state)
{
	const double zero[] = { 0, 0 }, one[] = { 1, 2 }, bad[] = { 1, NAN };
	double ratio = -1, lo = -1, hi = -1;

	(void)state;
	assert_int_equal(il_bootstrap_ratio_ci(one, 0, one, 2, 10, 1, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(il_bootstrap_ratio_ci(one, 2, one, 2, 0, 1, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(il_bootstrap_ratio_ci(NULL, 2, one, 2, 10, 1, &ratio, &lo, &hi), -EINVAL);
	assert_int_equal(il_bootstrap_ratio_ci(zero, 2, one, 2, 10, 1, &ratio, &lo, &hi), -EDOM);
	assert_int_equal(il_bootstrap_ratio_ci(one, 2, bad, 2, 10, 1, &ratio, &lo, &hi), -EDOM);
	/* Out-parameters are untouched on error. */
	assert_true(ratio == -1 && lo == -1 && hi == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bootstrap_shift_excludes_one),
		cmocka_unit_test(test_bootstrap_identical_includes_one),
		cmocka_unit_test(test_bootstrap_few_rounds),
		cmocka_unit_test(test_bootstrap_deterministic),
		cmocka_unit_test(test_bootstrap_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
