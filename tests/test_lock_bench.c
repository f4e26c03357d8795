/*
 * bench/lock-bench's verdicts claim only what was measured: where il-bpf
 * ran without its on-CPU source (no BPF for this process), it was il-none
 * under another name, and its targets against adaptive-np are not judged
 * (met: null, with why), not met or missed; a switch cost that was not
 * measured is "n/a", not a figure. The time it says the lock was held
 * is what the sections held it.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <math.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "il_test.h"
#include "il_test_proc.h"

/*
 * Root's exec takes its permitted set from the bounding set: without
 * these, no BPF program loads (as for any user without them).
 */
static void pre_no_bpf(void *ctx)
{
	static const int caps[] = {CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON};

	(void)ctx;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (prctl(PR_CAPBSET_DROP, caps[i], 0, 0, 0) != 0 && geteuid() == 0)
			_exit(125);
}

/* The case's directory, removed by the teardown whether the case passed or not. */
static char dir[PATH_MAX];

static int teardown_dir(void **state)
{
	(void)state;
	if (dir[0] && il_test_tmpdir_remove(dir) != 0)
		return -1;
	dir[0] = 0;
	return 0;
}

/*
 * Copies the executable from into to, mode 0755: 0 or a negative errno.
 */
static int copy_exe(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
	ssize_t n = 0;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		rc = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			goto out;
		}
	if (n < 0)
		rc = -errno;
out:
	if (out >= 0 && close(out) != 0 && rc == 0)
		rc = -errno;
	close(in);
	return rc;
}

/*
 * Runs lock-bench with args (NULL-ended) and --json into the case's
 * directory; pre (or NULL) runs in the child before its exec. With
 * own_copy it runs a copy of lock-bench in that directory, for a pre that
 * becomes another user: the build tree need not be theirs to reach (a
 * clone in root's home, mode 0700 on Debian, is not). Fails the case
 * unless it exits 0; returns the JSON it wrote.
 */
static cJSON *run_bench(const char *const *args, void (*pre)(void *), bool own_copy,
			struct il_test_result *r)
{
	static char bench[PATH_MAX], copy[PATH_MAX + 16], json[PATH_MAX + 16];
	char *argv[32];
	int n = 0;

	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/lock-bench"));
	IL_TEST_NEED(access(bench, X_OK) == 0, "%s is not built", bench);
	assert_int_equal(il_test_tmpdir_make(dir, sizeof(dir), "lock-bench"), 0);
	snprintf(json, sizeof(json), "%s/lb.json", dir);
	if (own_copy) {
		snprintf(copy, sizeof(copy), "%s/lock-bench", dir);
		assert_int_equal(copy_exe(bench, copy), 0);
	}
	argv[n++] = own_copy ? copy : bench;
	while (*args && n < 28)
		argv[n++] = (char *)*args++;
	argv[n++] = "--json";
	argv[n++] = json;
	argv[n] = NULL;
	assert_int_equal(il_test_run_with(argv, 60000, pre, NULL, r), 0);
	if (r->exit_code != 0)
		fail_msg("lock-bench exited %d: %s", r->exit_code, r->err);
	return il_test_json_load(json);
}

static void test_lock_bench_without_source_not_judged(void **state)
{
	static struct il_test_result r;
	static const char *const args[] = {
	    "--locks", "il-bpf,adaptive-np", "--scenarios", "today",	"--placements",
	    "one-cpu", "--seconds",	     "0.2",	    "--rounds", "1",
	    NULL};
	const cJSON *t, *e;
	const char *last;
	cJSON *root;

	(void)state;
	root = run_bench(args, pre_no_bpf, false, &r);
	assert_string_equal(il_test_json_str(root, "il_bpf_source"), "none");
	t = cJSON_GetObjectItem(root, "targets");
	assert_int_equal(cJSON_GetArraySize(t), 1);
	e = cJSON_GetArrayItem(t, 0);
	if (!cJSON_IsNull(cJSON_GetObjectItem(e, "met")))
		fail_msg("il-bpf without its source was judged: %s", r.out);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "met_by_lock_cpu")));
	assert_non_null(strstr(il_test_json_str(e, "not_judged"), "without its on-CPU source"));
	assert_string_equal(il_test_json_str(e, "rounds_agree"), "not judged");
	cJSON_Delete(root);
	if (!strstr(r.out, "met in 0 of 0 scenarios; not judged in one-cpu (the last: il-bpf "
			   "ran without its on-CPU source in 1 round ("))
		fail_msg("no 'not judged' verdict in: %s", r.out);
	/* Nothing judged: no line of ratios over nothing. */
	assert_null(strstr(r.out, "judged by all of lock()'s CPU"));
	last = strstr(r.out, "lock-bench: 1 scenarios x 2 locks");
	assert_non_null(last);
	assert_non_null(strstr(last, "bpf switch cost n/a\n"));
}

