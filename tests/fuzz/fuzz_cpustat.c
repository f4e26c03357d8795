/*
 * Fuzz target: /proc/stat's text as il_cpustat_parse reads it (the idle
 * and steal shares of a run come from two such snapshots). The input is
 * the file's contents, NUL-terminated as il_cpustat_read leaves it.
 *
 * What parses is a value: each CPU present has exactly one "cpuN " line
 * (never one taken from a wrapped number, "cpu01", or the next line), CPU
 * numbers stay below 65536, and a snapshot compared with itself has
 * accumulated no time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_cpustat.h"
#include "il_fuzz.h"

/* How many lines of text start with "cpuN ". */
static int lines_of(const char *text, unsigned cpu)
{
	char want[24];
	size_t n = (size_t)snprintf(want, sizeof(want), "cpu%u ", cpu);
	int count = 0;

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		count += !strncmp(p, want, n);
	return count;
}

int il_fuzz_cpustat(const uint8_t *data, size_t size)
{
	struct il_cpustat *s = NULL;
	char *text, why[96];
	int rc;

	text = il_fuzz_copy(data, &size, true);
	if (!text)
		return 0;
	rc = il_cpustat_parse(text, &s);
	if (rc != 0) {
		free(text);
		IL_FUZZ_CHECK(rc == -ENODATA || rc == -EINVAL || rc == -ERANGE || rc == -ENOMEM);
		IL_FUZZ_CHECK(il_cpustat_why(rc, why, sizeof(why))[0] != '\0');
		return 0;
	}
	rc = -1;
	if (il_cpustat_ncpu(s) < 1 || il_cpustat_ncpu(s) > 65536 ||
	    !il_cpustat_cpu(s, il_cpustat_ncpu(s) - 1)->present) {
		fprintf(stderr, "cpustat: %u CPUs, the last one absent\n", il_cpustat_ncpu(s));
		goto out;
	}
	for (unsigned i = 0; i < il_cpustat_ncpu(s); i++) {
		if (il_cpustat_cpu(s, i)->present && lines_of(text, i) != 1) {
			fprintf(stderr, "cpustat: CPU %u present without a line of its own\n", i);
			goto out;
		}
		(void)il_cpustat_total(il_cpustat_cpu(s, i));
	}
	if (il_cpustat_idle_pct(s, s, NULL) != -1.0 || il_cpustat_steal_pct(s, s) != -1.0) {
		fprintf(stderr, "cpustat: time passed between a snapshot and itself\n");
		goto out;
	}
	(void)il_cpustat_steal_seen(s);
	rc = 0;
out:
	il_cpustat_free(s);
	free(text);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_cpustat)
