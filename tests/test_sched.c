/* Per-thread scheduling: each class applied on a throwaway thread and read
 * back from the kernel, both by the thread itself and by tid from outside.
 * Every RT thread here runs under RLIMIT_RTTIME and does no spinning,
 * except the one RLIMIT_RTTIME test, which spins in a child process that a
 * parent-side wall-clock kill bounds as well. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_sched.h"
#include "il_sysinfo.h"
#include "il_test.h"

struct job {
	struct il_role_attrs a;
	int r;
	char err[256];
	struct il_sched_state self; /* read by the thread itself */
	unsigned dropped;	    /* optional settings the kernel could not take */
	pid_t tid;
	sem_t applied, release;
};

static void *job_main(void *arg)
{
	struct job *j = arg;
	j->tid = gettid();
	j->r = il_sched_apply_self(&j->a, &j->dropped, j->err, sizeof(j->err));
	il_sched_read(0, &j->self);
	sem_post(&j->applied);
	sem_wait(&j->release);
	return NULL;
}

/*
 * Runs the job on a new thread; outside is read by tid while it lives.
 * The read is asserted once the thread is joined: it waits on j, which
 * is on the caller's stack, and a failed assertion leaves the caller.
 */
static void run_job(struct job *j, struct il_sched_state *outside)
{
	pthread_t t;
	int r = 0;
	sem_init(&j->applied, 0, 0);
	sem_init(&j->release, 0, 0);
	assert_int_equal(pthread_create(&t, NULL, job_main, j), 0);
	sem_wait(&j->applied);
	if (outside)
		r = il_sched_read(j->tid, outside);
	sem_post(&j->release);
	pthread_join(t, NULL);
	sem_destroy(&j->applied);
	sem_destroy(&j->release);
	if (r)
		fail_msg("il_sched_read of the job thread %d: %s", (int)j->tid, strerror(-r));
}

static void apply_and_check(const struct il_role_attrs *a)
{
	struct job j = {.a = *a};
	struct il_sched_state outside;
	run_job(&j, &outside);
	if (j.r)
		fail_msg("apply %s: %s", il_sched_class_name(a->sched_class), j.err);
	assert_true(il_sched_matches(a, &j.self));
	assert_true(il_sched_matches(a, &outside));
	assert_int_equal(outside.sched_class, a->sched_class);
}

static int setup(void **state)
{
	/* The process limit every RT thread of this test runs under. */
	return il_rttime_limit_set(500000, 1000000);
}

static void test_sched_other_nice(void **state)
{
	struct il_role_attrs a = {.sched_class = SCHED_OTHER, .nice = 5};
	apply_and_check(&a);
	a.sched_class = SCHED_BATCH;
	a.nice = 3;
	apply_and_check(&a);
	a = (struct il_role_attrs){.sched_class = SCHED_IDLE};
	apply_and_check(&a);
}

static void test_sched_negative_nice(void **state)
{
	IL_TEST_NEED_ROOT("negative nice (CAP_SYS_NICE)");
	struct il_role_attrs a = {.sched_class = SCHED_OTHER, .nice = -8};
	apply_and_check(&a);
}

static void test_sched_fifo_rr(void **state)
{
	IL_TEST_NEED_ROOT("SCHED_FIFO/RR (CAP_SYS_NICE)");
	struct il_role_attrs a = {.sched_class = SCHED_FIFO, .priority = 10};
	apply_and_check(&a);
	a = (struct il_role_attrs){.sched_class = SCHED_RR, .priority = 20};
	apply_and_check(&a);
}

static void test_sched_deadline(void **state)
{
	IL_TEST_NEED_ROOT("SCHED_DEADLINE");
	struct il_role_attrs a = {.sched_class = SCHED_DEADLINE,
				  .dl_runtime_ns = 100000,
				  .dl_deadline_ns = 5000000,
				  .dl_period_ns = 10000000};
	struct job j = {.a = a};
	struct il_sched_state outside;
	run_job(&j, &outside);
	if (j.r == -EBUSY)
		IL_TEST_SKIP("%s", j.err);
	if (j.r)
		fail_msg("apply deadline: %s", j.err);
	assert_true(il_sched_matches(&a, &outside));
	assert_int_equal(outside.dl_runtime_ns, 100000);
	assert_int_equal(outside.dl_deadline_ns, 5000000);
	assert_int_equal(outside.dl_period_ns, 10000000);
}

