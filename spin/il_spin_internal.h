/* Shared between il_spin.c (the mutex) and il_spin_source.c (on-CPU source). */
#ifndef IL_SPIN_INTERNAL_H
#define IL_SPIN_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "il_oncpu.h"
#include "il_spin.h"

struct il_spin_global {
	/* Set once by il_spin_init(), cleared by il_spin_close(). */
	struct il_oncpu *_Atomic oncpu;
	/* Test hook replacing the source; data is read after the cb (acquire). */
	int (*_Atomic test_cb)(uint32_t tid, void *data);
	void *_Atomic test_data;
	/* Spin budget converted to loop iterations, so the loop reads no clock. */
	_Atomic uint32_t budget_iters;
	/* Spin iterations after which a spinner asks for a handoff. */
	_Atomic uint32_t fair_iters;
	_Atomic uint64_t budget_ns;
	/* Measured cost of one spin iteration (pause + record load), in ps. */
	_Atomic uint64_t iter_ps;
	/* Anti-starvation handoffs granted so far (tests, lock-bench). */
	_Atomic uint64_t handoffs;
	/* Handoff requests taken back by their spinner (tests). */
	_Atomic uint64_t withdrawals;
	/* Test hook: called by an unlock that hands over, between reading the
	 * slot's TID and the CAS that moves the word (the ABA window). */
	void (*_Atomic test_handoff_pause)(void);
};

extern struct il_spin_global il_spin_g;

/* Measures the spin iteration cost once (pthread_once). */
void il_spin_calibrate(void);

/* Whether source s gives owner information (else: adaptive spin). */
static inline int il_spin_source_aware(enum il_spin_source s)
{
	if (atomic_load_explicit(&il_spin_g.test_cb, memory_order_relaxed))
		return 1;
	return s == IL_SPIN_SOURCE_BPF &&
	       atomic_load_explicit(&il_spin_g.oncpu, memory_order_relaxed);
}

/*
 * On-CPU state of tid as the spin loop sees it under source s:
 * 1 on, 0 off, -1 unknown (spin adaptively instead).
 */
static inline int il_spin_owner_state(enum il_spin_source s, uint32_t tid)
{
	int (*cb)(uint32_t, void *) =
	    atomic_load_explicit(&il_spin_g.test_cb, memory_order_acquire);
	struct il_oncpu *o;

	if (cb)
		return cb(tid, atomic_load_explicit(&il_spin_g.test_data, memory_order_relaxed))
			   ? 1
			   : 0;
	if (s != IL_SPIN_SOURCE_BPF)
		return -1;
	o = atomic_load_explicit(&il_spin_g.oncpu, memory_order_acquire);
	if (!o)
		return -1;
	return il_oncpu_state(o, tid);
}

/* Whether tid left its CPU by blocking (source bpf only; else 0). */
static inline int il_spin_owner_blocked(enum il_spin_source s, uint32_t tid)
{
	struct il_oncpu *o;

	if (s != IL_SPIN_SOURCE_BPF ||
	    atomic_load_explicit(&il_spin_g.test_cb, memory_order_relaxed))
		return 0;
	o = atomic_load_explicit(&il_spin_g.oncpu, memory_order_acquire);
	return o ? il_oncpu_blocked(o, tid) : 0;
}

/*
 * How many times the calling thread has been switched in or out, from its
 * own BPF record (0 without the bpf source): a change during a spin means
 * the spinner itself was preempted.
 */
static inline uint64_t il_spin_self_switches(enum il_spin_source s)
{
	struct il_oncpu *o;

	if (s != IL_SPIN_SOURCE_BPF)
		return 0;
	o = atomic_load_explicit(&il_spin_g.oncpu, memory_order_relaxed);
	return o ? il_oncpu_record(o, il_spin_tid()) & IL_ONCPU_SEQ_MASK : 0;
}

#endif
