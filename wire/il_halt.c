#include "il_halt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORD_SIZE sizeof(uint64_t)

/* Frees h and says why in err: the failures' common end. Returns rc. */
static int fail(struct il_halt *h, int rc, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, strerror(-rc));
	il_halt_free(h);
	return rc;
}

/* Maps h->fd's one word with prot into h->word. */
static int map_word(struct il_halt *h, int prot, char *err, size_t errlen)
{
	void *p = mmap(NULL, WORD_SIZE, prot, MAP_SHARED, h->fd, 0);

	if (p == MAP_FAILED)
		return fail(h, -errno, err, errlen, "mapping the halt word");
	h->word = p;
	return 0;
}

int il_halt_create(struct il_halt *h, char *err, size_t errlen)
{
	int rc;

	h->word = NULL;
	h->fd = memfd_create("inputlat-halt", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (h->fd < 0)
		return fail(h, -errno, err, errlen, "memfd_create");
	/* Sealed at one word: nobody can shrink it under a reader (SIGBUS). */
	if (ftruncate(h->fd, (off_t)WORD_SIZE) < 0 ||
	    fcntl(h->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return fail(h, -errno, err, errlen, "sizing the halt word");
	rc = map_word(h, PROT_READ | PROT_WRITE, err, errlen);
	if (rc < 0)
		return rc;
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
	int rc;

	h->word = NULL;
	h->fd = fd;
	if (fstat(fd, &st) < 0)
		return fail(h, -errno, err, errlen, "the halt word");
	if (!S_ISREG(st.st_mode) || st.st_size != (off_t)WORD_SIZE) {
		snprintf(err, errlen, "the halt word: a file of %lld bytes, not one word",
			 (long long)st.st_size);
		il_halt_free(h);
		return -EINVAL;
	}
	rc = map_word(h, PROT_READ, err, errlen);
	if (rc < 0)
		return rc;
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
