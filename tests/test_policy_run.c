/*
 * Scheduling policies end to end (issue 3): `inputlat run --policy` as a
 * user runs it. Each built-in is applied for real and checked twice: on
 * the live threads, read from /proc and sched_getattr while the run goes,
 * and in the report's threads[] after it ends. The system knobs survive a
 * SIGKILLed run (the next `inputlat check` restores them) and a SIGINT
 * (the run restores them itself); RLIMIT_RTTIME stops a runaway FIFO
 * thread; a bad policy is one line and exit 2.
 *
 * This machine is shared: other inputlat runs may hold the system knobs
 * (/run/inputlat/knobs.state). Runs that find them held are retried once
 * the holder is gone, and nothing here writes a knob while another live
 * run holds them. Every test's teardown (and an atexit handler) puts
 * sched_rt_runtime_us and the root RT group back, and kills only the pids
 * this file started.
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
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_knobs.h"
#include "il_policy.h"
#include "il_role.h"
#include "il_sched.h"
#include "il_test_proc.h"

#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define RT_GROUP "/sys/fs/cgroup/cpu/cpu.rt_runtime_us"
#define KNOB_TEST_VALUE "900000"
#define NPIPE 10
#define NCHAIN 3
#define NKIDS 4 /* the chain and il-workload */
/* A run that finds the knobs held waits at most this long for them. */
#define KNOBS_WAIT_MS 120000
#define START_TIMEOUT_MS 20000

#define skip_why(...)                                   \
	do {                                            \
		print_message("skipped: " __VA_ARGS__); \
		print_message("\n");                    \
		skip();                                 \
	} while (0)

static const char *const chain_procs[NKIDS] = { "browser-sim", "render-sim", "viz-sim",
						"il-workload" };

/* The ten pipeline threads, where they live and the role a policy gives them. */
static const struct pipe_thread {
	int proc; /* index in chain_procs */
	const char *name;
	enum il_role role;
} pipeline[NPIPE] = {
	{ 0, "browser:evdev", IL_ROLE_EVDEV },	{ 0, "browser:ui", IL_ROLE_UI },
	{ 0, "browser:io", IL_ROLE_IO },	{ 1, "render:io", IL_ROLE_IO },
	{ 1, "render:comp", IL_ROLE_COMPOSITOR }, { 1, "render:main", IL_ROLE_MAIN },
	{ 2, "viz:io", IL_ROLE_IO },		{ 2, "viz:comp", IL_ROLE_COMPOSITOR },
	{ 2, "viz:gpu", IL_ROLE_GPU },		{ 2, "viz:drm", IL_ROLE_DRM },
};

static const char *const builtins[] = { "cfs", "cfs-chrome", "eevdf-slice", "rt",
					"rt-throttled", "rt-fair-server", "deadline" };

static char tmpdir[256];
/* il_test_build_path returns one static buffer: keep our own copies. */
static char inputlat[PATH_MAX], policy_dir[PATH_MAX];
static char orig_runtime[32], orig_group[32];
static char state_file[PATH_MAX];
/* The run this file started and has not reaped yet (0: none), and its chain. */
static pid_t live_run, live_kids[NKIDS];

/* --- knobs ------------------------------------------------------------- */
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

	if (p && kill(p, 0) != 0 && errno == ESRCH)
		p = 0;
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

/* Waits until no live run holds the knobs; a dead run's file is left for
 * the next start to recover. Returns false if one still holds them. */
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
 * Never leaves the knobs changed: a state file of a dead run is restored
 * by `inputlat restore`; then, unless another live run holds the knobs
 * (it restores them itself), the originals are written back directly,
 * the global ratio first so that the root RT group may follow it.
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

/* --- processes --------------------------------------------------------- */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool procs_gone(const pid_t *pids, const char *const *comms, int n, int timeout_ms);

/* Only a process we started, and only while it is ours to reap; its chain
 * follows it by PR_SET_PDEATHSIG, which we wait for. */
static void kill_live_run(void)
{
	if (live_run > 0) {
		kill(live_run, SIGKILL);
		waitpid(live_run, NULL, 0);
		live_run = 0;
		procs_gone(live_kids, chain_procs, NKIDS, 2000);
	}
	memset(live_kids, 0, sizeof(live_kids));
}

/* True while pid runs the program comm (not gone, not a zombie, not reused). */
static bool proc_alive(pid_t pid, const char *comm)
{
	char path[64], buf[512], *l, *r;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l || r[1] != ' ')
		return false;
	if ((size_t)(r - l - 1) != strlen(comm) || strncmp(l + 1, comm, strlen(comm)) != 0)
		return false;
	return r[2] != 'Z' && r[2] != 'X';
}

