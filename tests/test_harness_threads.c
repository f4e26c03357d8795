/*
 * The harness's own threads start from the baseline the policy describes,
 * whatever inputlat was started with: under `chrt -f 10` or `nice -n 7`,
 * a cfs run's loop and each child's control thread are SCHED_OTHER nice 0
 * (every thread they start inherits their class), the report says so
 * (hygiene.harness_threads) and has no "harness:" warning; the pipeline's
 * threads are what the policy says. Needs root (chrt).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "il_file.h"
#include "il_sched_attr.h"
#include "il_test.h"
#include "il_test_proc.h"

/* Between fork and exec: what a user's chrt or nice would have done. The
 * RT case runs under RLIMIT_RTTIME like every RT thread of the suite. */
static void pre_fifo10(void *ctx)
{
	struct rlimit rt = {500000, 1000000};
	struct sched_param sp = {.sched_priority = 10};

	(void)ctx;
	if (setrlimit(RLIMIT_RTTIME, &rt) != 0 || sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
		_exit(125);
}

static void pre_nice7(void *ctx)
{
	(void)ctx;
	if (setpriority(PRIO_PROCESS, 0, 7) != 0)
		_exit(125);
}

static void run_from(void (*pre)(void *), const char *label)
{
	char json[300], err[256];
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			"cfs",
			"--events",
			"20",
			"--hog",
			"1",
			"--load",
			"1",
			"--quiet",
			"--json",
			json,
			NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root = NULL;
	const cJSON *e;
	int n = 0;

	assert_non_null(res);
	snprintf(json, sizeof(json), "%s/%s.json", il_test_suite.tmpdir, label);
	assert_int_equal(il_test_run_with(argv, 60000, pre, NULL, res), 0);
	if (res->exit_code != 0)
		fail_msg("%s: exit %d: %s", label, res->exit_code, res->err);
	assert_int_equal(il_json_load(json, &root, err, sizeof(err)), 0);
	cJSON_ArrayForEach (e, il_json_get(root, "hygiene.harness_threads")) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(e, "thread"));
		const char *got = cJSON_GetStringValue(cJSON_GetObjectItem(e, "got"));

		n++;
		if (!strcmp(t, "inputlat:watchdog"))
			continue; /* FIFO 99 whenever it may */
		if (!got || strcmp(got, "other") != 0)
			fail_msg("%s: %s runs %s, want other", label, t, got ? got : "(null)");
	}
	assert_int_equal(n, 2 + IL_TEST_NKIDS);
	cJSON_ArrayForEach (e, il_json_get(root, "threads")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
		const char *pol = cJSON_GetStringValue(cJSON_GetObjectItem(e, "policy"));

		if (!pol || strcmp(pol, "other") != 0 || cJSON_GetObjectItem(e, "nice")->valueint)
			fail_msg("%s: pipeline thread %s is %s nice %d", label, name, pol,
				 cJSON_GetObjectItem(e, "nice")->valueint);
	}
	if (strstr(res->err, "harness:"))
		fail_msg("%s: a harness warning: %s", label, res->err);
	print_message("%s: %d harness threads and every pipeline thread at other nice 0\n", label,
		      n);
	cJSON_Delete(root);
	free(res);
}

static void test_harness_threads_under_chrt(void **state)
{
	(void)state;
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root for chrt");
	run_from(pre_fifo10, "chrt-fifo10");
}

static void test_harness_threads_under_nice(void **state)
{
	(void)state;
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root to go from nice 7 back to 0");
	run_from(pre_nice7, "nice7");
}

/*
 * The watchdog is FIFO 99 under every policy, so RLIMIT_RTTIME is in force
 * under cfs too: in /proc/PID/limits during the run, and in the report
 * (hygiene.rttime) as --rttime-ms asked.
 */
static void test_harness_threads_rttime_under_cfs(void **state)
{
	char json[300], out[300], err[300], path[64], text[8192], want[96];
	char *argv[] = {il_test_suite.inputlat, "run",	"--policy", "cfs",    "--events", "100",
			"--rttime-ms",		"4000", "--quiet",  "--json", json,	  NULL};
	const char *line = NULL;
	cJSON *root;
	pid_t run;

	(void)state;
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root for the FIFO 99 watchdog");
	snprintf(json, sizeof(json), "%s/rttime-cfs.json", il_test_suite.tmpdir);
	snprintf(out, sizeof(out), "%s/rttime-cfs.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/rttime-cfs.err", il_test_suite.tmpdir);
	run = il_test_spawn(argv, out, err);
	assert_true(run > 0);
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)run);
	/* Until the chain is up, the limit is set before it starts. */
	for (int waited = 0; waited < 20000; waited += 20) {
		if (il_test_find_child(run, "viz-sim") &&
		    il_test_read_file(path, text, sizeof(text)) > 0)
			line = strstr(text, "Max realtime timeout");
		if (line)
			break;
		usleep(20000);
	}
	assert_non_null(line);
	snprintf(want, sizeof(want), "%-26s%-21s%-21s", "Max realtime timeout", "4000000",
		 "5000000");
	if (strncmp(line, want, strlen(want)) != 0)
		fail_msg("under cfs: %.80s", line);
	assert_int_equal(il_test_wait(run, 60000, NULL), 0);
	root = il_test_json_load(json);
	assert_int_equal((long)il_test_json_num(il_json_get(root, "hygiene.rttime"), "soft_us"),
			 4000000);
	assert_int_equal((long)il_test_json_num(il_json_get(root, "hygiene.rttime"), "hard_us"),
			 5000000);
	assert_true(cJSON_IsNull(il_json_get(root, "hygiene.rttime.why")));
	cJSON_Delete(root);
}

