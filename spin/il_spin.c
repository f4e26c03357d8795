/*
 * The owner-aware adaptive-spinning futex mutex.
 *
 * Lock word states (IL_SPIN_* in il_spin.h):
 *   0               unlocked
 *   tid             locked by tid, nobody asleep
 *   tid|W           locked, some thread may sleep in FUTEX_WAIT
 *   tid[|W]|H       locked, and one waiter is promised the lock next
 *
 * Memory ordering. Ownership moves only through compare-and-swap on the
 * word. Every successful acquire CAS is memory_order_acquire and every
 * release (CAS to 0, or CAS handing the word to a waiter) is
 * memory_order_release, so the unlocker's critical section
 * happens-before the next owner's. The spin and wait loops read the word
 * relaxed: what they read only decides whether to try a CAS or sleep,
 * and the CAS re-checks it atomically. The on-CPU record is a relaxed
 * hint and never orders anything, so a stale or lying record can cost
 * time (a useless spin, a needless sleep) but never correctness.
 *
 * No lost wake-up. A waiter sleeps only via FUTEX_WAIT(word, v) with W
 * set in v; the kernel compares the word with v under the futex bucket
 * lock, and any unlock that clears W changes the word first, then calls
 * FUTEX_WAKE, so either the waiter's compare fails or it is already
 * queued when the wake comes. An unlock wakes one waiter whenever W was
 * set. A woken waiter cannot know whether others still sleep, so it
 * acquires with tid|W, keeping the next unlock's wake (as Drepper's
 * "Futexes Are Tricky" mutex 2): at worst one spare FUTEX_WAKE.
 *
 * Handoff (anti-starvation). Two kinds of waiter ask for it: a sleeper
 * that was woken and still lost the race, once it has waited longer than
 * IL_SPIN_HANDOFF_NS in total (as the kernel mutex's MUTEX_FLAG_HANDOFF),
 * and a spinner that has spun IL_SPIN_FAIR_NS (il_spin_source.c) without getting in (it
 * keeps missing the short window between the owner's unlock and its next
 * lock). The waiter claims the handoff slot of this mutex (a static
 * table hashed by address), writes its TID there and sets H (release).
 * While H is set nobody can take the lock by CAS from 0, because unlock
 * never stores 0: it reads the slot (after an acquire load that saw H),
 * moves the word straight to waiter_tid, keeping W, then exchanges the
 * slot's `granted` to GRANT_GIVEN (release) and calls FUTEX_WAKE only if
 * the waiter had said it sleeps (GRANT_ASLEEP): a spinning grantee costs
 * the unlocker no system call. W moves with the lock,
 * so sleepers on the word are woken by the new owner's unlock; a waiter
 * that slept sets W together with H for the same reason. Spinners that
 * see H stop competing and sleep. The slots are static, so a late
 * FUTEX_WAKE on a slot that was already reused is only a spurious
 * wake-up, which every wait loop tolerates. If the slot is held by a
 * colliding mutex, the waiter just keeps waiting normally and asks again
 * later. Timed waiters never ask, neither when woken nor while they spin:
 * a grant has no deadline.
 *
 * Withdrawal. A spinner that asked and then sees the owner leave its CPU
 * takes its request back (a CAS clearing H; an unlocker's handoff CAS on
 * the same word decides between them) and sleeps on the word like any
 * waiter: handed over asleep, the lock would sit idle through its wake-up
 * while running threads queue behind it (lock-bench, 2026-12, three runs
 * interleaved with the lock before it: blocking-io 0.87-0.96x adaptive-np's
 * ops before, 0.98x after, CPU per acquisition -15%; three more, against
 * the lock before this and the blocked-owner rule, kept the CPU gain but
 * showed no clear change in ops). It keeps the slot until the lock is its
 * own (tls_slot), so H can only be set again with its TID: an unlocker
 * that read the slot before the withdrawal hands the lock to it only once
 * it asked again, never to a thread that left. While it keeps it, a
 * colliding mutex's waiters cannot ask (they wait as they would for any
 * busy slot). A withdrawn spinner goes to sleep at once: the wait has
 * already learned from the owner's leaving (shrink_after_block).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "il_spin_internal.h"

#define W IL_SPIN_WAITERS
#define H IL_SPIN_HANDOFF

/* A woken sleeper asks for a handoff after this much waiting (parking_lot: 0.5 ms). */
#define IL_SPIN_HANDOFF_NS 1000000ull

