#include "il_bench.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "il_file.h"
#include "il_parse.h"

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

int il_bench_out_check(const char *prog, const char *path)
{
	char err[600];
	int rc = il_out_check("--json", path, err, sizeof(err));

	if (rc < 0)
		fprintf(stderr, "%s: %s\n", prog, err);
	return rc;
}

int il_bench_opt_error(const char *prog, int c, char **argv, const struct option *longopts)
{
	char opt[300];

	if (c == ':')
		fprintf(stderr, "%s: %s needs a value (see --help)\n", prog, argv[optind - 1]);
	else if (c == '?')
		fprintf(stderr, "%s: %s (see --help)\n", prog,
			il_parse_option_error(argv, longopts, opt, sizeof(opt)));
	else if (strchr(argv[optind - 1], '=') && !strncmp(argv[optind - 1], "--", 2))
		fprintf(stderr, "%s: bad value in '%s' (see --help)\n", prog, argv[optind - 1]);
	else if (optind >= 2)
		/* "--rounds abc": the option, then its value. */
		fprintf(stderr, "%s: %s: bad value '%s' (see --help)\n", prog, argv[optind - 2],
			argv[optind - 1]);
	else
		fprintf(stderr, "%s: bad value '%s' (see --help)\n", prog, argv[optind - 1]);
	return 2;
}
