#include "il_stderr_keep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int il_stderr_keep_open(void)
{
	int fd = memfd_create("il-stderr", MFD_CLOEXEC | MFD_ALLOW_SEALING), r;

	if (fd < 0)
		return -errno;
	/* Its size fixed: the command neither grows nor shrinks it. */
	if (ftruncate(fd, IL_STDERR_KEEP) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

void il_stderr_keep_last_line(int fd, char *buf, size_t len)
{
	/* The command's stderr shares our file offset: it is how much it wrote. */
	off_t end = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
	size_t want = end > 0 ? (size_t)(end < IL_STDERR_KEEP ? end : IL_STDERR_KEEP) : 0;
	char *text = want ? malloc(want) : NULL;
	ssize_t got = text ? pread(fd, text, want, 0) : 0;
	size_t n = got > 0 ? (size_t)got : 0, start, k = 0;

	if (!len) {
		free(text);
		return;
	}
	while (n > 0 && strchr(" \t\r\n", text[n - 1]) && text[n - 1] != '\0')
		n--;
	for (start = n; start > 0 && text[start - 1] != '\n'; start--)
		;
	while (start < n && (text[start] == ' ' || text[start] == '\t'))
		start++;
	for (size_t i = start; i < n && k + 1 < len; i++)
		buf[k++] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
	buf[k] = '\0';
	free(text);
}
