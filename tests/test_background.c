/*
 * --background "CMD" (issue 15): the load generator runs for the length of
 * the run in a process group of its own, its CPU share is reported, and
 * it never outlives the run: not after a normal end, not after SIGINT,
 * and not after a SIGKILL of the orchestrator, where its reaper stops it
 * within about a second and, were the reaper killed too, the next
 * `inputlat check` (or run) kills it from the state file. A command that is not
 * there is one line and exit 2.
 *
 * Every run here uses its own state directory (IL_STATE_DIR) and the cfs
 * policy, which changes no knob; the loads are `sleep` and a shell loop,
 * and each case kills what it started.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_background.h"
#include "il_parse.h"
#include "il_test.h"
#include "il_test_proc.h"

static pid_t live_run;

/* Members of process group pgid (0: none), counted from /proc; with
 * `execd`, only those past their exec (not the orchestrator's fork, whose
 * comm is still "inputlat"). */
static int group_members(pid_t pgid, bool execd)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		struct il_procfs_stat st;
		uint64_t pid;

		if (il_parse_u64(e->d_name, 1, INT32_MAX, &pid) < 0)
			continue;
		if (il_procfs_stat((pid_t)pid, 0, IL_PROCFS_PGRP, &st) == 0 &&
		    (pid_t)st.f[IL_PROCFS_PGRP] == pgid && st.state != 'Z') {
			char path[64], comm[32] = "";

			snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)pid);
			if (execd && il_test_read_file(path, comm, sizeof(comm)) > 0 &&
			    strncmp(comm, "inputlat", 8) == 0)
				continue;
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static int group_size(pid_t pgid)
{
	return group_members(pgid, false);
}

/* The pgid the run's state file names, 0 until the file is there. */
static pid_t state_pgid(pid_t run)
{
	char path[400], text[8192];
	pid_t pgid = 0;
	cJSON *o;

	snprintf(path, sizeof(path), "%s/background.%d.state", il_test_suite.tmpdir, (int)run);
	if (il_test_read_file(path, text, sizeof(text)) <= 0)
		return 0;
	o = cJSON_Parse(text);
	if (cJSON_IsNumber(cJSON_GetObjectItem(o, "pgid")))
		pgid = (pid_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "pgid"));
	cJSON_Delete(o);
	return pgid;
}

static bool wait_for(bool (*cond)(pid_t), pid_t arg, int timeout_ms)
{
	for (int waited = 0; waited < timeout_ms; waited += 20) {
		if (cond(arg))
			return true;
		usleep(20000);
	}
	return cond(arg);
}

static bool group_gone(pid_t pgid)
{
	return group_size(pgid) == 0;
}

static bool group_running(pid_t pgid)
{
	return group_size(pgid) > 0;
}

/* The load's command runs: the fork has passed the run's gate, which
 * opens once the state file names the group (a run killed before that
 * takes its fork along, by design: an ASan run was killed in between). */
static bool group_execd(pid_t pgid)
{
	return group_members(pgid, true) > 0;
}

/* Starts a long run with the given background; returns its pid and the
 * group's pgid once the load runs. */
static pid_t start_long(const char *cmd, pid_t *pgid)
{
	char out[300], err[300];
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--events",
			"100000",
			"--interval-ms",
			"10",
			"--quiet",
			"--background",
			(char *)cmd,
			NULL};

	snprintf(out, sizeof(out), "%s/long.out", il_test_suite.tmpdir);
	snprintf(err, sizeof(err), "%s/long.err", il_test_suite.tmpdir);
	live_run = il_test_spawn(argv, out, err);
	assert_true(live_run > 0);
	for (int waited = 0; waited < 10000 && !(*pgid = state_pgid(live_run)); waited += 20)
		usleep(20000);
	assert_true(*pgid > 0);
	assert_true(wait_for(group_execd, *pgid, 5000));
	return live_run;
}

/* A run of `events` events 10 ms apart beside --background cmd, which
 * must exit 0; its report (the caller deletes it) and stderr in err. */
