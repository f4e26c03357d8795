/*
 * Why the kernel refuses a scheduling class, said from what it checks and
 * never guessed from the user id (il_sched_refusal): root without
 * CAP_SYS_NICE (a container), a thread whose affinity is narrower than
 * the deadline root domain (taskset), a cgroup-v1 cpu group without RT
 * runtime (RT_GROUP_SCHED), a read-only /proc/sys (a container). Each case is tried against the
 * kernel's own answer, first on one thread, then as `inputlat run` and `check` meet it: one line
 * naming the cause, exit 2, nothing left behind.
 *
 * Needs root (it takes privilege away). Every RT thread here runs under
 * RLIMIT_RTTIME and sleeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_sched.h"
#include "il_sched_refusal.h"
#include "il_sysinfo.h"
#include "il_test.h"
#include "il_test_proc.h"

static void need_root(void)
{
	if (geteuid() != 0 || !il_sysinfo_cap_effective(CAP_SYS_NICE))
		IL_TEST_SKIP("needs root with CAP_SYS_NICE (the cases take it away)");
}

/* Takes CAP_SYS_NICE out of this process's effective and permitted sets. */
static int drop_nice_cap(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d) != 0)
		return -1;
	d[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].permitted &= ~(1u << (CAP_SYS_NICE % 32));
	return syscall(SYS_capset, &hdr, d) == 0 ? 0 : -1;
}

/* Runs fn in a child process (the cases change the process for good) and
 * wants it to exit 0; it prints what failed. */
static void in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The predicate and the kernel must agree both ways: refused with the
 * message, or allowed and applied. */
static int agree(const struct il_role_attrs *a, bool want_allowed, const char *want_msg)
{
	char why[512] = "", err[512] = "";
	bool predicted = il_sched_refusal_privileged(a, why, sizeof(why));
	int r = il_sched_apply_self(a, NULL, err, sizeof(err));
	struct il_role_attrs other = {.sched_class = SCHED_OTHER};
	char e2[64];

	il_sched_apply_self(&other, NULL, e2, sizeof(e2));
	if (predicted != want_allowed || (r == 0) != want_allowed) {
		fprintf(stderr, "%s: predicted %s, kernel %s (%s; %s)\n",
			il_sched_class_name(a->sched_class), predicted ? "allowed" : "refused",
			r == 0 ? "allowed" : "refused", why, err);
		return 1;
	}
	if (!want_allowed && (r != -EPERM || strcmp(err, want_msg) != 0 || strcmp(why, err))) {
		fprintf(stderr, "refused with %d \"%s\" (predicted \"%s\"), want \"%s\"\n", r, err,
			why, want_msg);
		return 1;
	}
	return 0;
}

static const struct il_role_attrs fifo5 = {.sched_class = SCHED_FIFO, .priority = 5};
static const struct il_role_attrs dl_small = {.sched_class = SCHED_DEADLINE,
					      .dl_runtime_ns = 100000,
					      .dl_deadline_ns = 10000000,
					      .dl_period_ns = 10000000};
static const struct il_role_attrs nice_m5 = {.sched_class = SCHED_OTHER, .nice = -5};

#define DL_REFUSED                                                                                 \
	"deadline needs CAP_SYS_NICE (no limit grants it; euid 0, but CAP_SYS_NICE is not "        \
	"effective)"

/* Lowers a soft limit to 0, which needs no privilege. */
static int soft_zero(int resource)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) != 0)
		return -1;
	rl.rlim_cur = 0;
	return setrlimit(resource, &rl);
}

/* The soft limits go to 0, the capability goes. */
static int no_cap_case(void *arg)
{
	int bad = 0;

	(void)arg;
	if (il_rttime_limit_set(500000, 1000000) != 0 || soft_zero(RLIMIT_RTPRIO) != 0 ||
	    soft_zero(RLIMIT_NICE) != 0 || drop_nice_cap() != 0) {
		fprintf(stderr, "setting up the child: %s\n", strerror(errno));
		return 2;
	}
	bad +=
	    agree(&fifo5, false,
		  "fifo priority 5 needs CAP_SYS_NICE or RLIMIT_RTPRIO >= 5 (RLIMIT_RTPRIO is 0; "
		  "euid 0, but CAP_SYS_NICE is not effective)");
	bad += agree(&dl_small, false, DL_REFUSED);
	bad += agree(&nice_m5, false,
		     "other nice -5 needs CAP_SYS_NICE or RLIMIT_NICE >= 25 (RLIMIT_NICE is 0; "
		     "euid 0, but CAP_SYS_NICE is not effective)");
	return bad ? 1 : 0;
}

