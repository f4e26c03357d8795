#include "il_spawn.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "il_procfs.h"

static void proc_exit_cb(uv_process_t *h, int64_t status, int term_signal)
{
	struct il_proc *p = h->data;

	p->exited = true;
	p->exit_status = status;
	p->term_signal = term_signal;
	if (p->ev->exited)
		p->ev->exited(p);
}

static void proc_frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *m, cJSON *json)
{
	struct il_proc *p = ctx;

	if (json && p->ev->control)
		p->ev->control(p, json);
}

static void proc_eof_cb(void *ctx, int status)
{
	struct il_proc *p = ctx;

	if (p->ev->control_eof)
		p->ev->control_eof(p);
}

static void proc_invalid_cb(void *ctx, int err)
{
	struct il_proc *p = ctx;

	if (p->ev->invalid)
		p->ev->invalid(p, err);
}

int il_proc_spawn(uv_loop_t *loop, struct il_proc *p, const char *dir, const char *name,
		  char *const *args, const int *fds, int nfds, int ctl_fd,
		  const struct il_proc_events *ev, void *data)
{
	uv_process_options_t opt = {0};
	uv_stdio_container_t stdio[IL_CHILD_MAX_FDS];
	char path[4200];
	char *argv[64];
	int argc = 0, rc;

	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	p->ev = ev;
	p->data = data;
	argv[argc++] = path;
	for (int i = 0; args[i] && argc < 63; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;

	stdio[0].flags = UV_IGNORE;
	stdio[1].flags = UV_INHERIT_FD;
	stdio[1].data.fd = 1;
	stdio[2].flags = UV_INHERIT_FD;
	stdio[2].data.fd = 2;
	for (int i = 3; i < IL_CHILD_MAX_FDS; i++) {
		if (i < nfds && fds[i] >= 0) {
			stdio[i].flags = UV_INHERIT_FD;
			stdio[i].data.fd = fds[i];
		} else {
			stdio[i].flags = UV_IGNORE;
		}
	}
	opt.file = path;
	opt.args = argv;
	opt.exit_cb = proc_exit_cb;
	opt.stdio = stdio;
	opt.stdio_count = IL_CHILD_MAX_FDS;

	p->process.data = p;
	rc = uv_spawn(loop, &p->process, &opt);
	if (rc < 0)
		return rc;
	p->spawned = true;
	p->pid = p->process.pid;

	uv_pipe_init(loop, &p->ctl, 0);
	rc = uv_pipe_open(&p->ctl, ctl_fd);
	if (rc == 0)
		rc = il_frame_reader_start((uv_stream_t *)&p->ctl, proc_frame_cb, proc_eof_cb, p,
					   &p->reader);
	if (rc == 0)
		il_frame_reader_on_invalid(p->reader, proc_invalid_cb);
	return rc;
}

void il_proc_kill(struct il_proc *p)
{
	if (p->spawned && !p->exited)
		uv_process_kill(&p->process, SIGKILL);
}

/* True when thread tid of pid is in do_exit, or already gone. */
static bool thread_exiting(pid_t pid, pid_t tid)
{
	struct il_procfs_stat st;
	int r = il_procfs_stat(pid, tid, IL_PROCFS_FLAGS, &st);

	if (r == -ENOENT || r == -ESRCH)
		return true; /* gone meanwhile */
	return r == 0 && (st.f[IL_PROCFS_FLAGS] & IL_PROCFS_PF_EXITING);
}

/* A SIGKILL pending for pid's main thread or its whole group. */
static bool sigkill_pending(pid_t pid)
{
	const uint64_t kill_bit = 1ull << (SIGKILL - 1);
	char text[IL_PROCFS_STATUS_MAX];
	uint64_t mask;

	if (il_procfs_status(pid, 0, text, sizeof(text)))
		return false;
	return (il_procfs_status_field(text, "SigPnd", 16, &mask) == 0 && (mask & kill_bit)) ||
	       (il_procfs_status_field(text, "ShdPnd", 16, &mask) == 0 && (mask & kill_bit));
}

bool il_pid_exiting(pid_t pid)
{
	char path[64];
	struct dirent *e;
	bool all = true;
	int seen = 0;
	DIR *d;

	if (sigkill_pending(pid))
		return true;
	/* Every thread in do_exit: the group is ending (one thread of it
	 * ending, its main one by pthread_exit, is not). */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return false;
	while (all && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			seen++;
			all = thread_exiting(pid, (pid_t)strtol(e->d_name, NULL, 10));
		}
	closedir(d);
	return all && seen > 0;
}

bool il_proc_is_ending(const struct il_proc *p)
{
	siginfo_t si;

	if (!p->spawned || p->exited)
		return p->spawned;
	/* WNOWAIT: a look only; libuv's SIGCHLD handling still reaps it. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == p->pid)
		return true;
	return il_pid_exiting(p->pid);
}

void il_proc_close(struct il_proc *p)
{
	if (!p->spawned)
		return;
	il_frame_reader_free(p->reader);
	p->reader = NULL;
	if (!uv_is_closing((uv_handle_t *)&p->ctl))
		uv_close((uv_handle_t *)&p->ctl, NULL);
	if (!uv_is_closing((uv_handle_t *)&p->process))
		uv_close((uv_handle_t *)&p->process, NULL);
}

void il_proc_free_msgs(struct il_proc *p)
{
	cJSON_Delete(p->stats_msg);
	p->stats_msg = NULL;
}

void il_proc_describe_exit(const struct il_proc *p, char *buf, size_t len)
{
	if (!p->exited)
		snprintf(buf, len, "still running");
	else if (p->term_signal)
		snprintf(buf, len, "killed by signal %d (%s)", p->term_signal,
			 strsignal(p->term_signal));
	else
		snprintf(buf, len, "exit status %lld", (long long)p->exit_status);
}
