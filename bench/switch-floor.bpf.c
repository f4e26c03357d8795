// SPDX-License-Identifier: GPL-2.0
/*
 * Empty sched_switch programs, one for each kind of hook il_spin's loader
 * tries (spin/oncpu.bpf.c): lock-bench measures what il_spin's program
 * adds to a context switch against what running any program at that hook
 * adds, the floor no program there can go below.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("tp_btf/sched_switch")
int floor_switch_btf(__u64 *ctx)
{
	return 0;
}

SEC("raw_tp/sched_switch")
int floor_switch_raw(__u64 *ctx)
{
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int floor_switch_tp(void *ctx)
{
	return 1; /* as il_oncpu_switch: 0 would drop the event for perf users */
}

char LICENSE[] SEC("license") = "GPL";
