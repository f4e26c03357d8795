#include "il_file.h"
#include "il_parse.h"
#include "il_printable.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* --- inputs -------------------------------------------------------------- */

const char *il_file_kind(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFLNK:
		return "a symlink";
	default:
		return "not a regular file";
	}
}

int il_file_open_input(const char *path, bool want_chr, char *why, size_t whylen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
	 * below, and a regular file ignores the flag. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode) && !(want_chr && S_ISCHR(st.st_mode))) {
		if (why)
			snprintf(why, whylen, "%s", il_file_kind(st.st_mode));
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (!want_chr)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

void il_file_read_why(const char *path, int e, char *err, size_t errlen)
{
	struct stat st;

	if (!path[0])
		snprintf(err, errlen, "an empty file name");
	else if ((e == EINVAL || e == EISDIR) && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		snprintf(err, errlen, "%s: %s, not a regular file", path, il_file_kind(st.st_mode));
	else
		snprintf(err, errlen, "%s: %s", path, strerror(e));
}

char *il_file_read(const char *path, size_t max, size_t *len)
{
	int fd = il_file_open_input(path, false, NULL, 0);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	struct stat st;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	/* Refused before anything is allocated, and bounded while reading in
	 * case the file grows. */
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	for (;;) {
		/* Room for max + 1 bytes at most: reading that many says "too big". */
		if (cap - n < 4096 && cap < max + 1) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > max + 1)
				cap = max + 1;
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto fail;
			buf = nb;
		}
		ssize_t got = read(fd, buf + n, cap - n);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	if (!buf && !(buf = malloc(1))) {
		errno = ENOMEM;
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail : {
	int e = errno;

	free(buf);
	close(fd);
	errno = e;
}
	return NULL;
}

FILE *il_file_create(const char *path)
{
	int fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	/* An existing file keeps its mode through O_TRUNC: make it 0644, and
	 * write only regular files (not a FIFO or device someone left there). */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fchmod(fd, 0644) < 0) {
		int e = S_ISREG(st.st_mode) ? errno : EINVAL;

		close(fd);
		errno = e;
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/* --- outputs ------------------------------------------------------------- */

/* Records and traces of 10^6 events: one write per 256 KiB, not per event. */
#define OUT_BUFFER (256 * 1024)

struct il_out {
	char *what, *path;
	bool is_stdout;
	int fd;	       /* the temporary file, written through f's cookie */
	int write_err; /* the first write's errno: the cause a stream forgets */
	int dirfd;
	char *base;		/* the file name in dirfd */
	char tmp[NAME_MAX + 1]; /* the temporary file in dirfd, "" when none */
	FILE *f;
	char *buf; /* f's buffer: outputs go out in large blocks */
	dev_t dir_dev;
	ino_t dir_ino;
	bool exists; /* the path existed when opened: dev/ino are its */
	dev_t dev;
	ino_t ino;
};

/* Where outputs replace each other: one directory entry. */
static int out_split(struct il_out *o, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat st;

	if (slash && slash[1] == '\0') {
		snprintf(err, errlen, "%s %s: a directory; want a file name", o->what, path);
		return -EISDIR;
	}
	o->base = strdup(slash ? slash + 1 : path);
	dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	if (!o->base || !dir) {
		free(dir);
		snprintf(err, errlen, "%s %s: out of memory", o->what, path);
		return -ENOMEM;
	}
	if (strcmp(o->base, ".") == 0 || strcmp(o->base, "..") == 0) {
		free(dir);
		snprintf(err, errlen, "%s %s: a directory; want a file name", o->what, path);
		return -EISDIR;
	}
	/* Symlinks in the directories above are the user's own layout;
	 * only the file itself is never followed. */
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0 || fstat(o->dirfd, &st) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s %s: directory %s: %s", o->what, path, dir, strerror(e));
		free(dir);
		return -e;
	}
	free(dir);
	o->dir_dev = st.st_dev;
	o->dir_ino = st.st_ino;
	return 0;
}

/* Checks what is at the path now: nothing, or a regular file of ours. */
static int out_check_target(struct il_out *o, char *err, size_t errlen)
{
	struct stat st;

	o->exists = false;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s %s: %s", o->what, o->path, strerror(errno));
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "%s %s: a symlink; refusing to follow it (give the file "
			 "it points to, or a new name)",
			 o->what, o->path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "%s %s: %s, not a regular file; give a file name (or - "
			 "for stdout)",
			 o->what, o->path, il_file_kind(st.st_mode));
		return -EINVAL;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s %s: belongs to uid %u, not to us (uid %u); refusing "
			 "to replace another user's file",
			 o->what, o->path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	o->exists = true;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	return 0;
}

/* f's writes go here, so that a failure keeps its errno for the message. */
static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	struct il_out *o = cookie;

	for (size_t w = 0; w < len;) {
		ssize_t r = write(o->fd, buf + w, len - w);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!o->write_err)
				o->write_err = r < 0 ? errno : EIO;
			return w ? (ssize_t)w : -1;
		}
		w += (size_t)r;
	}
	return (ssize_t)len;
}

