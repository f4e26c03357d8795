/*
 * Crash safety of the system knobs (issue 8): a run of rt-throttled with
 * sched_rt_runtime_us = 900000 is SIGKILLed 20 times at random moments
 * from 0 to 1500 ms after its start, every third one in the first 12 ms
 * so that kills land before, during and after the knob change (a few ms
 * in; the log says where each one landed).
 * After each kill the chain must be gone within 2 s (PR_SET_PDEATHSIG), no
 * RT thread of the project may survive, and the next start (`inputlat
 * check`) must put sched_rt_runtime_us and the root RT group back to what
 * they were when the test started. Also: the state file is 0600 in a 0700
 * directory while a run holds the knobs, and a symlinked state file is
 * refused.
 *
 * The PRNG seed is printed; IL_TEST_SEED=N replays a sequence of delays.
 *
 * This machine is shared: like test_policy_run (whose lock file this test
 * takes too, so that the two never run at once) it waits while another
 * live run holds the knobs, and its teardown and an atexit handler put the
 * originals back. Only pids this file started are signalled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_knobs.h"
#include "il_policy.h"
#include "il_test_proc.h"

#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define RT_GROUP "/sys/fs/cgroup/cpu/cpu.rt_runtime_us"
#define KNOB_TEST_VALUE "900000"
#define NKILLS 20
#define MAX_DELAY_MS 1500
#define EARLY_DELAY_MS 12
#define GONE_MS 2000
#define NKIDS 4
/* A run that finds the knobs held waits at most this long for them. */
#define KNOBS_WAIT_MS 120000

#define skip_why(...)                                   \
	do {                                            \
		print_message("skipped: " __VA_ARGS__); \
		print_message("\n");                    \
		skip();                                 \
	} while (0)

static const char *const kid_names[NKIDS] = { "browser-sim", "render-sim", "viz-sim",
					      "il-workload" };
/* Thread-name prefixes of the project's threads (browser:ui, viz:drm, il:load0, ...). */
static const char *const thread_prefixes[] = { "browser:", "render:", "viz:", "il:" };

static char tmpdir[256], policy[PATH_MAX];
/* il_test_build_path returns one static buffer: keep our own copies. */
static char inputlat[PATH_MAX], policy_dir[PATH_MAX];
static char orig_runtime[32], orig_group[32];
static char state_file[PATH_MAX];
static pid_t live_run; /* started and not reaped yet, 0: none */

