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
 * is mounted", a file that cannot be read).
 */
int il_cpu_bandwidth_read(const char *cgroup_path, const char *mountinfo_path,
			  struct il_cpu_bandwidth *out, char *why, size_t len);

/*
 * system.cpu_bandwidth: {cpus, quota_us, period_us, file} of the binding
 * limit; "unlimited"; or "unreadable: <why>".
 */
void il_cpu_bandwidth_json(cJSON *sys);

#endif