/* Root without CAP_SYS_NICE: refused for the capability, not the user id. */
static void test_refusal_without_cap(void **state)
{
	(void)state;
	need_root();
	in_child(no_cap_case, NULL);
}

/* Where the limits allow it, the kernel lets fifo and a negative nice in
 * without the capability, and the predicate agrees; deadline stays out. */
static int rlimit_case(void *arg)
{
	struct rlimit rt5 = {5, 5}, nice25 = {25, 25};
	int bad = 0;

	(void)arg;
	if (il_rttime_limit_set(500000, 1000000) != 0 || setrlimit(RLIMIT_RTPRIO, &rt5) != 0 ||
	    setrlimit(RLIMIT_NICE, &nice25) != 0 || drop_nice_cap() != 0) {
		fprintf(stderr, "setting up the child: %s\n", strerror(errno));
		return 2;
	}
	bad += agree(&fifo5, true, NULL);
	bad += agree(&nice_m5, true, NULL);
	bad += agree(&dl_small, false, DL_REFUSED);
	return bad ? 1 : 0;
}

static void test_refusal_rlimits_grant(void **state)
{
	struct rlimit rt, nice;

	(void)state;
	need_root();
	if (getrlimit(RLIMIT_RTPRIO, &rt) != 0 || getrlimit(RLIMIT_NICE, &nice) != 0)
		fail_msg("getrlimit: %s", strerror(errno));
	/* Raising a hard limit needs CAP_SYS_RESOURCE. */
	if ((rt.rlim_max < 5 || nice.rlim_max < 25) && !il_sysinfo_cap_effective(CAP_SYS_RESOURCE))
		IL_TEST_SKIP(
		    "hard RLIMIT_RTPRIO %llu, RLIMIT_NICE %llu, and no CAP_SYS_RESOURCE to "
		    "raise them to 5 and 25 (the vm test runs this case)",
		    (unsigned long long)rt.rlim_max, (unsigned long long)nice.rlim_max);
	in_child(rlimit_case, NULL);
}

static int last_online_cpu(void)
{
	cpu_set_t set;
	int last = -1;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			last = c;
	return last;
}

static int affinity_case(void *arg)
{
	int cpu = *(int *)arg;
	struct il_role_attrs dl = {.sched_class = SCHED_DEADLINE,
				   .dl_runtime_ns = 100000,
				   .dl_deadline_ns = 10000000,
				   .dl_period_ns = 10000000};
	char err[512] = "", want[64];
	cpu_set_t one;
	int r;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return 2;
	r = il_sched_apply_self(&dl, NULL, err, sizeof(err));
	snprintf(want, sizeof(want), "may run on CPUs %d of the online ", cpu);
	if (r != -EPERM || !strstr(err, want) || !strstr(err, "whole root domain")) {
		fprintf(stderr, "deadline on CPU %d alone: %d \"%s\"\n", cpu, r, err);
		return 1;
	}
	/* What a run's preflight asks before any child starts: the same. */
	err[0] = '\0';
	if (!il_sched_refusal_deadline_blocked(err, sizeof(err)) || !strstr(err, want)) {
		fprintf(stderr, "deadline on CPU %d alone, before the run: \"%s\"\n", cpu, err);
		return 1;
	}
	return 0;
}

/* taskset narrows the affinity: deadline is refused for that, and says so. */
static void test_refusal_deadline_affinity(void **state)
{
	int cpu = last_online_cpu();

	(void)state;
	need_root();
	if (cpu < 1 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		IL_TEST_SKIP("one CPU only: no affinity is narrower than the root domain");
	in_child(affinity_case, &cpu);
}

/* --- a cgroup-v1 cpu group without RT runtime -------------------------- */

static char group[300];

/* A killed run of this test leaves its (empty) group behind: those of
 * test processes that are gone are removed (rmdir of a group with tasks
 * fails, so nothing in use goes). */
static void remove_stale_groups(const char *root)
{
	char pattern[300];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/il-test-refusal-*", root);
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		long pid = strtol(strrchr(g.gl_pathv[i], '-') + 1, NULL, 10);

		if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			rmdir(g.gl_pathv[i]);
	}
	globfree(&g);
}

