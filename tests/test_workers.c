/*
 * Worker groups (sim/il_workers): the start gate, a member's init failure,
 * a prompt stop, the halt before the stop's stats (and the orchestrator's
 * halt word, which needs no control thread), CPU accounting from
 * the mark, the affinity union, the shared stats JSON, and an RT member
 * that cannot hold up the start.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_clock.h"
#include "il_test.h"
#include "il_workers.h"

static atomic_int ran;

/* Stands in for the policy engine: only names the thread. */
static int name_only_init(void *ctx, enum il_role role, const char *name, char *err, size_t len)
{
	return -pthread_setname_np(pthread_self(), name);
}

/* Member 1 fails the way a policy that needs privilege does. */
static int second_fails_init(void *ctx, enum il_role role, const char *name, char *err, size_t len)
{
	int ret = name_only_init(ctx, role, name, err, len);

	if (ret == 0 && strcmp(name, "t:w1") == 0) {
		snprintf(err, len, "%s: SCHED_FIFO priority 50 needs CAP_SYS_NICE", name);
		return -EPERM;
	}
	return ret;
}

/* Counts that it ran, then returns at once (or when stopped). */
static void count_run(struct il_worker *self, void *ctx)
{
	atomic_fetch_add(&ran, 1);
}

static void busy_run(struct il_worker *self, void *ctx)
{
	uint64_t x = 1 + il_worker_index(self), chunks = 0;
	volatile uint64_t sink;

	atomic_fetch_add(&ran, 1);
	while (!il_worker_stopping(self)) {
		x = il_workers_chunk(x);
		il_worker_publish(self, ++chunks);
	}
	sink = x;
	(void)sink;
}

/* Member 0 is busy, the others sleep for 10 s. */
static void busy_or_asleep_run(struct il_worker *self, void *ctx)
{
	if (il_worker_index(self) == 0) {
		busy_run(self, ctx);
		return;
	}
	atomic_fetch_add(&ran, 1);
	il_worker_sleep_until(self, il_now_ns() + il_ms_to_ns(10000));
}

static struct il_workers_config cfg(unsigned threads, il_workers_run_fn run)
{
	return (struct il_workers_config){.threads = threads,
					  .role = IL_ROLE_LOAD,
					  .name = "t:w",
					  .indexed = true,
					  .place = IL_WORKERS_ANYWHERE,
					  .init = name_only_init,
					  .run = run,
					  .units_name = "chunks"};
}

/* Starts c, which must succeed. */
static struct il_workers *start(const struct il_workers_config *c)
{
	struct il_workers *w = NULL;
	char err[256] = "";

	assert_int_equal(il_workers_start(c, &w, err, sizeof(err)), 0);
	assert_non_null(w);
	return w;
}

/* Threads of this process named t:w... (the groups' members). */
static int member_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* exited meanwhile */
		if (fgets(comm, sizeof(comm), f) && strncmp(comm, "t:w", 3) == 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Waits up to timeout_ms for `want` members to be left (a joined thread
 * may stay listed in /proc for a moment). */
static int wait_member_count(int want, int timeout_ms)
{
	int n = member_count();

	for (int i = 0; i < timeout_ms && n != want; i++) {
		usleep(1000);
		n = member_count();
	}
	return n;
}

static bool wait_ran(int want, int timeout_ms)
{
	for (int i = 0; i < timeout_ms && atomic_load(&ran) < want; i++)
		usleep(1000);
	return atomic_load(&ran) >= want;
}

/* Waits (10 s at most) until member 0 has used cpu_ns of CPU since the mark. */
static void wait_cpu(struct il_workers *w, uint64_t cpu_ns)
{
	for (uint64_t t0 = il_now_ns(); il_workers_cpu_ns(w, 0) < cpu_ns; usleep(1000))
		if (il_now_ns() - t0 > il_ms_to_ns(10000))
			fail_msg("member 0 used %.1f ms of CPU in 10 s, want %.1f ms",
				 il_ns_to_ms(il_workers_cpu_ns(w, 0)), il_ns_to_ms(cpu_ns));
}

static void allowed_cpus(cpu_set_t *s)
{
	assert_int_equal(sched_getaffinity(0, sizeof(*s), s), 0);
}

static int first_cpu(const cpu_set_t *s)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, s))
			return c;
	return -1;
}

