#include "il_test_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_test.h"

/*
 * What this test started and may have to end: its own unreaped children
 * (parent 0), and the children of those it saw (parent: the child that
 * spawned them). A child of ours cannot be reused before we reap it; one
 * of theirs is only signalled while it still runs the program it ran and
 * its parent is that child or us (its subreaper).
 */
struct started {
	pid_t pid;
	pid_t parent;
	char comm[16];
};

static struct started started[64];

static void remember(pid_t pid, pid_t parent, const char *comm)
{
	struct started *free_slot = NULL;

	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++) {
		if (started[i].pid == pid && started[i].parent == parent)
			return;
		if (!free_slot &&
		    (!started[i].pid ||
		     (started[i].parent && !il_test_proc_alive(started[i].pid, started[i].comm))))
			free_slot = &started[i];
	}
	if (!free_slot)
		fail_msg("a test started more than %zu processes at once",
			 sizeof(started) / sizeof(started[0]));
	free_slot->pid = pid;
	free_slot->parent = parent;
	snprintf(free_slot->comm, sizeof(free_slot->comm), "%s", comm);
}

static void forget(pid_t pid)
{
	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++)
		if (started[i].pid == pid && !started[i].parent)
			memset(&started[i], 0, sizeof(started[i]));
}

const char *il_test_build_path(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("IL_BUILD_DIR");

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : ".", name);
	return buf;
}

const char *il_test_kid_name(int p)
{
	const struct il_proc_desc *d = il_chain_proc((enum il_proc_id)p);

	return d ? d->program : "?";
}

/* Orphans of the programs we start come to us, so "nothing left" can be
 * checked among our own descendants, whatever else runs on the machine. */
static void become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* Reads what fd has into buf at *n; closes it and sets it to -1 at the end. */
static void drain(int *fd, char *buf, size_t cap, size_t *n)
{
	ssize_t r = read(*fd, buf + *n, cap - 1 - *n);

	if (r <= 0) {
		close(*fd);
		*fd = -1;
	} else {
		*n += (size_t)r;
	}
}

int il_test_run(char *const argv[], int timeout_ms, struct il_test_result *res)
{
	return il_test_run_with(argv, timeout_ms, NULL, NULL, res);
}

int il_test_run_with(char *const argv[], int timeout_ms, void (*pre)(void *ctx), void *ctx,
		     struct il_test_result *res)
{
	int out[2], err[2];
	size_t nout = 0, nerr = 0;
	double t0 = il_test_now_s();
	pid_t pid;
	int status;

	memset(res, 0, sizeof(*res));
	become_subreaper();
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (pre)
			pre(ctx);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	while (out[0] >= 0 || err[0] >= 0) {
		struct pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
		int left = timeout_ms - (int)((il_test_now_s() - t0) * 1000);

		if (left <= 0) {
			kill(pid, SIGKILL);
			res->timed_out = 1;
			break;
		}
		if (poll(p, 2, left) <= 0)
			continue;
		if (p[0].revents)
			drain(&out[0], res->out, sizeof(res->out), &nout);
		if (p[1].revents)
			drain(&err[0], res->err, sizeof(res->err), &nerr);
	}
	if (out[0] >= 0)
		close(out[0]);
	if (err[0] >= 0)
		close(err[0]);
	waitpid(pid, &status, 0);
	res->elapsed_s = il_test_now_s() - t0;
	if (WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else {
		res->exit_code = -1;
		res->term_signal = WTERMSIG(status);
	}
	return 0;
}

pid_t il_test_spawn(char *const argv[], const char *out_path, const char *err_path)
{
	const char *base = strrchr(argv[0], '/');
	pid_t pid;

	become_subreaper();
	pid = fork();
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		remember(pid, 0, base ? base + 1 : argv[0]);
	return pid;
}

int il_test_wait(pid_t pid, int timeout_ms, double *elapsed_s)
{
	double t0 = il_test_now_s();
	int status = -1;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if ((il_test_now_s() - t0) * 1000 > timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			status = -1;
			break;
		}
		usleep(10000);
	}
	forget(pid);
	if (elapsed_s)
		*elapsed_s = il_test_now_s() - t0;
	return status;
}

