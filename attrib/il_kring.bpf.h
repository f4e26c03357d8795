/*
 * The producer side of the per-CPU event rings (layout: il_kring.h).
 * BPF side only; included by one program object each (attrib.bpf.c, and
 * bench/bpf-floor.bpf.c so that the floor times this very code). The
 * loader sizes `kring` to ncpus * kring_cap and `kring_pos` to
 * ncpus * IL_KRING_POS_STRIDE, and sets kring_cap, before loading.
 *
 *	struct il_kring_slot *s = il_kring_claim(cpu, &idx);
 *	if (s) { fill s->ev; il_kring_commit(s, idx); }
 */
#ifndef IL_KRING_BPF_H
#define IL_KRING_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "il_kring.h"

/* Slots per CPU, a power of two (set by the loader). */
const volatile __u32 kring_cap = IL_KRING_CAP;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct il_kring_slot);
	__uint(max_entries, 1);
} kring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, IL_KRING_POS_STRIDE);
} kring_pos SEC(".maps");

/* Records a full ring had no room for, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} kring_drops SEC(".maps");

static __always_inline void il_kring_dropped(void)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(&kring_drops, &zero);

	if (d)
		(*d)++;
}

/*
 * Claims the next slot of CPU cpu's ring (the CPU this program runs on),
 * or returns NULL when the ring is full (counted in kring_drops). Once a
 * slot is claimed it must be committed: the reader waits at an
 * uncommitted slot.
 */
static __always_inline struct il_kring_slot *il_kring_claim(__u32 cpu, __u64 *idx)
{
	__u32 hk = cpu * IL_KRING_POS_STRIDE, tk = hk + IL_KRING_TAIL, key;
	__u64 *head = bpf_map_lookup_elem(&kring_pos, &hk);
	__u64 *tail = bpf_map_lookup_elem(&kring_pos, &tk);
	struct il_kring_slot *s;

	if (!head || !tail)
		return NULL;
	if (*head - *tail >= kring_cap - IL_KRING_SLACK) {
		il_kring_dropped();
		return NULL;
	}
	*idx = __sync_fetch_and_add(head, 1);
	key = cpu * kring_cap + ((__u32)*idx & (kring_cap - 1));
	s = bpf_map_lookup_elem(&kring, &key);
	/* Never NULL: cpu < the possible CPUs the ring was sized to. Were it
	 * NULL, the reader would wait at the slot, then count it lost. */
	return s;
}

/*
 * Marks the slot complete. The sequence word is written last, after a
 * compiler barrier; on x86 (TSO) the CPU keeps stores in program order,
 * so a reader that sees seq sees the record.
 */
static __always_inline void il_kring_commit(struct il_kring_slot *s, __u64 idx)
{
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&s->seq = idx + 1;
}

#endif