/* Waits up to timeout_ms for every listed process to be gone. */
static bool procs_gone(const pid_t *pids, const char *const *comms, int n, int timeout_ms)
{
	double t0 = now_s();

	for (;;) {
		bool any = false;

		for (int i = 0; i < n; i++)
			any |= proc_alive(pids[i], comms[i]);
		if (!any)
			return true;
		if ((now_s() - t0) * 1000 > timeout_ms)
			return false;
		usleep(10000);
	}
}

/*
 * True when a run was refused because another run holds the knobs: at
 * start (exit 1) or, in a race with that run, when applying them (exit 2).
 * Reads the file path, or text when path is NULL.
 */
static bool knobs_held_msg(const char *path, const char *text)
{
	static char buf[65536];

	if (path) {
		if (il_test_read_file(path, buf, sizeof(buf)) < 0)
			return false;
		text = buf;
	}
	return strstr(text, "holds the system knobs") || strstr(text, "system knobs are held by");
}

/*
 * Starts `inputlat run ...` in the background and waits until its three
 * chain processes exist (their pids in kids[], with il-workload's when
 * it is built). A start refused because
 * another run holds the knobs is retried once they are free. If the run
 * ends before its chain is seen, *status is its wait status and kids[]
 * holds what was seen; otherwise *status is -1. Returns the pid.
 */
static pid_t start_run(char *const argv[], const char *out, const char *err, pid_t kids[NKIDS],
		       int *status, double *t0)
{
	double deadline = now_s() + (KNOBS_WAIT_MS + START_TIMEOUT_MS) / 1000.0;

	for (;;) {
		pid_t pid;
		double started;

		assert_true(knobs_wait_free(KNOBS_WAIT_MS));
		memset(kids, 0, NKIDS * sizeof(*kids));
		*status = -1;
		started = now_s();
		if (t0)
			*t0 = started;
		pid = il_test_spawn(argv, out, err);
		assert_true(pid > 0);
		live_run = pid;
		for (;;) {
			int n = 0;

			for (int i = 0; i < NCHAIN; i++) {
				if (!kids[i])
					kids[i] = il_test_find_child(pid, chain_procs[i]);
				n += kids[i] != 0;
			}
			if (n == NCHAIN) {
				/* il-workload is spawned right after viz-sim. */
				for (int i = 0; i < 200 && !kids[NCHAIN] &&
						access(il_test_build_path("il-workload"), X_OK) == 0; i++) {
					kids[NCHAIN] = il_test_find_child(pid, chain_procs[NCHAIN]);
					usleep(1000);
				}
				memcpy(live_kids, kids, sizeof(live_kids));
				return pid;
			}
			if (waitpid(pid, status, WNOHANG) == pid)
				break;
			if (now_s() - started > START_TIMEOUT_MS / 1000.0) {
				kill_live_run();
				fail_msg("inputlat did not start its chain within %d ms", START_TIMEOUT_MS);
			}
			usleep(1000);
		}
		live_run = 0;
		if (!(WIFEXITED(*status) && knobs_held_msg(err, NULL)) || now_s() > deadline)
			return pid;
		print_message("another inputlat run holds the system knobs; waiting for it\n");
	}
}

/* il_test_run, retried while another run holds the system knobs. */
static void run_retry(char *const argv[], int timeout_ms, struct il_test_result *res)
{
	double deadline = now_s() + KNOBS_WAIT_MS / 1000.0;

	for (;;) {
		assert_true(knobs_wait_free(KNOBS_WAIT_MS));
		assert_int_equal(il_test_run(argv, timeout_ms, res), 0);
		if (!knobs_held_msg(NULL, res->err) || now_s() > deadline)
			return;
		print_message("another inputlat run holds the system knobs; waiting for it\n");
	}
}

/* --- attributes -------------------------------------------------------- */
/* sched_getattr(2)'s structure, named apart from any libc definition. */
struct raw_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

/* What the kernel says about one live thread, read without il_sched. */
struct live_attrs {
	int policy, rt_priority, nice; /* /proc/PID/task/TID/stat fields 41, 40, 19 */
	struct raw_sched_attr attr;    /* sched_getattr on the tid */
	cpu_set_t cpus;
};