/* One process as /proc/PID/stat shows it. */
struct proc_stat {
	pid_t pid;
	char comm[64];
	char state;
	pid_t ppid;
};

static int read_stat(pid_t pid, struct proc_stat *ps)
{
	struct il_procfs_stat st;

	if (pid < 1 || il_procfs_stat(pid, 0, IL_PROCFS_PPID, &st))
		return -1;
	snprintf(ps->comm, sizeof(ps->comm), "%s", st.comm);
	ps->state = st.state;
	ps->pid = pid;
	ps->ppid = (pid_t)st.f[IL_PROCFS_PPID];
	return 0;
}

static bool live(const struct proc_stat *ps)
{
	return ps->state != 'Z' && ps->state != 'X';
}

/* The numbered entries of a /proc directory ("/proc", "/proc/PID/task"),
 * passed to fn until it returns true; returns that entry's number, or 0. */
static pid_t scan_dir(const char *dir, bool (*fn)(pid_t id, void *ctx), void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d))) {
		pid_t id;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		id = (pid_t)strtol(e->d_name, NULL, 10);
		if (fn(id, ctx))
			found = id;
	}
	if (d)
		closedir(d);
	return found;
}

struct proc_scan {
	bool (*match)(const struct proc_stat *ps, void *ctx);
	void *ctx;
};

static bool proc_scan_cb(pid_t pid, void *ctx)
{
	struct proc_scan *s = ctx;
	struct proc_stat ps;

	return read_stat(pid, &ps) == 0 && s->match(&ps, s->ctx);
}

/* Every process on the machine, to match until it returns true; returns that pid, or 0. */
static pid_t proc_scan(bool (*match)(const struct proc_stat *ps, void *ctx), void *ctx)
{
	struct proc_scan s = {match, ctx};

	return scan_dir("/proc", proc_scan_cb, &s);
}

struct child_of {
	pid_t ppid;
	const char *comm;
};

static bool child_of_cb(const struct proc_stat *ps, void *ctx)
{
	const struct child_of *c = ctx;

	return ps->ppid == c->ppid && strcmp(ps->comm, c->comm) == 0;
}

pid_t il_test_find_child(pid_t ppid, const char *comm)
{
	struct child_of c = {ppid, comm};

	return proc_scan(child_of_cb, &c);
}

/* /proc/PID/task/TID/comm without its newline. */
static void read_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (il_test_read_file(path, buf, len) <= 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

struct thread_named {
	pid_t pid;
	const char *name;
};

static bool thread_named_cb(pid_t tid, void *ctx)
{
	const struct thread_named *t = ctx;
	char comm[64];

	read_comm(t->pid, tid, comm, sizeof(comm));
	return strcmp(comm, t->name) == 0;
}

pid_t il_test_find_thread(pid_t pid, const char *name)
{
	struct thread_named t = {pid, name};
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	return scan_dir(dir, thread_named_cb, &t);
}

bool il_test_proc_alive(pid_t pid, const char *comm)
{
	struct proc_stat ps;

	return pid > 0 && read_stat(pid, &ps) == 0 && strcmp(ps.comm, comm) == 0 && live(&ps);
}

bool il_test_procs_gone(const pid_t *pids, const char *const *comms, int n, int timeout_ms)
{
	double t0 = il_test_now_s();

	for (;;) {
		bool any = false;

		for (int i = 0; i < n; i++)
			any |= il_test_proc_alive(pids[i], comms[i]);
		if (!any)
			return true;
		if ((il_test_now_s() - t0) * 1000 > timeout_ms)
			return false;
		usleep(10000);
	}
}

static bool started_directly(pid_t pid)
{
	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++)
		if (started[i].pid == pid && !started[i].parent)
			return true;
	return false;
}

/* Not waitpid(-1): a child il_test_wait has yet to reap must stay ours,
 * or its pid could be reused before the teardown kills it. */
