/*
 * common/il_work: a handler's work under both models. cpu-time spends its
 * CPU time whatever the calibration says (a calibration 4x off either way,
 * as a vCPU that changed speed since would make it), loops follows the
 * calibration, the test scale applies to both, short work stays short,
 * and the stop cuts long work off.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_test.h"
#include "il_work.h"

#define REPS 21

static double real_loops_per_us;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The median CPU time, in ns, of REPS calls of il_work_us(us), each timed
 * the way a handler times its work, less the clock's own cost. */
static uint64_t median_cpu_ns(uint64_t us)
{
	uint64_t t[REPS], over = il_work_clock_overhead_ns();

	for (int i = 0; i < REPS; i++) {
		uint64_t t0 = il_thread_cpu_ns(), dt;

		il_work_us(us);
		dt = il_thread_cpu_ns() - t0;
		t[i] = dt > over ? dt - over : 0;
	}
	qsort(t, REPS, sizeof(t[0]), cmp_u64);
	return t[REPS / 2];
}

/*
 * The best of three medians: another load on the machine only slows the
 * loop (the other vCPU busy halves its speed here, and a call's last
 * piece runs at the speed last seen), so its CPU time only grows, while a
 * model that got the work wrong gets it wrong in every batch. Under ASan
 * beside the other lane, one batch of 200 us calls took a median of 219.
 */
static uint64_t best_median_cpu_ns(uint64_t us)
{
	uint64_t best = UINT64_MAX;

	for (int b = 0; b < 3; b++) {
		uint64_t m = median_cpu_ns(us);

		if (m < best)
			best = m;
	}
	return best;
}

static int setup(void **state)
{
	(void)state;
	real_loops_per_us = il_work_calibrate(il_work_cpu_clock_step_ns());
	return real_loops_per_us > 0 ? 0 : -1;
}

static void test_work_model_names(void **state)
{
	enum il_work_model m = IL_WORK_LOOPS;

	(void)state;
	assert_int_equal(il_work_model_parse("cpu-time", &m), 0);
	assert_int_equal(m, IL_WORK_CPU_TIME);
	assert_int_equal(il_work_model_parse("loops", &m), 0);
	assert_int_equal(m, IL_WORK_LOOPS);
	assert_int_equal(il_work_model_parse("cpu", &m), -1);
	assert_int_equal(il_work_model_parse("", &m), -1);
	assert_string_equal(il_work_model_name(IL_WORK_CPU_TIME), "cpu-time");
	assert_string_equal(il_work_model_name(IL_WORK_LOOPS), "loops");
}

struct off_case {
	uint64_t us, first_ns, median_ns;
};

/* A new thread: nothing learned of the loop's speed yet. */
static void *work_in_new_thread(void *arg)
{
	struct off_case *c = arg;
	uint64_t t0 = il_thread_cpu_ns();

	il_work_us(c->us);
	c->first_ns = il_thread_cpu_ns() - t0;
	c->median_ns = best_median_cpu_ns(c->us);
	return NULL;
}

/* 200 us and 10 us of CPU with the calibration right, 4x too low and 4x
 * too high, each in a thread of its own: within 2 us below and 5% + 3 us
 * above (interrupts and the switches of a loaded machine count in a
 * thread's CPU time: 2% failed while the suite ran beside; a 10 us call
 * took 15.9 us in one batch while the sanitizer builds and the VM test
 * ran beside the plain pass); a thread's first call, sized from the
 * calibration alone, within 2x (a 4x estimate would make 800 us of 200).
 * Each case takes the best of three new threads: a first call under ASan
 * once took 428 us of CPU for 200 (x0.25, whose estimate alone falls
 * short) while 1024 hog threads ran beside; a wrong model is wrong in
 * every thread. */
static void test_work_cpu_time_ignores_calibration(void **state)
{
	static const double off[] = {1.0, 0.25, 4.0};
	static const uint64_t works[] = {200, 10};

	(void)state;
	il_work_set_model(IL_WORK_CPU_TIME);
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		for (size_t j = 0; j < sizeof(works) / sizeof(works[0]); j++) {
			struct off_case c = {.us = works[j], UINT64_MAX, UINT64_MAX};

			il_work_set_loops_per_us(real_loops_per_us * off[i]);
			for (int t = 0; t < 3; t++) {
				struct off_case one = {.us = works[j]};
				pthread_t th;

				assert_int_equal(
				    pthread_create(&th, NULL, work_in_new_thread, &one), 0);
				assert_int_equal(pthread_join(th, NULL), 0);
				if (one.first_ns < c.first_ns)
					c.first_ns = one.first_ns;
				if (one.median_ns < c.median_ns)
					c.median_ns = one.median_ns;
			}
			print_message("calibration x%.2f: %llu us of work took %.2f us of CPU "
				      "(the thread's first call: %.2f us)\n",
				      off[i], (unsigned long long)c.us, (double)c.median_ns / 1e3,
				      (double)c.first_ns / 1e3);
			assert_true(c.median_ns + 2000 >= c.us * 1000);
			assert_true(c.median_ns <= c.us * 1050 + 3000);
			if (c.us >= 100)
				assert_true(c.first_ns <= 2 * c.us * 1000);
		}
	il_work_set_loops_per_us(real_loops_per_us);
}