static int read_live(pid_t pid, pid_t tid, struct live_attrs *out)
{
	char path[96], buf[1024], *r, *tok, *save = NULL;
	long field[64];
	int n = 3;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		return -ESRCH;
	/* The comm may hold spaces: fields count from after its last ')'. */
	r = strrchr(buf, ')');
	if (!r)
		return -EINVAL;
	for (tok = strtok_r(r + 1, " ", &save); tok && n < 64; tok = strtok_r(NULL, " ", &save))
		field[n++] = strtol(tok, NULL, 10);
	if (n <= 41)
		return -EINVAL;
	out->nice = (int)field[19];
	out->rt_priority = (int)field[40];
	out->policy = (int)field[41];
	memset(&out->attr, 0, sizeof(out->attr));
	if (syscall(SYS_sched_getattr, tid, &out->attr, sizeof(out->attr), 0) < 0)
		return -errno;
	if (sched_getaffinity(tid, sizeof(out->cpus), &out->cpus) < 0)
		return -errno;
	return 0;
}

/* Compares a live thread with what its role asks for; why says how it differs. */
static bool live_matches(const struct il_role_attrs *want, const struct live_attrs *got, char *why,
			 size_t len)
{
	const struct raw_sched_attr *a = &got->attr;
	int cls = want->sched_class;

	if (got->policy != cls || (int)a->sched_policy != cls) {
		snprintf(why, len, "class %d in /proc, %u from sched_getattr, want %s", got->policy,
			 a->sched_policy, il_sched_class_name(cls));
		return false;
	}
	if ((cls == SCHED_FIFO || cls == SCHED_RR) &&
	    (got->rt_priority != want->priority || (int)a->sched_priority != want->priority)) {
		snprintf(why, len, "priority %d (sched_getattr %u), want %d", got->rt_priority,
			 a->sched_priority, want->priority);
		return false;
	}
	if ((cls == SCHED_OTHER || cls == SCHED_BATCH) &&
	    (got->nice != want->nice || a->sched_nice != want->nice)) {
		snprintf(why, len, "nice %d (sched_getattr %d), want %d", got->nice, a->sched_nice,
			 want->nice);
		return false;
	}
	/* A fair thread's sched_runtime is its slice (Linux 6.12+). */
	if ((cls == SCHED_OTHER || cls == SCHED_BATCH) && want->slice_ns &&
	    a->sched_runtime != want->slice_ns) {
		snprintf(why, len, "slice %llu ns, want %llu", (unsigned long long)a->sched_runtime,
			 (unsigned long long)want->slice_ns);
		return false;
	}
	if (cls == SCHED_DEADLINE &&
	    (a->sched_runtime != want->dl_runtime_ns || a->sched_deadline != want->dl_deadline_ns ||
	     a->sched_period != want->dl_period_ns)) {
		snprintf(why, len, "deadline %llu/%llu/%llu ns, want %llu/%llu/%llu",
			 (unsigned long long)a->sched_runtime, (unsigned long long)a->sched_deadline,
			 (unsigned long long)a->sched_period, (unsigned long long)want->dl_runtime_ns,
			 (unsigned long long)want->dl_deadline_ns, (unsigned long long)want->dl_period_ns);
		return false;
	}
	if (want->has_cpus && !CPU_EQUAL(&want->cpus, &got->cpus)) {
		snprintf(why, len, "affinity differs from the policy's cpus");
		return false;
	}
	return true;
}

/* The tid of the thread named name in process pid, 0 if none (yet). */
static pid_t find_thread(pid_t pid, const char *name)
{
	char path[64], comm[64];
	struct dirent *e;
	pid_t tid = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && !tid && (e = readdir(d))) {
		char p[96];
		long t;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		t = strtol(e->d_name, NULL, 10);
		snprintf(p, sizeof(p), "/proc/%d/task/%ld/comm", (int)pid, t);
		read_knob(p, comm, sizeof(comm));
		if (strcmp(comm, name) == 0)
			tid = (pid_t)t;
	}
	if (d)
		closedir(d);
	return tid;
}

/*
 * Polls the live chain until each of the ten pipeline threads exists and
 * has its role's attributes (threads apply them themselves at start), or
 * the run ends, or timeout_ms. tids[] gets what was found; why says which
 * thread differs and how. Returns true when all ten matched.
 */
