/*
 * `inputlat reproduce --quick --rounds 1` end to end (root, about 20 s): it
 * finishes, prints one verdict line per claim, and its --json has the keys
 * scripts read, and the system knobs are back afterwards. Which way the
 * verdicts go is the machine's business, not this test's. One round takes
 * every path three did: with up to 3, no claim can be judged (a comparison
 * needs 4 rounds of each to reach 0.05, a median's ends 5), so every claim
 * comes out "not testable"; the judged lines' checks below hold for
 * IL_TEST_ROUNDS=4 and more (about 70 s).
 * A hang-up (SIGHUP) mid-run ends it as Ctrl-C does, leaving nothing.
 *
 * Its runs change the knobs: the knob fixture (tests/lib/il_test_knobs.h)
 * keeps the suites that change them apart, waits while another run holds
 * them, and puts them back after the case.
 */
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

static char *slurp(FILE *f)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);

	assert_non_null(buf);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (cap - n < 1024) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[n] = '\0';
	return buf;
}

/* Rounds of each side: 1, or IL_TEST_ROUNDS (1..16) to take the judged paths. */
static int test_rounds(void)
{
	const char *e = getenv("IL_TEST_ROUNDS");
	int n = e ? atoi(e) : 1;

	return n >= 1 && n <= 16 ? n : 1;
}

static void test_reproduce_quick(void **state)
{
	char exe[4096], cmd[8192], json_path[256], why[400];
	int status, rounds;
	regex_t line_re, num_re;
	char *out, *text;
	cJSON *root, *claims;
	FILE *p, *f;

	IL_TEST_NEED_ROOT("changing scheduling classes and knobs for the claims");
	/* `reproduce` itself waits a minute for a run holding the knobs; the
	 * fixture's wait is longer and names the holder. */
	il_test_knobs_need_free();
	snprintf(exe, sizeof(exe), "%s", il_test_build_path("inputlat"));
	IL_TEST_NEED(access(exe, X_OK) == 0, "%s is not built", exe);
	assert_int_equal(il_test_tmpfile_make(json_path, sizeof(json_path), "reproduce"), 0);
	rounds = test_rounds();

	snprintf(cmd, sizeof(cmd), "'%s' reproduce --quick --rounds %d --json '%s'", exe, rounds,
		 json_path);
	p = popen(cmd, "r");
	assert_non_null(p);
	out = slurp(p);
	status = pclose(p);
	print_message("%s", out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* One line per claim: "claim N: VERDICT: title: figures ..." with
	 * at least one number among the figures. */
	assert_int_equal(
	    regcomp(&line_re,
		    "^claim ([1-4])( \\(chromeos arm\\))?: (holds|does not hold|inconclusive|not "
		    "testable): (.*)$",
		    REG_EXTENDED | REG_NEWLINE),
	    0);
	assert_int_equal(regcomp(&num_re, "[0-9]+(\\.[0-9]+)?", REG_EXTENDED), 0);
	int seen[5] = {0};
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		regmatch_t m[5];

		if (regexec(&line_re, l, 5, m, 0) != 0)
			continue;
		int id = l[m[1].rm_so] - '0';

		/* Claim 1's ChromeOS arm counts as claim 0 here. */
		seen[m[2].rm_so >= 0 ? 0 : id]++;
		/* Too few rounds to hold an error rate: no verdict either way. */
		if (rounds < 4)
			assert_int_equal(strncmp(l + m[3].rm_so, "not testable", 12), 0);
		if (strncmp(l + m[3].rm_so, "not testable", 12) != 0) {
			assert_int_equal(regexec(&num_re, l + m[4].rm_so, 0, NULL, 0), 0);
			/* Every verdict comes with its interval and the article's figure. */
			assert_non_null(strstr(l, "interval"));
			assert_non_null(strstr(l, "article: "));
		}
	}
	for (int i = 0; i <= 4; i++)
		assert_int_equal(seen[i], 1);
	regfree(&line_re);
	regfree(&num_re);
	free(out);

	f = fopen(json_path, "r");
	assert_non_null(f);
	text = slurp(f);
	fclose(f);
	unlink(json_path);
	root = cJSON_Parse(text);
	free(text);
	assert_non_null(root);
	assert_non_null(cJSON_GetObjectItem(root, "kernel"));
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(root, "rounds")));
	assert_int_equal(cJSON_GetObjectItem(root, "rounds")->valueint, rounds);
	assert_true(cJSON_IsString(cJSON_GetObjectItem(root, "start_time")));
	claims = cJSON_GetObjectItem(root, "claims");
	assert_int_equal(cJSON_GetArraySize(claims), 5);

	/* Claims in order: 1 (all-fifo arm), 1 (chromeos arm), 2, 3, 4. */
	static const int ids[5] = {1, 1, 2, 3, 4};
	static const char *const keys[5][12] = {
	    {"cfs_p50_us", "rt_p50_us", "cfs_p99_us", "rt_p99_us", "p50_ratio", "p99_ratio",
	     "p50_ratio_lo", "p50_ratio_hi", "reduction_pct", "article_reduction_pct", "runs",
	     "runs_work_off"},
	    {"chromeos_p50_us", "chromeos-rt_p50_us", "chromeos_p99_us", "chromeos-rt_p99_us",
	     "p50_ratio", "p99_ratio", "p50_ratio_lo", "p50_ratio_hi", "reduction_pct",
	     "article_reduction_pct", "runs", "runs_work_off"},
	    {"rt_canary_max_stall_ms", "cfs_canary_max_stall_ms", "rt_timed_out", "cfs_timed_out",
	     "rt_canary_max_stall_ms_lo", "stall_ratio"},
	    {"throttled_idle_waste_pct", "fair_server_idle_waste_pct", "waste_difference_pct"},
	    {"cfs_share_pct", "canary_max_stall_ms", "cfs_share_pct_lo", "cfs_share_pct_hi"},
	};
	for (int i = 0; i < 5; i++) {
		cJSON *c = cJSON_GetArrayItem(claims, i);
		const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
		cJSON *figs = cJSON_GetObjectItem(c, "figures");

		assert_int_equal(cJSON_GetObjectItem(c, "id")->valueint, ids[i]);
		assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "title")));
		assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "reason")));
		assert_non_null(verdict);
		assert_true(
		    strcmp(verdict, "holds") == 0 || strcmp(verdict, "does not hold") == 0 ||
		    strcmp(verdict, "inconclusive") == 0 || strcmp(verdict, "not testable") == 0);
		for (int k = 0; k < 12 && keys[i][k]; k++) {
			cJSON *v = cJSON_GetObjectItem(figs, keys[i][k]);

			assert_non_null(v);
			/* A claim that is judged has its figures and intervals;
			 * a p99 too few events carry is null, with its why. */
			if (i < 2 && strstr(keys[i][k], "p99") && cJSON_IsNull(v))
				assert_true(cJSON_IsString(cJSON_GetObjectItem(figs, "p99_why")));
			else if (strcmp(verdict, "not testable") != 0)
				assert_true(cJSON_IsNumber(v));
		}
	}
	/* Each arm of claim 1 holds exactly when the interval of its p50 ratio
	 * is below 1, does not hold exactly when it is above 1, and is
	 * inconclusive when it holds 1. */
	for (int i = 0; i < 2; i++) {
		cJSON *c1 = cJSON_GetArrayItem(claims, i);
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c1, "verdict"));
		cJSON *f = cJSON_GetObjectItem(c1, "figures");
		double runs = cJSON_GetNumberValue(cJSON_GetObjectItem(f, "runs"));
		double off = cJSON_GetNumberValue(cJSON_GetObjectItem(f, "runs_work_off"));

		/* Two sides of `rounds` rounds, no re-runs in --quick; the runs
		 * kept off their work are said in the line too. */
		assert_true(runs == 2 * rounds);
		assert_true(off >= 0 && off <= runs);
		assert_int_equal(off > 0,
				 strstr(cJSON_GetStringValue(cJSON_GetObjectItem(c1, "reason")),
					"handlers off the configured work") != NULL);

		assert_int_equal(
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItem(f, "article_reduction_pct")), 32);
		if (strcmp(v, "not testable") != 0) {
			double lo = cJSON_GetNumberValue(cJSON_GetObjectItem(f, "p50_ratio_lo"));
			double hi = cJSON_GetNumberValue(cJSON_GetObjectItem(f, "p50_ratio_hi"));

			assert_int_equal(strcmp(v, "holds") == 0, hi < 1);
			assert_int_equal(strcmp(v, "does not hold") == 0, lo > 1);
			assert_int_equal(strcmp(v, "inconclusive") == 0, lo <= 1 && hi >= 1);
		}
	}
	/* Claim 2 is about a JavaScript hog (a crypto miner): its hogs ran the
	 * miner, and the line says so (they ran a register loop, "busy"). */
	{
		cJSON *c2 = cJSON_GetArrayItem(claims, 2);
		cJSON *f = cJSON_GetObjectItem(c2, "figures");

		assert_string_equal(il_test_json_str(f, "hog_mode"), "js");
		assert_string_equal(il_test_json_str(f, "hog_script"), "miner.js");
		assert_non_null(strstr(il_test_json_str(f, "hog_engine"), "mujs"));
		if (strstr(il_test_json_str(c2, "reason"), "the canary's longest stall"))
			assert_non_null(strstr(il_test_json_str(c2, "reason"),
					       "with a JavaScript hog per CPU (miner.js in mujs"));
	}
	cJSON_Delete(root);

	/* Every knob is back where it was: now, or, if another run has taken
	 * them since, in the originals it saved. */
	if (il_test_knobs_wait_free(10000) && !il_test_knobs_back(0, why, sizeof(why)))
		fail_msg("after reproduce: %s", why);
}