/*
 * Source none spins like glibc's ADAPTIVE_NP: at most
 * min(IL_SPIN_NONE_MAX, 2 * average + 10) iterations, where the average
 * of recent successful spins is kept per thread (the word has no room).
 * 100 is glibc's default glibc.pthread.mutex_spin_count.
 */
#define IL_SPIN_NONE_MAX 100u

#define HANDOFF_SLOTS 256

/* States of a handoff slot's `granted` word. */
#define GRANT_WAITING 0u /* promised, the waiter spins */
#define GRANT_GIVEN   1u /* the lock is the waiter's now */
#define GRANT_ASLEEP  2u /* promised, the waiter sleeps on the word */

struct handoff_slot {
	_Atomic uintptr_t mutex; /* owning mutex, 0 when free */
	_Atomic uint32_t tid;	 /* the waiter to hand the lock to */
	_Atomic uint32_t granted;
	char pad[64 - sizeof(uintptr_t) - 2 * sizeof(uint32_t)];
};

static struct handoff_slot slots[HANDOFF_SLOTS];

static __thread uint32_t tls_tid;
/*
 * The handoff slot this thread holds after withdrawing a request, until
 * the lock it waits for is its own: while it holds it nobody else can set
 * H with another TID in it, so an unlocker that read the slot before the
 * withdrawal can only hand the lock to this thread, and only after this
 * thread asked again (no ABA on the slot's TID).
 */
static __thread struct handoff_slot *tls_slot;
static __thread uint32_t tls_spins;
/*
 * Owner-aware spins learn too: the longest spin on an on-CPU owner this
 * thread allows itself now (iterations; 0 = not set yet). A spin that runs
 * out while the owner still runs halves it: the owner's sections are
 * longer than spinning can cover, and sleeping costs the CPU less. One
 * that gets the lock after i iterations lets it grow to 2i (within the
 * budget). An owner that leaves its CPU ends the spin: preempted, without
 * changing it (it comes back runnable); blocked (asleep, waiting for I/O),
 * halving it to half of what was spun (shrink_after_block), since an owner
 * stays on its CPU for some microseconds inside a blocking call and the
 * spin saw it running all along.
 */
static __thread uint32_t tls_aware_limit;

/*
 * The smallest owner-aware spin: 1/IL_SPIN_AWARE_MIN_DIV of the budget
 * (100 ns of the default 30 us), the floor a blocked owner's halving and a
 * run-out spin's halving stop at, and what a spin that got the lock after
 * i iterations allows beyond 2i. It was 1/30 (1 us): an owner that blocks
 * inside its section then cost every spinner 1 us on the CPU however
 * short the sections around it were. In lock-bench on the 2-CPU VM
 * (2026-12, two interleaved runs each), 1/30 -> 1/300 took il-bpf's spin
 * per acquisition from 1.06-1.18 to 0.29-0.34 us in blocking-sleep and
 * from 1.20-1.32 to 0.43-0.53 us in blocking-io (adaptive-np 0.65-0.97
 * there), ops unchanged within noise everywhere, today's scenarios too.
 */
#define IL_SPIN_AWARE_MIN_DIV 300u

static uint32_t aware_min_iters(uint32_t budget_iters)
{
	return budget_iters / IL_SPIN_AWARE_MIN_DIV + 1;
}

/*
 * A spin of `spun` iterations that ended because the owner blocked (not
 * preempted): the owner was on its CPU entering a blocking call (8.3 us
 * p50 for a 50 us clock_nanosleep, 4.8 us for an I/O round trip on the
 * 2-CPU VM, lock-bench's owner_block_entry_ns), and spinning through that
 * was wasted. Lower the limit to half of it, never below the smallest
 * owner-aware spin; a preempted owner changes nothing (it comes back
 * runnable). In lock-bench
 * on the 2-CPU VM (2026-12, runs interleaved with the lock before it) il-bpf's
 * CPU per acquisition over adaptive-np's went from 1.5-2.1x to 1.1-1.5x in
 * blocking-sleep and from 1.2-1.4x to 0.9-1.2x in blocking-io (with the
 * withdrawal below), the other scenarios unchanged within their noise.
 */