/* The temporary file's name for base: ".BASE.PID.XXXXXX.tmp" (6 hex digits). */
#define TMP_BASE_MAX (NAME_MAX - 32)

/* Does s, what follows ".BASE.", end a temporary file's name? */
static bool tmp_tail(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	if (n == 0 || s[n] != '.')
		return false;
	s += n + 1;
	for (n = 0; n < 6; n++)
		if (!isxdigit((unsigned char)s[n]))
			return false;
	return strcmp(s + 6, ".tmp") == 0;
}

/*
 * A run killed before its outputs were committed (SIGKILL, a power cut)
 * leaves their temporary files; the next output of the same name in the
 * same directory removes them. A writer holds a lock (flock) on its
 * temporary file for as long as it has it open, so one that can be locked
 * has no writer left, in this PID namespace or any other. Only regular
 * files of ours, named as il_out_open names them, are touched, and never
 * opened before they are known to be that.
 */
static void out_remove_stale(const struct il_out *o)
{
	char prefix[NAME_MAX + 1];
	int plen = snprintf(prefix, sizeof(prefix), ".%.*s.", TMP_BASE_MAX, o->base);
	int dfd = openat(o->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	const struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return; /* an unreadable directory keeps what it has */
	}
	while ((e = readdir(d))) {
		struct stat st, again;
		int fd;

		if (strncmp(e->d_name, prefix, (size_t)plen) != 0 || !tmp_tail(e->d_name + plen))
			continue;
		if (fstatat(o->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		fd = openat(o->dirfd, e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Still that file, and nobody writing it: gone. */
		if (fstat(fd, &again) == 0 && again.st_ino == st.st_ino &&
		    again.st_dev == st.st_dev && flock(fd, LOCK_EX | LOCK_NB) == 0)
			unlinkat(o->dirfd, e->d_name, 0);
		close(fd);
	}
	closedir(d);
}

int il_out_open(const char *what, const char *path, struct il_out **out, char *err, size_t errlen)
{
	struct il_out *o = calloc(1, sizeof(*o));
	int rc, fd = -1;

	if (!o || !(o->what = strdup(what)) || !(o->path = strdup(path))) {
		snprintf(err, errlen, "%s %s: out of memory", what, path);
		rc = -ENOMEM;
		goto fail;
	}
	o->dirfd = -1;
	o->fd = -1;
	if (strcmp(path, "-") == 0) {
		o->is_stdout = true;
		o->f = stdout;
		*out = o;
		return 0;
	}
	if (!*path) {
		snprintf(err, errlen, "%s: an empty file name", what);
		rc = -EINVAL;
		goto fail;
	}
	if ((rc = out_split(o, path, err, errlen)) < 0 ||
	    (rc = out_check_target(o, err, errlen)) < 0)
		goto fail;
	out_remove_stale(o);
	/* The new contents go to a fresh file beside it: O_EXCL, so nothing
	 * someone put there in advance (a symlink in /tmp) is ever opened.
	 * Locked while it is ours (out_remove_stale); one that cannot be
	 * locked, or was removed before it was, is given up for another name. */
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		struct timespec ts;
		struct stat st;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(o->tmp, sizeof(o->tmp), ".%.*s.%d.%06lx.tmp", TMP_BASE_MAX, o->base,
			 (int)getpid(),
			 (unsigned long)((ts.tv_nsec ^ (long)tries * 7919) & 0xffffff));
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd < 0 && errno != EEXIST)
			break;
		if (fd < 0)
			continue;
		/* A file system without locks (some FUSE ones) writes unlocked:
		 * there, nobody can lock a leftover either, so none is removed. */
		if ((flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) ||
		    fstat(fd, &st) < 0 || st.st_nlink == 0) {
			unlinkat(o->dirfd, o->tmp, 0);
			close(fd);
			fd = -1;
			errno = EEXIST;
		}
	}
	if (fd < 0) {
		struct stat dst;
		struct statfs sfs;

		rc = -errno;
		o->tmp[0] = '\0';
		/* A directory removed under us (the working directory of a
		 * shell whose cwd was deleted) still opens, but takes no file;
		 * one of /proc or /sys is there but takes none either (ENOENT
		 * read "No such file or directory" of a directory that is). */
		if (rc == -ENOENT && fstat(o->dirfd, &dst) == 0 && dst.st_nlink == 0)
			snprintf(err, errlen,
				 "%s %s: cannot create a file in its directory: %s (the directory "
				 "was removed; the working directory, for a relative name)",
				 what, path, strerror(-rc));
		else if (rc == -ENOENT && fstatfs(o->dirfd, &sfs) == 0)
			snprintf(err, errlen, "%s %s: its directory takes no new files (%s)", what,
				 path,
				 sfs.f_type == PROC_SUPER_MAGIC ? "it is in /proc"
				 : sfs.f_type == SYSFS_MAGIC	? "it is in /sys"
								: "its file system refuses them");
		else
			snprintf(err, errlen, "%s %s: cannot create a file in its directory: %s",
				 what, path, strerror(-rc));
		goto fail;
	}
	/* The mode a report has whatever the umask: readable by all. */
	fchmod(fd, 0644);
	o->fd = fd;
	o->f = fopencookie(o, "w", (cookie_io_functions_t){.write = out_write});
	if (!o->f) {
		rc = -errno;
		snprintf(err, errlen, "%s %s: %s", what, path, strerror(-rc));
		goto fail;
	}
	if ((o->buf = malloc(OUT_BUFFER)))
		setvbuf(o->f, o->buf, _IOFBF, OUT_BUFFER);
	*out = o;
	return 0;
fail:
	il_out_free(o);
	return rc;
}

FILE *il_out_file(struct il_out *o)
{
	return o->f;
}

const char *il_out_path(const struct il_out *o)
{
	return o->path;
}

int il_out_commit(struct il_out *o, char *err, size_t errlen)
{
	int rc = 0;

	if (o->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			rc = errno ? -errno : -EIO;
			snprintf(err, errlen, "%s: writing stdout: %s", o->what, strerror(-rc));
		}
		o->f = NULL;
		il_out_free(o);
		return rc;
	}
	/* Every byte on disk, or the previous file stays: a full disk shows
	 * here (or at fsync, for file systems that allocate late). */
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f) || o->write_err || fsync(o->fd) != 0)
		rc = o->write_err ? -o->write_err : errno ? -errno : -EIO;
	fclose(o->f);
	o->f = NULL;
	if (rc < 0) {
		snprintf(err, errlen,
			 "writing %s %s: %s (the previous file, if any, is left as "
			 "it was)",
			 o->what, o->path, strerror(-rc));
		goto out;
	}
	/* What is there now must still be ours to replace. */
	char why[512];

	if ((rc = out_check_target(o, why, sizeof(why))) < 0) {
		snprintf(err, errlen, "%s", why);
		goto out;
	}
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->base) != 0) {
		rc = -errno;
		snprintf(err, errlen, "writing %s %s: %s", o->what, o->path, strerror(-rc));
		goto out;
	}
	o->tmp[0] = '\0';
	fsync(o->dirfd); /* the new name survives a power cut too */
