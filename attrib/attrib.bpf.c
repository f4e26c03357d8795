// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduling events of one inputlat run, for the decomposition of every
 * hop (il_attrib.c). Classic tracepoint programs: each context is the raw
 * trace record, laid out as in /sys/kernel/tracing/events/<group>/<name>/format
 * on kernel 6.x (tp_btf is not used: under lockdown its pointer reads
 * return 0). Events go to per-CPU rings (il_kring.bpf.h) without waking
 * the reader, which drains them on a timer: a wake-up per event would
 * itself be a scheduling event of the reader.
 *
 * The classic tracepoint programs return 1: 0 would drop the event for
 * every perf user of the tracepoint too (`perf sched record` beside a run
 * saw no sched_switch), since the kernel passes an event on to perf only
 * when its BPF programs all return non-zero. IL_TP_PASS names that.
 *
 * Filtering happens here, so the rings carry what matters only:
 *   - wake-ups and migrations of the run's threads (the `threads` map,
 *     filled by user space once the children report ready);
 *   - every switch that involves one of them, and every switch on a CPU
 *     where one of them waits (runnable, not running): who held the CPU;
 *   - interrupts and softirqs that interrupt one of them.
 * Where a thread waits is kept per thread (its queued CPU) and per CPU
 * (how many wait there), updated from the same tracepoints.
 *
 * What changes at every event is padded to a cache line's size (a
 * thread's state, a CPU's count of waiters: an array map aligns its
 * values to 8 bytes only, so one may still share a line with a
 * neighbour's edge); what every event reads (threads[]) is written by
 * user space alone. The state once lived in threads[] beside TRACKED:
 * the run's threads have consecutive tids, so both CPUs wrote the same
 * few lines at every switch (6% slower in interleaved runs).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "il_kev.h"
#include "il_kev_switch.h"
#include "il_kring.bpf.h"

/* What a classic tracepoint program returns: pass the event on to perf. */
#define IL_TP_PASS 1

/* threads[tid]: TRACKED and the thread's slot in `tstate` (1 and up), set
 * by user space when it tracks the thread and never written here. */
#define TRACKED	 0x80000000u
#define SLOTMASK 0xffffu

/* Sized by the loader to pid_max before loading. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 32768);
} threads SEC(".maps");

/*
 * A tracked thread's state, 64 bytes each: ONCPU while it runs and
 * 1 + the CPU it waits on (0: not waiting) in `q`; and its pending
 * sched_waking, kept until its sched_wakeup so that a wake-up costs one
 * record, not two (sched_wakeup always follows sched_waking:
 * try_to_wake_up() fires the first only once the wake-up is certain).
 */
#define ONCPU 0x40000000u
#define QMASK 0xffffu

struct tstate {
	__u32 q;
	__s32 waker;
	__u64 waking_ts; /* 0: no sched_waking pending */
	__u8 pad[48];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct tstate);
	__uint(max_entries, IL_KEV_MAX_TRACKED + 1);
} tstate SEC(".maps");

/* waiters[cpu]: the run's threads waiting on that CPU (sized to the CPUs),
 * 64 bytes each: every CPU counts waiters on the others. */
struct waiter_count {
	__s32 n;
	__u8 pad[60];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct waiter_count);
	__uint(max_entries, 1024);
} waiters SEC(".maps");

/* Per CPU: whether the interrupt now running was emitted (bit 0 hardirq,
 * bit 1 softirq, bit 2 timer), so that an exit is emitted exactly when
 * its entry was, whatever the filter says in between. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} irqstate SEC(".maps");

/* Context layouts, offsets from the format files (common header: 8 bytes);
 * sched_switch's is in il_kev_switch.h. */
struct wake_args { /* sched_waking, sched_wakeup */
	__u64 common;
	char comm[16];
	__s32 pid;
	__s32 prio;
	__s32 target_cpu;
};

struct migrate_args {
	__u64 common;
	__u32 comm_loc; /* __data_loc char[] */
	__s32 pid;
	__s32 prio;
	__s32 orig_cpu;
	__s32 dest_cpu;
};

/* The state of a tracked thread, NULL for any other. */
static __always_inline struct tstate *tstate_of(__s32 tid)
{
	__u32 key = (__u32)tid, *v = bpf_map_lookup_elem(&threads, &key), slot;

	if (!v || !(*v & TRACKED))
		return NULL;
	slot = *v & SLOTMASK;
	return slot ? bpf_map_lookup_elem(&tstate, &slot) : NULL;
}

