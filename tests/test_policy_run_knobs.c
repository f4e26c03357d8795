/*
 * The system knobs of a policy run (issue 3) survive its end: after a
 * SIGKILL the next start (`inputlat check`) puts them back, after a SIGINT
 * the run puts them back itself and says so in its report. The policy is
 * rt-throttled with sched_rt_runtime_us = 900000, so that the knob really
 * changes.
 *
 * The knob fixture (tests/lib/il_test_knobs.h) waits while another run
 * holds the system knobs and puts them back after every case.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

#define KNOB_TEST_VALUE	 "900000"
#define START_TIMEOUT_MS 20000

/* Starts the knob policy with many events and waits until the knob is set. */
static void start_knob_run(struct il_test_chain *c, const char *tag, char *json, size_t jlen)
{
	char policy[300], out[300], err[300];
	char *argv[] = {il_test_suite.inputlat, "run", "--policy", policy, "--events", "100000",
			"--interval-ms",	"10",  "--json",   json,   NULL};
	const char *orig_group = il_test_knob_orig(IL_TEST_RT_GROUP);

	snprintf(policy, sizeof(policy), "%s/rt-%s.policy", il_test_suite.tmpdir, KNOB_TEST_VALUE);
	snprintf(json, jlen, "%s/%s.json", il_test_suite.tmpdir, tag);
	snprintf(out, sizeof(out), "%s/%s.out", il_test_suite.tmpdir, tag);
	snprintf(err, sizeof(err), "%s/%s.err", il_test_suite.tmpdir, tag);
	il_test_knobs_write_policy(policy, il_test_suite.policy_dir, KNOB_TEST_VALUE);
	il_test_chain_assert_up(c, il_test_knobs_chain_start(c, argv, out, err, START_TIMEOUT_MS));
	/* The knobs are applied before the chain starts; allow for a slow read. */
	for (int i = 0; i < 500 && strcmp(il_test_knob(IL_TEST_RT_RUNTIME), KNOB_TEST_VALUE) != 0;
	     i++)
		usleep(10000);
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), KNOB_TEST_VALUE);
	if (orig_group[0])
		assert_true(atoll(il_test_knob(IL_TEST_RT_GROUP)) <= atoll(KNOB_TEST_VALUE));
	/* Events through the chain (10 at 10 ms), so that the signal lands
	 * mid-run and the report has completed ones. */
	assert_true(il_test_chain_wait_events(c, 10, 30000));
}

static void assert_knobs_back(pid_t ours)
{
	char why[400];

	if (!il_test_knobs_back(ours, why, sizeof(why)))
		fail_msg("after run %d: %s", (int)ours, why);
}

/*
 * One SIGKILLed run and the `inputlat check` after it; 1 when check said
 * it restored that run's knobs, 0 when another inputlat run on this
 * machine (the suite's lanes run beside this test) recovered them first,
 * before or after the kill was seen: then there was nothing for check.
 */
static int sigkill_then_check(struct il_test_result *res)
{
	char json[300], needle[64];
	char *check[] = {il_test_suite.inputlat, "check", NULL};
	struct il_test_chain c;
	int status;

	start_knob_run(&c, "sigkill", json, sizeof(json));
	kill(c.pid, SIGKILL);
	status = il_test_chain_wait(&c, IL_TEST_HANG_MS);
	assert_true(status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* PR_SET_PDEATHSIG takes the chain down with it. */
	assert_true(il_test_chain_gone(&c, 2000));
	if (il_test_knobs_state_pid() != c.pid)
		return 0;
	/*
	 * Nothing could restore the knob: it is still changed while the
	 * state file names the dead run. Another run recovering it now puts
	 * the knob back, then removes the file: a second to see it go.
	 */
	if (strcmp(il_test_knob(IL_TEST_RT_RUNTIME), KNOB_TEST_VALUE) != 0) {
		for (int i = 0; i < 100 && il_test_knobs_state_pid() == c.pid; i++)
			usleep(10000);
		if (il_test_knobs_state_pid() == c.pid)
			fail_msg("the knob is back while the state file still names dead run %d",
				 (int)c.pid);
		assert_knobs_back(c.pid);
		return 0;
	}

	/* The next start, here `inputlat check`, puts the originals back. */
	assert_int_equal(il_test_run(check, 30000, res), 0);
	assert_int_equal(res->exit_code, 0);
	snprintf(needle, sizeof(needle), "dead run pid %d", (int)c.pid);
	if (strstr(res->err, needle) || strstr(res->out, needle)) {
		assert_knobs_back(c.pid);
		return 1;
	}
	/* Said nothing of it: only right if another run got there first. */
	if (strstr(res->out, "stale knobs found: no (nothing left by a dead run)")) {
		assert_knobs_back(c.pid);
		return 0;
	}
	fail_msg("inputlat check did not say it restored the knobs of pid %d:\n%s%s", (int)c.pid,
		 res->out, res->err);
	return 0;
}

static void test_policy_run_knob_sigkill(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));

	assert_non_null(res);
	il_test_knobs_need_change(KNOB_TEST_VALUE);
	for (int attempt = 1; !sigkill_then_check(res); attempt++) {
		if (attempt == 3) {
			free(res);
			fail_msg("another inputlat run recovered the knobs first, 3 times");
		}
		print_message("another inputlat run recovered the knobs first; again\n");
	}
	free(res);
}

static void test_policy_run_knob_sigint(void **state)
{
	const char *orig_group = il_test_knob_orig(IL_TEST_RT_GROUP);
	struct il_test_chain c;
	char json[300], buf[4096];
	const cJSON *e;
	cJSON *root;
	int st;

	il_test_knobs_need_change(KNOB_TEST_VALUE);
	start_knob_run(&c, "sigint", json, sizeof(json));
	kill(c.pid, SIGINT);
	/* Waited for first: its stderr is complete once it exited. */
	st = il_test_chain_wait(&c, IL_TEST_HANG_MS);
	/* It measured events (start_knob_run waits for them): exit 0. */
	il_test_assert_exited(st, 0, il_test_chain_stderr(&c, buf, sizeof(buf)));
	assert_true(il_test_chain_gone(&c, 2000));

	/* The run put the knobs back itself. */
	assert_knobs_back(c.pid);

	root = il_test_json_load(json);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "interrupted")));
	assert_true(
	    il_test_json_num(cJSON_GetObjectItemCaseSensitive(root, "events"), "completed") > 0);
	e = il_test_knobs_report_entry(root, IL_TEST_RT_RUNTIME);
	assert_non_null(e);
	assert_string_equal(il_test_json_str(e, "original"), il_test_knob_orig(IL_TEST_RT_RUNTIME));
	assert_string_equal(il_test_json_str(e, "applied"), KNOB_TEST_VALUE);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "restored")));
	if (orig_group[0]) {
		e = il_test_knobs_report_entry(root, IL_TEST_RT_GROUP);
		assert_non_null(e);
		assert_string_equal(il_test_json_str(e, "original"), orig_group);
	}
	cJSON_Delete(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_policy_run_knob_sigkill, il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_policy_run_knob_sigint, il_test_knobs_teardown),
	};

	if (il_test_filters("test_policy_run_knobs", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_knobs_suite_setup,
				      il_test_knobs_suite_teardown);
}
