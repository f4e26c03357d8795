/*
 * Child faults (issue 8): each of the three chain processes in turn is
 * killed (SIGKILL), hung (SIGSTOP) or sends a garbage control frame. The
 * orchestrator must name the right child and the reason, exit 1 within
 * 2 s of the fault being detectable, still write its JSON report with
 * what it measured and an "error", and leave no process behind.
 *
 * Runs under the cfs policy: no root, no system knob. Only pids this file
 * started (inputlat and the chain it spawned) are ever signalled.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "il_test.h"
#include "il_test_proc.h"

/* Bounds on a hang, not expectations: a loaded machine may take long. */
#define START_TIMEOUT_MS  20000
#define EVENTS_TIMEOUT_MS 30000
/* The orchestrator pings every 250 ms and gives up after 1.5 s. */
#define HANG_LIMIT_S  2.5
#define FAULT_LIMIT_S 2.0
/* A death can race with the next write to the dead child: kill each several times. */
#define KILL_ROUNDS 5

/*
 * The report must exist, parse, count completed events and carry an error
 * naming child. t_sig_ns and exit_ns (CLOCK_MONOTONIC; NAN: no signal of
 * the test's) are when the test signalled the child and saw inputlat exit:
 * with the report's milestones they split a late exit into the death's
 * notice, the children's end, the outputs and what came after them.
 */
static void check_partial_json(const char *path, const char *child, const char *why,
			       double t_sig_ns, double exit_ns)
{
	cJSON *root = il_test_json_load(path);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
	double completed =
	    il_test_json_num(cJSON_GetObjectItemCaseSensitive(root, "events"), "completed");

	if (completed <= 0)
		fail_msg("%s: %s has no completed events", why, path);
	if (!cJSON_IsString(e) || !strstr(e->valuestring, child))
		fail_msg("%s: %s has no \"error\" naming %s", why, path, child);
	print_message("  %s: report has %.0f completed, error \"%s\"\n", why, completed,
		      e->valuestring);
	if (!isnan(t_sig_ns)) {
		/* Where a late exit went: the notice, the children's end, the
		 * outputs, or after them (the process's own exit). */
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "milestones_ns");
		double stop = il_test_json_num(m, "stop"),
		       ended = il_test_json_num(m, "children_exited"),
		       outs = il_test_json_num(m, "outputs_streamed");

		print_message("  %s: after the signal (ms): seen %.1f, children gone %.1f, outputs "
			      "%.1f, exit %.1f\n",
			      why, (stop - t_sig_ns) / 1e6, (ended - t_sig_ns) / 1e6,
			      (outs - t_sig_ns) / 1e6, (exit_ns - t_sig_ns) / 1e6);
		/* A failed run's milestones are there, in order, around the signal. */
		if (!(stop >= t_sig_ns && ended >= stop && outs >= ended && exit_ns >= outs))
			fail_msg("%s: milestones out of order: signal %.0f stop %.0f children %.0f "
				 "outputs %.0f exit %.0f",
				 why, t_sig_ns, stop, ended, outs, exit_ns);
	}
	cJSON_Delete(root);
}

static void assert_nothing_left(const struct il_test_chain *c, const char *why)
{
	if (!il_test_chain_gone(c, 2000))
		fail_msg("%s: a chain process is still there 2 s after inputlat ended", why);
	il_test_reap_orphans();
	if (il_test_count_project_procs() != 0)
		fail_msg("%s: %d project processes left", why, il_test_count_project_procs());
}

static void need_text(const char *text, const char *a, const char *b, const char *why)
{
	if (!strstr(text, a) || !strstr(text, b))
		fail_msg("%s: stderr does not name '%s' and '%s':\n%s", why, a, b, text);
}