/* How many run-report directories of reproduce /tmp holds now. */
static int reproduce_dirs(void)
{
	glob_t g;
	int n;

	if (glob("/tmp/inputlat-reproduce.*", GLOB_NOSORT, NULL, &g) != 0)
		return 0;
	n = (int)g.gl_pathc;
	globfree(&g);
	return n;
}

/*
 * Starts `inputlat reproduce --quick --rounds 1`, its output in out and
 * err, and waits until its first run is going (bounded: 20 s); returns its
 * pid, *run the run's.
 */
static pid_t reproduce_started(char *out, size_t outlen, char *err, size_t errlen, pid_t *run)
{
	static char exe[4096];
	char *argv[] = {exe, "reproduce", "--quick", "--rounds", "1", NULL};
	pid_t pid;

	IL_TEST_NEED_ROOT("changing scheduling classes and knobs for the claims");
	il_test_knobs_need_free();
	snprintf(exe, sizeof(exe), "%s", il_test_build_path("inputlat"));
	IL_TEST_NEED(access(exe, X_OK) == 0, "%s is not built", exe);
	assert_int_equal(il_test_tmpfile_make(out, outlen, "reproduce-out"), 0);
	assert_int_equal(il_test_tmpfile_make(err, errlen, "reproduce-err"), 0);
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	*run = 0;
	for (int i = 0; i < 1000 && !*run; i++) {
		*run = il_test_find_child(pid, "inputlat");
		if (!*run)
			usleep(20000);
	}
	assert_true(*run > 0);
	return pid;
}

/*
 * A closed terminal (SIGHUP), or Ctrl-backslash (SIGQUIT), ends reproduce
 * as Ctrl-C does: its run is stopped, its run reports go, and it says so
 * in one line. By default either ended it at once, the reports left in
 * /tmp and the run it was waiting for going on alone (outside the lock).
 */
static void stop_cleans_up(int sig, int leftovers)
{
	char out[256], err[256], why[400];
	static char text[1 << 16];
	int before = reproduce_dirs(), st;
	pid_t run, pid = reproduce_started(out, sizeof(out), err, sizeof(err), &run);
	double elapsed;

	/* Its own, and the directories killed ones left gone. */
	assert_int_equal(reproduce_dirs(), before - leftovers + 1);
	kill(pid, sig);
	st = il_test_wait(pid, 30000, &elapsed);
	il_test_read_file(err, text, sizeof(text));
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 1) {
		/* Not left going alone, whatever the failure. */
		kill(run, SIGTERM);
		il_test_procs_gone(&run, (const char *const[]){"inputlat"}, 1, 15000);
		fail_msg("reproduce after %s: status 0x%x (want exit 1): %s", strsignal(sig), st,
			 text);
	}
	print_message("%s: exit 1 after %.1f s: %s", strsignal(sig), elapsed, text);
	assert_non_null(strstr(text, "inputlat reproduce: interrupted, no verdicts\n"));
	assert_int_equal(reproduce_dirs(), before - leftovers);
	if (leftovers)
		assert_non_null(strstr(text, "the run reports of a reproduce that was killed\n"));
	assert_int_equal(il_test_count_project_procs(), 0);
	if (il_test_knobs_wait_free(10000) && !il_test_knobs_back(0, why, sizeof(why)))
		fail_msg("after reproduce: %s", why);
}

