#include "il_cpu_bandwidth.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_file.h"
#include "il_mountfield.h"
#include "il_parse.h"

/* The largest mountinfo and cgroup file read: thousands of mounts fit. */
#define MOUNTINFO_MAX (16u << 20)
#define CGROUP_MAX    (1u << 20)
/* cpu.max and the v1 files hold two numbers at most; more is not theirs. */
#define VALUE_MAX 64

/* One hierarchy: where it is mounted and which part of it the mount shows. */
struct hier {
	bool found;
	char mountpoint[PATH_MAX];
	char root[PATH_MAX];
};

static bool field_is(const char *f, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(f, word, n) == 0;
}

/*
 * The v1 hierarchy with the cpu controller and the v2 one, from
 * mountinfo's text: every line read whole, however long (fgets into a
 * 4 KiB buffer made the rest of a long line a record of its own).
 */
static void find_mounts(const char *text, size_t size, struct hier *v1, struct hier *v2)
{
	const char *p = text, *end = text + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *f[64];
		size_t fl[64], n = il_mountfield_split(p, eol, f, fl, 64), dash = 6;
		struct hier *h = NULL, cand;

		p = nl ? nl + 1 : end;
		/* id parent maj:min root mountpoint options [optional...] - type source super */
		while (dash < n && !field_is(f[dash], fl[dash], "-"))
			dash++;
		if (dash + 3 >= n)
			continue;
		if (field_is(f[dash + 1], fl[dash + 1], "cgroup") &&
		    il_mountfield_has_word(f[dash + 3], fl[dash + 3], "cpu"))
			h = v1;
		else if (field_is(f[dash + 1], fl[dash + 1], "cgroup2"))
			h = v2;
		if (!h || h->found)
			continue; /* the first mount of a hierarchy will do */
		/* Absolute paths that fit, or the next mount of the hierarchy. */
		if (!il_mountfield_unescape(f[3], fl[3], cand.root, sizeof(cand.root)) ||
		    !il_mountfield_unescape(f[4], fl[4], cand.mountpoint,
					    sizeof(cand.mountpoint)) ||
		    cand.root[0] != '/' || cand.mountpoint[0] != '/')
			continue;
		cand.found = true;
		*h = cand;
	}
}

/* Whether path has a "." or ".." component, or an empty one inside. */
static bool path_dotted(const char *path)
{
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");

		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return true;
		c += n;
		c += *c == '/';
	}
	return false;
}

/*
 * This process's group in the v1 cpu hierarchy and in v2 ("" if none),
 * from /proc/self/cgroup's text. -EINVAL when a group is named twice or
 * is not an absolute path without "." and "..": which group is meant, or
 * where it lies, would be a guess.
 */
