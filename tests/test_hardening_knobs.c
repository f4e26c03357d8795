/*
 * Hardening, round two (issue 16): the system knobs of a run.
 *
 * A run puts the knobs back from what it holds in memory, whatever became
 * of its state file; the knob lock is one per machine whatever
 * IL_STATE_DIR says, so a second run waits (exit 75) and a dead run's
 * knobs are repaired by the next start from any state directory, a zombie
 * holding nothing; a stale state file naming the new run's own pid is
 * stale; `check` never writes a knob a run holds; the watchdog of a run
 * that put its knobs back never writes them again; a restore that fails is
 * reported as failed (exit 1, one line, knobs[].restored false) and kept
 * for `inputlat restore`; Ctrl-Z ends a run like Ctrl-C, knobs put back.
 *
 * Root, under the knob fixture (tests/lib/il_test_knobs.h), which puts
 * the knobs back after every case.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_knobs.h"
#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

#define VALUE	    "900000" /* what the test policy sets sched_rt_runtime_us to */
#define OTHER_VALUE "800000"
#define START_MS    20000

static char policy[PATH_MAX], other_policy[PATH_MAX];

/* A fresh private state directory (0700, root's) for one run. */
static const char *state_dir(const char *name)
{
	const char *d = il_test_suite_file(name);

	mkdir(d, 0700);
	return d;
}

static void wait_knob(const char *value)
{
	for (int i = 0; i < 1000 && strcmp(il_test_knob(IL_TEST_RT_RUNTIME), value) != 0; i++)
		usleep(5000);
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), value);
}

static void assert_knob_orig(void)
{
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME),
			    il_test_knob_orig(IL_TEST_RT_RUNTIME));
}

/*
 * Starts `inputlat run --policy POLICY ARGS...` with IL_STATE_DIR=sdir
 * (NULL: the machine's), stdout to out, stderr to tag.err, and waits until
 * its chain is up. Returns what il_test_chain_start returned.
 */
