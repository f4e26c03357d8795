// SPDX-License-Identifier: GPL-2.0
/*
 * bench/bpf-floor: what a classic sched_switch tracepoint program costs on
 * this machine before it does anything of attribution's (attrib.bpf.c), in
 * steps, each a program of its own on the same tracepoint so that the
 * kernel's run-time statistics time each step under the same load:
 *   empty    - returns at once: the call itself (and the statistics' own
 *              clock reads), the floor of any program;
 *   lookup   - the two `threads` lookups and the `waiters` lookup of
 *              il_attrib_switch, nothing emitted;
 *   ktime    - one bpf_ktime_get_ns (a kvm-clock read in a VM);
 *   ringbuf  - reserve and commit one record the size of il_attrib's
 *              (struct il_kev) in a BPF ring buffer, no wake-up: the
 *              shared buffer's lock, what attribution used to pay;
 *   kring    - claim and commit one slot of the per-CPU rings attribution
 *              writes now (attrib/il_kring.bpf.h);
 *   emit     - what il_attrib_switch does for an emitted switch: lookups,
 *              clock, a kring record with both comms.
 * Nobody reads the records, and the buffers must never fill (a failed
 * reserve would be cheaper and flatter the figure; `full` counts any):
 * the ring buffer's are committed with bpf_ringbuf_discard (the same
 * commit as bpf_ringbuf_submit with one more flag bit), and the kring's
 * programs hand their slot back at once by moving the tail up to it, one
 * store more than attribution's programs make.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "il_kev.h"
#include "il_kev_switch.h"
#include "il_kring.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 32768);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __s32);
	__uint(max_entries, 1024);
} waiters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

/* Reserves that failed (should stay 0: see the top). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} full SEC(".maps");

/* Each step returns 1 as attribution's programs do (attrib.bpf.c): the
 * event goes on to perf, so the floor pays what they pay after the call. */
#define PASS 1

/* A sink the verifier cannot drop: the lookups' results are used. */
volatile __u32 sink;

SEC("tracepoint/sched/sched_switch")
int floor_empty(struct il_sched_switch_args *ctx)
{
	return PASS;
}

/* il_attrib_switch's lookups: both threads' states and the CPU's waiters. */
static __always_inline void lookups(const struct il_sched_switch_args *ctx, __u32 cpu)
{
	__u32 a = (__u32)ctx->prev_pid, b = (__u32)ctx->next_pid;
	__u32 *pa = bpf_map_lookup_elem(&threads, &a), *pb = bpf_map_lookup_elem(&threads, &b);
	__s32 *w = bpf_map_lookup_elem(&waiters, &cpu);

	sink = (pa ? *pa : 0) | (pb ? *pb : 0) | (w ? (__u32)*w : 0);
}

SEC("tracepoint/sched/sched_switch")
int floor_lookup(struct il_sched_switch_args *ctx)
{
	lookups(ctx, bpf_get_smp_processor_id());
	return PASS;
}

SEC("tracepoint/sched/sched_switch")
int floor_ktime(struct il_sched_switch_args *ctx)
{
	sink = (__u32)bpf_ktime_get_ns();
	return PASS;
}

static __always_inline struct il_kev *reserve(void)
{
	struct il_kev *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u32 zero = 0;
	__u64 *f;

	if (!e && (f = bpf_map_lookup_elem(&full, &zero)))
		__sync_fetch_and_add(f, 1);
	return e;
}

SEC("tracepoint/sched/sched_switch")
int floor_ringbuf(struct il_sched_switch_args *ctx)
{
	struct il_kev *e = reserve();

	if (!e)
		return PASS;
	e->type = IL_KEV_SWITCH;
	bpf_ringbuf_discard(e, BPF_RB_NO_WAKEUP);
	return PASS;
}

/* Plays the reader: slot idx is free again (see the top). */
static __always_inline void kring_free(__u32 cpu, __u64 idx)
{
	__u32 tk = cpu * IL_KRING_POS_STRIDE + IL_KRING_TAIL;
	__u64 *tail = bpf_map_lookup_elem(&kring_pos, &tk);

	if (tail)
		*tail = idx + 1;
}

static __always_inline struct il_kring_slot *kring_claim(__u32 cpu, __u64 *idx)
{
	struct il_kring_slot *s = il_kring_claim(cpu, idx);
	__u32 zero = 0;
	__u64 *f;

	if (!s && (f = bpf_map_lookup_elem(&full, &zero)))
		__sync_fetch_and_add(f, 1);
	return s;
}

SEC("tracepoint/sched/sched_switch")
int floor_kring(struct il_sched_switch_args *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct il_kring_slot *s;
	__u64 idx;

	s = kring_claim(cpu, &idx);
	if (!s)
		return PASS;
	s->ev.type = IL_KEV_SWITCH;
	il_kring_commit(s, idx);
	kring_free(cpu, idx);
	return PASS;
}

SEC("tracepoint/sched/sched_switch")
int floor_emit(struct il_sched_switch_args *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct il_kring_slot *s;
	__u64 idx;

	lookups(ctx, cpu);
	s = kring_claim(cpu, &idx);
	if (!s)
		return PASS;
	il_kev_fill_switch(&s->ev, ctx, cpu);
	il_kring_commit(s, idx);
	kring_free(cpu, idx);
	return PASS;
}

char LICENSE[] SEC("license") = "GPL";