out:
	il_out_free(o);
	return rc;
}

int il_out_temp(const struct il_out *o, const char **name)
{
	if (!o || !o->tmp[0] || o->dirfd < 0)
		return -1;
	*name = o->tmp;
	return o->dirfd;
}

int il_out_check(const char *what, const char *path, char *err, size_t errlen)
{
	struct il_out *o;
	int rc;

	if (!path)
		return 0;
	rc = il_out_open(what, path, &o, err, errlen);
	if (rc == 0)
		il_out_free(o);
	return rc;
}

void il_out_free(struct il_out *o)
{
	if (!o)
		return;
	if (o->f && !o->is_stdout)
		fclose(o->f);
	if (o->fd >= 0)
		close(o->fd);
	free(o->buf);
	if (o->tmp[0] && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmp, 0);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->base);
	free(o->path);
	free(o->what);
	free(o);
}

bool il_out_same(const struct il_out *a, const struct il_out *b)
{
	if (a->is_stdout || b->is_stdout)
		return a->is_stdout && b->is_stdout;
	if (a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino && strcmp(a->base, b->base) == 0)
		return true;
	/* Two names of one file (a hard link). */
	return a->exists && b->exists && a->dev == b->dev && a->ino == b->ino;
}

bool il_out_is_file(const struct il_out *o, const char *path)
{
	struct stat st;

	return !o->is_stdout && o->exists && path && stat(path, &st) == 0 && st.st_dev == o->dev &&
	       st.st_ino == o->ino;
}

