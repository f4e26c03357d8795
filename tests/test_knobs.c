/* System knobs: applied, restored, recovered after a crash, and never left
 * changed. The knob fixture (tests/lib/il_test_knobs.h) keeps the suites
 * that change the knobs apart, and every test's teardown (and an atexit
 * handler) writes the original sched_rt_runtime_us/sched_rt_period_us back
 * directly, so even a failing assertion cannot leave this machine's RT
 * throttling changed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_cmd.h"
#include "il_knobs.h"
#include "il_test.h"
#include "il_test_knobs.h"

#define RT_RUNTIME IL_TEST_RT_RUNTIME
#define RT_PERIOD  IL_TEST_RT_PERIOD
#define RT_GROUP   IL_TEST_RT_GROUP

/* The originals, as the knob fixture read them at the group setup. */
static const char *orig_runtime, *orig_period, *orig_group;
/* This file's own state directory: il_knobs here never sees /run/inputlat. */
static char state_dir[] = "/tmp/il_test_knobs.XXXXXX";
static char state_path[sizeof(state_dir) + 32];

static int group_setup(void **state)
{
	/* The fixture reads the machine's state directory: before IL_STATE_DIR. */
	if (il_test_knobs_setup() < 0 || !mkdtemp(state_dir))
		return -1;
	orig_runtime = il_test_knob_orig(RT_RUNTIME);
	orig_period = il_test_knob_orig(RT_PERIOD);
	orig_group = il_test_knob_orig(RT_GROUP);
	snprintf(state_path, sizeof(state_path), "%s/" IL_KNOBS_STATE_FILE, state_dir);
	setenv("IL_STATE_DIR", state_dir, 1);
	return 0;
}

static int teardown(void **state)
{
	il_test_knobs_put_back();
	unlink(state_path);
	return 0;
}

static int group_teardown(void **state)
{
	teardown(state);
	il_test_tmpdir_remove(state_dir);
	return 0;
}

/* Root, a knob to change, and no other run holding the knobs: its
 * changed value must not be taken for, or overwritten with, ours. */
static void need_root(void)
{
	il_test_knobs_need_change("900000");
	il_test_knobs_need_free();
}

static const char *knob(const char *path)
{
	return il_test_knob(path);
}

/* Takes the machine's knob lock, failing the test when it cannot. */
static struct il_knobs_lock *lock_or_fail(void)
{
	struct il_knobs_lock *l = NULL;
	char err[512] = "";

	if (il_knobs_lock(NULL, NULL, &l, err, sizeof(err)) != 0)
		fail_msg("il_knobs_lock: %s", err);
	return l;
}

/*
 * Skips unless root (need_root), then takes the knob lock and sets
 * sched_rt_runtime_us to 900000 in this process, as a run does; rep says
 * what changed. Returns the lock, which the caller releases.
 */
static struct il_knobs_lock *apply_900000(struct il_knob_report *rep)
{
	struct il_knob_settings k = {.has_rt_runtime = true, .rt_runtime_us = 900000};
	struct il_knobs_lock *l;
	char err[512] = "";

	need_root();
	l = lock_or_fail();
	if (il_knobs_apply(&k, l, rep, err, sizeof(err)) != 0)
		fail_msg("il_knobs_apply: %s", err);
	return l;
}

/*
 * Whether another inputlat run recovered the knobs of a run this file
 * staged as dead: the knob is back and the state file gone. Any run that
 * takes the knobs lock next repairs the state directory the lock file
 * names, this file's private one too, and the suite's lanes run beside it
 * (scripts/test --under-load: one did, between the dead run's exit and
 * the case's look at the knob).
 */
static bool recovered_by_another(void)
{
	return strcmp(knob(RT_RUNTIME), orig_runtime) == 0 && access(state_path, F_OK) != 0;
}

/* Another go at a case whose dead run another run recovered first; the
 * third such fails. */
static void again(int *attempt, const char *what)
{
	if (++*attempt > 3)
		fail_msg("%s: another inputlat run recovered the dead run's knobs first, 3 times",
			 what);
	print_message("%s: another inputlat run recovered the dead run's knobs first; again\n",
		      what);
	il_test_knobs_put_back();
	unlink(state_path);
}

