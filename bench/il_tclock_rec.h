/*
 * One thread's record in the on-CPU clock map (thread-clock.bpf.c), shared
 * by the BPF program and its reader (il_tclock.c). A slot is the TID's low
 * bits; `tid` says whose it is, so a reader never takes another thread's.
 */
#ifndef IL_TCLOCK_REC_H
#define IL_TCLOCK_REC_H

#include <linux/types.h>

#define IL_TCLOCK_SLOTS 4096u /* a power of two: slot = tid & (SLOTS - 1) */

struct il_tclock_rec {
	__u64 seq;    /* +1 at every switch of the thread: a reader retries if it moved */
	__u64 ran_ns; /* on a CPU up to its last switch-out */
	__u64 in_ns;  /* bpf_ktime_get_ns (CLOCK_MONOTONIC) at its last switch-in, 0: none yet */
	__u64 tid;    /* the registered thread, 0: free */
};

#endif
