/*
 * What a sched_switch BPF program costs a context switch (lock-bench):
 * il_spin's on-CPU program against none and against an empty program at
 * the same hook (switch-floor.bpf.c), by pipe ping-pong between two
 * processes on one CPU; and the futex sleep/wake round trip, what a
 * waiter pays to sleep instead of spinning.
 */
#ifndef IL_SWITCH_COST_H
#define IL_SWITCH_COST_H

#include "il_oncpu.h"

/*
 * Turning rounds of the three ping-pongs, by default (about 7 s for one
 * hook on the 2-CPU VM), and the fewest and most a caller may ask for:
 * under 6 the median has no 95% interval.
 */
#define IL_SWITCH_ROUNDS     21
#define IL_SWITCH_ROUNDS_MIN 6
#define IL_SWITCH_ROUNDS_MAX 1000
/* Issue 17: a tracepoint program's published cost (sched_ext's LAVD). */
#define IL_SWITCH_TARGET_NS 130

/* What a sched_switch program adds to a context switch, and its floor. */
struct il_switch_cost {
	/* Medians over the rounds, each with its 95% interval (il_stats). */
	double cost_ns, cost_lo_ns, cost_hi_ns;	   /* il_spin's program, NAN: not measured (why) */
	double floor_ns, floor_lo_ns, floor_hi_ns; /* an empty program at the hook, NAN: none */
	double base_ns;				   /* a switch with neither (the fastest round) */
	/* The program less the empty one, within each round: its own work. */
	double own_ns, own_lo_ns, own_hi_ns;
	const char *program; /* the hook: "tp_btf", "raw_tp" or "tracepoint" */
	int rounds;	     /* rounds measured */
	const char *why;
};

/*
 * rounds rounds (IL_SWITCH_ROUNDS_MIN..MAX) of three ping-pongs on CPU cpu, none / il_spin's
 * program prog (AUTO: the hook its loader takes here) / an empty one at
 * the same hook, in an order that turns each round (slow drift then falls
 * on each side alike); each figure is the median over the rounds of the
 * difference within a round, which the noise of a shared VM moves less
 * than the minimum of each side (that swung from -5 to +319 ns for one
 * program here); the median's 95% interval says how much it still moves.
 * NAN cost, with why, when the program cannot be loaded or someone else's
 * copy is already attached (no baseline). The calling thread's affinity
 * is as it was afterwards.
 */
struct il_switch_cost il_switch_cost_measure(enum il_oncpu_prog prog, int cpu, int rounds);

/* Against IL_SWITCH_TARGET_NS: the whole interval of the median on one side, or not. */
const char *il_switch_cost_verdict(const struct il_switch_cost *sc);

/* "+205 ns", or why there is no figure (a program this kernel refused). */
const char *il_switch_ns_or_why(char buf[48], double ns);

/*
 * Sleep/wake round trip (ns) between the calling thread and a peer on CPU
 * peer_cpu: what a waiter pays to go to sleep instead of spinning. The
 * spin budget default is set from it (il_spin.h). NAN when no peer
 * thread could be started.
 */
double il_futex_wake_rtt_ns(int peer_cpu);

#endif
