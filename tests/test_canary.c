/*
 * The canary (harness/il_canary): a SCHED_FIFO busy thread pinned to its
 * CPU for 2 s must show as a stall of at least 500 ms; on a quiet CPU the
 * longest gap stays under 50 ms.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_canary.h"
#include "il_clock.h"
#include "il_load.h"
#include "il_procfs.h"
#include "il_test.h"

#define HOG_NS il_ms_to_ns(2000)

static int name_only_init(void *ctx, enum il_role role, const char *name, char *err, size_t len)
{
	return -pthread_setname_np(pthread_self(), name);
}

/* The last CPU we may use: away from CPU 0, where most housekeeping runs. */
static int pick_cpu(void)
{
	cpu_set_t s;
	int last = -1;

	assert_int_equal(sched_getaffinity(0, sizeof(s), &s), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s))
			last = c;
	return last;
}

struct fifo_hog {
	int cpu;
	atomic_bool stop;
	atomic_bool running;
	atomic_bool done;
};

static void *fifo_hog_main(void *arg)
{
	struct fifo_hog *h = arg;
	cpu_set_t one;
	volatile uint64_t x = 1;

	CPU_ZERO(&one);
	CPU_SET(h->cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	atomic_store(&h->running, true);
	/* The stop flag is checked every few microseconds: the watchdog, at a
	 * higher FIFO priority, always gets to set it. */
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed))
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1;
	atomic_store(&h->done, true);
	return NULL;
}

/* Ends the hog after HOG_NS; if it did not stop, kills the whole test. */
static void *watchdog_main(void *arg)
{
	struct fifo_hog *h = arg;
	struct timespec ts = il_ns_to_ts(il_now_ns() + HOG_NS);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	atomic_store(&h->stop, true);
	for (int i = 0; i < 100 && !atomic_load(&h->done); i++)
		usleep(10000);
	if (!atomic_load(&h->done)) {
		fprintf(stderr, "test_canary: FIFO hog did not stop, killing the test\n");
		kill(getpid(), SIGKILL);
	}
	return NULL;
}

/* The calling thread's CPU time, ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * RLIMIT_RTTIME at 3 s (the old limit into *old): a FIFO thread of the
 * test that runs away is ended by the kernel. Only the soft limit:
 * SIGXCPU terminates by default, and a lowered hard limit could not be
 * raised back without CAP_SYS_RESOURCE.
 */
static void rttime_soft_limit(struct rlimit *old)
{
	struct rlimit lim;

	assert_int_equal(getrlimit(RLIMIT_RTTIME, old), 0);
	lim = *old;
	if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > 4000000)
		lim.rlim_cur = 3000000;
	else
		lim.rlim_cur = lim.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &lim), 0);
}

static int start_fifo(pthread_t *t, int prio, void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	struct sched_param sp = {.sched_priority = prio};
	int ret;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	ret = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return ret;
}

static void test_canary_quiet_cpu(void **state)
{
	struct il_canary *c = NULL;
	struct il_canary_stats s;
	int cpu = pick_cpu();
	uint64_t busy0, busy1;
	double others;
	char err[256] = "";

	assert_int_equal(il_canary_start(&(struct il_canary_config){.cpu = cpu}, name_only_init,
					 NULL, &c, err, sizeof(err)),
			 0);
	assert_int_equal(il_test_cpu_busy_ns(cpu, &busy0), 0);
	il_canary_mark_start(c);
	usleep(1000000);
	il_canary_get(c, &s);
	assert_int_equal(il_test_cpu_busy_ns(cpu, &busy1), 0);
	il_canary_stop(c);
	others = il_test_others_share(busy0, busy1, s.cpu_ns, s.wall_ns);
	print_message("quiet: max_stall %.2f ms, cpu_share %.3f, wakeups %llu of %llu; other tasks "
		      "used %.0f%% of CPU %d\n",
		      s.max_stall_ms, s.cpu_share, (unsigned long long)s.wakeups,
		      (unsigned long long)s.expected_wakeups, others * 100, cpu);
	/*
	 * On a quiet CPU the canary is served at once. Other tenants of the
	 * machine delay it a little, never for long; when they held the CPU
	 * (another run's RT threads, a CPU load) the premise does not hold
	 * and the figures say nothing about the canary: skip, saying so.
	 */
	if (!(s.max_stall_ms < 50.0 && s.wakeups > s.expected_wakeups * 8 / 10 &&
	      s.cpu_share > 0.5) &&
	    others > 0.1)
		IL_TEST_SKIP("CPU %d was not quiet: other tasks used %.0f%% of it (canary: max "
			     "stall %.1f ms, cpu_share %.3f)",
			     cpu, others * 100, s.max_stall_ms, s.cpu_share);
	assert_true(s.max_stall_ms < 50.0);
	assert_true(s.wakeups > s.expected_wakeups * 8 / 10);
	assert_true(s.cpu_share > 0.5 && s.cpu_share <= 1.0);
}