static cJSON *run_beside(const char *cmd, const char *events, const char *name, char *err,
			 size_t errlen)
{
	char json[300];
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--events",
			(char *)events,
			"--interval-ms",
			"10",
			"--quiet",
			"--background",
			(char *)cmd,
			"--json",
			json,
			NULL};
	struct il_test_result *res = malloc(sizeof(*res));

	assert_non_null(res);
	snprintf(json, sizeof(json), "%s/%s.json", il_test_suite.tmpdir, name);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	/* Whole lines only matter to the callers: a cut one still reads. */
	snprintf(err, errlen, "%.*s", (int)(errlen ? errlen - 1 : 0), res->err);
	if (res->exit_code != 0) {
		int code = res->exit_code;

		free(res); /* fail_msg does not return: no leak for LeakSanitizer */
		fail_msg("exit %d: %s", code, err);
	}
	free(res);
	return il_test_json_load(json);
}

static void test_background_normal_end(void **state)
{
	char json[300], text[1 << 20];
	char *argv[] = {il_test_suite.inputlat, "run",	  "--events", "50",
			"--interval-ms",	"10",	  "--quiet",  "--background",
			"while :; do :; done",	"--json", json,	      NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root, *bg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	assert_non_null(res);
	snprintf(json, sizeof(json), "%s/normal.json", il_test_suite.tmpdir);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	if (res->exit_code != 0)
		fail_msg("exit %d: %s", res->exit_code, res->err);
	free(res);
	assert_true(il_test_read_file(json, text, sizeof(text)) > 0);
	root = cJSON_Parse(text);
	bg = cJSON_GetObjectItem(root, "background");
	assert_true(cJSON_IsObject(bg));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(bg, "command")),
			    "while :; do :; done");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(root, "scenario"), "background")),
			    "while :; do :; done");
	/*
	 * A busy shell loop is one CPU of ncpu on a quiet machine; beside a
	 * competing load (scripts/test --under-load: stress-ng's two busy
	 * threads, the ASan lanes) it had 0.142 of 2, its fair part. A share
	 * of 0, or one in another unit, still fails.
	 */
	double share = cJSON_GetNumberValue(cJSON_GetObjectItem(bg, "cpu_share"));
	print_message("background cpu_share %.3f of %ld CPUs\n", share, ncpu);
	assert_true(share > 0.1 / (double)ncpu && share <= 1.05);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(bg, "exited_early")));
	pid_t pgid = (pid_t)cJSON_GetNumberValue(cJSON_GetObjectItem(bg, "pgid"));
	cJSON_Delete(root);
	/* Stopped and reaped; its state file gone. */
	assert_true(wait_for(group_gone, pgid, 2000));
	assert_int_equal(il_test_count_project_procs(), 0);
}

/*
 * A command that confines itself to one CPU: its share is of that CPU
 * (cpus 1), as hog.cpu_share is of the hogs' CPUs. Over every online CPU
 * a busy loop pinned to one of two read 0.5, half as busy as it was.
 */
static void test_background_share_of_its_cpus(void **state)
{
	char cmd[160], err[8192];
	cpu_set_t mine;
	cJSON *root, *bg;
	int first = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &mine))
			first = c;
	snprintf(cmd, sizeof(cmd), "exec taskset -c %d sh -c 'while :; do :; done'", first);
	root = run_beside(cmd, "50", "pinned", err, sizeof(err));
	bg = cJSON_GetObjectItem(root, "background");
	print_message("background on CPU %d: cpu_share %.3f of %.0f CPUs\n", first,
		      il_test_json_num(bg, "cpu_share"), il_test_json_num(bg, "cpus"));
	assert_int_equal((int)il_test_json_num(bg, "cpus"), 1);
	/* Alone on its CPU, 1.0; beside scripts/test --under-load's two
	 * busy threads, about a third of it. Over two CPUs, at most 0.5. */
	assert_true(il_test_json_num(bg, "cpu_share") > 0.2);
	assert_true(il_test_json_num(bg, "cpu_share") <= 1.05);
	cJSON_Delete(root);
}

/*
 * A command that ends while the run goes on: the report says it ended
 * and how (it said "exited_early": false, the zombie leader looking
 * alive), and warns that only part of the run had the load; the shell's
 * own background job, left in the group, is still stopped at the end.
 */
