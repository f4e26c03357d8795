#include "il_background.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_file.h"
#include "il_parse.h"
#include "il_procfs.h"
#include "il_stderr_keep.h"
#include "il_thread.h"

#define STATE_PREFIX "background."
#define STATE_SUFFIX ".state"
/* A command that ends this fast never ran as a load. */
#define EARLY_EXIT_MS 200
#define TERM_GRACE_MS 1000
/* The reaper's grace between SIGTERM and SIGKILL: the group is gone within
 * about a second of the orchestrator's death. */
#define REAPER_GRACE_MS 500
/*
 * The environment entry every process of the command inherits,
 * "IL_BACKGROUND=<64 random bits>": a process that left the group (setsid,
 * a daemon's double fork) still carries it, and is found by it in
 * /proc/PID/environ (Jenkins finds a build's strays the same way). Only a
 * process that clears its environment is lost to it.
 */
#define COOKIE_VAR "IL_BACKGROUND"
/* A state file's size limit: its command came as one argument (128 KiB at
 * most, MAX_ARG_STRLEN), up to 6 bytes each as JSON escapes it. */
#define BG_STATE_MAX_BYTES (1u << 20)
/* How much of a process's environment is searched for the cookie. */
#define ENVIRON_MAX (4u << 20)

struct il_background {
	char *cmd;
	pid_t pgid; /* the leader's pid: /bin/sh -c cmd */
	uint64_t start_ns;
	uint64_t cpu_start_ns; /* the group's CPU time at the start */
	char state_path[4200];
	char cookie[40]; /* "IL_BACKGROUND=<16 hex digits>" */
	bool reaped;
	int status;
	unsigned long long leader_start; /* the leader's starttime, in ticks */
	pid_t reaper;			 /* see start_reaper; 0: none */
	int reaper_fd;			 /* the pipe's write end, ours alone; -1: none */
	int stderr_fd;			 /* the command's stderr (il_stderr_keep); -1: none */
};

/* What we read of /proc/PID/stat: pgrp, utime, stime, cutime, cstime
 * (in clock ticks, the last two for reaped children) and starttime. */
struct proc_stat {
	long long pgrp;
	/* A user process not exiting: its environment is readable, but for
	 * a moment inside exec (see has_cookie). */
	bool live_user;
	unsigned long long utime, stime, cutime, cstime, start;
};

/* 0 or -errno. */
static int read_proc_stat(pid_t pid, struct proc_stat *ps)
{
	struct il_procfs_stat st;
	int r = il_procfs_stat(pid, 0, IL_PROCFS_STARTTIME, &st);

	if (r)
		return r;
	ps->pgrp = (long long)st.f[IL_PROCFS_PGRP];
	ps->live_user = st.state != 'Z' && st.state != 'X' &&
			!(st.f[IL_PROCFS_FLAGS] & (IL_PROCFS_PF_EXITING | IL_PROCFS_PF_KTHREAD));
	ps->utime = st.f[IL_PROCFS_UTIME];
	ps->stime = st.f[IL_PROCFS_STIME];
	ps->cutime = st.f[IL_PROCFS_CUTIME];
	ps->cstime = st.f[IL_PROCFS_CSTIME];
	ps->start = st.f[IL_PROCFS_STARTTIME];
	return 0;
}

/* "IL_BACKGROUND=" and 16 hex digits, as make_cookie writes it. */
static bool cookie_valid(const char *c)
{
	size_t plen = strlen(COOKIE_VAR "=");

	return strncmp(c, COOKIE_VAR "=", plen) == 0 && strlen(c + plen) == 16 &&
	       strspn(c + plen, "0123456789abcdef") == 16;
}

static int make_cookie(char *buf, size_t len)
{
	unsigned long long v;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		return -errno;
	snprintf(buf, len, COOKIE_VAR "=%016llx", v);
	return 0;
}

/* environ without any IL_BACKGROUND entry, plus cookie: the command's. */
static char **env_with(const char *cookie)
{
	extern char **environ;
	size_t n = 0, k = 0, plen = strlen(COOKIE_VAR "=");
	char **envp;

	while (environ && environ[n])
		n++;
	if (!(envp = calloc(n + 2, sizeof(*envp))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], COOKIE_VAR "=", plen) != 0)
			envp[k++] = environ[i];
	envp[k++] = (char *)cookie;
	envp[k] = NULL;
	return envp;
}

