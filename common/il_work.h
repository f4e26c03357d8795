/*
 * A handler's "work_us": CPU work, never a wall-clock wait, so preemption
 * stretches it exactly as it would stretch real work. Two models, rt-app's
 * "runtime" and "run" events:
 *   - cpu-time (the default): the loop runs until the thread's own CPU
 *     clock has advanced by work_us. The same CPU time whatever the CPU's
 *     speed: on a VM whose vCPUs run at half speed while their host
 *     siblings are busy, a run is comparable with the next one.
 *   - loops: a number of iterations of a loop calibrated once per run: a
 *     fixed amount of instructions, which takes longer on a slower CPU (an
 *     SMT sibling's load, a frequency change) and whose figures are only
 *     comparable while the CPU runs at its calibration's speed.
 */
#ifndef IL_WORK_H
#define IL_WORK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Measures loop iterations per microsecond on this CPU (the median of nine
 * short trials). Timed on the calling thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID), so preemption by other tasks does not shrink
 * it, unless clock_step_ns (il_work_cpu_clock_step_ns, measured once by
 * the caller) says that clock is too coarse: then on the wall clock, the
 * fastest trial. Takes about 10 ms.
 */
double il_work_calibrate(uint64_t clock_step_ns);

/*
 * The smallest step the thread CPU clock advances by, in ns: about one
 * read's cost (1.2 us here) where the kernel's sched_clock is fine, a
 * scheduler tick (4 ms) where it is not (an unstable TSC, as in qemu
 * without KVM). Spins at most about 20 ms; returns UINT64_MAX when the
 * clock did not move in that time.
 */
uint64_t il_work_cpu_clock_step_ns(void);

/* A thread CPU clock coarser than this cannot time a handler's work:
 * cpu-time work and the report's work accuracy need it finer. */
#define IL_WORK_FINE_CLOCK_NS 50000u

/* The CPU time two back-to-back CLOCK_THREAD_CPUTIME_ID reads take, in ns
 * (best of 200): what a handler's measured work (il_hop_end) has on top
 * of the work itself. */
uint64_t il_work_clock_overhead_ns(void);

/* Sets the calibration used by il_work_us (e.g. the orchestrator's). */
void il_work_set_loops_per_us(double loops_per_us);

enum il_work_model { IL_WORK_CPU_TIME, IL_WORK_LOOPS };

/* "cpu-time", "loops". */
const char *il_work_model_name(enum il_work_model m);

/* 0, or -1 when `name` is no model's name. */
int il_work_model_parse(const char *name, enum il_work_model *m);

/* The model of every later il_work_us in the process (default cpu-time). */
void il_work_set_model(enum il_work_model m);

/* Test hook: every later il_work_us does `scale` times its work (1: as
 * asked), in either model. */
void il_work_set_scale(double scale);

/* Burns `us` microseconds of CPU as the model says (less once il_work_stop
 * ran). */
void il_work_us(uint64_t us);

/*
 * From now on, in every thread of the process, il_work_us returns within
 * a millisecond of work: a process told to stop does not first finish
 * long handlers (up to a second each, with more queued behind them).
 */
void il_work_stop(void);

/* Whether il_work_stop ran: the process was told to stop. */
bool il_work_stopping(void);

/* Burns exactly `loops` iterations of the calibrated loop. */
void il_work_loops(uint64_t loops);

#endif