static bool reap_cb(const struct proc_stat *ps, void *ctx)
{
	if (ps->ppid == getpid() && ps->state == 'Z' && !started_directly(ps->pid))
		waitpid(ps->pid, NULL, WNOHANG);
	return false;
}

void il_test_reap_orphans(void)
{
	proc_scan(reap_cb, NULL);
}

static bool project_program(const char *comm)
{
	if (strcmp(comm, "inputlat") == 0)
		return true;
	for (int p = 0; p < IL_TEST_NKIDS; p++)
		if (strcmp(comm, il_test_kid_name(p)) == 0)
			return true;
	return false;
}

/* Our descendants only: orphans are reparented to us (subreaper), so a
 * leftover shows up here as our child. Zombies are not leftovers. */
static bool project_proc_cb(const struct proc_stat *ps, void *ctx)
{
	*(int *)ctx += ps->ppid == getpid() && live(ps) && project_program(ps->comm);
	return false;
}

int il_test_count_project_procs(void)
{
	int n = 0;

	proc_scan(project_proc_cb, &n);
	return n;
}

static bool running_cb(const struct proc_stat *ps, void *ctx)
{
	return live(ps) && strcmp(ps->comm, ctx) == 0;
}

bool il_test_program_running(const char *comm)
{
	return proc_scan(running_cb, (void *)comm) != 0;
}

/* "browser:ui", "il:load0": a thread of one of our children. */
static bool project_thread(const char *comm)
{
	for (int p = 0; p < IL_TEST_NKIDS; p++) {
		const char *prefix = il_chain_proc((enum il_proc_id)p)->prefix;
		size_t n = strlen(prefix);

		if (strncmp(comm, prefix, n) == 0 && comm[n] == ':')
			return true;
	}
	return false;
}

struct rt_left {
	const pid_t *seen;
	int nseen, n;
	pid_t pid; /* the process whose threads are being read */
	char *what;
	size_t len;
};

/* An RT or deadline thread named like ours; what gets the first. */
static bool rt_thread_cb(pid_t tid, void *ctx)
{
	struct rt_left *r = ctx;
	struct il_procfs_stat st;
	unsigned long long policy;
	char comm[64];

	read_comm(r->pid, tid, comm, sizeof(comm));
	if (!project_thread(comm) || il_procfs_stat(r->pid, tid, IL_PROCFS_POLICY, &st) ||
	    st.state == 'Z' || st.state == 'X')
		return false;
	/* The class: SCHED_FIFO 1, SCHED_RR 2, SCHED_DEADLINE 6. */
	policy = st.f[IL_PROCFS_POLICY];
	if (policy == SCHED_FIFO || policy == SCHED_RR || policy == 6) {
		if (!r->n)
			snprintf(r->what, r->len, "%s (pid %d tid %d, policy %llu)", comm,
				 (int)r->pid, (int)tid, policy);
		r->n++;
	}
	return false;
}

/* Our descendants (children of ours, which includes every orphan since we
 * are a subreaper) and the pids seen. */
static bool rt_proc_cb(const struct proc_stat *ps, void *ctx)
{
	struct rt_left *r = ctx;
	bool ours = ps->ppid == getpid();
	char dir[64];

	for (int i = 0; i < r->nseen && !ours; i++)
		ours = r->seen[i] == ps->pid;
	if (ours) {
		r->pid = ps->pid;
		snprintf(dir, sizeof(dir), "/proc/%d/task", (int)ps->pid);
		scan_dir(dir, rt_thread_cb, r);
	}
	return false;
}

int il_test_rt_threads_left(const pid_t *seen, int nseen, char *what, size_t len)
{
	struct rt_left r = {.seen = seen, .nseen = nseen, .what = what, .len = len};

	proc_scan(rt_proc_cb, &r);
	return r.n;
}