static int last_cpu(const cpu_set_t *s)
{
	int last = -1;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, s))
			last = c;
	return last;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_workers_gate_holds_until_open(void **state)
{
	struct il_workers_config c = cfg(3, busy_run);
	struct il_workers *w = NULL;

	c.hold = true;
	atomic_store(&ran, 0);
	w = start(&c);
	assert_int_equal(member_count(), 3);
	usleep(200000);
	/* Set up, waiting at the gate, using no CPU. */
	assert_int_equal(atomic_load(&ran), 0);
	assert_true(il_workers_cpu_share(w, 0) < 0.01);
	il_workers_open(w);
	assert_true(wait_ran(3, 10000));
	il_workers_stop(w);
	assert_int_equal(wait_member_count(0, 10000), 0);

	/* Stopped while held: the members leave without running. */
	atomic_store(&ran, 0);
	w = start(&c);
	il_workers_stop(w);
	assert_int_equal(atomic_load(&ran), 0);
	assert_int_equal(wait_member_count(0, 10000), 0);
}

static void test_workers_init_failure_fails_start(void **state)
{
	struct il_workers_config c = cfg(3, count_run);
	struct il_workers *w = NULL;
	char err[256] = "";

	c.init = second_fails_init;
	atomic_store(&ran, 0);
	assert_int_equal(il_workers_start(&c, &w, err, sizeof(err)), -EPERM);
	assert_null(w);
	assert_string_equal(err, "t:w1: SCHED_FIFO priority 50 needs CAP_SYS_NICE");
	/* The members that were set up were joined, never ran. */
	assert_int_equal(wait_member_count(0, 10000), 0);
	assert_int_equal(atomic_load(&ran), 0);
}

static void test_workers_stop_is_prompt(void **state)
{
	struct il_workers_config c = cfg(3, busy_or_asleep_run);
	struct il_workers *w = NULL;
	struct il_test_others_mark mark;
	uint64_t t0;

	c.place = IL_WORKERS_SPREAD;
	atomic_store(&ran, 0);
	w = start(&c);
	assert_true(wait_ran(3, 10000));
	usleep(50000);
	/* One member spins, two are in a 10 s sleep; neither holds the stop. */
	il_test_others_mark(&mark);
	t0 = il_now_ns();
	il_workers_stop(w);
	print_message("stop took %.2f ms\n", il_ns_to_ms(il_now_ns() - t0));
	il_test_assert_prompt("the stop", il_now_ns() - t0, il_ms_to_ns(200),
			      il_test_others_since(&mark));
	il_workers_stop(NULL);
}

/*
 * At the stop the members are told to end before the stats are taken, and
 * the stats end there: 1024 busy members held a stop back seconds because
 * the thread taking their stats shared the CPUs with all of them.
 */
static void test_workers_halt_ends_members_and_stats(void **state)
{
	struct il_workers_config c = cfg(3, busy_or_asleep_run);
	struct il_workers *w = NULL;
	cJSON *a, *b;

	atomic_store(&ran, 0);
	w = start(&c);
	il_workers_mark(w);
	assert_true(wait_ran(3, 10000));
	wait_cpu(w, il_ms_to_ns(5));
	assert_int_equal(member_count(), 3);
	il_workers_halt(w);
	/* Busy or asleep for 10 s, every member ends without being joined. */
	assert_int_equal(wait_member_count(0, 30000), 0); /* a hang bound */
	a = il_workers_stats_json(w, 0);
	usleep(20000);
	b = il_workers_stats_json(w, 0);
	/* The wall time the stats divide by stopped at the halt. */
	assert_true(num(a, "wall_ns") > 0);
	assert_true(num(a, "wall_ns") == num(b, "wall_ns"));
	cJSON_Delete(a);
	cJSON_Delete(b);
	il_workers_halt(w); /* twice: harmless */
	il_workers_stop(w);
}

static atomic_int on_halt_calls;

/* The halt's hook: counts its calls, and checks the members still run. */
static void count_on_halt(void *ctx)
{
	atomic_fetch_add(&on_halt_calls, 1);
}

/*
 * The orchestrator's halt word (wire/il_halt.h) ends busy members without
 * this thread calling anything: as when the control thread of il-workload
 * is starved behind 1024 of them. The hook runs once, by a member, and the
 * stats end at the word's time, not at the later il_workers_halt.
 */