/* --- SIGKILL and SIGSTOP ----------------------------------------------- */
/*
 * One fault of one round, the run given timeout_ms per event (--timeout-ms;
 * a stopped child is hung once silent 1.5 s, or that long when longer).
 * Returns whether the exit came within its bound
 * (il_test_prompt_verdict), the reason in late when it did not (the bound
 * cannot show while others keep the machine busy: under other tasks' CPU
 * load the reaping of a killed child was seen spinning for seconds in the
 * kernel, shrink_dcache_parent under release_task). Everything else is
 * checked first, whatever the time.
 */
static enum il_test_prompt signal_child(int child, int sig, int round, int timeout_ms, char *late,
					size_t late_len)
{
	char json[300], out[300], err[300], buf[65536], why[128], timeout[16], silent[64];
	char *argv[] = {il_test_suite.inputlat, "run", "--policy", "cfs", "--events", "10000",
			"--interval-ms", "1", "--timeout-ms", timeout, "--quiet", "--json", json,
			/* The stop's bound is the orchestrator's; attribution's
			 * teardown (BPF detach) is measured by test_attrib_run. */
			"--attribution", "off", NULL};
	const char *name = il_test_kid_name(child);
	struct il_test_chain c;
	struct il_test_others_mark mark;
	double t_sig, elapsed, others, longer_s;
	int status;

	snprintf(why, sizeof(why), "%s %s #%d", sig == SIGKILL ? "SIGKILL" : "SIGSTOP", name,
		 round);
	snprintf(timeout, sizeof(timeout), "%d", timeout_ms);
	/* The bound the run names, and how much later than 1.5 s it is. */
	snprintf(silent, sizeof(silent), "(no reply for %d ms)",
		 timeout_ms > 1500 ? timeout_ms : 1500);
	longer_s = timeout_ms > 1500 ? (timeout_ms - 1500) / 1000.0 : 0;
	snprintf(json, sizeof(json), "%s/%s-%d-%d.json", il_test_suite.tmpdir, name, sig, round);
	snprintf(out, sizeof(out), "%s/%s-%d-%d.out", il_test_suite.tmpdir, name, sig, round);
	snprintf(err, sizeof(err), "%s/%s-%d-%d.err", il_test_suite.tmpdir, name, sig, round);
	il_test_chain_assert_up(&c, il_test_chain_start(&c, argv, out, err, START_TIMEOUT_MS));
	/* Events through the chain (50 at 1 ms, three vblanks), so that the
	 * report has completed ones to show. */
	assert_true(il_test_chain_wait_events(&c, 50, EVENTS_TIMEOUT_MS));
	il_test_others_mark(&mark);
	t_sig = il_test_now_s();
	assert_int_equal(kill(c.kids[child], sig), 0);
	status = il_test_chain_wait(&c, IL_TEST_HANG_MS + (int)(longer_s * 1000));
	elapsed = il_test_now_s() - t_sig;
	others = il_test_others_since(&mark);
	il_test_chain_stderr(&c, buf, sizeof(buf));
	print_message("%s: inputlat ended %.2f s after the signal, status 0x%x: %s", why, elapsed,
		      status, buf);
	if (!(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 1))
		fail_msg("%s: inputlat status 0x%x, want exit 1", why, status);
	if (sig == SIGKILL) {
		need_text(buf, name, "died", why);
		need_text(buf, "signal 9", "died", why);
	} else {
		need_text(buf, name, "stopped answering", why);
		need_text(buf, silent, silent, why);
		/* Counted from the last ping it did not answer, which may have
		 * gone out just before the signal (it answers in microseconds). */
		if (elapsed < 1.5 + longer_s - 0.25)
			fail_msg("%s: called hung after %.2f s, before %s", why, elapsed, silent);
		/* The orchestrator must take the hung child down itself (the
		 * teardown ends a stopped child that is left). */
		if (!il_test_chain_gone(&c, 2000))
			fail_msg("%s: %s left after inputlat ended", why,
				 il_test_proc_alive(c.kids[child], name) ? "the stopped child was"
									 : "a chain process was");
	}
	check_partial_json(json, name, why, t_sig * 1e9, (t_sig + elapsed) * 1e9);
	assert_nothing_left(&c, why);
	snprintf(why + strlen(why), sizeof(why) - strlen(why), ": the exit after the %s",
		 sig == SIGKILL ? "kill" : "stop");
	return il_test_prompt_verdict(
	    why, (uint64_t)(elapsed * 1e9),
	    (uint64_t)((sig == SIGKILL ? FAULT_LIMIT_S : HANG_LIMIT_S + longer_s) * 1e9), others,
	    late, late_len);
}