/*
 * A run, in a child process, that sets sched_rt_runtime_us to 900000 and
 * dies without putting it back: by exit 0, or by SIGKILL when killed.
 * Returns its pid, or 0 when another run recovered its knobs before the
 * look at them (recovered_by_another).
 */
static pid_t die_holding_knobs(bool killed)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct il_knob_settings k = {.has_rt_runtime = true, .rt_runtime_us = 900000};
		struct il_knob_report rep;
		struct il_knobs_lock *l = NULL;
		char err[512];

		if (il_knobs_lock(NULL, NULL, &l, err, sizeof(err)) != 0 ||
		    il_knobs_apply(&k, l, &rep, err, sizeof(err)) != 0)
			_exit(1);
		if (killed)
			raise(SIGKILL);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (killed)
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (recovered_by_another())
		return 0;
	assert_string_equal(knob(RT_RUNTIME), "900000");
	return pid;
}

static void test_knobs_apply_restore(void **state)
{
	struct il_knob_report rep;
	char err[512] = "";
	struct il_knobs_lock *l = apply_900000(&rep);
	assert_string_equal(knob(RT_RUNTIME), "900000");
	/* With RT_GROUP_SCHED the root RT group is lowered first. */
	size_t i = rep.n == 2 ? 1 : 0;
	assert_int_equal(rep.n, i + 1);
	if (i)
		assert_string_equal(rep.changes[0].path, RT_GROUP);
	assert_string_equal(rep.changes[i].path, RT_RUNTIME);
	assert_string_equal(rep.changes[i].original, orig_runtime);
	assert_string_equal(rep.changes[i].applied, "900000");
	assert_false(rep.changes[i].restored);
	assert_int_equal(rep.rt_runtime_us_before, atoi(orig_runtime));
	assert_string_equal(rep.state_path, state_path);

	struct stat st;
	assert_int_equal(lstat(state_path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(lstat(state_dir, &st), 0);
	assert_int_equal(st.st_mode & 022, 0);

	/* A second run is refused while the first holds the lock, even one
	 * that would change nothing, and `restore` too. */
	struct il_knobs_lock *l2 = NULL;
	char want[128];
	assert_int_equal(il_knobs_lock(NULL, NULL, &l2, err, sizeof(err)), -EBUSY);
	assert_null(l2);
	snprintf(want, sizeof(want), "system knobs are held by running inputlat pid %d",
		 (int)getpid());
	assert_non_null(strstr(err, want));
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), -EBUSY);
	assert_string_equal(knob(RT_RUNTIME), "900000");

	/* The end of the run puts back what it holds in memory. */
	assert_int_equal(il_knobs_release(&rep, l, err, sizeof(err)), 0);
	for (size_t j = 0; j < rep.n; j++) {
		assert_true(rep.changes[j].restored);
		assert_int_equal(rep.changes[j].restore_err, 0);
	}
	il_knobs_unlock(l);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	if (orig_group[0])
		assert_string_equal(knob(RT_GROUP), orig_group);
	assert_int_equal(lstat(state_path, &st), -1);

	/* Nothing left to restore. */
	struct il_knob_report restored;
	assert_int_equal(il_knobs_restore(NULL, &restored, err, sizeof(err)), 0);
	assert_int_equal(restored.n, 0);
}

static void test_knobs_noop_writes_no_state(void **state)
{
	struct il_knob_settings k = {.has_rt_runtime = true};
	struct il_knob_report rep;
	char err[512] = "";
	int64_t v = strtoll(orig_runtime, NULL, 10);
	k.rt_runtime_us = v;
	/* Nothing to change needs no lock. */
	assert_int_equal(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.n, 0);
	assert_int_equal(access(state_path, F_OK), -1);
}

