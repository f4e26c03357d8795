/* End to end: the orchestrator and its three children, as a user runs them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_msg.h"
#include "il_test_proc.h"

static char tmpdir[256];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/il-test-chain.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static cJSON *load_json(const char *path)
{
	static char buf[1 << 22];
	ssize_t n = il_test_read_file(path, buf, sizeof(buf));

	assert_true(n > 0);
	return cJSON_Parse(buf);
}

static const char *thread_name_of(cJSON *threads, double tid)
{
	cJSON *t;

	cJSON_ArrayForEach(t, threads)
		if (cJSON_GetNumberValue(cJSON_GetObjectItem(t, "tid")) == tid)
			return cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
	return NULL;
}

static void test_chain_end_to_end(void **state)
{
	char json[300], records[300], line[8192];
	char *argv[] = { (char *)il_test_build_path("inputlat"), "run", "--events", "200",
			 "--interval-ms", "10", "--json", json, "--records", records, NULL };
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root, *threads, *t, *hops;
	double pids[3] = { 0 };
	int npids = 0, nrec = 0;
	FILE *f;

	snprintf(json, sizeof(json), "%s/run.json", tmpdir);
	snprintf(records, sizeof(records), "%s/records.jsonl", tmpdir);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	assert_int_equal(res->exit_code, 0);
	assert_non_null(strstr(res->out, "completed 200"));

	root = load_json(json);
	assert_non_null(root);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "completed")), 200);
	hops = cJSON_GetObjectItem(root, "hops");
	assert_int_equal(cJSON_GetArraySize(hops), IL_NHOPS);
	threads = cJSON_GetObjectItem(root, "threads");

	/* Three distinct child processes host the ten pipeline threads. */
	cJSON_ArrayForEach(t, threads) {
		const char *proc = cJSON_GetStringValue(cJSON_GetObjectItem(t, "process"));
		double pid = cJSON_GetNumberValue(cJSON_GetObjectItem(t, "pid"));
		int seen = 0;

		if (strcmp(proc, "browser-sim") && strcmp(proc, "render-sim") && strcmp(proc, "viz-sim"))
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
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(r, "state")), "completed");
		st = cJSON_GetObjectItem(r, "stamp_ns");
		ti = cJSON_GetObjectItem(r, "tid");
		assert_int_equal(cJSON_GetArraySize(st), IL_NSTAMPS);
		for (int k = 1; k < IL_NSTAMPS; k++)
			assert_true(cJSON_GetNumberValue(cJSON_GetArrayItem(st, k)) >
				    cJSON_GetNumberValue(cJSON_GetArrayItem(st, k - 1)));
		for (int k = 1; k < IL_NHOPS; k++) {
			const char *name = thread_name_of(threads, cJSON_GetNumberValue(cJSON_GetArrayItem(ti, k)));

			assert_non_null(name);
			assert_string_equal(name, il_chain_hop_to(il_chain_hop(k)));
		}
		/* The flip is learned on the drm thread. */
		assert_string_equal(thread_name_of(threads, cJSON_GetNumberValue(cJSON_GetArrayItem(ti, 12))),
				    "viz:drm");
		cJSON_Delete(r);
		nrec++;
	}
	fclose(f);
	/* 200 measured mouse-downs after the 10 warm-up ones, all recorded. */
	assert_int_equal(nrec, 210);
	cJSON_Delete(root);
	free(res);
	assert_int_equal(il_test_count_project_procs(), 0);
}

static void test_chain_kill_render(void **state)
{
	char out[300], err[300], buf[4096];
	char *argv[] = { (char *)il_test_build_path("inputlat"), "run", "--events", "100000", NULL };
	pid_t pid, render = 0;
	double elapsed;
	int status;

	snprintf(out, sizeof(out), "%s/kill.out", tmpdir);
	snprintf(err, sizeof(err), "%s/kill.err", tmpdir);
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	/* Wait for the chain to be up, then kill the renderer mid-run. */
	for (int i = 0; i < 100 && !render; i++) {
		usleep(50000);
		render = il_test_find_child(pid, "render-sim");
	}
	assert_true(render > 0);
	usleep(500000);
	kill(render, SIGKILL);
	status = il_test_wait(pid, 5000, &elapsed);
	assert_true(status >= 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_true(elapsed < 2.0);
	il_test_read_file(err, buf, sizeof(buf));
	assert_non_null(strstr(buf, "render-sim"));
	usleep(100000);
	assert_int_equal(il_test_count_project_procs(), 0);
}

static void test_chain_sigint_writes_outputs(void **state)
{
	char out[300], err[300], json[300], buf[4096];
	char *argv[] = { (char *)il_test_build_path("inputlat"), "run", "--events", "100000", "--json", json, NULL };
	pid_t pid, viz = 0;
	int status;
	cJSON *root;

	snprintf(out, sizeof(out), "%s/int.out", tmpdir);
	snprintf(err, sizeof(err), "%s/int.err", tmpdir);
	snprintf(json, sizeof(json), "%s/int.json", tmpdir);
	pid = il_test_spawn(argv, out, err);
	for (int i = 0; i < 100 && !viz; i++) {
		usleep(50000);
		viz = il_test_find_child(pid, "viz-sim");
	}
	assert_true(viz > 0);
	usleep(800000);
	kill(pid, SIGINT);
	status = il_test_wait(pid, 5000, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	root = load_json(json);
	assert_non_null(root);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "interrupted")));
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "completed")) > 0);
	cJSON_Delete(root);
	il_test_read_file(out, buf, sizeof(buf));
	assert_non_null(strstr(buf, "completed"));
	assert_int_equal(il_test_count_project_procs(), 0);
}

struct bad_cli {
	const char *args[6];
	const char *expect; /* the option named in the one line */
};

static void test_chain_bad_cli(void **state)
{
	static const struct bad_cli cases[] = {
		{ { "--events", "abc" }, "--events" },
		{ { "--events", "-5" }, "--events" },
		{ { "--interval-ms", "0" }, "--interval-ms" },
		{ { "--timeout-ms", "1x" }, "--timeout-ms" },
		{ { "--work", "nope=5" }, "--work" },
		{ { "--work", "ui=abc" }, "--work" },
		{ { "--bogus" }, "--bogus" },
		{ { "--hog-mode", "lazy" }, "--hog-mode" },
		{ { "--input", "mouse" }, "--input" },
		{ { "--present", "vga" }, "--present" },
		{ { "--lock", "spin" }, "--lock" },
		{ { "--events" }, "--events" },
	};
	struct il_test_result *res = malloc(sizeof(*res));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[10] = { (char *)il_test_build_path("inputlat"), "run" };
		int n = 2;

		for (int j = 0; cases[i].args[j]; j++)
			argv[n++] = (char *)cases[i].args[j];
		argv[n] = NULL;
		assert_int_equal(il_test_run(argv, 10000, res), 0);
		assert_int_equal(res->exit_code, 2);
		/* Exactly one line on stderr, naming the option. */
		assert_non_null(strstr(res->err, cases[i].expect));
		assert_non_null(strchr(res->err, '\n'));
		assert_null(strchr(strchr(res->err, '\n') + 1, '\n'));
		assert_string_equal(res->out, "");
	}
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_end_to_end),
		cmocka_unit_test(test_chain_kill_render),
		cmocka_unit_test(test_chain_sigint_writes_outputs),
		cmocka_unit_test(test_chain_bad_cli),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