static void test_workers_halt_word_ends_members(void **state)
{
	static _Atomic uint64_t word;
	struct il_workers_config c = cfg(3, busy_run);
	struct il_workers *w = NULL;
	uint64_t at;
	cJSON *a;

	atomic_store(&word, 0);
	atomic_store(&ran, 0);
	atomic_store(&on_halt_calls, 0);
	c.halt_word = &word;
	c.on_halt = count_on_halt;
	w = start(&c);
	il_workers_mark(w);
	assert_true(wait_ran(3, 10000));
	wait_cpu(w, il_ms_to_ns(5));
	assert_int_equal(atomic_load(&on_halt_calls), 0);
	at = il_now_ns();
	atomic_store(&word, at);
	assert_int_equal(wait_member_count(0, 30000), 0); /* a hang bound */
	assert_int_equal(atomic_load(&on_halt_calls), 1);
	usleep(20000);
	il_workers_halt(w); /* what the control thread does when it gets to run */
	assert_int_equal(atomic_load(&on_halt_calls), 1);
	a = il_workers_stats_json(w, 0);
	assert_true(num(a, "wall_ns") == (double)(at - il_workers_mark_ns(w)));
	cJSON_Delete(a);
	il_workers_stop(w);
}

/* A word written before the mark (a stop during the start): the members
 * leave the gate only to end, and the stats have no wall time to divide. */
static void test_workers_halt_word_before_mark(void **state)
{
	static _Atomic uint64_t word;
	struct il_workers_config c = cfg(2, busy_run);
	struct il_workers *w = NULL;
	cJSON *a;

	atomic_store(&word, 0);
	atomic_store(&on_halt_calls, 0);
	c.halt_word = &word;
	c.on_halt = count_on_halt;
	c.hold = true;
	w = start(&c);
	atomic_store(&word, il_now_ns());
	usleep(1000);
	il_workers_mark(w);
	assert_int_equal(wait_member_count(0, 30000), 0);
	assert_int_equal(atomic_load(&on_halt_calls), 1);
	a = il_workers_stats_json(w, 0);
	assert_true(num(a, "wall_ns") == 0);
	assert_true(num(a, "cpu_share") == 0);
	cJSON_Delete(a);
	il_workers_stop(w);
	assert_int_equal(atomic_load(&on_halt_calls), 1);
}

static void test_workers_cpu_resets_at_mark(void **state)
{
	struct il_workers_config c = cfg(1, busy_run);
	struct il_workers *w = NULL;
	uint64_t before_mark, after_mark, mark;
	const cJSON *t;
	cJSON *j;

	c.place = IL_WORKERS_SPREAD;
	w = start(&c);
	/* Some CPU time before the mark, however slowly the machine gives it. */
	wait_cpu(w, il_ms_to_ns(31));
	before_mark = il_workers_cpu_ns(w, 0);
	il_workers_mark(w);
	mark = il_workers_mark_ns(w);
	after_mark = il_workers_cpu_ns(w, 0);
	j = il_workers_stats_json(w, 0);
	print_message("cpu before the mark %.1f ms, just after %.3f ms\n", il_ns_to_ms(before_mark),
		      il_ns_to_ms(after_mark));
	assert_true(before_mark > il_ms_to_ns(30));
	/* At most what ran between the mark and the reading (plus the one
	 * chunk in flight at the mark). */
	assert_true(after_mark <= il_now_ns() - mark + il_ms_to_ns(1));
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), 0);
	assert_true(num(t, "cpu_ns") <= num(j, "wall_ns") * 1.01 + 1e6);
	cJSON_Delete(j);
	wait_cpu(w, il_ms_to_ns(20));
	j = il_workers_stats_json(w, 0);
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), 0);
	/* Counted from the mark again: some CPU, and no more than the wall time since. */
	assert_true(num(t, "cpu_ns") > 0 && num(t, "chunks") > 0);
	assert_true(num(j, "cpu_ns") <= num(j, "wall_ns") * 1.01);
	assert_true(num(j, "cpu_share") > 0 && num(j, "cpu_share") <= 1.05);
	cJSON_Delete(j);
	il_workers_stop(w);
}

