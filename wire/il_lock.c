#include "il_lock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const names[IL_LOCK_KIND_COUNT] = {
    [IL_LOCK_PTHREAD] = "pthread", [IL_LOCK_ADAPTIVE_NP] = "adaptive-np", [IL_LOCK_TAS] = "tas",
    [IL_LOCK_IL_NONE] = "il-none", [IL_LOCK_IL_BPF] = "il-bpf",
};

int il_lock_kind_parse(const char *s)
{
	for (int k = 0; s && k < IL_LOCK_KIND_COUNT; k++)
		if (strcmp(s, names[k]) == 0)
			return k;
	return -EINVAL;
}

const char *il_lock_kind_name(enum il_lock_kind k)
{
	return (unsigned)k < IL_LOCK_KIND_COUNT ? names[k] : "?";
}

int il_lock_kind_built(enum il_lock_kind k)
{
#ifdef IL_HAVE_SPIN
	return (unsigned)k < IL_LOCK_KIND_COUNT;
#else
	return k == IL_LOCK_PTHREAD || k == IL_LOCK_ADAPTIVE_NP || k == IL_LOCK_TAS;
#endif
}

int il_lock_kind_prepare(enum il_lock_kind k, char *why, size_t len)
{
	if (!il_lock_kind_built(k)) {
		snprintf(why, len, "%s: built without spin/ (IL_WITH_SPIN=OFF)",
			 il_lock_kind_name(k));
		return -ENOTSUP;
	}
#ifdef IL_HAVE_SPIN
	if (k == IL_LOCK_IL_BPF && il_spin_init(IL_SPIN_SOURCE_BPF, NULL) < 0) {
		snprintf(why, len, "%s: BPF on-CPU source unavailable: %s", il_lock_kind_name(k),
			 il_spin_source_reason());
		return -ENOTSUP;
	}
#endif
	return 0;
}

int il_lock_kind_share_fd(enum il_lock_kind k)
{
#ifdef IL_HAVE_SPIN
	if (k == IL_LOCK_IL_BPF)
		return il_spin_map_fd();
#endif
	return -1;
}

int il_lock_kind_prepare_from(enum il_lock_kind k, int map_fd, char *why, size_t len)
{
#ifdef IL_HAVE_SPIN
	if (k == IL_LOCK_IL_BPF && map_fd >= 0) {
		if (il_spin_init_map_fd(map_fd, NULL) < 0) {
			snprintf(why, len, "%s: BPF on-CPU source unavailable: %s",
				 il_lock_kind_name(k), il_spin_source_reason());
			return -ENOTSUP;
		}
		return 0;
	}
#endif
	return il_lock_kind_prepare(k, why, len);
}

void il_lock_kind_release(enum il_lock_kind k)
{
#ifdef IL_HAVE_SPIN
	if (k == IL_LOCK_IL_BPF)
		il_spin_close();
#endif
}

int il_lock_init(struct il_lock *l, enum il_lock_kind k)
{
	pthread_mutexattr_t a;
	int r;

	memset(l, 0, sizeof(*l));
	if (!il_lock_kind_built(k))
		return -ENOTSUP;
	l->kind = k;
	switch (k) {
	case IL_LOCK_PTHREAD:
	case IL_LOCK_ADAPTIVE_NP:
		pthread_mutexattr_init(&a);
		pthread_mutexattr_settype(&a, k == IL_LOCK_PTHREAD ? PTHREAD_MUTEX_NORMAL
								   : PTHREAD_MUTEX_ADAPTIVE_NP);
		r = pthread_mutex_init(&l->u.pm, &a);
		pthread_mutexattr_destroy(&a);
		return -r;
	case IL_LOCK_TAS:
	case IL_LOCK_IL_NONE:
	case IL_LOCK_IL_BPF:
		return 0;
	}
	return -EINVAL;
}

void il_lock_lock(struct il_lock *l)
{
	switch (l->kind) {
	case IL_LOCK_PTHREAD:
	case IL_LOCK_ADAPTIVE_NP:
		pthread_mutex_lock(&l->u.pm);
		return;
	case IL_LOCK_TAS:
		/*
		 * Test-and-test-and-set: spin on a plain load so waiters share
		 * the cache line until it is released, then race with xchg.
		 */
		for (;;) {
			if (!atomic_exchange_explicit(&l->u.tas, 1, memory_order_acquire))
				return;
			while (atomic_load_explicit(&l->u.tas, memory_order_relaxed))
				__builtin_ia32_pause();
		}
#ifdef IL_HAVE_SPIN
	case IL_LOCK_IL_NONE:
		il_spin_mutex_lock_source(&l->u.sm, IL_SPIN_SOURCE_NONE);
		return;
	case IL_LOCK_IL_BPF:
		il_spin_mutex_lock_source(&l->u.sm, IL_SPIN_SOURCE_BPF);
		return;
#else
	default:
		return; /* refused by il_lock_init */
#endif
	}
}

void il_lock_unlock(struct il_lock *l)
{
	switch (l->kind) {
	case IL_LOCK_PTHREAD:
	case IL_LOCK_ADAPTIVE_NP:
		pthread_mutex_unlock(&l->u.pm);
		return;
	case IL_LOCK_TAS:
		atomic_store_explicit(&l->u.tas, 0, memory_order_release);
		return;
#ifdef IL_HAVE_SPIN
	case IL_LOCK_IL_NONE:
	case IL_LOCK_IL_BPF:
		il_spin_mutex_unlock(&l->u.sm);
		return;
#else
	default:
		return;
#endif
	}
}

void il_lock_destroy(struct il_lock *l)
{
	if (l->kind == IL_LOCK_PTHREAD || l->kind == IL_LOCK_ADAPTIVE_NP)
		pthread_mutex_destroy(&l->u.pm);
}