static void shrink_after_block(uint32_t spun)
{
	uint32_t min_iters =
	    aware_min_iters(atomic_load_explicit(&il_spin_g.budget_iters, memory_order_relaxed));
	uint32_t half = spun / 2 > min_iters ? spun / 2 : min_iters;

	if (spun > min_iters && half < tls_aware_limit)
		tls_aware_limit = half;
}

static void forget_tid(void)
{
	/* The child of fork() runs with the parent thread's cached TID. */
	tls_tid = 0;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, forget_tid);
}

uint32_t il_spin_tid(void)
{
	if (!tls_tid)
		tls_tid = (uint32_t)syscall(SYS_gettid);
	return tls_tid;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static struct handoff_slot *slot_of(const struct il_spin_mutex *m)
{
	uintptr_t a = (uintptr_t)m;

	return &slots[((a >> 2) ^ (a >> 12)) % HANDOFF_SLOTS];
}

static int futex_wait(_Atomic uint32_t *addr, uint32_t val, const struct timespec *abs)
{
	long r;

	/* WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
	r = syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, val, abs, NULL,
		    FUTEX_BITSET_MATCH_ANY);
	return r < 0 ? -errno : 0;
}

static void futex_wake(_Atomic uint32_t *addr, int n)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline int cas_acquire(struct il_spin_mutex *m, uint32_t *expect, uint32_t desired)
{
	return atomic_compare_exchange_weak_explicit(&m->word, expect, desired,
						     memory_order_acquire, memory_order_relaxed);
}

static void slot_release(struct handoff_slot *s)
{
	atomic_store_explicit(&s->mutex, 0, memory_order_release);
}

/* Gives back the slot held since a withdrawal, once the lock is ours. */
static void slot_drop_held(void)
{
	if (tls_slot) {
		slot_release(tls_slot);
		tls_slot = NULL;
	}
}

/*
 * Waits for the unlocker to grant the lock. A spinner (spin > 0) keeps
 * spinning while the owner is on a CPU, within the budget; if the owner
 * leaves its CPU it withdraws its request (returns 0, the slot still its
 * own); if the budget runs out first, or for a sleeper (spin 0), it sleeps
 * on the slot's own futex word, not on the lock word. Returns 1 once the
 * lock is its own.
 *
 * This wait does not teach tls_aware_limit, on purpose: a spin that runs
 * out here leaves it as it was. With sections much longer than
 * IL_SPIN_FAIR_NS nearly every spin ends here, and halving the limit on
 * those run-outs (as spin_phase does on its own) traded the owner-off
 * scenarios' throughput for their spinning: in lock-bench on the 2-CPU VM
 * (2026-12, three runs interleaved with this lock; medians) oversub-cs50
 * went from 1.73x adaptive-np's ops at 3.9x its spin per acquisition to
 * 1.13x at 1.0x, preempted-owner from 1.27x at 1.0x to 1.09x at 0.75x,
 * oversub-cs10 from 1.48x at 1.4x to 1.48x at 1.3x: a waiter spinning on
 * an owner that runs is what takes the lock the moment it is free.
 */
static int wait_granted(struct il_spin_mutex *m, struct handoff_slot *s, enum il_spin_source src,
			uint32_t spin, uint32_t spun)
{
	uint32_t spin0 = spin;
	int may_withdraw = spin != 0; /* until the lock turns out handed over */

	for (;;) {
		/* Acquire pairs with the unlocker's release: its section is ours now. */
		uint32_t g = atomic_load_explicit(&s->granted, memory_order_acquire);
		uint32_t w = atomic_load_explicit(&m->word, memory_order_relaxed);

		if (g == GRANT_GIVEN)
			return 1;
		if (spin && il_spin_owner_state(src, w & IL_SPIN_TID_MASK) == 1) {
			spin--;
			cpu_relax();
			continue;
		}
		/*
		 * A spinner whose owner left its CPU takes its request back
		 * rather than have the lock handed to it asleep (the lock
		 * would sit idle through its wake-up while others queue);
		 * it sleeps on the word like any waiter, keeping the slot.
		 */
		if (spin && may_withdraw) {
			if (il_spin_owner_blocked(src, w & IL_SPIN_TID_MASK))
				shrink_after_block(spun + (spin0 - spin));
			while (w & H)
				if (atomic_compare_exchange_weak_explicit(&m->word, &w, w & ~H,
									  memory_order_relaxed,
									  memory_order_relaxed)) {
					atomic_fetch_add_explicit(&il_spin_g.withdrawals, 1,
								  memory_order_relaxed);
					return 0;
				}
			may_withdraw = 0; /* handed over already: GIVEN follows */
			continue;
		}
		/* Say we sleep first, so the unlocker knows to wake us. */
		if (g == GRANT_WAITING &&
		    !atomic_compare_exchange_strong_explicit(
			&s->granted, &g, GRANT_ASLEEP, memory_order_relaxed, memory_order_relaxed))
			continue;
		futex_wait(&s->granted, GRANT_ASLEEP, NULL);
	}
}

/*
 * Asks the next unlock to pass the lock straight to this thread. `wbit`
 * is W when the caller has slept on the word (others may sleep too, so W
 * must survive), else 0. `spin` bounds how long to spin for the grant,
 * `spun` is how long the caller spun already. Returns 1 with the lock
 * held, 0 if the slot is busy (keep waiting), -1 if the request was
 * withdrawn because the owner left its CPU (go to sleep).
 */
static int request_handoff(struct il_spin_mutex *m, uint32_t tid, uint32_t wbit,
			   enum il_spin_source src, uint32_t spin, uint32_t spun)
{
	struct handoff_slot *s = slot_of(m);
	uintptr_t free_slot = 0;
	uint32_t w;

	if (tls_slot != s) {
		if (!atomic_compare_exchange_strong_explicit(&s->mutex, &free_slot, (uintptr_t)m,
							     memory_order_acquire,
							     memory_order_relaxed))
			return 0;
		tls_slot = s;
	}
	atomic_store_explicit(&s->tid, tid, memory_order_relaxed);
	atomic_store_explicit(&s->granted, GRANT_WAITING, memory_order_relaxed);
	w = atomic_load_explicit(&m->word, memory_order_relaxed);
	for (;;) {
		if (w == 0) {
			if (cas_acquire(m, &w, tid | wbit)) {
				slot_drop_held();
				return 1;
			}
			continue;
		}
		/* Release: the unlocker that sees H must see the slot contents. */
		if (atomic_compare_exchange_weak_explicit(
			&m->word, &w, w | wbit | H, memory_order_release, memory_order_relaxed))
			break;
	}
	if (!wait_granted(m, s, src, spin, spun))
		return -1; /* withdrawn: the slot stays ours (tls_slot) */
	slot_drop_held();
	return 1;
}

/*
 * Spins while spinning can pay: the owner is on a CPU (source bpf or the
 * test hook), or, without owner information, for the adaptive count.
 * `want` is the value to install (tid, or tid|W after a wake-up);
 * `may_ask` is 0 for a timed waiter, which must not ask for a handoff.
 * Returns 1 with the lock held, 0 to go to sleep.
 */
static int spin_phase(struct il_spin_mutex *m, uint32_t want, enum il_spin_source src, int may_ask)
{
	uint32_t adaptive = 2 * tls_spins + 10;
	int aware = il_spin_source_aware(src);
	uint32_t limit, i, w, fair, asked = 0, budget = 0, min_iters = 0;
	uint64_t self0 = 0;

	if (adaptive > IL_SPIN_NONE_MAX)
		adaptive = IL_SPIN_NONE_MAX;
	limit = adaptive;
	if (aware) {
		budget = atomic_load_explicit(&il_spin_g.budget_iters, memory_order_relaxed);
		min_iters = aware_min_iters(budget);
		if (!tls_aware_limit || tls_aware_limit > budget)
			tls_aware_limit = budget;
		limit = tls_aware_limit;
		/* Our own switch count: a spinner that gets switched out is in
		 * somebody's way on its CPU (user space's need_resched). */
		self0 = il_spin_self_switches(src);
	}
	fair = atomic_load_explicit(&il_spin_g.fair_iters, memory_order_relaxed);
	w = atomic_load_explicit(&m->word, memory_order_relaxed);
	for (i = 0; i < limit; i++) {
		if (w == 0) {
			if (cas_acquire(m, &w, want)) {
				if (!aware)
					tls_spins += ((int32_t)i - (int32_t)tls_spins) / 8;
				else if (2 * i + min_iters > tls_aware_limit)
					tls_aware_limit =
					    2 * i + min_iters < budget ? 2 * i + min_iters : budget;
				return 1;
			}
			continue;
		}
		/* A handoff is pending: the lock is promised, stop competing. */
		if (w & H)
			return 0;
		if (aware) {
			/* One load per iteration: the owner may change or leave its CPU. */
			int st = il_spin_owner_state(src, w & IL_SPIN_TID_MASK);

			if (st == 0) {
				if (il_spin_owner_blocked(src, w & IL_SPIN_TID_MASK))
					shrink_after_block(i);
				return 0;
			}
			if (st < 0 && limit > adaptive)
				limit = adaptive; /* TID beyond the map: behave as none */
			if (self0 != il_spin_self_switches(src))
				return 0;
			/*
			 * Spinning this long means we keep missing the short
			 * window between the owner's unlock and its next lock:
			 * ask for the lock to be handed over, spending what is
			 * left of the budget waiting for it.
			 */
			if (may_ask && i >= fair && st > 0 && !asked) {
				int r = request_handoff(m, want & IL_SPIN_TID_MASK, want & W, src,
							limit - i, i);

				asked = 1;
				/* Withdrawn: the owner left, and the wait learned from it. */
				if (r)
					return r > 0;
			}
		}
		/*
		 * One pause between reads of the word, as glibc's ADAPTIVE_NP:
		 * the release window of a short section (lock-bench's 100 ns)
		 * is narrower than a backoff of a few pauses. In lock-bench on
		 * the 2-CPU VM (2026-12), a backoff doubling up to 8 pauses
		 * left il-bpf at 0.87-0.94x adaptive-np's ops in one-per-cpu
		 * and over4; one pause gave 0.96-1.01x, owner-off unchanged.
		 */
		cpu_relax();
		w = atomic_load_explicit(&m->word, memory_order_relaxed);
	}
	if (!aware)
		tls_spins += ((int32_t)limit - (int32_t)tls_spins) / 8;
	else if (limit == tls_aware_limit)
		tls_aware_limit = tls_aware_limit / 2 > min_iters ? tls_aware_limit / 2 : min_iters;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A valid deadline in ns; one past 2^64 ns (year 2554) saturates instead of wrapping to the past.
 */
static uint64_t deadline_ns(const struct timespec *ts)
{
	if ((uint64_t)ts->tv_sec >= UINT64_MAX / 1000000000ull)
		return UINT64_MAX;
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static int lock_wait(struct il_spin_mutex *m, uint32_t tid, enum il_spin_source src,
		     const struct timespec *abs)
{
	uint64_t t0 = 0;
	int woken = 0, r;
	uint32_t w;

	il_spin_calibrate();
	if (spin_phase(m, tid, src, !abs))
		return 0;
	for (;;) {
		w = atomic_load_explicit(&m->word, memory_order_relaxed);
		if (w == 0) {
			if (cas_acquire(m, &w, tid | W))
				return 0;
			continue;
		}
		if (woken && !abs && !(w & H) && mono_ns() - t0 > IL_SPIN_HANDOFF_NS &&
		    request_handoff(m, tid, W, src, 0, 0) > 0)
			return 0;
		if (!(w & W)) {
			if (!atomic_compare_exchange_weak_explicit(
				&m->word, &w, w | W, memory_order_relaxed, memory_order_relaxed))
				continue;
			w |= W;
		}
		if (!t0)
			t0 = mono_ns();
		/* A word that keeps changing would otherwise let us overrun the deadline. */
		if (abs && mono_ns() >= deadline_ns(abs))
			return -ETIMEDOUT;
		r = futex_wait(&m->word, w, abs);
		if (r == -ETIMEDOUT)
			return -ETIMEDOUT;
		woken = 1;
		/* Woken: others may still sleep, so take the lock with W set. */
		if (spin_phase(m, tid | W, src, !abs))
			return 0;
	}
}

static int lock_slow(struct il_spin_mutex *m, uint32_t tid, enum il_spin_source src,
		     const struct timespec *abs)
{
	int r = lock_wait(m, tid, src, abs);

	/* Every way out (timed waiters never ask, so never hold one). */
	slot_drop_held();
	return r;
}

uint64_t il_spin_handoffs(void)
{
	return atomic_load_explicit(&il_spin_g.handoffs, memory_order_relaxed);
}

int il_spin_mutex_lock_source(struct il_spin_mutex *m, enum il_spin_source s)
{
	uint32_t tid = il_spin_tid();
	uint32_t w = 0;

	if (atomic_compare_exchange_strong_explicit(&m->word, &w, tid, memory_order_acquire,
						    memory_order_relaxed))
		return 0;
	return lock_slow(m, tid, s, NULL);
}

int il_spin_mutex_lock(struct il_spin_mutex *m)
{
	return il_spin_mutex_lock_source(m, il_spin_source_get());
}

int il_spin_mutex_trylock(struct il_spin_mutex *m)
{
	uint32_t w = 0;

	if (atomic_compare_exchange_strong_explicit(&m->word, &w, il_spin_tid(),
						    memory_order_acquire, memory_order_relaxed))
		return 0;
	return -EBUSY;
}

int il_spin_mutex_timedlock(struct il_spin_mutex *m, const struct timespec *abs_timeout)
{
	if (!abs_timeout || abs_timeout->tv_nsec < 0 || abs_timeout->tv_nsec >= 1000000000L ||
	    abs_timeout->tv_sec < 0)
		return -EINVAL;
	if (il_spin_mutex_trylock(m) == 0)
		return 0;
	return lock_slow(m, il_spin_tid(), il_spin_source_get(), abs_timeout);
}

int il_spin_mutex_unlock(struct il_spin_mutex *m)
{
	uint32_t tid = il_spin_tid();
	uint32_t w = tid;
	struct handoff_slot *s;

	/* Uncontended: nobody asleep, nothing promised. */
	if (atomic_compare_exchange_strong_explicit(&m->word, &w, 0, memory_order_release,
						    memory_order_acquire))
		return 0;
	for (;;) {
		if ((w & IL_SPIN_TID_MASK) != tid)
			return -EPERM;
		if (w & H) {
			void (*pause)(void) = atomic_load_explicit(&il_spin_g.test_handoff_pause,
								   memory_order_relaxed);
			uint32_t to;

			/* The acquire load that saw H makes the slot contents visible. */
			s = slot_of(m);
			to = atomic_load_explicit(&s->tid, memory_order_relaxed);
			/* Tests widen the window between reading the slot and the CAS. */
			if (pause)
				pause();
			/* W moves with the lock: sleepers on the word still need a wake. */
			if (!atomic_compare_exchange_weak_explicit(&m->word, &w, to | (w & W),
								   memory_order_acq_rel,
								   memory_order_acquire))
				continue;
			if (atomic_exchange_explicit(&s->granted, GRANT_GIVEN,
						     memory_order_release) == GRANT_ASLEEP)
				futex_wake(&s->granted, 1);
			atomic_fetch_add_explicit(&il_spin_g.handoffs, 1, memory_order_relaxed);
			return 0;
		}
		if (atomic_compare_exchange_weak_explicit(&m->word, &w, 0, memory_order_release,
							  memory_order_acquire)) {
			if (w & W)
				futex_wake(&m->word, 1);
			return 0;
		}
	}
}
