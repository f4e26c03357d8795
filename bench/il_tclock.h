/*
 * A per-thread on-CPU clock read without a system call (thread-clock.bpf.c
 * keeps it at every context switch): lock-bench samples the CPU burned in
 * lock() with it, so a sampled acquisition is not one that reached the
 * lock late after two clock_gettime(CLOCK_THREAD_CPUTIME_ID) calls.
 */
#ifndef IL_TCLOCK_H
#define IL_TCLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "il_tclock_rec.h"

struct il_tclock;

/*
 * Loads and attaches the program and maps its records read-only. NULL
 * with why (one line) when this machine cannot (not root, no BPF).
 */
struct il_tclock *il_tclock_open(char *why, size_t len);
void il_tclock_close(struct il_tclock *c); /* NULL-safe */

/* Why the records keep no futex_ns on this machine, or "" when they do. */
const char *il_tclock_futex_why(const struct il_tclock *c);

/*
 * The calling thread's on-CPU time inside futex system calls (ns). It
 * moves only inside those calls, so the thread itself reads it as is.
 */
static inline uint64_t il_tclock_futex_ns(const struct il_tclock_rec *rec)
{
	return ((const volatile struct il_tclock_rec *)rec)->futex_ns;
}

/* The futex calls it made (returned), read alike. */
static inline uint64_t il_tclock_futex_calls(const struct il_tclock_rec *rec)
{
	return ((const volatile struct il_tclock_rec *)rec)->futex_calls;
}

/* Of those, the calls that left the CPU inside (slept, or were preempted). */
static inline uint64_t il_tclock_futex_sleeps(const struct il_tclock_rec *rec)
{
	return ((const volatile struct il_tclock_rec *)rec)->futex_sleeps;
}

/* Switches of the thread the program missed so far (il_tclock_rec.lost). */
static inline uint64_t il_tclock_lost(const struct il_tclock_rec *rec)
{
	return ((const volatile struct il_tclock_rec *)rec)->lost;
}

/*
 * What a futex call costs on a CPU outside its two tracepoints (the
 * system call's entry and exit paths: 1.3 us of a 1.46 us FUTEX_WAKE on
 * the 2-CPU VM, 155 ns between them): the median over batches of calls
 * that return at once, by a thread of its own. NAN, with why, when it
 * cannot be measured here.
 */
double il_tclock_futex_outside_ns(struct il_tclock *c, char *why, size_t len);

/*
 * The same for a call that slept and was woken: its way back to user
 * space restores the FPU state the switch saved, past the exit
 * tracepoint (1.65 us against 1.22 us on the 2-CPU VM, 2026-12: pthread,
 * never spinning, read that 0.4 us as spinning). The median over FUTEX_WAITs woken 50 us
 * apart by a thread of its own (15 ms), less the clock readings' cost.
 * NAN, with why, when it cannot be measured here.
 */
double il_tclock_futex_sleep_outside_ns(struct il_tclock *c, char *why, size_t len);

/*
 * Registers the calling thread, tid: its record once the program has seen
 * the thread switched in (it sleeps a little for that), or NULL when its
 * slot is another registered thread's or no switch-in was seen.
 */
const struct il_tclock_rec *il_tclock_register(struct il_tclock *c, uint32_t tid);
/* Frees the calling thread's slot (rec from il_tclock_register, or NULL). */
void il_tclock_unregister(struct il_tclock *c, const struct il_tclock_rec *rec, uint32_t tid);

/*
 * The calling thread's time on a CPU (ns) since the program first saw it
 * switched in, or 0 when rec is no longer its record. Only the thread
 * itself may call this: its own record changes only while it is off CPU,
 * so a switch inside the read shows as a moved seq, and it reads again.
 */
static inline uint64_t il_tclock_now(const struct il_tclock_rec *rec, uint32_t tid)
{
	const volatile struct il_tclock_rec *r = rec;

	for (;;) {
		uint64_t seq = r->seq, ran, in;
		struct timespec ts;

		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ran = r->ran_ns;
		in = r->in_ns;
		clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (r->seq != seq)
			continue;
		if (r->tid != tid || !in)
			return 0;
		return ran + ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - in);
	}
}

/*
 * A consistent copy of tid's record (seq, ran_ns, in_ns as of one moment):
 * 1, or 0 when the record is not tid's or it never ran since registering.
 */
static inline int il_tclock_snap(const struct il_tclock_rec *rec, uint32_t tid,
				 struct il_tclock_rec *out)
{
	const volatile struct il_tclock_rec *r = rec;

	for (int tries = 0; tries < 8; tries++) {
		out->seq = r->seq;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		out->ran_ns = r->ran_ns;
		out->in_ns = r->in_ns;
		out->tid = r->tid;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (r->seq == out->seq)
			return out->tid == tid && out->in_ns;
	}
	return 0;
}

#endif