bool il_test_nothing_left(const pid_t *seen, int nseen, int timeout_ms, double *took_ms, char *why,
			  size_t len)
{
	double t0 = il_test_now_s();

	for (;;) {
		int procs, rt;

		il_test_reap_orphans();
		procs = il_test_count_project_procs();
		rt = il_test_rt_threads_left(seen, nseen, why, len);
		*took_ms = (il_test_now_s() - t0) * 1000;
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

void il_test_kill_started(void)
{
	pid_t kids[sizeof(started) / sizeof(started[0])];
	const char *comms[sizeof(started) / sizeof(started[0])];
	int nkids = 0;

	/* Their children first, while we can still tell them by their parent. */
	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++) {
		struct started *s = &started[i];
		struct proc_stat ps;

		if (!s->pid || !s->parent)
			continue;
		if (read_stat(s->pid, &ps) == 0 && strcmp(ps.comm, s->comm) == 0 &&
		    (ps.ppid == s->parent || ps.ppid == getpid()) && live(&ps)) {
			kill(s->pid, SIGKILL);
			kill(s->pid, SIGCONT); /* a SIGSTOPped one */
			kids[nkids] = s->pid;
			comms[nkids++] = s->comm;
		}
	}
	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++)
		if (started[i].pid && !started[i].parent) {
			kill(started[i].pid, SIGKILL);
			waitpid(started[i].pid, NULL, 0);
		}
	il_test_procs_gone(kids, comms, nkids, 2000);
	il_test_reap_orphans();
	memset(started, 0, sizeof(started));
}

int il_test_proc_teardown(void **state)
{
	il_test_kill_started();
	return 0;
}

int il_test_paths_init(struct il_test_paths *p, const char *tag)
{
	snprintf(p->inputlat, sizeof(p->inputlat), "%s", il_test_build_path("inputlat"));
	snprintf(p->policy_dir, sizeof(p->policy_dir), "%s", il_test_build_path("policies"));
	return il_test_tmpdir_make(p->tmpdir, sizeof(p->tmpdir), tag);
}

int il_test_paths_close(struct il_test_paths *p)
{
	return p->tmpdir[0] ? il_test_tmpdir_remove(p->tmpdir) : 0;
}

struct il_test_paths il_test_suite;

int il_test_suite_setup(void **state)
{
	const char *name = program_invocation_short_name;

	if (strncmp(name, "test_", 5) == 0)
		name += 5;
	return il_test_paths_init(&il_test_suite, name) < 0 ? -1 : 0;
}

int il_test_suite_teardown(void **state)
{
	il_test_kill_started();
	return il_test_paths_close(&il_test_suite) < 0 ? -1 : 0;
}

const char *il_test_suite_file(const char *name)
{
	static char buf[64][PATH_MAX];
	static int i;
	char *p = buf[i++ % 64];

	snprintf(p, PATH_MAX, "%s/%s", il_test_suite.tmpdir, name);
	return p;
}

/* --- a background `inputlat run` and its chain ---------------------------- */

void il_test_chain_spawn(struct il_test_chain *c, char *const argv[], const char *out,
			 const char *err)
{
	memset(c, 0, sizeof(*c));
	c->status = -1;
	snprintf(c->err_path, sizeof(c->err_path), "%s", err);
	c->t0 = il_test_now_s();
	c->pid = il_test_spawn(argv, out, err);
	if (c->pid < 0)
		c->pid = 0;
}

int il_test_chain_look(struct il_test_chain *c)
{
	int n = 0;

	for (int p = 0; p < IL_TEST_NKIDS; p++) {
		if (!c->kids[p] && c->pid) {
			c->kids[p] = il_test_find_child(c->pid, il_test_kid_name(p));
			if (c->kids[p])
				remember(c->kids[p], c->pid, il_test_kid_name(p));
		}
		n += c->kids[p] != 0;
	}
	return n;
}

int il_test_chain_start(struct il_test_chain *c, char *const argv[], const char *out,
			const char *err, int timeout_ms)
{
	il_test_chain_spawn(c, argv, out, err);
	assert_true(c->pid > 0);
	for (;;) {
		if (il_test_chain_look(c) == IL_TEST_NKIDS)
			return 0;
		if (il_test_chain_ended(c))
			return -ECHILD;
		if ((il_test_now_s() - c->t0) * 1000 > timeout_ms) {
			il_test_kill_started();
			fail_msg("inputlat did not start its chain within %d ms", timeout_ms);
		}
		usleep(1000);
	}
}

