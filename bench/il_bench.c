#include "il_bench.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int il_bench_inputlat(const char *prog, char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int rc = n < 0 ? -errno : 0;

	if (rc == 0) {
		self[n] = '\0';
		snprintf(buf, len, "%s/../inputlat", dirname(self));
		if (access(buf, X_OK) < 0)
			rc = -errno;
	} else {
		snprintf(buf, len, "inputlat next to /proc/self/exe (%s)", strerror(-rc));
	}
	if (rc < 0)
		fprintf(stderr, "%s: cannot find %s (build the inputlat target)\n", prog, buf);
	return rc;
}