static int start(struct il_test_chain *c, const char *tag, const char *sdir, const char *pol,
		 const char *const *args, const char *out)
{
	char *argv[32] = {il_test_suite.inputlat, "run", "--quiet", "--policy", (char *)pol};
	char errp[PATH_MAX], outp[PATH_MAX];
	char *saved = getenv("IL_STATE_DIR") ? strdup(getenv("IL_STATE_DIR")) : NULL;
	int n = 5, rc;

	for (int i = 0; args && args[i] && n < 31; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	snprintf(errp, sizeof(errp), "%s", il_test_suite_file(tag));
	strncat(errp, ".err", sizeof(errp) - strlen(errp) - 1);
	snprintf(outp, sizeof(outp), "%s", out ? out : "/dev/null");
	if (sdir)
		setenv("IL_STATE_DIR", sdir, 1);
	/* Another inputlat may take the knobs a moment between the wait for
	 * them and this start (a plain run repairs a dead run's, `check`
	 * too): started again then, not failed (exit 75). */
	rc = il_test_knobs_chain_start(c, argv, outp, errp, START_MS);
	if (saved)
		setenv("IL_STATE_DIR", saved, 1);
	else
		unsetenv("IL_STATE_DIR");
	free(saved);
	return rc;
}

/*
 * Runs inputlat ARGS to the end with IL_STATE_DIR=sdir (NULL: unchanged);
 * il_test_run's result, asserted by the caller (run_in, or a test that
 * must join a thread first).
 */
static int run_in_rc(const char *sdir, char *const *args, struct il_test_result *res)
{
	char *argv[32] = {il_test_suite.inputlat};
	char *saved = getenv("IL_STATE_DIR") ? strdup(getenv("IL_STATE_DIR")) : NULL;
	int n = 1, rc;

	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (sdir)
		setenv("IL_STATE_DIR", sdir, 1);
	rc = il_test_run(argv, 30000, res);
	if (saved)
		setenv("IL_STATE_DIR", saved, 1);
	else if (sdir)
		unsetenv("IL_STATE_DIR");
	free(saved);
	return rc;
}

/* Runs inputlat ARGS to the end with IL_STATE_DIR=sdir (NULL: unchanged). */
static void run_in(const char *sdir, char *const *args, struct il_test_result *res)
{
	assert_int_equal(run_in_rc(sdir, args, res), 0);
	assert_false(res->timed_out);
}

/* run_in for a command that needs the knobs: again while another run
 * holds them (exit 75), within IL_TEST_KNOBS_WAIT_MS. */
static void run_in_waiting(const char *sdir, char *const *args, struct il_test_result *res)
{
	double deadline = il_test_now_s() + IL_TEST_KNOBS_WAIT_MS / 1000.0;

	for (;;) {
		il_test_knobs_need_free();
		run_in(sdir, args, res);
		if (!il_test_knobs_busy_exit(res->exit_code) || il_test_now_s() > deadline)
			return;
		print_message("exit %d: another inputlat run took the system knobs; again\n",
			      res->exit_code);
		usleep(200000);
	}
}

static const char *chain_err(struct il_test_chain *c)
{
	static char buf[16384];

	return il_test_chain_stderr(c, buf, sizeof(buf));
}

/* --- in-memory restore --------------------------------------------------- */

enum tamper { T_DELETE, T_SYMLINK, T_GARBAGE, T_FOREIGN, T_COUNT };

/*
 * Whatever happens to the state file during the run, the run puts back
 * what it holds in memory at its end, says restored: true, and never
 * writes through what was put in the file's place.
 */
static void test_hardening_knobs_restore_from_memory(void **state)
{
	static const char *const names[T_COUNT] = {"deleted", "symlink", "garbage", "foreign"};
	const char *args[] = {"--events", "40", "--interval-ms", "20", "--json", NULL, NULL};

	il_test_knobs_need_change(VALUE);
	for (int t = 0; t < T_COUNT; t++) {
		char tag[32], sfile[PATH_MAX + 16], json[PATH_MAX];
		const char *sdir, *victim = il_test_suite_file("victim");
		struct il_test_chain c;
		const cJSON *k;
		cJSON *root;
		int st;

		snprintf(tag, sizeof(tag), "mem-%s", names[t]);
		sdir = state_dir(tag);
		snprintf(sfile, sizeof(sfile), "%s/" IL_KNOBS_STATE_FILE, sdir);
		snprintf(json, sizeof(json), "%s.json", il_test_suite_file(tag));
		args[5] = json;
		il_test_write_file(victim, "VICTIM\n");
		il_test_knobs_need_free();
		il_test_chain_assert_up(&c, start(&c, tag, sdir, policy, args, NULL));
		wait_knob(VALUE);
		assert_int_equal(access(sfile, F_OK), 0);
		/* Mid-run. */
		unlink(sfile);
		if (t == T_SYMLINK)
			assert_int_equal(symlink(victim, sfile), 0);
		else if (t == T_GARBAGE)
			il_test_write_file(sfile, "not a state file\n");
		else if (t == T_FOREIGN)
			il_test_write_file(
			    sfile, "{\"file_version\":1,\"pid\":1,\"pid_start_ticks\":\"1\","
				   "\"knobs\":[{\"path\":\"" IL_TEST_RT_RUNTIME "\","
				   "\"original\":\"" OTHER_VALUE "\",\"applied\":\"1\"}]}");
		st = il_test_chain_wait(&c, IL_TEST_HANG_MS);
		il_test_assert_exited(st, 0, chain_err(&c));
		assert_knob_orig();
		{
			char buf[64];

			assert_true(il_test_read_file(victim, buf, sizeof(buf)) > 0);
			assert_string_equal(buf, "VICTIM\n");
		}
		root = il_test_json_load(json);
		k = il_test_knobs_report_entry(root, IL_TEST_RT_RUNTIME);
		assert_non_null(k);
		assert_true(cJSON_IsTrue(cJSON_GetObjectItem(k, "restored")));
		cJSON_Delete(root);
		print_message("state file %s mid-run: knob back, exit 0\n", names[t]);
	}
}

/* --- Ctrl-Z --------------------------------------------------------------- */

/*
 * Ctrl-Z (SIGTSTP to the terminal's foreground group: inputlat and its
 * children) ends the run: a paused run would keep the knobs changed for as
 * long as it stays stopped, with its watchdog stopped too. The knob is
 * back, the report says interrupted, nobody is left stopped (a stopped
 * process would make the wait below run out).
 */
static void test_hardening_knobs_ctrl_z_ends_run(void **state)
{
	const char *args[] = {"--events", "100000", "--interval-ms", "20", "--json", NULL, NULL};
	char json[PATH_MAX];
	struct il_test_chain c;
	cJSON *root;
	const cJSON *k;
	int st;

	il_test_knobs_need_change(VALUE);
	il_test_knobs_need_free();
	snprintf(json, sizeof(json), "%s", il_test_suite_file("ctrl-z.json"));
	args[5] = json;
	il_test_chain_assert_up(&c, start(&c, "ctrl-z", NULL, policy, args, NULL));
	wait_knob(VALUE);
	assert_true(il_test_chain_wait_events(&c, 5, START_MS));
	/* What the terminal does: every process of the group, at once. */
	kill(c.pid, SIGTSTP);
	for (int p = 0; p < IL_TEST_NKIDS; p++)
		if (c.kids[p])
			kill(c.kids[p], SIGTSTP);
	st = il_test_chain_wait(&c, IL_TEST_HANG_MS);
	il_test_assert_exited(st, 0, chain_err(&c));
	assert_knob_orig();
	if (!strstr(chain_err(&c), "a paused run would keep the system knobs changed"))
		fail_msg("Ctrl-Z: want the reason in one line, got:\n%s", chain_err(&c));
	root = il_test_json_load(json);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "interrupted")));
	k = il_test_knobs_report_entry(root, IL_TEST_RT_RUNTIME);
	assert_non_null(k);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(k, "restored")));
	cJSON_Delete(root);
	assert_true(il_test_chain_gone(&c, 2000));
	assert_int_equal(il_test_count_project_procs(), 0);
}