static void test_reproduce_hangup_cleans_up(void **state)
{
	(void)state;
	stop_cleans_up(SIGHUP, 0);
}

static void test_reproduce_quit_cleans_up(void **state)
{
	(void)state;
	stop_cleans_up(SIGQUIT, 0);
}

/* A directory of reproduce's name, made as reproduce makes one; owner: with .owner. */
static void plant_dir(char *dir, size_t len, int owner, int *fd)
{
	char f[128];
	int x;

	snprintf(dir, len, "/tmp/inputlat-reproduce.XXXXXX");
	assert_non_null(mkdtemp(dir));
	il_test_tmp_remember(dir); /* whichever way the test ends */
	snprintf(f, sizeof(f), "%s/cfs.0.json", dir);
	x = open(f, O_WRONLY | O_CREAT, 0600);
	assert_true(x >= 0);
	close(x);
	*fd = -1;
	if (owner) {
		snprintf(f, sizeof(f), "%s/.owner", dir);
		*fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		assert_true(*fd >= 0 && flock(*fd, LOCK_EX) == 0);
	}
}

/*
 * A reproduce killed outright (SIGKILL) has no chance to remove its run
 * reports' directory: the next reproduce removes it, and only it. One kept
 * on purpose (IL_REPRODUCE_KEEP: no .owner) and one a live reproduce holds
 * stay. Before, every killed reproduce left one in /tmp for good.
 */
static void test_reproduce_killed_leftovers_go(void **state)
{
	char out[256], err[256], kept[64], held[64], left[64] = "";
	int held_fd, kept_fd, st;
	pid_t pid, run;
	glob_t g;

	(void)state;
	plant_dir(kept, sizeof(kept), 0, &kept_fd);
	plant_dir(held, sizeof(held), 1, &held_fd);
	pid = reproduce_started(out, sizeof(out), err, sizeof(err), &run);
	kill(pid, SIGKILL);
	st = il_test_wait(pid, 30000, NULL);
	assert_true(st != -1 && WIFSIGNALED(st));
	/* Its run stops with it (IL_RUN_PARENT): it went on alone. */
	assert_true(il_test_procs_gone(&run, (const char *const[]){"inputlat"}, 1, 5000));
	if (glob("/tmp/inputlat-reproduce.*", GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (strcmp(g.gl_pathv[i], kept) && strcmp(g.gl_pathv[i], held))
				snprintf(left, sizeof(left), "%s", g.gl_pathv[i]);
		il_test_tmp_remember(left);
		globfree(&g);
	}
	/* The killed one's directory is there until the next reproduce. */
	assert_true(left[0] != '\0');
	print_message("left by the killed reproduce: %s\n", left);
	stop_cleans_up(SIGHUP, 1);
	assert_true(access(left, F_OK) != 0);
	assert_int_equal(access(kept, F_OK), 0);
	assert_int_equal(access(held, F_OK), 0);
	close(held_fd);
	assert_int_equal(il_test_tmpdir_remove(kept), 0);
	assert_int_equal(il_test_tmpdir_remove(held), 0);
}

/* Argument i of pid's command line into buf ("" when it has none). */
static void cmdline_arg(pid_t pid, int i, char *buf, size_t len)
{
	char path[64], text[4096];
	ssize_t n;
	int at = 0;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((n = il_test_read_file(path, text, sizeof(text) - 1)) <= 0)
		return;
	text[n] = '\0';
	for (char *p = text; p < text + n; p += strlen(p) + 1, at++)
		if (at == i) {
			size_t k = strnlen(p, len - 1);

			/* Cut at len, as snprintf would (which -Wformat-truncation
			 * flags under ASan's build). */
			memcpy(buf, p, k);
			buf[k] = '\0';
			return;
		}
}

/*
 * A reproduce killed outright (SIGKILL) mid-run: the run it started stops
 * as by SIGTERM within a couple of seconds, its report says interrupted,
 * and the knob rt set (sched_rt_runtime_us -1) is back. It went on alone,
 * knobs changed, until its own end.
 */
static void test_reproduce_killed_stops_its_run(void **state)
{
	char out[256], err[256], policy[64] = "", json[256] = "", dir[256], why[400];
	pid_t run = 0, pid;
	double t0;
	cJSON *report;

	(void)state;
	il_test_knobs_need_change("-1");
	pid = reproduce_started(out, sizeof(out), err, sizeof(err), &run);
	/* Claim 1's second run is rt's: its knob set, its events under way. */
	for (int i = 0; i < 6000; i++) {
		run = il_test_find_child(pid, "inputlat");
		cmdline_arg(run, 3, policy, sizeof(policy));
		if (run && strcmp(policy, "rt") == 0 &&
		    strcmp(il_test_knob(IL_TEST_RT_RUNTIME), "-1") == 0)
			break;
		run = 0;
		usleep(5000);
	}
	assert_true(run > 0);
	for (int i = 4; i < 48 && !json[0]; i++) {
		char a[256];

		cmdline_arg(run, i, a, sizeof(a));
		if (strcmp(a, "--json") == 0)
			cmdline_arg(run, i + 1, json, sizeof(json));
	}
	assert_true(json[0] != '\0');
	/* Its run reports' directory, which a killed reproduce leaves: ours to
	 * remove, whichever way the test ends. */
	snprintf(dir, sizeof(dir), "%s", json);
	*strrchr(dir, '/') = '\0';
	il_test_tmp_remember(dir);
	kill(pid, SIGKILL);
	assert_true(il_test_wait(pid, 30000, NULL) != -1);
	t0 = il_test_now_s();
	if (!il_test_procs_gone(&run, (const char *const[]){"inputlat"}, 1, 3000)) {
		kill(run, SIGTERM);
		il_test_procs_gone(&run, (const char *const[]){"inputlat"}, 1, 15000);
		fail_msg("the run of a SIGKILLed reproduce still ran 3 s later");
	}
	print_message("run gone %.2f s after reproduce's SIGKILL\n", il_test_now_s() - t0);
	il_test_reap_orphans();
	report = il_test_json_load(json);
	assert_non_null(report);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(report, "interrupted")));
	cJSON_Delete(report);
	assert_int_equal(il_test_tmpdir_remove(dir), 0);
	if (il_test_knobs_wait_free(10000) && !il_test_knobs_back(0, why, sizeof(why)))
		fail_msg("after the killed reproduce: %s", why);
}

