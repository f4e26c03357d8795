/*
 * Fuzz target: the texts the CPU bandwidth of a run is read from
 * (policies/il_cpu_bandwidth.c): /proc/self/mountinfo and /proc/self/cgroup
 * through il_cpu_bandwidth_group_parse, and a limit file (cpu.max,
 * cpu.cfs_quota_us, cpu.cfs_period_us) through il_cpu_bandwidth_value_parse.
 * The input is mountinfo's text, a line "%%", then the cgroup file's text;
 * without the line, all of it is mountinfo and the cgroup file says
 * "0::/". The whole input is also tried as each kind of limit file.
 *
 * What parses is read from the file system next, so it must be what the
 * kernel wrote: the mount point comes from one whole mountinfo line (not
 * the rest of a long one) of a cgroup or cgroup2 mount, the group lies
 * below it without "." or "..", and walking up from the group ends at the
 * mount point. A limit is "max"/-1 or a number in range, never a clamped
 * or partial one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_cpu_bandwidth.h"
#include "il_fuzz.h"

#define SEP "\n%%\n"

/* mountinfo's escaping of a path (space, tab, newline, backslash). */
static void escape(const char *s, size_t n, char *out, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < n && w + 5 < len; i++) {
		if (strchr(" \t\n\\", s[i]) && s[i])
			w += (size_t)snprintf(out + w, len - w, "\\%03o", (unsigned char)s[i]);
		else
			out[w++] = s[i];
	}
	out[w] = '\0';
}

/* Whether a line of text has mnt as its fifth field and " - cgroup" after. */
static bool mount_line(const char *text, size_t size, const char *mnt)
{
	const char *p = text, *end = text + size;
	size_t mlen = strlen(mnt);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end, *f = p;

		for (int i = 0; i < 4 && f; i++) {
			f = memchr(f, ' ', (size_t)(eol - f));
			f = f ? f + 1 : NULL;
		}
		if (f && (size_t)(eol - f) > mlen && !memcmp(f, mnt, mlen) && f[mlen] == ' ' &&
		    memmem(f, (size_t)(eol - f), " - cgroup", 9))
			return true;
		p = nl ? nl + 1 : end;
	}
	return false;
}

static int check_group(const char *mi, size_t mlen, const char *cg, size_t clen)
{
	static struct il_cpu_bandwidth_group g;
	static char esc[4096 * 4 + 8];
	char why[512] = "", dir[4096], *group;
	int rc = il_cpu_bandwidth_group_parse(mi, mlen, cg, clen, &g, why, sizeof(why));

	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOENT || rc == -ENAMETOOLONG);
	if (rc) {
		IL_FUZZ_CHECK(why[0] != '\0');
		return 0;
	}
	IL_FUZZ_CHECK(memchr(g.dir, '\0', sizeof(g.dir)));
	IL_FUZZ_CHECK(g.dir[0] == '/' && g.top >= 1 && g.top <= strlen(g.dir));
	group = g.dir + g.top;
	IL_FUZZ_CHECK(group[0] == '\0' || group[0] == '/' || g.dir[g.top - 1] == '/');
	IL_FUZZ_CHECK(!strstr(group, "/../") && !strstr(group, "/./"));
	escape(g.dir, g.top, esc, sizeof(esc));
	if (!mount_line(mi, mlen, esc)) {
		fprintf(stderr, "cpu_bandwidth: mount point %.*s from no whole mountinfo line\n",
			(int)g.top, g.dir);
		return -1;
	}
	/* il_cpu_bandwidth_read's walk up: it must end, at the mount point. */
	snprintf(dir, sizeof(dir), "%s", g.dir);
	while (strlen(dir) > g.top) {
		char *slash = strrchr(dir, '/');

		IL_FUZZ_CHECK(slash != NULL);
		*slash = '\0';
	}
	return 0;
}

static int check_value(const char *text, size_t n)
{
	long long q = 0, p = 0;
	int rc = il_cpu_bandwidth_value_parse(text, n, true, &q, &p);

	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(q >= -1 && p >= 1);
	rc = il_cpu_bandwidth_value_parse(text, n, false, &q, NULL);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(q >= -1);
	return 0;
}

int il_fuzz_cpu_bandwidth(const uint8_t *data, size_t size)
{
	const char *sep;
	char *copy;
	int rc;

	copy = il_fuzz_copy(data, &size, false);
	if (!copy)
		return 0;
	sep = memmem(copy, size, SEP, strlen(SEP));
	if (sep)
		rc = check_group(copy, (size_t)(sep - copy) + 1, sep + strlen(SEP),
				 size - (size_t)(sep - copy) - strlen(SEP));
	else
		rc = check_group(copy, size, "0::/\n", 5);
	if (rc == 0)
		rc = check_value(copy, size);
	free(copy);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_cpu_bandwidth)
