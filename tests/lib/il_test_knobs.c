#include "il_test_knobs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "il_cmd.h"
#include "il_knobs.h"
#include "il_policy.h"
#include "il_test.h"

/*
 * Two test suites that change the knobs (two builds under ctest, or two
 * worktrees) would recover each other's killed runs and compare against
 * each other's values: one at a time, held until exit. The name is the
 * one the first such suite used, so that older copies of the tests still
 * exclude these.
 */
#define SUITE_LOCK "/tmp/il-test-policy-run.lock"

/* The knobs put back, the global ratio before the root RT group that must
 * stay within it. */
static const char *const knob_paths[] = {IL_TEST_RT_RUNTIME, IL_TEST_RT_PERIOD, IL_TEST_RT_GROUP};
#define NKNOBS (sizeof(knob_paths) / sizeof(knob_paths[0]))

/* Set once by the setup; put_back may run from atexit. */
static struct {
	char orig[NKNOBS][32];
	char state_dir[PATH_MAX];
	char state_file[PATH_MAX + 32];
	char inputlat[PATH_MAX];
	bool ready;
} fx;

static void read_knob(const char *path, char *buf, size_t len)
{
	if (il_test_read_file(path, buf, len) <= 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

const char *il_test_knob(const char *path)
{
	static char buf[32];

	read_knob(path, buf, sizeof(buf));
	return buf;
}

int il_test_knob_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

const char *il_test_knob_orig(const char *path)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (strcmp(path, knob_paths[i]) == 0)
			return fx.orig[i];
	return "";
}

/* The paths, also for tests that read the state file without the setup. */
static void fx_paths(void)
{
	if (fx.state_file[0])
		return;
	snprintf(fx.inputlat, sizeof(fx.inputlat), "%s", il_test_build_path("inputlat"));
	snprintf(fx.state_dir, sizeof(fx.state_dir), "%s", il_knobs_state_dir());
	snprintf(fx.state_file, sizeof(fx.state_file), "%s/" IL_KNOBS_STATE_FILE, fx.state_dir);
}

const char *il_test_knobs_state_file(void)
{
	fx_paths();
	return fx.state_file;
}

/* The state file parsed, NULL when there is none or it is not JSON. */
static cJSON *state_load(void)
{
	static char buf[8192];

	fx_paths();
	if (il_test_read_file(fx.state_file, buf, sizeof(buf)) <= 0)
		return NULL;
	return cJSON_Parse(buf);
}

pid_t il_test_knobs_state_pid(void)
{
	cJSON *root = state_load();
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	pid_t p = 0;

	if (cJSON_IsNumber(pid) && pid->valuedouble >= 1 && pid->valuedouble <= INT_MAX)
		p = (pid_t)pid->valuedouble;
	cJSON_Delete(root);
	return p;
}

const char *il_test_knobs_state_original(const char *path)
{
	static char val[32];
	cJSON *root = state_load();
	const cJSON *k;

	val[0] = '\0';
	cJSON_ArrayForEach (k, cJSON_GetObjectItemCaseSensitive(root, "knobs")) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(k, "path");
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(k, "original");

		if (cJSON_IsString(p) && cJSON_IsString(o) && strcmp(p->valuestring, path) == 0)
			snprintf(val, sizeof(val), "%s", o->valuestring);
	}
	cJSON_Delete(root);
	return val;
}

pid_t il_test_knobs_holder(void)
{
	cJSON *root = state_load();
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	const cJSON *ticks = cJSON_GetObjectItemCaseSensitive(root, "pid_start_ticks");
	struct il_procfs_stat st;
	pid_t p = 0;

	if (cJSON_IsNumber(pid) && pid->valuedouble >= 1 && pid->valuedouble <= INT_MAX)
		p = (pid_t)pid->valuedouble;
	/* Gone, or a zombie (a run we killed and have not reaped yet): it holds
	 * nothing. A pid reused since by another process holds nothing either. */
	if (p &&
	    (il_procfs_stat(p, 0, IL_PROCFS_STARTTIME, &st) || st.state == 'Z' || st.state == 'X'))
		p = 0;
	if (p && cJSON_IsString(ticks) &&
	    strtoull(ticks->valuestring, NULL, 10) != st.f[IL_PROCFS_STARTTIME])
		p = 0;
	cJSON_Delete(root);
	return p;
}

