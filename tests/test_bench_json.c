/*
 * What a benchmark's JSON records of itself: bench/rss-events --counts
 * 5,10 ran both counts and recorded "--counts 5" as its command (it
 * tokenised argv in place before joining it), so its JSON named a run
 * that would do something else. The rows are the counts asked, each run
 * complete, each peak a process's measured one.
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "il_file.h"
#include "il_test.h"
#include "il_test_proc.h"

static void test_bench_json_rss_events_records_itself(void **state)
{
	char bench[PATH_MAX], json[256], out[256], err[256], want[600], why[300];
	char *argv[] = {bench, "--counts", "5,10", "--json", json, NULL};
	const cJSON *rows, *row;
	cJSON *root;
	int status, i = 0;
	const double counts[] = {5, 10};

	(void)state;
	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/rss-events"));
	IL_TEST_NEED(access(bench, X_OK) == 0, "%s is not built", bench);
	assert_int_equal(il_test_tmpfile_make(json, sizeof(json), "rss-events-json"), 0);
	assert_int_equal(il_test_tmpfile_make(out, sizeof(out), "rss-events-out"), 0);
	assert_int_equal(il_test_tmpfile_make(err, sizeof(err), "rss-events-err"), 0);
	status = il_test_wait(il_test_spawn(argv, out, err), 120000, NULL);
	assert_true(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(il_json_load(json, &root, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "rss-events --counts 5,10 --json %s", json);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(root, "cmdline")), want);
	rows = cJSON_GetObjectItem(root, "results");
	assert_int_equal(cJSON_GetArraySize(rows), 2);
	cJSON_ArrayForEach (row, rows) {
		const cJSON *peaks = cJSON_GetObjectItem(row, "peak_rss_kib"), *p;
		double tree = il_json_num(row, "tree_max_rss_kib");

		assert_float_equal(il_json_num(row, "events"), counts[i], 0);
		assert_float_equal(il_json_num(row, "completed"), counts[i], 0);
		assert_int_equal(cJSON_GetArraySize(peaks), 5);
		cJSON_ArrayForEach (p, peaks) {
			/* A process's own VmHWM: more than a page, at most the tree's. */
			assert_true(cJSON_IsNumber(p) && p->valuedouble > 4 &&
				    p->valuedouble <= tree);
		}
		i++;
	}
	cJSON_Delete(root);
}

/* The pids whose parent is ppid and whose command name is comm. */
static int children_named(int ppid, const char *comm, int *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n < max) {
		char path[300], buf[512], *close_paren;
		int pid = atoi(e->d_name), pp;
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) &&
		    sscanf(close_paren + 2, "%*c %d", &pp) == 1 && pp == ppid && strstr(buf, comm))
			pids[n++] = pid;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * A bench SIGKILLed mid-run left its inputlat run going on alone (to the
 * run's own end: minutes at rss-events' larger counts). The runs a bench
 * starts carry IL_RUN_PARENT and stop, as by SIGTERM, when it dies.
 */
static void test_bench_json_killed_bench_stops_its_run(void **state)
{
	char bench[PATH_MAX], out[256], err[256];
	char *argv[] = {bench, "--counts", "100000", NULL};
	int pid, runs[4], n = 0, left = 1;

	(void)state;
	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/rss-events"));
	IL_TEST_NEED(access(bench, X_OK) == 0, "%s is not built", bench);
	assert_int_equal(il_test_tmpfile_make(out, sizeof(out), "rss-events-kill-out"), 0);
	assert_int_equal(il_test_tmpfile_make(err, sizeof(err), "rss-events-kill-err"), 0);
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	for (int i = 0; i < 200 && n == 0; i++) {
		usleep(50000);
		n = children_named(pid, "(inputlat)", runs, 4);
	}
	assert_int_equal(n, 1);
	usleep(500000); /* the run is up and measuring */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* Gone, or a zombie: this VM's PID 1 reaps orphans late. */
	for (int i = 0; i < 100 && left; i++) {
		usleep(50000);
		left = il_test_proc_alive(runs[0], "inputlat");
	}
	if (left)
		kill(runs[0], SIGKILL);
	print_message("the run %d of the killed bench: %s\n", runs[0],
		      left ? "still there after 5 s (killed now)" : "stopped");
	assert_false(left);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bench_json_rss_events_records_itself),
	    cmocka_unit_test(test_bench_json_killed_bench_stops_its_run),
	};
	if (il_test_filters("test_bench_json", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