/* Makes an RT group of our own under the hierarchy's root; new groups get
 * no RT runtime. Skips where there is none, or RT bandwidth is off (then
 * the kernel does not look at groups). */
static void make_group(void)
{
	char root[256];
	int64_t rt;

	if (il_sysinfo_rt_group_root(root, sizeof(root)) < 0)
		IL_TEST_SKIP("no cgroup-v1 cpu hierarchy with RT groups (RT_GROUP_SCHED)");
	if (il_sysinfo_rt_runtime_us(&rt) < 0 || rt < 0)
		IL_TEST_SKIP(
		    "sched_rt_runtime_us is -1: the kernel does not enforce RT groups now");
	remove_stale_groups(root);
	snprintf(group, sizeof(group), "%s/il-test-refusal-%d", root, (int)getpid());
	if (mkdir(group, 0755) != 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", group, strerror(errno));
}

/* Moves the calling process into the group: system calls only (it runs
 * between fork and exec too). */
static void join_group(void *ctx)
{
	char path[340], pid[16];
	int fd, n;

	(void)ctx;
	snprintf(path, sizeof(path), "%s/cgroup.procs", group);
	n = snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, (size_t)n) != n)
		_exit(125);
	close(fd);
}

static int group_teardown(void **state)
{
	(void)state;
	/* The group's last process is gone once it was reaped. */
	if (group[0] && rmdir(group) != 0 && errno != ENOENT)
		print_error("rmdir %s: %s\n", group, strerror(errno));
	group[0] = '\0';
	return il_test_proc_teardown(state);
}

static int group_case(void *arg)
{
	struct il_role_attrs fifo = {.sched_class = SCHED_FIFO, .priority = 1};
	char err[512] = "", want[360];
	int64_t rt;
	int r;

	(void)arg;
	join_group(NULL);
	if (il_rttime_limit_set(500000, 1000000) != 0)
		return 2;
	r = il_sched_apply_self(&fifo, NULL, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "fifo priority 1: the thread's cpu cgroup %s has no RT runtime", group);
	if (r == 0 && il_sysinfo_rt_runtime_us(&rt) == 0 && rt < 0)
		return 3; /* another run turned RT bandwidth off meanwhile */
	if (r != -EPERM || strncmp(err, want, strlen(want)) != 0) {
		fprintf(stderr, "fifo in %s: %d \"%s\"\n", group, r, err);
		return 1;
	}
	return 0;
}

static void test_refusal_rt_group(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	need_root();
	make_group();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(group_case(NULL));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 3)
		IL_TEST_SKIP("sched_rt_runtime_us went to -1 during the case (another run)");
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* --- as `inputlat run` and `check` meet them ---------------------------- */

static void pre_drop_cap(void *ctx)
{
	(void)ctx;
	/* Root's exec takes its permitted set from the bounding set. */
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0) != 0)
		_exit(125);
}

static void pre_one_cpu(void *ctx)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(*(int *)ctx, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		_exit(125);
}

static void run_refused(const char *policy, void (*pre)(void *), void *ctx, const char *prefix,
			const char *cause)
{
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			(char *)policy,
			"--events",
			"10",
			"--quiet",
			NULL};
	struct il_test_result *res = malloc(sizeof(*res));

	assert_non_null(res);
	assert_int_equal(il_test_run_with(argv, 60000, pre, ctx, res), 0);
	print_message("%s: exit %d: %s", policy, res->exit_code, res->err);
	il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2, prefix, cause);
	assert_int_equal(il_test_count_project_procs(), 0);
	free(res);
}

/* Refused before any child starts, for the capability. */
static void test_refusal_run_without_cap(void **state)
{
	(void)state;
	need_root();
	run_refused("rt", pre_drop_cap, NULL, "inputlat run: policy rt: fifo priority",
		    "euid 0, but CAP_SYS_NICE is not effective");
	run_refused("deadline", pre_drop_cap, NULL, "inputlat run: policy deadline: deadline",
		    "euid 0, but CAP_SYS_NICE is not effective");
	run_refused("cfs-chrome", pre_drop_cap, NULL, "inputlat run: policy cfs-chrome: other nice",
		    "RLIMIT_NICE");
}

