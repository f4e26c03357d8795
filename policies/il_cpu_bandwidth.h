/*
 * The CPU bandwidth limit in force on the run's cgroup: cgroup v2
 * cpu.max, or v1 cpu.cfs_quota_us over cpu.cfs_period_us, on the calling
 * process's group and every ancestor up to its hierarchy's root (the
 * tightest one binds). A run in a group held to 20% of a CPU measures
 * throttling by the group, not by the policy, as much as one confined to
 * one CPU by its affinity does: the report says which.
 */
#ifndef IL_CPU_BANDWIDTH_H
#define IL_CPU_BANDWIDTH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

struct il_cpu_bandwidth {
	/* CPUs' worth of time a period allows (quota / period); 0 when no
	 * group on the way up limits it. */
	double cpus;
	long long quota_us, period_us; /* of the binding group; 0 when unlimited */
	char file[4096 + 32];	       /* the binding group's file ("" when unlimited) */
};

/*
 * Reads the limit from cgroup_path (normally /proc/self/cgroup) and
 * mountinfo_path (/proc/self/mountinfo); the paths are arguments so tests
 * can give fakes. Returns 0 with *out filled (cpus 0: unlimited), or a
 * negative errno with one line in why ("no cgroup with a cpu controller
 * is mounted", a file that cannot be read, a limit file whose number is
 * out of range: -ERANGE).
 */
int il_cpu_bandwidth_read(const char *cgroup_path, const char *mountinfo_path,
			  struct il_cpu_bandwidth *out, char *why, size_t len);

/* The calling thread's group in the hierarchy with the cpu controller:
 * where its limits (and, on v1 with RT groups, its RT runtime) are read. */
struct il_cpu_bandwidth_group {
	bool v2;	/* cpu.max, else cpu.cfs_quota_us over cpu.cfs_period_us */
	char dir[4096]; /* the group's directory */
	size_t top;	/* strlen of the hierarchy's mount point: dir is read, then
			 * each parent down to the mount point */
};

/*
 * The group's directory, from cgroup_path (/proc/self/cgroup, or
 * /proc/thread-self/cgroup for one thread's: on v1 threads may sit in
 * different groups) and mountinfo_path (/proc/self/mountinfo). Returns 0
 * with *out filled, or as il_cpu_bandwidth_group_parse, or -errno of a
 * file, with one line in why.
 */
int il_cpu_bandwidth_group(const char *cgroup_path, const char *mountinfo_path,
			   struct il_cpu_bandwidth_group *out, char *why, size_t len);

/*
 * The group's directory, from the texts of mountinfo (mlen bytes) and of
 * /proc/self/cgroup (clen bytes), neither NUL-terminated: il_cpu_bandwidth_read
 * without the file system, for tests and the fuzzer. Every line is read
 * whole, however long; a mount whose root or mount point is not an
 * absolute path that fits (unescaped, without NUL) is skipped, the next
 * mount of its hierarchy used. Returns 0 with *out filled, or with one line
 * in why: -EINVAL (a NUL byte; a group named twice, not absolute, or with
 * "." or ".."), -ENOENT (no cpu hierarchy, or the group lies outside the
 * mounted subtree), -ENAMETOOLONG.
 */
int il_cpu_bandwidth_group_parse(const char *mountinfo, size_t mlen, const char *cgroup,
				 size_t clen, struct il_cpu_bandwidth_group *out, char *why,
				 size_t len);

/*
 * One limit file's text (n bytes): with pair, cpu.max's "QUOTA PERIOD";
 * without, cpu.cfs_quota_us or cpu.cfs_period_us's one number. A quota of
 * "max" or -1 is -1 (no limit). One line, its newline optional. Returns 0
 * with *quota (and *period with pair) set; -EINVAL when the text is not
 * that; -ERANGE when a number is out of range (a quota below -1, a period
 * below 1, either past 2^63-1): such a file is unreadable, not a limit,
 * since strtoll's clamped or partial value would be a made-up one.
 */
int il_cpu_bandwidth_value_parse(const char *text, size_t n, bool pair, long long *quota,
				 long long *period);

/*
 * system.cpu_bandwidth: {cpus, quota_us, period_us, file} of the binding
 * limit; "unlimited"; or "unreadable: <why>".
 */
void il_cpu_bandwidth_json(cJSON *sys);

#endif
