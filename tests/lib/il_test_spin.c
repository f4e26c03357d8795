#include "il_test_spin.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "il_test.h"

struct stress {
	struct il_spin_mutex m;
	int src;
	unsigned long iters;
	uint64_t cs_ns;	       /* busy time inside each section */
	unsigned long counter; /* plain on purpose: only the lock protects it */
	_Atomic unsigned long bad_owner;
	pthread_barrier_t go; /* all threads start together, so they contend */
};

static void *stress_thread(void *arg)
{
	struct stress *s = arg;
	uint32_t me = il_spin_tid();

	pthread_barrier_wait(&s->go);
	for (unsigned long i = 0; i < s->iters; i++) {
		if (s->src == IL_TEST_SPIN_PROCESS_WIDE)
			il_spin_mutex_lock(&s->m);
		else
			il_spin_mutex_lock_source(&s->m, (enum il_spin_source)s->src);
		if (il_spin_mutex_owner(&s->m) != me)
			s->bad_owner++;
		s->counter++;
		if (s->cs_ns) {
			struct timespec a, b;

			clock_gettime(CLOCK_MONOTONIC, &a);
			do
				clock_gettime(CLOCK_MONOTONIC, &b);
			while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull +
				   (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec <
			       s->cs_ns);
		}
		/*
		 * Now and then the owner leaves its CPU while holding the
		 * lock, so waiters must take the sleep and wake-up paths.
		 */
		if ((i & 255) == 0)
			sched_yield();
		il_spin_mutex_unlock(&s->m);
	}
	return NULL;
}

void il_test_spin_stress(int src, int nthreads, unsigned long iters, int limit_s)
{
	il_test_spin_stress_cs(src, nthreads, iters, 0, limit_s);
}

void il_test_spin_stress_cs(int src, int nthreads, unsigned long iters, uint64_t cs_ns, int limit_s)
{
	struct stress s = {.src = src, .iters = iters, .cs_ns = cs_ns};
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
	assert_int_equal(s.counter, (unsigned long)nthreads * iters);
	assert_int_equal(s.bad_owner, 0);
	assert_int_equal(s.m.word, 0);
	pthread_barrier_destroy(&s.go);
}
