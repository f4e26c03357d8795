/*
 * reproduce's directory of per-run reports, /tmp/inputlat-reproduce.XXXXXX.
 * Its owner holds a lock on DIR/.owner for as long as it runs, so a
 * reproduce killed outright (SIGKILL, a crash), whose directory nothing
 * else removes, leaves one that nobody holds: the next reproduce removes
 * it (as `run` does with its outputs' temporary files). A directory kept
 * on purpose (IL_REPRODUCE_KEEP) loses its .owner and stays.
 */
#ifndef IL_REPRO_DIR_H
#define IL_REPRO_DIR_H

#include <stddef.h>

struct il_repro_dir {
	char path[64];
	int owner_fd; /* holds the lock on path/.owner; -1 when none */
};

/*
 * Removes the directories that killed reproduces left (this user's, whose
 * .owner nobody holds), saying each in one line on stderr; then makes a
 * new one, held. 0, or -1 with why in err.
 */
int il_repro_dir_make(struct il_repro_dir *d, char *err, size_t errlen);

/* Removes it, or with keep leaves it and its reports without .owner. */
void il_repro_dir_done(struct il_repro_dir *d, int keep);

#endif