static __always_inline void waiters_add(__u32 cpu, __s32 d)
{
	struct waiter_count *w = bpf_map_lookup_elem(&waiters, &cpu);

	if (w)
		__sync_fetch_and_add(&w->n, d);
}

static __always_inline int cpu_has_waiters(__u32 cpu)
{
	struct waiter_count *w = bpf_map_lookup_elem(&waiters, &cpu);

	return w && w->n > 0;
}

/* The thread stops waiting wherever it waited. */
static __always_inline __u32 unqueue(__u32 v)
{
	if (v & QMASK)
		waiters_add((v & QMASK) - 1, -1);
	return v & ~QMASK;
}

static __always_inline __u32 queue_on(__u32 v, __u32 cpu)
{
	v = unqueue(v);
	waiters_add(cpu, 1);
	return v | ((cpu + 1) & QMASK);
}

SEC("tracepoint/sched/sched_switch")
int il_attrib_switch(struct il_sched_switch_args *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct tstate *ps = tstate_of(ctx->prev_pid), *ns = tstate_of(ctx->next_pid);
	int emit = cpu_has_waiters(cpu);
	struct il_kring_slot *s;
	struct il_kev *e;
	__u64 idx;

	if (ps) {
		emit = 1;
		/* Switched out still runnable (preempted, yielded): it waits here. */
		if ((ctx->prev_state & IL_KEV_STATE_MASK) == 0)
			ps->q = queue_on(ps->q, cpu) & ~ONCPU;
		else
			ps->q = unqueue(ps->q) & ~ONCPU;
	}
	if (ns) {
		emit = 1;
		ns->q = unqueue(ns->q) | ONCPU;
	}
	if (!emit)
		return IL_TP_PASS;
	s = il_kring_claim(cpu, &idx);
	if (!s)
		return IL_TP_PASS;
	e = &s->ev;
	il_kev_fill_switch(e, ctx, cpu);
	il_kring_commit(s, idx);
	return IL_TP_PASS;
}

static __always_inline int wake(struct wake_args *ctx, __u16 type)
{
	struct tstate *st = tstate_of(ctx->pid);
	struct il_kring_slot *s;
	struct il_kev *e;
	__u64 idx;
	__u32 cpu;

	if (!st)
		return IL_TP_PASS;
	if (type == IL_KEV_WAKING) {
		/* In sched_waking the current task is the waker. */
		st->waking_ts = bpf_ktime_get_ns();
		st->waker = (__s32)bpf_get_current_pid_tgid();
		return IL_TP_PASS;
	}
	/* sched_wakeup also fires for a task that never left its CPU (woken
	 * while it was about to sleep): it waits nowhere. */
	if (!(st->q & ONCPU))
		st->q = queue_on(st->q, (__u32)ctx->target_cpu);
	cpu = bpf_get_smp_processor_id();
	s = il_kring_claim(cpu, &idx);
	if (!s)
		return IL_TP_PASS;
	e = &s->ev;
	e->ts_ns = bpf_ktime_get_ns();
	e->type = type;
	e->cpu = (__u16)cpu;
	e->pid = ctx->pid;
	e->pid2 = (__s32)bpf_get_current_pid_tgid();
	e->prio = ctx->prio;
	e->prio2 = 0;
	e->arg = ctx->target_cpu;
	e->waking_ns = 0;
	if (st->waking_ts) {
		e->waking_ns = st->waking_ts;
		e->pid2 = st->waker;
		st->waking_ts = 0;
	}
	il_kev_comm_copy(e->comm, ctx->comm);
	((__u64 *)e->comm2)[0] = 0;
	((__u64 *)e->comm2)[1] = 0;
	il_kring_commit(s, idx);
	return IL_TP_PASS;
}

SEC("tracepoint/sched/sched_waking")
int il_attrib_waking(struct wake_args *ctx)
{
	return wake(ctx, IL_KEV_WAKING);
}

SEC("tracepoint/sched/sched_wakeup")
int il_attrib_wakeup(struct wake_args *ctx)
{
	return wake(ctx, IL_KEV_WAKEUP);
}