static void test_refusal_run_deadline_affinity(void **state)
{
	int cpu = last_online_cpu();

	(void)state;
	need_root();
	if (cpu < 1 || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		IL_TEST_SKIP("one CPU only: no affinity is narrower than the root domain");
	/* Before any child starts (a child found it once the chain was up). */
	run_refused("deadline", pre_one_cpu, &cpu,
		    "inputlat run: policy deadline: ", "whole root domain");
}

static void test_refusal_run_rt_group(void **state)
{
	static const char policy[] =
	    "[policy]\nname = fifo-ui\n\n[ui]\nclass = fifo\npriority = 10\n";
	char path[300], *check[] = {il_test_suite.inputlat, "check", NULL};
	struct il_test_result *res;

	(void)state;
	need_root();
	make_group();
	snprintf(path, sizeof(path), "%s/fifo-ui.policy", il_test_suite.tmpdir);
	il_test_write_file(path, policy);
	run_refused(path, join_group, NULL, "inputlat: browser-sim: fifo priority 10: ",
		    "has no RT runtime (cpu.rt_runtime_us = 0");
	/* check says so too, and holds the RT policies that keep RT bandwidth
	 * on for impossible here; rt (throttling off) stays possible. */
	res = malloc(sizeof(*res));
	assert_non_null(res);
	assert_int_equal(il_test_run_with(check, 60000, join_group, NULL, res), 0);
	if (!strstr(res->out, "SCHED_FIFO on a test thread: no (fifo priority 1: the thread's cpu "
			      "cgroup ") ||
	    !strstr(res->out, "policy rt-throttled: no (SCHED_FIFO is refused here") ||
	    !strstr(res->out, "policy rt: yes"))
		fail_msg("check in the group says:\n%s", res->out);
	free(res);
}

/* --- knobs that cannot be written ---------------------------------------- */

/* A private mount namespace whose /proc/sys is read-only, as in a
 * container: system calls only. */
static void pre_ro_procsys(void *ctx)
{
	(void)ctx;
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("/proc/sys", "/proc/sys", NULL, MS_BIND, NULL) != 0 ||
	    mount(NULL, "/proc/sys", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0)
		_exit(125);
}

/*
 * With /proc/sys read-only, a policy whose knobs are in force already runs
 * (rt-throttled at the kernel default) and check says it can; one that
 * must write (rt: -1) is refused in one line by both, before any child.
 */
static void test_refusal_knobs_read_only(void **state)
{
	char *check[] = {il_test_suite.inputlat, "check", NULL};
	char *run[] = {il_test_suite.inputlat,
		       "run",
		       "--policy",
		       "rt-throttled",
		       "--events",
		       "10",
		       "--quiet",
		       NULL};
	struct il_test_result *res;
	int64_t rt, period;

	(void)state;
	need_root();
	if (il_sysinfo_rt_runtime_us(&rt) < 0 || il_sysinfo_rt_period_us(&period) < 0 ||
	    rt != 950000 || period != 1000000)
		IL_TEST_SKIP("RT bandwidth is not at the kernel default now (another run?)");
	res = malloc(sizeof(*res));
	assert_non_null(res);
	assert_int_equal(il_test_run_with(check, 60000, pre_ro_procsys, NULL, res), 0);
	if (!strstr(res->out, "policy rt-throttled: yes") ||
	    !strstr(res->out, "policy rt: no (sched_rt_runtime_us is not writable)"))
		fail_msg("check with /proc/sys read-only says:\n%s", res->out);
	assert_int_equal(il_test_run_with(run, 60000, pre_ro_procsys, NULL, res), 0);
	if (res->exit_code != 0)
		fail_msg("rt-throttled with /proc/sys read-only: exit %d: %s", res->exit_code,
			 res->err);
	free(res);
	run_refused("rt", pre_ro_procsys, NULL,
		    "inputlat run: policy rt: ", "writing -1: Read-only file system");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refusal_without_cap),
	    cmocka_unit_test(test_refusal_rlimits_grant),
	    cmocka_unit_test(test_refusal_deadline_affinity),
	    cmocka_unit_test_teardown(test_refusal_rt_group, group_teardown),
	    cmocka_unit_test_teardown(test_refusal_run_without_cap, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_refusal_run_deadline_affinity, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_refusal_run_rt_group, group_teardown),
	    cmocka_unit_test_teardown(test_refusal_knobs_read_only, il_test_proc_teardown),
	};

	if (il_test_filters("test_sched_refusal", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_suite_setup, il_test_suite_teardown);
}