static void test_sched_slice(void **state)
{
	struct il_role_attrs a = {.sched_class = SCHED_OTHER, .slice_ns = 300000};
	struct job j = {.a = a};
	struct il_sched_state outside;
	run_job(&j, &outside);
	if (j.r == -EINVAL && strstr(j.err, "EEVDF custom slice not supported"))
		IL_TEST_SKIP("%s", j.err);
	if (j.r)
		fail_msg("apply slice: %s", j.err);
	assert_int_equal(outside.slice_ns, 300000);
}

static void test_sched_cpus(void **state)
{
	struct il_role_attrs a = {.sched_class = SCHED_OTHER, .has_cpus = true};
	CPU_SET(0, &a.cpus);
	struct job j = {.a = a};
	struct il_sched_state outside;
	run_job(&j, &outside);
	assert_int_equal(j.r, 0);
	assert_string_equal(outside.cpus, "0");
	assert_true(il_sched_matches(&a, &outside));
}

static void test_sched_refusals(void **state)
{
	struct il_role_attrs a = {.sched_class = SCHED_DEADLINE,
				  .dl_runtime_ns = 100000,
				  .dl_deadline_ns = 1000000,
				  .dl_period_ns = 1000000,
				  .has_cpus = true};
	CPU_SET(0, &a.cpus);
	struct job j = {.a = a};
	run_job(&j, NULL);
	assert_int_equal(j.r, -EINVAL);
	assert_string_equal(j.err, "deadline threads cannot set cpus: SCHED_DEADLINE needs "
				   "the affinity of its whole root domain");
	assert_int_equal(j.self.sched_class, SCHED_OTHER);
}

/* Without RLIMIT_RTTIME no thread may go RT. Runs before the group setup
 * lowers the limit, because a lowered hard limit cannot be raised again
 * without CAP_SYS_RESOURCE; tried in a child all the same. */
