#include "il_tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_parse.h"

/* Where tracefs usually is, and where the private child mounts it. */
#define TRACEFS	    "/sys/kernel/tracing"
#define TRACEFS_OLD "/sys/kernel/debug/tracing"
#define MAX_EVENTS  32
#define ID_TEXT	    16

/* An id file's text as read: at most ID_TEXT - 1 bytes, and how many. */
struct id_text {
	char text[ID_TEXT];
	int len; /* bytes read, or -errno */
};

/* Reads the id file at path into *t. */
static void read_text(const char *path, struct id_text *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		t->len = -errno;
		return;
	}
	n = read(fd, t->text, ID_TEXT - 1);
	t->len = n < 0 ? -errno : (int)n;
	close(fd);
}

int il_tracefs_id_parse(const char *text, size_t n)
{
	char buf[ID_TEXT];
	uint64_t v;

	/* One line of digits. */
	if (il_parse_one_line(text, n, &n) < 0 || n == 0 || n >= sizeof(buf))
		return -EIO;
	for (size_t i = 0; i < n; i++)
		if (text[i] < '0' || text[i] > '9')
			return -EIO;
	/* The kernel writes %d: a leading zero is not its text, and would
	 * let a number cut short at ID_TEXT bytes pass for a small one. */
	if (text[0] == '0')
		return -EIO;
	memcpy(buf, text, n);
	buf[n] = '\0';
	if (il_parse_u64(buf, 1, INT_MAX, &v) < 0)
		return -EIO;
	return (int)v;
}

/* The id of an id file read into *t, or a negative errno. */
static int text_id(const struct id_text *t)
{
	return t->len < 0 ? t->len : il_tracefs_id_parse(t->text, (size_t)t->len);
}

/*
 * Enters a private mount namespace with tracefs mounted at TRACEFS. Only
 * for a forked child: unshare(CLONE_NEWNS) needs a single-threaded caller,
 * and the parent may have threads, so only system calls from here on.
 */
static int child_mount(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	/* Private first, or the mount would propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) < 0)
		return -errno;
	return 0;
}

static void reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

int il_tracefs_event_ids(const char *const *events, size_t n, int *ids)
{
	char paths[MAX_EVENTS][PATH_MAX];
	struct id_text text[MAX_EVENTS];
	int pfd[2], missing = 0, st = 0;
	size_t have = 0;
	pid_t pid;

	if (n > MAX_EVENTS)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		const char *roots[] = {TRACEFS, TRACEFS_OLD};

		ids[i] = -ENOENT;
		for (size_t r = 0; r < 2 && ids[i] < 0; r++) {
			snprintf(paths[i], sizeof(paths[i]), "%s/events/%s/id", roots[r],
				 events[i]);
			read_text(paths[i], &text[i]);
			ids[i] = text_id(&text[i]);
		}
		if (ids[i] > 0)
			have++;
		/* The path the private child reads, built here: no snprintf there. */
		snprintf(paths[i], sizeof(paths[i]), "%s/events/%s/id", TRACEFS, events[i]);
	}
	if (have == n)
		return 0;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		st = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return st;
	}
	if (pid == 0) {
		int rc = child_mount();

		close(pfd[0]);
		if (write(pfd[1], &rc, sizeof(rc)) != sizeof(rc))
			_exit(1);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			read_text(paths[i], &text[i]);
			if (write(pfd[1], &text[i], sizeof(text[i])) != sizeof(text[i]))
				_exit(1);
		}
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &st, sizeof(st)) != sizeof(st))
		st = -EIO;
	for (size_t i = 0; st == 0 && i < n; i++) {
		if (read(pfd[0], &text[i], sizeof(text[i])) != sizeof(text[i])) {
			st = -EIO;
			break;
		}
		if (text[i].len > ID_TEXT - 1)
			text[i].len = -EIO;
		if (ids[i] < 0)
			ids[i] = text[i].len < 0 ? -ENOENT : text_id(&text[i]);
	}
	close(pfd[0]);
	reap(pid);
	if (st < 0)
		return st;
	for (size_t i = 0; i < n; i++)
		if (ids[i] < 0)
			missing = 1;
	return missing ? -ENOENT : 0;
}

/* Sends fd (or, when fd < 0, the error -fd) over the socket. */
static void send_fd(int sock, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	int err = fd < 0 ? -fd : 0;
	struct iovec iov = {.iov_base = &err, .iov_len = sizeof(err)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		_exit(1);
}

static int recv_fd(int sock)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	int err = 0, fd = -1;
	struct iovec iov = {.iov_base = &err, .iov_len = sizeof(err)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c;
	ssize_t n;

	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(err))
		return n < 0 ? -errno : -EIO;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd >= 0)
		return fd;
	return err ? -err : -EIO;
}

int il_tracefs_open(const char *file, int flags)
{
	char path[128], old_path[128];
	int sv[2], fd;
	pid_t pid;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	snprintf(old_path, sizeof(old_path), TRACEFS_OLD "/%s", file);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		fd = open(old_path, flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/*
	 * Not mounted: the private child opens it and passes the descriptor
	 * back with SCM_RIGHTS. An open file keeps its mount alive, so the
	 * descriptor stays usable after the child and its namespace are gone.
	 */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		fd = -errno;
		close(sv[0]);
		close(sv[1]);
		return fd;
	}
	if (pid == 0) {
		int rc = child_mount();

		close(sv[0]);
		if (rc == 0) {
			rc = open(path, flags | O_CLOEXEC);
			if (rc < 0)
				rc = -errno;
		}
		send_fd(sv[1], rc);
		_exit(0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	reap(pid);
	return fd;
}

int il_tracefs_open_marker(void)
{
	return il_tracefs_open("trace_marker", O_WRONLY);
}

int il_tracefs_tracing_on(void)
{
	int fd = il_tracefs_open("tracing_on", O_RDONLY);
	char c = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, &c, 1);
	close(fd);
	if (n != 1)
		return n < 0 ? -errno : -EIO;
	return c == '0' ? 0 : c == '1' ? 1 : -EINVAL;
}
