#include "il_dma_latency.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int il_dma_latency_hold(int32_t *value_us, char *why, size_t n)
{
	static const char path[] = "/dev/cpu_dma_latency";
	int32_t zero = 0, now;
	ssize_t got;
	int fd;

	*value_us = -1;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "%s: %s", path,
			 errno == ENOENT ? "absent (kernel without CONFIG_PM_QOS device)"
					 : strerror(errno));
		return -1;
	}
	if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		snprintf(why, n, "%s: writing 0: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	/* What the kernel now holds every CPU to (the lowest request of all):
	 * reported, not the 0 asked for. */
	got = pread(fd, &now, sizeof(now), 0);
	if (got == (ssize_t)sizeof(now))
		*value_us = now;
	else
		snprintf(why, n, "held, but %s could not be read back: %s", path,
			 got < 0 ? strerror(errno) : "short read");
	return fd;
}