/* --- one lock per machine ------------------------------------------------ */

static void test_hardening_knobs_one_lock_per_machine(void **state)
{
	const char *args[] = {"--events", "100000", "--interval-ms", "10", NULL};
	const char *a_dir = state_dir("lock-a"), *b_dir = state_dir("lock-b"),
		   *c_dir = state_dir("lock-c");
	/* Static: a need_*() or IL_TEST_SKIP below returns past any free(). */
	static struct il_test_result res_buf;
	struct il_test_result *res = &res_buf;
	char *run_b[] = {"run", "--quiet", "--policy", other_policy, "--events", "3", NULL};
	char *run_c[] = {"run", "--quiet", "--policy", "cfs", "--events", "3", NULL};
	char *restore[] = {"restore", NULL};
	char *check[] = {"check", NULL};
	char want[128];
	struct il_test_chain a;

	assert_non_null(res);
	il_test_knobs_need_change(VALUE);
	il_test_knobs_need_free();
	il_test_chain_assert_up(&a, start(&a, "lock-a", a_dir, policy, args, NULL));
	wait_knob(VALUE);
	snprintf(want, sizeof(want), "held by running inputlat pid %d", (int)a.pid);

	/* Another state directory is the same machine: wait, exit 75. */
	run_in(b_dir, run_b, res);
	assert_int_equal(res->exit_code, 75);
	if (!il_test_one_line(res->err) || !strstr(res->err, want))
		fail_msg("run in another state dir: want one line '%s', got:\n%s", want, res->err);
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), VALUE);
	/* A run that needs no knobs runs, and says nothing about them (a build
	 * without the BPF capture says that, in one line, and nothing else). */
	run_in(c_dir, run_c, res);
	assert_int_equal(res->exit_code, 0);
	if (strcmp(res->err, IL_TEST_ATTRIB_BPF ? ""
						: "inputlat run: no attribution: built without "
						  "BPF tools\n") != 0)
		fail_msg("a run without knobs printed:\n%s", res->err);
	/* restore waits too; check does not write the knob. */
	run_in(b_dir, restore, res);
	assert_int_equal(res->exit_code, 75);
	run_in(b_dir, check, res);
	assert_int_equal(res->exit_code, 0);
	if (!strstr(res->out, "sched_rt_runtime_us: yes (" VALUE) ||
	    !strstr(res->out, "not written"))
		fail_msg("check while a run holds the knobs:\n%s", res->out);
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), VALUE);

	kill(a.pid, SIGINT);
	/* Waited for first: its stderr is complete once it exited. */
	il_test_chain_wait(&a, IL_TEST_HANG_MS);
	il_test_assert_stopped(a.status, chain_err(&a));
	assert_knob_orig();
}