static void test_sched_refuses_rt_without_rttime(void **state)
{
	struct rlimit rl;
	getrlimit(RLIMIT_RTTIME, &rl);
	if (rl.rlim_max != RLIM_INFINITY)
		IL_TEST_SKIP("RLIMIT_RTTIME is already finite in this process");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct il_role_attrs f = {.sched_class = SCHED_FIFO, .priority = 1};
		char err[256] = "";
		int r = il_sched_apply_self(&f, NULL, err, sizeof(err));
		_exit(r == -EINVAL && strstr(err, "refusing fifo without RLIMIT_RTTIME") ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Where the kernel has uclamp: clamps applied and read back exactly, on a
 * fair and an RR thread, required or optional alike. */
static void test_sched_uclamp_applied(void **state)
{
	char why[160];
	if (il_sysinfo_uclamp(why, sizeof(why)) != 1)
		IL_TEST_SKIP("the applied uclamp path needs a kernel with uclamp: %s", why);
	struct il_role_attrs a = {.sched_class = SCHED_OTHER,
				  .has_uclamp_min = true,
				  .uclamp_min_pct = 20,
				  .has_uclamp_max = true,
				  .uclamp_max_pct = 80};
	struct job j = {.a = a};
	struct il_sched_state outside;
	run_job(&j, &outside);
	if (j.r)
		fail_msg("apply uclamp: %s", j.err);
	assert_int_equal(j.dropped, 0);
	assert_true(outside.has_uclamp);
	assert_int_equal(outside.util_min, 205);
	assert_int_equal(outside.util_max, 819);
	assert_true(il_sched_matches(&a, &outside));
	IL_TEST_NEED_ROOT("the RR half (SCHED_RR)");
	a = (struct il_role_attrs){.sched_class = SCHED_RR,
				   .priority = 6,
				   .has_uclamp_min = true,
				   .uclamp_min_pct = 20,
				   .optional = IL_OPT_UCLAMP_MIN};
	j = (struct job){.a = a};
	run_job(&j, &outside);
	if (j.r)
		fail_msg("apply RR 6 + uclamp: %s", j.err);
	assert_int_equal(j.dropped, 0);
	assert_int_equal(outside.sched_class, SCHED_RR);
	assert_int_equal(outside.priority, 6);
	assert_int_equal(outside.util_min, 205);
}

/* Where the kernel has no uclamp (this machine: CONFIG_UCLAMP_TASK is not
 * set): an optional clamp is left out and reported, the rest applies, the
 * read-back shows no clamp; a required one refuses the whole thing. */
static void test_sched_uclamp_unsupported(void **state)
{
	char why[160];
	if (il_sysinfo_uclamp(why, sizeof(why)) != 0)
		IL_TEST_SKIP("this kernel has uclamp (%s); the unsupported path needs one without",
			     why);
	assert_string_equal(why, "kernel built without CONFIG_UCLAMP_TASK");

	struct il_role_attrs a = {.sched_class = SCHED_OTHER,
				  .nice = 5,
				  .has_uclamp_min = true,
				  .uclamp_min_pct = 20,
				  .has_uclamp_max = true,
				  .uclamp_max_pct = 100,
				  .optional = IL_OPT_UCLAMP_MIN | IL_OPT_UCLAMP_MAX};
	struct job j = {.a = a};
	struct il_sched_state outside;
	run_job(&j, &outside);
	if (j.r)
		fail_msg("apply with optional uclamp: %s", j.err);
	assert_int_equal(j.dropped, IL_OPT_UCLAMP_MIN | IL_OPT_UCLAMP_MAX);
	assert_int_equal(outside.nice, 5);
	assert_false(outside.has_uclamp);
	assert_true(il_sched_matches(&a, &outside));
	cJSON *o = il_sched_state_json(&outside);
	assert_non_null(o);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "util_min")),
			    "unsupported: kernel built without CONFIG_UCLAMP_TASK");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "util_max")),
			    "unsupported: kernel built without CONFIG_UCLAMP_TASK");
	cJSON_Delete(o);

	/* The same state does not satisfy a required clamp... */
	a.optional = IL_OPT_UCLAMP_MAX;
	assert_false(il_sched_matches(&a, &outside));
	/* ...and a required clamp is refused before anything changes. */
	j = (struct job){.a = a};
	run_job(&j, &outside);
	assert_int_equal(j.r, -EOPNOTSUPP);
	assert_string_equal(j.err, "uclamp_min 20%: kernel built without CONFIG_UCLAMP_TASK "
				   "(mark it 'optional' in the policy to run without it)");
	assert_int_equal(outside.nice, 0);
	a.optional = 0;
	j = (struct job){.a = a};
	run_job(&j, NULL);
	assert_string_equal(j.err, "uclamp_min 20% and uclamp_max 100%: kernel built without "
				   "CONFIG_UCLAMP_TASK (mark it 'optional' in the policy to run "
				   "without it)");
}

static void test_sched_read_gone(void **state)
{
	struct job j = {.a = {.sched_class = SCHED_OTHER}};
	run_job(&j, NULL);
	struct il_sched_state s = {.nice = 42};
	char task[64];

	/*
	 * pthread_join returns at the thread's CLONE_CHILD_CLEARTID wake-up,
	 * which the kernel sends before it releases the task: for a moment
	 * the tid still answered sched_getattr (a failure under load). Gone
	 * is when /proc no longer lists it (bounded; tids are not reused
	 * this fast).
	 */
	snprintf(task, sizeof(task), "/proc/self/task/%d", (int)j.tid);
	for (int i = 0; i < 5000 && access(task, F_OK) == 0; i++)
		usleep(1000);
	assert_int_equal(il_sched_read(j.tid, &s), -ESRCH);
	assert_int_equal(s.nice, 42);
}

