/*
 * The context of the classic tracepoint sched/sched_switch, as its format
 * file (events/sched/sched_switch/format) lays it out on kernel 6.x: an
 * 8-byte common header (type, flags, preempt count, pid), then the
 * fields. Every classic sched_switch program here reads it: spin/'s on-CPU
 * records, attrib/'s capture, bench/'s floor and on-CPU clock. BPF side
 * only; classic, because lockdown zeroes tp_btf pointer reads on some
 * machines.
 */
#ifndef IL_SCHED_SWITCH_ARGS_H
#define IL_SCHED_SWITCH_ARGS_H

#include <linux/types.h>

struct il_sched_switch_args {
	__u64 common;	    /* offset 0 */
	char prev_comm[16]; /* offset 8 */
	__s32 prev_pid;	    /* offset 24 */
	__s32 prev_prio;    /* offset 28 */
	__s64 prev_state;   /* offset 32 */
	char next_comm[16]; /* offset 40 */
	__s32 next_pid;	    /* offset 56 */
	__s32 next_prio;    /* offset 60 */
};

#endif
