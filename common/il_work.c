#include "il_work.h"

#include "il_clock.h"

static double loops_per_us = 100.0;

void il_work_loops(uint64_t loops)
{
	/* The empty asm keeps the compiler from folding the loop away while
	 * costing one increment and one branch per iteration. */
	for (uint64_t i = 0; i < loops; i++)
		__asm__ __volatile__("" ::: "memory");
}

double il_work_calibrate(void)
{
	const uint64_t trial = 2000000;
	uint64_t best = UINT64_MAX;

	il_work_loops(trial); /* warm up caches and the frequency governor */
	for (int i = 0; i < 7; i++) {
		uint64_t t0 = il_now_ns();

		il_work_loops(trial);
		uint64_t dt = il_now_ns() - t0;
		if (dt < best)
			best = dt;
	}
	if (best == 0)
		best = 1;
	loops_per_us = (double)trial * 1000.0 / (double)best;
	return loops_per_us;
}

void il_work_set_loops_per_us(double v)
{
	if (v > 0)
		loops_per_us = v;
}

void il_work_us(uint64_t us)
{
	if (us)
		il_work_loops((uint64_t)(loops_per_us * (double)us));
}