static bool live_check(pid_t run, const pid_t kids[NCHAIN], const struct il_policy *pol,
		       pid_t tids[NPIPE], char *why, size_t len, int timeout_ms)
{
	bool mismatch_seen = false;
	double t0 = now_s();

	snprintf(why, len, "the run ended before its threads were seen");
	for (;;) {
		char w[400];
		bool mismatch = false;
		int ok = 0;

		for (int i = 0; i < NPIPE; i++) {
			const struct pipe_thread *pt = &pipeline[i];
			struct live_attrs got;
			char d[200];

			tids[i] = find_thread(kids[pt->proc], pt->name);
			if (!tids[i]) {
				snprintf(w, sizeof(w), "no thread %s in %s pid %d", pt->name,
					 chain_procs[pt->proc], (int)kids[pt->proc]);
				break;
			}
			if (read_live(kids[pt->proc], tids[i], &got) < 0) {
				snprintf(w, sizeof(w), "cannot read %s tid %d", pt->name, (int)tids[i]);
				break;
			}
			if (!live_matches(il_policy_role(pol, pt->role), &got, d, sizeof(d))) {
				snprintf(w, sizeof(w), "%s (role %s) tid %d: %s", pt->name,
					 il_role_name(pt->role), (int)tids[i], d);
				mismatch = true;
				break;
			}
			ok++;
		}
		if (ok == NPIPE)
			return true;
		/* A thread seen with the wrong attributes says more than one not started yet. */
		if (mismatch || !mismatch_seen)
			snprintf(why, len, "%s", w);
		mismatch_seen |= mismatch;
		if (!proc_alive(run, "inputlat") || (now_s() - t0) * 1000 > timeout_ms)
			return false;
		usleep(2000);
	}
}

/* --- the report -------------------------------------------------------- */
static cJSON *load_json(const char *path)
{
	static char buf[1 << 22];
	ssize_t n = il_test_read_file(path, buf, sizeof(buf));

	assert_true(n > 0);
	return cJSON_Parse(buf);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("threads[]: '%s' is missing or not a number", key);
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v))
		fail_msg("'%s' is missing or not a string", key);
	return v->valuestring;
}

/* Reads one threads[] entry back into the form il_sched_matches takes. */
static void json_state(const cJSON *t, struct il_sched_state *s)
{
	const cJSON *dl = cJSON_GetObjectItemCaseSensitive(t, "dl_deadline_ns");

	memset(s, 0, sizeof(*s));
	s->sched_class = il_sched_class_parse(str(t, "policy"));
	assert_true(s->sched_class >= 0);
	s->priority = (int)num(t, "priority");
	s->nice = (int)num(t, "nice");
	s->slice_ns = (uint64_t)num(t, "slice_ns");
	s->dl_runtime_ns = (uint64_t)num(t, "dl_runtime_ns");
	s->dl_period_ns = (uint64_t)num(t, "dl_period_ns");
	/* The deadline itself is reported too; absent, it is the period. */
	s->dl_deadline_ns = cJSON_IsNumber(dl) ? (uint64_t)dl->valuedouble : s->dl_period_ns;
	snprintf(s->cpus, sizeof(s->cpus), "%s", str(t, "cpus"));
}

static void check_json_thread(const cJSON *t, const struct il_policy *pol, const char *what)
{
	const struct il_role_attrs *want;
	struct il_sched_state s;
	int role = il_role_parse(str(t, "role"));

	if (role < 0)
		fail_msg("%s: unknown role '%s'", what, str(t, "role"));
	want = il_policy_role(pol, (enum il_role)role);
	json_state(t, &s);
	assert_string_equal(str(t, "policy"), il_sched_class_name(want->sched_class));
	if (!il_sched_matches(want, &s))
		fail_msg("%s (role %s): report says %s prio %d nice %d slice %llu dl %llu/%llu/%llu "
			 "cpus %s; the policy wants %s prio %d nice %d slice %llu dl %llu/%llu/%llu",
			 what, str(t, "role"), str(t, "policy"), s.priority, s.nice,
			 (unsigned long long)s.slice_ns, (unsigned long long)s.dl_runtime_ns,
			 (unsigned long long)s.dl_deadline_ns, (unsigned long long)s.dl_period_ns, s.cpus,
			 il_sched_class_name(want->sched_class), want->priority, want->nice,
			 (unsigned long long)want->slice_ns, (unsigned long long)want->dl_runtime_ns,
			 (unsigned long long)want->dl_deadline_ns, (unsigned long long)want->dl_period_ns);
}

/* The knobs[] entry for path, NULL if the run did not change it. */
static const cJSON *knob_entry(const cJSON *root, const char *path)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(root, "knobs"))
		if (strcmp(str(k, "path"), path) == 0)
			return k;
	return NULL;
}

/* --- fixtures ---------------------------------------------------------- */
/*
 * Two copies of this file (say the plain and the ASan build under ctest
 * -j) would recover each other's SIGKILLed run and compare against each
 * other's knob values: one copy at a time, held until exit.
 */
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
		print_error("another test_policy_run held /tmp/il-test-policy-run.lock for %d s\n",
			    KNOBS_WAIT_MS / 1000);
		return -1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/il-test-policy-run.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(inputlat, sizeof(inputlat), "%s", il_test_build_path("inputlat"));
	snprintf(policy_dir, sizeof(policy_dir), "%s", il_test_build_path("policies"));
	snprintf(state_file, sizeof(state_file), "%s/" IL_KNOBS_STATE_FILE, il_knobs_state_dir());
	/* A value another run set for itself must not become our original:
	 * read only while no run holds the knobs, before and after. */
	for (int tries = 0;; tries++) {
		if (!knobs_wait_free(KNOBS_WAIT_MS)) {
			print_error("another inputlat run held the system knobs for %d s\n",
				    KNOBS_WAIT_MS / 1000);
			return -1;
		}
		if (access(state_file, F_OK) == 0) {
			/* A dead run's leftovers: restore before reading the originals. */
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	kill_live_run();
	put_back();
	return 0;
}

static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &ma, &mi);
	return ma > major || (ma == major && mi >= minor);
}