static void test_canary_fifo_hog_stalls(void **state)
{
	struct rlimit old;
	struct fifo_hog h = {.cpu = pick_cpu()};
	struct il_canary *c = NULL;
	struct il_canary_stats s;
	pthread_t hog, dog;
	char err[256] = "";
	int ret;

	/* RLIMIT_RTTIME first: a hog that escapes the watchdog is killed by
	 * the kernel after 3 s of RT CPU time without blocking. */
	rttime_soft_limit(&old);
	assert_int_equal(il_canary_start(&(struct il_canary_config){.cpu = h.cpu}, name_only_init,
					 NULL, &c, err, sizeof(err)),
			 0);
	ret = start_fifo(&dog, 20, watchdog_main, &h);
	if (ret == EPERM) {
		il_canary_stop(c);
		setrlimit(RLIMIT_RTTIME, &old);
		print_message("skipped: SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO\n");
		skip();
	}
	assert_int_equal(ret, 0);
	il_canary_mark_start(c);
	ret = start_fifo(&hog, 10, fifo_hog_main, &h);
	if (ret != 0) {
		/* The watchdog writes to h, on this stack, at the end of its
		 * sleep: it is joined before the test fails. */
		atomic_store(&h.stop, true);
		atomic_store(&h.done, true);
		pthread_join(dog, NULL);
		il_canary_stop(c);
		setrlimit(RLIMIT_RTTIME, &old);
		fail_msg("starting the FIFO hog: %s", strerror(ret));
	}
	pthread_join(hog, NULL);
	pthread_join(dog, NULL);
	il_canary_get(c, &s);
	il_canary_stop(c);
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &old), 0);
	print_message("FIFO hog: max_stall %.1f ms, cpu_share %.3f, wakeups %llu of %llu\n",
		      s.max_stall_ms, s.cpu_share, (unsigned long long)s.wakeups,
		      (unsigned long long)s.expected_wakeups);
	/* Throttling or the fair server leaves CFS ~50 ms per second, so
	 * the canary runs in short bursts with ~950 ms gaps between (its share
	 * is about 0.05-0.1 on a quiet machine; other tenants' RT work and
	 * knob changes move it, so only a loose bound here). */
	assert_true(s.max_stall_ms >= 500.0);
	assert_true(s.cpu_share < 0.6);
}

/* One try of starved_from_the_start: its figures. */
struct starved {
	double held_ms, queued_ms;
	struct il_canary_stats s;
};

/*
 * The starter FIFO on cpu holds it 300 ms from the canary's gate on.
 * Returns false when FIFO is refused.
 */