/*
 * What `inputlat reproduce --quick` makes of the run reports a quick
 * reproduce recorded on the project's VM (tests/data/reproduce-quick,
 * their origin in its trim.py), judged again through IL_REPRODUCE_REPORTS:
 * no root, no runs, a second. *out is its stdout, *json its --json.
 */
static void recorded_dir(char *dir, size_t len)
{
	const char *src = getenv("IL_SOURCE_DIR");

	if (src) {
		snprintf(dir, len, "%s/tests/data/reproduce-quick", src);
	} else {
		snprintf(dir, len, "%s", __FILE__);
		snprintf(strrchr(dir, '/'), 40, "/data/reproduce-quick");
	}
}

/* ... with the reports of from (NULL: the recorded ones), exiting want. */
static void recorded_exit(const char *from, int want, char **out, cJSON **json)
{
	char exe[4096], dir[4096], cmd[12288], json_path[256];
	int status;
	FILE *p;

	snprintf(exe, sizeof(exe), "%s", il_test_build_path("inputlat"));
	IL_TEST_NEED(access(exe, X_OK) == 0, "%s is not built", exe);
	if (from)
		snprintf(dir, sizeof(dir), "%s", from);
	else
		recorded_dir(dir, sizeof(dir));
	assert_int_equal(il_test_tmpfile_make(json_path, sizeof(json_path), "reproduce"), 0);
	snprintf(cmd, sizeof(cmd),
		 "IL_REPRODUCE_REPORTS='%s' '%s' reproduce --quick --json '%s' </dev/null", dir,
		 exe, json_path);
	p = popen(cmd, "r");
	assert_non_null(p);
	*out = slurp(p);
	status = pclose(p);
	print_message("%s", *out);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), want);
	*json = il_test_json_load(json_path);
	unlink(json_path);
	assert_non_null(*json);
}

static void recorded_from(const char *from, char **out, cJSON **json)
{
	recorded_exit(from, 0, out, json);
}

static void recorded(char **out, cJSON **json)
{
	recorded_from(NULL, out, json);
}

/* One claim's line of out ("claim 2: ..."), NUL-terminated in a copy. */
static char *claim_line(const char *out, const char *prefix)
{
	static char line[4096];
	const char *l = strstr(out, prefix);

	assert_non_null(l);
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(l, "\n"), l);
	return line;
}

/* The figures of claims[i] in the --json. */
static cJSON *claim_figures(cJSON *json, int i)
{
	return cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(json, "claims"), i),
				   "figures");
}

/*
 * Judged again, the recorded reports give what that reproduce said, and
 * the output says that nothing was run now and when the runs were.
 */
static void test_reproduce_recorded(void **state)
{
	char *out;
	cJSON *json;

	(void)state;
	recorded(&out, &json);
	assert_non_null(strstr(out, "# judged from the recorded run reports in "));
	assert_non_null(strstr(out, "nothing run now\n"));
	assert_non_null(strstr(out, " 2 CPUs, 2026-12-07T08:53:17Z\n"));
	assert_non_null(strstr(claim_line(out, "claim 1: "),
			       "claim 1: holds: SCHED_FIFO pipeline vs CFS under background load: "
			       "processing p50 1986 us with rt vs 4330 us with cfs"));
	assert_non_null(strstr(claim_line(out, "claim 2: "), "950 ms"));
	assert_non_null(cJSON_GetObjectItem(json, "recorded_reports"));
	assert_true(
	    fabs(cJSON_GetNumberValue(cJSON_GetObjectItem(claim_figures(json, 0), "rt_p50_us")) -
		 1986.252277) < 1e-6);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(json, "claims")), 5);
	free(out);
	cJSON_Delete(json);
}

/*
 * Claim 1 with 60 events a round (--quick): no p99 figure, neither the
 * sides' nor their ratio, in the line or the JSON, only why. The probe saw
 * "p99 2851 vs 17107 us: ratio 0.17, not enough data: ..." and those
 * figures in the JSON: with 60 events a round's p99 is its maximum.
 */
static void test_reproduce_recorded_no_p99(void **state)
{
	char *out;
	cJSON *json;

	(void)state;
	recorded(&out, &json);
	for (int i = 0; i < 2; i++) {
		char *l = claim_line(out, i ? "claim 1 (chromeos arm): " : "claim 1: ");
		cJSON *f = claim_figures(json, i);
		static const char *const none[2][3] = {
		    {"cfs_p99_us", "rt_p99_us", "p99_ratio"},
		    {"chromeos_p99_us", "chromeos-rt_p99_us", "p99_ratio"}};

		assert_non_null(strstr(l, "; p99 not enough data: a p99 needs at least 500 events "
					  "in every round (fewest: 60); "));
		assert_null(strstr(l, " vs 17107 us"));
		assert_null(strstr(l, " vs 6382 us"));
		for (int k = 0; k < 3; k++)
			assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, none[i][k])));
		assert_string_equal(il_test_json_str(f, "p99_why"),
				    "not enough data: a p99 needs at least 500 events in every "
				    "round (fewest: 60)");
	}
	free(out);
	cJSON_Delete(json);
}

/*
 * Claim 4 against fair-server values the reports could not read (debugfs
 * locked down on the recording VM) says they are the kernel's defaults
 * assumed, and why, in the line and in the JSON; the probe saw
 * "runtime/period 5.0%" and the 1050 ms bound as if read, and the assumed
 * 5 as article_cfs_share_pct.
 */
static void test_reproduce_recorded_fair_server_assumed(void **state)
{
	char *out, *l;
	cJSON *json, *f;

	(void)state;
	recorded(&out, &json);
	l = claim_line(out, "claim 4: ");
	assert_non_null(strstr(l, "(runtime/period 5.0%, assumed: the kernel's defaults 50 ms / "
				  "1 s, its values unreadable here "
				  "(/sys/kernel/debug/sched/fair_server/cpu0: Operation not "
				  "permitted); holds within 3.0% to 8.0%;"));
	assert_non_null(
	    strstr(l, "(period - runtime 950 ms, assumed likewise, holds up to 1050 ms)"));
	f = claim_figures(json, 4);
	assert_string_equal(il_test_json_str(f, "fair_server_values"), "assumed");
	assert_non_null(strstr(il_test_json_str(f, "fair_server_why"), "Operation not permitted"));
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "runtime_period_pct")) == 5);
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "fair_server_runtime_ns")) == 50e6);
	free(out);
	cJSON_Delete(json);
}