/*
 * A pipeline thread reniced, and another given a custom EEVDF slice, by
 * someone else during the run: the run was
 * not under its policy throughout, and its report claimed the start's
 * attributes all along. Read again before the stop: "changed" in the
 * thread's record, and a warning.
 */
static void test_harness_threads_changed_during_run(void **state)
{
	char json[300], out[300], err[300], text[65536];
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			"cfs",
			"--events",
			"150",
			"--quiet",
			"--json",
			json,
			NULL};
	pid_t run, render = 0, tid = 0, browser, ui;
	bool sliced;
	cJSON *root;
	const cJSON *e;
	int seen = 0;

	(void)state;
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root to renice a thread of the run");
	snprintf(json, sizeof(json), "%s/changed.json", il_test_suite.tmpdir);
	snprintf(out, sizeof(out), "%s/changed.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/changed.err", il_test_suite.tmpdir);
	run = il_test_spawn(argv, out, err);
	assert_true(run > 0);
	/* Both threads, each in its own time: browser-sim's threads may not
	 * all be there yet when render-sim's are (seen under ASan). */
	browser = ui = 0;
	for (int waited = 0; waited < 20000 && !(tid && ui); waited += 20) {
		if (!render)
			render = il_test_find_child(run, "render-sim");
		if (render && !tid)
			tid = il_test_find_thread(render, "render:main");
		if (!browser)
			browser = il_test_find_child(run, "browser-sim");
		if (browser && !ui)
			ui = il_test_find_thread(browser, "browser:ui");
		usleep(20000);
	}
	assert_true(tid > 0);
	assert_int_equal(setpriority(PRIO_PROCESS, (id_t)tid, 5), 0);
	/* And browser:ui's EEVDF slice (Linux 6.12+), which class, nice and
	 * CPUs alone do not show. */
	assert_true(ui > 0);
	{
		struct il_sched_attr attr = {
		    .size = sizeof(attr), .sched_policy = SCHED_OTHER, .sched_runtime = 5000000};

		sliced = il_sys_sched_setattr(ui, &attr) == 0;
		if (!sliced)
			print_message("no custom slice here (%s): only the nice is checked\n",
				      strerror(errno));
	}
	assert_int_equal(il_test_wait(run, 60000, NULL), 0);
	root = il_test_json_load(json);
	cJSON_ArrayForEach (e, il_json_get(root, "threads")) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
		const cJSON *c = cJSON_GetObjectItem(e, "changed");

		if (!strcmp(name, "render:main")) {
			const char *v = cJSON_GetStringValue(c);

			if (!v || strncmp(v, "other cpus ", 11) != 0 ||
			    !strstr(v, " -> other nice 5 cpus "))
				fail_msg("render:main changed: %s", v ? v : "(null)");
			seen++;
		} else if (sliced && !strcmp(name, "browser:ui")) {
			const char *v = cJSON_GetStringValue(c);

			if (!v || strncmp(v, "other slice ", 12) != 0 ||
			    !strstr(v, " -> other slice 5000 us cpus "))
				fail_msg("browser:ui changed: %s", v ? v : "(null)");
			seen++;
		} else if (!cJSON_IsNull(c)) {
			fail_msg("%s changed too: %s", name, cJSON_GetStringValue(c));
		}
	}
	assert_int_equal(seen, sliced ? 2 : 1);
	cJSON_Delete(root);
	assert_true(il_test_read_file(err, text, sizeof(text)) > 0);
	assert_non_null(
	    strstr(text, "threads: render:main's scheduling was changed during the run"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_harness_threads_under_chrt, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_harness_threads_under_nice, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_harness_threads_rttime_under_cfs, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_harness_threads_changed_during_run,
				      il_test_proc_teardown),
	};

	if (il_test_filters("test_harness_threads", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_suite_setup, il_test_suite_teardown);
}