/*
 * Who holds the machine's knob lock (IL_KNOBS_LOCK_PATH) now, from
 * /proc/locks, without touching it: 0 when nobody. A run removes its state
 * file a moment before it lets the lock go, so the state file alone said
 * "free" while a run still held the lock, and the next run exited 75.
 */
static pid_t lock_holder(void)
{
	struct stat sb;
	char line[256];
	pid_t p = 0;
	FILE *f;

	if (stat(IL_KNOBS_LOCK_PATH, &sb) < 0 || !(f = fopen("/proc/locks", "r")))
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 11677 00:19:1234 0 EOF" */
	while (!p && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		int pid;

		if (strstr(line, "FLOCK") &&
		    sscanf(strstr(line, "FLOCK"), "FLOCK %*s %*s %d %x:%x:%llu", &pid, &maj, &min,
			   &ino) == 4 &&
		    ino == (unsigned long long)sb.st_ino && makedev(maj, min) == sb.st_dev)
			p = pid;
	}
	fclose(f);
	return p;
}

bool il_test_knobs_wait_free(int timeout_ms)
{
	pid_t said = 0, p;

	for (double t0 = il_test_now_s(); (p = il_test_knobs_holder()) || (p = lock_holder());) {
		if ((il_test_now_s() - t0) * 1000 >= timeout_ms)
			return false;
		if (p != said) {
			print_message(
			    "inputlat pid %d holds the system knobs (%s); waiting up to %d s\n",
			    (int)p, fx.state_file, timeout_ms / 1000);
			said = p;
		}
		usleep(100000);
	}
	return true;
}

void il_test_knobs_need_free(void)
{
	if (!il_test_knobs_wait_free(IL_TEST_KNOBS_WAIT_MS))
		fail_msg("inputlat pid %d held the system knobs (%s) for %d s",
			 (int)il_test_knobs_holder(), fx.state_file, IL_TEST_KNOBS_WAIT_MS / 1000);
}

void il_test_knobs_need_change(const char *value)
{
	const char *orig = il_test_knob_orig(IL_TEST_RT_RUNTIME);

	if (geteuid() != 0 || access(IL_TEST_RT_RUNTIME, W_OK) != 0)
		IL_TEST_SKIP("writing " IL_TEST_RT_RUNTIME " needs root");
	if (!orig[0])
		IL_TEST_SKIP(IL_TEST_RT_RUNTIME " is not readable");
	if (strcmp(orig, value) == 0)
		IL_TEST_SKIP("sched_rt_runtime_us is already %s: nothing to change", value);
}

bool il_test_knobs_back(pid_t ours, char *why, size_t len)
{
	pid_t holder = il_test_knobs_state_pid();

	if (ours && holder == ours) {
		snprintf(why, len, "the state file still names run %d", (int)ours);
		return false;
	}
	for (size_t i = 0; i < NKNOBS; i++) {
		const char *saved = holder ? il_test_knobs_state_original(knob_paths[i]) : "";
		char now[32];

		if (!fx.orig[i][0])
			continue;
		snprintf(now, sizeof(now), "%s", saved[0] ? saved : il_test_knob(knob_paths[i]));
		if (strcmp(now, fx.orig[i]) != 0) {
			snprintf(why, len, "%s is %s, want %s%s", knob_paths[i], now, fx.orig[i],
				 saved[0] ? " (as saved by the run holding the knobs)" : "");
			return false;
		}
	}
	return true;
}

/* `inputlat restore` on the machine's state directory, whatever the test set. */
static void run_restore(void)
{
	char *argv[] = {fx.inputlat, "restore", NULL};
	char *saved = getenv("IL_STATE_DIR");
	struct il_test_result *res = malloc(sizeof(*res));

	if (!res)
		return;
	saved = saved ? strdup(saved) : NULL;
	setenv("IL_STATE_DIR", fx.state_dir, 1);
	il_test_run(argv, 10000, res);
	if (saved)
		setenv("IL_STATE_DIR", saved, 1);
	else
		unsetenv("IL_STATE_DIR");
	free(saved);
	free(res);
}