/* Threads listed under /proc/PID/task (0 when unreadable). */
static int count_tasks(const char *task_dir)
{
	DIR *d = opendir(task_dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* A dead run's knobs are put back by the next start, from any state dir;
 * a killed run not reaped yet (a zombie) holds nothing. */
static void test_hardening_knobs_dead_run_repaired_anywhere(void **state)
{
	const char *args[] = {"--events", "100000", "--interval-ms", "10", NULL};
	/* Static: a need_*() or IL_TEST_SKIP below returns past any free(). */
	static struct il_test_result res_buf;
	struct il_test_result *res = &res_buf;
	char *run_cfs[] = {"run", "--quiet", "--policy", "cfs", "--events", "3", NULL};
	char *run_knob[] = {"run", "--quiet", "--policy", policy, "--events", "3", NULL};
	char *run_bad[] = {"run", "--quiet",   "--policy", "cfs", "--events",
			   "3",	  "--records", NULL,	   NULL};
	char want[128], sfile[PATH_MAX + 16];

	assert_non_null(res);
	il_test_knobs_need_change(VALUE);
	for (int zombie = 0; zombie < 2; zombie++) {
		const char *dead_dir = state_dir(zombie ? "dead-z" : "dead"), *next_dir;
		struct il_test_chain a;

		next_dir = state_dir(zombie ? "next-z" : "next");
		il_test_knobs_need_free();
		il_test_chain_assert_up(&a, start(&a, "dead", dead_dir, policy, args, NULL));
		wait_knob(VALUE);
		kill(a.pid, SIGKILL);
		snprintf(sfile, sizeof(sfile), "%s/" IL_KNOBS_STATE_FILE, dead_dir);
		if (!zombie) {
			il_test_chain_wait(&a, IL_TEST_HANG_MS);
		} else {
			/* Not reaped: a zombie, until the end of this case. */
			struct il_procfs_stat st = {.state = '?'};
			char path[64];

			for (int i = 0; i < 500 && st.state != 'Z'; i++) {
				usleep(5000);
				il_procfs_stat(a.pid, 0, 0, &st);
			}
			assert_int_equal(st.state, 'Z');
			/* The leader shows 'Z' while its other threads may still be
			 * exiting, holding the open files (the lock among them): a
			 * zombie is a process whose threads are all gone. */
			snprintf(path, sizeof(path), "/proc/%d/task", (int)a.pid);
			for (int i = 0; i < 1000 && count_tasks(path) > 1; i++)
				usleep(5000);
			assert_int_equal(count_tasks(path), 1);
		}
		assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), VALUE);
		assert_int_equal(access(sfile, F_OK), 0);
		/*
		 * A start refused for bad input touches nothing, the dead run's
		 * knobs neither: its error stays one line (the repair's line
		 * came first, and a test beside a killed run's saw two).
		 */
		run_bad[7] = (char *)next_dir; /* --records: a directory */
		run_in(next_dir, run_bad, res);
		il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2,
					     "inputlat run: --records", "a directory");
		assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), VALUE);
		assert_int_equal(access(sfile, F_OK), 0);
		/* The next start, elsewhere: a plain run, then one with knobs. */
		run_in(next_dir, zombie ? run_knob : run_cfs, res);
		snprintf(want, sizeof(want), "left by dead run pid %d", (int)a.pid);
		if (res->exit_code != 0 || !strstr(res->err, want))
			fail_msg(
			    "the next start (%s) did not repair the dead run's knobs: exit %d\n%s",
			    zombie ? "dead run a zombie" : "dead run reaped", res->exit_code,
			    res->err);
		assert_knob_orig();
		assert_int_equal(access(sfile, F_OK), -1);
		if (zombie)
			il_test_chain_wait(&a, IL_TEST_HANG_MS);
	}
}

/*
 * A stale state file that names the pid the new run happens to get (pid
 * reuse after a reboot or a wrap) is a dead run's: the start time tells.
 */
