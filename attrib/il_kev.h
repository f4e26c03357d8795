/*
 * One kernel scheduling event as the BPF program (attrib.bpf.c) hands it
 * to user space through the per-CPU rings (il_kring.h), and as the decomposition engine
 * (il_attrib.c) reads it. Shared by both sides, so fixed-size types only.
 * Time is bpf_ktime_get_ns(): CLOCK_MONOTONIC, the clock of the hop stamps.
 */
#ifndef IL_KEV_H
#define IL_KEV_H

#include <linux/types.h>

enum il_kev_type {
	IL_KEV_SWITCH = 1,    /* pid: prev, pid2: next, arg: prev_state */
	IL_KEV_WAKING,	      /* pid woken by pid2 (the waker, current), arg: its previous CPU */
	IL_KEV_WAKEUP,	      /* pid is runnable on CPU arg; when waking_ns is set, its
			       * sched_waking came then, from pid2 (no IL_KEV_WAKING sent) */
	IL_KEV_RESERVED,      /* was sched_wakeup_new: never of a followed thread */
	IL_KEV_MIGRATE,	      /* pid moves from CPU arg to CPU arg2; waking 1: placed by a
			       * wake-up (its sched_waking pending), 0: moved while queued */
	IL_KEV_IRQ_ENTRY,     /* hardirq arg (irq number) starts on cpu */
	IL_KEV_IRQ_EXIT,      /* ... ends */
	IL_KEV_SOFTIRQ_ENTRY, /* softirq vector arg starts on cpu */
	IL_KEV_SOFTIRQ_EXIT,  /* ... ends */
	IL_KEV_TIMER_ENTRY,   /* the local APIC timer interrupt (x86) starts */
	IL_KEV_TIMER_EXIT,    /* ... ends */
	IL_KEV_NTYPES
};

/* prev_state bits as sched_switch reports them (its format file): the low
 * byte is the sleep state, 0 ("R") when the task stays runnable;
 * 0x100 ("+") marks a preemption. */
#define IL_KEV_STATE_MASK    0xff
#define IL_KEV_STATE_PREEMPT 0x100

/* Kernel priorities: 0..99 RT (99 - rt_priority), 100..139 fair (120 + nice),
 * -1 deadline. */
#define IL_KEV_PRIO_FAIR 100

/* Threads the capture follows at most (slots of its per-thread state). */
#define IL_KEV_MAX_TRACKED 1024

struct il_kev {
	__u64 ts_ns;
	__u16 type; /* enum il_kev_type */
	__u16 cpu;  /* the CPU the event happened on */
	__s32 pid, pid2;
	__s32 prio, prio2; /* switch: prev, next; wakes: the woken task's */
	__s32 arg;
	union {
		struct {
			__s32 arg2;
			__u32 waking; /* IL_KEV_MIGRATE */
		};
		__u64 waking_ns; /* IL_KEV_WAKEUP */
	};
	char comm[16];	/* switch: prev_comm; wakes: the woken task's */
	char comm2[16]; /* switch: next_comm */
};

#endif
