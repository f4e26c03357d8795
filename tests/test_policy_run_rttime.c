/*
 * RLIMIT_RTTIME stops a runaway (issue 3): `inputlat run --policy rt
 * --test-runaway render:main` makes render:main spin at SCHED_FIFO; the
 * kernel's RLIMIT_RTTIME ends render-sim, the run says so in one error
 * naming render-sim and "CPU time limit", exits 1 within 3 s, and nothing
 * of it (no process, no RT thread) is left.
 *
 * The knob fixture (tests/lib/il_test_knobs.h) waits while another run
 * holds the system knobs and puts them back after the case.
 */
#include <stdio.h>
#include <string.h>

#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

#define START_TIMEOUT_MS 20000
#define GONE_MS		 2000

static void test_policy_run_rttime(void **state)
{
	char json[300], out[300], err[300], buf[8192], why[300];
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			"rt",
			"--rttime-ms",
			"300",
			"--test-runaway",
			"render:main",
			"--events",
			"100",
			"--json",
			json,
			NULL};
	pid_t pids[16];
	struct il_test_chain c;
	const cJSON *t, *e;
	double elapsed, took, t_up, others;
	struct il_test_others_mark mark;
	int status, rc, n = 0;
	cJSON *root;

	IL_TEST_NEED_ROOT("SCHED_FIFO and sched_rt_runtime_us");
	snprintf(json, sizeof(json), "%s/rttime.json", il_test_suite.tmpdir);
	snprintf(out, sizeof(out), "%s/rttime.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/rttime.err", il_test_suite.tmpdir);
	/*
	 * Timed from the chain's start, not from inputlat's: what comes
	 * before it (calibration, a wait for another run's knobs) is not the
	 * runaway's. The chain may be gone before it was seen whole: the
	 * runaway is fast.
	 */
	rc = il_test_knobs_chain_start(&c, argv, out, err, START_TIMEOUT_MS);
	il_test_others_mark(&mark);
	t_up = il_test_now_s();
	status = il_test_chain_wait(&c, IL_TEST_HANG_MS);
	elapsed = il_test_now_s() - t_up;
	others = il_test_others_since(&mark);
	il_test_chain_stderr(&c, buf, sizeof(buf));
	print_message("chain %s; inputlat ended %.2f s later\n", rc == 0 ? "up" : "ended early",
		      elapsed);
	il_test_assert_exited(status, 1, buf);
	assert_non_null(strstr(buf, "render-sim"));
	assert_non_null(strstr(buf, "CPU time limit"));

	root = il_test_json_load(json);
	e = cJSON_GetObjectItemCaseSensitive(root, "error");
	assert_true(cJSON_IsString(e));
	assert_non_null(strstr(e->valuestring, "render-sim"));
	assert_non_null(strstr(e->valuestring, "CPU time limit"));
	/* Every process the report knows of, and every child seen, is gone,
	 * and so is every RT thread. */
	for (int p = 0; p < IL_TEST_NKIDS; p++)
		pids[n++] = c.kids[p];
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(root, "threads")) {
		if (n < 16)
			pids[n++] = (pid_t)il_test_json_num(t, "pid");
	}
	cJSON_Delete(root);
	assert_true(il_test_chain_gone(&c, GONE_MS));
	if (!il_test_nothing_left(pids, n, GONE_MS, &took, why, sizeof(why)))
		fail_msg("after %.0f ms: %s", took, why);
	if (il_test_knobs_wait_free(10000) && !il_test_knobs_back(c.pid, why, sizeof(why)))
		fail_msg("after the run: %s", why);
	/* Last, once all else is checked: a skip for a busy machine ends the case. */
	il_test_assert_prompt("stopping the runaway", (uint64_t)(elapsed * 1e9), 3000000000ull,
			      others);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_policy_run_rttime, il_test_knobs_teardown),
	};

	if (il_test_filters("test_policy_run_rttime", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_knobs_suite_setup,
				      il_test_knobs_suite_teardown);
}