void il_test_knobs_put_back(void)
{
	const char *runtime = fx.orig[0], *period = fx.orig[1], *group = fx.orig[2];

	if (!fx.ready || !runtime[0] || geteuid() != 0)
		return;
	if (access(fx.state_file, F_OK) == 0 && !il_test_knobs_holder())
		run_restore();
	/* A live run restores its own; what we changed is back before it started. */
	if (!il_test_knobs_wait_free(10000) || il_test_knobs_holder())
		return;
	/* A period that moved goes back first, with a runtime valid for any period. */
	if (period[0] && strcmp(il_test_knob(IL_TEST_RT_PERIOD), period) != 0) {
		il_test_knob_write(IL_TEST_RT_RUNTIME, "-1");
		il_test_knob_write(IL_TEST_RT_PERIOD, period);
	}
	if (strcmp(il_test_knob(IL_TEST_RT_RUNTIME), runtime) != 0)
		il_test_knob_write(IL_TEST_RT_RUNTIME, runtime);
	if (group[0] && strcmp(il_test_knob(IL_TEST_RT_GROUP), group) != 0)
		il_test_knob_write(IL_TEST_RT_GROUP, group);
}

/* The pid holding a flock on fd's file, from /proc/locks; 0 if not found. */
static pid_t flock_holder(int fd)
{
	static char buf[1 << 16];
	struct stat st;
	char *line, *save = NULL;

	if (fstat(fd, &st) < 0 || il_test_read_file("/proc/locks", buf, sizeof(buf)) <= 0)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->". */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned int ma, mi;
		unsigned long ino;
		char kind[16];
		int pid;

		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", kind, &pid, &ma, &mi, &ino) != 5)
			continue;
		if (strcmp(kind, "FLOCK") == 0 && ino == st.st_ino && ma == major(st.st_dev) &&
		    mi == minor(st.st_dev))
			return pid;
	}
	return 0;
}

