/*
 * Layout of one per-TID on-CPU record, shared by the BPF program
 * (oncpu.bpf.c) and the user-space reader (il_oncpu.c).
 *
 * A BPF_F_MMAPABLE array map stores its values at an 8-byte stride, so one
 * record is one u64 and a reader gets a consistent record with a single
 * aligned load:
 *
 *   bit  63     on-CPU flag (1: the TID is running on a CPU)
 *   bit  62     left its CPU by blocking (not preempted, not yielding)
 *   bits 48-61  CPU number of the last switch (14 bits)
 *   bits 0-47   per-TID switch sequence, +1 on every switch in or out
 *
 * A record of 0 means "never seen since the program was attached", which
 * readers treat as off-CPU: the lock then sleeps instead of spinning, the
 * cheap mistake.
 */
#ifndef IL_ONCPU_STATE_H
#define IL_ONCPU_STATE_H

#define IL_ONCPU_FLAG	   (1ull << 63)
#define IL_ONCPU_CPU_SHIFT 48
#define IL_ONCPU_BLOCKED   (1ull << 62)
#define IL_ONCPU_CPU_MASK  0x3fffull
#define IL_ONCPU_SEQ_MASK  ((1ull << 48) - 1)

/*
 * Whether a record read before a switch check (before) and after it (now)
 * shows a live program: the thread reads on a CPU, or its sequence moved
 * (the program saw it switch). The flag alone is not enough: a switch
 * the kernel never reports leaves a running thread's record reading off
 * (on the test VM, every switch out of the VM agent's threads; the
 * thread switched in after one is never seen coming in), while a dead
 * program, or one whose reads come back 0, never moves the sequence.
 */
static inline int il_oncpu_record_live(unsigned long long before, unsigned long long now)
{
	return (now & IL_ONCPU_FLAG) || ((now ^ before) & IL_ONCPU_SEQ_MASK);
}

/* The largest map the publisher creates: 4M TIDs x 8 B = 32 MiB. */
#define IL_ONCPU_MAX_ENTRIES (1u << 22)

/* Names of the pinned objects inside the pin directory. */
#define IL_ONCPU_PIN_DIR  "/sys/fs/bpf/inputlat"
#define IL_ONCPU_PIN_MAP  "oncpu_map"
#define IL_ONCPU_PIN_LINK "oncpu_link"

#endif
