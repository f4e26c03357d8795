/*
 * il_spin: an owner-aware adaptive-spinning futex mutex.
 *
 * The 4-byte lock word holds the owner's TID. A contending thread spins
 * only while the owner is on a CPU (as the kernel's own mutex does), then
 * sleeps in FUTEX_WAIT. Whether the owner is on a CPU comes, without a
 * system call, from a BPF program on sched_switch that publishes per-TID
 * state in a memory-mapped BPF array ("bpf" source); where BPF is not
 * allowed, a bounded adaptive spin like glibc's PTHREAD_MUTEX_ADAPTIVE_NP
 * is used instead ("none" source). The on-CPU answer is only a hint: the
 * lock is correct whatever it says.
 *
 * Link with pkg-config il_spin (libbpf, pthread).
 */
#ifndef IL_SPIN_H
#define IL_SPIN_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Zero-initialised means unlocked: a static or calloc'd mutex needs no
 * init call. word = owner TID (bits 0-29) | HANDOFF (bit 30) | WAITERS
 * (bit 31, as FUTEX_WAITERS).
 */
struct il_spin_mutex {
	_Atomic uint32_t word;
};

#define IL_SPIN_MUTEX_INITIALIZER                                                                  \
	{                                                                                          \
		0                                                                                  \
	}

#define IL_SPIN_TID_MASK 0x3fffffffu
#define IL_SPIN_HANDOFF	 0x40000000u
#define IL_SPIN_WAITERS	 0x80000000u

/* Where owner on-CPU information comes from. */
enum il_spin_source {
	IL_SPIN_SOURCE_NONE = 0, /* no owner information: bounded adaptive spin */
	IL_SPIN_SOURCE_BPF = 1,	 /* BPF sched_switch records in shared memory */
	IL_SPIN_SOURCE_AUTO = 2, /* bpf when available, else none (init only) */
};

struct il_spin_opts {
	uint64_t spin_budget_ns; /* longest spin on an on-CPU owner; 0: default */
	const char *pin_dir;	 /* pinned map directory; NULL: /sys/fs/bpf/inputlat */
	int no_load;		 /* nonzero: never load the BPF program in-process */
};

/*
 * Default spin budget. Spin-then-sleep wastes at most twice the optimum
 * when the spin lasts as long as a sleep costs. lock-bench measures the
 * futex sleep/wake round trip on the 2-CPU test VM at ~3.7 us while both
 * CPUs are busy but ~55 us once the sleeper's vCPU idles (the wake-up
 * then exits HLT in the host). In interleaved lock-bench runs (one-per-cpu,
 * over4, over8) 3 us was clearly worse, 10 and 30 us were within noise
 * of each other (30 slightly ahead at 2 threads), 60 us worse again.
 */
#define IL_SPIN_DEFAULT_BUDGET_NS 30000u

/*
 * Chooses the process-wide on-CPU source. For bpf/auto it opens the map
 * pinned by `ilspin-oncpu` and maps it read-only, else, with privilege and unless
 * opts->no_load, loads the program in this process. The source is checked
 * by seeing the calling thread's own switches recorded (il_oncpu_check_live:
 * its record reads on, or its switch count moves, within a few 200 us
 * sleeps). opts may be NULL.
 * Returns 0 (auto always succeeds, possibly with source none), or for an
 * explicit bpf request a negative errno with the reason kept for
 * il_spin_source_reason(); the source is then none.
 * Calling it is optional: without it every mutex uses source none.
 */
int il_spin_init(enum il_spin_source want, const struct il_spin_opts *opts);

/*
 * As il_spin_init(IL_SPIN_SOURCE_BPF), with the records of a map another
 * process loaded and handed over (SCM_RIGHTS): one program per machine
 * instead of one per process, since every copy runs on every context
 * switch. map_fd stays the caller's. Checked as il_spin_init checks.
 * Returns 0 or a negative errno (reason in il_spin_source_reason()).
 */
int il_spin_init_map_fd(int map_fd, const struct il_spin_opts *opts);

/* The descriptor of the records in use, to hand to another process; -1 if none. */
int il_spin_map_fd(void);

/* Where the records come from: "tp_btf", "raw_tp", "tracepoint" (loaded here),
 * "pinned", "shared" (handed over) or "none". */
const char *il_spin_source_program(void);

/*
 * Releases the BPF map (and in-process program); the source becomes none.
 * Safe while other threads lock: their records read "off CPU" from then
 * on (the records' address range stays reserved, without memory).
 */
void il_spin_close(void);

/* The source in use (never AUTO). */
enum il_spin_source il_spin_source_get(void);

/* Why the bpf source is not in use, or "" when it is. Static storage. */
const char *il_spin_source_reason(void);

/* "none", "bpf", "auto"; parse returns the enum value or -EINVAL. */
const char *il_spin_source_name(enum il_spin_source s);
int il_spin_source_parse(const char *s);

/* Spin budget in ns (longest spin on an on-CPU owner before sleeping). */
uint64_t il_spin_budget_get_ns(void);
void il_spin_budget_set_ns(uint64_t ns);

/*
 * On-CPU state of tid from the current source: 1 on a CPU, 0 off,
 * -1 unknown (source none, or tid beyond the map).
 */
int il_spin_oncpu(uint32_t tid);

/* The calling thread's TID (cached; correct after fork). */
uint32_t il_spin_tid(void);

static inline void il_spin_mutex_init(struct il_spin_mutex *m)
{
	m->word = 0;
}

/* Locks m with the process-wide source. Returns 0. */
int il_spin_mutex_lock(struct il_spin_mutex *m);

/*
 * As il_spin_mutex_lock, with an explicit source: NONE forces the
 * bounded adaptive spin, BPF uses the BPF records when il_spin_init()
 * opened them (else none). Lets one process compare both.
 */
int il_spin_mutex_lock_source(struct il_spin_mutex *m, enum il_spin_source s);

/* Returns 0, or -EBUSY when m is held. Never blocks. */
int il_spin_mutex_trylock(struct il_spin_mutex *m);

/*
 * Locks m or gives up at abs_timeout (absolute CLOCK_MONOTONIC).
 * Returns 0, -ETIMEDOUT, or -EINVAL for a malformed timespec.
 * Timed waiters never request an anti-starvation handoff.
 */
int il_spin_mutex_timedlock(struct il_spin_mutex *m, const struct timespec *abs_timeout);

/* Returns 0, or -EPERM when the caller is not the owner. */
int il_spin_mutex_unlock(struct il_spin_mutex *m);

/* Owner TID, 0 when unlocked. A snapshot: for assertions and tools. */
static inline uint32_t il_spin_mutex_owner(const struct il_spin_mutex *m)
{
	return atomic_load_explicit(&m->word, memory_order_relaxed) & IL_SPIN_TID_MASK;
}

/* Anti-starvation handoffs granted in this process so far. */
uint64_t il_spin_handoffs(void);

/*
 * Test hook: replaces the on-CPU source with oncpu_cb (NULL restores the
 * real one). The callback's answer (1 on, 0 off) may be anything, even
 * random: the lock must stay correct. Not for production use.
 */
void il_spin_test_set_oncpu(int (*oncpu_cb)(uint32_t tid, void *data), void *data);

#ifdef __cplusplus
}
#endif

#endif