/* The directory path names its last name in (path up to its last '/'),
 * stat()ed into st, and that last name. 0 or -1. */
static int path_dir_stat(const char *path, struct stat *st, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash) {
		*base = path;
		return stat(".", st);
	}
	if ((size_t)(slash - path) >= sizeof(dir))
		return -1;
	/* "/x" is in "/"; "d/x" in "d". */
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	*base = slash + 1;
	return stat(dir, st);
}

bool il_out_path_same(const char *a, const char *b)
{
	struct stat sa, sb;
	const char *ba, *bb;
	bool ea, eb;

	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
		return false;
	ea = stat(a, &sa) == 0;
	eb = stat(b, &sb) == 0;
	if (ea || eb)
		return ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return path_dir_stat(a, &sa, &ba) == 0 && path_dir_stat(b, &sb, &bb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && *ba && strcmp(ba, bb) == 0;
}

bool il_out_path_is_file(const char *out_path, const char *input)
{
	struct stat i;

	return input && stat(input, &i) == 0 && il_out_path_same(out_path, input);
}

int il_json_write(const char *path, const cJSON *obj)
{
	struct il_out *o = NULL;
	cJSON *copy = cJSON_Duplicate(obj, 1);
	char *text = NULL, err[512];
	int rc;

	if (!copy || il_json_sanitize(copy) < 0 || !(text = cJSON_Print(copy))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = il_out_open("output", path, &o, err, sizeof(err))) < 0)
		goto out;
	fputs(text, il_out_file(o));
	fputc('\n', il_out_file(o));
	rc = il_out_commit(o, err, sizeof(err));
out:
	cJSON_free(text);
	cJSON_Delete(copy);
	return rc;
}

/* --- JSON ---------------------------------------------------------------- */

size_t il_utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		/* No overlong forms, no UTF-16 surrogates. */
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/* A copy of s with every invalid byte as U+FFFD, or NULL when s is valid. */
static char *utf8_fix(const char *s, int *err)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t bad = 0, n = strlen(s), len;
	char *out, *q;

	*err = 0;
	for (size_t i = 0; i < n; i += len ? len : 1)
		if (!(len = il_utf8_len(p + i)))
			bad++;
	if (!bad)
		return NULL;
	out = cJSON_malloc(n + 2 * bad + 1);
	if (!out) {
		*err = -ENOMEM;
		return NULL;
	}
	q = out;
	for (size_t i = 0; i < n; i += len ? len : 1) {
		len = il_utf8_len(p + i);
		if (len) {
			memcpy(q, s + i, len);
			q += len;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
		}
	}
	*q = '\0';
	return out;
}

