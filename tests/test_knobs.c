/* System knobs: applied, restored, recovered after a crash, and never left
 * changed. Every test's teardown (and an atexit handler) writes the
 * original sched_rt_runtime_us/sched_rt_period_us back directly, so even a
 * failing assertion cannot leave this machine's RT throttling changed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_cmd.h"
#include "il_knobs.h"

#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define RT_PERIOD "/proc/sys/kernel/sched_rt_period_us"

#define skip_why(...)                                   \
	do {                                            \
		print_message("skipped: " __VA_ARGS__); \
		print_message("\n");                    \
		skip();                                 \
	} while (0)

#define RT_GROUP "/sys/fs/cgroup/cpu/cpu.rt_runtime_us"

static char orig_runtime[32], orig_period[32], orig_group[32];
static char state_dir[] = "/tmp/il_test_knobs.XXXXXX";
static char state_path[sizeof(state_dir) + 32];

static void read_knob(const char *path, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void write_knob(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(val, f);
	fclose(f);
}

/* Puts the originals back in an order that is valid from any state the
 * tests can leave: the larger period first when it grew back. */
static void put_back(void)
{
	char cur[32];
	if (!orig_runtime[0])
		return;
	read_knob(RT_PERIOD, cur, sizeof(cur));
	if (strcmp(cur, orig_period) != 0) {
		write_knob(RT_RUNTIME, "-1"); /* valid with any period */
		write_knob(RT_PERIOD, orig_period);
	}
	read_knob(RT_RUNTIME, cur, sizeof(cur));
	if (strcmp(cur, orig_runtime) != 0)
		write_knob(RT_RUNTIME, orig_runtime);
	/* The root RT group (RT_GROUP_SCHED) last: it must stay within the
	 * global ratio, which is back to the original now. */
	read_knob(RT_GROUP, cur, sizeof(cur));
	if (orig_group[0] && strcmp(cur, orig_group) != 0)
		write_knob(RT_GROUP, orig_group);
	unlink(state_path);
}

static int group_setup(void **state)
{
	if (!mkdtemp(state_dir))
		return -1;
	snprintf(state_path, sizeof(state_path), "%s/" IL_KNOBS_STATE_FILE, state_dir);
	setenv("IL_STATE_DIR", state_dir, 1);
	read_knob(RT_RUNTIME, orig_runtime, sizeof(orig_runtime));
	read_knob(RT_PERIOD, orig_period, sizeof(orig_period));
	read_knob(RT_GROUP, orig_group, sizeof(orig_group));
	atexit(put_back);
	return 0;
}

static int group_teardown(void **state)
{
	put_back();
	rmdir(state_dir);
	return 0;
}

static int teardown(void **state)
{
	put_back();
	return 0;
}

static void need_root(void)
{
	if (geteuid() != 0 || access(RT_RUNTIME, W_OK) != 0)
		skip_why("writing " RT_RUNTIME " needs root");
	/* A real run on this shared machine owns the knobs right now; its
	 * changed value must not become our "original". */
	if (access(IL_KNOBS_STATE_DIR "/" IL_KNOBS_STATE_FILE, F_OK) == 0)
		skip_why("another inputlat run holds the system knobs (" IL_KNOBS_STATE_DIR
			 "/" IL_KNOBS_STATE_FILE ")");
	if (strcmp(orig_runtime, "900000") == 0)
		skip_why("sched_rt_runtime_us is already 900000: nothing to change");
}

static const char *knob(const char *path)
{
	static char buf[32];
	read_knob(path, buf, sizeof(buf));
	return buf;
}

