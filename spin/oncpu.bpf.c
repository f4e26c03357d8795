// SPDX-License-Identifier: GPL-2.0
/*
 * Publishes, per TID, whether the thread is on a CPU, and whether it left
 * its last one by blocking (not by preemption), for the adaptive spinning
 * lock in il_spin.c. Three programs, one loaded: the loader
 * (il_oncpu.c) tries them in this order and keeps the first whose records
 * show the loading thread on its CPU.
 *
 * il_oncpu_switch_btf, a BTF tracepoint: typed arguments, the two TIDs
 * read with plain (fault-safe) loads. Cheapest of the three by design; on
 * the 2-CPU test VM (2026-12) it adds +100 to +320 ns to a context switch
 * from run to run, the records themselves within the noise of an empty
 * program at the same hook (lock-bench measures both; a per-CPU layout
 * writing one record instead of two was tried and saved under 15 ns).
 * Under some kernel lockdowns its pointer reads return 0 (nothing is
 * recorded, the check fails, the loader moves on).
 *
 * il_oncpu_switch_raw, a raw tracepoint: prev is the current task at
 * sched_switch (bpf_get_current_pid_tgid), next's TID a CO-RE probe read.
 *
 * il_oncpu_switch, a classic tracepoint, where the others are refused: the
 * context is the raw trace record, laid out as in
 * /sys/kernel/tracing/events/sched/sched_switch/format.
 */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "il_oncpu_state.h"
#include "il_sched_switch_args.h"

/* Field offsets from the sched_switch format file (kernel 6.x). */
/*
 * The user-space loader sizes the map to pid_max (capped at
 * IL_ONCPU_MAX_ENTRIES) before loading; TIDs beyond it are not recorded.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32768);
} oncpu SEC(".maps");

static __always_inline void record(__u32 tid, __u64 on, __u64 cpu)
{
	__u64 *v, old;

	/* TID 0 is the idle task of every CPU: no lock owner is ever 0. */
	if (tid == 0)
		return;
	v = bpf_map_lookup_elem(&oncpu, &tid);
	if (!v)
		return;
	old = *v;
	/*
	 * One aligned 8-byte store, so a reader never sees a torn record.
	 * Writers for one TID are serialised by the scheduler: a task is
	 * switched in on one CPU only after it was switched out elsewhere.
	 */
	*(volatile __u64 *)v = on | ((cpu & IL_ONCPU_CPU_MASK) << IL_ONCPU_CPU_SHIFT) |
			       ((old + 1) & IL_ONCPU_SEQ_MASK);
}

/* Only the field we read; libbpf relocates its offset from the kernel's BTF. */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

SEC("tp_btf/sched_switch")
int il_oncpu_switch_btf(__u64 *ctx)
{
	/* TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next, ...) */
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	__u64 cpu = bpf_get_smp_processor_id();

	/* ctx[0] preempt, ctx[3] prev_state: blocked = left by its own sleep */
	record((__u32)prev->pid, !ctx[0] && (__u32)ctx[3] ? IL_ONCPU_BLOCKED : 0, cpu);
	record((__u32)next->pid, IL_ONCPU_FLAG, cpu);
	return 0;
}

SEC("raw_tp/sched_switch")
int il_oncpu_switch_raw(__u64 *ctx)
{
	/* TP_PROTO(bool preempt, struct task_struct *prev, struct task_struct *next, ...) */
	struct task_struct *next = (struct task_struct *)ctx[2];
	__u64 cpu = bpf_get_smp_processor_id();
	__u32 next_pid = 0;

	record((__u32)bpf_get_current_pid_tgid(), !ctx[0] && (__u32)ctx[3] ? IL_ONCPU_BLOCKED : 0,
	       cpu);
	if (bpf_core_read(&next_pid, sizeof(next_pid), &next->pid) == 0)
		record(next_pid, IL_ONCPU_FLAG, cpu);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int il_oncpu_switch(struct il_sched_switch_args *ctx)
{
	__u64 cpu = bpf_get_smp_processor_id();

	/* A preempted task reports TASK_REPORT_MAX (0x100), a sleeping one S/D/... */
	record((__u32)ctx->prev_pid, ctx->prev_state & 0xff ? IL_ONCPU_BLOCKED : 0, cpu);
	record((__u32)ctx->next_pid, IL_ONCPU_FLAG, cpu);
	return 1; /* 0 would drop the event for every perf user of sched_switch */
}

char LICENSE[] SEC("license") = "GPL";
