/*
 * Calibrated CPU work: a handler's "work_us" is a fixed amount of CPU work
 * (a loop of known speed), not a wall-clock wait, so preemption stretches
 * it exactly as it would stretch real work.
 */
#ifndef IL_WORK_H
#define IL_WORK_H

#include <stdint.h>

/*
 * Measures loop iterations per microsecond on this CPU (best of several
 * short trials, so a preemption during calibration does not shrink work).
 * Timed on the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), so
 * preemption by other tasks does not shrink it. Takes about 10 ms.
 */
double il_work_calibrate(void);

/* The CPU time two back-to-back CLOCK_THREAD_CPUTIME_ID reads take, in ns
 * (best of 200): what a handler's measured work (il_hop_end) has on top
 * of the work itself. */
uint64_t il_work_clock_overhead_ns(void);

/* Sets the calibration used by il_work_us (e.g. the orchestrator's). */
void il_work_set_loops_per_us(double loops_per_us);

/* Burns about `us` microseconds of CPU. */
void il_work_us(uint64_t us);

/* Burns exactly `loops` iterations of the calibrated loop. */
void il_work_loops(uint64_t loops);

#endif