/* --- knobs (as in test_policy_run.c) ------------------------------------ */
static void read_knob(const char *path, char *buf, size_t len)
{
	if (il_test_read_file(path, buf, len) <= 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static const char *knob(const char *path)
{
	static char buf[32];

	read_knob(path, buf, sizeof(buf));
	return buf;
}

static void write_knob(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fputs(val, f);
	fclose(f);
}

/* The pid the knobs state file names, 0 when there is none. */
static pid_t state_pid(void)
{
	static char buf[4096];
	cJSON *root, *pid;
	pid_t p = 0;

	if (il_test_read_file(state_file, buf, sizeof(buf)) <= 0)
		return 0;
	root = cJSON_Parse(buf);
	pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	if (cJSON_IsNumber(pid) && pid->valuedouble >= 1 && pid->valuedouble <= INT_MAX)
		p = (pid_t)pid->valuedouble;
	cJSON_Delete(root);
	return p;
}

/* The pid of the run holding the knobs, 0 when none or when it is dead. */
static pid_t knobs_holder(void)
{
	pid_t p = state_pid();
	char path[64], buf[512], *r;

	if (!p)
		return 0;
	/* A zombie (our own killed run, not reaped yet) holds nothing. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	r = strrchr(buf, ')');
	if (r && (r[2] == 'Z' || r[2] == 'X'))
		return 0;
	return p;
}

/* The original value of path saved in the state file, "" if it has none. */
static const char *state_original(const char *path)
{
	static char buf[4096], val[32];
	const cJSON *k;
	cJSON *root;

	val[0] = '\0';
	if (il_test_read_file(state_file, buf, sizeof(buf)) <= 0)
		return val;
	root = cJSON_Parse(buf);
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(root, "knobs")) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(k, "path");
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(k, "original");

		if (cJSON_IsString(p) && cJSON_IsString(o) && strcmp(p->valuestring, path) == 0)
			snprintf(val, sizeof(val), "%s", o->valuestring);
	}
	cJSON_Delete(root);
	return val;
}

static bool knobs_wait_free(int timeout_ms)
{
	for (int waited = 0; knobs_holder(); waited += 100) {
		if (waited >= timeout_ms)
			return false;
		usleep(100000);
	}
	return true;
}

/*
 * Never leaves the knobs changed: a dead run's state file is restored by
 * `inputlat restore`; then, unless another live run holds the knobs (it
 * restores them itself), the originals are written back directly, the
 * global ratio first so that the root RT group may follow it.
 */
static void put_back(void)
{
	char *argv[] = { inputlat, "restore", NULL };
	struct il_test_result *res;

	if (!orig_runtime[0] || geteuid() != 0)
		return;
	if (access(state_file, F_OK) == 0 && !knobs_holder()) {
		res = malloc(sizeof(*res));
		if (res)
			il_test_run(argv, 10000, res);
		free(res);
	}
	if (!knobs_wait_free(10000) || knobs_holder())
		return;
	if (strcmp(knob(RT_RUNTIME), orig_runtime) != 0)
		write_knob(RT_RUNTIME, orig_runtime);
	if (orig_group[0] && strcmp(knob(RT_GROUP), orig_group) != 0)
		write_knob(RT_GROUP, orig_group);
}

/*
 * True when the knobs are back at the originals. If another run has taken
 * them since, the originals it saved must be ours: that proves they were
 * back before it started. why says what differs.
 */
static bool knobs_back(pid_t ours, char *why, size_t len)
{
	static const char *const paths[2] = { RT_RUNTIME, RT_GROUP };
	const char *orig[2] = { orig_runtime, orig_group };
	pid_t holder = state_pid();

	if (holder == ours) {
		snprintf(why, len, "the state file still names the killed run %d", (int)ours);
		return false;
	}
	for (int i = 0; i < 2; i++) {
		const char *now;

		if (!orig[i][0])
			continue;
		now = holder && state_original(paths[i])[0] ? state_original(paths[i]) : knob(paths[i]);
		if (strcmp(now, orig[i]) != 0) {
			snprintf(why, len, "%s is %s, want %s%s", paths[i], now, orig[i],
				 holder ? " (as saved by the run holding the knobs)" : "");
			return false;
		}
	}
	return true;
}

/* --- processes and threads --------------------------------------------- */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reaps orphans handed to us (we are their subreaper). */
static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static pid_t stat_ppid(const char *pid, char *state)
{
	char path[64], buf[512], *r;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%.32s/stat", pid);
	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	r = strrchr(buf, ')');
	if (!r || sscanf(r + 2, "%c %d", state, &ppid) != 2)
		return -1;
	return ppid;
}

/*
 * Live threads named like the project's threads with an RT or deadline
 * class, in our descendants (children of ours, which includes every orphan
 * since we are a subreaper) and in the pids seen[]. what gets the first.
 */
static int rt_survivors(const pid_t *seen, int nseen, char *what, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char st, tpath[64];
		pid_t pp, pid;
		bool ours;
		DIR *td;
		struct dirent *te;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(e->d_name);
		pp = stat_ppid(e->d_name, &st);
		ours = pp == getpid();
		for (int i = 0; i < nseen && !ours; i++)
			ours = seen[i] == pid;
		if (!ours || pp < 0)
			continue;
		snprintf(tpath, sizeof(tpath), "/proc/%d/task", (int)pid);
		td = opendir(tpath);
		while (td && (te = readdir(td))) {
			char p[128], comm[64], buf[1024], *r, *tok, *save = NULL;
			int field = 3, policy = 0;
			char tstate = '?';
			bool named = false;

			if (te->d_name[0] < '0' || te->d_name[0] > '9')
				continue;
			snprintf(p, sizeof(p), "%s/%.32s/comm", tpath, te->d_name);
			read_knob(p, comm, sizeof(comm));
			for (size_t i = 0; i < sizeof(thread_prefixes) / sizeof(thread_prefixes[0]); i++)
				named |= strncmp(comm, thread_prefixes[i], strlen(thread_prefixes[i])) == 0;
			if (!named)
				continue;
			snprintf(p, sizeof(p), "%s/%.32s/stat", tpath, te->d_name);
			if (il_test_read_file(p, buf, sizeof(buf)) <= 0 || !(r = strrchr(buf, ')')))
				continue;
			for (tok = strtok_r(r + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
				if (field == 3)
					tstate = tok[0];
				if (field == 41)
					policy = atoi(tok);
				field++;
			}
			/* SCHED_FIFO 1, SCHED_RR 2, SCHED_DEADLINE 6. */
			if (tstate != 'Z' && tstate != 'X' && (policy == 1 || policy == 2 || policy == 6)) {
				if (!n)
					snprintf(what, len, "%s (pid %d tid %s, policy %d)", comm, (int)pid,
						 te->d_name, policy);
				n++;
			}
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
	return n;
}

/* Waits up to timeout_ms until no project process or RT thread of ours is left. */
static bool chain_gone(const pid_t *seen, int nseen, int timeout_ms, double *took_ms, char *why,
		       size_t len)
{
	double t0 = now_s();

	for (;;) {
		int procs, rt;

		reap_orphans();
		procs = il_test_count_project_procs();
		rt = rt_survivors(seen, nseen, why, len);
		*took_ms = (now_s() - t0) * 1000;
		if (!procs && !rt)
			return true;
		if (*took_ms > timeout_ms) {
			if (!rt)
				snprintf(why, len, "%d project processes left", procs);
			return false;
		}
		usleep(5000);
	}
}

/* Kills what we started and all its chain (by PR_SET_PDEATHSIG). */
static void kill_live_run(void)
{
	double took;
	char why[200];

	if (live_run > 0) {
		kill(live_run, SIGKILL);
		waitpid(live_run, NULL, 0);
		live_run = 0;
	}
	chain_gone(NULL, 0, GONE_MS, &took, why, sizeof(why));
}

static bool knobs_held_msg(const char *path)
{
	static char buf[65536];

	if (il_test_read_file(path, buf, sizeof(buf)) < 0)
		return false;
	return strstr(buf, "holds the system knobs") || strstr(buf, "system knobs are held by");
}

/* --- the policy -------------------------------------------------------- */
/* Writes rt-throttled with sched_rt_runtime_us = KNOB_TEST_VALUE to path. */
static void write_knob_policy(const char *path)
{
	char src[PATH_MAX + 32], line[512], err[512] = "";
	struct il_policy *p = NULL;
	FILE *in, *out;
	int replaced = 0;

	snprintf(src, sizeof(src), "%s/rt-throttled.policy", policy_dir);
	in = fopen(src, "r");
	assert_non_null(in);
	out = fopen(path, "w");
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		if (strncmp(line, "sched_rt_runtime_us", 19) == 0) {
			fputs("sched_rt_runtime_us = " KNOB_TEST_VALUE "\n", out);
			replaced++;
		} else if (strncmp(line, "name", 4) == 0) {
			fputs("name = rt-throttled-" KNOB_TEST_VALUE "\n", out);
		} else {
			fputs(line, out);
		}
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(replaced, 1);
	assert_int_equal(il_policy_load(path, NULL, &p, err, sizeof(err)), 0);
	assert_true(il_policy_knobs(p)->has_rt_runtime);
	assert_int_equal(il_policy_knobs(p)->rt_runtime_us, atoi(KNOB_TEST_VALUE));
	il_policy_free(p);
}

static void need_knobs(void)
{
	if (geteuid() != 0 || access(RT_RUNTIME, W_OK) != 0)
		skip_why("writing " RT_RUNTIME " needs root");
	if (!orig_runtime[0])
		skip_why(RT_RUNTIME " is not readable");
	if (strcmp(orig_runtime, KNOB_TEST_VALUE) == 0)
		skip_why("sched_rt_runtime_us is already " KNOB_TEST_VALUE ": nothing to change");
}

/* xorshift64*: the delays replay from the printed seed. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* --- 1. twenty kills --------------------------------------------------- */
struct kill_outcome {
	bool ok;
	bool retry; /* refused because another run held the knobs: not a kill */
	const char *phase;
	double gone_ms;
	char why[400];
};

static void one_kill(int n, int delay_ms, struct kill_outcome *o)
{
	char out[300], err[300], buf[4096], tmp[PATH_MAX];
	char *argv[] = { inputlat, "run", "--policy", policy, "--events", "400",
			 "--interval-ms", "5", "--quiet", NULL };
	char *check[] = { inputlat, "check", NULL };
	pid_t seen[NKIDS] = { 0 }, pid;
	struct il_test_result *res;
	double t0;
	int status;

	memset(o, 0, sizeof(*o));
	o->phase = "?";
	snprintf(out, sizeof(out), "%s/kill%d.out", tmpdir, n);
	snprintf(err, sizeof(err), "%s/kill%d.err", tmpdir, n);
	if (!knobs_wait_free(KNOBS_WAIT_MS)) {
		snprintf(o->why, sizeof(o->why), "another run held the knobs for %d s",
			 KNOBS_WAIT_MS / 1000);
		return;
	}
	t0 = now_s();
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	live_run = pid;
	/* Note the chain as it appears, so that its threads can be checked after. */
	while ((now_s() - t0) * 1000 < delay_ms) {
		for (int i = 0; i < NKIDS; i++)
			if (!seen[i])
				seen[i] = il_test_find_child(pid, kid_names[i]);
		usleep(1000);
	}
	kill(pid, SIGKILL);
	status = il_test_wait(pid, GONE_MS, NULL);
	live_run = 0;

	if (status >= 0 && WIFEXITED(status)) {
		/* It ended before the kill: only a refusal for held knobs is expected. */
		if (knobs_held_msg(err)) {
			o->retry = true;
			return;
		}
		il_test_read_file(err, buf, sizeof(buf));
		snprintf(o->why, sizeof(o->why), "inputlat exited %d before the kill: %.300s",
			 WEXITSTATUS(status), buf);
		return;
	}
	/* Where the kill landed: before the state file, between it and the
	 * knob, or with the knob changed. */
	snprintf(tmp, sizeof(tmp), "%s/.knobs.state.%d", il_knobs_state_dir(), (int)pid);
	if (state_pid() != pid && access(tmp, F_OK) == 0)
		o->phase = "during the knob change: state file being written";
	else if (state_pid() != pid)
		o->phase = "before the knob change";
	else if (strcmp(knob(RT_RUNTIME), KNOB_TEST_VALUE) != 0 ||
		 (orig_group[0] && atoll(knob(RT_GROUP)) > atoll(KNOB_TEST_VALUE)))
		o->phase = "during the knob change";
	else
		o->phase = "after the knob change";

	if (!chain_gone(seen, NKIDS, GONE_MS, &o->gone_ms, buf, sizeof(buf))) {
		snprintf(o->why, sizeof(o->why), "after %.0f ms: %.300s", o->gone_ms, buf);
		return;
	}
	res = malloc(sizeof(*res));
	assert_non_null(res);
	assert_int_equal(il_test_run(check, 30000, res), 0);
	if (res->exit_code != 0) {
		snprintf(o->why, sizeof(o->why), "inputlat check exited %d: %.300s", res->exit_code,
			 res->err);
		free(res);
		return;
	}
	free(res);
	if (!knobs_back(pid, o->why, sizeof(o->why)))
		return;
	/*
	 * HARNESS BUG (see report): a kill between the creation of the state
	 * file's temporary name and its link into place leaves
	 * .knobs.state.PID in the state directory for good; nothing removes it.
	 */
	if (access(tmp, F_OK) == 0) {
		snprintf(o->why, sizeof(o->why), "%.300s of the killed run is left behind", tmp);
		unlink(tmp); /* our run's: not left for the next test */
		return;
	}
	o->ok = true;
}

static void test_knob_kill_random(void **state)
{
	const char *env = getenv("IL_TEST_SEED");
	uint64_t seed, s;
	int passed = 0, kills = 0, retries = 0, early = 0;

	need_knobs();
	seed = env ? strtoull(env, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	if (!seed)
		seed = 1;
	s = seed;
	print_message("knob-kill: seed %llu (IL_TEST_SEED=%llu replays it); original "
		      "sched_rt_runtime_us %s, cpu.rt_runtime_us %s\n",
		      (unsigned long long)seed, (unsigned long long)seed, orig_runtime,
		      orig_group[0] ? orig_group : "(none)");
	while (kills < NKILLS) {
		struct kill_outcome o;
		/* Every third kill lands in the first 12 ms: around the knob change. */
		int delay = (int)(rng_next(&s) % (kills % 3 == 0 ? EARLY_DELAY_MS + 1 : MAX_DELAY_MS + 1));

		one_kill(kills, delay, &o);
		if (o.retry) {
			if (++retries > 10)
				fail_msg("other runs kept taking the system knobs");
			print_message("knob-kill: another run held the knobs; again\n");
			continue;
		}
		kills++;
		early += delay <= EARLY_DELAY_MS;
		if (o.ok) {
			passed++;
			print_message("kill %2d/%d at %4d ms (%s): chain gone in %.0f ms, knobs back "
				      "after check: ok\n",
				      kills, NKILLS, delay, o.phase, o.gone_ms);
		} else {
			print_error("kill %2d/%d at %4d ms (%s): FAILED: %s\n", kills, NKILLS, delay,
				    o.phase, o.why);
			/* Never go on with the knobs changed. */
			kill_live_run();
			put_back();
		}
	}
	print_message("knob-kill: %d of %d kills passed (%d in the first %d ms; seed %llu)\n",
		      passed, NKILLS, early, EARLY_DELAY_MS, (unsigned long long)seed);
	assert_int_equal(passed, NKILLS);
}

/* --- 2. the state file while a run holds the knobs --------------------- */
static void test_knob_kill_state_file_mode(void **state)
{
	char out[300], err[300], dir[PATH_MAX], why[400];
	char *argv[] = { inputlat, "run", "--policy", policy, "--events", "400",
			 "--interval-ms", "5", "--quiet", NULL };
	struct stat st;
	pid_t pid;
	int status;

	need_knobs();
	snprintf(out, sizeof(out), "%s/mode.out", tmpdir);
	snprintf(err, sizeof(err), "%s/mode.err", tmpdir);
	snprintf(dir, sizeof(dir), "%s", il_knobs_state_dir());
	for (int attempt = 0;; attempt++) {
		assert_true(knobs_wait_free(KNOBS_WAIT_MS));
		pid = il_test_spawn(argv, out, err);
		assert_true(pid > 0);
		live_run = pid;
		for (int i = 0; i < 500 && state_pid() != pid && waitpid(pid, &status, WNOHANG) == 0; i++)
			usleep(2000);
		if (state_pid() == pid)
			break;
		kill_live_run();
		if (attempt == 3 || !knobs_held_msg(err))
			fail_msg("the run never wrote %s", state_file);
	}
	assert_int_equal(lstat(state_file, &st), 0);
	print_message("%s: mode %04o uid %d\n", state_file, (unsigned)(st.st_mode & 07777),
		      (int)st.st_uid);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(lstat(dir, &st), 0);
	print_message("%s: mode %04o uid %d\n", dir, (unsigned)(st.st_mode & 07777), (int)st.st_uid);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, 0);

	/* SIGINT: the run puts the knobs back itself and exits 0. */
	kill(pid, SIGINT);
	status = il_test_wait(pid, 10000, NULL);
	live_run = 0;
	assert_true(status >= 0 && WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	if (!knobs_back(pid, why, sizeof(why)))
		fail_msg("after SIGINT: %s", why);
}

/*
 * --- 3. a symlinked state file is refused --------------------------------
 * In a private IL_STATE_DIR, so that /run/inputlat is never touched.
 *
 * HARNESS BUG (see report): the run refuses (the target stays untouched,
 * exit 1, no knob changed) but prints two lines, the second of which
 * wrongly says that "another inputlat run holds the system knobs". This
 * case asserts one line naming the state file and fails until il_run.c
 * treats an untrusted state file apart from a live holder.
 */
static void test_knob_kill_state_symlink(void **state)
{
	char sdir[PATH_MAX], link[PATH_MAX + 32], target[PATH_MAX + 32], before[4096], after[4096];
	char *argv[] = { inputlat, "run", "--policy", policy, "--events", "5", "--quiet", NULL };
	struct il_test_result *res;
	const char *nl;

	need_knobs();
	snprintf(sdir, sizeof(sdir), "%s/state", tmpdir);
	assert_int_equal(mkdir(sdir, 0700), 0);
	snprintf(target, sizeof(target), "%s/target", tmpdir);
	snprintf(link, sizeof(link), "%s/" IL_KNOBS_STATE_FILE, sdir);
	{
		FILE *f = fopen(target, "w");

		assert_non_null(f);
		fputs("not to be touched\n", f);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(symlink(target, link), 0);
	read_knob(target, before, sizeof(before));
	/* The run must refuse before any knob changes; wait for no other holder
	 * anyway, since a private state directory is no lock against them. */
	assert_true(knobs_wait_free(KNOBS_WAIT_MS));
	res = malloc(sizeof(*res));
	assert_non_null(res);
	setenv("IL_STATE_DIR", sdir, 1);
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	unsetenv("IL_STATE_DIR");
	print_message("symlinked state file: exit %d: %s", res->exit_code, res->err);
	read_knob(target, after, sizeof(after));
	assert_string_equal(before, after);
	assert_int_equal(res->term_signal, 0);
	assert_int_equal(res->exit_code, 1);
	if (!knobs_holder())
		assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	nl = strchr(res->err, '\n');
	if (!strstr(res->err, link) || !nl || nl[1] != '\0')
		fail_msg("want one line naming %s, got:\n%s", link, res->err);
	free(res);
}

/* --- fixtures ---------------------------------------------------------- */
/* One copy of this test or test_policy_run at a time, held until exit. */
static bool lock_suite(void)
{
	int fd = open("/tmp/il-test-policy-run.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return false;
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 100) {
		if (errno != EWOULDBLOCK || waited >= KNOBS_WAIT_MS) {
			close(fd);
			return false;
		}
		usleep(100000);
	}
	return true; /* fd stays open: the lock goes with the process */
}

static int group_setup(void **state)
{
	if (!lock_suite()) {
		print_error("another test held /tmp/il-test-policy-run.lock for %d s\n",
			    KNOBS_WAIT_MS / 1000);
		return -1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/il-test-knob-kill.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(inputlat, sizeof(inputlat), "%s", il_test_build_path("inputlat"));
	snprintf(policy_dir, sizeof(policy_dir), "%s", il_test_build_path("policies"));
	snprintf(policy, sizeof(policy), "%s/rt-" KNOB_TEST_VALUE ".policy", tmpdir);
	snprintf(state_file, sizeof(state_file), "%s/" IL_KNOBS_STATE_FILE, il_knobs_state_dir());
	/* A value another run set for itself must not become our original. */
	for (int tries = 0;; tries++) {
		if (!knobs_wait_free(KNOBS_WAIT_MS)) {
			print_error("another inputlat run held the system knobs for %d s\n",
				    KNOBS_WAIT_MS / 1000);
			return -1;
		}
		if (access(state_file, F_OK) == 0) {
			char *argv[] = { inputlat, "restore", NULL };
			struct il_test_result *res = malloc(sizeof(*res));

			if (res)
				il_test_run(argv, 10000, res);
			free(res);
		}
		read_knob(RT_RUNTIME, orig_runtime, sizeof(orig_runtime));
		read_knob(RT_GROUP, orig_group, sizeof(orig_group));
		if (access(state_file, F_OK) != 0)
			break;
		if (tries == 5) {
			print_error("%s stays in place; check it with `inputlat restore`\n", state_file);
			return -1;
		}
	}
	atexit(put_back);
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[512];

	kill_live_run();
	put_back();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int setup(void **state)
{
	if (geteuid() == 0 && access(policy, F_OK) != 0)
		write_knob_policy(policy);
	return 0;
}

static int teardown(void **state)
{
	kill_live_run();
	put_back();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_knob_kill_random, setup, teardown),
		cmocka_unit_test_setup_teardown(test_knob_kill_state_file_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_knob_kill_state_symlink, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