/*
 * A copy of the recorded reports in a new directory (into tmp): each one
 * edit(base, report) changes is written anew, the rest are links.
 */
static void recorded_edited(char *tmp, size_t len, const char *tag,
			    bool (*edit)(const char *base, cJSON *rep))
{
	char src[4096], path[4400], to[4400];
	glob_t g;

	recorded_dir(src, sizeof(src));
	assert_int_equal(il_test_tmpdir_make(tmp, len, tag), 0);
	snprintf(path, sizeof(path), "%s/*.json", src);
	assert_int_equal(glob(path, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		cJSON *rep = il_test_json_load(g.gl_pathv[i]);
		char *text;

		assert_non_null(rep);
		snprintf(to, sizeof(to), "%s/%s", tmp, base);
		if (!edit(base, rep)) {
			assert_int_equal(symlink(g.gl_pathv[i], to), 0);
		} else {
			text = cJSON_PrintUnformatted(rep);
			il_test_write_file(to, text);
			free(text);
		}
		cJSON_Delete(rep);
	}
	globfree(&g);
}

/* Claim 4's reports with a readable fair server of 100 ms / 1 s. */
static bool fair_server_readable(const char *base, cJSON *rep)
{
	cJSON *fs;

	if (strncmp(base, "c4-", 3) != 0)
		return false;
	fs = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "kernel"), "fair_server");
	assert_non_null(fs);
	cJSON_ReplaceItemInObject(fs, "readable", cJSON_CreateTrue());
	cJSON_ReplaceItemInObject(fs, "runtime_ns", cJSON_CreateNumber(100e6));
	cJSON_ReplaceItemInObject(fs, "period_ns", cJSON_CreateNumber(1e9));
	cJSON_ReplaceItemInObject(fs, "why", cJSON_CreateNull());
	return true;
}

/* One report with a processing p50 no run writes. */
static bool p50_negative(const char *base, cJSON *rep)
{
	if (strcmp(base, "c1-cfs.0.json") != 0)
		return false;
	cJSON_ReplaceItemInObject(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "latency_us"), "processing"), "p50",
	    cJSON_CreateNumber(-5));
	return true;
}

/*
 * Where the reports have the fair server's values, claim 4 is judged
 * against them and says they were read: the recorded reports, with claim
 * 4's given a readable 100 ms / 1 s (made up here, for the read path
 * only; the other runs' reports are the recorded ones, linked).
 */
static void test_reproduce_recorded_fair_server_read(void **state)
{
	char tmp[256];
	char *out, *l;
	cJSON *json, *f;

	(void)state;
	recorded_edited(tmp, sizeof(tmp), "reproduce-fs", fair_server_readable);
	recorded_from(tmp, &out, &json);
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	l = claim_line(out, "claim 4: ");
	assert_non_null(strstr(l, "(runtime/period 10.0%, read from the kernel: 100 ms / 1000 ms; "
				  "holds within 6.0% to 16.0%;"));
	assert_non_null(strstr(l, "(period - runtime 900 ms, read, holds up to 1000 ms)"));
	assert_null(strstr(l, "assumed"));
	f = claim_figures(json, 4);
	assert_string_equal(il_test_json_str(f, "fair_server_values"), "read");
	assert_null(cJSON_GetObjectItem(f, "fair_server_why"));
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "runtime_period_pct")) == 10);
	/* The article's figure stays the article's. */
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "article_cfs_share_pct")) == 5);
	free(out);
	cJSON_Delete(json);
}

/* Claim 1's rt reports holding cfs runs (their policy field). */
static bool rt_holds_cfs(const char *base, cJSON *rep)
{
	if (strncmp(base, "c1-rt.", 6) != 0)
		return false;
	cJSON_ReplaceItemInObject(rep, "policy", cJSON_CreateString("cfs"));
	return true;
}

/* Claim 1's rt reports edited to another machine: 64 CPUs, kernel 4.19. */
static bool rt_elsewhere(const char *base, cJSON *rep)
{
	cJSON *k = cJSON_GetObjectItem(rep, "kernel");

	if (strncmp(base, "c1-rt.", 6) != 0)
		return false;
	cJSON_ReplaceItemInObject(k, "nr_cpus", cJSON_CreateNumber(64));
	cJSON_ReplaceItemInObject(k, "release", cJSON_CreateString("4.19.0"));
	return true;
}

/* Claim 1's reports of runs without their background load. */
static bool no_load(const char *base, cJSON *rep)
{
	if (strncmp(base, "c1-cfs.", 7) != 0 && strncmp(base, "c1-rt.", 6) != 0)
		return false;
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(rep, "scenario"), "load_threads",
				  cJSON_CreateNumber(0));
	return true;
}

/* Claim 1's runs beside a --background load its places never run. */
static bool with_background(const char *base, cJSON *rep)
{
	if (strncmp(base, "c1-cfs.", 7) != 0)
		return false;
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(rep, "scenario"), "background",
				  cJSON_CreateString("stress-ng --cpu 2"));
	return true;
}

/* Claim 1's ChromeOS arm run with register loops, not its JavaScript hogs. */
static bool chromeos_busy(const char *base, cJSON *rep)
{
	if (strncmp(base, "c1-chromeos.", 12) != 0)
		return false;
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(rep, "scenario"), "hog_mode",
				  cJSON_CreateString("busy"));
	return true;
}

/* Claim 3's rt-throttled runs with bursty hogs, which leave the CPU idle. */
static bool throttled_bursty(const char *base, cJSON *rep)
{
	if (strncmp(base, "c3-rt-throttled.", 16) != 0)
		return false;
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(rep, "scenario"), "hog_mode",
				  cJSON_CreateString("bursty"));
	return true;
}

/* Reproduce judging the edited copy of the recorded reports edit makes:
 * refused in one line naming says and says2, exit 2, no verdict. */
static void recorded_refused(const char *tag, bool (*edit)(const char *, cJSON *), const char *says,
			     const char *says2)
{
	static char out[1 << 14], err[4096];
	char tmp[256], cmd[8192];
	const char *exe = il_test_build_path("inputlat");
	int status;

	IL_TEST_NEED(access(exe, X_OK) == 0, "%s is not built", exe);
	recorded_edited(tmp, sizeof(tmp), tag, edit);
	snprintf(cmd, sizeof(cmd),
		 "IL_REPRODUCE_REPORTS='%s' '%s' reproduce --quick >'%s/out' 2>'%s/err' </dev/null",
		 tmp, exe, tmp, tmp);
	status = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/out", tmp);
	assert_true(il_test_read_file(cmd, out, sizeof(out)) >= 0);
	snprintf(cmd, sizeof(cmd), "%s/err", tmp);
	assert_true(il_test_read_file(cmd, err, sizeof(err)) >= 0);
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	assert_true(WIFEXITED(status));
	il_test_assert_one_line_exit(WEXITSTATUS(status), out, err, 2, says, says2);
}