/* The loops model does what the calibration says: at a quarter of the
 * real speed, well under the work asked (a quarter, and the host's speed
 * moves by 2x at most here), where cpu-time above did all of it. */
static void test_work_loops_follows_calibration(void **state)
{
	uint64_t ns;

	(void)state;
	il_work_set_model(IL_WORK_LOOPS);
	il_work_set_loops_per_us(real_loops_per_us * 0.25);
	ns = median_cpu_ns(400);
	print_message("loops, calibration x0.25: 400 us of work took %.2f us of CPU\n",
		      (double)ns / 1e3);
	assert_true(ns < 240000);
	assert_true(ns > 20000);
	il_work_set_loops_per_us(real_loops_per_us);
	il_work_set_model(IL_WORK_CPU_TIME);
}

/* The test hook's scale halves the work in either model: 400 us is 200 us
 * of CPU, within the bounds of test_work_cpu_time_ignores_calibration (2
 * us below, 5% + 3 us above: under ASan beside the other lane the best of
 * three batches once took 207.9 us, where the clock's step was 1.6 us and
 * a read 1.3 us; without the scale it would be 400). */
static void test_work_scale(void **state)
{
	uint64_t ns;

	(void)state;
	il_work_set_scale(0.5);
	ns = best_median_cpu_ns(400);
	il_work_set_scale(1.0);
	print_message("scale 0.5: 400 us of work took %.2f us of CPU\n", (double)ns / 1e3);
	assert_true(ns >= 198000 && ns <= 200000 + 200000 / 20 + 3000);
}

/* Work shorter than two reads of the clock is the loop alone: 1 us stays
 * about 1 us, not the 2-3 us the reads would make it. */
static void test_work_short(void **state)
{
	uint64_t ns;

	(void)state;
	ns = best_median_cpu_ns(1);
	print_message("1 us of work took %.2f us of CPU (a clock read: %.2f us)\n",
		      (double)ns / 1e3, (double)il_work_clock_overhead_ns() / 1e3);
	assert_true(ns < 1000 + il_work_clock_overhead_ns());
	assert_true(median_cpu_ns(0) < 1000);
}

static void *second_of_work(void *arg)
{
	(void)arg;
	il_work_us(1000000);
	return NULL;
}

/* The clock's step here: on a fine clock, what reading it costs (two
 * back-to-back reads differ by one read, il_work_clock_overhead_ns), the
 * one the cpu-time model needs; where it moves in
 * ticks, the run falls back to loops (test_report_real_coarse_clock) and
 * this says so. */
static void test_work_cpu_clock_step(void **state)
{
	uint64_t step = il_work_cpu_clock_step_ns(), over = il_work_clock_overhead_ns();

	(void)state;
	print_message("the thread CPU clock moves in steps of %llu ns (a read costs %llu ns)\n",
		      (unsigned long long)step, (unsigned long long)over);
	assert_true(step > 0);
	if (step > IL_WORK_FINE_CLOCK_NS)
		IL_TEST_SKIP("the thread CPU clock moves in %llu ns steps here: cpu-time work "
			     "cannot run on this kernel (runs fall back to loops)",
			     (unsigned long long)step);
	/* The smallest step is a read's cost, not a tick's: within two reads
	 * and 2 us (an interrupt can land inside one pair, hardly in the
	 * best of five). */
	assert_true(step <= 2 * over + 2000);
}

/* Last: the stop is for good. A second of work stopped 20 ms in ends
 * within a piece (0.2 ms of work; 50 ms allowed for this VM's stalls, a
 * first piece of half the work would take 0.5 s), and work after the
 * stop is none. */
static void test_work_stop(void **state)
{
	pthread_t th;
	uint64_t t0;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, second_of_work, NULL), 0);
	usleep(20000);
	il_work_stop();
	t0 = il_now_ns();
	assert_int_equal(pthread_join(th, NULL), 0);
	print_message("stopped 20 ms into a second of work: it ended %.2f ms after the stop\n",
		      (double)(il_now_ns() - t0) / 1e6);
	assert_true(il_now_ns() - t0 < 50 * 1000000ull);
	t0 = il_thread_cpu_ns();
	il_work_us(1000000);
	assert_true(il_thread_cpu_ns() - t0 < 5000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_work_model_names),
	    cmocka_unit_test(test_work_cpu_time_ignores_calibration),
	    cmocka_unit_test(test_work_loops_follows_calibration),
	    cmocka_unit_test(test_work_scale),
	    cmocka_unit_test(test_work_short),
	    cmocka_unit_test(test_work_cpu_clock_step),
	    cmocka_unit_test(test_work_stop),
	};

	if (il_test_filters("test_work", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, NULL);
}
