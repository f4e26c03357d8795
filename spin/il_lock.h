/*
 * One interface over the locks the project compares, so lock-bench and the
 * harness's hop queues can switch lock by name.
 */
#ifndef IL_LOCK_H
#define IL_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "il_spin.h"

enum il_lock_kind {
	IL_LOCK_PTHREAD,     /* "pthread": pthread_mutex_t, default type */
	IL_LOCK_ADAPTIVE_NP, /* "adaptive-np": PTHREAD_MUTEX_ADAPTIVE_NP */
	IL_LOCK_TAS,         /* "tas": test-and-test-and-set spin lock with pause */
	IL_LOCK_IL_NONE,     /* "il-none": il_spin_mutex, source none */
	IL_LOCK_IL_BPF,      /* "il-bpf": il_spin_mutex, source bpf */
};

#define IL_LOCK_KIND_COUNT 5

struct il_lock {
	enum il_lock_kind kind;
	union {
		pthread_mutex_t pm;
		_Atomic uint32_t tas;
		struct il_spin_mutex sm;
	} u;
};

/* Name to kind; -EINVAL for an unknown name. */
int il_lock_kind_parse(const char *s);

/* Kind to its name above; "?" for an invalid value. */
const char *il_lock_kind_name(enum il_lock_kind k);

/*
 * Initialises l as kind k. For IL_LOCK_IL_BPF the BPF records come from
 * il_spin_init(), which the program calls once beforehand (a harness
 * reports il_spin_source_get()/il_spin_source_reason()); without them the
 * lock behaves as il-none. Returns 0 or a negative errno.
 */
int il_lock_init(struct il_lock *l, enum il_lock_kind k);
void il_lock_lock(struct il_lock *l);
void il_lock_unlock(struct il_lock *l);
void il_lock_destroy(struct il_lock *l);

#endif
