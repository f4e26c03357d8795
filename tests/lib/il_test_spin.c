#include "il_test_spin.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "il_clock.h"
#include "il_test.h"

struct stress {
	struct il_spin_mutex m;
	int src;
	unsigned long iters;
	uint64_t cs_ns;	       /* busy time inside each section */
	unsigned long counter; /* plain on purpose: only the lock protects it */
	_Atomic unsigned long bad_owner;
	int timed;			   /* odd-numbered threads use timedlock */
	_Atomic unsigned long timeouts;	   /* timed calls that timed out */
	_Atomic unsigned long bad_returns; /* timed calls that failed otherwise */
	_Atomic unsigned long next_index;  /* hands each thread its number */
	/*
	 * All threads start together, so they contend: 1 once all are
	 * started, -1 if one could not be (those started leave). Not a
	 * barrier: its count cannot drop to the threads that did start.
	 */
	_Atomic int go;
};

/*
 * Takes the lock by timedlock, deadlines 0..4 sections away, until it has
 * it: 0, or another error than -ETIMEDOUT (counted; asserted by the caller,
 * since cmocka's asserts must stay on the test's own thread).
 */
static int lock_timed(struct stress *s, unsigned long i)
{
	uint64_t span = s->cs_ns ? s->cs_ns : 1000;
	int r;

	do {
		struct timespec ts = il_ns_to_ts(il_now_ns() + span * ((i * 2654435761u >> 7) % 5));

		r = il_spin_mutex_timedlock(&s->m, &ts);
		if (r == -ETIMEDOUT)
			s->timeouts++;
		else if (r)
			s->bad_returns++;
		i++;
	} while (r == -ETIMEDOUT);
	return r;
}

static void *stress_thread(void *arg)
{
	struct stress *s = arg;
	uint32_t me = il_spin_tid();
	int timed = s->timed && (s->next_index++ & 1);

	while (!s->go)
		sched_yield();
	if (s->go < 0)
		return NULL;
	for (unsigned long i = 0; i < s->iters; i++) {
		if (timed) {
			if (lock_timed(s, i))
				break;
		} else if (s->src == IL_TEST_SPIN_PROCESS_WIDE)
			il_spin_mutex_lock(&s->m);
		else
			il_spin_mutex_lock_source(&s->m, (enum il_spin_source)s->src);
		if (il_spin_mutex_owner(&s->m) != me)
			s->bad_owner++;
		s->counter++;
		if (s->cs_ns)
			for (uint64_t t0 = il_now_ns(); il_now_ns() - t0 < s->cs_ns;)
				;
		/*
		 * Now and then the owner leaves its CPU while holding the
		 * lock, so waiters must take the sleep and wake-up paths:
		 * yielding (runnable) and blocking (asleep, which the bpf
		 * source records and spinners learn from).
		 */
		if ((i & 255) == 0) {
			sched_yield();
		} else if ((i & 255) == 128) {
			struct timespec nap = {0, 1000};

			nanosleep(&nap, NULL);
		}
		il_spin_mutex_unlock(&s->m);
	}
	return NULL;
}

void il_test_spin_stress(int src, int nthreads, unsigned long iters, int limit_s)
{
	il_test_spin_stress_cs(src, nthreads, iters, 0, limit_s);
}

/*
 * The threads' state is on the heap, not this stack: threads that never
 * end (the deadlock this looks for) go on using it after the failure has
 * left the test, so it is freed only once they are all joined.
 */
static unsigned long stress_run(int src, int nthreads, unsigned long iters, uint64_t cs_ns,
				int timed, int limit_s)
{
	struct stress *s = calloc(1, sizeof(*s));
	pthread_t t[16];
	struct timespec dl;
	unsigned long timeouts;
	int started = 0, cerr = 0;

	assert_true(nthreads <= 16);
	assert_non_null(s); /* zeroed: the mutex free, as IL_SPIN_MUTEX_INITIALIZER */
	s->src = src;
	s->iters = iters;
	s->cs_ns = cs_ns;
	s->timed = timed;
	while (started < nthreads && !(cerr = pthread_create(&t[started], NULL, stress_thread, s)))
		started++;
	s->go = cerr ? -1 : 1;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += limit_s;
	for (int i = 0; i < started; i++)
		if (pthread_timedjoin_np(t[i], NULL, &dl) != 0)
			fail_msg("threads not done after %d s: lost wake-up or deadlock", limit_s);
	if (cerr) {
		free(s);
		fail_msg("pthread_create of stress thread %d: %s", started, strerror(cerr));
	}
	/* All joined: a failure here only leaks s. */
	timeouts = s->timeouts;
	assert_int_equal(s->bad_returns, 0);
	assert_int_equal(s->counter, (unsigned long)nthreads * iters);
	assert_int_equal(s->bad_owner, 0);
	assert_int_equal(s->m.word, 0);
	free(s);
	return timeouts;
}

void il_test_spin_stress_cs(int src, int nthreads, unsigned long iters, uint64_t cs_ns, int limit_s)
{
	stress_run(src, nthreads, iters, cs_ns, 0, limit_s);
}

unsigned long il_test_spin_stress_timed(int src, int nthreads, unsigned long iters, uint64_t cs_ns,
					int limit_s)
{
	return stress_run(src, nthreads, iters, cs_ns, 1, limit_s);
}