static void test_knobs_apply_restore(void **state)
{
	need_root();
	struct il_knob_settings k = { .has_rt_runtime = true, .rt_runtime_us = 900000 };
	struct il_knob_report rep;
	char err[512] = "";
	assert_int_equal(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)), 0);
	assert_string_equal(knob(RT_RUNTIME), "900000");
	/* With RT_GROUP_SCHED the root RT group is lowered first. */
	size_t i = rep.n == 2 ? 1 : 0;
	assert_int_equal(rep.n, i + 1);
	if (i)
		assert_string_equal(rep.changes[0].path, RT_GROUP);
	assert_string_equal(rep.changes[i].path, RT_RUNTIME);
	assert_string_equal(rep.changes[i].original, orig_runtime);
	assert_string_equal(rep.changes[i].applied, "900000");
	assert_int_equal(rep.rt_runtime_us_before, atoi(orig_runtime));
	assert_string_equal(rep.state_path, state_path);

	struct stat st;
	assert_int_equal(lstat(state_path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(lstat(state_dir, &st), 0);
	assert_int_equal(st.st_mode & 022, 0);

	/* A second run is refused while the first holds the knobs. */
	struct il_knob_report rep2;
	assert_int_equal(il_knobs_apply(&k, NULL, &rep2, err, sizeof(err)), 0); /* no-op */
	assert_int_equal(rep2.n, 0);
	k.rt_runtime_us = 800000;
	assert_int_equal(il_knobs_apply(&k, NULL, &rep2, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "system knobs are held by running inputlat pid"));
	assert_string_equal(knob(RT_RUNTIME), "900000");

	struct il_knob_report restored;
	assert_int_equal(il_knobs_restore(NULL, &restored, err, sizeof(err)), 0);
	assert_int_equal(restored.n, rep.n);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	if (orig_group[0])
		assert_string_equal(knob(RT_GROUP), orig_group);
	assert_int_equal(lstat(state_path, &st), -1);

	/* Nothing left to restore. */
	assert_int_equal(il_knobs_restore(NULL, &restored, err, sizeof(err)), 0);
	assert_int_equal(restored.n, 0);
}

static void test_knobs_noop_writes_no_state(void **state)
{
	struct il_knob_settings k = { .has_rt_runtime = true };
	struct il_knob_report rep;
	char err[512] = "";
	int64_t v = strtoll(orig_runtime, NULL, 10);
	k.rt_runtime_us = v;
	assert_int_equal(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.n, 0);
	assert_int_equal(access(state_path, F_OK), -1);
}

static void test_knobs_crash_recovery(void **state)
{
	need_root();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A run that changes the knob and dies without restoring. */
		struct il_knob_settings k = { .has_rt_runtime = true, .rt_runtime_us = 900000 };
		struct il_knob_report rep;
		char err[512];
		_exit(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)) == 0 ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(knob(RT_RUNTIME), "900000");
	assert_int_equal(access(state_path, F_OK), 0);

	char *log = NULL;
	size_t loglen = 0;
	FILE *f = open_memstream(&log, &loglen);
	assert_int_equal(il_knobs_recover_stale(NULL, f), 0);
	fclose(f);
	char want[256];
	snprintf(want, sizeof(want), "left by dead run pid %d: ", (int)pid);
	assert_non_null(strstr(log, want));
	assert_true(strncmp(log, "inputlat: restored ", 19) == 0);
	snprintf(want, sizeof(want), " " RT_RUNTIME "=%s", orig_runtime);
	assert_non_null(strstr(log, want));
	assert_int_equal(strchr(log, '\n') - log, (ptrdiff_t)strlen(log) - 1); /* one line */
	free(log);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	assert_int_equal(access(state_path, F_OK), -1);
}

static void test_knobs_live_owner_is_left_alone(void **state)
{
	need_root();
	struct il_knob_settings k = { .has_rt_runtime = true, .rt_runtime_us = 900000 };
	struct il_knob_report rep;
	char err[512] = "";
	assert_int_equal(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)), 0);

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
	/* Our own state file is ours to restore, not stale. */
	assert_int_equal(il_knobs_recover_stale(NULL, NULL), 0);
	assert_string_equal(knob(RT_RUNTIME), "900000");

	assert_int_equal(il_knobs_restore_signal_safe(&rep), 0);
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

/* runtime <= period must hold after every write, both ways. */
static void test_knobs_rt_pair_ordering(void **state)
{
	need_root();
	if (strcmp(orig_period, "1000000") != 0)
		skip_why("sched_rt_period_us is not the default 1000000");
	struct il_knob_settings k = { .has_rt_runtime = true, .rt_runtime_us = 400000,
				      .has_rt_period = true, .rt_period_us = 500000 };
	struct il_knob_report rep;
	char err[512] = "";
	int r = il_knobs_apply(&k, NULL, &rep, err, sizeof(err));
	if (r == -EBUSY)
		skip_why("%s", err); /* deadline tasks elsewhere hold bandwidth */
	if (r)
		fail_msg("%s", err);
	/* Shrinking: runtime first (the root RT group, if any, around them). */
	assert_true(index_of(&rep, RT_RUNTIME) < index_of(&rep, RT_PERIOD));
	assert_true(index_of(&rep, RT_PERIOD) < (int)rep.n);
	assert_string_equal(knob(RT_PERIOD), "500000");
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), 0);
	assert_string_equal(knob(RT_PERIOD), orig_period);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);

	k.rt_runtime_us = 1900000;
	k.rt_period_us = 2000000;
	assert_int_equal(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)), 0);
	/* Growing: period first. */
	assert_true(index_of(&rep, RT_PERIOD) < index_of(&rep, RT_RUNTIME));
	assert_true(index_of(&rep, RT_RUNTIME) < (int)rep.n);
	assert_string_equal(knob(RT_RUNTIME), "1900000");
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), 0);
	assert_string_equal(knob(RT_PERIOD), orig_period);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);

	k.rt_runtime_us = 600000;
	k.rt_period_us = 500000;
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
		    "[{\"path\":\"/etc/hostname\",\"original\":\"1\",\"applied\":\"2\"}]}", 0600);
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
}