static void test_hardening_knobs_stale_state_own_pid(void **state)
{
	const char *sdir = state_dir("ownpid");
	char sfile[PATH_MAX + 16], text[1024], errp[PATH_MAX], want[128];
	const char *orig = il_test_knob_orig(IL_TEST_RT_RUNTIME);
	const char *group = il_test_knob_orig(IL_TEST_RT_GROUP);
	char gentry[256] = "";
	pid_t pid;
	int status, fd;

	il_test_knobs_need_change(VALUE);
	il_test_knobs_need_free();
	snprintf(sfile, sizeof(sfile), "%s/" IL_KNOBS_STATE_FILE, sdir);
	snprintf(errp, sizeof(errp), "%s", il_test_suite_file("ownpid.err"));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = {il_test_suite.inputlat,
				"run",
				"--quiet",
				"--policy",
				policy,
				"--events",
				"3",
				NULL};
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(e, 2);
		setenv("IL_STATE_DIR", sdir, 1);
		raise(SIGSTOP); /* until its stale state file is in place */
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
	assert_true(WIFSTOPPED(status));
	/* A crashed run of that pid, long ago (start time 1): the knob changed
	 * (the root RT group first, as a run does it), the originals saved. */
	if (group[0]) {
		assert_int_equal(il_test_knob_write(IL_TEST_RT_GROUP, OTHER_VALUE), 0);
		snprintf(gentry, sizeof(gentry),
			 "{\"path\":\"" IL_TEST_RT_GROUP
			 "\",\"original\":\"%s\",\"applied\":\"" OTHER_VALUE "\"},",
			 group);
	}
	assert_int_equal(il_test_knob_write(IL_TEST_RT_RUNTIME, OTHER_VALUE), 0);
	snprintf(text, sizeof(text),
		 "{\"file_version\":1,\"pid\":%d,\"pid_start_ticks\":\"1\",\"knobs\":[%s{\"path\":"
		 "\"" IL_TEST_RT_RUNTIME "\",\"original\":\"%s\",\"applied\":\"" OTHER_VALUE
		 "\"}]}",
		 (int)pid, gentry, orig);
	fd = open(sfile, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	kill(pid, SIGCONT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	{
		char err[8192];

		il_test_read_file(errp, err, sizeof(err));
		snprintf(want, sizeof(want), "left by dead run pid %d", (int)pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !strstr(err, want))
			fail_msg("a stale state file naming the run's own pid: status %#x\n%s",
				 status, err);
	}
	assert_knob_orig();
	assert_int_equal(access(sfile, F_OK), -1);
}

/* --- check ----------------------------------------------------------------- */

/*
 * `check` while runs come and go: it never writes back a value a run set
 * (it once left sched_rt_runtime_us at -1 after a run).
 */
static void test_hardening_knobs_check_races_runs(void **state)
{
	const char *args[] = {"--events", "15", "--interval-ms", "10", NULL};
	char *check[] = {"check", NULL};
	/* Static: a need_*() or IL_TEST_SKIP below returns past any free(). */
	static struct il_test_result res_buf;
	struct il_test_result *res = &res_buf;

	assert_non_null(res);
	il_test_knobs_need_change(VALUE);
	for (int round = 0; round < 4; round++) {
		struct il_test_chain a;
		int checks = 0;

		il_test_knobs_need_free();
		il_test_chain_assert_up(&a, start(&a, "race", NULL, policy, args, NULL));
		while (!il_test_chain_ended(&a)) {
			run_in(NULL, check, res);
			assert_int_equal(res->exit_code, 0);
			/* It saw the run's value: it must not have written it. */
			if (strstr(res->out, "sched_rt_runtime_us: yes (" VALUE " ") &&
			    !strstr(res->out, "not written"))
				fail_msg("check wrote back the value a run held:\n%s", res->out);
			checks++;
		}
		il_test_assert_exited(a.status, 0, chain_err(&a));
		assert_knob_orig();
		print_message("round %d: %d checks during the run; knob back\n", round, checks);
	}
}

/* Holds the machine's knob lock for hold_ms, as a run that sets no knobs,
 * `check` or `restore` does for a moment. */
struct moment {
	unsigned hold_ms;
	_Atomic int held;
	int rc;
};

static void *hold_lock_thread(void *arg)
{
	struct moment *m = arg;
	struct il_knobs_lock *l = NULL;
	struct timespec ts = {(time_t)(m->hold_ms / 1000), (long)(m->hold_ms % 1000) * 1000000L};
	char err[256];

	/* Waiting itself: a run beside the suite may be looking for a moment. */
	m->rc = il_knobs_lock_wait(NULL, NULL, IL_KNOBS_LOCK_WAIT_MS, &l, err, sizeof(err));
	m->held = 1;
	if (m->rc == 0) {
		nanosleep(&ts, NULL);
		il_knobs_unlock(l);
	}
	return NULL;
}

/*
 * A run that sets knobs, started while another inputlat holds the lock
 * for a moment (a plain run's look for a dead run's knobs, `check`),
 * waits for it instead of being refused (exit 75 named the plain run as
 * the holder); one held longer than IL_KNOBS_LOCK_WAIT_MS is still
 * refused, in one line, once that wait is over.
 */
static void test_hardening_knobs_moment_holder_waited_for(void **state)
{
	char *run[] = {"run", "--quiet", "--events", "3", "--policy", policy, NULL};
	/* Static: a need_*() or IL_TEST_SKIP below returns past any free(). */
	static struct il_test_result res_buf;
	struct il_test_result *res = &res_buf;
	const unsigned holds[] = {300, IL_KNOBS_LOCK_WAIT_MS + 1500};

	assert_non_null(res);
	il_test_knobs_need_change(VALUE);
	for (size_t i = 0; i < 2; i++) {
		struct moment m = {.hold_ms = holds[i]};
		double t0;
		pthread_t t;
		int rc;

		il_test_knobs_need_free();
		assert_int_equal(pthread_create(&t, NULL, hold_lock_thread, &m), 0);
		while (!m.held)
			usleep(1000);
		t0 = il_test_now_s();
		/* The run's result is asserted once the holder is joined: it
		 * reads m, on this stack, until it lets the lock go. */
		rc = run_in_rc(NULL, run, res);
		assert_int_equal(pthread_join(t, NULL), 0);
		if (rc != 0)
			fail_msg("held %u ms: running inputlat: %d", holds[i], rc);
		assert_false(res->timed_out);
		assert_int_equal(m.rc, 0);
		if (i == 0 && res->exit_code != 0)
			fail_msg("held %u ms: exit %d:\n%s", holds[i], res->exit_code, res->err);
		if (i == 1) {
			assert_int_equal(res->exit_code, 75);
			assert_true(il_test_one_line(res->err));
			assert_true(il_test_now_s() - t0 >= IL_KNOBS_LOCK_WAIT_MS / 1000.0);
		}
		assert_knob_orig();
	}
}

/* --- the watchdog ------------------------------------------------------------ */

/*
 * A run that put its knobs back and then blocks writing an output (stdout
 * is a pipe nobody reads) until its watchdog fires: the watchdog kills it
 * but never writes its originals over the next run's knobs, or removes
 * that run's state file.
 */
static void test_hardening_knobs_watchdog_after_restore(void **state)
{
	const char *fifo = il_test_suite_file("blocked.out");
	/* A's bound is 8 s (--bound-ms), not the 21 s its size would give:
	 * long enough for B to start and take the knobs first. */
	const char *a_args[] = {"--events",	 "20",	   "--interval-ms", "10",   "--hist", "-",
				"--hist-max-us", "300000", "--bound-ms",    "8000", NULL};
	const char *b_args[] = {"--events", "100000", "--interval-ms", "10", NULL};
	char sfile[PATH_MAX + 16];
	struct il_test_chain a, b;
	int rd, st;

	il_test_knobs_need_change(VALUE);
	il_test_knobs_need_free();
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	rd = open(fifo, O_RDONLY | O_NONBLOCK); /* open, never read */
	assert_true(rd >= 0);
	il_test_chain_assert_up(&a, start(&a, "blocked", NULL, policy, a_args, fifo));
	/* A ends its loop, puts its knobs back, and blocks on stdout. */
	for (int i = 0; i < 1000 && (strcmp(il_test_knob(IL_TEST_RT_RUNTIME),
					    il_test_knob_orig(IL_TEST_RT_RUNTIME)) != 0 ||
				     il_test_knobs_state_pid() == a.pid);
	     i++)
		usleep(10000);
	assert_knob_orig();
	assert_true(il_test_proc_alive(a.pid, "inputlat"));
	/* A lets the lock go a moment after its state file. */
	il_test_knobs_need_free();

	/* The next run takes the knobs... */
	il_test_chain_assert_up(&b, start(&b, "next", NULL, other_policy, b_args, NULL));
	wait_knob(OTHER_VALUE);
	/* Only a watchdog that fires after B took the knobs tests anything. */
	if (!il_test_proc_alive(a.pid, "inputlat")) {
		kill(b.pid, SIGINT);
		il_test_chain_wait(&b, 10000);
		il_test_chain_wait(&a, 1000);
		close(rd);
		IL_TEST_NEED(0, "the blocked run's 8 s bound passed before the next run took the "
				"knobs (a machine this busy cannot stage the case)");
	}
	snprintf(sfile, sizeof(sfile), "%s", il_test_knobs_state_file());
	/* ... and A's watchdog fires, at its bound. */
	st = il_test_chain_wait(&a, 30000);
	close(rd);
	assert_true(st != -1);
	if (!strstr(chain_err(&a), "watchdog"))
		fail_msg("the blocked run ended without its watchdog: %s", chain_err(&a));
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), OTHER_VALUE);
	assert_int_equal(il_test_knobs_state_pid(), b.pid);
	assert_int_equal(access(sfile, F_OK), 0);
	kill(b.pid, SIGINT);
	/* Waited for first: its stderr is complete once it exited. */
	il_test_chain_wait(&b, IL_TEST_HANG_MS);
	il_test_assert_stopped(b.status, chain_err(&b));
	assert_knob_orig();
}