static int find_groups(const char *text, size_t size, char *g1, size_t l1, char *g2, size_t l2)
{
	const char *p = text, *end = text + size;

	g1[0] = g2[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *c1 = memchr(p, ':', (size_t)(eol - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		const char *line = p;
		char *g = NULL;
		size_t glen = (size_t)(eol - (c2 ? c2 + 1 : eol)), l = 0;

		p = nl ? nl + 1 : end;
		if (!c2)
			continue;
		if (c2 == c1 + 1 && c1 - line == 1 && line[0] == '0') {
			g = g2;
			l = l2;
		} else if (il_mountfield_has_word(c1 + 1, (size_t)(c2 - c1 - 1), "cpu")) {
			g = g1;
			l = l1;
		} else {
			continue;
		}
		if (g[0] || glen >= l || glen == 0 || c2[1] != '/')
			return -EINVAL;
		memcpy(g, c2 + 1, glen);
		g[glen] = '\0';
		if (path_dotted(g))
			return -EINVAL;
	}
	return 0;
}

int il_cpu_bandwidth_group_parse(const char *mountinfo, size_t mlen, const char *cgroup,
				 size_t clen, struct il_cpu_bandwidth_group *out, char *why,
				 size_t len)
{
	struct hier v1 = {0}, v2 = {0};
	char g1[PATH_MAX], g2[PATH_MAX];
	struct hier *h;
	const char *group, *rel;
	size_t rootlen;

	if (memchr(mountinfo, '\0', mlen) || memchr(cgroup, '\0', clen)) {
		snprintf(why, len, "a NUL byte, not the kernel's text");
		return -EINVAL;
	}
	find_mounts(mountinfo, mlen, &v1, &v2);
	if (find_groups(cgroup, clen, g1, sizeof(g1), g2, sizeof(g2)) < 0) {
		snprintf(why, len, "a group named twice, or not an absolute path");
		return -EINVAL;
	}
	/* On a hybrid system the cpu controller is v1's, and v2 has none. */
	if (v1.found && g1[0]) {
		h = &v1;
		group = g1;
	} else if (v2.found && g2[0]) {
		h = &v2;
		group = g2;
	} else {
		snprintf(why, len, "no cgroup hierarchy with the cpu controller is mounted");
		return -ENOENT;
	}
	/* The mount may show a subtree (a container's): the group lies below it. */
	rootlen = strcmp(h->root, "/") == 0 ? 0 : strlen(h->root);
	if (rootlen && (strncmp(group, h->root, rootlen) != 0 ||
			(group[rootlen] != '/' && group[rootlen] != '\0'))) {
		snprintf(why, len, "the group %s lies outside the mounted %s (%s)", group,
			 h->mountpoint, h->root);
		return -ENOENT;
	}
	rel = group + rootlen;
	if ((size_t)snprintf(out->dir, sizeof(out->dir), "%s%s", h->mountpoint,
			     strcmp(rel, "/") == 0 ? "" : rel) >= sizeof(out->dir)) {
		snprintf(why, len, "the group's path is too long");
		return -ENAMETOOLONG;
	}
	out->top = strlen(h->mountpoint);
	out->v2 = h == &v2;
	return 0;
}

int il_cpu_bandwidth_value_parse(const char *text, size_t n, bool pair, long long *quota,
				 long long *period)
{
	char buf[VALUE_MAX], *sp;
	int64_t q, p = 0;
	int rc;

	if (il_parse_one_line(text, n, &n) < 0 || n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, n);
	buf[n] = '\0';
	sp = strchr(buf, ' ');
	if (!pair != !sp)
		return -EINVAL;
	if (sp)
		*sp++ = '\0';
	/* "max" (v2) and -1 (v1): no limit. */
	if (strcmp(buf, "max") == 0)
		q = -1;
	else if ((rc = il_parse_i64(buf, -1, INT64_MAX, &q)) < 0)
		return rc;
	if (sp && (rc = il_parse_i64(sp, 1, INT64_MAX, &p)) < 0)
		return rc;
	*quota = q;
	if (period)
		*period = p;
	return 0;
}

/* Reads one file of a group: 0, -ENOENT, -EFBIG (longer than any value),
 * -EINVAL or -ERANGE (il_cpu_bandwidth_value_parse), or -errno. */
static int read_value(const char *path, bool pair, long long *quota, long long *period)
{
	size_t n = 0;
	char *text = il_file_read(path, VALUE_MAX, &n);
	int rc;

	if (!text)
		return -errno;
	rc = il_cpu_bandwidth_value_parse(text, n, pair, quota, period);
	free(text);
	return rc;
}

/* One group's limit: 1 with quota and period, 0 unlimited, or -errno;
 * file is the one read (the one that failed). */
static int group_limit(const char *dir, bool v2, long long *quota, long long *period, char *file,
		       size_t flen)
{
	int rc;

	if (v2) {
		snprintf(file, flen, "%s/cpu.max", dir);
		rc = read_value(file, true, quota, period);
		/* The root, and a tree without the cpu controller, have none. */
		if (rc == -ENOENT)
			return 0;
	} else {
		snprintf(file, flen, "%s/cpu.cfs_period_us", dir);
		rc = read_value(file, false, period, NULL);
		if (rc == 0 && *period < 1)
			rc = -ERANGE;
		if (rc == 0) {
			snprintf(file, flen, "%s/cpu.cfs_quota_us", dir);
			rc = read_value(file, false, quota, NULL);
		}
	}
	if (rc < 0)
		return rc;
	return *quota > 0 && *period > 0 ? 1 : 0;
}

/* Why a file of a group could not be read, in words. */
static void value_why(const char *file, int rc, char *why, size_t len)
{
	if (rc == -ERANGE)
		snprintf(why, len,
			 "%s: a number out of range (a quota is max, -1 or 0 and up, "
			 "a period 1 and up, both below 2^63): unreadable, not a limit",
			 file);
	else if (rc == -EINVAL || rc == -EFBIG)
		snprintf(why, len, "%s: not a quota (and period) on one line", file);
	else
		snprintf(why, len, "%s: %s", file, strerror(-rc));
}

/* A whole /proc file into *text (the caller frees): 0, or -errno with why. */
static int read_text(const char *path, size_t max, char **text, size_t *n, char *why, size_t len)
{
	int e;

	*text = il_file_read(path, max, n);
	if (*text)
		return 0;
	e = errno;
	snprintf(why, len, "%s: %s", path, strerror(e));
	return -e;
}

int il_cpu_bandwidth_group(const char *cgroup_path, const char *mountinfo_path,
			   struct il_cpu_bandwidth_group *out, char *why, size_t len)
{
	char *mi = NULL, *cg = NULL;
	size_t mlen = 0, clen = 0;
	int rc;

	if ((rc = read_text(mountinfo_path, MOUNTINFO_MAX, &mi, &mlen, why, len)) == 0 &&
	    (rc = read_text(cgroup_path, CGROUP_MAX, &cg, &clen, why, len)) == 0)
		rc = il_cpu_bandwidth_group_parse(mi, mlen, cg, clen, out, why, len);
	free(cg);
	free(mi);
	return rc;
}

int il_cpu_bandwidth_read(const char *cgroup_path, const char *mountinfo_path,
			  struct il_cpu_bandwidth *out, char *why, size_t len)
{
	struct il_cpu_bandwidth_group g;
	int rc;

	*out = (struct il_cpu_bandwidth){0};
	rc = il_cpu_bandwidth_group(cgroup_path, mountinfo_path, &g, why, len);
	if (rc < 0)
		return rc;
	for (;;) {
		long long q = 0, p = 0;
		char file[PATH_MAX + 32] = "";

		rc = group_limit(g.dir, g.v2, &q, &p, file, sizeof(file));
		if (rc < 0) {
			value_why(file, rc, why, len);
			return rc;
		}
		if (rc > 0 && (out->cpus == 0 || (double)q / (double)p < out->cpus)) {
			out->cpus = (double)q / (double)p;
			out->quota_us = q;
			out->period_us = p;
			snprintf(out->file, sizeof(out->file), "%s", file);
		}
		if (strlen(g.dir) <= g.top)
			break;
		*strrchr(g.dir, '/') = '\0';
		if (strlen(g.dir) < g.top)
			break;
	}
	return 0;
}

void il_cpu_bandwidth_json(cJSON *sys)
{
	struct il_cpu_bandwidth b;
	char why[768], text[800];
	cJSON *o;

	if (il_cpu_bandwidth_read("/proc/self/cgroup", "/proc/self/mountinfo", &b, why,
				  sizeof(why)) < 0) {
		snprintf(text, sizeof(text), "unreadable: %s", why);
		cJSON_AddStringToObject(sys, "cpu_bandwidth", text);
		return;
	}
	if (b.cpus == 0) {
		cJSON_AddStringToObject(sys, "cpu_bandwidth", "unlimited");
		return;
	}
	o = cJSON_AddObjectToObject(sys, "cpu_bandwidth");
	cJSON_AddNumberToObject(o, "cpus", b.cpus);
	cJSON_AddNumberToObject(o, "quota_us", (double)b.quota_us);
	cJSON_AddNumberToObject(o, "period_us", (double)b.period_us);
	cJSON_AddStringToObject(o, "file", b.file);
}