static void test_knobs_fair_server(void **state)
{
	struct il_fair_server fs;
	assert_int_equal(il_fair_server_probe(&fs), 0);
	print_message("fair server: present %d readable %d tunable %d runtime %lld period "
		      "%lld (%s)\n", fs.present, fs.readable, fs.tunable,
		      (long long)fs.runtime_ns, (long long)fs.period_ns, fs.why);
	if (!fs.readable) {
		assert_int_equal(fs.runtime_ns, -1);
		assert_false(fs.tunable);
	}
	struct il_knob_settings k = { .has_fair_server = true,
				      .fs_runtime_ns = IL_FAIR_SERVER_DEFAULT_RUNTIME_NS,
				      .fs_period_ns = IL_FAIR_SERVER_DEFAULT_PERIOD_NS };
	struct il_knob_report rep;
	char err[512] = "";
	int r = il_knobs_apply(&k, NULL, &rep, err, sizeof(err));
	if (!fs.present) {
		assert_int_equal(r, -EOPNOTSUPP);
		assert_string_equal(err, "fair server not present: kernel older than 6.12");
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(rep.fs.tunable, fs.tunable);
	if (!fs.tunable)
		assert_int_equal(rep.n, 0); /* goes on with what is in force */
	assert_int_equal(il_knobs_restore(NULL, NULL, err, sizeof(err)), 0);
}

/* Runs an inputlat subcommand with stdout going to a string. */
static int run_cmd(int (*fn)(int, char **), char *verb, char *out, size_t len)
{
	char path[sizeof(state_dir) + 16];
	char *argv[] = { verb, NULL };
	snprintf(path, sizeof(path), "%s/stdout", state_dir);
	fflush(stdout);
	int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	int rc = fn(1, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(out, 1, len - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	unlink(path);
	return rc;
}

/* The acceptance: after kill -9 of a run holding 900000, the next
 * `inputlat check` puts the original back. */
static void test_knobs_check_restores_after_kill(void **state)
{
	need_root();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct il_knob_settings k = { .has_rt_runtime = true, .rt_runtime_us = 900000 };
		struct il_knob_report rep;
		char err[512];
		if (il_knobs_apply(&k, NULL, &rep, err, sizeof(err)) == 0)
			raise(SIGKILL);
		_exit(1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_string_equal(knob(RT_RUNTIME), "900000");

	char out[8192];
	assert_int_equal(run_cmd(il_cmd_check, "check", out, sizeof(out)), 0);
	assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	assert_true(strncmp(out, "stale knobs found: yes (restored ", 33) == 0);
	assert_non_null(strstr(out, "\nsched_rt_runtime_us: yes ("));

	assert_int_equal(run_cmd(il_cmd_restore, "restore", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "nothing to restore"));
}

static void test_knobs_cmd_restore(void **state)
{
	need_root();
	struct il_knob_settings k = { .has_rt_runtime = true, .rt_runtime_us = 900000 };
	struct il_knob_report rep;
	char err[512], out[4096];
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(il_knobs_apply(&k, NULL, &rep, err, sizeof(err)) == 0 ? 0 : 1);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(run_cmd(il_cmd_restore, "restore", out, sizeof(out)), 0);
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
		cmocka_unit_test_teardown(test_knobs_live_owner_is_left_alone, teardown),
		cmocka_unit_test_teardown(test_knobs_rt_pair_ordering, teardown),
		cmocka_unit_test_teardown(test_knobs_untrusted_state, teardown),
		cmocka_unit_test_teardown(test_knobs_fair_server, teardown),
		cmocka_unit_test_teardown(test_knobs_check_restores_after_kill, teardown),
		cmocka_unit_test_teardown(test_knobs_cmd_restore, teardown),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