/*
 * A recorded report must be the run its place says, on the machine of
 * the others: c1-rt.N.json holding cfs runs was judged "inconclusive ...
 * with rt vs ... with cfs", reports edited to 64 CPUs and kernel 4.19
 * still "held" under a header of 2 CPUs, and runs whose load_threads was
 * 0 were judged "under background load" that never ran; runs of another
 * hog mode (register loops in ChromeOS's JavaScript arm, bursty hogs in
 * claim 3's) were judged as the claim's.
 */
static void test_reproduce_recorded_not_their_place(void **state)
{
	(void)state;
	recorded_refused("reproduce-policy", rt_holds_cfs,
			 "c1-rt.0.json is not a run of its place c1-rt (policy cfs, its place's "
			 "rt)",
			 "inputlat reproduce: ");
	recorded_refused("reproduce-machine", rt_elsewhere,
			 "c1-rt.0.json is of another machine or work model than ",
			 "c1-cfs.0.json (kernel.release 6.18.44-fc-v1272 vs 4.19.0, kernel.nr_cpus "
			 "2 vs 64): a reproduce's runs are of one");
	recorded_refused("reproduce-noload", no_load,
			 "c1-cfs.0.json is not a run of its place c1-cfs (scenario.load_threads 0, "
			 "its place's 4)",
			 "inputlat reproduce: ");
	/* A run beside stress-ng: judged as the claim's, it was. */
	recorded_refused("reproduce-background", with_background,
			 "c1-cfs.0.json is not a run of its place c1-cfs (scenario.background "
			 "stress-ng --cpu 2, its place's null)",
			 "inputlat reproduce: ");
	/* As many hogs of another kind: judged as the claim's, they were. */
	recorded_refused("reproduce-hogmode", chromeos_busy,
			 "c1-chromeos.0.json is not a run of its place c1-chromeos "
			 "(scenario.hog_mode busy, its place's js)",
			 "inputlat reproduce: ");
	recorded_refused("reproduce-bursty", throttled_bursty,
			 "c3-rt-throttled.0.json is not a run of its place c3-rt-throttled "
			 "(scenario.hog_mode bursty, its place's busy)",
			 "inputlat reproduce: ");
}

/*
 * Recorded reports are files anybody may have written: a value no run
 * writes (a p50 of -5 us) makes that run a failed one, said with the
 * value, as compare and explain refuse it; it was judged.
 */
static void test_reproduce_recorded_insane_refused(void **state)
{
	char tmp[256];
	char *out, *l;
	cJSON *json;

	(void)state;
	recorded_edited(tmp, sizeof(tmp), "reproduce-insane", p50_negative);
	/* A run that failed makes reproduce exit 1, as a real one does. */
	recorded_exit(tmp, 1, &out, &json);
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	l = claim_line(out, "claim 1: ");
	assert_non_null(strstr(l, "not testable"));
	assert_non_null(
	    strstr(l, "c1-cfs.0.json: latency_us.processing.p50 = -5 is not a latency"));
	free(out);
	cJSON_Delete(json);
}

/* The first report with 40,000 numbers no reader reads: a tree of about
 * 2 MiB, under the bound of one report, past a total of 1 MiB. */
static bool padded(const char *base, cJSON *rep)
{
	cJSON *pad;

	if (strcmp(base, "c1-cfs.0.json") != 0)
		return false;
	pad = cJSON_AddArrayToObject(rep, "padding");
	assert_non_null(pad);
	for (int i = 0; i < 40000; i++)
		cJSON_AddItemToArray(pad, cJSON_CreateNumber(i));
	return true;
}

/*
 * The recorded reports are held together until judged: each is bounded,
 * all of them were not (16 rounds of reports near the bound of one held
 * 28 GiB). Past IL_REPRODUCE_MAX_MIB (1 GiB unless set) reproduce refuses
 * in one line naming the report and the variable; a value that is not a
 * size is refused likewise.
 */
static void test_reproduce_recorded_held_bound(void **state)
{
	(void)state;
	setenv("IL_REPRODUCE_MAX_MIB", "1", 1);
	recorded_refused("reproduce-held", padded,
			 "c1-cfs.0.json: 2 MiB parsed, 2 MiB with the "
			 "reports before it, more than the 1 MiB reproduce holds at once (judge "
			 "fewer --rounds, or raise IL_REPRODUCE_MAX_MIB)",
			 "inputlat reproduce: ");
	setenv("IL_REPRODUCE_MAX_MIB", "0", 1);
	recorded_refused("reproduce-held0", padded,
			 "inputlat reproduce: IL_REPRODUCE_MAX_MIB '0' is not a size in MiB: "
			 "expected 1..1048576",
			 NULL);
	unsetenv("IL_REPRODUCE_MAX_MIB");
}

/* One rt-throttled report whose hog left -5% of its CPUs idle. */
static bool idle_waste_negative(const char *base, cJSON *rep)
{
	if (strcmp(base, "c3-rt-throttled.0.json") != 0)
		return false;
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(rep, "hog"), "idle_waste_pct",
				  cJSON_CreateNumber(-5));
	return true;
}

/*
 * A figure outside its domain is refused as a latency outside its own is:
 * a hog.idle_waste_pct of -5 was judged ("so only -5.00% was left idle").
 */
static void test_reproduce_recorded_out_of_domain_refused(void **state)
{
	char tmp[256];
	char *out, *l;
	cJSON *json;

	(void)state;
	recorded_edited(tmp, sizeof(tmp), "reproduce-domain", idle_waste_negative);
	recorded_exit(tmp, 1, &out, &json);
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	l = claim_line(out, "claim 3: ");
	assert_non_null(strstr(l, "not testable"));
	assert_non_null(strstr(l, "c3-rt-throttled.0.json: hog.idle_waste_pct = -5 is not a "
				  "percentage (0 to 100)"));
	assert_null(strstr(out, "-5.00%"));
	free(out);
	cJSON_Delete(json);
}