static void test_workers_stats_json(void **state)
{
	struct il_workers_config c = cfg(2, busy_run);
	struct il_workers *w = NULL;
	char path[64], comm[32] = "";
	const cJSON *t;
	cJSON *j;
	FILE *f;

	c.place = IL_WORKERS_SPREAD;
	w = start(&c);
	usleep(100000);
	j = il_workers_stats_json(w, 0);
	assert_int_equal((int)num(j, "threads"), 2);
	assert_int_equal((int)num(j, "cpus"),
			 cJSON_GetArraySize(cJSON_GetObjectItem(j, "cpu_set")));
	num(j, "wall_ns");
	num(j, "cpu_ns");
	num(j, "cpu_share");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "per_thread")), 2);
	for (int i = 0; i < 2; i++) {
		char want[16];

		t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), i);
		snprintf(want, sizeof(want), "t:w%d", i);
		assert_string_equal(cJSON_GetObjectItem(t, "name")->valuestring, want);
		assert_int_equal((int)num(t, "tid"), il_workers_tid(w, (unsigned)i));
		assert_true(num(t, "cpu") >= 0);
		num(t, "cpu_ns");
		num(t, "chunks");
		/* The name is the kernel's too, as ps -L and traces show it. */
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm",
			 il_workers_tid(w, (unsigned)i));
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(comm, sizeof(comm), f));
		fclose(f);
		comm[strcspn(comm, "\n")] = '\0';
		assert_string_equal(comm, want);
	}
	cJSON_Delete(j);
	il_workers_stop(w);

	/* Without units_name the per-thread count is left out; one member
	 * not indexed carries the name as it is. */
	c = cfg(1, busy_run);
	c.units_name = NULL;
	c.indexed = false;
	c.name = "t:single";
	w = start(&c);
	j = il_workers_stats_json(w, 0);
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), 0);
	assert_string_equal(cJSON_GetObjectItem(t, "name")->valuestring, "t:single");
	assert_int_equal((int)num(t, "cpu"), -1);
	assert_null(cJSON_GetObjectItem(t, "chunks"));
	cJSON_Delete(j);
	il_workers_stop(w);
}

static void test_workers_affinity_union(void **state)
{
	struct il_workers_config c;
	struct il_workers *w = NULL;
	cpu_set_t allowed;
	cJSON *j;

	allowed_cpus(&allowed);
	/* One member per allowed CPU, round robin: all of them, each once. */
	c = cfg((unsigned)CPU_COUNT(&allowed), busy_run);
	c.place = IL_WORKERS_SPREAD;
	w = start(&c);
	assert_true(CPU_EQUAL(il_workers_cpus(w), &allowed));
	j = il_workers_stats_json(w, 0);
	for (int i = 0; i < CPU_COUNT(&allowed); i++) {
		int cpu =
		    (int)num(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), i), "cpu");

		assert_true(CPU_ISSET(cpu, &allowed));
		for (int k = 0; k < i; k++)
			assert_int_not_equal(
			    cpu,
			    (int)num(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "per_thread"), k),
				     "cpu"));
	}
	cJSON_Delete(j);
	il_workers_stop(w);

	/* Everyone on one CPU: the union is that CPU. */
	c = cfg(2, count_run);
	c.place = IL_WORKERS_ON_CPU;
	c.cpu = last_cpu(&allowed);
	w = start(&c);
	assert_int_equal(CPU_COUNT(il_workers_cpus(w)), 1);
	assert_true(CPU_ISSET(c.cpu, il_workers_cpus(w)));
	il_workers_stop(w);
}

/* A policy's own affinity for the role: the first allowed CPU. */
static int policy_affinity_init(void *ctx, enum il_role role, const char *name, char *err,
				size_t len)
{
	cpu_set_t *s = ctx, one;

	CPU_ZERO(&one);
	CPU_SET(first_cpu(s), &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return -errno;
	return name_only_init(ctx, role, name, err, len);
}

static void test_workers_affinity_after_init(void **state)
{
	struct il_workers_config c = cfg(2, count_run);
	struct il_workers *w = NULL;
	cpu_set_t allowed;

	allowed_cpus(&allowed);
	if (CPU_COUNT(&allowed) < 2) {
		print_message(
		    "skipped: needs two CPUs to tell the pin from the policy's affinity\n");
		skip();
	}
	/* Pinned to the last CPU, moved by "the policy" to the first: the
	 * union is what is in force after init. */
	c.place = IL_WORKERS_ON_CPU;
	c.cpu = last_cpu(&allowed);
	c.init = policy_affinity_init;
	c.init_ctx = &allowed;
	w = start(&c);
	assert_int_equal(CPU_COUNT(il_workers_cpus(w)), 1);
	assert_true(CPU_ISSET(first_cpu(&allowed), il_workers_cpus(w)));
	il_workers_stop(w);
}

static int class_at_init[4];

/* Records the class the member was created with, then goes FIFO 1. */
static int fifo_init(void *ctx, enum il_role role, const char *name, char *err, size_t len)
{
	struct sched_param sp = {.sched_priority = 1};
	int i = name[strlen(name) - 1] - '0';

	class_at_init[i] = sched_getscheduler(0);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		snprintf(err, len, "%s: SCHED_FIFO: %s", name, strerror(errno));
		return -errno;
	}
	return name_only_init(ctx, role, name, err, len);
}