static void test_background_ends_during_run(void **state)
{
	char cmd[128], err[8192];
	cJSON *root, *bg;
	pid_t pgid;

	(void)state;
	/* The job outlives the leader: a sleep whose argument names it. The
	 * leader exits 1 s in: well after the 200 ms in which an exit is the
	 * user's mistake (EARLY_EXIT_MS; its 0.2 s met those 200 ms, and
	 * under ASan the run refused it once, 'exited with status 4 before
	 * the run started'), well before the end of the 250 events' 2.5 s. */
	snprintf(cmd, sizeof(cmd), "sleep 30%d & sleep 1; echo gave up >&2; exit 4",
		 (int)getpid() % 1000);
	root = run_beside(cmd, "250", "ended", err, sizeof(err));
	if (!strstr(err, "only part of the run had the background load it asked for"))
		fail_msg("no warning that the load ended:\n%s", err);
	bg = cJSON_GetObjectItem(root, "background");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(bg, "ended")),
			    "exited with status 4 during the run: gave up");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(bg, "exited_early")));
	pgid = (pid_t)cJSON_GetNumberValue(cJSON_GetObjectItem(bg, "pgid"));
	cJSON_Delete(root);
	assert_true(wait_for(group_gone, pgid, 2000));
	assert_int_equal(il_test_count_project_procs(), 0);
}

static void test_background_sigint(void **state)
{
	pid_t pgid, run = start_long("sleep 300", &pgid);
	int status;

	kill(run, SIGINT);
	status = il_test_wait(run, IL_TEST_HANG_MS, NULL);
	live_run = 0;
	assert_true(WIFEXITED(status));
	assert_true(wait_for(group_gone, pgid, 3000));
	assert_int_equal(state_pgid(run), 0);
}

/*
 * The orchestrator SIGKILLed: its children die with it (PDEATHSIG), and
 * its reaper, which sees the pipe only the orchestrator wrote to close,
 * stops the background group within about a second and exits. The group
 * ran on with no time limit until the next run or check.
 */
static void test_background_sigkill_reaped(void **state)
{
	pid_t pgid, run = start_long("sleep 300 & sleep 300; wait", &pgid), reaper;
	char *argv[] = {il_test_suite.inputlat, "check", NULL};
	struct il_test_result *res;
	double t0;

	(void)state;
	reaper = il_test_find_child(run, "il:bg-reaper");
	assert_true(group_running(pgid));
	kill(run, SIGKILL);
	waitpid(run, NULL, 0);
	live_run = 0;
	t0 = il_test_now_s();
	if (!wait_for(group_gone, pgid, 1500))
		fail_msg("the background group still runs 1.5 s after the run's SIGKILL");
	print_message("background group gone %.2f s after the run's SIGKILL\n",
		      il_test_now_s() - t0);
	assert_true(reaper > 0);
	assert_true(il_test_procs_gone(&reaper, (const char *const[]){"il:bg-reaper"}, 1, 1000));
	il_test_reap_orphans();
	/* The state file stays for the next start, which finds nothing left. */
	assert_true(state_pgid(run) == pgid);
	res = malloc(sizeof(*res));
	assert_non_null(res);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	assert_int_equal(res->exit_code, 0);
	assert_null(strstr(res->err, "inputlat: killed the background load"));
	free(res);
	assert_int_equal(state_pgid(run), 0);
}

/* The orchestrator and its reaper both SIGKILLed (kill -9 of everything):
 * the background group runs on, and the next `inputlat check` kills it
 * from the state file. */
static void test_background_sigkill_then_check(void **state)
{
	pid_t pgid, run = start_long("sleep 300 & sleep 300; wait", &pgid), reaper;
	char *argv[] = {il_test_suite.inputlat, "check", NULL};
	struct il_test_result *res;

	reaper = il_test_find_child(run, "il:bg-reaper");
	assert_true(reaper > 0);
	kill(reaper, SIGKILL);
	assert_true(il_test_procs_gone(&reaper, (const char *const[]){"il:bg-reaper"}, 1, 1000));
	kill(run, SIGKILL);
	waitpid(run, NULL, 0);
	live_run = 0;
	usleep(200000);
	assert_true(group_running(pgid)); /* it is the state file's job now */
	assert_true(state_pgid(run) == pgid);
	/* Allocated here: a failed assertion above leaks nothing. */
	res = malloc(sizeof(*res));
	assert_non_null(res);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	assert_int_equal(res->exit_code, 0);
	assert_non_null(
	    strstr(res->out, "stale background load found: yes (killed 1 process group "));
	assert_non_null(strstr(res->err, "inputlat: killed the background load 'sleep 300 & sleep "
					 "300; wait' (process group "));
	free(res);
	assert_true(wait_for(group_gone, pgid, 3000));
	assert_int_equal(state_pgid(run), 0);
}

