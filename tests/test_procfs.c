/*
 * common/il_procfs: the one reader of /proc/PID/stat and schedstat. The
 * kernel's own text for a thread whose name holds ") (" and spaces, a
 * signed field, a task that is gone, status lines by whole key, and text
 * no kernel writes (a path is read as given, so hostile files must be
 * refused, never misread).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_test.h"
#include "il_test_proc.h"

struct named {
	pthread_t th;
	int tid;
	int go[2]; /* the thread waits on go[0] until the test is done */
};

static void *named_main(void *arg)
{
	struct named *n = arg;
	char c;

	/* Parentheses and spaces the reader must not take for the end of
	 * the name (15 bytes is the most a name holds). */
	pthread_setname_np(pthread_self(), "a) (b c) d");
	__atomic_store_n(&n->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (read(n->go[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/*
 * A live thread named to mislead: its name, state, nice (signed) and class.
 * What it shows is read while it lives and asserted once it is joined: it
 * uses n, on this stack, and a failed assertion leaves the test.
 */
static void test_procfs_stat_hostile_name(void **state)
{
	struct il_procfs_stat st, st2;
	struct named n = {.tid = 0};
	int rc = -1, prio = -1, rc2 = -1;

	(void)state;
	assert_int_equal(pipe(n.go), 0);
	assert_int_equal(pthread_create(&n.th, NULL, named_main, &n), 0);
	for (int i = 0; i < 1000; i++) {
		if (__atomic_load_n(&n.tid, __ATOMIC_ACQUIRE) &&
		    (rc = il_procfs_stat(0, n.tid, IL_PROCFS_POLICY, &st)) == 0 &&
		    strcmp(st.comm, "a) (b c) d") == 0)
			break;
		usleep(2000);
	}
	if (rc == 0) {
		/* Root may lower a nice value: a negative field reads back signed. */
		prio = setpriority(PRIO_PROCESS, (id_t)n.tid, -3);
		rc2 = il_procfs_stat(0, n.tid, IL_PROCFS_POLICY, &st2);
	}
	/* Closing the write end ends its read, whatever the checks found. */
	close(n.go[1]);
	assert_int_equal(pthread_join(n.th, NULL), 0);
	close(n.go[0]);
	assert_int_equal(rc, 0);
	assert_string_equal(st.comm, "a) (b c) d");
	assert_int_equal(prio, 0);
	assert_int_equal(rc2, 0);
	assert_int_equal((long long)st2.f[IL_PROCFS_NICE], -3);
	assert_int_equal(st2.f[IL_PROCFS_POLICY], SCHED_OTHER);
	assert_int_equal(st2.f[IL_PROCFS_PPID], getppid());
	assert_true(st2.f[IL_PROCFS_STARTTIME] > 0);
	assert_true(st2.last >= IL_PROCFS_POLICY);
	assert_true(st2.state == 'S' || st2.state == 'R');
	/*
	 * The thread is gone now, or about to be: pthread_join returns once
	 * the kernel cleared its TID word, in its exit, a moment before the
	 * task leaves /proc (CI once read it still there). Up to 1 s.
	 */
	for (int i = 0; i < 500; i++) {
		rc = il_procfs_stat(0, n.tid, 0, &st);
		if (rc == -ENOENT || rc == -ESRCH)
			break;
		usleep(2000);
	}
	assert_true(rc == -ENOENT || rc == -ESRCH);
}

/* A reaped child: gone, for stat and schedstat alike. */
static void test_procfs_gone(void **state)
{
	struct il_procfs_stat st;
	uint64_t cpu;
	pid_t child = fork();
	int r;

	(void)state;
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	r = il_procfs_stat(child, 0, 0, &st);
	assert_true(r == -ENOENT || r == -ESRCH);
	r = il_procfs_schedstat(child, 0, &cpu, NULL, NULL);
	assert_true(r == -ENOENT || r == -ESRCH);
}

static int read_text(const char *text, int need, struct il_procfs_stat *st)
{
	const char *path = il_test_suite_file("stat");
	FILE *f;
	int r;

	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	r = il_procfs_stat_path(path, need, st);
	unlink(path);
	return r;
}

/* Text no kernel writes is refused whole; a valid line reads in full. */
static void test_procfs_stat_hostile_text(void **state)
{
	static const char *const bad[] = {
	    "",
	    "12 (name R 1 2 3\n",		      /* no ')' */
	    "12 name) R 1 2 3\n",		      /* no '(' */
	    "12 (name)R 1 2 3\n",		      /* no space after the name */
	    "12 (a) R 1 x 3\n",			      /* a field that is not a number */
	    "12 (a) R 1 2junk 3\n",		      /* nor is this */
	    "12 (a) R 1 99999999999999999999999 3\n", /* out of range */
	    "12 (a) R 1\n",			      /* short of need (5) */
	    "12 (a)\n",				      /* no state */
	};
	struct il_procfs_stat st;
	char big[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (read_text(bad[i], IL_PROCFS_PGRP, &st) != -EINVAL)
			fail_msg("accepted \"%s\" (want -EINVAL)", bad[i]);
	/* Longer than any stat line: refused, not read in part. */
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "12 (a) R ", 9);
	for (size_t i = 9; i + 2 < sizeof(big); i += 2)
		big[i + 1] = ' ';
	assert_int_equal(read_text(big, 0, &st), -EFBIG);
	/* A name longer than a task's is cut to the reader's buffer. */
	assert_int_equal(
	    read_text("12 (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		      "aaaaaaaaaaaaaaaaaaaaa) Z 7 8 -1 18446744073709551615\n",
		      IL_PROCFS_PGRP, &st),
	    0);
	assert_int_equal(strlen(st.comm), sizeof(st.comm) - 1);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.f[IL_PROCFS_PPID], 7);
	assert_int_equal(st.f[IL_PROCFS_PGRP], 8);
	assert_int_equal((long long)st.f[6], -1);
	assert_true(st.f[7] == 18446744073709551615ull);
	assert_int_equal(st.last, 7);
	/* A directory or a missing file: the error, not a parse. */
	assert_int_equal(il_procfs_stat_path(il_test_suite.tmpdir, 0, &st), -EISDIR);
	assert_int_equal(il_procfs_stat_path("/nonexistent/stat", 0, &st), -ENOENT);
}

/* Our own schedstat counts the CPU we burn; ticks convert to ns. */
static void test_procfs_schedstat_self(void **state)
{
	uint64_t cpu0, cpu1, wait, slices, t0;
	volatile unsigned long spin = 0;

	(void)state;
	assert_int_equal(il_procfs_schedstat(0, 0, &cpu0, &wait, &slices), 0);
	assert_true(slices >= 1);
	t0 = cpu0;
	/* Until 5 ms more of CPU is counted (bounded: 10 s). */
	for (double end = il_test_now_s() + 10; cpu0 < t0 + 5000000 && il_test_now_s() < end;) {
		for (int i = 0; i < 100000; i++)
			spin++;
		assert_int_equal(
		    il_procfs_schedstat(0, (pid_t)syscall(SYS_gettid), &cpu1, NULL, NULL), 0);
		assert_int_equal(il_procfs_schedstat(0, 0, &cpu0, NULL, NULL), 0);
	}
	assert_true(cpu0 >= t0 + 5000000);
	assert_true(cpu1 > 0);
	assert_int_equal(il_procfs_ticks_ns((unsigned long long)sysconf(_SC_CLK_TCK)),
			 1000000000ull);
}

/* The keyed lines of a status text: whole keys, both bases, no guessing. */
static void test_procfs_status_field(void **state)
{
	static const char text[] = "Name:\tx\n"
				   "VmHWMx:\t99 kB\n"
				   "VmHWM:\t  1234 kB\n"
				   "SigPnd:\t0000000000000100\n"
				   "CapEff:\tzz\n"
				   "Neg:\t-1\n"
				   "Empty:\n"
				   "nonvoluntary_ctxt_switches:\t5\n"
				   "voluntary_ctxt_switches:\t7";
	uint64_t v, before, after;
	char self[IL_PROCFS_STATUS_MAX];

	(void)state;
	assert_int_equal(il_procfs_status_field(text, "VmHWM", 10, &v), 0);
	assert_int_equal(v, 1234);
	assert_int_equal(il_procfs_status_field(text, "SigPnd", 16, &v), 0);
	assert_int_equal(v, 0x100);
	assert_int_equal(il_procfs_status_field(text, "voluntary_ctxt_switches", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(il_procfs_status_field(text, "nonvoluntary_ctxt_switches", 10, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(il_procfs_status_field(text, "Vm", 10, &v), -ENODATA);
	assert_int_equal(il_procfs_status_field(text, "Missing", 10, &v), -ENODATA);
	assert_int_equal(il_procfs_status_field(text, "CapEff", 16, &v), -EINVAL);
	assert_int_equal(il_procfs_status_field(text, "Neg", 10, &v), -EINVAL);
	assert_int_equal(il_procfs_status_field(text, "Empty", 10, &v), -EINVAL);
	assert_int_equal(il_procfs_status_field("", "Name", 10, &v), -ENODATA);
	/* The kernel's own: our sleeps are counted as voluntary switches. */
	assert_int_equal(il_procfs_status(0, (pid_t)syscall(SYS_gettid), self, sizeof(self)), 0);
	assert_int_equal(il_procfs_status_field(self, "voluntary_ctxt_switches", 10, &before), 0);
	for (int i = 0; i < 3; i++)
		usleep(1000);
	assert_int_equal(il_procfs_status(0, (pid_t)syscall(SYS_gettid), self, sizeof(self)), 0);
	assert_int_equal(il_procfs_status_field(self, "voluntary_ctxt_switches", 10, &after), 0);
	assert_true(after >= before + 3);
	assert_int_equal(il_procfs_status_field(self, "Pid", 10, &v), 0);
	assert_int_equal(v, (uint64_t)getpid());
	/* Too small a buffer: refused, not cut. */
	assert_int_equal(il_procfs_status(0, 0, self, 16), -EFBIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_procfs_stat_hostile_name),
	    cmocka_unit_test(test_procfs_gone),
	    cmocka_unit_test(test_procfs_stat_hostile_text),
	    cmocka_unit_test(test_procfs_schedstat_self),
	    cmocka_unit_test(test_procfs_status_field),
	};

	if (il_test_filters("test_procfs", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_suite_setup, il_test_suite_teardown);
}
