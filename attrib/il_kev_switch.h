/*
 * The sched_switch side of a BPF program that records struct il_kev: the
 * record of one switch, from the tracepoint's context
 * (common/il_sched_switch_args.h). Shared by
 * attrib.bpf.c and bench/bpf-floor.bpf.c, so that the floor's "emit" step
 * times exactly what attribution does per emitted switch. BPF side only.
 */
#ifndef IL_KEV_SWITCH_H
#define IL_KEV_SWITCH_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "il_kev.h"
#include "il_sched_switch_args.h"

/* Copies a 16-byte comm out of the context with two aligned 8-byte loads
 * (the only reads a tracepoint context allows). */
static __always_inline void il_kev_comm_copy(char *dst, const char *src)
{
	((__u64 *)dst)[0] = ((const __u64 *)src)[0];
	((__u64 *)dst)[1] = ((const __u64 *)src)[1];
}

/* Fills a reserved record with the switch on CPU cpu, stamped now. */
static __always_inline void il_kev_fill_switch(struct il_kev *e,
					       const struct il_sched_switch_args *ctx, __u32 cpu)
{
	e->ts_ns = bpf_ktime_get_ns();
	e->type = IL_KEV_SWITCH;
	e->cpu = (__u16)cpu;
	e->pid = ctx->prev_pid;
	e->pid2 = ctx->next_pid;
	e->prio = ctx->prev_prio;
	e->prio2 = ctx->next_prio;
	e->arg = (__s32)ctx->prev_state;
	e->waking_ns = 0;
	il_kev_comm_copy(e->comm, ctx->prev_comm);
	il_kev_comm_copy(e->comm2, ctx->next_comm);
}

#endif