/* As setpriv --reuid=65534 --regid=65534 --clear-groups: nobody, with no
 * RT priority allowed (an RLIMIT_RTPRIO of 0), writing into the case's
 * directory. */
static void pre_nobody(void *ctx)
{
	struct rlimit rl = {0, 0};

	(void)ctx;
	if (chmod(dir, 0777) != 0 || setrlimit(RLIMIT_RTPRIO, &rl) != 0 ||
	    setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0)
		_exit(125);
}

/*
 * A fifo hog refused (nobody may not use SCHED_FIFO): the row is skipped
 * and says why, in the JSON and in the table; it said "skipped": true
 * alone.
 */
static void test_lock_bench_skipped_says_why(void **state)
{
	static struct il_test_result r;
	static const char *const args[] = {
	    "--locks",	   "pthread", "--scenarios", "today",	  "--placements",
	    "one-per-cpu", "--hogs",  "fifo",	     "--seconds", "0.2",
	    "--rounds",	   "1",	      NULL};
	const char *want = "the fifo hog was refused SCHED_FIFO priority 1: Operation not "
			   "permitted (SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at "
			   "least 1)";
	const cJSON *e;
	cJSON *root;
	int n = 0;

	(void)state;
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root to run it as nobody");
	root = run_bench(args, pre_nobody, true, &r);
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(root, "results")) {
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(e, "skipped")));
		assert_string_equal(il_test_json_str(e, "skipped_why"), want);
		n++;
	}
	assert_int_equal(n, 1);
	cJSON_Delete(root);
	if (!strstr(r.out, want))
		fail_msg("the table does not say why: %s", r.out);
}

/*
 * The time the lock was held, at least: 20 us sections and nothing between
 * them, so each acquisition holds it 20 us and the ceiling on ops is 1e9 /
 * 20000 = 50000/s for every lock; the share held is ops over that, and
 * mutual exclusion keeps it at most 1.
 */
static void test_lock_bench_held_and_ceiling(void **state)
{
	static struct il_test_result r;
	static const char *const args[] = {"--locks",
					   "pthread,adaptive-np",
					   "--scenarios",
					   "today",
					   "--placements",
					   "one-per-cpu",
					   "--cs-ns",
					   "20000",
					   "--outside-ns",
					   "0",
					   "--seconds",
					   "0.3",
					   "--rounds",
					   "1",
					   NULL};
	const cJSON *e;
	cJSON *root;
	int n = 0;

	(void)state;
	/* Without BPF: the switch-cost measurement a root run starts with takes 20 s. */
	root = run_bench(args, pre_no_bpf, false, &r);
	cJSON_ArrayForEach (e, cJSON_GetObjectItem(root, "results")) {
		double ops = il_test_json_num(e, "ops_per_s"),
		       held = il_test_json_num(e, "lock_held_share"),
		       ceiling = il_test_json_num(e, "ops_ceiling_per_s");

		print_message("%s: %.0f ops/s, held %.3f, ceiling %.0f/s\n",
			      il_test_json_str(e, "lock"), ops, held, ceiling);
		assert_true(ops > 0);
		if (!(ceiling > 49500 && ceiling < 50500))
			fail_msg("ceiling %.0f/s, want 50000 (20 us holds)", ceiling);
		if (!(held > 0 && held <= 1.0) || fabs(held - ops / ceiling) > 0.01)
			fail_msg("held %.3f of the run with %.0f ops/s of 50000", held, ops);
		n++;
	}
	assert_int_equal(n, 2);
	cJSON_Delete(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_lock_bench_without_source_not_judged, teardown_dir),
	    cmocka_unit_test_teardown(test_lock_bench_held_and_ceiling, teardown_dir),
	    cmocka_unit_test_teardown(test_lock_bench_skipped_says_why, teardown_dir),
	};

	if (il_test_filters("test_lock_bench", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
