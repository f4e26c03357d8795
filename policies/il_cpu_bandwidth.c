#include "il_cpu_bandwidth.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One hierarchy: where it is mounted and which part of it the mount shows. */
struct hier {
	bool found;
	char mountpoint[PATH_MAX];
	char root[PATH_MAX];
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* True when the comma-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}

/* The v1 hierarchy with the cpu controller and the v2 one, from mountinfo. */
static int find_mounts(const char *mountinfo_path, struct hier *v1, struct hier *v2)
{
	FILE *f = fopen(mountinfo_path, "re");
	char line[4096];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], mnt[PATH_MAX], fstype[64], super[512];
		char *dash = strstr(line, " - ");
		struct hier *h;

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s %*s %511s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, "cgroup") == 0 && has_word(super, "cpu"))
			h = v1;
		else if (strcmp(fstype, "cgroup2") == 0)
			h = v2;
		else
			continue;
		if (h->found)
			continue; /* the first mount of a hierarchy will do */
		unescape(root);
		unescape(mnt);
		h->found = true;
		snprintf(h->root, sizeof(h->root), "%s", root);
		snprintf(h->mountpoint, sizeof(h->mountpoint), "%s", mnt);
	}
	fclose(f);
	return 0;
}

/* This process's group in the v1 cpu hierarchy and in v2 ("" if none). */
static int find_groups(const char *cgroup_path, char *g1, size_t l1, char *g2, size_t l2)
{
	FILE *f = fopen(cgroup_path, "re");
	char line[4096];

	if (!f)
		return -errno;
	g1[0] = g2[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (c1[1] == '\0' && strncmp(line, "0:", 2) == 0)
			snprintf(g2, l2, "%s", c2 + 1);
		else if (has_word(c1 + 1, "cpu"))
			snprintf(g1, l1, "%s", c2 + 1);
	}
	fclose(f);
	return 0;
}

/* Reads one integer or "max" (-1) from a file; 0, -ENOENT, or -errno. */
static int read_ll(const char *path, long long *v, long long *second)
{
	FILE *f = fopen(path, "re");
	char a[32] = "", b[32] = "";
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%31s %31s", a, b);
	fclose(f);
	if (n < 1)
		return -ENODATA;
	*v = strcmp(a, "max") == 0 ? -1 : strtoll(a, NULL, 10);
	if (second)
		*second = n == 2 ? strtoll(b, NULL, 10) : 0;
	return 0;
}

/* One group's limit: 1 with quota and period, 0 unlimited, or -errno. */
static int group_limit(const char *dir, bool v2, long long *quota, long long *period, char *file,
		       size_t flen)
{
	char p[PATH_MAX + 32];
	int rc;

	if (v2) {
		snprintf(p, sizeof(p), "%s/cpu.max", dir);
		rc = read_ll(p, quota, period);
		/* The root, and a tree without the cpu controller, have none. */
		if (rc == -ENOENT)
			return 0;
	} else {
		snprintf(p, sizeof(p), "%s/cpu.cfs_quota_us", dir);
		rc = read_ll(p, quota, NULL);
		if (rc == 0) {
			snprintf(p, sizeof(p), "%s/cpu.cfs_period_us", dir);
			rc = read_ll(p, period, NULL);
			snprintf(p, sizeof(p), "%s/cpu.cfs_quota_us", dir);
		}
	}
	if (rc < 0)
		return rc;
	snprintf(file, flen, "%s", p);
	return *quota > 0 && *period > 0 ? 1 : 0;
}

int il_cpu_bandwidth_read(const char *cgroup_path, const char *mountinfo_path,
			  struct il_cpu_bandwidth *out, char *why, size_t len)
{
	struct hier v1 = {0}, v2 = {0}, *h;
	char g1[PATH_MAX], g2[PATH_MAX], dir[PATH_MAX];
	const char *group, *rel;
	size_t rootlen, top;
	int rc;

	*out = (struct il_cpu_bandwidth){0};
	if ((rc = find_mounts(mountinfo_path, &v1, &v2)) < 0) {
		snprintf(why, len, "%s: %s", mountinfo_path, strerror(-rc));
		return rc;
	}
	if ((rc = find_groups(cgroup_path, g1, sizeof(g1), g2, sizeof(g2))) < 0) {
		snprintf(why, len, "%s: %s", cgroup_path, strerror(-rc));
		return rc;
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
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s", h->mountpoint,
			     strcmp(rel, "/") == 0 ? "" : rel) >= sizeof(dir)) {
		snprintf(why, len, "the group's path is too long");
		return -ENAMETOOLONG;
	}
	top = strlen(h->mountpoint);
	for (;;) {
		long long q = 0, p = 0;
		char file[PATH_MAX + 32] = "";

		rc = group_limit(dir, h == &v2, &q, &p, file, sizeof(file));
		if (rc < 0) {
			snprintf(why, len, "%s: %s", dir, strerror(-rc));
			return rc;
		}
		if (rc > 0 && (out->cpus == 0 || (double)q / (double)p < out->cpus)) {
			out->cpus = (double)q / (double)p;
			out->quota_us = q;
			out->period_us = p;
			snprintf(out->file, sizeof(out->file), "%s", file);
		}
		if (strlen(dir) <= top)
			break;
		*strrchr(dir, '/') = '\0';
		if (strlen(dir) < top)
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
