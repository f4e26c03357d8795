/* End to end: the orchestrator and its three children, as a user runs them. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "il_msg.h"
#include "il_test.h"
#include "il_test_proc.h"

/* Bounds on a hang, not expectations: a loaded machine may take long. */
#define START_TIMEOUT_MS  20000
#define EVENTS_TIMEOUT_MS 30000

static const char *thread_name_of(cJSON *threads, double tid)
{
	cJSON *t;

	cJSON_ArrayForEach (t, threads)
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(t, "tid")) == tid)
			return cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
	return NULL;
}

/*
 * context_switches: counted from the start of the warm-up, so divided by
 * every event through the chain (per event over the measured ones alone
 * read 1.05 wakes a handler), and each thread's wakes by design (its
 * handlers, and one more where the chain says why) beside them.
 */
static void check_wakes(const cJSON *root, int events)
{
	const cJSON *cs = cJSON_GetObjectItem(root, "context_switches"), *t;
	int design = 0, extra = 0;

	assert_int_equal(il_test_json_num(cs, "events"), events);
	cJSON_ArrayForEach (t, cJSON_GetObjectItem(cs, "threads")) {
		const char *name = il_test_json_str(t, "name");
		const cJSON *why = cJSON_GetObjectItem(t, "other_wake");
		int d = (int)il_test_json_num(t, "design_per_event");
		int h = (int)il_test_json_num(t, "handlers_per_event");

		assert_float_equal(il_test_json_num(t, "voluntary_per_event") * events,
				   il_test_json_num(t, "voluntary"), 1e-6);
		if (!strcmp(name, "inputlat"))
			continue;
		/* One more than the handlers exactly when a reason is given. */
		assert_int_equal(d, h + (cJSON_IsString(why) ? 1 : 0));
		design += d;
		extra += d - h;
	}
	/* Twelve hops; the click's release, the feedback and the record. */
	assert_int_equal(extra, 3);
	assert_int_equal(il_test_json_num(cJSON_GetObjectItem(cs, "chain_per_event"), "design"),
			 design);
}

static void test_chain_end_to_end(void **state)
{
	char json[300], records[300], line[8192];
	char *argv[] = {il_test_suite.inputlat, "run", "--events", "200", "--interval-ms", "10",
			/* Every event must complete: a loaded machine may only
			 * make one slow, and latency is not what this checks. */
			"--timeout-ms", "20000", "--json", json, "--records", records, NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root, *threads, *t, *hops;
	double pids[3] = {0};
	int npids = 0, nrec = 0;
	FILE *f;

	snprintf(json, sizeof(json), "%s/run.json", il_test_suite.tmpdir);
	snprintf(records, sizeof(records), "%s/records.jsonl", il_test_suite.tmpdir);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	assert_int_equal(res->exit_code, 0);
	assert_non_null(strstr(res->out, "completed 200"));

	root = il_test_json_load(json);
	assert_int_equal(cJSON_GetNumberValue(
			     cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "completed")),
			 200);
	hops = cJSON_GetObjectItem(root, "hops");
	assert_int_equal(cJSON_GetArraySize(hops), IL_NHOPS);
	threads = cJSON_GetObjectItem(root, "threads");

	/* Three distinct child processes host the ten pipeline threads. */
	cJSON_ArrayForEach (t, threads) {
		const char *proc = cJSON_GetStringValue(cJSON_GetObjectItem(t, "process"));
		double pid = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "pid"));
		int seen = 0;

		if (strcmp(proc, "browser-sim") && strcmp(proc, "render-sim") &&
		    strcmp(proc, "viz-sim"))
			continue;
		for (int i = 0; i < npids; i++)
			seen |= pids[i] == pid;
		if (!seen && npids < 3)
			pids[npids++] = pid;
	}
	assert_int_equal(npids, 3);
	assert_true(pids[0] != pids[1] && pids[1] != pids[2] && pids[0] != pids[2]);

	/* Every record: 13 strictly increasing stamps, each on its hop's thread. */
	f = fopen(records, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		cJSON *r = cJSON_Parse(line), *st, *ti;

		assert_non_null(r);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(r, "state")),
				    "completed");
		st = cJSON_GetObjectItem(r, "stamp_ns");
		ti = cJSON_GetObjectItem(r, "tid");
		assert_int_equal(cJSON_GetArraySize(st), IL_NSTAMPS);
		for (int k = 1; k < IL_NSTAMPS; k++) {
			double a = cJSON_GetNumberValue(cJSON_GetArrayItem(st, k - 1)),
			       b = cJSON_GetNumberValue(cJSON_GetArrayItem(st, k));

			if (!(b > a))
				fail_msg("event %.0f: stamp %d (%.0f) not after stamp %d (%.0f)",
					 cJSON_GetNumberValue(cJSON_GetObjectItem(r, "id")), k, b,
					 k - 1, a);
		}
		for (int k = 1; k < IL_NHOPS; k++) {
			const char *name = thread_name_of(
			    threads, cJSON_GetNumberValue(cJSON_GetArrayItem(ti, k)));

			assert_non_null(name);
			assert_string_equal(name, il_chain_hop_to(il_chain_hop(k)));
		}
		/* The flip is learned on the drm thread. */
		assert_string_equal(
		    thread_name_of(threads, cJSON_GetNumberValue(cJSON_GetArrayItem(ti, 12))),
		    "viz:drm");
		cJSON_Delete(r);
		nrec++;
	}
	fclose(f);
	/* 200 measured mouse-downs after the 10 warm-up ones, all recorded. */
	assert_int_equal(nrec, 210);
	check_wakes(root, 210);
	cJSON_Delete(root);
	free(res);
	assert_int_equal(il_test_count_project_procs(), 0);
}

