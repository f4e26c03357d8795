/*
 * Fuzz target: the procfs, sysfs and config texts policies/il_sysinfo.c
 * reads, through its pure parsers: a one-line value (il_sysinfo_value_parse
 * with the buffers its callers use, then il_parse_i64 and
 * il_sysinfo_preempt_parse on it as callers do), /proc/self/mounts
 * (il_sysinfo_cpu_mount_next) and a kernel config
 * (il_sysinfo_kconfig_parse). The input is each file's text.
 *
 * What parses is what the kernel wrote: a value is a whole first line
 * (never one cut short at the buffer), a mount point comes from one whole
 * line of a cgroup mount, and a config value from a line that begins with
 * the option, never from the middle of a long one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_parse.h"
#include "il_sysinfo.h"

static int check_value(const char *text, size_t n, size_t len)
{
	char buf[4096], model[64];
	const char *nl = memchr(text, '\n', n);
	size_t line = nl ? (size_t)(nl - text) : n;
	int64_t v;
	int rc = il_sysinfo_value_parse(text, n, buf, len);

	IL_FUZZ_CHECK(rc == 0 || rc == -EOVERFLOW || rc == -EINVAL);
	if (rc)
		return 0;
	IL_FUZZ_CHECK(strlen(buf) == line && line < len && memcmp(buf, text, line) == 0);
	(void)il_parse_i64(buf, INT64_MIN, INT64_MAX, &v);
	if (il_sysinfo_preempt_parse(buf, model, sizeof(model)) == 0)
		IL_FUZZ_CHECK(strlen(model) < sizeof(model) && strchr(buf, '('));
	return 0;
}

/* Whether a line of text is "DEV MNT cgroup ..." with MNT as written. */
static bool cgroup_line(const char *text, size_t n, const char *mnt)
{
	char esc[4096 * 4 + 8];
	size_t w = 0, elen;
	const char *p = text, *end = text + n;

	for (const char *c = mnt; *c && w + 5 < sizeof(esc); c++)
		if (strchr(" \t\n\\", *c))
			w +=
			    (size_t)snprintf(esc + w, sizeof(esc) - w, "\\%03o", (unsigned char)*c);
		else
			esc[w++] = *c;
	esc[w] = '\0';
	elen = strlen(esc);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *f = memchr(p, ' ', (size_t)(eol - p));

		if (f && (size_t)(eol - f) > elen + 8 && !memcmp(f + 1, esc, elen) &&
		    !memcmp(f + 1 + elen, " cgroup ", 8))
			return true;
		p = nl ? nl + 1 : end;
	}
	return false;
}

static int check_mounts(const char *text, size_t n)
{
	static char dir[4096];
	size_t pos = 0, last = 0;

	while (il_sysinfo_cpu_mount_next(text, n, &pos, dir, sizeof(dir))) {
		IL_FUZZ_CHECK(pos > last && pos <= n);
		last = pos;
		IL_FUZZ_CHECK(memchr(dir, '\0', sizeof(dir)) && dir[0] == '/');
		if (!cgroup_line(text, n, dir)) {
			fprintf(stderr, "sysinfo: cpu mount %s from no whole mounts line\n", dir);
			return -1;
		}
	}
	return 0;
}

/* Whether text has a line that begins with start (of slen bytes). */
static bool line_starts(const char *text, size_t n, const char *start, size_t slen)
{
	for (const char *p = text; p && p < text + n;) {
		const char *nl;

		if ((size_t)(text + n - p) >= slen && !memcmp(p, start, slen))
			return true;
		nl = memchr(p, '\n', (size_t)(text + n - p));
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

static int check_kconfig(const char *text, size_t n)
{
	static const char *const options[] = {"CONFIG_HZ", "CONFIG_PREEMPT",
					      "CONFIG_RT_GROUP_SCHED"};
	char val[16], want[64];

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		int rc = il_sysinfo_kconfig_parse(text, n, options[i], val, sizeof(val));
		int w;

		IL_FUZZ_CHECK(rc == 0 || rc == -ENOENT || rc == -EOVERFLOW || rc == -EINVAL);
		if (rc)
			continue;
		IL_FUZZ_CHECK(strlen(val) < sizeof(val));
		w = snprintf(want, sizeof(want), "%s=", options[i]);
		if (line_starts(text, n, want, (size_t)w))
			continue;
		w = snprintf(want, sizeof(want), "# %s is not set", options[i]);
		if (!strcmp(val, "n") && line_starts(text, n, want, (size_t)w))
			continue;
		fprintf(stderr, "sysinfo: %s=%s from no line of its own\n", options[i], val);
		return -1;
	}
	return 0;
}

int il_fuzz_sysinfo(const uint8_t *data, size_t size)
{
	char *text;
	int rc;

	text = il_fuzz_copy(data, &size, false);
	if (!text)
		return 0;
	rc = check_value(text, size, 32);
	if (rc == 0)
		rc = check_value(text, size, 256);
	if (rc == 0)
		rc = check_mounts(text, size);
	if (rc == 0)
		rc = check_kconfig(text, size);
	free(text);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_sysinfo)
