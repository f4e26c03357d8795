#include "il_work.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "il_clock.h"

static double loops_per_us = 100.0;

/*
 * One copy of the loop, never inlined and aligned the same way in every
 * program: calibration (in inputlat) and work (in the children) must run
 * the very same instructions. An inlined copy in il_work_calibrate ran
 * twice as fast as the handlers' out-of-line one on this machine's EPYC,
 * so every handler did twice its configured work.
 */
__attribute__((noinline, aligned(64))) void il_work_loops(uint64_t loops)
{
#if defined(__x86_64__)
	if (!loops)
		return;
	__asm__ __volatile__(".p2align 5\n"
			     "1:\tdec %0\n\t"
			     "jnz 1b"
			     : "+r"(loops)
			     :
			     : "cc", "memory");
#else
	/* The empty asm keeps the compiler from folding the loop away while
	 * costing one increment and one branch per iteration. */
	for (uint64_t i = 0; i < loops; i++)
		__asm__ __volatile__("" ::: "memory");
#endif
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double il_work_calibrate(void)
{
	const uint64_t trial = 2000000;
	uint64_t dt[9];

	il_work_loops(trial); /* warm up caches and the frequency governor */
	/*
	 * Timed on the thread's own CPU clock, the one il_hop_end measures
	 * work with: a trial preempted by another task (a build, the other
	 * engineer's run) would take longer on the wall clock and shrink every
	 * handler's work for the whole run, which happened (2427 to 3735
	 * loops/us over 27 runs, one run at 67% of its work).
	 *
	 * The median trial, as the report's work accuracy takes the median
	 * handler: the fastest of nine made every handler look 4-7% slow on
	 * this VM, and one thread in ten past the 10% tolerance.
	 */
	for (int i = 0; i < 9; i++) {
		uint64_t t0 = il_thread_cpu_ns();

		il_work_loops(trial);
		dt[i] = il_thread_cpu_ns() - t0;
	}
	qsort(dt, 9, sizeof(dt[0]), cmp_u64);
	loops_per_us = (double)trial * 1000.0 / (double)(dt[4] ? dt[4] : 1);
	return loops_per_us;
}

uint64_t il_work_clock_overhead_ns(void)
{
	uint64_t best = UINT64_MAX;

	/* What il_hop_end's two reads of the thread CPU clock add to a
	 * handler's measured work: the fastest back-to-back pair of 200. */
	for (int i = 0; i < 200; i++) {
		uint64_t t0 = il_thread_cpu_ns(), dt = il_thread_cpu_ns() - t0;

		if (dt < best)
			best = dt;
	}
	return best;
}

void il_work_set_loops_per_us(double v)
{
	if (v > 0)
		loops_per_us = v;
}

/* Work longer than this is done in pieces, each after a look at the stop. */
#define WORK_PIECE_US 1000

static atomic_bool stopping;

void il_work_stop(void)
{
	atomic_store(&stopping, true);
}

void il_work_us(uint64_t us)
{
	uint64_t loops = (uint64_t)(loops_per_us * (double)us);
	uint64_t piece = (uint64_t)(loops_per_us * WORK_PIECE_US);

	/* A handler's usual work (under a millisecond) is one piece: the loop
	 * it was calibrated with, untouched. */
	while (loops > piece && !atomic_load_explicit(&stopping, memory_order_relaxed)) {
		il_work_loops(piece);
		loops -= piece;
	}
	if (loops && !atomic_load_explicit(&stopping, memory_order_relaxed))
		il_work_loops(loops);
}
