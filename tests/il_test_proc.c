#include "il_test_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *il_test_build_path(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("IL_BUILD_DIR");

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : ".", name);
	return buf;
}

/* Orphans of the programs we start come to us, so "nothing left" can be
 * checked among our own descendants, whatever else runs on the machine. */
static void become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int il_test_run(char *const argv[], int timeout_ms, struct il_test_result *res)
{
	int out[2], err[2];
	size_t nout = 0, nerr = 0;
	double t0 = now_s();
	pid_t pid;
	int status;

	memset(res, 0, sizeof(*res));
	become_subreaper();
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	for (;;) {
		struct pollfd p[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
		int left = timeout_ms - (int)((now_s() - t0) * 1000);
		ssize_t n;

		if (p[0].fd < 0 && p[1].fd < 0)
			break;
		if (left <= 0) {
			kill(pid, SIGKILL);
			res->timed_out = 1;
			break;
		}
		if (poll(p, 2, left) <= 0)
			continue;
		if (p[0].revents) {
			n = read(out[0], res->out + nout, sizeof(res->out) - 1 - nout);
			if (n <= 0) {
				close(out[0]);
				out[0] = -1;
			} else {
				nout += (size_t)n;
			}
		}
		if (p[1].revents) {
			n = read(err[0], res->err + nerr, sizeof(res->err) - 1 - nerr);
			if (n <= 0) {
				close(err[0]);
				err[0] = -1;
			} else {
				nerr += (size_t)n;
			}
		}
		if (out[0] < 0 && err[0] < 0)
			break;
	}
	if (out[0] >= 0)
		close(out[0]);
	if (err[0] >= 0)
		close(err[0]);
	waitpid(pid, &status, 0);
	res->elapsed_s = now_s() - t0;
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
	pid_t pid;

	become_subreaper();
	pid = fork();

	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int il_test_wait(pid_t pid, int timeout_ms, double *elapsed_s)
{
	double t0 = now_s();
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if ((now_s() - t0) * 1000 > timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			if (elapsed_s)
				*elapsed_s = now_s() - t0;
			return -1;
		}
		usleep(10000);
	}
	if (elapsed_s)
		*elapsed_s = now_s() - t0;
	return status;
}

static int read_stat(const char *pid, char *comm, size_t len, pid_t *ppid)
{
	char path[64], buf[512], *l, *r;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	n = il_test_read_file(path, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l)
		return -1;
	snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
	if (sscanf(r + 2, "%*c %d", ppid) != 1)
		return -1;
	return 0;
}

pid_t il_test_find_child(pid_t ppid, const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && (e = readdir(d))) {
		char c[64];
		pid_t pp;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (read_stat(e->d_name, c, sizeof(c), &pp) == 0 && pp == ppid && strcmp(c, comm) == 0) {
			found = (pid_t)atoi(e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	return found;
}

int il_test_count_project_procs(void)
{
	static const char *const names[] = { "inputlat", "browser-sim", "render-sim", "viz-sim",
					     "il-workload" };
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	/* Our descendants only: orphans are reparented to us (subreaper), so a
	 * leftover shows up here as our child. Zombies are not leftovers. */
	while (d && (e = readdir(d))) {
		char c[64], status[300], buf[2048];
		pid_t pp;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (read_stat(e->d_name, c, sizeof(c), &pp) < 0 || pp != getpid())
			continue;
		snprintf(status, sizeof(status), "/proc/%s/status", e->d_name);
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(c, names[i]) == 0 && il_test_read_file(status, buf, sizeof(buf)) > 0 &&
			    !strstr(buf, "State:\tZ"))
				n++;
	}
	if (d)
		closedir(d);
	return n;
}

ssize_t il_test_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1 && (n = read(fd, buf + total, len - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}