static void test_knobs_crash_recovery(void **state)
{
	char *log = NULL, want[256];
	size_t loglen = 0;
	pid_t pid;
	FILE *f;

	need_root();
	for (int attempt = 0;; again(&attempt, "crash_recovery")) {
		pid = die_holding_knobs(false);
		if (!pid)
			continue;
		if (access(state_path, F_OK) != 0) {
			if (recovered_by_another())
				continue;
			fail_msg("the dead run left no state file at %s", state_path);
		}
		f = open_memstream(&log, &loglen);
		assert_int_equal(il_knobs_recover_stale(NULL, f), 0);
		fclose(f);
		snprintf(want, sizeof(want), "left by dead run pid %d: ", (int)pid);
		if (strstr(log, want) || !recovered_by_another())
			break;
		free(log);
		log = NULL;
	}
	assert_non_null(strstr(log, want));
	assert_true(strncmp(log, "inputlat: restored ", 19) == 0);
	snprintf(want, sizeof(want), " " RT_RUNTIME "=%s", orig_runtime);
	assert_non_null(strstr(log, want));
	assert_int_equal(strchr(log, '\n') - log, (ptrdiff_t)strlen(log) - 1); /* one line */
	free(log);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	assert_int_equal(access(state_path, F_OK), -1);
}

/* What an administrator (or another tool) writes while the knob is ours:
 * at or above the original, so the root RT group can still go back. */
