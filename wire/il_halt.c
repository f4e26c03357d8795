#include "il_halt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORD_SIZE sizeof(uint64_t)

int il_halt_create(struct il_halt *h, char *err, size_t errlen)
{
	void *p;
	int rc;

	h->word = NULL;
	h->fd = memfd_create("inputlat-halt", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (h->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		return rc;
	}
	/* Sealed at one word: nobody can shrink it under a reader (SIGBUS). */
	if (ftruncate(h->fd, (off_t)WORD_SIZE) < 0 ||
	    fcntl(h->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		rc = -errno;
		snprintf(err, errlen, "sizing the halt word: %s", strerror(errno));
		il_halt_free(h);
		return rc;
	}
	p = mmap(NULL, WORD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "mapping the halt word: %s", strerror(errno));
		il_halt_free(h);
		return rc;
	}
	h->word = p;
	atomic_store(h->word, 0);
	return 0;
}

void il_halt_set(struct il_halt *h, uint64_t now_ns)
{
	if (h && h->word)
		atomic_store_explicit(h->word, now_ns ? now_ns : 1, memory_order_release);
}

int il_halt_map(struct il_halt *h, int fd, char *err, size_t errlen)
{
	struct stat st;
	void *p;
	int rc;

	h->word = NULL;
	h->fd = fd;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "the halt word: %s", strerror(errno));
		il_halt_free(h);
		return rc;
	}
	if (!S_ISREG(st.st_mode) || st.st_size != (off_t)WORD_SIZE) {
		snprintf(err, errlen, "the halt word: a file of %lld bytes, not one word",
			 (long long)st.st_size);
		il_halt_free(h);
		return -EINVAL;
	}
	p = mmap(NULL, WORD_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "mapping the halt word: %s", strerror(errno));
		il_halt_free(h);
		return rc;
	}
	h->word = p;
	close(h->fd);
	h->fd = -1;
	return 0;
}

void il_halt_free(struct il_halt *h)
{
	if (!h)
		return;
	if (h->word)
		munmap((void *)h->word, WORD_SIZE);
	h->word = NULL;
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}
