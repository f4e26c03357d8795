#include "il_work.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "il_clock.h"

static double loops_per_us = 100.0;
static enum il_work_model model = IL_WORK_CPU_TIME;
static double scale = 1.0;

static uint64_t read_ns(void);

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

uint64_t il_work_cpu_clock_step_ns(void)
{
	uint64_t best = UINT64_MAX, prev = il_thread_cpu_ns(), w0 = il_now_ns();
	int changes = 0;

	/* Back-to-back reads: on a fine clock each differs from the last by a
	 * read's cost; on a coarse one they stay equal until the next tick. */
	while (changes < 5 && il_now_ns() - w0 < 20000000ull) {
		uint64_t now = il_thread_cpu_ns();

		if (now != prev) {
			if (now - prev < best)
				best = now - prev;
			changes++;
			prev = now;
		}
	}
	return best;
}

double il_work_calibrate(uint64_t clock_step_ns)
{
	const uint64_t trial = 2000000;
	uint64_t dt[9];
	bool fine = clock_step_ns <= IL_WORK_FINE_CLOCK_NS;

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
		uint64_t t0 = fine ? il_thread_cpu_ns() : il_now_ns();

		il_work_loops(trial);
		dt[i] = (fine ? il_thread_cpu_ns() : il_now_ns()) - t0;
	}
	qsort(dt, 9, sizeof(dt[0]), cmp_u64);
	/*
	 * Where the thread CPU clock moves in ticks (4 ms under qemu without
	 * KVM), a 0.6 ms trial read 0 and the calibration came out at 2e9
	 * loops/us, which the children refused: there the wall clock times
	 * the trials, and the fastest is taken (preemption only adds to it).
	 */
	loops_per_us = (double)trial * 1000.0 / (double)((fine ? dt[4] : dt[0]) | 1);
	/* No CPU runs a million iterations a microsecond: a figure above it
	 * is a clock that did not move, and the children refuse it. */
	if (loops_per_us > 1e6)
		loops_per_us = 1e6;
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
	(void)read_ns();
}

static const char *const model_names[] = {"cpu-time", "loops"};

const char *il_work_model_name(enum il_work_model m)
{
	return (unsigned)m < sizeof(model_names) / sizeof(model_names[0]) ? model_names[m] : "?";
}

int il_work_model_parse(const char *name, enum il_work_model *m)
{
	for (unsigned i = 0; i < sizeof(model_names) / sizeof(model_names[0]); i++)
		if (strcmp(name, model_names[i]) == 0) {
			*m = (enum il_work_model)i;
			return 0;
		}
	return -1;
}

void il_work_set_model(enum il_work_model m)
{
	model = m;
}

void il_work_set_scale(double s)
{
	if (s > 0)
		scale = s;
}

/* Work longer than this is done in pieces, each after a look at the stop. */
#define WORK_PIECE_US 1000

static atomic_bool stopping;

void il_work_stop(void)
{
	atomic_store(&stopping, true);
}

bool il_work_stopping(void)
{
	return atomic_load_explicit(&stopping, memory_order_relaxed);
}

/*
 * cpu-time: pieces of the calibrated loop, each sized from the speed this
 * thread's loop ran at lately, until the thread's CPU clock has advanced
 * by `ns`. The first piece of a call is half the work, the first of a
 * thread at most LEARN_NS, each later one three quarters of what is left
 * until that is a few clock reads: the vCPUs here change speed by 2x
 * between two handlers (and a calibration can be that far off), and a
 * piece that ran slower than its estimate overshoots the work; each piece
 * is sized from the speed just measured. The clock is a system call
 * (CLOCK_THREAD_CPUTIME_ID has no vDSO path), 1.2 us on this VM: a handler
 * reads it three to eight times, and the reads are part of the CPU time
 * counted. Preemption does not advance the clock, so it stretches the
 * handler as it stretches real work.
 */
#define PIECE_MAX_NS 200000 /* a look at the clock and the stop this often */
#define LEARN_NS     20000  /* a thread's first piece, at the calibration's speed */