static struct il_policy *load_builtin(const char *name)
{
	char err[512] = "";
	struct il_policy *p = NULL;

	if (il_policy_load(name, policy_dir, &p, err, sizeof(err)) < 0)
		fail_msg("loading %s: %s", name, err);
	return p;
}

/* --- 1. every built-in, live and reported ------------------------------ */
static void test_policy_run_builtins(void **state)
{
	const char *name = *state;
	struct il_policy *pol = load_builtin(name);
	const struct il_knob_settings *k = il_policy_knobs(pol);
	char json[300], out[300], err[300], why[400], buf[4096], rp1[PATH_MAX], rp2[PATH_MAX];
	char *argv[] = { inputlat, "run", "--policy", (char *)name,
			 "--events", "100", "--interval-ms", "10", "--json", json, NULL };
	const char *comms[NKIDS + 1] = { chain_procs[0], chain_procs[1], chain_procs[2], chain_procs[3],
					 "inputlat" };
	pid_t kids[NKIDS + 1], tids[NPIPE], pid;
	bool needs_slice = false, needs_nice = false, live_ok;
	int status;
	cJSON *root, *threads, *t, *fs, *ev;

	/* Only what this machine truly cannot do is skipped. */
	for (int r = 0; r < IL_ROLE_COUNT; r++) {
		needs_slice |= il_policy_role(pol, (enum il_role)r)->slice_ns != 0;
		needs_nice |= il_policy_role(pol, (enum il_role)r)->nice < 0;
	}
	if ((il_policy_uses_rt(pol) || needs_nice || k->has_rt_runtime || k->has_rt_period ||
	     k->has_fair_server) &&
	    geteuid() != 0) {
		il_policy_free(pol);
		skip_why("policy %s needs root (RT classes, negative nice or system knobs)", name);
	}
	if (needs_slice && !kernel_at_least(6, 12)) {
		il_policy_free(pol);
		skip_why("policy %s needs EEVDF custom slices (Linux 6.12+)", name);
	}
	if (k->has_fair_server && !kernel_at_least(6, 12)) {
		il_policy_free(pol);
		skip_why("policy %s needs the fair server (Linux 6.12+)", name);
	}

	snprintf(json, sizeof(json), "%s/%s.json", tmpdir, name);
	snprintf(out, sizeof(out), "%s/%s.out", tmpdir, name);
	snprintf(err, sizeof(err), "%s/%s.err", tmpdir, name);
	unlink(json);
	pid = start_run(argv, out, err, kids, &status, NULL);
	kids[NKIDS] = pid;
	if (status != -1) {
		il_test_read_file(err, buf, sizeof(buf));
		fail_msg("policy %s: inputlat exited (status 0x%x) before its chain was up: %s", name,
			 status, buf);
	}

	/* While it runs: the kernel's view of every pipeline thread. */
	live_ok = live_check(pid, kids, pol, tids, why, sizeof(why), 10000);
	if (live_ok && k->has_rt_runtime) {
		char want[32];

		snprintf(want, sizeof(want), "%lld", (long long)k->rt_runtime_us);
		/* When this run changed it, it holds the knobs: no other run can. */
		if (strcmp(orig_runtime, want) != 0 && strcmp(knob(RT_RUNTIME), want) != 0) {
			live_ok = false;
			snprintf(why, sizeof(why), "sched_rt_runtime_us is %s during the run, want %s",
				 knob(RT_RUNTIME), want);
		}
	}
	status = il_test_wait(pid, 60000, NULL);
	live_run = 0;
	il_test_read_file(err, buf, sizeof(buf));
	if (!live_ok)
		fail_msg("policy %s, live threads: %s (stderr: %s)", name, why, buf);
	if (!(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fail_msg("policy %s: inputlat status 0x%x: %s", name, status, buf);
	assert_true(procs_gone(kids, comms, NKIDS + 1, 2000));

	/* After it: the report says the same, thread by thread. */
	root = load_json(json);
	assert_non_null(root);
	ev = cJSON_GetObjectItemCaseSensitive(root, "events");
	if (num(ev, "completed") != 100) {
		char *text = cJSON_PrintUnformatted(ev);

		snprintf(buf, sizeof(buf), "%s", text ? text : "?");
		free(text);
		fail_msg("policy %s: events %s, want 100 completed", name, buf);
	}
	assert_string_equal(str(root, "policy"), il_policy_name(pol));
	assert_non_null(realpath(str(root, "policy_file"), rp1));
	assert_non_null(realpath(il_policy_path(pol), rp2));
	assert_string_equal(rp1, rp2);
	threads = cJSON_GetObjectItemCaseSensitive(root, "threads");
	assert_true(cJSON_IsArray(threads));
	for (int i = 0; i < NPIPE; i++) {
		const struct pipe_thread *pt = &pipeline[i];
		const cJSON *found = NULL;
		int n = 0;

		cJSON_ArrayForEach(t, threads)
			if (strcmp(str(t, "name"), pt->name) == 0) {
				found = t;
				n++;
			}
		if (n != 1)
			fail_msg("threads[] has %d entries named %s", n, pt->name);
		assert_string_equal(str(found, "process"), chain_procs[pt->proc]);
		assert_string_equal(str(found, "role"), il_role_name(pt->role));
		assert_int_equal(num(found, "pid"), kids[pt->proc]);
		assert_int_equal(num(found, "tid"), tids[i]);
		check_json_thread(found, pol, pt->name);
	}
	/* The threads around the pipeline (js, canary, load) follow their roles too. */
	cJSON_ArrayForEach(t, threads)
		check_json_thread(t, pol, str(t, "name"));

	/* Knobs: changed as asked (when not already so), and put back. */
	if (k->has_rt_runtime) {
		const cJSON *e = knob_entry(root, RT_RUNTIME);
		char want[32];

		snprintf(want, sizeof(want), "%lld", (long long)k->rt_runtime_us);
		if (strcmp(orig_runtime, want) == 0) {
			assert_null(e);
		} else {
			assert_non_null(e);
			assert_string_equal(str(e, "original"), orig_runtime);
			assert_string_equal(str(e, "applied"), want);
			assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "restored")));
		}
	} else {
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "knobs")), 0);
	}
	fs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "kernel"),
					     "fair_server");
	assert_non_null(fs);
	if (k->has_fair_server) {
		const cJSON *tun = cJSON_GetObjectItemCaseSensitive(fs, "tunable");

		assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fs, "present")));
		assert_true(cJSON_IsBool(tun));
		/* Tuned: the values in force are the policy's. */
		if (cJSON_IsTrue(tun)) {
			assert_int_equal(num(fs, "runtime_ns"), k->fs_runtime_ns);
			assert_int_equal(num(fs, "period_ns"), k->fs_period_ns);
		}
	}
	cJSON_Delete(root);
	/* Only root can see whether another run holds the knobs right now. */
	if (geteuid() == 0 && knobs_wait_free(10000)) {
		assert_string_equal(knob(RT_RUNTIME), orig_runtime);
		if (orig_group[0])
			assert_string_equal(knob(RT_GROUP), orig_group);
	}
	il_policy_free(pol);
}