/*
 * True when pid's environment has the entry cookie ("IL_BACKGROUND=...");
 * *empty when it read nothing.
 */
static bool environ_has_cookie(pid_t pid, const char *cookie, bool *empty)
{
	size_t clen = strlen(cookie), n = 0, cap = 0;
	char path[64], *buf = NULL, *p;
	bool found = false;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	while (n < ENVIRON_MAX) {
		if (cap - n < 65536) {
			char *grown = realloc(buf, cap + 65536 + 1); /* + its NUL */

			if (!grown)
				break;
			buf = grown;
			cap += 65536;
		}
		if ((r = read(fd, buf + n, cap - n)) <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*empty = n == 0;
	if (buf)
		buf[n] = '\0';
	/* Entries are NUL-terminated; the cookie is one whole entry. */
	for (p = buf; p && p + clen <= buf + n; p += strlen(p) + 1)
		if (memcmp(p, cookie, clen) == 0 && (p + clen == buf + n || p[clen] == '\0')) {
			found = true;
			break;
		}
	free(buf);
	return found;
}

/*
 * A live user process whose environment reads empty is inside exec: the
 * kernel installs the new memory before it lays out the environment
 * (create_elf_tables), and /proc reads nothing in between. A daemon of
 * the load caught there would be missed, and left running; so it is read
 * again, a few times over at most 20 ms.
 */
static bool has_cookie(pid_t pid, const struct proc_stat *ps, const char *cookie)
{
	bool empty = false;

	for (int i = 0; i < 10; i++) {
		if (environ_has_cookie(pid, cookie, &empty))
			return true;
		if (!empty || !ps->live_user)
			return false;
		usleep(2000);
	}
	return false;
}

/* What one scan of the command's processes found. */
struct group_tally {
	uint64_t cpu_ns;   /* utime, stime and the times of the children each reaped */
	int outside;	   /* of them, found by the cookie outside the group */
	cpu_set_t allowed; /* the CPUs any of them may run on (their affinities) */
};

/*
 * Visits the command's processes started at or after min_start: the
 * members of group pgid and, by cookie (NULL: none), those that left it.
 * Returns how many there were, adding them up in *t (NULL: not counted);
 * sig, when not 0, is sent to each.
 */
static int group_scan(pid_t pgid, const char *cookie, unsigned long long min_start,
		      struct group_tally *t, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (t) {
		memset(t, 0, sizeof(*t));
		CPU_ZERO(&t->allowed);
	}
	while (d && (e = readdir(d))) {
		struct proc_stat ps;
		uint64_t pid;
		bool in_group;
		cpu_set_t mask;

		if (il_parse_u64(e->d_name, 1, INT32_MAX, &pid) < 0 ||
		    read_proc_stat((pid_t)pid, &ps) < 0 || ps.start < min_start ||
		    (pid_t)pid == getpid())
			continue;
		in_group = ps.pgrp == pgid;
		if (!in_group && !(cookie && cookie[0] && has_cookie((pid_t)pid, &ps, cookie)))
			continue;
		n++;
		if (t) {
			t->outside += !in_group;
			t->cpu_ns +=
			    il_procfs_ticks_ns(ps.utime + ps.stime + ps.cutime + ps.cstime);
			/* A command may narrow itself (taskset, a pinned worker):
			 * its share is of the CPUs it allowed itself. */
			if (sched_getaffinity((pid_t)pid, sizeof(mask), &mask) == 0)
				CPU_OR(&t->allowed, &t->allowed, &mask);
		}
		if (sig)
			kill((pid_t)pid, sig);
	}
	if (d)
		closedir(d);
	return n;
}

static int write_state(const char *dir, const char *path, pid_t pgid, unsigned long long start,
		       const char *cmd, const char *cookie, char *err, size_t errlen)
{
	struct proc_stat self;
	cJSON *o = cJSON_CreateObject();
	char tmp[4300], *text;
	int fd, r = 0;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		r = -errno;
		snprintf(err, errlen, "state directory %s: %s", dir, strerror(-r));
		cJSON_Delete(o);
		return r;
	}
	/* Our start time names this process in the file even after a pid
	 * reuse; without it the file could not say whose group this is. */
	if ((r = read_proc_stat(getpid(), &self))) {
		snprintf(err, errlen, "/proc/%d/stat: %s", (int)getpid(), strerror(-r));
		cJSON_Delete(o);
		return r;
	}
	cJSON_AddNumberToObject(o, "pid", getpid());
	cJSON_AddNumberToObject(o, "pid_start", (double)self.start);
	cJSON_AddNumberToObject(o, "pgid", pgid);
	cJSON_AddNumberToObject(o, "pgid_start", (double)start);
	cJSON_AddStringToObject(o, "command", cmd);
	cJSON_AddStringToObject(o, "cookie", cookie);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Whole or not at all: a temporary name, fsync, then rename. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fsync(fd) != 0 ||
	    rename(tmp, path) != 0) {
		r = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		unlink(tmp);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	return r;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_exec(const char *cmd, int gate, int err_fd, char *const *envp)
{
	struct sched_param sp = {0};
	sigset_t none;
	char go;
	int null;

	setpgid(0, 0);
	/* The orchestrator dying before the state file exists takes us along. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Ordinary CFS load, whatever the orchestrator's class and nice. */
	sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp);
	setpriority(PRIO_PROCESS, 0, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* inputlat ignores it for its own outputs; the user's command gets
	 * the default a shell would have given it. */
	signal(SIGXFSZ, SIG_DFL);
	/* Nothing blocked: the run blocks its stop signals while it starts,
	 * and a mask survives exec. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	/* Kept, for a failure to quote; /dev/null when it could not be. */
	if (err_fd >= 0)
		dup2(err_fd, 2);
	if (read(gate, &go, 1) != 1)
		_exit(126); /* no state file: never run */
	/* The group outlives us only through the state file, not PDEATHSIG:
	 * the shell's own children would not get it anyway. */
	prctl(PR_SET_PDEATHSIG, 0);
	/* Nothing of the run's but stdio: a descriptor the run inherited
	 * without CLOEXEC (a flock(1) lock, a pipe its caller reads to EOF)
	 * would be held by the load, and by whatever of it escaped a stop. */
	close_range(3, ~0u, 0);
	execve("/bin/sh", (char *const[]){"sh", "-c", (char *)cmd, NULL}, envp);
	_exit(127);
}

/*
 * The reaper, between fork and (no) exec: async-signal-safe calls only,
 * the orchestrator has threads. It waits for EOF on fd, which comes when
 * the orchestrator dies however it dies (the write end is its alone, and
 * CLOEXEC), then stops group pgid: SIGTERM, SIGKILL after REAPER_GRACE_MS.
 * A pid stays allocated while it names a live process group, so
 * kill(-pgid) reaches only the command's processes while any is left. An
 * orderly stop kills the reaper first (il_background_stop).
 */
static void reaper_main(int fd, pid_t pgid)
{
	struct sched_param sp = {0};
	sigset_t all;
	ssize_t n;
	char c;
	int null;

	/* Its own group and no signal but SIGKILL: a Ctrl-C to the run's
	 * group, or kill -9 of it, must not end the reaper before its work. */
	setpgid(0, 0);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_NAME, "il:bg-reaper");
	sched_setscheduler(0, SCHED_OTHER, &sp);
	setpriority(PRIO_PROCESS, 0, 0);
	/* Nothing of the orchestrator's held open: not its locks (the machine's
	 * knob lock would outlive it), nor the pipes a caller reads to EOF. */
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0u, 0);
	do
		n = read(fd, &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
	if (kill(-pgid, SIGTERM) == 0) {
		const struct timespec tick = {0, 10000000};

		for (int waited = 0; waited < REAPER_GRACE_MS && kill(-pgid, 0) == 0; waited += 10)
			nanosleep(&tick, NULL);
		kill(-pgid, SIGKILL);
	}
	_exit(0);
}

/*
 * Starts the reaper of group pgid: the background group dies within about
 * a second of the orchestrator's death, SIGKILL included (the leader drops
 * PR_SET_PDEATHSIG before exec, see child_exec, and a shell's children
 * never had it). Forked after the leader, which so never holds the pipe.
 * Without it (fork failed) the next run or check still kills the group
 * from the state file. 0 or -errno.
 */
static int start_reaper(struct il_background *b)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		close(p[1]);
		reaper_main(p[0], b->pgid);
	}
	close(p[0]);
	b->reaper = pid;
	b->reaper_fd = p[1];
	return 0;
}

