/*
 * Capture of a run's kernel scheduling events with the BPF program in
 * attrib.bpf.c: load and attach, tell it which threads are the run's,
 * drain its per-CPU rings (il_kring.h) into a callback in time order, read
 * its own cost, detach.
 *
 * The reader is never woken by the kernel: the owner calls
 * il_capture_drain() from a timer (and before it needs the events up to
 * now), which keeps the capture from causing scheduling events itself.
 * Built without clang/bpftool (IL_WITH_ATTRIB_BPF off or tools missing),
 * il_capture_new() fails with -ENOTSUP and says so.
 */
#ifndef IL_CAPTURE_H
#define IL_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "il_kev.h"

struct il_capture;

/* Called for every event, in time order. */
typedef void (*il_capture_event_cb)(void *ctx, const struct il_kev *ev);

/* One BPF program's cost while the capture ran (kernel run-time statistics). */
struct il_capture_prog {
	char name[32];	      /* "il_attrib_switch" */
	uint64_t run_cnt;     /* times it ran (every tracepoint hit, filtered or not) */
	uint64_t run_time_ns; /* total time inside it */
};

#define IL_CAPTURE_MAX_PROGS 12

/*
 * Loads the program, sizes its maps for this machine, attaches it to the
 * scheduler and interrupt tracepoints and turns on the kernel's BPF
 * run-time statistics for as long as the capture lives (BPF_ENABLE_STATS:
 * a descriptor, so kernel.bpf_stats_enabled itself never changes and the
 * statistics go off by themselves if this process dies). Until threads are
 * added nothing is emitted. On failure returns a negative errno and puts
 * one line in why ("needs root: ...", "built without BPF tools", ...).
 * *out is set only on success.
 */
int il_capture_new(il_capture_event_cb cb, void *ctx, struct il_capture **out, char *why,
		   size_t whylen);

/* Makes tid one of the run's threads. Returns 0 or a negative errno. */
int il_capture_track(struct il_capture *c, int tid);

/* Hands the callback every event known to be complete with all that came
 * before it (il_kring_reader.h). Returns how many, or a negative errno. */
int il_capture_drain(struct il_capture *c);

/* Every event stamped at or before this time has been handed on. */
uint64_t il_capture_done_to(struct il_capture *c);

/* Events the rings had no room for, or lost, since the capture started. */
uint64_t il_capture_drops(struct il_capture *c);

/* Events a CPU's ring holds between two drains (0 without a capture). */
uint32_t il_capture_ring_slots(const struct il_capture *c);

/* Detaches the programs (the statistics stay readable) and drains what
 * is left. Idempotent. */
void il_capture_stop(struct il_capture *c);

/* The programs' statistics; returns how many were filled (<= n). */
size_t il_capture_progs(struct il_capture *c, struct il_capture_prog *out, size_t n);

/* Stops and frees. NULL-safe. */
void il_capture_free(struct il_capture *c);

/* True when this build has the BPF capture (clang and bpftool were found). */
int il_capture_built(void);

#endif
