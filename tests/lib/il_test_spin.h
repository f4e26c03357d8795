/*
 * The mutual-exclusion stress both spin tests run (test_spin with each
 * on-CPU source, test_spin_bpf with the real BPF records).
 */
#ifndef IL_TEST_SPIN_H
#define IL_TEST_SPIN_H

#include "il_spin.h"

/* For il_test_spin_stress: lock with il_spin_mutex_lock, the process-wide source. */
#define IL_TEST_SPIN_PROCESS_WIDE (-1)

/*
 * nthreads (at most 16) threads each take one il_spin mutex iters times,
 * with source src (an enum il_spin_source, or IL_TEST_SPIN_PROCESS_WIDE),
 * yielding the CPU now and then while they hold it. Asserts that the
 * count is exact, that every holder saw its own tid as the owner and that
 * the mutex ends free; fails (instead of hanging) if the threads are not
 * done within limit_s, which is what a lost wake-up looks like.
 */
void il_test_spin_stress(int src, int nthreads, unsigned long iters, int limit_s);

/* The same with cs_ns of busy work inside every section: long enough
 * (past IL_SPIN_FAIR_NS) that spinners ask for handoffs. */
void il_test_spin_stress_cs(int src, int nthreads, unsigned long iters, uint64_t cs_ns,
			    int limit_s);

/*
 * As il_test_spin_stress_cs, with every other thread taking the lock by
 * il_spin_mutex_timedlock, deadlines 0 to 4 sections away, retrying each
 * timeout: waiters leave with the waiters bit set while others ask for
 * and are handed the lock. Returns how many timed calls timed out.
 */
unsigned long il_test_spin_stress_timed(int src, int nthreads, unsigned long iters, uint64_t cs_ns,
					int limit_s);

#endif