/* An orderly stop: the reaper goes first, so that only the stop signals the group. */
static void stop_reaper(struct il_background *b)
{
	if (b->reaper > 0) {
		kill(b->reaper, SIGKILL);
		waitpid(b->reaper, NULL, 0);
		b->reaper = 0;
	}
	if (b->reaper_fd >= 0) {
		close(b->reaper_fd);
		b->reaper_fd = -1;
	}
}

/* ": LAST LINE" of what the command wrote to stderr, or "" when nothing. */
static void stderr_said(const struct il_background *b, char *buf, size_t len)
{
	char line[256];

	il_stderr_keep_last_line(b->stderr_fd, line, sizeof(line));
	snprintf(buf, len, "%s%s", line[0] ? ": " : "", line);
}

int il_background_start(const char *cmd, const char *state_dir, struct il_background **out,
			char *err, size_t errlen)
{
	struct il_background *b = calloc(1, sizeof(*b));
	struct proc_stat ps;
	char said[300];
	int gate[2] = {-1, -1}, r;
	char **envp = NULL;
	pid_t pid;

	if (!b || !(b->cmd = strdup(cmd))) {
		free(b);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->reaper_fd = -1;
	/* Not kept (no memfd): the command's failure is said without it. */
	b->stderr_fd = il_stderr_keep_open();
	if ((r = make_cookie(b->cookie, sizeof(b->cookie))) < 0) {
		snprintf(err, errlen, "getrandom: %s", strerror(-r));
		goto fail;
	}
	/* Built here: between fork and exec only async-signal-safe calls. */
	if (!(envp = env_with(b->cookie))) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (pipe2(gate, O_CLOEXEC) != 0) {
		r = -errno;
		snprintf(err, errlen, "--background '%s': pipe: %s", cmd, strerror(-r));
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		snprintf(err, errlen, "--background '%s': fork: %s%s", cmd, strerror(-r),
			 il_thread_limit_why(-r));
		goto fail;
	}
	if (pid == 0) {
		close(gate[1]);
		child_exec(cmd, gate[0], b->stderr_fd, envp);
	}
	free(envp);
	envp = NULL;
	close(gate[0]);
	gate[0] = -1;
	/* Both sides call setpgid, so the group exists whoever runs first. */
	setpgid(pid, pid);
	b->pgid = pid;
	if ((r = start_reaper(b)) < 0) {
		snprintf(err, errlen, "--background '%s': its reaper: fork: %s%s", cmd,
			 strerror(-r), il_thread_limit_why(-r));
		close(gate[1]); /* the child reads EOF and exits without running cmd */
		gate[1] = -1;
		waitpid(pid, NULL, 0);
		b->reaped = true;
		goto fail;
	}
	snprintf(b->state_path, sizeof(b->state_path), "%s/" STATE_PREFIX "%d" STATE_SUFFIX,
		 state_dir, (int)getpid());
	r = read_proc_stat(pid, &ps);
	if (r == 0)
		r = write_state(state_dir, b->state_path, pid, ps.start, cmd, b->cookie, err,
				errlen);
	else
		snprintf(err, errlen, "/proc/%d/stat: %s", (int)pid, strerror(-r));
	if (r < 0) {
		close(gate[1]); /* the child reads EOF and exits without running cmd */
		waitpid(pid, NULL, 0);
		b->reaped = true;
		goto fail;
	}
	/* The file is on disk: let it run. */
	if (write(gate[1], "g", 1) != 1) {
		r = -errno;
		snprintf(err, errlen, "starting the background command: %s", strerror(-r));
	}
	close(gate[1]);
	gate[1] = -1;
	b->start_ns = il_now_ns();
	b->leader_start = ps.start;
	{
		struct group_tally t;

		group_scan(b->pgid, b->cookie, ps.start, &t, 0);
		b->cpu_start_ns = t.cpu_ns;
	}
	/* A command that is not there, or ends at once, is the user's mistake. */
	for (int waited = 0; r == 0 && waited < EARLY_EXIT_MS; waited += 10) {
		if (waitpid(pid, &b->status, WNOHANG) == pid) {
			b->reaped = true;
			r = -ECHILD;
			stderr_said(b, said, sizeof(said));
			if (WIFEXITED(b->status))
				snprintf(err, errlen,
					 "--background '%s': exited with status %d before "
					 "the run started%s%s",
					 cmd, WEXITSTATUS(b->status),
					 WEXITSTATUS(b->status) == 127 && !said[0]
					     ? " (command not found?)"
					     : "",
					 said);
			else
				snprintf(err, errlen,
					 "--background '%s': killed by signal %d before "
					 "the run started%s",
					 cmd, WTERMSIG(b->status), said);
			break;
		}
		usleep(10000);
	}
	if (r < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	free(envp);
	if (gate[1] >= 0)
		close(gate[1]);
	if (gate[0] >= 0)
		close(gate[0]);
	if (b->pgid > 0) {
		il_background_stop(b);
		return r;
	}
	if (b->stderr_fd >= 0)
		close(b->stderr_fd);
	free(b->cmd);
	free(b);
	return r;
}

pid_t il_background_pgid(const struct il_background *b)
{
	return b->pgid;
}

cJSON *il_background_stats_json(const struct il_background *b)
{
	cJSON *o = cJSON_CreateObject();
	uint64_t cpu = 0, wall;
	struct proc_stat ps;
	siginfo_t si = {0};
	bool ended;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "command", b->cmd);
	cJSON_AddNumberToObject(o, "pgid", b->pgid);
	/*
	 * A command that ends during the run leaves a zombie leader until the
	 * stop reaps it, and a zombie still has its /proc entry: looked at
	 * without reaping (WNOWAIT), so that the stop finds it as it was.
	 */
	ended = !b->reaped && waitid(P_PID, (id_t)b->pgid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		si.si_pid == b->pgid;
	if (ended) {
		char end[400], said[300];

		stderr_said(b, said, sizeof(said));
		if (si.si_code == CLD_EXITED)
			snprintf(end, sizeof(end), "exited with status %d during the run%s",
				 si.si_status, said);
		else
			snprintf(end, sizeof(end), "killed by signal %d during the run%s",
				 si.si_status, said);
		cJSON_AddStringToObject(o, "ended", end);
	} else {
		cJSON_AddNullToObject(o, "ended");
	}
	/* The leader's start time bounds the scan, so a reused pgid is not ours. */
	if (!b->reaped && read_proc_stat(b->pgid, &ps) == 0 && ps.pgrp == b->pgid) {
		struct group_tally t;
		int ncpu;

		group_scan(b->pgid, b->cookie, ps.start, &t, 0);
		cpu = t.cpu_ns > b->cpu_start_ns ? t.cpu_ns - b->cpu_start_ns : 0;
		/* The window ends after this scan, as it began before the start's
		 * (il_background_start), so it holds all the CPU time counted:
		 * read before, it was short by the scan's own time. */
		wall = il_now_ns() - b->start_ns;
		/* Of the CPUs the command's processes may use, as hog.cpu_share
		 * and load.cpu_share are of theirs: over every online CPU, a
		 * load confined to one of two read as half as busy as it was. */
		ncpu = CPU_COUNT(&t.allowed);
		cJSON_AddNumberToObject(o, "cpu_ns", (double)cpu);
		if (wall && ncpu > 0)
			cJSON_AddNumberToObject(o, "cpu_share",
						(double)cpu / (double)wall / (double)ncpu);
		else
			cJSON_AddStringToObject(o, "cpu_share",
						"unreadable: no affinity of the command's "
						"processes could be read");
		cJSON_AddNumberToObject(o, "cpus", ncpu);
		cJSON_AddBoolToObject(o, "exited_early", ended);
		/* Found by the cookie, not the group (setsid, a daemon): counted
		 * above, and stopped with the rest. */
		cJSON_AddNumberToObject(o, "outside_group", t.outside);
	} else {
		wall = il_now_ns() - b->start_ns;
		cJSON_AddStringToObject(o, "cpu_ns", "unreadable: the command's process is gone");
		cJSON_AddStringToObject(o, "cpu_share",
					"unreadable: the command's process is gone");
		cJSON_AddStringToObject(o, "cpus", "unreadable: the command's process is gone");
		cJSON_AddBoolToObject(o, "exited_early", true);
		cJSON_AddStringToObject(o, "outside_group",
					"unreadable: the command's process is gone");
	}
	cJSON_AddNumberToObject(o, "wall_ns", (double)wall);
	return o;
}

/*
 * SIGKILLs those found by the cookie until a scan finds none (those
 * killed are gone from it at once: a zombie's environment is empty). One
 * scan missed a child forked behind it by one it killed.
 */
static void kill_cookie_holders(const char *cookie, unsigned long long start)
{
	/* Group -1 (none): the group's zombies would be found each time. */
	for (int i = 0; i < 10 && group_scan(-1, cookie, start, NULL, SIGKILL) > 0; i++)
		usleep(10000);
}

void il_background_stop(struct il_background *b)
{
	unsigned long long start;

	if (!b)
		return;
	stop_reaper(b);
	/* Kept from the start: the leader may be reaped, or a zombie, now. */
	start = b->leader_start;
	if (!b->reaped) {
		kill(-b->pgid, SIGTERM);
		for (int waited = 0; waited < TERM_GRACE_MS; waited += 10) {
			if (waitpid(b->pgid, &b->status, WNOHANG) == b->pgid) {
				b->reaped = true;
				break;
			}
			usleep(10000);
		}
		if (!b->reaped) {
			kill(-b->pgid, SIGKILL);
			waitpid(b->pgid, &b->status, 0);
			b->reaped = true;
		}
	}
	/* Members the leader left behind (a shell's background jobs). */
	if (start && group_scan(b->pgid, NULL, start, NULL, 0) > 0)
		kill(-b->pgid, SIGKILL);
	/* Those that left the group: by the cookie, the leader's start time
	 * bounding the scan even once the leader is gone. */
	if (start)
		kill_cookie_holders(b->cookie, start);
	if (b->state_path[0])
		unlink(b->state_path);
	if (b->stderr_fd >= 0)
		close(b->stderr_fd);
	free(b->cmd);
	free(b);
}

/* A start time as written ((double) of clock ticks): a whole number that
 * a cast to unsigned long long keeps (1e300 there is undefined). */
static bool start_valid(const cJSON *n)
{
	double v = cJSON_GetNumberValue(n);

	return v >= 0 && v < 18446744073709551616.0 && v == (double)(unsigned long long)v;
}

int il_background_state_parse(const char *text, struct il_background_state *out)
{
	char why[160];
	cJSON *o = NULL;
	/* One JSON object, nothing after it (il_json_parse_one): what it names
	 * is SIGKILLed, so a file cut or written over is not read as ours. */
	int parsed = il_json_parse_one(text, strlen(text), &o, why, sizeof(why));
	double pid = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "pid"));
	double pgid = cJSON_GetNumberValue(cJSON_GetObjectItem(o, "pgid"));
	cJSON *pid_start = cJSON_GetObjectItem(o, "pid_start");
	cJSON *pgid_start = cJSON_GetObjectItem(o, "pgid_start");
	const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItem(o, "command"));
	const char *cookie = cJSON_GetStringValue(cJSON_GetObjectItem(o, "cookie"));
	int r = -EINVAL;

	/* Without its writer's start time a live run's file would read as a
	 * dead one's, and its load be killed: not ours to interpret. */
	if (parsed == 0 && il_json_whole_in(cJSON_GetObjectItem(o, "pid"), 1, INT32_MAX) &&
	    il_json_whole_in(cJSON_GetObjectItem(o, "pgid"), 1, INT32_MAX) &&
	    start_valid(pid_start) && start_valid(pgid_start)) {
		memset(out, 0, sizeof(*out));
		out->pid = (pid_t)pid;
		out->pgid = (pid_t)pgid;
		out->pid_start = (unsigned long long)cJSON_GetNumberValue(pid_start);
		out->pgid_start = (unsigned long long)cJSON_GetNumberValue(pgid_start);
		snprintf(out->command, sizeof(out->command), "%s", cmd ? cmd : "?");
		/* Only a cookie of ours: any other entry ("PATH=...") would match
		 * every process started since. Older files have none. */
		if (cookie && cookie_valid(cookie))
			snprintf(out->cookie, sizeof(out->cookie), "%s", cookie);
		r = 0;
	}
	cJSON_Delete(o);
	return r;
}