/*
 * Judges the rounds of one case. A round late on a machine others did not
 * keep busy is looked at again once per case: in the suite under
 * stress-ng and its lanes (scripts/test --under-load, ASan pass), one kill
 * of 15 took 2.4 s while others held 47% of the CPUs, and 45 kills of the
 * same build under stress-ng alone all took 0.11-0.24 s. A late repeat,
 * or a second late round, fails the case; rounds late while the machine
 * was busy make it skip at the end, saying why.
 */
static void judge_rounds(int child, int sig, int rounds, int timeout_ms)
{
	char late[512] = "", first_late[512] = "";
	int n_busy = 0;

	for (int round = 1; round <= rounds; round++) {
		char why[512];
		enum il_test_prompt v =
		    signal_child(child, sig, round, timeout_ms, why, sizeof(why));

		if (v == IL_TEST_LATE && first_late[0])
			fail_msg("%s (and before it: %s)", why, first_late);
		if (v == IL_TEST_LATE) {
			snprintf(first_late, sizeof(first_late), "%s", why);
			print_message("%s; that round is done once more\n", why);
			round--; /* the same round again, under the same name */
			continue;
		}
		if (v == IL_TEST_LATE_BUSY) {
			snprintf(late, sizeof(late), "%s", why);
			n_busy++;
		}
	}
	if (n_busy)
		IL_TEST_SKIP("%d of %d rounds not judged; the last: %s", n_busy, rounds, late);
}

/*
 * test_faults_sigkill(browser-sim) once failed: the next mouse-down write
 * to browser-sim's input pipe failed with EPIPE before libuv delivered the
 * child's exit, and the run said "injecting mouse-down N: Broken pipe",
 * naming neither the child nor the signal. That race was lost in about
 * half of the kills at a 1 ms interval, hence several rounds per child.
 * A round whose exit was late on a busy machine does not end the case:
 * the others still run, and the case skips at the end, saying why.
 */
static void test_faults_sigkill(void **state)
{
	judge_rounds((int)(intptr_t)*state, SIGKILL, KILL_ROUNDS, 1000);
}

static void test_faults_sigstop(void **state)
{
	judge_rounds((int)(intptr_t)*state, SIGSTOP, 1, 1000);
}

/*
 * Given 4 s per event (--timeout-ms 4000), a stopped render-sim is called
 * hung after 4 s, not 1.5 s: under qemu TCG, with --timeout-ms 20000, a
 * child that was only slow was once called hung and the run stopped.
 */
static void test_faults_sigstop_timeout(void **state)
{
	(void)state;
	judge_rounds(IL_PROC_RENDER, SIGSTOP, 1, 4000);
}

