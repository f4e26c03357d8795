#include "il_dma_latency.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The misc major (include/linux/miscdevice.h); the minor of
 * cpu_dma_latency is dynamic on recent kernels, so /proc/misc says it. */
#define MISC_MAJOR 10

/* The minor /proc/misc gives "cpu_dma_latency", or -errno with why. */
static int misc_minor(unsigned *out, char *why, size_t n)
{
	char line[128], name[64];
	unsigned m;
	FILE *f = fopen("/proc/misc", "re");

	if (!f) {
		int e = errno;

		snprintf(why, n, "/proc/misc: %s", strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %63s", &m, name) == 2 && !strcmp(name, "cpu_dma_latency")) {
			fclose(f);
			*out = m;
			return 0;
		}
	fclose(f);
	snprintf(why, n, "/proc/misc names no cpu_dma_latency device");
	return -ENOENT;
}

int il_dma_latency_hold(int32_t *value_us, char *why, size_t n)
{
	static const char path[] = "/dev/cpu_dma_latency";
	int32_t zero = 0, now;
	char mwhy[96];
	struct stat st;
	unsigned qos_minor = 0;
	ssize_t got;
	int fd;

	*value_us = -1;
	/* No O_TRUNC, no write before the check: a file bound over the
	 * device's name is left as it was. */
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, n, "%s: %s", path,
			 errno == ENOENT ? "absent (kernel without CONFIG_PM_QOS device)"
					 : strerror(errno));
		return -1;
	}
	/* Held means PM QoS's own device, by the descriptor written to: a
	 * regular file or /dev/null under its name takes the 0 and holds
	 * nothing. */
	if (fstat(fd, &st) != 0) {
		snprintf(why, n, "%s: fstat: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (misc_minor(&qos_minor, mwhy, sizeof(mwhy)) < 0) {
		snprintf(why, n, "not held: cannot tell %s is the PM QoS device: %s", path, mwhy);
		close(fd);
		return -1;
	}
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != MISC_MAJOR ||
	    minor(st.st_rdev) != qos_minor) {
		if (S_ISCHR(st.st_mode))
			snprintf(why, n,
				 "not held: %s is character device %u:%u, not PM QoS's %u:%u "
				 "(/proc/misc)",
				 path, major(st.st_rdev), minor(st.st_rdev), MISC_MAJOR, qos_minor);
		else
			snprintf(why, n,
				 "not held: %s is not a character device, not PM QoS's %u:%u "
				 "(/proc/misc)",
				 path, MISC_MAJOR, qos_minor);
		close(fd);
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
