/*
 * One interface over the locks the project compares, so lock-bench and the
 * harness's hop queues can switch lock by name. The il-* kinds are spin/'s
 * mutex; a build without spin/ (IL_WITH_SPIN=OFF) refuses them by name.
 */
#ifndef IL_LOCK_H
#define IL_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifdef IL_HAVE_SPIN
#include "il_spin.h"
#endif

enum il_lock_kind {
	IL_LOCK_PTHREAD,     /* "pthread": pthread_mutex_t, default type */
	IL_LOCK_ADAPTIVE_NP, /* "adaptive-np": PTHREAD_MUTEX_ADAPTIVE_NP */
	IL_LOCK_TAS,	     /* "tas": test-and-test-and-set spin lock with pause */
	IL_LOCK_IL_NONE,     /* "il-none": il_spin_mutex, source none */
	IL_LOCK_IL_BPF,	     /* "il-bpf": il_spin_mutex, source bpf */
};

#define IL_LOCK_KIND_COUNT 5

struct il_lock {
	enum il_lock_kind kind;
	union {
		pthread_mutex_t pm;
		_Atomic uint32_t tas;
#ifdef IL_HAVE_SPIN
		struct il_spin_mutex sm;
#endif
	} u;
};

/* Name to kind; -EINVAL for an unknown name. */
int il_lock_kind_parse(const char *s);

/* Kind to its name above; "?" for an invalid value. */
const char *il_lock_kind_name(enum il_lock_kind k);

/* True when this build has the kind (the il-* kinds need spin/). */
int il_lock_kind_built(enum il_lock_kind k);

/*
 * Makes kind k usable in this process: il-bpf loads its BPF on-CPU source
 * (il_spin_init). Returns 0, or -ENOTSUP with one phrase in why ("built
 * without spin/ ...", "BPF on-CPU source unavailable: ..."). Pair with
 * il_lock_kind_release.
 */
int il_lock_kind_prepare(enum il_lock_kind k, char *why, size_t len);
void il_lock_kind_release(enum il_lock_kind k);

/*
 * One BPF program per run, not one per process: the process that prepared
 * il-bpf hands il_lock_kind_share_fd()'s descriptor (the on-CPU records)
 * to the others, which prepare with il_lock_kind_prepare_from() instead of
 * loading their own copy. share_fd returns -1 for any other kind (or when
 * nothing is prepared); prepare_from is il_lock_kind_prepare for them.
 */
int il_lock_kind_share_fd(enum il_lock_kind k);
int il_lock_kind_prepare_from(enum il_lock_kind k, int map_fd, char *why, size_t len);

/*
 * Initialises l as kind k. For IL_LOCK_IL_BPF the BPF records come from
 * il_spin_init(), which the program calls once beforehand (a harness
 * reports il_spin_source_get()/il_spin_source_reason()); without them the
 * lock behaves as il-none. Returns 0 or a negative errno (-ENOTSUP for a
 * kind this build does not have).
 */
int il_lock_init(struct il_lock *l, enum il_lock_kind k);
void il_lock_lock(struct il_lock *l);
void il_lock_unlock(struct il_lock *l);
void il_lock_destroy(struct il_lock *l);

#endif
