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
	/* On a CPU inside futex system calls: the sleeping part of a lock()'s
	 * CPU, which the rest of it (spinning) is told apart from. */
	__u64 futex_ns;
	__u64 futex_in; /* its on-CPU clock at entering the current futex call, 0: none */
	__u64
	    futex_calls; /* futex calls returned: what the entry and exit paths cost
			  * outside the two tracepoints is per call (il_tclock_futex_outside_ns) */
	__u64 futex_seq; /* seq at entering the current futex call */
	/* Of futex_calls, those that left the CPU (seq moved inside them): their
	 * way back to user space costs more outside the tracepoints than a call
	 * that returned at once (il_tclock_futex_sleep_outside_ns). */
	__u64 futex_sleeps;
	/*
	 * Switches the program did not see, found by the one it saw next (a
	 * switch-out while not seen in, a switch-in while not seen out): 1
	 * reading in 20 under stress-ng's start-up on the 2-CPU VM (2026-12).
	 * The kernel emits no sched_switch for some switches there (the
	 * attribution sees a thread of PID 1 switched in every second with
	 * none, tracefs and BPF alike: il_attrib.c). The clock is then off by
	 * a time slice; a reading that spans a change of `lost` is left out.
	 */
	__u64 lost;
};

#endif