/* --- 2, 3. a knob-changing run, killed and interrupted ----------------- */
/*
 * The knobs are back at the originals and the state file of run ours is gone. If
 * another run has taken the knobs since, the originals it saved must be
 * ours: that proves they were back before it started.
 */
static void assert_knobs_back(pid_t ours)
{
	static const char *const paths[2] = { RT_RUNTIME, RT_GROUP };
	const char *orig[2] = { orig_runtime, orig_group };
	pid_t holder = state_pid();

	assert_true(holder != ours);
	for (int i = 0; i < 2; i++) {
		if (!orig[i][0])
			continue;
		if (holder && state_original(paths[i])[0])
			assert_string_equal(state_original(paths[i]), orig[i]);
		else
			assert_string_equal(knob(paths[i]), orig[i]);
	}
}

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
	/* The copy is a valid policy asking for exactly this value. */
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

/* Starts the knob policy with many events and waits until the knob is set. */
static pid_t start_knob_run(const char *tag, char *json, size_t jlen, pid_t kids[NKIDS])
{
	static char policy[300], out[300], err[300];
	char *argv[] = { inputlat, "run", "--policy", policy,
			 "--events", "100000", "--interval-ms", "10", "--json", json, NULL };
	char buf[4096];
	pid_t pid;
	int status;

	snprintf(policy, sizeof(policy), "%s/rt-%s.policy", tmpdir, KNOB_TEST_VALUE);
	snprintf(json, jlen, "%s/%s.json", tmpdir, tag);
	snprintf(out, sizeof(out), "%s/%s.out", tmpdir, tag);
	snprintf(err, sizeof(err), "%s/%s.err", tmpdir, tag);
	write_knob_policy(policy);
	pid = start_run(argv, out, err, kids, &status, NULL);
	if (status != -1) {
		il_test_read_file(err, buf, sizeof(buf));
		fail_msg("inputlat exited (status 0x%x) before its chain was up: %s", status, buf);
	}
	/* The knobs are applied before the chain starts; allow for a slow read. */
	for (int i = 0; i < 500 && strcmp(knob(RT_RUNTIME), KNOB_TEST_VALUE) != 0; i++)
		usleep(10000);
	assert_string_equal(knob(RT_RUNTIME), KNOB_TEST_VALUE);
	if (orig_group[0])
		assert_true(atoll(knob(RT_GROUP)) <= atoll(KNOB_TEST_VALUE));
	/* Let events flow so the kill lands mid-run. */
	usleep(500000);
	assert_true(proc_alive(pid, "inputlat"));
	return pid;
}