SEC("tracepoint/sched/sched_migrate_task")
int il_attrib_migrate(struct migrate_args *ctx)
{
	struct tstate *st = tstate_of(ctx->pid);
	struct il_kring_slot *s;
	struct il_kev *e;
	__u64 idx;
	__u32 cpu;

	if (!st)
		return IL_TP_PASS;
	/*
	 * A waiting thread moves its wait along; a waking one is not counted
	 * yet. One moved neither running nor being woken is queued: it waits
	 * there even if it began to wait before it was followed (its
	 * sched_wakeup came before the capture), so the CPU's switches are
	 * emitted from now on.
	 */
	if ((st->q & QMASK) || (!(st->q & ONCPU) && !st->waking_ts))
		st->q = queue_on(st->q, (__u32)ctx->dest_cpu);
	cpu = bpf_get_smp_processor_id();
	s = il_kring_claim(cpu, &idx);
	if (!s)
		return IL_TP_PASS;
	e = &s->ev;
	e->ts_ns = bpf_ktime_get_ns();
	e->type = IL_KEV_MIGRATE;
	e->cpu = (__u16)cpu;
	e->pid = ctx->pid;
	e->pid2 = 0;
	e->prio = ctx->prio;
	e->prio2 = 0;
	e->arg = ctx->orig_cpu;
	e->waking_ns = 0;
	e->arg2 = ctx->dest_cpu;
	e->waking = st->waking_ts != 0;
	((__u64 *)e->comm)[0] = 0;
	((__u64 *)e->comm)[1] = 0;
	((__u64 *)e->comm2)[0] = 0;
	((__u64 *)e->comm2)[1] = 0;
	il_kring_commit(s, idx);
	return IL_TP_PASS;
}

static __always_inline int irq(__s32 nr, __u16 type, __u32 bit, int entry)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	__u32 *st = bpf_map_lookup_elem(&irqstate, &zero);
	struct il_kring_slot *s;
	struct il_kev *e;
	__u64 idx;

	if (!st)
		return 0;
	if (entry) {
		/* Interrupt time only counts against a run thread it interrupts
		 * (a handler's work, a busy receiver): nothing else is needed. */
		if (!tstate_of((__s32)bpf_get_current_pid_tgid())) {
			*st &= ~bit;
			return 0;
		}
		*st |= bit;
	} else {
		if (!(*st & bit))
			return 0;
		*st &= ~bit;
	}
	s = il_kring_claim(cpu, &idx);
	if (!s)
		return 0;
	e = &s->ev;
	e->ts_ns = bpf_ktime_get_ns();
	e->type = type;
	e->cpu = (__u16)cpu;
	e->pid = (__s32)bpf_get_current_pid_tgid();
	e->pid2 = 0;
	e->prio = 0;
	e->prio2 = 0;
	e->arg = nr;
	e->waking_ns = 0;
	((__u64 *)e->comm)[0] = 0;
	((__u64 *)e->comm)[1] = 0;
	((__u64 *)e->comm2)[0] = 0;
	((__u64 *)e->comm2)[1] = 0;
	il_kring_commit(s, idx);
	return 0;
}

/*
 * The interrupt events are raw tracepoints: their one argument is a plain
 * integer (irq, softirq vector, timer vector), so no pointer is read and
 * lockdown does not matter. Unlike a classic tracepoint's perf event,
 * whose release waits for RCU grace periods under the kernel's
 * event_mutex (75 ms each here, 0.8 s for eleven at every run's end), a
 * raw tracepoint's link lets go without waiting, and the program skips
 * the copy of the trace record.
 */
SEC("raw_tracepoint/irq_handler_entry")
int il_attrib_irq_entry(struct bpf_raw_tracepoint_args *ctx)
{
	return irq((__s32)ctx->args[0], IL_KEV_IRQ_ENTRY, 1, 1);
}

SEC("raw_tracepoint/irq_handler_exit")
int il_attrib_irq_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return irq((__s32)ctx->args[0], IL_KEV_IRQ_EXIT, 1, 0);
}

SEC("raw_tracepoint/softirq_entry")
int il_attrib_softirq_entry(struct bpf_raw_tracepoint_args *ctx)
{
	return irq((__s32)ctx->args[0], IL_KEV_SOFTIRQ_ENTRY, 2, 1);
}

SEC("raw_tracepoint/softirq_exit")
int il_attrib_softirq_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return irq((__s32)ctx->args[0], IL_KEV_SOFTIRQ_EXIT, 2, 0);
}

/* x86's local APIC timer (the tick, hrtimers): not a device IRQ, so
 * irq_handler_* never shows it. Attached only where it exists. */
SEC("raw_tracepoint/local_timer_entry")
int il_attrib_timer_entry(struct bpf_raw_tracepoint_args *ctx)
{
	return irq((__s32)ctx->args[0], IL_KEV_TIMER_ENTRY, 4, 1);
}

SEC("raw_tracepoint/local_timer_exit")
int il_attrib_timer_exit(struct bpf_raw_tracepoint_args *ctx)
{
	return irq((__s32)ctx->args[0], IL_KEV_TIMER_EXIT, 4, 0);
}

char LICENSE[] SEC("license") = "GPL";
