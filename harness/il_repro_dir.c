#include "il_repro_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "/tmp/inputlat-reproduce."
#define OWNER  ".owner"

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/*
 * Whether a directory of reproduce's name is one a killed reproduce left:
 * a real directory (not a link to one) of this user, with an .owner
 * nobody holds a lock on. One without .owner was kept, or is not ours.
 */
static int left_by_killed(const char *dir)
{
	char owner[128];
	struct stat st;
	int fd, free_lock;

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return 0;
	snprintf(owner, sizeof(owner), "%s/" OWNER, dir);
	fd = open(owner, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	free_lock = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_lock;
}

static void sweep(void)
{
	glob_t g;

	/* mkdtemp's six characters, nothing else of that prefix. */
	if (glob(PREFIX "[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]",
		 GLOB_NOSORT, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (!left_by_killed(g.gl_pathv[i]))
			continue;
		if (nftw(g.gl_pathv[i], rm_cb, 8, FTW_DEPTH | FTW_PHYS) == 0)
			fprintf(stderr,
				"inputlat reproduce: removed %s, the run reports of a reproduce "
				"that was killed\n",
				g.gl_pathv[i]);
	}
	globfree(&g);
}

int il_repro_dir_make(struct il_repro_dir *d, char *err, size_t errlen)
{
	char tmp[96], owner[96];

	d->owner_fd = -1;
	sweep();
	snprintf(d->path, sizeof(d->path), PREFIX "XXXXXX");
	if (!mkdtemp(d->path)) {
		snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
		return -1;
	}
	/*
	 * Locked under another name, then renamed: a sweep by another
	 * reproduce never finds an .owner that is not held yet.
	 */
	snprintf(tmp, sizeof(tmp), "%s/.owner.new", d->path);
	snprintf(owner, sizeof(owner), "%s/" OWNER, d->path);
	d->owner_fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (d->owner_fd < 0 || flock(d->owner_fd, LOCK_EX) < 0 || rename(tmp, owner) < 0) {
		snprintf(err, errlen, "cannot hold %s: %s", owner, strerror(errno));
		il_repro_dir_done(d, 0);
		return -1;
	}
	return 0;
}

void il_repro_dir_done(struct il_repro_dir *d, int keep)
{
	char owner[96];

	if (keep) {
		snprintf(owner, sizeof(owner), "%s/" OWNER, d->path);
		unlink(owner);
	} else {
		nftw(d->path, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	}
	if (d->owner_fd >= 0)
		close(d->owner_fd);
	d->owner_fd = -1;
}