static void test_policy_run_knob_sigkill(void **state)
{
	char json[300], needle[64];
	char *check[] = { inputlat, "check", NULL };
	struct il_test_result *res;
	pid_t kids[NKIDS], pid;
	int status;

	need_knobs();
	for (int attempt = 1;; attempt++) {
		pid = start_knob_run("sigkill", json, sizeof(json), kids);
		kill(pid, SIGKILL);
		status = il_test_wait(pid, 2000, NULL);
		live_run = 0;
		assert_true(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		/* PR_SET_PDEATHSIG takes the chain down with it. */
		assert_true(procs_gone(kids, chain_procs, NKIDS, 2000));
		/* Another run on this machine may start first and recover the knobs
		 * itself; then there is nothing left for check to do: try again. */
		if (state_pid() == pid || attempt == 3)
			break;
		print_message("another inputlat run recovered the knobs first; again\n");
	}

	/* Nothing could restore the knob: it is still changed, the state file names the dead run. */
	assert_int_equal(state_pid(), pid);
	assert_string_equal(knob(RT_RUNTIME), KNOB_TEST_VALUE);

	/* The next start, here `inputlat check`, puts the originals back. */
	res = malloc(sizeof(*res));
	assert_non_null(res);
	assert_int_equal(il_test_run(check, 30000, res), 0);
	assert_int_equal(res->exit_code, 0);
	snprintf(needle, sizeof(needle), "dead run pid %d", (int)pid);
	if (!strstr(res->err, needle) && !strstr(res->out, needle))
		fail_msg("inputlat check did not say it restored the knobs of pid %d:\n%s%s", (int)pid,
			 res->out, res->err);
	free(res);
	assert_knobs_back(pid);
}

static void test_policy_run_knob_sigint(void **state)
{
	char json[300];
	pid_t kids[NKIDS], pid;
	const cJSON *e;
	cJSON *root;
	int status;

	need_knobs();
	pid = start_knob_run("sigint", json, sizeof(json), kids);
	kill(pid, SIGINT);
	status = il_test_wait(pid, 10000, NULL);
	live_run = 0;
	assert_true(status >= 0 && WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(procs_gone(kids, chain_procs, NKIDS, 2000));

	/* The run put the knobs back itself. */
	assert_knobs_back(pid);

	root = load_json(json);
	assert_non_null(root);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "interrupted")));
	assert_true(num(cJSON_GetObjectItemCaseSensitive(root, "events"), "completed") > 0);
	e = knob_entry(root, RT_RUNTIME);
	assert_non_null(e);
	assert_string_equal(str(e, "original"), orig_runtime);
	assert_string_equal(str(e, "applied"), KNOB_TEST_VALUE);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "restored")));
	if (orig_group[0]) {
		e = knob_entry(root, RT_GROUP);
		assert_non_null(e);
		assert_string_equal(str(e, "original"), orig_group);
	}
	cJSON_Delete(root);
}