static void someone_else_sets(const char *value)
{
	FILE *f = fopen(RT_RUNTIME, "w");

	assert_non_null(f);
	assert_true(fputs(value, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(knob(RT_RUNTIME), value);
}

/*
 * Only our own change is undone: a knob someone else changed after the
 * run set it is left as they set it (left_as), at the end of a run and in
 * recovery after a crash alike, and that is not an error. It was written
 * back over them before.
 */
static void test_knobs_someone_elses_value_is_left(void **state)
{
	struct il_knob_report rep;
	char err[512] = "", want[256], *log = NULL;
	size_t loglen = 0, i;
	struct il_knobs_lock *l = apply_900000(&rep);
	FILE *f;

	someone_else_sets("960000");
	assert_int_equal(il_knobs_release(&rep, l, err, sizeof(err)), 0);
	il_knobs_unlock(l);
	i = rep.n - 1; /* sched_rt_runtime_us, after the root group */
	assert_string_equal(rep.changes[i].path, RT_RUNTIME);
	assert_false(rep.changes[i].restored);
	assert_int_equal(rep.changes[i].restore_err, 0);
	assert_string_equal(rep.changes[i].left_as, "960000");
	assert_string_equal(knob(RT_RUNTIME), "960000");
	if (orig_group[0])
		assert_string_equal(knob(RT_GROUP), orig_group);
	assert_int_equal(access(state_path, F_OK), -1);
	il_test_knobs_put_back();

	/* The same after a crash: the next start leaves their value. */
	snprintf(want, sizeof(want),
		 " " RT_RUNTIME " left at 960000 (changed by someone else since it set 900000)");
	for (int attempt = 0;; again(&attempt, "someone_elses_value_is_left")) {
		if (!die_holding_knobs(true))
			continue;
		someone_else_sets("960000");
		f = open_memstream(&log, &loglen);
		assert_int_equal(il_knobs_recover_stale(NULL, f), 0);
		fclose(f);
		/* Recovered first by another run, the state file is gone and
		 * our recovery had nothing to say. */
		if (log[0] || access(state_path, F_OK) == 0)
			break;
		free(log);
		log = NULL;
	}
	if (!strstr(log, want))
		fail_msg("recovery said: %s", log);
	free(log);
	assert_string_equal(knob(RT_RUNTIME), "960000");
	assert_int_equal(access(state_path, F_OK), -1);
	il_test_knobs_put_back();

	/* And in the watchdog's emergency restore (a signal handler). */
	l = apply_900000(&rep);
	someone_else_sets("960000");
	assert_int_equal(il_knobs_restore_signal_safe(&rep), 0);
	il_knobs_unlock(l);
	assert_string_equal(knob(RT_RUNTIME), "960000");
	if (orig_group[0])
		assert_string_equal(knob(RT_GROUP), orig_group);
	assert_int_equal(access(state_path, F_OK), -1);
}

static void test_knobs_live_owner_is_left_alone(void **state)
{
	struct il_knob_report rep;
	struct il_knobs_lock *l = apply_900000(&rep);

	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char e[512];
		int r1 = il_knobs_recover_stale(NULL, NULL);
		int r2 = il_knobs_restore(NULL, NULL, e, sizeof(e));
		_exit(r1 == -EBUSY && r2 == -EBUSY ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(knob(RT_RUNTIME), "900000");
	/* The lock is the holder's, in its own process too. */
	assert_int_equal(il_knobs_recover_stale(NULL, NULL), -EBUSY);
	assert_string_equal(knob(RT_RUNTIME), "900000");

	assert_int_equal(il_knobs_restore_signal_safe(&rep), 0);
	il_knobs_unlock(l);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	assert_int_equal(access(state_path, F_OK), -1);
}

static int index_of(const struct il_knob_report *rep, const char *path)
{
	for (size_t i = 0; i < rep->n; i++)
		if (strcmp(rep->changes[i].path, path) == 0)
			return (int)i;
	return INT_MAX;
}

/*
 * Applies a runtime/period pair and checks that first was written before
 * second (the root RT group, if any, around them) and that the runtime is
 * in force, then restores both.
 */
static void apply_pair(int64_t runtime_us, int64_t period_us, const char *first, const char *second)
{
	struct il_knob_settings k = {.has_rt_runtime = true,
				     .rt_runtime_us = runtime_us,
				     .has_rt_period = true,
				     .rt_period_us = period_us};
	struct il_knob_report rep;
	char err[512] = "", want[32];
	struct il_knobs_lock *l = lock_or_fail();
	int r = il_knobs_apply(&k, l, &rep, err, sizeof(err));

	if (r == -EBUSY || r == -EINVAL) {
		il_knobs_unlock(l);
		IL_TEST_SKIP("%s", err); /* deadline tasks elsewhere hold bandwidth */
	}
	if (r)
		fail_msg("%s", err);
	assert_true(index_of(&rep, first) < index_of(&rep, second));
	assert_true(index_of(&rep, second) < (int)rep.n);
	snprintf(want, sizeof(want), "%lld", (long long)runtime_us);
	assert_string_equal(knob(RT_RUNTIME), want);
	assert_int_equal(il_knobs_release(&rep, l, err, sizeof(err)), 0);
	il_knobs_unlock(l);
	assert_string_equal(knob(RT_PERIOD), orig_period);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
}

/* runtime <= period must hold after every write, both ways. */
static void test_knobs_rt_pair_ordering(void **state)
{
	struct il_knob_settings k = {.has_rt_runtime = true,
				     .rt_runtime_us = 600000,
				     .has_rt_period = true,
				     .rt_period_us = 500000};
	struct il_knob_report rep;
	char err[512] = "";

	need_root();
	if (strcmp(orig_period, "1000000") != 0)
		IL_TEST_SKIP("sched_rt_period_us is not the default 1000000");
	/* Shrinking: runtime first. Growing: period first. */
	apply_pair(400000, 500000, RT_RUNTIME, RT_PERIOD);
	apply_pair(1900000, 2000000, RT_PERIOD, RT_RUNTIME);
	assert_int_equal(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "sched_rt_runtime_us 600000 > sched_rt_period_us 500000 "
				 "(want -1 or at most the period)");
}

static void write_state(const char *text, mode_t mode)
{
	int fd = open(state_path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	fchmod(fd, mode);
	close(fd);
}

static void test_knobs_untrusted_state(void **state)
{
	char err[512] = "";
	/* A path outside the knob list is never written. */
	write_state("{\"file_version\":1,\"pid\":999999,\"pid_start_ticks\":\"1\",\"knobs\":"
		    "[{\"path\":\"/etc/hostname\",\"original\":\"1\",\"applied\":\"2\"}]}",
		    0600);
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an inputlat state file"));
	assert_int_equal(access(state_path, F_OK), 0);
	unlink(state_path);

	write_state("{\"file_version\":1,\"pid\":999999,\"pid_start_ticks\":\"1\",\"knobs\":[]}",
		    0666);
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by others"));
	unlink(state_path);

	assert_int_equal(symlink("/etc/hostname", state_path), 0);
	assert_int_equal(il_knobs_recover_stale(NULL, NULL), -ELOOP);
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "refusing a symlink"));
	unlink(state_path);

	/* A missing state directory means nothing to restore. */
	assert_int_equal(il_knobs_recover_stale("/nonexistent/il_state", NULL), 0);

	/* A state "directory" that is a plain file is said to be one, not
	 * "refusing a symlink" (it was); a symlink is refused as one. */
	{
		char file[PATH_MAX], link[PATH_MAX + 8];

		assert_int_equal(il_test_tmpfile_make(file, sizeof(file), "not-a-dir"), 0);
		assert_true(il_knobs_restore(file, NULL, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "Not a directory"));
		assert_null(strstr(err, "symlink"));
		snprintf(link, sizeof(link), "%s.link", file);
		assert_int_equal(symlink("/tmp", link), 0);
		assert_true(il_knobs_restore(link, NULL, err, sizeof(err)) < 0);
		unlink(link);
		assert_non_null(strstr(err, "a symlink, refused"));
	}
}

/* The state and lock files are read as the one JSON object their writer
 * wrote: a version 1.9 read as 1, a pid 12.5 as 12, text after the object
 * and a key twice (first one wins) were all accepted before. */
static void test_knobs_state_text_strict(void **state)
{
	static const char *const state_bad[] = {
	    "{\"file_version\":1.9,\"pid\":12,\"pid_start_ticks\":\"1\",\"knobs\":[]}",
	    "{\"file_version\":1,\"pid\":12.5,\"pid_start_ticks\":\"1\",\"knobs\":[]}",
	    "{\"file_version\":1,\"pid\":12,\"pid_start_ticks\":\"1\",\"knobs\":[]}x",
	    "{\"file_version\":1,\"pid\":12,\"pid_start_ticks\":\"1\",\"knobs\":[]}{}",
	    "{\"file_version\":1,\"pid\":12,\"pid\":13,\"pid_start_ticks\":\"1\",\"knobs\":[]}",
	};
	static const char *const lock_bad[] = {
	    "{\"file_version\":1.5,\"pid\":12,\"pid_start_ticks\":\"1\",\"state_file\":\"/s\"}",
	    "{\"pid\":12,\"pid_start_ticks\":\"1\",\"state_file\":\"/s\"}",
	    "{\"file_version\":1,\"pid\":12.5,\"pid_start_ticks\":\"1\",\"state_file\":\"/s\"}",
	    "{\"file_version\":1,\"pid\":12,\"pid_start_ticks\":\"1\",\"state_file\":\"/s\"} 1",
	};
	struct il_knob_change ch[IL_KNOBS_MAX_CHANGES];
	char sf[256];
	uint64_t ticks;
	size_t n;
	long pid;

	(void)state;
	assert_int_equal(il_knobs_state_parse("{\"file_version\":1,\"pid\":12,\"pid_start_ticks\":"
					      "\"1\",\"knobs\":[]}\n",
					      &pid, &ticks, ch, &n),
			 0);
	assert_int_equal(pid, 12);
	for (size_t i = 0; i < sizeof(state_bad) / sizeof(state_bad[0]); i++)
		if (il_knobs_state_parse(state_bad[i], &pid, &ticks, ch, &n) == 0)
			fail_msg("state accepted: %s", state_bad[i]);
	assert_int_equal(il_knobs_lock_parse("{\"file_version\":1,\"pid\":12,\"pid_start_ticks\":"
					     "\"1\",\"state_file\":\"/s\"}",
					     &pid, &ticks, sf, sizeof(sf)),
			 0);
	for (size_t i = 0; i < sizeof(lock_bad) / sizeof(lock_bad[0]); i++)
		if (il_knobs_lock_parse(lock_bad[i], &pid, &ticks, sf, sizeof(sf)) == 0)
			fail_msg("lock accepted: %s", lock_bad[i]);
}

static void test_knobs_fair_server(void **state)
{
	struct il_fair_server fs;
	assert_int_equal(il_fair_server_probe(&fs), 0);
	print_message("fair server: present %d readable %d tunable %d runtime %lld period "
		      "%lld (%s)\n",
		      fs.present, fs.readable, fs.tunable, (long long)fs.runtime_ns,
		      (long long)fs.period_ns, fs.why);
	if (!fs.readable) {
		assert_int_equal(fs.runtime_ns, -1);
		assert_false(fs.tunable);
	}
	struct il_knob_settings k = {.has_fair_server = true,
				     .fs_runtime_ns = IL_FAIR_SERVER_DEFAULT_RUNTIME_NS,
				     .fs_period_ns = IL_FAIR_SERVER_DEFAULT_PERIOD_NS};
	struct il_knob_report rep;
	char err[512] = "";
	struct il_knobs_lock *l = geteuid() == 0 ? lock_or_fail() : NULL;
	int r = il_knobs_apply(&k, l, &rep, err, sizeof(err));
	if (!fs.present) {
		il_knobs_unlock(l);
		assert_int_equal(r, -EOPNOTSUPP);
		char want[512];

		snprintf(want, sizeof(want), "fair server not present: %s", fs.why);
		assert_string_equal(err, want);
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(rep.fs.tunable, fs.tunable);
	if (!fs.tunable)
		assert_int_equal(rep.n, 0); /* goes on with what is in force */
	assert_int_equal(il_knobs_release(&rep, l, err, sizeof(err)), 0);
	il_knobs_unlock(l);
}

/* Runs an inputlat subcommand with stdout going to a string. */
static int run_cmd(int (*fn)(int, char **), char *verb, char *out, size_t len)
{
	char *argv[] = {verb, NULL};

	return il_test_capture(fn, 1, argv, out, len, NULL, 0);
}

/*
 * The acceptance: after kill -9 of a run holding 900000, the next
 * `inputlat check` puts the original back, policy_dir its IL_POLICY_DIR
 * and want_rc its exit: a directory without policies fails check, but
 * only after the restore (it refused first, and left the dead run's
 * knobs as they were).
 */
static void check_restores_after_kill(const char *policy_dir, int want_rc)
{
	char out[8192];

	setenv("IL_POLICY_DIR", policy_dir, 1);
	for (int attempt = 0;; again(&attempt, "check_restores_after_kill")) {
		if (!die_holding_knobs(true))
			continue;
		assert_int_equal(run_cmd(il_cmd_check, "check", out, sizeof(out)), want_rc);
		/* Said nothing of it: only right if another run got there first. */
		if (strncmp(out, "stale knobs found: no", 21) != 0 || !recovered_by_another())
			break;
	}
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	assert_true(strncmp(out, "stale knobs found: yes (restored ", 33) == 0);
	assert_non_null(strstr(out, "\nsched_rt_runtime_us: yes ("));

	assert_int_equal(run_cmd(il_cmd_restore, "restore", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "nothing to restore"));
}

static void test_knobs_check_restores_after_kill(void **state)
{
	const char *b = getenv("IL_BUILD_DIR");
	char dir[4096];

	need_root();
	snprintf(dir, sizeof(dir), "%s/policies", b ? b : ".");
	check_restores_after_kill(dir, 0);
	check_restores_after_kill("/nonexistent", 1);
	unsetenv("IL_POLICY_DIR");
}

static void test_knobs_cmd_restore(void **state)
{
	char err[512], out[4096];

	need_root();
	for (int attempt = 0;; again(&attempt, "cmd_restore")) {
		if (!die_holding_knobs(false))
			continue;
		assert_int_equal(run_cmd(il_cmd_restore, "restore", out, sizeof(out)), 0);
		if (!strstr(out, "nothing to restore") || !recovered_by_another())
			break;
	}
	snprintf(err, sizeof(err), "restored " RT_RUNTIME " = %s (was 900000)\n", orig_runtime);
	assert_non_null(strstr(out, err));
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_knobs_apply_restore, teardown),
	    cmocka_unit_test_teardown(test_knobs_noop_writes_no_state, teardown),
	    cmocka_unit_test_teardown(test_knobs_crash_recovery, teardown),
	    cmocka_unit_test_teardown(test_knobs_someone_elses_value_is_left, teardown),
	    cmocka_unit_test_teardown(test_knobs_live_owner_is_left_alone, teardown),
	    cmocka_unit_test_teardown(test_knobs_rt_pair_ordering, teardown),
	    cmocka_unit_test_teardown(test_knobs_untrusted_state, teardown),
	    cmocka_unit_test(test_knobs_state_text_strict),
	    cmocka_unit_test_teardown(test_knobs_fair_server, teardown),
	    cmocka_unit_test_teardown(test_knobs_check_restores_after_kill, teardown),
	    cmocka_unit_test_teardown(test_knobs_cmd_restore, teardown),
	};
	if (il_test_filters("test_knobs", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