/*
 * Every interval is said at its own level: the header and --help no longer
 * call them all 95% (the probe's "# intervals: 95%" above "88% interval of
 * the median"), a 4-round median's is 87.5% (not rounded to 88), and claim
 * 3, not testable on a busy machine, publishes no idle-waste difference
 * (it had 0 with the interval 0 to 0, as if measured).
 */
static void test_reproduce_recorded_interval_levels(void **state)
{
	char exe[4096], cmd[4200];
	char *out, *help;
	cJSON *json, *f;
	FILE *p;

	(void)state;
	recorded(&out, &json);
	assert_non_null(strstr(out, "\n# intervals: 95% for comparisons (permutation test over "
				    "the rounds, seed 1); a median's order-statistic interval at "
				    "the level its rounds allow, said with each\n"));
	assert_null(strstr(out, "# intervals: 95%;"));
	assert_non_null(strstr(claim_line(out, "claim 2: "),
			       "(median of 4 rounds; 87.5% interval of the median 942 to 960 ms)"));
	assert_null(strstr(out, "88% interval"));
	f = claim_figures(json, 3);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "waste_difference_pct")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "waste_difference_pct_lo")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "waste_difference_pct_hi")));
	assert_non_null(strstr(il_test_json_str(f, "waste_difference_pct_why"), "busy"));
	free(out);
	cJSON_Delete(json);

	snprintf(exe, sizeof(exe), "%s", il_test_build_path("inputlat"));
	snprintf(cmd, sizeof(cmd), "'%s' reproduce --help", exe);
	p = popen(cmd, "r");
	assert_non_null(p);
	help = slurp(p);
	assert_int_equal(pclose(p), 0);
	assert_null(strstr(help, "Every figure is given with its 95%"));
	assert_non_null(
	    strstr(help, "A comparison of two policies is given with its 95% interval"));
	assert_non_null(strstr(help, "(4 rounds: 87.5%, 6: 96.9%)"));
	free(help);
}

/*
 * Claim 2's line says what its hogs ran, from the reports: the recorded
 * ones ran "busy", a register loop, and the line said "a busy hog", next
 * to a title about a JavaScript thread.
 */
static void test_reproduce_recorded_claim2_hog(void **state)
{
	char *out;
	cJSON *json, *f;

	(void)state;
	recorded(&out, &json);
	assert_non_null(
	    strstr(claim_line(out, "claim 2: "),
		   ": with a busy hog per CPU (a register loop, not JavaScript) the CFS "
		   "canary's longest stall is 950 ms"));
	f = claim_figures(json, 2);
	assert_string_equal(il_test_json_str(f, "hog_mode"), "busy");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "hog_engine")));
	free(out);
	cJSON_Delete(json);
}

/*
 * A culprit's time is summed over the rounds, and the line says over how
 * many: the probe's "c2-rt render:js0 ... for 4483.7 ms" was 4 rounds of
 * about 1.1 s each, printed beside per-round medians.
 */
static void test_reproduce_recorded_culprit_rounds(void **state)
{
	char *out;
	cJSON *json, *c;

	(void)state;
	recorded(&out, &json);
	assert_non_null(strstr(claim_line(out, "claim 2: "),
			       "; the canary waited behind: c2-rt render:js0 (SCHED_FIFO 10) for "
			       "4483.7 ms over 4 rounds, c2-cfs render:js0 (SCHED_OTHER nice 0) "
			       "for 91.6 ms over 4 rounds"));
	c = cJSON_GetObjectItem(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(json, "claims"), 2),
				"culprits"),
	    "c2-rt");
	assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "rounds")) == 4);
	free(out);
	cJSON_Delete(json);
}

static void reports_env(void *value)
{
	setenv("IL_REPRODUCE_REPORTS", value, 1);
}

/*
 * IL_REPRODUCE_REPORTS that is not a directory of reports is one line up
 * front, naming it, exit 2: a missing path, /dev/null, a file or a FIFO
 * (not opened: that would block) gave 36 lines, one a run, and exit 1; an
 * empty value counted as unset and, as root, started a real reproduce.
 * An unwritable --json and --lock make the reproduce without the check
 * refuse before it runs anything, so this never measures.
 */
static void test_reproduce_reports_dir_refused(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char tmp[256], missing[300], file[300], fifo[300];
	const char *cases[][2] = {
	    {"", "IL_REPRODUCE_REPORTS is set but empty"},
	    {"   ", "IL_REPRODUCE_REPORTS='   ': No such file or directory"},
	    {missing, "': No such file or directory"},
	    {"/dev/null", "='/dev/null': a character device, not a directory"},
	    {file, "': a regular file, not a directory"},
	    {fifo, "': a FIFO, not a directory"}};
	char *argv[] = {(char *)il_test_build_path("inputlat"),
			"reproduce",
			"--quick",
			"--json",
			"/dev/null/x.json",
			"--lock",
			"/dev/null/x.lock",
			NULL};

	(void)state;
	assert_non_null(res);
	assert_int_equal(il_test_tmpdir_make(tmp, sizeof(tmp), "reproduce-env"), 0);
	snprintf(missing, sizeof(missing), "%s/nonexistent", tmp);
	snprintf(file, sizeof(file), "%s/c1-cfs.0.json", tmp);
	il_test_write_file(file, "{}\n");
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmp);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(
		    il_test_run_with(argv, 10000, reports_env, (void *)cases[i][0], res), 0);
		if (res->elapsed_s > 3)
			fail_msg("IL_REPRODUCE_REPORTS='%s': %.1f s to refuse", cases[i][0],
				 res->elapsed_s);
		il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2,
					     "inputlat reproduce: IL_REPRODUCE_REPORTS",
					     cases[i][1]);
	}
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	free(res);
}

/*
 * A directory that holds none of the reports a reproduce reads, empty or
 * of other files, is one line, exit 2: it gave a line for each of the 36
 * runs, "not testable" for every claim, and exit 1.
 */