/* --- 4. RLIMIT_RTTIME stops a runaway FIFO thread ---------------------- */
static void test_policy_run_rttime(void **state)
{
	char json[300], out[300], err[300], buf[8192];
	char *argv[] = { inputlat, "run", "--policy", "rt",
			 "--rttime-ms", "300", "--test-runaway", "render:main", "--events", "100",
			 "--json", json, NULL };
	pid_t kids[NKIDS], pids[16];
	const char *comms[16];
	int status, n = 0;
	double t0, elapsed;
	const cJSON *t, *e;
	cJSON *root;

	if (geteuid() != 0)
		skip_why("SCHED_FIFO and sched_rt_runtime_us need root");
	snprintf(json, sizeof(json), "%s/rttime.json", tmpdir);
	snprintf(out, sizeof(out), "%s/rttime.out", tmpdir);
	snprintf(err, sizeof(err), "%s/rttime.err", tmpdir);
	pids[n] = start_run(argv, out, err, kids, &status, &t0);
	comms[n++] = "inputlat";
	if (status == -1) {
		status = il_test_wait(pids[0], 10000, NULL);
		live_run = 0;
	}
	elapsed = now_s() - t0;
	for (int i = 0; i < NKIDS; i++) {
		pids[n] = kids[i];
		comms[n++] = chain_procs[i];
	}
	il_test_read_file(err, buf, sizeof(buf));
	if (!(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1))
		fail_msg("inputlat status 0x%x, want exit 1: %s", status, buf);
	if (elapsed >= 3.0)
		fail_msg("the runaway was stopped after %.2f s, want < 3 s", elapsed);
	assert_non_null(strstr(buf, "render-sim"));
	assert_non_null(strstr(buf, "CPU time limit"));

	root = load_json(json);
	assert_non_null(root);
	e = cJSON_GetObjectItemCaseSensitive(root, "error");
	assert_true(cJSON_IsString(e));
	assert_non_null(strstr(e->valuestring, "render-sim"));
	assert_non_null(strstr(e->valuestring, "CPU time limit"));
	/* Every process the report knows of, and every child seen, is gone. */
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(root, "threads"))
		if (n < 16) {
			pids[n] = (pid_t)num(t, "pid");
			comms[n++] = str(t, "process");
		}
	assert_true(procs_gone(pids, comms, n, 2000));
	cJSON_Delete(root);
	if (knobs_wait_free(10000))
		assert_string_equal(knob(RT_RUNTIME), orig_runtime);
}

/* --- 5. a bad policy is the user's mistake: one line, exit 2 ----------- */
struct bad_policy {
	const char *text;
	int line;	     /* expected in "FILE:LINE:" */
	const char *expect;  /* what the line names */
};

static void assert_one_line(const struct il_test_result *res, const char *a, const char *b)
{
	const char *nl = strchr(res->err, '\n');

	if (res->exit_code != 2 || !nl || nl[1] != '\0' || !strstr(res->err, a) ||
	    (b && !strstr(res->err, b)))
		fail_msg("want exit 2 and one line naming '%s'%s%s; got exit %d, stderr:\n%s", a,
			 b ? " and " : "", b ? b : "", res->exit_code, res->err);
	assert_string_equal(res->out, "");
}

static void test_policy_run_bad(void **state)
{
	static const struct bad_policy cases[] = {
		{ "[policy]\nname = bad\n\n[ui]\nclass = other\nbogus = 1\n", 6, "bogus" },
		{ "[policy]\nname = bad\n[render]\nclass = other\n", 3, "render" },
		{ "[policy]\nname = bad\n[ui]\nclass = fast\n", 4, "fast" },
		{ "[ui]\nclass = fifo\npriority = 0\n", 3, "priority" },
	};
	char *argv[] = { inputlat, "run", "--policy", "nope",
			 "--events", "10", NULL };
	struct il_test_result *res = malloc(sizeof(*res));
	char path[300], where[320];

	assert_non_null(res);
	run_retry(argv, 20000, res);
	assert_one_line(res, "nope", "unknown policy");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/bad%zu.policy", tmpdir, i);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(cases[i].text, f);
		assert_int_equal(fclose(f), 0);
		argv[3] = path;
		run_retry(argv, 20000, res);
		snprintf(where, sizeof(where), "%s:%d:", path, cases[i].line);
		assert_one_line(res, where, cases[i].expect);
	}
	/* No knob was touched by any of them. */
	if (geteuid() == 0 && orig_runtime[0] && knobs_wait_free(10000))
		assert_string_equal(knob(RT_RUNTIME), orig_runtime);
	free(res);
}

int main(void)
{
	struct CMUnitTest tests[sizeof(builtins) / sizeof(builtins[0]) + 4];
	static char names[sizeof(builtins) / sizeof(builtins[0])][64];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		snprintf(names[i], sizeof(names[i]), "test_policy_run_builtins(%s)", builtins[i]);
		tests[n++] = (struct CMUnitTest){ names[i], test_policy_run_builtins, NULL, teardown,
						  (void *)builtins[i] };
	}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(test_policy_run_knob_sigkill, teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(test_policy_run_knob_sigint, teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(test_policy_run_rttime, teardown);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test_teardown(test_policy_run_bad, teardown);
	return _cmocka_run_group_tests("test_policy_run", tests, n, group_setup, group_teardown);
}
