// SPDX-License-Identifier: GPL-2.0
/*
 * A per-thread on-CPU clock that its own thread reads without a system
 * call: lock-bench samples the CPU a lock() burns with it. Reading
 * CLOCK_THREAD_CPUTIME_ID instead costs two system calls right before
 * lock(), and a thread that just spent them reaches the lock later than
 * its rivals: those sampled acquisitions waited 3 to 120 times as long as
 * the others on the 2-CPU VM (2026-12), so their CPU was not the CPU of
 * an acquisition. Classic tracepoint: lockdown zeroes tp_btf pointer
 * reads on some machines, and lock-bench's threads register their TID.
 *
 * The futex system calls' entry and exit add up the on-CPU time spent
 * inside them (futex_ns): lock() burns CPU spinning or in the futex calls
 * of going to sleep and waking (4 us a sleep here), and only the first
 * is spinning. A call that slept is counted apart (futex_sleeps): its way
 * back to user space, past the exit tracepoint, restores the FPU state a
 * switch saved, and costs more than the way out of a call that did not.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "il_sched_switch_args.h"
#include "il_tclock_rec.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct il_tclock_rec);
	__uint(max_entries, IL_TCLOCK_SLOTS);
} tclock SEC(".maps");

static __always_inline struct il_tclock_rec *rec_of(int tid)
{
	__u32 k = (__u32)tid & (IL_TCLOCK_SLOTS - 1);
	struct il_tclock_rec *r;

	if (tid <= 0)
		return 0;
	r = bpf_map_lookup_elem(&tclock, &k);
	return r && r->tid == (__u64)tid ? r : 0;
}

SEC("tracepoint/sched/sched_switch")
int il_tclock_switch(struct il_sched_switch_args *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct il_tclock_rec *r = rec_of(ctx->prev_pid);

	/*
	 * A record's writers are serialised by the scheduler (a thread is
	 * switched in on one CPU only after it left the other), and its
	 * reader is the thread itself, running: it sees seq move if a
	 * switch fell inside its read.
	 *
	 * in_ns is 0 while off CPU: a switch-in the program missed (the
	 * kernel emits none for some, il_tclock_rec.h) then reads as "not
	 * running" (0 to the reader), not as a slice that began at the last
	 * switch-in seen, which counted the whole time off CPU (44.3 ms for
	 * 40.0 of thread CPU under stress-ng's start-up, 1 reading in 20).
	 */
	if (r && r->in_ns) {
		r->ran_ns += now - r->in_ns;
		r->in_ns = 0;
		r->seq++;
	} else if (r && r->seq) {
		r->lost++; /* out, never seen in */
	}
	r = rec_of(ctx->next_pid);
	if (r) {
		if (r->in_ns)
			r->lost++; /* in again, never seen out: that slice is missing */
		r->in_ns = now;
		r->seq++;
	}
	return 1; /* 0 would drop the event for every perf user of sched_switch */
}

/* The calling thread's record, if registered and seen switched in. */
static __always_inline struct il_tclock_rec *current_rec(void)
{
	struct il_tclock_rec *r = rec_of((int)(__u32)bpf_get_current_pid_tgid());

	return r && r->in_ns ? r : 0;
}

/* On a CPU now: the thread runs this, so its clock is ran + (now - in). */
SEC("tracepoint/syscalls/sys_enter_futex")
int il_tclock_futex_enter(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct il_tclock_rec *r = current_rec();

	if (r) {
		r->futex_in = r->ran_ns + (now - r->in_ns);
		r->futex_seq = r->seq;
	}
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int il_tclock_futex_exit(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct il_tclock_rec *r = current_rec();
	__u64 clock;

	if (!r || !r->futex_in)
		return 0;
	/* Asleep in between: sched_switch moved ran_ns and in_ns on. */
	clock = r->ran_ns + (now - r->in_ns);
	if (clock > r->futex_in)
		r->futex_ns += clock - r->futex_in;
	r->futex_in = 0;
	r->futex_calls++;
	if (r->seq != r->futex_seq)
		r->futex_sleeps++; /* switched out and in again inside the call */
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