/* --- a restore that fails ------------------------------------------------------ */

struct dl_hold {
	pthread_t th;
	int pipe[2];
	int err;
	sem_t *ready; /* posted once it holds its bandwidth, or could not */
};

struct il_test_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

/* A deadline thread that holds 96% of a CPU's bandwidth while it sleeps. */
static void *dl_main(void *arg)
{
	struct dl_hold *h = arg;
	struct il_test_sched_attr a = {.size = sizeof(a),
				       .sched_policy = 6 /* SCHED_DEADLINE */,
				       .sched_runtime = 96000000,
				       .sched_deadline = 100000000,
				       .sched_period = 100000000};
	char c;

	h->err = syscall(SYS_sched_setattr, 0, &a, 0) == 0 ? 0 : errno;
	sem_post(h->ready);
	if (!h->err && read(h->pipe[0], &c, 1) < 0)
		h->err = errno;
	return NULL;
}

/*
 * Ends the n deadline threads and joins them. Closing the write end ends
 * a read whatever else went wrong: they use h, on the test's stack, and
 * hold the bandwidth, so none may outlive a test that fails.
 */
static void dl_release(struct dl_hold *h, int n)
{
	for (int i = 0; i < n; i++) {
		close(h[i].pipe[1]);
		pthread_join(h[i].th, NULL);
		close(h[i].pipe[0]);
	}
}