/* --- a garbage control frame ------------------------------------------- */
static void test_faults_garbage(void **state)
{
	const char *name = il_test_kid_name((int)(intptr_t)*state);
	char json[300], why[128];
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			"cfs",
			"--test-garbage",
			(char *)name,
			"--events",
			"1000",
			"--quiet",
			"--json",
			json,
			NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	struct il_test_chain none = {.reaped = true};
	const cJSON *stop;
	double after_fault, others, exit_s;
	struct il_test_others_mark mark;
	char late[512];
	cJSON *root;

	assert_non_null(res);
	il_test_others_mark(&mark);
	snprintf(why, sizeof(why), "garbage frame to %s", name);
	snprintf(json, sizeof(json), "%s/%s-garbage.json", il_test_suite.tmpdir, name);
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	exit_s = il_test_now_s(); /* CLOCK_MONOTONIC, as the milestones */
	others = il_test_others_since(&mark);
	print_message("%s: exit %d after %.2f s: %s", why, res->exit_code, res->elapsed_s,
		      res->err);
	assert_false(res->timed_out);
	if (res->exit_code != 1)
		fail_msg("%s: exit %d (signal %d), want 1", why, res->exit_code, res->term_signal);
	need_text(res->err, name, "invalid frame", why);
	check_partial_json(json, name, why, NAN, NAN);
	/*
	 * The frame goes out 300 ms into the measurement, once an event of it
	 * completed (1000 events would take 20 s): the exit must follow it
	 * within the limit. Timed from when the run saw it (milestones_ns.stop,
	 * microseconds after it was sent), not from the command: the start-up
	 * and the wait for a completed event are the machine's pace.
	 */
	root = il_test_json_load(json);
	stop = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(root, "milestones_ns"), "stop");
	if (!cJSON_IsNumber(stop))
		fail_msg("%s: %s has no milestones_ns.stop", why, json);
	after_fault = exit_s - stop->valuedouble / 1e9;
	cJSON_Delete(root);
	print_message("  %s: exit %.2f s after the garbage frame\n", why, after_fault);
	assert_nothing_left(&none, why);
	/* The busy share over the whole command: the fault's own window is
	 * known only from the report. */
	snprintf(why + strlen(why), sizeof(why) - strlen(why), ": the exit after it");
	if (!il_test_prompt_judge(why, (uint64_t)(after_fault > 0 ? after_fault * 1e9 : 0),
				  (uint64_t)(FAULT_LIMIT_S * 1e9), others, late, sizeof(late))) {
		free(res);
		IL_TEST_SKIP("%s", late);
	}
	free(res);
}

/* --- a loop held up --------------------------------------------------- */
/*
 * Under load, test_faults_sigkill(render-sim) once got "render-sim stopped
 * answering" for a child it had killed: the orchestrator's loop was held
 * up, and the tick that followed judged the ping's age before the I/O of
 * the same turn (the exit, the other children's answers) was read. The
 * hook --test-stall holds the loop 2 s inside a tick, right after pinging
 * every child, killing CHILD meanwhile (or none): no child may be called
 * hung for answers the loop had not read, and a killed one dies.
 */
static void stall_run(const char *child, struct il_test_result *res, char *json, size_t len)
{
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			"cfs",
			"--test-stall",
			(char *)child,
			"--events",
			strcmp(child, "render-sim") == 0 ? "10000"
			: strcmp(child, "stop") == 0	 ? "30"
							 : "300",
			"--interval-ms",
			"5",
			"--quiet",
			"--json",
			json,
			"--attribution",
			"off",
			NULL};

	snprintf(json, len, "%s/stall-%s.json", il_test_suite.tmpdir, child);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	print_message("--test-stall %s: exit %d after %.2f s: %s", child, res->exit_code,
		      res->elapsed_s, res->err);
	assert_false(res->timed_out);
	if (strstr(res->err, "stopped answering"))
		fail_msg("--test-stall %s: a child called hung after the loop was held up:\n%s",
			 child, res->err);
}

static void test_faults_stall_none(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char json[300];
	cJSON *root, *ev;

	assert_non_null(res);
	stall_run("none", res, json, sizeof(json));
	if (res->exit_code != 0)
		fail_msg("--test-stall none: exit %d, want 0: %s", res->exit_code, res->err);
	root = il_test_json_load(json);
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "error"));
	ev = cJSON_GetObjectItemCaseSensitive(root, "events");
	assert_true(il_test_json_num(ev, "completed") > 0);
	/*
	 * The events in flight when the loop was held up were presented in
	 * time, in the chain, while the loop slept: their records wait to be
	 * read. Judged as of the tick's "now", they were written off (3 of
	 * 300) and their records came "late".
	 */
	if (il_test_json_num(ev, "late") != 0 || il_test_json_num(ev, "timed_out") != 0)
		fail_msg("--test-stall none: %.0f events timed out and %.0f records came late: the "
			 "loop's own 2 s hold was charged to the chain",
			 il_test_json_num(ev, "timed_out"), il_test_json_num(ev, "late"));
	cJSON_Delete(root);
	free(res);
}