/*
 * What a harness thread asked for and got names it as the kernel does:
 * hygiene.harness_threads said "inputlat:loop", "inputlat:watchdog" and
 * "browser-sim:control", role labels no trace or ps -L shows (there they
 * are inputlat, il:watchdog and browser-sim), with no tid to match them by.
 */
static void *ask_in_thread(void *arg)
{
	struct il_sched_ask *a = arg;

	pthread_setname_np(pthread_self(), "il:asktest");
	il_sched_ask_record(a, SCHED_OTHER, 0, 0, 0);
	a[1].tid = gettid();
	return NULL;
}

static void test_sched_ask_names_thread_as_kernel(void **state)
{
	struct il_sched_ask a[2];
	pthread_t t;
	cJSON *o;

	(void)state;
	memset(a, 0, sizeof(a));
	assert_int_equal(pthread_create(&t, NULL, ask_in_thread, a), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	o = il_sched_ask_json(&a[0], "test:ask");
	assert_non_null(o);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "comm")), "il:asktest");
	assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "tid")), a[1].tid);
	cJSON_Delete(o);
	/* Read from another thread by its tid: that thread's name. */
	memset(a, 0, sizeof(a));
	il_sched_ask_record(&a[0], SCHED_OTHER, 0, 0, getpid());
	o = il_sched_ask_json(&a[0], "test:main");
	{
		char want[16] = "";

		assert_int_equal(pthread_getname_np(pthread_self(), want, sizeof(want)), 0);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "comm")), want);
	}
	assert_int_equal((int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "tid")), getpid());
	cJSON_Delete(o);
}

static void test_sched_format_and_json(void **state)
{
	cpu_set_t set;
	char buf[64];
	CPU_ZERO(&set);
	il_cpuset_format(&set, buf, sizeof(buf));
	assert_string_equal(buf, "");
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	CPU_SET(4, &set);
	CPU_SET(6, &set);
	CPU_SET(7, &set);
	il_cpuset_format(&set, buf, sizeof(buf));
	assert_string_equal(buf, "0-1,4,6-7");
	/* Short of room: whole entries and ",...", never a list that reads
	 * as the whole set. */
	il_cpuset_format(&set, buf, 9);
	assert_string_equal(buf, "0-1,...");
	il_cpuset_format(&set, buf, 4);
	assert_string_equal(buf, "...");
	/* Every other CPU of CPU_SETSIZE: the longest list there is, whole,
	 * and parsed back to the same set. */
	{
		static char big[IL_CPULIST_MAX];
		cpu_set_t odd, back;

		CPU_ZERO(&odd);
		for (int c = 0; c < CPU_SETSIZE; c += 2)
			CPU_SET(c, &odd);
		il_cpuset_format(&odd, big, sizeof(big));
		assert_int_equal(strncmp(big, "0,2,4,", 6), 0);
		assert_non_null(strstr(big, ",1020,1022"));
		assert_int_equal(il_cpuset_parse(big, &back), 0);
		assert_true(CPU_EQUAL(&odd, &back));
	}

	struct il_sched_state s = {.sched_class = SCHED_FIFO,
				   .priority = 60,
				   .cpus = "0-1",
				   .has_uclamp = true,
				   .util_min = 205,
				   .util_max = 1024};
	cJSON *o = il_sched_state_json(&s);
	assert_non_null(o);
	char *text = cJSON_PrintUnformatted(o);
	assert_string_equal(text, "{\"policy\":\"fifo\",\"priority\":60,\"nice\":0,"
				  "\"slice_ns\":0,\"dl_runtime_ns\":0,\"dl_deadline_ns\":0,"
				  "\"dl_period_ns\":0,\"cpus\":\"0-1\",\"util_min\":205,"
				  "\"util_max\":1024}");
	cJSON_free(text);
	cJSON_Delete(o);
	/* Without uclamp the clamps are not zeros but a reason. */
	char why[160], reason[200];
	if (il_sysinfo_uclamp(why, sizeof(why)) != 1) {
		s.has_uclamp = false;
		o = il_sched_state_json(&s);
		snprintf(reason, sizeof(reason), "%s: %s",
			 il_sysinfo_uclamp(NULL, 0) == 0 ? "unsupported" : "unreadable", why);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "util_min")),
				    reason);
		cJSON_Delete(o);
	}

	struct il_role_attrs want = {.sched_class = SCHED_FIFO, .priority = 61};
	assert_false(il_sched_matches(&want, &s));
	want.priority = 60;
	assert_true(il_sched_matches(&want, &s));
	want.has_cpus = true;
	CPU_ZERO(&s.set);
	CPU_SET(0, &s.set);
	CPU_SET(1, &s.set);
	CPU_ZERO(&want.cpus);
	CPU_SET(0, &want.cpus);
	assert_false(il_sched_matches(&want, &s));
	CPU_SET(1, &want.cpus);
	assert_true(il_sched_matches(&want, &s));
	/* Sets that differ past what a list of 64 characters shows. */
	for (int c = 0; c < 200; c += 2) {
		CPU_SET(c, &want.cpus);
		CPU_SET(c, &s.set);
	}
	CPU_SET(201, &s.set);
	assert_false(il_sched_matches(&want, &s));
}