static _Thread_local double speed;     /* loops per ns of CPU, as last seen (0: none) */
static _Atomic uint64_t clock_read_ns; /* one read of the thread CPU clock (0: not yet) */

/* Measured once a process, when it is given its calibration (a child's
 * start-up), not in its first handler: 200 pairs of reads are 0.5 ms. */
static uint64_t read_ns(void)
{
	uint64_t r = atomic_load_explicit(&clock_read_ns, memory_order_relaxed);

	if (!r) {
		r = il_work_clock_overhead_ns() | 1;
		atomic_store_explicit(&clock_read_ns, r, memory_order_relaxed);
	}
	return r;
}

static void work_cpu_time(uint64_t ns)
{
	double calib = loops_per_us / 1000.0, v = speed > 0 ? speed : calib;
	uint64_t t0, prev, done = 0, rd = read_ns();
	bool first = true;

	/* Work shorter than two reads of the clock: the loop at the last
	 * speed seen, unmeasured (the reads would be most of it). */
	if (ns < 2 * rd) {
		il_work_loops((uint64_t)(v * (double)ns));
		return;
	}
	/* Half the first read and half the last are outside the span the
	 * reads measure: the call as a whole costs one read more than it. */
	ns -= rd;
	t0 = prev = il_thread_cpu_ns();
	/* Done when what is left is under half a clock read: another piece
	 * would overshoot by more than it makes up. */
	while (done + rd / 2 < ns && !il_work_stopping()) {
		uint64_t left = ns - done, piece = left < PIECE_MAX_NS ? left : PIECE_MAX_NS;
		uint64_t loops, now;

		/* What is left is never all in one piece but near the end:
		 * the speed moves by 10-25% from piece to piece while the
		 * other vCPU is busy, and a piece overshoots by that share. */
		if (left > 8 * rd && piece > (first ? left / 2 : left / 4 * 3))
			piece = first ? left / 2 : left / 4 * 3;
		if (first && !(speed > 0) && piece > LEARN_NS)
			piece = LEARN_NS;
		first = false;
		/* The read that ends the piece is part of it. */
		piece = piece > rd ? piece - rd : 1;
		loops = (uint64_t)(v * (double)piece) + 1;
		il_work_loops(loops);
		now = il_thread_cpu_ns();
		/* A fine clock moves by at least a read between two reads: one
		 * that did not moves in ticks (the run falls back to loops
		 * there, il_run.c); the rest is the loop alone, not a tick's
		 * wait. */
		if (now == prev) {
			il_work_loops((uint64_t)(v * (double)(ns - done)));
			break;
		}
		/* A piece that ran for less than a few reads says little about
		 * the loop's speed; the estimate stays within 16x of the
		 * calibration, whatever one piece suffered (4x clamped a
		 * calibration 4x too high, which test_work makes, at the real
		 * speed, and a slower moment overshot a 10 us call by 60%). */
		if (now - prev > 4 * rd) {
			v = (double)loops / (double)(now - prev - rd);
			if (v > 16 * calib)
				v = 16 * calib;
			else if (v < calib / 16)
				v = calib / 16;
			speed = v;
		}
		prev = now;
		done = now - t0;
	}
}

void il_work_us(uint64_t us)
{
	uint64_t loops, piece;

	if (!us)
		return;
	if (model == IL_WORK_CPU_TIME) {
		work_cpu_time((uint64_t)((double)us * 1000.0 * scale));
		return;
	}
	loops = (uint64_t)(loops_per_us * scale * (double)us);
	piece = (uint64_t)(loops_per_us * WORK_PIECE_US);

	/* A handler's usual work (under a millisecond) is one piece: the loop
	 * it was calibrated with, untouched. */
	while (loops > piece && !il_work_stopping()) {
		il_work_loops(piece);
		loops -= piece;
	}
	if (loops && !il_work_stopping())
		il_work_loops(loops);
}