/* Takes SUITE_LOCK for the life of the process, waiting for the holder. */
static int lock_suite(void)
{
	int fd = open(SUITE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	pid_t said = 0, p;

	if (fd < 0) {
		print_error("%s: %s\n", SUITE_LOCK, strerror(errno));
		return -1;
	}
	for (double t0 = il_test_now_s(); flock(fd, LOCK_EX | LOCK_NB) != 0;) {
		p = flock_holder(fd);
		if (errno != EWOULDBLOCK ||
		    (il_test_now_s() - t0) * 1000 >= IL_TEST_KNOBS_WAIT_MS) {
			print_error(
			    "%s: held by pid %d for %d s (another test suite that changes the "
			    "system knobs)\n",
			    SUITE_LOCK, (int)p, IL_TEST_KNOBS_WAIT_MS / 1000);
			close(fd);
			return -1;
		}
		if (p != said) {
			print_message("%s is held by pid %d (another test suite that changes the "
				      "system knobs); waiting up to %d s\n",
				      SUITE_LOCK, (int)p, IL_TEST_KNOBS_WAIT_MS / 1000);
			said = p;
		}
		usleep(100000);
	}
	return 0; /* fd stays open: the lock goes with the process */
}

int il_test_knobs_setup(void)
{
	pid_t said = 0;

	if (fx.ready)
		return 0;
	fx_paths();
	if (lock_suite() < 0)
		return -1;
	/* A value another run set for itself must not become our original:
	 * read only while no run holds the knobs, before and after. */
	for (double t0 = il_test_now_s();;) {
		int left_ms = IL_TEST_KNOBS_WAIT_MS - (int)((il_test_now_s() - t0) * 1000);

		if (left_ms <= 0 || !il_test_knobs_wait_free(left_ms)) {
			print_error(
			    "%s still names inputlat pid %d after %d s; check it with `inputlat "
			    "restore`\n",
			    fx.state_file, (int)il_test_knobs_state_pid(),
			    IL_TEST_KNOBS_WAIT_MS / 1000);
			return -1;
		}
		/* A dead run's leftovers: restore before reading the originals. */
		if (access(fx.state_file, F_OK) == 0 && geteuid() == 0)
			run_restore();
		for (size_t i = 0; i < NKNOBS; i++)
			read_knob(knob_paths[i], fx.orig[i], sizeof(fx.orig[i]));
		if (access(fx.state_file, F_OK) != 0)
			break;
		/* `inputlat restore` left it: a new run took the knobs meanwhile,
		 * or inputlat still counts its run as alive (not reaped yet). */
		if (said != il_test_knobs_state_pid()) {
			said = il_test_knobs_state_pid();
			print_message("%s names inputlat pid %d and stays; waiting\n",
				      fx.state_file, (int)said);
		}
		usleep(200000);
	}
	fx.ready = true;
	atexit(il_test_knobs_put_back);
	return 0;
}

int il_test_knobs_teardown(void **state)
{
	il_test_kill_started();
	il_test_knobs_put_back();
	return 0;
}

int il_test_knobs_suite_setup(void **state)
{
	return il_test_knobs_setup() < 0 ? -1 : il_test_suite_setup(state);
}

int il_test_knobs_suite_teardown(void **state)
{
	il_test_knobs_teardown(state);
	return il_test_suite_teardown(state);
}

/* --- runs that may find the knobs held ---------------------------------- */

bool il_test_knobs_busy_exit(int exit_code)
{
	return exit_code == IL_EXIT_KNOBS_BUSY;
}

bool il_test_knobs_busy_status(int status)
{
	return status != -1 && WIFEXITED(status) && il_test_knobs_busy_exit(WEXITSTATUS(status));
}

int il_test_knobs_chain_start(struct il_test_chain *c, char *const argv[], const char *out,
			      const char *err, int timeout_ms)
{
	double deadline = il_test_now_s() + IL_TEST_KNOBS_WAIT_MS / 1000.0;

	for (;;) {
		int rc;

		il_test_knobs_need_free();
		rc = il_test_chain_start(c, argv, out, err, timeout_ms);
		if (rc == 0 || !il_test_knobs_busy_status(c->status) || il_test_now_s() > deadline)
			return rc;
		print_message("exit %d: another inputlat run took the system knobs; again\n",
			      WEXITSTATUS(c->status));
		usleep(200000);
	}
}

const cJSON *il_test_knobs_report_entry(const cJSON *report, const char *path)
{
	const cJSON *k;

	cJSON_ArrayForEach (k, cJSON_GetObjectItemCaseSensitive(report, "knobs")) {
		if (strcmp(il_test_json_str(k, "path"), path) == 0)
			return k;
	}
	return NULL;
}

void il_test_knobs_write_policy(const char *path, const char *policy_dir, const char *rt_runtime_us)
{
	char src[PATH_MAX + 32], line[512], err[512] = "";
	struct il_policy *p = NULL;
	long long want = strtoll(rt_runtime_us, NULL, 10);
	int replaced = 0;
	FILE *in, *out;

	snprintf(src, sizeof(src), "%s/rt-throttled.policy", policy_dir);
	in = fopen(src, "r");
	assert_non_null(in);
	out = fopen(path, "w");
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		if (strncmp(line, "sched_rt_runtime_us", 19) == 0) {
			fprintf(out, "sched_rt_runtime_us = %s\n", rt_runtime_us);
			replaced++;
		} else if (strncmp(line, "name", 4) == 0) {
			fprintf(out, "name = rt-throttled-%s\n", rt_runtime_us);
		} else {
			fputs(line, out);
		}
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(replaced, 1);
	/* The copy is a valid policy asking for exactly this value. */
	if (il_policy_load(path, NULL, &p, err, sizeof(err)) != 0)
		fail_msg("%s: %s", path, err);
	assert_true(il_policy_knobs(p)->has_rt_runtime);
	assert_int_equal(il_policy_knobs(p)->rt_runtime_us, want);
	il_policy_free(p);
}
