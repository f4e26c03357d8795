/*
 * Per-TID on-CPU state published by a BPF program on sched_switch into a
 * BPF_F_MMAPABLE array map, read by user space with one load and no
 * system call. See il_oncpu_state.h for the record layout.
 */
#ifndef IL_ONCPU_H
#define IL_ONCPU_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "il_oncpu_state.h"

struct il_oncpu_bpf;

/*
 * How many 200 us sleeps a live check (the loader's, il_spin's) tries
 * before it calls the records dead: one sleep is not always a switch.
 * When the thread is held up past its timer between arming it and calling
 * schedule() (a busy VM's vCPU), nanosleep returns without leaving the
 * CPU, and the record is not refreshed.
 */
#define IL_ONCPU_LIVE_TRIES 8

struct il_oncpu {
	const _Atomic uint64_t *map; /* read-only mapping of the records */
	uint32_t entries;	     /* TIDs >= entries are not recorded */
	size_t map_len;		     /* bytes mapped */
	int map_fd;
	struct il_oncpu_bpf *skel;     /* non-NULL when loaded in this process */
	const char *program;	       /* "tp_btf", "raw_tp", "tracepoint", "pinned" or "shared" */
	struct il_oncpu *next_retired; /* il_spin's list of retired records */
};

/*
 * Opens the map pinned under pin_dir (NULL: IL_ONCPU_PIN_DIR) read-only and
 * maps it. On success *out owns the mapping; free it with il_oncpu_free().
 * Returns -ENOENT when nothing is pinned, or another negative errno.
 */
int il_oncpu_open_pinned(const char *pin_dir, struct il_oncpu **out);

/*
 * Maps the records of a map another process loaded and handed over (a
 * descriptor received over a socket with SCM_RIGHTS, say): map_fd is
 * duplicated, the caller keeps its own. Returns 0 or a negative errno
 * (-EPROTO when the descriptor is not such a map).
 */
int il_oncpu_open_fd(int map_fd, struct il_oncpu **out);

/* Where the records come from: "tp_btf", "raw_tp" or "tracepoint" (loaded here),
 * "pinned" (ilspin-oncpu), "shared" (another process's, by descriptor). */
const char *il_oncpu_program(const struct il_oncpu *o);

/*
 * Loads and attaches the program in this process; it stays attached until
 * il_oncpu_free() or process exit. Needs CAP_BPF and CAP_PERFMON (root).
 * Returns 0 or a negative errno (-EPERM when BPF is not allowed).
 */
int il_oncpu_load(struct il_oncpu **out);

/* As il_oncpu_load with a chosen program (AUTO: the first of tp_btf,
 * raw_tp, tracepoint that works), for benchmarks that compare what each
 * costs a context switch. */
enum il_oncpu_prog {
	IL_ONCPU_PROG_AUTO,
	IL_ONCPU_PROG_BTF,
	IL_ONCPU_PROG_RAW_TP,
	IL_ONCPU_PROG_TRACEPOINT
};
int il_oncpu_load_prog(enum il_oncpu_prog prog, struct il_oncpu **out);

/*
 * Whether o's records see thread tid (the caller) switch: 0 once a record
 * shows it (il_oncpu_record_live) after one of IL_ONCPU_LIVE_TRIES 200 us
 * sleeps, -ESTALE if none does (no program writes them), -ERANGE if tid is
 * outside the map.
 */
int il_oncpu_check_live(const struct il_oncpu *o, uint32_t tid);

/* Detaches (if loaded here) and unmaps. NULL-safe. */
void il_oncpu_free(struct il_oncpu *o);

/*
 * Takes the records out of use while other threads may still read them
 * through o (il_spin's spinners load the pointer once and read without a
 * reference): nothing they can reach is unmapped or freed. The records'
 * pages become zero pages in place (every TID then reads off-CPU, on
 * which a lock sleeps: the cheap mistake); the map's descriptor and a
 * program loaded here go. o stays allocated, with its address range (no
 * memory): the caller keeps it. NULL-safe.
 */
void il_oncpu_retire(struct il_oncpu *o);

/*
 * Loads the program and pins its map and link under pin_dir (NULL:
 * IL_ONCPU_PIN_DIR) with mode 0600; the pinned link keeps the program
 * attached after the caller exits. Mounts bpffs on /sys/fs/bpf if nothing
 * is mounted there (and records that, so il_oncpu_unpublish() unmounts it).
 * Returns 0, -EEXIST if already published, -EMEDIUMTYPE if pin_dir is
 * not on a BPF filesystem, or a negative errno.
 */
int il_oncpu_publish(const char *pin_dir);

/*
 * Removes what il_oncpu_publish() pinned; the program detaches once no
 * process holds the link. Returns 0 or -ENOENT if nothing was pinned.
 */
int il_oncpu_unpublish(const char *pin_dir);

/* 1: tid is on a CPU, 0: off (or never seen), -1: tid outside the map. */
static inline int il_oncpu_state(const struct il_oncpu *o, uint32_t tid)
{
	if (tid >= o->entries)
		return -1;
	/* Relaxed: the record is a hint; the lock never trusts it for safety. */
	return (atomic_load_explicit(&o->map[tid], memory_order_relaxed) & IL_ONCPU_FLAG) != 0;
}

/* 1 when tid is off its CPU because it blocked (slept, waited for I/O). */
static inline int il_oncpu_blocked(const struct il_oncpu *o, uint32_t tid)
{
	if (tid >= o->entries)
		return 0;
	return (atomic_load_explicit(&o->map[tid], memory_order_relaxed) &
		(IL_ONCPU_FLAG | IL_ONCPU_BLOCKED)) == IL_ONCPU_BLOCKED;
}

/* The raw record of tid (0 if outside the map), for tests and tools. */
static inline uint64_t il_oncpu_record(const struct il_oncpu *o, uint32_t tid)
{
	if (tid >= o->entries)
		return 0;
	return atomic_load_explicit(&o->map[tid], memory_order_relaxed);
}

#endif