/* Times thread tid of pid went to sleep of its own accord, or -1. */
static long voluntary_switches(pid_t pid, pid_t tid)
{
	char text[IL_PROCFS_STATUS_MAX];
	uint64_t n;

	if (il_procfs_status(pid, tid, text, sizeof(text)) ||
	    il_procfs_status_field(text, "voluntary_ctxt_switches", 10, &n))
		return -1;
	return (long)n;
}

bool il_test_chain_wait_events(struct il_test_chain *c, int events, int timeout_ms)
{
	const struct il_thread_desc *gpu = il_chain_thread(IL_T_VIZ_GPU);
	uint64_t want_ns = (uint64_t)(events + IL_TEST_RUN_WARMUP) * gpu->default_work_us * 1000;
	uint64_t cpu_ns = 0, wait_ns;
	double t0 = il_test_now_s();
	long sleeps = -1;
	pid_t tid = 0;

	for (;;) {
		il_test_chain_look(c);
		if (!tid && c->kids[gpu->proc])
			tid = il_test_find_thread(c->kids[gpu->proc], gpu->name);
		/*
		 * The CPU time alone over-counts on a CPU slower than the run's
		 * calibration (a loaded host: 2x seen, so 20 events' worth came
		 * after the 10 warm-up ones and a signalled run had completed
		 * none): the thread must also have slept once per event, waiting
		 * for the next.
		 */
		if (tid && il_procfs_schedstat(tid, 0, &cpu_ns, &wait_ns, NULL) == 0 &&
		    cpu_ns >= want_ns &&
		    (sleeps = voluntary_switches(c->kids[gpu->proc], tid)) >=
			events + IL_TEST_RUN_WARMUP)
			return true;
		if (il_test_chain_ended(c))
			return false;
		if ((il_test_now_s() - t0) * 1000 > timeout_ms) {
			il_test_kill_started();
			fail_msg("%d events (after %d warm-up ones) did not go through the chain "
				 "within %d ms: %s %s %.2f ms of CPU (want %.2f ms), slept %ld "
				 "times",
				 events, IL_TEST_RUN_WARMUP, timeout_ms, gpu->name,
				 tid ? "used" : "not seen;", (double)cpu_ns / 1e6,
				 (double)want_ns / 1e6, sleeps);
		}
		usleep(1000);
	}
}

void il_test_chain_assert_up(const struct il_test_chain *c, int rc)
{
	char buf[4096];

	if (rc < 0)
		fail_msg("inputlat ended (status 0x%x) before its chain was up: %s", c->status,
			 il_test_chain_stderr(c, buf, sizeof(buf)));
}

bool il_test_chain_ended(struct il_test_chain *c)
{
	if (!c->reaped && c->pid && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
		forget(c->pid);
		c->reaped = true;
	}
	return c->reaped;
}

int il_test_chain_wait(struct il_test_chain *c, int timeout_ms)
{
	if (c->pid && !c->reaped) {
		c->status = il_test_wait(c->pid, timeout_ms, NULL);
		c->reaped = true;
	}
	return c->status;
}

bool il_test_chain_gone(const struct il_test_chain *c, int timeout_ms)
{
	const char *comms[IL_TEST_NKIDS];

	for (int p = 0; p < IL_TEST_NKIDS; p++)
		comms[p] = il_test_kid_name(p);
	return (!c->pid || c->reaped) &&
	       il_test_procs_gone(c->kids, comms, IL_TEST_NKIDS, timeout_ms);
}

const char *il_test_chain_stderr(const struct il_test_chain *c, char *buf, size_t len)
{
	if (il_test_read_file(c->err_path, buf, len) < 0)
		buf[0] = '\0';
	return buf;
}

void il_test_child_judge(pid_t pid, int fd, const char *skip_why)
{
	char msg[1024];
	ssize_t n = read(fd, msg, sizeof(msg) - 1);
	int st = 0;

	msg[n > 0 ? n : 0] = '\0';
	close(fd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		IL_TEST_SKIP("%s", skip_why);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s", msg[0] ? msg : "the child died");
}