static void test_faults_stall_kill(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char json[300];

	assert_non_null(res);
	stall_run("render-sim", res, json, sizeof(json));
	if (res->exit_code != 1)
		fail_msg("--test-stall render-sim: exit %d, want 1: %s", res->exit_code, res->err);
	need_text(res->err, "render-sim died", "signal 9", "--test-stall render-sim");
	check_partial_json(json, "render-sim", "--test-stall render-sim", NAN, NAN);
	free(res);
}

/*
 * The loop held up 2 s right after the stop is sent, past the stop's
 * 1.5 s bound: the children exit meanwhile, and their exits wait to be
 * read. Judged as of the tick's "now", all three were said not to have
 * exited and to be killed (CI once, a run beside a knob-holding one).
 */
static void test_faults_stall_at_stop(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char json[300];
	cJSON *root, *w, *missing;

	assert_non_null(res);
	stall_run("stop", res, json, sizeof(json));
	if (res->exit_code != 0 || strstr(res->err, "did not exit within"))
		fail_msg("--test-stall stop: exit %d, want 0 and no child called late: %s",
			 res->exit_code, res->err);
	root = il_test_json_load(json);
	w = cJSON_GetObjectItemCaseSensitive(root, "warnings");
	for (int i = 0; i < cJSON_GetArraySize(w); i++)
		if (strstr(cJSON_GetStringValue(cJSON_GetArrayItem(w, i)), "did not exit"))
			fail_msg("--test-stall stop: the report says '%s'",
				 cJSON_GetStringValue(cJSON_GetArrayItem(w, i)));
	/* Every child's figures came: none was killed before it sent them. */
	missing = cJSON_GetObjectItemCaseSensitive(root, "stats_missing");
	assert_true(cJSON_IsObject(missing));
	assert_int_equal(cJSON_GetArraySize(missing), 0);
	cJSON_Delete(root);
	free(res);
}

int main(void)
{
	static char names[3 * IL_TEST_NCHAIN][64];
	struct CMUnitTest tests[3 * IL_TEST_NCHAIN + 4];
	static const struct {
		const char *what;
		CMUnitTestFunction fn;
	} kinds[3] = {{"sigkill", test_faults_sigkill},
		      {"sigstop", test_faults_sigstop},
		      {"garbage", test_faults_garbage}};
	size_t n = 0;

	for (int c = 0; c < IL_TEST_NCHAIN; c++)
		for (int k = 0; k < 3; k++) {
			snprintf(names[n], sizeof(names[n]), "test_faults_%s(%s)", kinds[k].what,
				 il_test_kid_name(c));
			tests[n] = (struct CMUnitTest){names[n], kinds[k].fn, NULL,
						       il_test_proc_teardown, (void *)(intptr_t)c};
			n++;
		}
	tests[n++] = (struct CMUnitTest){"test_faults_stall_none", test_faults_stall_none, NULL,
					 il_test_proc_teardown, NULL};
	tests[n++] = (struct CMUnitTest){"test_faults_stall_kill", test_faults_stall_kill, NULL,
					 il_test_proc_teardown, NULL};
	tests[n++] = (struct CMUnitTest){"test_faults_stall_at_stop", test_faults_stall_at_stop,
					 NULL, il_test_proc_teardown, NULL};
	tests[n++] = (struct CMUnitTest){"test_faults_sigstop_timeout", test_faults_sigstop_timeout,
					 NULL, il_test_proc_teardown, NULL};
	if (il_test_filters("test_faults", tests, n) < 0)
		return 1;
	return _cmocka_run_group_tests("test_faults", tests, n, il_test_suite_setup,
				       il_test_suite_teardown);
}