/*
 * While the rt policy runs with sched_rt_runtime_us = -1 (no deadline
 * admission control), deadline threads take more bandwidth than 950000
 * allows, so putting the knob back fails (EBUSY), as the fair server's
 * raised runtime made it fail on 6.12. The run says so: exit 1, one line,
 * knobs[].restored false with the error, the state file kept; `inputlat
 * restore` puts it back once the bandwidth is free.
 */
static void test_hardening_knobs_failed_restore_reported(void **state)
{
	const char *args[] = {
	    "--events", "100000", "--interval-ms", "10", "--work", "none", "--json", NULL, NULL};
	char json[PATH_MAX], *restore[] = {"restore", NULL};
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct dl_hold h[64];
	sem_t ready;
	/* Static: a need_*() or IL_TEST_SKIP below returns past any free(). */
	static struct il_test_result res_buf;
	struct il_test_result *res = &res_buf;
	struct il_test_chain a;
	const cJSON *k;
	cJSON *root;
	int st, held = 0, started = 0, cerr = 0;

	assert_non_null(res);
	il_test_knobs_need_change("-1");
	il_test_knobs_need_free();
	snprintf(json, sizeof(json), "%s", il_test_suite_file("failed-restore.json"));
	args[7] = json;
	il_test_chain_assert_up(&a, start(&a, "failed-restore", NULL, "rt", args, NULL));
	wait_knob("-1");

	sem_init(&ready, 0, 0);
	while (started < ncpu && started < 64) {
		if (pipe(h[started].pipe) < 0) {
			cerr = errno;
			break;
		}
		h[started].ready = &ready;
		cerr = pthread_create(&h[started].th, NULL, dl_main, &h[started]);
		if (cerr) {
			close(h[started].pipe[0]);
			close(h[started].pipe[1]);
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++)
		sem_wait(&ready);
	for (int i = 0; i < started; i++)
		held += h[i].err == 0;
	if (cerr || held < ncpu) {
		dl_release(h, started);
		sem_destroy(&ready);
		kill(a.pid, SIGINT);
		il_test_chain_wait(&a, 10000);
		if (cerr)
			fail_msg("starting deadline thread %d: %s", started, strerror(cerr));
		IL_TEST_SKIP("SCHED_DEADLINE threads refused: %s", strerror(h[0].err));
	}

	kill(a.pid, SIGINT);
	st = il_test_chain_wait(&a, IL_TEST_HANG_MS);
	/* The restore was tried with the bandwidth held: the threads go now,
	 * before anything is asserted. */
	dl_release(h, started);
	sem_destroy(&ready);
	{
		const char *err = chain_err(&a);
		const char *line =
		    strstr(err, "inputlat: restoring system knobs: " IL_TEST_RT_RUNTIME
				" not put back to ");
		const char *eol = line ? strchr(line, '\n') : NULL;
		const char *busy = line ? strstr(line, "Device or resource busy") : NULL;

		il_test_assert_exited(st, 1, err);
		/* One line says it all (the run's warnings may follow: an ASan
		 * build's memory, a host's work accuracy). */
		if (!line || !eol || !busy || busy > eol || strstr(eol, "restoring system knobs"))
			fail_msg("want one line saying the restore failed, got:\n%s", err);
	}
	root = il_test_json_load(json);
	k = il_test_knobs_report_entry(root, IL_TEST_RT_RUNTIME);
	assert_non_null(k);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(k, "restored")));
	assert_string_equal(il_test_json_str(k, "restore_error"), "Device or resource busy");
	assert_int_equal((int)il_test_json_num(root, "exit_code"), 1);
	cJSON_Delete(root);
	assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), "-1");
	assert_int_equal(il_test_knobs_state_pid(), a.pid);
	/* The bandwidth is free again: the originals kept can go back. */
	run_in_waiting(NULL, restore, res);
	assert_int_equal(res->exit_code, 0);
	assert_knob_orig();
}

static int setup(void **state)
{
	if (il_test_knobs_suite_setup(state) < 0)
		return -1;
	chmod(il_test_suite.tmpdir, 0700);
	snprintf(policy, sizeof(policy), "%s/rt-" VALUE ".policy", il_test_suite.tmpdir);
	snprintf(other_policy, sizeof(other_policy), "%s/rt-" OTHER_VALUE ".policy",
		 il_test_suite.tmpdir);
	if (geteuid() == 0) {
		il_test_knobs_write_policy(policy, il_test_suite.policy_dir, VALUE);
		il_test_knobs_write_policy(other_policy, il_test_suite.policy_dir, OTHER_VALUE);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_hardening_knobs_restore_from_memory,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_ctrl_z_ends_run, il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_one_lock_per_machine,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_dead_run_repaired_anywhere,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_stale_state_own_pid,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_moment_holder_waited_for,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_check_races_runs,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_watchdog_after_restore,
				      il_test_knobs_teardown),
	    cmocka_unit_test_teardown(test_hardening_knobs_failed_restore_reported,
				      il_test_knobs_teardown),
	};

	if (il_test_filters("test_hardening_knobs", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, il_test_knobs_suite_teardown);
}
