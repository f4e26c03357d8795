#include "il_test_spin.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
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
	pthread_barrier_t go;		   /* all threads start together, so they contend */
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

	pthread_barrier_wait(&s->go);
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

static unsigned long stress_run(int src, int nthreads, unsigned long iters, uint64_t cs_ns,
				int timed, int limit_s)
{
	struct stress s = {.src = src, .iters = iters, .cs_ns = cs_ns, .timed = timed};
	pthread_t t[16];
	struct timespec dl;

	assert_true(nthreads <= 16);
	pthread_barrier_init(&s.go, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++)
		assert_int_equal(pthread_create(&t[i], NULL, stress_thread, &s), 0);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += limit_s;
	for (int i = 0; i < nthreads; i++)
		if (pthread_timedjoin_np(t[i], NULL, &dl) != 0)
			fail_msg("threads not done after %d s: lost wake-up or deadlock", limit_s);
	assert_int_equal(s.bad_returns, 0);
	assert_int_equal(s.counter, (unsigned long)nthreads * iters);
	assert_int_equal(s.bad_owner, 0);
	assert_int_equal(s.m.word, 0);
	pthread_barrier_destroy(&s.go);
	return s.timeouts;
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