/* *s made valid UTF-8 in place (cJSON's allocator on both sides). */
static int utf8_fix_in_place(char **s)
{
	int err = 0;
	char *fixed = utf8_fix(*s, &err);

	if (fixed) {
		cJSON_free(*s);
		*s = fixed;
	}
	return err;
}

int il_json_sanitize(cJSON *root)
{
	cJSON *c;
	int err;

	if (!root)
		return 0;
	if (root->string && !(root->type & cJSON_StringIsConst) &&
	    (err = utf8_fix_in_place(&root->string)))
		return err;
	if (cJSON_IsString(root) && root->valuestring &&
	    (err = utf8_fix_in_place(&root->valuestring)))
		return err;
	for (c = root->child; c; c = c->next)
		if ((err = il_json_sanitize(c)) < 0)
			return err;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The first key that appears twice in one object under root, or NULL (and
 * NULL when memory runs out: the caller then reads the tree as cJSON did).
 * Sorting the names keeps an object of 10^6 keys at n log n; cJSON's own
 * nesting limit (1000) bounds the recursion.
 */
const char *il_json_duplicate_key(const cJSON *root)
{
	const cJSON *c;
	const char *dup = NULL;
	size_t n = 0;

	if (!root)
		return NULL;
	for (c = root->child; c && !dup; c = c->next)
		dup = il_json_duplicate_key(c);
	if (dup || !cJSON_IsObject(root))
		return dup;
	for (c = root->child; c; c = c->next)
		n++;
	if (n > 1) {
		const char **names = malloc(n * sizeof(*names));
		size_t i = 0;

		if (!names)
			return NULL;
		for (c = root->child; c; c = c->next)
			names[i++] = c->string ? c->string : "";
		qsort(names, n, sizeof(*names), name_cmp);
		for (i = 1; i < n && !dup; i++)
			if (!strcmp(names[i - 1], names[i]))
				dup = names[i];
		free(names);
	}
	return dup;
}

/*
 * How many values (numbers, strings, literals, arrays, objects; an object's
 * member is its value) the JSON text holds, read without parsing: each is
 * one cJSON node, so this is the tree's size before it is built. Commas
 * outside strings separate values, and a container that is not empty holds
 * one more than its commas. Exact for valid JSON; text that is not JSON
 * gets a count, and cJSON then says it is not JSON.
 */
size_t il_json_count_values(const char *text, size_t len)
{
	size_t n = len ? 1 : 0;
	bool in_string = false, opened = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		/* The first value inside [ or {, unless it closes at once. */
		if (opened && c != ']' && c != '}')
			n++;
		opened = c == '[' || c == '{';
		if (c == ',')
			n++;
		else if (c == '"')
			in_string = true;
	}
	return n;
}