/* Processes whose command line (arguments joined by spaces) starts with
 * prefix: the escapee itself, not the leader or the run that name it
 * (*last, when not NULL: the last one's pid). */
static int count_cmdline_pid(const char *prefix, pid_t *last)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], buf[4096];
		uint64_t pid;
		ssize_t len;

		if (il_parse_u64(e->d_name, 1, INT32_MAX, &pid) < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((len = il_test_read_file(path, buf, sizeof(buf))) <= 0)
			continue;
		for (ssize_t i = 0; i < len - 1; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (strncmp(buf, prefix, strlen(prefix)) == 0) {
			n++;
			if (last)
				*last = (pid_t)pid;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static int count_cmdline(const char *prefix)
{
	return count_cmdline_pid(prefix, NULL);
}

static const char *escape_needle;

/* The state letter of process pid ('Z' a zombie), '?' when gone. */
static char proc_state(pid_t pid)
{
	struct il_procfs_stat st;

	return il_procfs_stat(pid, 0, 0, &st) ? '?' : st.state;
}

static bool escapee_gone(pid_t unused)
{
	(void)unused;
	return count_cmdline(escape_needle) == 0;
}

/*
 * A command part of which leaves the process group (setsid, as a daemon's
 * double fork does): found by the environment entry it inherited, its CPU
 * counted, and stopped with the rest. It once kept running after the run.
 */
static void test_background_escapee_normal_end(void **state)
{
	char cmd[200], needle[96], err[8192];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cJSON *root, *bg;
	char *text;

	snprintf(cmd, sizeof(cmd), "setsid sh -c 'while :; do :; done' il-escapee-%d",
		 (int)getpid());
	snprintf(needle, sizeof(needle), "sh -c while :; do :; done il-escapee-%d", (int)getpid());
	root = run_beside(cmd, "50", "escapee", err, sizeof(err));
	bg = cJSON_GetObjectItem(root, "background");
	text = cJSON_PrintUnformatted(bg);
	print_message("background %s\n", text);
	free(text);
	assert_true(il_test_json_num(bg, "outside_group") >= 1);
	/* The busy loop is the escapee: its CPU is the load's (bounded as in
	 * normal_end, for a machine with a competing load). */
	assert_true(il_test_json_num(bg, "cpu_share") > 0.1 / (double)ncpu);
	cJSON_Delete(root);
	escape_needle = needle;
	if (!wait_for(escapee_gone, 0, 3000))
		fail_msg("'%s' still runs after the run", needle);
}

/*
 * The orchestrator SIGKILLed and not reaped yet (a zombie, which holds
 * nothing): the next `inputlat check` stops the group and, by its cookie,
 * what left it. A zombie orchestrator once counted as alive, and check
 * left the load running.
 */
static void test_background_escapee_sigkill_then_check(void **state)
{
	char cmd[200], needle[64];
	char *argv[] = {il_test_suite.inputlat, "check", NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	pid_t pgid, run;

	assert_non_null(res);
	snprintf(needle, sizeof(needle), "sleep 299.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "setsid %s", needle);
	run = start_long(cmd, &pgid);
	escape_needle = needle;
	for (int waited = 0; waited < 5000 && count_cmdline(needle) == 0; waited += 20)
		usleep(20000);
	assert_int_equal(count_cmdline(needle), 1);
	kill(run, SIGKILL);
	/* Not reaped: a zombie until this case has checked. */
	for (int waited = 0; waited < 5000 && proc_state(run) != 'Z'; waited += 10)
		usleep(10000);
	assert_int_equal(proc_state(run), 'Z');
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	assert_non_null(
	    strstr(res->out, "stale background load found: yes (killed 1 process group "));
	free(res);
	waitpid(run, NULL, 0);
	live_run = 0;
	if (!wait_for(escapee_gone, 0, 3000))
		fail_msg("'%s' still runs after check", needle);
	assert_true(wait_for(group_gone, pgid, 3000));
}

/*
 * An escapee that execs itself over and over (a daemon that re-execs on
 * reload, a shell chain of execs): inside each exec its environment reads
 * empty for a moment (the kernel installs the new memory before the
 * environment), and a stop whose one scan read it then missed the cookie
 * and left the escapee running. Stopped each time of 20, here through the
 * library, without a run around it.
 */
static void test_background_reexec_escapee_stopped(void **state)
{
	char script[300], cmd[400], needle[400], err[300];

	(void)state;
	snprintf(script, sizeof(script), "%s/reexec.sh", il_test_suite.tmpdir);
	il_test_write_file(script, "exec sh \"$0\" \"$1\"\n");
	snprintf(cmd, sizeof(cmd), "setsid sh %s il-reexec-%d", script, (int)getpid());
	snprintf(needle, sizeof(needle), "sh %s il-reexec-%d", script, (int)getpid());
	for (int i = 0; i < 20; i++) {
		struct il_background *b = NULL;
		pid_t escapee = 0;
		char st = '?';

		if (il_background_start(cmd, il_test_suite.tmpdir, &b, err, sizeof(err)) != 0)
			fail_msg("round %d: %s", i, err);
		/* By its pid: its command line, too, reads empty inside exec. */
		for (int waited = 0; waited < 3000 && !escapee; waited += 10) {
			count_cmdline_pid(needle, &escapee);
			if (!escapee)
				usleep(10000);
		}
		if (!escapee) {
			il_background_stop(b);
			fail_msg("round %d: '%s' never seen", i, needle);
		}
		il_background_stop(b);
		for (int waited = 0; waited < 2000; waited += 10) {
			if ((st = proc_state(escapee)) == '?' || st == 'Z')
				break;
			usleep(10000);
		}
		if (st != '?' && st != 'Z') {
			kill(escapee, SIGKILL);
			fail_msg("round %d: '%s' (%d) still ran after the stop", i, needle,
				 (int)escapee);
		}
	}
}

/*
 * The load holds nothing of the run's but stdio: it once inherited every
 * descriptor the run had without CLOEXEC (here fd 9, as flock(1) passes
 * its lock), and what escaped a stop went on holding it. (The shell holds
 * descriptors of its own from 10 up: dash moves what it keeps there.)
 */
static void test_background_inherits_no_descriptor(void **state)
{
	char cmd[1100], fds[300], text[512], err[300];
	struct il_background *b = NULL;
	int fd;

	(void)state;
	snprintf(fds, sizeof(fds), "%s/fds", il_test_suite.tmpdir);
	snprintf(cmd, sizeof(cmd), "ls /proc/$$/fd > %s.part && mv %s.part %s; sleep 30", fds, fds,
		 fds);
	assert_true((fd = open("/dev/null", O_RDONLY)) >= 0);
	assert_int_equal(dup2(fd, 9), 9);
	close(fd);
	if (il_background_start(cmd, il_test_suite.tmpdir, &b, err, sizeof(err)) != 0) {
		close(9);
		fail_msg("%s", err);
	}
	close(9);
	for (int waited = 0; waited < 3000 && access(fds, F_OK) != 0; waited += 10)
		usleep(10000);
	il_background_stop(b);
	assert_true(il_test_read_file(fds, text, sizeof(text)) > 0);
	for (char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0')) {
		int n = atoi(l);

		if (n >= 3 && n < 10)
			fail_msg("the load's shell held fd %d, not its own:\n%s", n, text);
	}
	assert_non_null(strstr(text, "2\n"));
}

/*
 * What the command wrote to stderr is quoted, bounded and printable: its
 * last non-empty line, control and non-ASCII bytes as '?', cut; past
 * 64 KiB its writes fail, and it ends as it would have. It once went to
 * /dev/null ("exited with status 2", and no why).
 */
static void test_background_stderr_quoted(void **state)
{
	static const struct {
		const char *cmd, *want;
	} cases[] = {
	    {"echo first >&2; printf '  last \\001\\351 line \\n\\n' >&2; exit 3",
	     "exited with status 3 before the run started: last ?? line\n"},
	    /* 100 KiB of one line, then the shell's own failure: only the first
	     * 64 KiB are kept, so the quote is the long line's, cut. */
	    {"head -c 102400 /dev/zero | tr '\\0' x >&2; exit 5",
	     "exited with status 5 before the run started: xxxxxxxx"},
	    {"exit 6", "exited with status 6 before the run started\n"},
	    {"kill -9 $$", "killed by signal 9 before the run started\n"},
	};
	struct il_test_result *res = malloc(sizeof(*res));

	(void)state;
	assert_non_null(res);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = {il_test_suite.inputlat, "run", "--events", "5", "--background",
				(char *)cases[i].cmd,	NULL};
		const char *nl;

		assert_int_equal(il_test_run(argv, 20000, res), 0);
		print_message("%s -> exit %d: %s", cases[i].cmd, res->exit_code, res->err);
		if (res->exit_code != 2 || !strstr(res->err, cases[i].want))
			fail_msg("'%s': exit %d, want 2 and '%s' in: %s", cases[i].cmd,
				 res->exit_code, cases[i].want, res->err);
		/* One line, of bounded length, whatever the command wrote. */
		nl = strchr(res->err, '\n');
		assert_true(nl && nl[1] == '\0' && strlen(res->err) < 600);
	}
	free(res);
	assert_int_equal(il_test_count_project_procs(), 0);
}

static void test_background_not_found(void **state)
{
	char *argv[] = {il_test_suite.inputlat,	  "run", "--events", "5", "--background",
			"no-such-load-generator", NULL};
	struct il_test_result *res = malloc(sizeof(*res));

	assert_non_null(res);
	assert_int_equal(il_test_run(argv, 20000, res), 0);
	assert_int_equal(res->exit_code, 2);
	/* The shell's own words, which the command's stderr kept. */
	assert_string_equal(res->err, "inputlat: --background 'no-such-load-generator': exited "
				      "with status 127 before the run started: sh: 1: "
				      "no-such-load-generator: not found\n");
	free(res);
	assert_int_equal(il_test_count_project_procs(), 0);
}

/*
 * A dead run's state file is read whole: one whose --background command
 * was 8 KiB or more was cut at a fixed 8 KiB buffer, did not parse, and
 * was left with its load running for good. Here the load is a child of
 * ours in a group of its own, its orchestrator a pid that is gone. And a
 * file someone else could have written is not acted on (as root, it
 * SIGKILLs what it names).
 */
static void test_background_long_command_recovered(void **state)
{
	static char cmd[12000], text[13000];
	char dir[256], path[400], *log_text = NULL;
	size_t log_len = 0;
	struct il_procfs_stat st;
	pid_t gone, load;
	FILE *log;
	int status;

	(void)state;
	gone = fork();
	assert_true(gone >= 0);
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	load = fork();
	assert_true(load >= 0);
	if (load == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(load, load);
	for (int i = 0; i < 100 && (il_procfs_stat(load, 0, IL_PROCFS_PGRP, &st) != 0 ||
				    (pid_t)st.f[IL_PROCFS_PGRP] != load);
	     i++)
		usleep(10000);
	assert_int_equal(il_procfs_stat(load, 0, IL_PROCFS_STARTTIME, &st), 0);
	memset(cmd, 'a', sizeof(cmd) - 1);
	snprintf(text, sizeof(text),
		 "{\"pid\":%d,\"pid_start\":1,\"pgid\":%d,\"pgid_start\":%llu,\"command\":\"%s\"}",
		 (int)gone, (int)load, (unsigned long long)st.f[IL_PROCFS_STARTTIME], cmd);
	assert_int_equal(il_test_tmpdir_make(dir, sizeof(dir), "bg-long"), 0);
	snprintf(path, sizeof(path), "%s/background.%d.state", dir, (int)gone);
	il_test_write_file(path, text);
	/* Writable by others, or another user's: not acted on, and left. */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(il_background_recover_stale(dir, NULL), 0);
	assert_int_equal(chmod(path, 0600), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(il_background_recover_stale(dir, NULL), 0);
		assert_int_equal(chown(path, 0, 0), 0);
	}
	assert_int_equal(kill(load, 0), 0);
	assert_int_equal(access(path, F_OK), 0);
	log = open_memstream(&log_text, &log_len);
	assert_non_null(log);
	assert_int_equal(il_background_recover_stale(dir, log), 1);
	fclose(log);
	assert_int_equal(waitpid(load, &status, 0), load);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(access(path, F_OK), -1);
	/* The command is cut for the line, which stays one line. */
	assert_non_null(strstr(log_text, "inputlat: killed the background load 'aaaa"));
	assert_int_equal(strchr(log_text, '\n') - log_text + 1, (long)strlen(log_text));
	free(log_text);
	il_test_tmpdir_remove(dir);
}

/* A state file that does not say when its writer started (or says it
 * with a number no start time is) is left alone: read as a dead run's,
 * a live run's load would have been killed; 1e300 was cast to an
 * integer, which is undefined. */
static void test_background_state_refused(void **state)
{
	static const char *const bad[] = {
	    "{\"pid\":1,\"pgid\":1,\"pgid_start\":0}",
	    "{\"pid\":1,\"pid_start\":0,\"pgid\":1,\"pgid_start\":1e300}",
	    "{\"pid\":1,\"pid_start\":-1,\"pgid\":1,\"pgid_start\":0}",
	    "{\"pid\":1,\"pid_start\":0.5,\"pgid\":1,\"pgid_start\":0}",
	    "{\"pid\":0,\"pid_start\":0,\"pgid\":1,\"pgid_start\":0}",
	    "{\"pid\":1,\"pid_start\":0,\"pgid\":2147483648,\"pgid_start\":0}",
	    /* Not a whole pid, garbage after the object, a key twice: each
	     * was read as a state file (pid 7 of 7.5, the first pid). */
	    "{\"pid\":7.5,\"pid_start\":0,\"pgid\":1,\"pgid_start\":0}",
	    "{\"pid\":7,\"pid_start\":0,\"pgid\":1,\"pgid_start\":0}x",
	    "{\"pid\":7,\"pid_start\":0,\"pgid\":1,\"pgid_start\":0}{}",
	    "{\"pid\":7,\"pid\":8,\"pid_start\":0,\"pgid\":1,\"pgid_start\":0}",
	    "[]",
	    "",
	};
	struct il_background_state st;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (il_background_state_parse(bad[i], &st) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
	assert_int_equal(
	    il_background_state_parse("{\"pid\":7,\"pid_start\":5,\"pgid\":9,\"pgid_start\":6,"
				      "\"cookie\":\"PATH=/bin\"}",
				      &st),
	    0);
	assert_int_equal(st.pid, 7);
	assert_int_equal(st.pgid_start, 6);
	assert_string_equal(st.command, "?");
	assert_string_equal(st.cookie, ""); /* not ours: never matched */
}

static int group_setup(void **state)
{
	if (il_test_suite_setup(state) < 0)
		return -1;
	/* This file's state files, apart from any real run's. */
	setenv("IL_STATE_DIR", il_test_suite.tmpdir, 1);
	return 0;
}

static int teardown(void **state)
{
	if (live_run > 0) {
		kill(live_run, SIGKILL);
		waitpid(live_run, NULL, 0);
		live_run = 0;
		/* What it left, by its state file. */
		char *argv[] = {il_test_suite.inputlat, "check", NULL};
		struct il_test_result *res = malloc(sizeof(*res));

		if (res)
			il_test_run(argv, 60000, res);
		free(res);
	}
	return 0;
}

/* Not il_test_suite_teardown: a run reaped here by waitpid is still on
 * il_test_spawn's list, and its pid must not be signalled again. */
static int group_teardown(void **state)
{
	teardown(state);
	return il_test_paths_close(&il_test_suite) < 0 ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_background_not_found, teardown),
	    cmocka_unit_test(test_background_long_command_recovered),
	    cmocka_unit_test(test_background_state_refused),
	    cmocka_unit_test_teardown(test_background_normal_end, teardown),
	    cmocka_unit_test_teardown(test_background_share_of_its_cpus, teardown),
	    cmocka_unit_test_teardown(test_background_ends_during_run, teardown),
	    cmocka_unit_test_teardown(test_background_sigint, teardown),
	    cmocka_unit_test_teardown(test_background_sigkill_reaped, teardown),
	    cmocka_unit_test_teardown(test_background_sigkill_then_check, teardown),
	    cmocka_unit_test_teardown(test_background_escapee_normal_end, teardown),
	    cmocka_unit_test_teardown(test_background_escapee_sigkill_then_check, teardown),
	    cmocka_unit_test_teardown(test_background_reexec_escapee_stopped, teardown),
	    cmocka_unit_test_teardown(test_background_inherits_no_descriptor, teardown),
	    cmocka_unit_test_teardown(test_background_stderr_quoted, teardown),
	};

	if (il_test_filters("test_background", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
