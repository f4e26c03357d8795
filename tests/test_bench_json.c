/*
 * What a benchmark's JSON records of itself: bench/rss-events --counts
 * 5,10 ran both counts and recorded "--counts 5" as its command (it
 * tokenised argv in place before joining it), so its JSON named a run
 * that would do something else. The rows are the counts asked, each run
 * complete, each peak a process's measured one.
 */
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* Built in every configuration: missing is a failure, not a skip. */
	assert_int_equal(access(bench, X_OK), 0);
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

/*
 * A bench SIGKILLed mid-run left its inputlat run going on alone (to the
 * run's own end: minutes at rss-events' larger counts). The runs a bench
 * starts carry IL_RUN_PARENT and stop, as by SIGTERM, when it dies.
 */
static void test_bench_json_killed_bench_stops_its_run(void **state)
{
	char bench[PATH_MAX], out[256], err[256], dir[256];
	/* Its outputs in a directory of ours: a bench killed outright cannot
	 * remove its own (its /tmp/il-rss-events.* stayed after each run). */
	char *argv[] = {bench, "--counts", "100000", "--dir", dir, NULL};
	pid_t pid, run = 0;
	int left = 1;

	(void)state;
	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/rss-events"));
	/* Built in every configuration: missing is a failure, not a skip. */
	assert_int_equal(access(bench, X_OK), 0);
	assert_int_equal(il_test_tmpfile_make(out, sizeof(out), "rss-events-kill-out"), 0);
	assert_int_equal(il_test_tmpfile_make(err, sizeof(err), "rss-events-kill-err"), 0);
	assert_int_equal(il_test_tmpdir_make(dir, sizeof(dir), "rss-events-kill-dir"), 0);
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	for (int i = 0; i < 200 && !run; i++) {
		usleep(50000);
		run = il_test_find_child(pid, "inputlat");
	}
	assert_true(run > 0);
	usleep(500000); /* the run is up and measuring */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/*
	 * Gone, or a zombie: this VM's PID 1 reaps orphans late. Within 30 s,
	 * not 5: the run stops by writing what it has (its trace, records and
	 * report, synced), and beside the CI's VM image build, writing
	 * hundreds of MB, that took over 5 s once; left to its own end it
	 * would run for half an hour.
	 */
	double t0 = il_test_now_s();

	for (int i = 0; i < 600 && left; i++) {
		usleep(50000);
		left = il_test_proc_alive(run, "inputlat");
	}
	if (left)
		kill(run, SIGKILL);
	print_message("the run %d of the killed bench: %s after %.1f s\n", run,
		      left ? "still there (killed now)" : "stopped", il_test_now_s() - t0);
	assert_int_equal(il_test_tmpdir_remove(dir), 0);
	assert_false(left);
}

/*
 * bench/bpf-floor runs any command: SIGKILLed, it left that command going
 * on alone (an inputlat run to its own end, knobs changed). The command
 * now gets SIGTERM when bpf-floor dies (PR_SET_PDEATHSIG) and
 * IL_RUN_PARENT=bpf-floor's pid, which an inputlat run stops by.
 */
static void test_bench_json_killed_bpf_floor_stops_its_command(void **state)
{
	char bench[PATH_MAX], out[256], err[256], text[4096], path[64], want[64];
	char *argv[] = {bench, "--", "sleep", "30", NULL};
	pid_t pid, cmd = 0;
	ssize_t n;
	int left = 1, status;

	(void)state;
	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/bpf-floor"));
	IL_TEST_NEED(IL_TEST_ATTRIB_BPF, "%s is not built (no BPF tools)", bench);
	IL_TEST_NEED_ROOT("bench/bpf-floor's BPF programs");
	assert_int_equal(il_test_tmpfile_make(out, sizeof(out), "bpf-floor-kill-out"), 0);
	assert_int_equal(il_test_tmpfile_make(err, sizeof(err), "bpf-floor-kill-err"), 0);
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	for (int i = 0; i < 200 && !cmd; i++) {
		usleep(25000);
		cmd = il_test_find_child(pid, "sleep");
		/* Gone before its command: it could not load or attach here. */
		if (!cmd && waitpid(pid, &status, WNOHANG) == pid) {
			il_test_read_file(err, text, sizeof(text));
			IL_TEST_SKIP("bench/bpf-floor ran no command here (status %#x): %s", status,
				     text);
		}
	}
	if (!cmd) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("bpf-floor started no command in 5 s");
	}
	/* The command's own environment names bpf-floor. All of it: the
	 * variable comes last, and a CI's environment runs past 4 KiB. */
	static char environ_text[1 << 20];

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)cmd);
	snprintf(want, sizeof(want), "IL_RUN_PARENT=%d", (int)pid);
	/* Empty for a moment after its name is "sleep": exec names the task
	 * (begin_new_exec) before it lays out the new environment
	 * (create_elf_tables), and /proc reads nothing in between. */
	n = 0;
	for (int i = 0; i < 200 && n <= 0; i++) {
		if (i)
			usleep(10000);
		n = il_test_read_file(path, environ_text, sizeof(environ_text));
	}
	bool named = false;
	for (ssize_t off = 0; off < n; off += (ssize_t)strlen(environ_text + off) + 1)
		named = named || !strcmp(environ_text + off, want);

	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* Gone, or a zombie, within 2 s. */
	for (int i = 0; i < 40 && left; i++) {
		usleep(50000);
		left = il_test_proc_alive(cmd, "sleep");
	}
	if (left)
		kill(cmd, SIGKILL);
	print_message("the command %d of the killed bpf-floor: %s\n", cmd,
		      left ? "still there after 2 s (killed now)" : "stopped");
	assert_false(left);
	if (!named)
		fail_msg("the command's environment (%zd bytes read) has no %s", n, want);
}