/* A FIFO spinner must be killed by RLIMIT_RTTIME (SIGXCPU at the soft
 * limit, SIGKILL at the hard one). */
static void test_sched_rttime_kills_spinner(void **state)
{
	IL_TEST_NEED_ROOT("SCHED_FIFO (CAP_SYS_NICE)");
	uint64_t t0 = il_now_ns();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		struct il_role_attrs a = {.sched_class = SCHED_FIFO, .priority = 1};
		char err[256];
		setrlimit(RLIMIT_CORE, &no_core);
		if (il_rttime_limit_set(200000, 400000) != 0 ||
		    il_sched_apply_self(&a, NULL, err, sizeof(err)) != 0)
			_exit(3);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	int status = 0;
	pid_t w = 0;
	uint64_t cpu_ns = 0, wait_ns = 0;
	struct il_test_others_mark mark;
	il_test_others_mark(&mark);
	/* Parent-side safety: never leave the spinner behind. */
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && il_now_ns() - t0 < il_ms_to_ns(3000))
		usleep(10000);
	uint64_t elapsed = il_now_ns() - t0;
	double others = il_test_others_since(&mark);
	if (w == 0) {
		/* The limit counts the spinner's CPU time: one kept off the CPU
		 * (another run's RT threads) has not reached it yet. */
		int rc = il_procfs_schedstat(pid, 0, &cpu_ns, &wait_ns, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (rc == 0 && cpu_ns < 200000000)
			IL_TEST_SKIP(
			    "the FIFO spinner got %.0f ms of CPU in 3 s (waited %.0f ms for "
			    "it): too little to reach its 200 ms RLIMIT_RTTIME here",
			    (double)cpu_ns / 1e6, (double)wait_ns / 1e6);
		fail_msg("FIFO spinner still alive after 3 s and %.0f ms of CPU: RLIMIT_RTTIME did "
			 "not act",
			 (double)cpu_ns / 1e6);
	}
	assert_int_equal(w, pid);
	if (WIFEXITED(status))
		fail_msg("child could not go FIFO (exit %d)", WEXITSTATUS(status));
	assert_true(WIFSIGNALED(status));
	assert_true(WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL);
	il_test_assert_prompt("the end of the FIFO spinner", elapsed, il_ms_to_ns(2000), others);
}

/*
 * Every built-in policy applied at once to as many live threads per role
 * as a run has (io runs in three processes, compositor in two), so that
 * deadline admission is tried with the whole chain's bandwidth. The
 * threads only block, so no RT thread here uses CPU.
 */