static void test_workers_rt_member_does_not_hold_start(void **state)
{
	struct sched_param fifo = {.sched_priority = 1}, other = {.sched_priority = 0};
	struct il_workers_config c = cfg(3, busy_run);
	struct il_workers *w = NULL;
	struct rlimit old, lim;
	char err[256] = "";
	cpu_set_t allowed;
	struct il_test_others_mark mark;
	uint64_t t0, took;
	double others;
	int ret;

	/* Nothing here spins at RT (the members stay behind the gate), but a
	 * bug that let them through is killed by the kernel after 1 s. */
	assert_int_equal(getrlimit(RLIMIT_RTTIME, &old), 0);
	lim = old;
	lim.rlim_cur =
	    lim.rlim_max < 1000000 ? lim.rlim_max : 1000000; /* RLIM_INFINITY is the largest */
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &lim), 0);
	/* The starter is FIFO, as a child's control thread is under rt. */
	ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
	if (ret == EPERM) {
		setrlimit(RLIMIT_RTTIME, &old);
		print_message("skipped: SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO\n");
		skip();
	}
	assert_int_equal(ret, 0);
	allowed_cpus(&allowed);
	c.place = IL_WORKERS_ON_CPU;
	c.cpu = last_cpu(&allowed);
	c.init = fifo_init;
	c.hold = true;
	atomic_store(&ran, 0);
	il_test_others_mark(&mark);
	t0 = il_now_ns();
	ret = il_workers_start(&c, &w, err, sizeof(err));
	took = il_now_ns() - t0;
	others = il_test_others_since(&mark);
	assert_int_equal(pthread_setschedparam(pthread_self(), SCHED_OTHER, &other), 0);
	assert_int_equal(ret, 0);
	/* Three FIFO members on one CPU were all set up, created as
	 * SCHED_OTHER though their creator was FIFO. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(class_at_init[i], SCHED_OTHER);
		assert_int_equal(sched_getscheduler(il_workers_tid(w, (unsigned)i)), SCHED_FIFO);
	}
	il_workers_stop(w);
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &old), 0);
	print_message("start of 3 FIFO members on CPU %d took %.2f ms\n", c.cpu, il_ns_to_ms(took));
	il_test_assert_prompt("the start of 3 FIFO members", took, il_ms_to_ns(500), others);
	assert_int_equal(atomic_load(&ran), 0);
}

static void test_workers_bad_config(void **state)
{
	struct il_workers_config c = cfg(0, busy_run);
	struct il_workers *w = NULL;
	char err[256] = "";

	assert_int_equal(il_workers_start(&c, &w, err, sizeof(err)), -EINVAL);
	c = cfg(IL_WORKERS_MAX_THREADS + 1, busy_run);
	assert_int_equal(il_workers_start(&c, &w, err, sizeof(err)), -EINVAL);
	c = cfg(1, NULL);
	assert_int_equal(il_workers_start(&c, &w, err, sizeof(err)), -EINVAL);
	c = cfg(1, busy_run);
	c.place = IL_WORKERS_ON_CPU;
	c.cpu = -1;
	assert_int_equal(il_workers_start(&c, &w, err, sizeof(err)), -EINVAL);
	assert_null(w);
	assert_string_equal(err, "bad worker group configuration (threads 1..1024)");
}

static void test_workers_rand_between(void **state)
{
	uint64_t s = 0x2545f4914f6cdd1dull, lo = 500000, hi = 2000000, min = hi, max = lo;

	for (int i = 0; i < 100000; i++) {
		uint64_t v = il_workers_rand_between(&s, lo, hi);

		assert_true(v >= lo && v <= hi);
		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	/* Covers the range, not a corner of it. */
	assert_true(min < lo + (hi - lo) / 100 && max > hi - (hi - lo) / 100);
	assert_int_not_equal(il_workers_chunk(1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_workers_gate_holds_until_open),
	    cmocka_unit_test(test_workers_init_failure_fails_start),
	    cmocka_unit_test(test_workers_stop_is_prompt),
	    cmocka_unit_test(test_workers_halt_ends_members_and_stats),
	    cmocka_unit_test(test_workers_halt_word_ends_members),
	    cmocka_unit_test(test_workers_halt_word_before_mark),
	    cmocka_unit_test(test_workers_cpu_resets_at_mark),
	    cmocka_unit_test(test_workers_stats_json),
	    cmocka_unit_test(test_workers_affinity_union),
	    cmocka_unit_test(test_workers_affinity_after_init),
	    cmocka_unit_test(test_workers_rt_member_does_not_hold_start),
	    cmocka_unit_test(test_workers_bad_config),
	    cmocka_unit_test(test_workers_rand_between),
	};
	if (il_test_filters("test_workers", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