static void test_reproduce_recorded_dir_without_reports(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char tmp[256], other[300], path[400];
	const char *dirs[] = {tmp, other};
	char *argv[] = {(char *)il_test_build_path("inputlat"), "reproduce", "--quick", NULL};

	(void)state;
	assert_non_null(res);
	assert_int_equal(il_test_tmpdir_make(tmp, sizeof(tmp), "reproduce-none"), 0);
	snprintf(other, sizeof(other), "%s/other", tmp);
	assert_int_equal(mkdir(other, 0755), 0);
	snprintf(path, sizeof(path), "%s/notes.txt", other);
	il_test_write_file(path, "kept elsewhere\n");
	snprintf(path, sizeof(path), "%s/c1-cfs.json", other);
	il_test_write_file(path, "{}\n");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		assert_int_equal(il_test_run_with(argv, 10000, reports_env, (void *)dirs[i], res),
				 0);
		il_test_assert_one_line_exit(
		    res->exit_code, res->out, res->err, 2,
		    "inputlat reproduce: IL_REPRODUCE_REPORTS",
		    "' holds none of the 36 run reports it would judge (c1-cfs.0.json to "
		    "c4-rt-fair-server.3.json): give the directory a reproduce kept "
		    "(IL_REPRODUCE_KEEP=1), with its --quick or --rounds");
	}
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	free(res);
}

/*
 * --json and --lock are never one file: '--lock X --json X' (or X and
 * ./X) wrote the verdicts over the lock file, exit 0, so that the lock
 * other reproduces and sweeps flock at X was another file from then on.
 * Refused in one line, exit 2, whether X is there yet or not, the lock
 * left as it was.
 */
static void test_reproduce_json_not_the_lock(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char tmp[256], lock[300], dot[300], from[4096], got[64];
	char *argv[] = {(char *)il_test_build_path("inputlat"),
			"reproduce",
			"--quick",
			"--lock",
			lock,
			"--json",
			NULL,
			NULL};
	const char *jsons[] = {lock, dot};

	(void)state;
	assert_non_null(res);
	recorded_dir(from, sizeof(from));
	assert_int_equal(il_test_tmpdir_make(tmp, sizeof(tmp), "reproduce-lock"), 0);
	snprintf(lock, sizeof(lock), "%s/machine.lock", tmp);
	snprintf(dot, sizeof(dot), "%s/./machine.lock", tmp);
	for (int there = 0; there < 2; there++) {
		if (there)
			il_test_write_file(lock, "held\n");
		for (size_t i = 0; i < sizeof(jsons) / sizeof(jsons[0]); i++) {
			argv[6] = (char *)jsons[i];
			assert_int_equal(il_test_run_with(argv, 30000, reports_env, from, res), 0);
			il_test_assert_one_line_exit(
			    res->exit_code, res->out, res->err, 2, "inputlat reproduce: --json ",
			    "machine.lock are the same file; give each its "
			    "own");
			if (there) {
				assert_true(il_test_read_file(lock, got, sizeof(got)) >= 0);
				assert_string_equal(got, "held\n");
			} else {
				assert_int_equal(access(lock, F_OK), -1);
			}
		}
	}
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	free(res);
}

/* c1-cfs.0.json and c1-cfs.1.json as files of their own, not links. */
static bool c1_cfs_own(const char *base, cJSON *rep)
{
	(void)rep;
	return strcmp(base, "c1-cfs.0.json") == 0 || strcmp(base, "c1-cfs.1.json") == 0;
}

/*
 * --json is never one of the reports judged, by any name: '-j
 * DIR/c1-cfs.0.json' wrote the verdicts over that report (exit 0), as
 * compare refuses to. The same path, another spelling, a hard link, and a
 * report that is a symlink to the output: one line, exit 2, the report as
 * it was.
 */
static void test_reproduce_recorded_json_not_a_report(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char tmp[256], report[300], dot[300], hard[300], real[300], link1[300];
	char before[1 << 16], after[1 << 16];
	const char *outs[][2] = {{report, report}, {dot, report}, {hard, report}, {real, link1}};
	char *argv[] = {
	    (char *)il_test_build_path("inputlat"), "reproduce", "--quick", "--json", NULL, NULL};

	(void)state;
	assert_non_null(res);
	recorded_edited(tmp, sizeof(tmp), "reproduce-json", c1_cfs_own);
	snprintf(report, sizeof(report), "%s/c1-cfs.0.json", tmp);
	snprintf(dot, sizeof(dot), "%s/./c1-cfs.0.json", tmp);
	snprintf(hard, sizeof(hard), "%s/verdicts.json", tmp);
	assert_int_equal(link(report, hard), 0);
	/* c1-cfs.1.json a symlink to real.json, the output. */
	snprintf(link1, sizeof(link1), "%s/c1-cfs.1.json", tmp);
	snprintf(real, sizeof(real), "%s/real.json", tmp);
	assert_int_equal(rename(link1, real), 0);
	assert_int_equal(symlink("real.json", link1), 0);
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		assert_true(il_test_read_file(outs[i][0], before, sizeof(before)) > 0);
		argv[4] = (char *)outs[i][0];
		assert_int_equal(il_test_run_with(argv, 30000, reports_env, tmp, res), 0);
		il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2,
					     "refusing to overwrite an input", outs[i][1]);
		assert_true(il_test_read_file(outs[i][0], after, sizeof(after)) > 0);
		assert_string_equal(after, before);
	}
	assert_int_equal(il_test_tmpdir_remove(tmp), 0);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reproduce_recorded),
	    cmocka_unit_test(test_reproduce_recorded_no_p99),
	    cmocka_unit_test(test_reproduce_recorded_fair_server_assumed),
	    cmocka_unit_test(test_reproduce_recorded_fair_server_read),
	    cmocka_unit_test(test_reproduce_recorded_insane_refused),
	    cmocka_unit_test(test_reproduce_recorded_held_bound),
	    cmocka_unit_test(test_reproduce_recorded_not_their_place),
	    cmocka_unit_test(test_reproduce_recorded_out_of_domain_refused),
	    cmocka_unit_test(test_reproduce_recorded_interval_levels),
	    cmocka_unit_test(test_reproduce_recorded_claim2_hog),
	    cmocka_unit_test(test_reproduce_recorded_culprit_rounds),
	    cmocka_unit_test(test_reproduce_reports_dir_refused),
	    cmocka_unit_test(test_reproduce_recorded_dir_without_reports),
	    cmocka_unit_test(test_reproduce_recorded_json_not_a_report),
	    cmocka_unit_test(test_reproduce_json_not_the_lock),
	    cmocka_unit_test_teardown(test_reproduce_hangup_cleans_up, il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_reproduce_quit_cleans_up, il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_reproduce_killed_leftovers_go, il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_reproduce_killed_stops_its_run, il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_reproduce_quick, il_test_knobs_teardown),
	};
	if (il_test_filters("test_reproduce", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_knobs_suite_setup,
				      il_test_knobs_suite_teardown);
}