static bool starve_once(int cpu, struct starved *t)
{
	struct rlimit old;
	struct sched_param fifo = {.sched_priority = 10}, other = {.sched_priority = 0};
	struct il_canary *c = NULL;
	cpu_set_t mask0, one;
	uint64_t until, cpu0, wait0, wait1;
	char err[256] = "";

	t->queued_ms = NAN;
	assert_int_equal(sched_getaffinity(0, sizeof(mask0), &mask0), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* As fifo_hog_stalls: the kernel ends a FIFO thread that runs away. */
	rttime_soft_limit(&old);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
		sched_setaffinity(0, sizeof(mask0), &mask0);
		setrlimit(RLIMIT_RTTIME, &old);
		return false;
	}
	assert_int_equal(il_canary_start(&(struct il_canary_config){.cpu = cpu}, name_only_init,
					 NULL, &c, err, sizeof(err)),
			 0);
	/* The kernel's count of the canary's waits on a run queue: the
	 * starvation counts there once the canary next runs. */
	if (il_procfs_schedstat(0, il_canary_tid(c), NULL, &wait0, NULL) < 0)
		wait0 = UINT64_MAX;
	/* Bounded by the clock (and by RLIMIT_RTTIME, should that fail). */
	cpu0 = thread_cpu_ns();
	until = il_now_ns() + il_ms_to_ns(300);
	while (il_now_ns() < until)
		;
	t->held_ms = il_ns_to_ms(thread_cpu_ns() - cpu0);
	assert_int_equal(sched_setscheduler(0, SCHED_OTHER, &other), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(mask0), &mask0), 0);
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &old), 0);
	usleep(200000);
	il_canary_get(c, &t->s);
	if (wait0 != UINT64_MAX &&
	    il_procfs_schedstat(0, il_canary_tid(c), NULL, &wait1, NULL) == 0)
		t->queued_ms = il_ns_to_ms(wait1 - wait0);
	il_canary_stop(c);
	return true;
}

/*
 * A canary whose CPU an RT thread holds from the moment its gate opens
 * was due all that while. The first period was counted from the canary's
 * first run instead: on one CPU under rt --hog a canary that ran once in
 * 597 ms read cpu_share 0.993 (and test_canary fifo_hog_stalls once read
 * 0.643 when its hog got the CPU before the canary's first run). Here the
 * starter itself is FIFO on the canary's CPU: the canary initialises
 * while the starter sleeps for it, then cannot run until the starter,
 * busy for 300 ms after opening the gate, lets it.
 *
 * The premise is the starter's: it must hold the CPU all 300 ms. RT
 * throttling ends it early when the CPU's RT runtime of the period
 * (sched_rt_runtime_us of sched_rt_period_us) is spent already, by
 * fifo_hog_stalls's hog just before or by RT work beside: then CFS, the
 * canary, runs, and the figures say nothing. That was a skip, and under
 * ASan in CI the case skipped (the starter held the CPU 250-283 ms, or
 * 295 ms with the canary queued only a few ms); with a FIFO loop on the
 * CPU for 0.65-0.9 s just before, it skips here too (held 272 ms, the
 * canary queued 93 ms). So each try first sleeps one RT period and a bit:
 * a period's end falls in the sleep and gives the CPU its runtime back,
 * and 300 ms fits in it. A try whose premise still fails (another tenant's
 * RT work on the CPU) is tried again; three that fail are a failure that
 * says why, never a pass by skipping.
 */
static void test_canary_starved_from_the_start(void **state)
{
	int cpu = pick_cpu(), tries = 0;
	long long period_us = 1000000;
	struct starved t;
	char why[256] = "";
	FILE *f = fopen("/proc/sys/kernel/sched_rt_period_us", "r");

	if (f) {
		if (fscanf(f, "%lld", &period_us) != 1 || period_us <= 0 || period_us > 10000000)
			period_us = 1000000;
		fclose(f);
	}
	for (; tries < 3; tries++) {
		usleep((useconds_t)(period_us + 100000));
		if (!starve_once(cpu, &t))
			IL_TEST_SKIP("SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO");
		print_message(
		    "starved from the start (try %d): the starter held CPU %d %.1f of 300 "
		    "ms; canary queued %.1f ms, max_stall %.1f ms, waited %.1f ms of %.1f, "
		    "cpu_share %.3f, wakeups %llu of %llu\n",
		    tries + 1, cpu, t.held_ms, t.queued_ms, t.s.max_stall_ms,
		    il_ns_to_ms(t.s.waited_ns), il_ns_to_ms(t.s.wall_ns), t.s.cpu_share,
		    (unsigned long long)t.s.wakeups, (unsigned long long)t.s.expected_wakeups);
		/* The starter held the CPU, and the kernel's schedstat says the
		 * canary waited on its run queue for it. */
		if (t.held_ms < 285)
			snprintf(
			    why, sizeof(why),
			    "the starter held CPU %d for %.0f of its 300 ms (RT throttling, or "
			    "other RT work there): the canary could run",
			    cpu, t.held_ms);
		else if (!(t.queued_ms >= 250))
			snprintf(
			    why, sizeof(why),
			    "the kernel's schedstat has the canary queued %.0f ms, not kept off "
			    "CPU %d by the starter",
			    t.queued_ms, cpu);
		else
			break;
	}
	if (tries == 3)
		fail_msg("no try of three could starve the canary: %s", why);
	/* 300 ms of about 500 the CPU was not there for it. */
	assert_true(t.s.max_stall_ms >= 290);
	assert_true(il_ns_to_ms(t.s.waited_ns) >= 290);
	assert_true(t.s.cpu_share < 0.5);
}

