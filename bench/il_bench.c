#include "il_bench.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <unistd.h>

int il_bench_inputlat(char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0) {
		int err = -errno;

		snprintf(buf, len, "/proc/self/exe/../inputlat");
		return err;
	}
	self[n] = '\0';
	snprintf(buf, len, "%s/../inputlat", dirname(self));
	return access(buf, X_OK) < 0 ? -errno : 0;
}
