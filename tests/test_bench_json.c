/*
 * What a benchmark's JSON records of itself: bench/rss-events --counts
 * 5,10 ran both counts and recorded "--counts 5" as its command (it
 * tokenised argv in place before joining it), so its JSON named a run
 * that would do something else. The rows are the counts asked, each run
 * complete, each peak a process's measured one.
 */
#include <limits.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bench_json_rss_events_records_itself),
	};
	if (il_test_filters("test_bench_json", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