/* The load threads count their CPU time as the kernel does. */
static void test_canary_load_share(void **state)
{
	struct il_load *l = NULL;
	char err[256] = "";
	uint64_t p0, p1, t0, wall;
	const cJSON *th;
	double share, proc_share;
	cJSON *j;
	int tid;

	assert_int_equal(il_load_start(&(struct il_load_config){.threads = 1, .pin = true},
				       name_only_init, NULL, &l, err, sizeof(err)),
			 0);
	j = il_load_stats_json(l, 0);
	th = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), 0);
	assert_string_equal(cJSON_GetObjectItem(th, "name")->valuestring, "il:load0");
	tid = cJSON_GetObjectItem(th, "tid")->valueint;
	cJSON_Delete(j);

	p0 = il_test_task_cpu_ns(tid);
	il_load_mark_start(l);
	t0 = il_now_ns();
	usleep(1000000);
	p1 = il_test_task_cpu_ns(tid);
	wall = il_now_ns() - t0;
	share = il_load_cpu_share(l, wall);
	il_load_stop(l);
	proc_share = (double)(p1 - p0) / (double)wall;
	print_message("load cpu_share %.3f, /proc says %.3f\n", share, proc_share);
	assert_true(share > 0.0 && share <= 1.05);
	assert_true(share - proc_share < 0.10 && proc_share - share < 0.10);
}

/* The report's canary.cpu: the CPU it is pinned to, null when unpinned (never -1);
 * canary.interval_us: the period it ran with (the default 1 ms, or the one asked). */
static void test_canary_json_cpu(void **state)
{
	const int cpus[] = {-1, pick_cpu()};
	char err[256] = "";

	(void)state;
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		struct il_canary *c = NULL;
		cJSON *j, *cpu;
		const cJSON *interval;
		/* The second with a period of its own, 2 ms. */
		uint64_t period_ns = i ? 2000000 : 0;

		assert_int_equal(il_canary_start(&(struct il_canary_config){.cpu = cpus[i],
									    .period_ns = period_ns},
						 name_only_init, NULL, &c, err, sizeof(err)),
				 0);
		il_canary_mark_start(c);
		j = il_canary_stats_json(c);
		il_canary_stop(c);
		assert_non_null(j);
		interval = cJSON_GetObjectItem(j, "interval_us");
		assert_true(cJSON_IsNumber(interval));
		assert_float_equal(interval->valuedouble, i ? 2000.0 : 1000.0, 1e-9);
		cpu = cJSON_GetObjectItem(j, "cpu");
		assert_non_null(cpu);
		if (cpus[i] < 0)
			assert_true(cJSON_IsNull(cpu));
		else
			assert_true(cJSON_IsNumber(cpu) && cpu->valueint == cpus[i]);
		cJSON_Delete(j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_canary_quiet_cpu),
	    cmocka_unit_test(test_canary_fifo_hog_stalls),
	    cmocka_unit_test(test_canary_starved_from_the_start),
	    cmocka_unit_test(test_canary_load_share),
	    cmocka_unit_test(test_canary_json_cpu),
	};
	if (il_test_filters("test_canary", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