int il_json_parse_one(const char *text, size_t len, cJSON **out, char *why, size_t whylen)
{
	/*
	 * One JSON text and nothing else: cJSON stops at the end of the first
	 * value and at a NUL byte, so two texts concatenated, garbage after
	 * the value, or a NUL inside a string read as a (different) value.
	 */
	const char *nul = memchr(text, '\0', len), *end = NULL;
	/* A tree costs about 100 bytes a value, whatever the value's size:
	 * 32 MiB of "0," was a tree of 16 M nodes, 1.3 GiB. Counted before it
	 * is built. */
	size_t nvalues = nul ? 0 : il_json_count_values(text, len);
	const char *dup;
	cJSON *root;

	*out = NULL;
	if (nvalues > IL_JSON_MAX_VALUES) {
		snprintf(why, whylen, "%zu JSON values, more than the %u a run report may have",
			 nvalues, IL_JSON_MAX_VALUES);
		return -E2BIG;
	}
	if (nul) {
		snprintf(why, whylen, "not JSON (a NUL byte at byte %zu)", (size_t)(nul - text));
		return -EINVAL;
	}
	root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!root) {
		snprintf(why, whylen, "not JSON");
		return -EINVAL;
	}
	while (end < text + len && strchr(" \t\r\n", *end))
		end++;
	if (end < text + len) {
		snprintf(why, whylen, "not JSON (more text after the value, at byte %zu)",
			 (size_t)(end - text));
		cJSON_Delete(root);
		return -EINVAL;
	}
	/* A key twice in one object has no one meaning: cJSON reads the first,
	 * Python (the sweep's scripts) the last. Refuse it, as they do. */
	dup = il_json_duplicate_key(root);
	if (dup) {
		char shown[65];

		/* One line whatever bytes the key holds. */
		snprintf(why, whylen,
			 "not JSON we can read (key \"%s\" appears twice in one object)",
			 il_printable_copy(dup, shown, sizeof(shown)));
		cJSON_Delete(root);
		return -EINVAL;
	}
	*out = root;
	return 0;
}

int il_json_load(const char *path, cJSON **out, char *err, size_t errlen)
{
	size_t len;
	char *text = il_file_read(path, IL_JSON_MAX_BYTES, &len);
	char why[160];
	struct stat st;
	int r;

	if (!text) {
		int e = errno;

		if (e == EFBIG && stat(path, &st) == 0)
			snprintf(err, errlen,
				 "%s: %.0f MiB, more than the %u MiB a run report may "
				 "have",
				 path, st.st_size / 1048576.0, IL_JSON_MAX_BYTES >> 20);
		else if (e == EFBIG)
			snprintf(err, errlen, "%s: more than the %u MiB a run report may have",
				 path, IL_JSON_MAX_BYTES >> 20);
		else
			il_file_read_why(path, e, err, errlen);
		return -e;
	}
	r = il_json_parse_one(text, len, out, why, sizeof(why));
	free(text);
	if (r < 0)
		snprintf(err, errlen, "%s: %s", path, why);
	return r;
}

int il_json_held_max(const char *env, unsigned default_mib, size_t *out, char *err, size_t errlen)
{
	const char *v = getenv(env);
	uint64_t mib = default_mib;

	if (v && il_parse_u64(v, 1, 1u << 20, &mib) < 0) {
		snprintf(err, errlen, "%s '%s' is not a size in MiB: expected 1..1048576", env, v);
		return -EINVAL;
	}
	*out = (size_t)mib << 20;
	return 0;
}

size_t il_json_tree_bytes(const cJSON *root)
{
	size_t n;

	if (!root)
		return 0;
	n = sizeof(*root);
	if (root->string && !(root->type & cJSON_StringIsConst))
		n += strlen(root->string) + 1;
	if (root->valuestring)
		n += strlen(root->valuestring) + 1;
	/* cJSON's nesting limit (1000) bounds the recursion. */
	for (const cJSON *c = root->child; c; c = c->next)
		n += il_json_tree_bytes(c);
	return n;
}

cJSON *il_json_u64(uint64_t v)
{
	char text[24];

	if (v <= (1ull << 53))
		return cJSON_CreateNumber((double)v);
	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	return cJSON_CreateString(text);
}

bool il_json_whole_in(const cJSON *c, double lo, double hi)
{
	return cJSON_IsNumber(c) && c->valuedouble >= lo && c->valuedouble <= hi &&
	       c->valuedouble == floor(c->valuedouble);
}

const cJSON *il_json_get(const cJSON *root, const char *path)
{
	char key[64];
	const cJSON *o = root;

	while (o && *path) {
		size_t len = strcspn(path, ".");

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += len + (path[len] == '.');
	}
	return o;
}

double il_json_num(const cJSON *root, const char *path)
{
	const cJSON *o = il_json_get(root, path);

	return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}
