/*
 * What a command the run starts (--background) writes to stderr, kept in
 * memory so that its failure can quote it: "exited with status 2 before
 * the run started: sh: 1: Cannot fork" rather than a bare status. It went
 * to /dev/null, and the user had to run the command again by hand.
 *
 * A sealed memfd of IL_STDERR_KEEP bytes: memory bounded whatever the
 * command writes; past it, its writes to stderr fail (EPERM), as on a
 * full disk, and nothing else changes for it.
 */
#ifndef IL_STDERR_KEEP_H
#define IL_STDERR_KEEP_H

#include <stddef.h>

#define IL_STDERR_KEEP 65536

/* A descriptor (CLOEXEC) to dup2 onto the command's stderr, or -errno. */
int il_stderr_keep_open(void);

/*
 * The last non-empty line written to fd so far into buf, printable ASCII
 * only (other bytes '?'), cut at len - 1; "" when there is none.
 */
void il_stderr_keep_last_line(int fd, char *buf, size_t len);

#endif
