/*
 * The per-CPU event rings between the BPF capture (producer, see
 * il_kring.bpf.h) and user space (consumer, il_kring_reader.c): the
 * layout both sides agree on. Fixed-size types only.
 *
 * Why not a BPF ring buffer: its reserve takes a spinlock with interrupts
 * off, shared by every CPU, and was most of the capture's cost (bench/
 * bpf-floor: 125 ns of a 179 ns sched_switch program). Here each CPU
 * writes its own ring, claiming a slot with a local atomic add (a
 * softirq program can be interrupted by a hardirq one on the same CPU,
 * so a plain increment would not do) and marking it complete with a
 * sequence word written last; the reader, which shares the rings by
 * mmap, merges the CPUs by time.
 *
 * Two BPF_F_MMAPABLE arrays:
 *   kring      ncpus * cap slots (struct il_kring_slot), CPU c's ring
 *              from index c * cap; cap a power of two;
 *   kring_pos  per CPU, u64 at index c * IL_KRING_POS_STRIDE: the head
 *              (slots ever claimed, written by BPF), and at + TAIL: the
 *              tail (slots the reader is done with, written by it). Head
 *              and tail sit on different cache lines.
 */
#ifndef IL_KRING_H
#define IL_KRING_H

#include <linux/types.h>

#include "il_kev.h"

struct il_kring_slot {
	struct il_kev ev;
	/* index + 1 once ev is complete; anything else: still being written
	 * (or, after a wrap, an older lap's record). */
	__u64 seq;
};

#define IL_KRING_POS_STRIDE 16 /* u64s per CPU: 128 bytes, two cache lines */
#define IL_KRING_TAIL	    8  /* the tail's offset within a CPU's stride */
/* Slots a producer leaves free: programs nested on one CPU (softirq,
 * hardirq, a wake-up inside it) each claim one after the fullness check. */
#define IL_KRING_SLACK 16
/*
 * Slots per CPU: 320 KiB of 80-byte slots, a ring that stays in a CPU's
 * L2 (512 KiB on this machine's EPYC) lap after lap. Its programs write
 * the next slot at every event, and a ring larger than the cache (65536
 * slots a CPU, 16 MiB in all, before) made every slot a cache miss: the
 * emitted sched_switch cost 420-480 ns against 270-310 here, sched_wakeup
 * 380-430 against 250-270 (interleaved runs, 2026-12-05). Drained every
 * 20 ms (the orchestrator's tick), it holds 200,000 events a second a
 * CPU; a fuller ring drops, and the events of that time are marked lost.
 */
#define IL_KRING_CAP 4096u

#endif