/*
 * bench/bpf-floor -- sh -c "inputlat run ...": the run, sh's child, got
 * IL_RUN_PARENT=bpf-floor's pid, not its parent's, and said only
 * "IL_RUN_PARENT=N is not this run's parent (M)": a variable the user
 * never set, and no way out. The line names both processes and the way to
 * a tied run; with sh -c "exec inputlat run ..." the run is bpf-floor's
 * child and says nothing. (The runs stop at their --json, before anything
 * changes on the machine.)
 */
static void test_bench_json_bpf_floor_sh_run_untied_said(void **state)
{
	/* Static: a need_*() or IL_TEST_SKIP below returns past any free(). */
	static struct il_test_result res_buf;
	struct il_test_result *res = &res_buf;
	char bench[PATH_MAX], cmd[PATH_MAX + 128];
	char *argv[] = {bench, "--", "sh", "-c", cmd, NULL};
	const char *l;

	(void)state;
	assert_non_null(res);
	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/bpf-floor"));
	IL_TEST_NEED(access(bench, X_OK) == 0, "%s is not built (no BPF tools)", bench);
	IL_TEST_NEED_ROOT("bench/bpf-floor's BPF programs");
	snprintf(cmd, sizeof(cmd), "'%s' run --events 5 --json /nonexistent-il/x.json; exit 0",
		 il_test_build_path("inputlat"));
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	if (res->exit_code != 0 && !strstr(res->err, "inputlat run:"))
		IL_TEST_SKIP("bench/bpf-floor ran no command here: %s", res->err);
	l = strstr(res->err, "inputlat run: IL_RUN_PARENT=");
	if (!l || !strstr(l, " (bpf-floor) is not this run's parent (") ||
	    !strstr(l, ", sh): the run is not tied to it (have ") ||
	    !strstr(l, " start inputlat itself, or the command between them exec it: sh -c "
		       "'exec inputlat run ...')\n"))
		fail_msg("want the untied run's line naming bpf-floor and sh, got: %s", res->err);
	snprintf(cmd, sizeof(cmd), "exec '%s' run --events 5 --json /nonexistent-il/x.json",
		 il_test_build_path("inputlat"));
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	assert_null(strstr(res->err, "IL_RUN_PARENT"));
	assert_non_null(strstr(res->err, "--json /nonexistent-il/x.json: directory"));
}

/*
 * Every benchmark's stdout must arrive: 'hop-floor --samples 100 --prim
 * eventfd > /dev/full' exited 0 with its table lost. Each one, on a
 * quick command that prints to stdout, says so in one line and exits 1.
 */
static void test_bench_json_stdout_full(void **state)
{
	static const struct {
		const char *prog, *args[8];
		bool root; /* BPF */
	} cases[] = {
	    {"hop-floor", {"--samples", "100", "--prim", "eventfd"}, false},
	    {"hop-cost", {"loop", "100"}, false},
	    {"bpf-floor", {"--", "true"}, true},
	    {"lock-bench", {"--help"}, false},
	    {"overhead", {"--help"}, false},
	    {"rss-events", {"--help"}, false},
	    {"js-engines", {"--help"}, false},
	    {"attrib-overhead", {"--help"}, false},
	};
	char bench[PATH_MAX], err[256], text[4096], want[128];
	int ran = 0;

	(void)state;
	assert_int_equal(il_test_tmpfile_make(err, sizeof(err), "bench-stdout-err"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[12];
		int n = 0, status;

		if (!strcmp(cases[i].prog, "attrib-overhead")) {
			const char *src = getenv("IL_SOURCE_DIR");

			snprintf(bench, sizeof(bench), "%s/bench/attrib-overhead",
				 src ? src : "/nonexistent");
		} else {
			char name[64];

			snprintf(name, sizeof(name), "bench/%s", cases[i].prog);
			snprintf(bench, sizeof(bench), "%s", il_test_build_path(name));
		}
		/* Not built in this configuration (no spin/, no BPF tools), or
		 * needs root: said, not checked. A bench the build should have
		 * made and did not fails below (exec fails, exit 127). */
		if ((!strcmp(cases[i].prog, "lock-bench") && !IL_TEST_WITH_SPIN) ||
		    (!strcmp(cases[i].prog, "bpf-floor") && !IL_TEST_ATTRIB_BPF) ||
		    /* built only where duktape-dev is installed (bench/js-engines.cmake) */
		    (!strcmp(cases[i].prog, "js-engines") && access(bench, X_OK) != 0) ||
		    (cases[i].root && geteuid() != 0)) {
			print_message("%s: not built here, or needs root: not checked\n",
				      cases[i].prog);
			continue;
		}
		argv[n++] = bench;
		for (int k = 0; cases[i].args[k]; k++)
			argv[n++] = (char *)cases[i].args[k];
		argv[n] = NULL;
		status = il_test_wait(il_test_spawn(argv, "/dev/full", err), 60000, NULL);
		il_test_read_file(err, text, sizeof(text));
		snprintf(want, sizeof(want), "%s: writing stdout: No space left on device\n",
			 cases[i].prog);
		if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 1 ||
		    strcmp(text, want) != 0)
			fail_msg("%s > /dev/full: status %#x, stderr:\n%s", cases[i].prog, status,
				 text);
		ran++;
	}
	assert_true(ran >= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bench_json_rss_events_records_itself),
	    cmocka_unit_test(test_bench_json_killed_bench_stops_its_run),
	    cmocka_unit_test(test_bench_json_killed_bpf_floor_stops_its_command),
	    cmocka_unit_test(test_bench_json_bpf_floor_sh_run_untied_said),
	    cmocka_unit_test(test_bench_json_stdout_full),
	};
	if (il_test_filters("test_bench_json", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