/*
 * A state file's text, whole, NUL-terminated (the caller frees it), or NULL:
 * a symlink, not a regular file, another user's or writable by others, or
 * larger than BG_STATE_MAX_BYTES. Read
 * into a fixed 8 KiB, a --background command of 8 KiB or more made a file
 * that was cut, did not parse, and a dead run's load was never stopped.
 */
static char *read_state(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	ssize_t n = 0;

	if (fd < 0)
		return NULL;
	/* Owned by root or us and written by no one else, as the knobs' state
	 * file must be: what it names is SIGKILLed, by root. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (st.st_uid == 0 || st.st_uid == geteuid()) && !(st.st_mode & 022) &&
	    st.st_size <= BG_STATE_MAX_BYTES && (text = malloc((size_t)st.st_size + 1))) {
		while (got < (size_t)st.st_size &&
		       (n = read(fd, text + got, (size_t)st.st_size - got)) > 0)
			got += (size_t)n;
		text[got] = '\0';
		/* A NUL inside would end the text early: what stood before it
		 * could read as a whole file that is not the one written. */
		if (memchr(text, '\0', got)) {
			free(text);
			text = NULL;
		}
	}
	close(fd);
	return text;
}

/* The group of one state file: killed when its orchestrator is gone. */
static int recover_one(const char *path, FILE *log)
{
	char *text = read_state(path);
	struct il_background_state st;
	struct il_procfs_stat owner;
	struct proc_stat ps;
	const char *cookie;
	int killed = 0;

	if (!text || il_background_state_parse(text, &st) < 0) {
		free(text);
		return 0; /* not ours to interpret: leave it for a human */
	}
	free(text);
	cookie = st.cookie[0] ? st.cookie : NULL;
	/* A live orchestrator (same pid, same start, not a zombie: a SIGKILLed
	 * one not reaped yet holds nothing) still owns its group. */
	if (il_procfs_stat(st.pid, 0, IL_PROCFS_STARTTIME, &owner) == 0 &&
	    owner.f[IL_PROCFS_STARTTIME] == st.pid_start && owner.state != 'Z' &&
	    owner.state != 'X')
		return 0;
	/* Its leader, if it is still the process we started, or else members
	 * of the group started after it. */
	bool leader = read_proc_stat(st.pgid, &ps) == 0 && ps.start == st.pgid_start;
	bool reused = !leader && read_proc_stat(st.pgid, &ps) == 0;
	/* A reused pgid is another group: then only the cookie finds ours. */
	if (group_scan(reused ? -1 : st.pgid, cookie, st.pgid_start, NULL, 0) > 0) {
		group_scan(reused ? -1 : st.pgid, cookie, st.pgid_start, NULL, SIGKILL);
		if (log)
			fprintf(log,
				"inputlat: killed the background load '%s' (process group %d) "
				"that a dead run left running\n",
				st.command, (int)st.pgid);
		killed = 1;
	}
	unlink(path);
	return killed;
}

int il_background_recover_stale(const char *state_dir, FILE *log)
{
	DIR *d = opendir(state_dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), plen = strlen(STATE_PREFIX),
		       slen = strlen(STATE_SUFFIX);
		char path[4400];

		if (len <= plen + slen || strncmp(e->d_name, STATE_PREFIX, plen) != 0 ||
		    strcmp(e->d_name + len - slen, STATE_SUFFIX) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", state_dir, e->d_name);
		n += recover_one(path, log);
	}
	closedir(d);
	return n;
}