static void test_sched_builtin_policies_apply(void **state)
{
	static const int per_role[IL_ROLE_COUNT] = {
	    [IL_ROLE_EVDEV] = 1, [IL_ROLE_UI] = 1,     [IL_ROLE_IO] = 3,  [IL_ROLE_COMPOSITOR] = 2,
	    [IL_ROLE_MAIN] = 1,	 [IL_ROLE_GPU] = 1,    [IL_ROLE_DRM] = 1, [IL_ROLE_JS] = 1,
	    [IL_ROLE_LOAD] = 1,	 [IL_ROLE_CANARY] = 1,
	};
	IL_TEST_NEED_ROOT("applying the built-in RT and deadline policies");
	const char *b = getenv("IL_BUILD_DIR");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/policies", b ? b : ".");
	char **names;
	size_t n;
	assert_int_equal(il_policy_list(dir, &names, &n), 0);
	assert_int_equal(n, 9);
	for (size_t i = 0; i < n; i++) {
		struct il_policy *p;
		char err[512];
		struct job jobs[32];
		pthread_t th[32];
		int nj = 0, over = 0, cerr = 0;
		assert_int_equal(il_policy_load(names[i], dir, &p, err, sizeof(err)), 0);
		/* Each role as many times as a run has its threads, then each
		 * thread section once (chromeos-rt's [viz:io], [render:comp]).
		 * A thread that cannot be had stops the starting, not the test:
		 * those started wait on jobs[], on this stack, until joined. */
		const struct il_role_attrs *a;
		for (size_t s = 0; !over && !cerr && (a = il_policy_attrs_at(p, s, NULL)); s++)
			for (int k = 0; k < (s < IL_ROLE_COUNT ? per_role[s] : 1); k++, nj++) {
				if (nj == 32) {
					over = 1;
					break;
				}
				memset(&jobs[nj], 0, sizeof(jobs[nj]));
				jobs[nj].a = *a;
				sem_init(&jobs[nj].applied, 0, 0);
				sem_init(&jobs[nj].release, 0, 0);
				cerr = pthread_create(&th[nj], NULL, job_main, &jobs[nj]);
				if (cerr) {
					sem_destroy(&jobs[nj].applied);
					sem_destroy(&jobs[nj].release);
					break;
				}
			}
		for (int j = 0; j < nj; j++)
			sem_wait(&jobs[j].applied);
		int bad = -1;
		for (int j = 0; j < nj && bad < 0; j++) {
			struct il_sched_state got;
			if (jobs[j].r || il_sched_read(jobs[j].tid, &got) != 0 ||
			    !il_sched_matches(&jobs[j].a, &got))
				bad = j;
		}
		for (int j = 0; j < nj; j++) {
			sem_post(&jobs[j].release);
			pthread_join(th[j], NULL);
			sem_destroy(&jobs[j].applied);
			sem_destroy(&jobs[j].release);
		}
		il_policy_free(p);
		if (over)
			fail_msg("policy %s: more than 32 threads", names[i]);
		if (cerr)
			fail_msg("policy %s: pthread_create of thread %d: %s", names[i], nj,
				 strerror(cerr));
		if (bad >= 0)
			fail_msg("policy %s, thread %d (%s): %s", names[i], bad,
				 il_sched_class_name(jobs[bad].a.sched_class),
				 jobs[bad].r ? jobs[bad].err : "read-back mismatch");
	}
	il_policy_list_free(names, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sched_other_nice),
	    cmocka_unit_test(test_sched_ask_names_thread_as_kernel),
	    cmocka_unit_test(test_sched_negative_nice),
	    cmocka_unit_test(test_sched_fifo_rr),
	    cmocka_unit_test(test_sched_deadline),
	    cmocka_unit_test(test_sched_slice),
	    cmocka_unit_test(test_sched_cpus),
	    cmocka_unit_test(test_sched_refusals),
	    cmocka_unit_test(test_sched_uclamp_applied),
	    cmocka_unit_test(test_sched_uclamp_unsupported),
	    cmocka_unit_test(test_sched_read_gone),
	    cmocka_unit_test(test_sched_format_and_json),
	    cmocka_unit_test(test_sched_builtin_policies_apply),
	    cmocka_unit_test(test_sched_rttime_kills_spinner),
	};
	const struct CMUnitTest before_limit[] = {
	    cmocka_unit_test(test_sched_refuses_rt_without_rttime),
	};
	int failed = cmocka_run_group_tests(before_limit, NULL, NULL);
	if (il_test_filters("test_sched", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return failed + cmocka_run_group_tests(tests, setup, NULL);
}