/*
 * The fastest pace the CLI allows puts about 100 clicks in one 16.7 ms
 * frame: viz-sim held 64 waiting for a flip and dropped the rest, which
 * the run reported as timed out (1110 of 3000). None may be lost now,
 * and the report says how deep the backlog went.
 */
static void test_chain_fastest_pace_loses_nothing(void **state)
{
	char json[300];
	char *argv[] = {il_test_suite.inputlat, "run", "--events", "3000", "--warmup", "0",
			"--interval-ms", "0.1", "--work", "none", "--attribution", "off",
			/* Loss is what this checks, not latency on a loaded machine. */
			"--timeout-ms", "20000", "--json", json, NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root, *viz, *pending;

	snprintf(json, sizeof(json), "%s/fast.json", il_test_suite.tmpdir);
	assert_int_equal(il_test_run(argv, 90000, res), 0);
	assert_int_equal(res->exit_code, 0);
	root = il_test_json_load(json);
	assert_int_equal(il_test_json_num(cJSON_GetObjectItem(root, "events"), "completed"), 3000);
	assert_int_equal(il_test_json_num(cJSON_GetObjectItem(root, "events"), "dropped_in_chain"),
			 0);
	viz = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "processes"), "viz-sim");
	pending = cJSON_GetObjectItem(cJSON_GetObjectItem(viz, "queues"), "pending_flips");
	assert_int_equal(il_test_json_num(pending, "dropped"), 0);
	/* The case was met: more waited for one flip than the old table held. */
	if (il_test_json_num(pending, "max_depth") <= 64)
		fail_msg("at most %.0f clicks waited for one flip: the pace never exceeded 64 a "
			 "frame (mean spacing %.3f ms)",
			 il_test_json_num(pending, "max_depth"),
			 il_test_json_num(cJSON_GetObjectItem(root, "events"), "mean_spacing_ms"));
	cJSON_Delete(root);
	free(res);
	assert_int_equal(il_test_count_project_procs(), 0);
}

static void test_chain_kill_render(void **state)
{
	char out[300], err[300], buf[4096];
	char *argv[] = {il_test_suite.inputlat, "run", "--events", "100000", NULL};
	struct il_test_chain c;
	struct il_test_others_mark mark;
	double t_kill, took, others;
	int status;

	snprintf(out, sizeof(out), "%s/kill.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/kill.err", il_test_suite.tmpdir);
	/* Wait for the chain to be up and events to flow, then kill the renderer mid-run. */
	il_test_chain_assert_up(&c, il_test_chain_start(&c, argv, out, err, START_TIMEOUT_MS));
	assert_true(il_test_chain_wait_events(&c, 10, EVENTS_TIMEOUT_MS));
	il_test_others_mark(&mark);
	t_kill = il_test_now_s();
	kill(c.kids[IL_PROC_RENDER], SIGKILL);
	status = il_test_chain_wait(&c, IL_TEST_HANG_MS);
	took = il_test_now_s() - t_kill;
	others = il_test_others_since(&mark);
	il_test_assert_exited(status, 1, il_test_chain_stderr(&c, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "render-sim"));
	assert_true(il_test_chain_gone(&c, 2000));
	assert_int_equal(il_test_count_project_procs(), 0);
	/* Last: on a busy machine a late exit skips the case (test_faults.c says why). */
	il_test_assert_prompt("the exit after render-sim's kill", (uint64_t)(took * 1e9),
			      2000000000ull, others);
}

static void test_chain_sigint_writes_outputs(void **state)
{
	char out[300], err[300], json[300], buf[4096];
	char *argv[] = {il_test_suite.inputlat, "run", "--events", "100000", "--json", json, NULL};
	struct il_test_chain c;
	cJSON *root;

	snprintf(out, sizeof(out), "%s/int.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/int.err", il_test_suite.tmpdir);
	snprintf(json, sizeof(json), "%s/int.json", il_test_suite.tmpdir);
	il_test_chain_assert_up(&c, il_test_chain_start(&c, argv, out, err, START_TIMEOUT_MS));
	/* Events through the chain, the first presented: the report has them. */
	assert_true(il_test_chain_wait_events(&c, 10, EVENTS_TIMEOUT_MS));
	kill(c.pid, SIGINT);
	il_test_assert_exited(il_test_chain_wait(&c, IL_TEST_HANG_MS), 0,
			      il_test_chain_stderr(&c, buf, sizeof(buf)));
	root = il_test_json_load(json);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "interrupted")));
	assert_int_equal((int)il_test_json_num(root, "exit_code"), 0);
	assert_true(cJSON_GetNumberValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "completed")) > 0);
	cJSON_Delete(root);
	il_test_read_file(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "completed"));
	assert_true(il_test_chain_gone(&c, 2000));
	assert_int_equal(il_test_count_project_procs(), 0);
}

/*
 * Stopped before any measured event came back (the warm-up takes 10 s
 * here): one line says the run measured nothing, exit 1, and the outputs
 * say they were cut short (the records' last line, the trace's otherData,
 * the report's error).
 */
static void test_chain_sigterm_before_any_event(void **state)
{
	char out[300], err[300], json[300], rec[300], trace[300], buf[8192], *last;
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--events",
			"100",
			"--interval-ms",
			"1000",
			"--json",
			json,
			"--records",
			rec,
			"--trace",
			trace,
			NULL};
	struct il_test_chain c;
	cJSON *root;
	int st;

	snprintf(out, sizeof(out), "%s/early.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/early.err", il_test_suite.tmpdir);
	snprintf(json, sizeof(json), "%s/early.json", il_test_suite.tmpdir);
	snprintf(rec, sizeof(rec), "%s/early.rec", il_test_suite.tmpdir);
	snprintf(trace, sizeof(trace), "%s/early.trace", il_test_suite.tmpdir);
	il_test_chain_assert_up(&c, il_test_chain_start(&c, argv, out, err, START_TIMEOUT_MS));
	kill(c.pid, SIGTERM);
	st = il_test_chain_wait(&c, IL_TEST_HANG_MS);
	il_test_assert_exited(st, 1, il_test_chain_stderr(&c, buf, sizeof(buf)));
	last = strstr(buf, "inputlat: interrupted before any event completed: the run measured "
			   "nothing\n");
	if (!last || strchr(last, '\n')[1])
		fail_msg("want the last line to say the run measured nothing:\n%s", buf);
	root = il_test_json_load(json);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "interrupted")));
	assert_int_equal((int)il_test_json_num(root, "exit_code"), 1);
	assert_string_equal(il_test_json_str(root, "error"),
			    "interrupted before any event completed: the run measured nothing");
	cJSON_Delete(root);
	assert_true(il_test_read_file(rec, buf, sizeof(buf)) > 0);
	last = strrchr(buf, '{');
	assert_non_null(last);
	assert_string_equal(last, "{\"interrupted\":true,\"completed\":0,\"error\":\"interrupted "
				  "before any event completed\"}\n");
	assert_true(il_test_read_file(trace, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"mouse_downs\":0,"));
	assert_non_null(strstr(buf, ",\"interrupted\":true,"));
	assert_true(il_test_chain_gone(&c, 2000));
	assert_int_equal(il_test_count_project_procs(), 0);
}

struct bad_cli {
	const char *args[6];
	const char *expect; /* the option named in the one line */
};

static void test_chain_bad_cli(void **state)
{
	static const struct bad_cli cases[] = {
	    {{"--events", "abc"}, "--events"},
	    {{"--events", "-5"}, "--events"},
	    {{"--interval-ms", "0"}, "--interval-ms"},
	    {{"--timeout-ms", "1x"}, "--timeout-ms"},
	    {{"--work", "nope=5"}, "--work"},
	    {{"--work", "ui=abc"}, "--work"},
	    {{"--bogus"}, "--bogus"},
	    {{"--hog-mode", "lazy"}, "--hog-mode"},
	    {{"--input", "mouse"}, "--input"},
	    {{"--present", "vga"}, "--present"},
	    {{"--lock", "spin"}, "--lock"},
	    {{"--events"}, "--events"},
	};
	struct il_test_result *res = malloc(sizeof(*res));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[10] = {il_test_suite.inputlat, "run"};
		int n = 2;

		for (int j = 0; cases[i].args[j]; j++)
			argv[n++] = (char *)cases[i].args[j];
		argv[n] = NULL;
		assert_int_equal(il_test_run(argv, 10000, res), 0);
		/* Exactly one line on stderr, naming the option. */
		il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2, cases[i].expect,
					     NULL);
	}
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_chain_end_to_end, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_chain_fastest_pace_loses_nothing, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_chain_kill_render, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_chain_sigint_writes_outputs, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_chain_sigterm_before_any_event, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_chain_bad_cli, il_test_proc_teardown),
	};
	if (il_test_filters("test_chain", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_suite_setup, il_test_suite_teardown);
}
