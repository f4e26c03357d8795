/*
 * Every report says what it measured (issue 15): the kernel and machine
 * facts of policies/il_sysinfo, in `check --json` and in a run's JSON.
 * Each key must exist and hold a value, or a string saying why there is
 * none ("unreadable: ...", "absent: ..."); never an empty or made-up
 * value. The values themselves depend on the machine, so the test checks
 * their form and, where this process can read the truth itself, the value.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "il_cpu_bandwidth.h"
#include "il_cpustat.h"
#include "il_file.h"
#include "il_sysinfo.h"
#include "il_test.h"
#include "il_test_proc.h"

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A string that explains a missing value, with the explanation. */
static bool is_reason(const char *s)
{
	return (starts(s, "unreadable: ") && strlen(s) > 12) ||
	       (starts(s, "absent: ") && strlen(s) > 8) || (starts(s, "none: ") && strlen(s) > 6);
}

/* key of o exists; a string is a reason or one of the allowed values
 * (NULL: any non-empty value); numbers and booleans are values. */
static void check_leaf(const cJSON *o, const char *path, const char *key,
		       const char *const *allowed)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		fail_msg("%s.%s is missing", path, key);
	if (cJSON_IsNumber(v) || cJSON_IsBool(v))
		return;
	if (!cJSON_IsString(v) || !v->valuestring[0])
		fail_msg("%s.%s is neither a value nor a reason", path, key);
	if (is_reason(v->valuestring))
		return;
	if (starts(v->valuestring, "unreadable") || starts(v->valuestring, "absent"))
		fail_msg("%s.%s: '%s' gives no reason", path, key, v->valuestring);
	for (size_t i = 0; allowed && allowed[i]; i++)
		if (strcmp(v->valuestring, allowed[i]) == 0)
			return;
	if (allowed)
		fail_msg("%s.%s: '%s' is not an allowed value", path, key, v->valuestring);
}

/* [{cpu, runtime_ns, period_ns}] or a reason. */
static void check_per_cpu(const cJSON *k, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, key), *c;

	if (cJSON_IsString(v) && is_reason(v->valuestring))
		return;
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
		fail_msg("kernel.%s is neither per-CPU values nor a reason", key);
	cJSON_ArrayForEach (c, v) {
		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(c, "cpu")));
		assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "runtime_ns")) >= 0);
		assert_true(cJSON_GetNumberValue(cJSON_GetObjectItem(c, "period_ns")) > 0);
	}
}

static void check_kernel(const cJSON *k)
{
	static const char *const models[] = {"none", "voluntary", "full", "lazy", "rt", NULL};
	static const char *const yn[] = {"y", "n", NULL};
	const cJSON *o;
	char why[160];

	assert_non_null(k);
	o = cJSON_GetObjectItemCaseSensitive(k, "preempt");
	check_leaf(o, "kernel.preempt", "model", models);
	check_leaf(o, "kernel.preempt", "source", NULL);
	check_leaf(k, "kernel", "sched_features", NULL);
	check_per_cpu(k, "fair_server_per_cpu");
	check_per_cpu(k, "ext_server_per_cpu");
	o = cJSON_GetObjectItemCaseSensitive(k, "rt_group_sched");
	check_leaf(o, "kernel.rt_group_sched", "config", yn);
	check_leaf(o, "kernel.rt_group_sched", "root_rt_runtime_us", NULL);
	/* Which of the two holds RT threads back, with its numbers when one
	 * does (test_rt_throttle checks the rule). */
	o = cJSON_GetObjectItemCaseSensitive(k, "rt_throttling");
	check_leaf(o, "kernel.rt_throttling", "in_force", NULL);
	check_leaf(o, "kernel.rt_throttling", "why", NULL);
	if (cJSON_IsTrue(cJSON_GetObjectItem(o, "in_force"))) {
		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(o, "runtime_us")));
		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(o, "period_us")));
		assert_true(cJSON_IsString(cJSON_GetObjectItem(o, "source")));
	} else {
		assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "runtime_us")));
	}
	o = cJSON_GetObjectItemCaseSensitive(k, "uclamp");
	check_leaf(o, "kernel.uclamp", "supported", NULL);
	check_leaf(o, "kernel.uclamp", "why", NULL);
	/* The same answer sched_setattr gives this process. */
	if (il_sysinfo_uclamp(why, sizeof(why)) >= 0) {
		assert_true(cJSON_IsBool(cJSON_GetObjectItem(o, "supported")));
		assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(o, "supported")),
				 il_sysinfo_uclamp(NULL, 0) == 1);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "why")), why);
	}
	o = cJSON_GetObjectItemCaseSensitive(k, "sched_ext");
	check_leaf(o, "kernel.sched_ext", "state", NULL);
	check_leaf(o, "kernel.sched_ext", "scheduler", NULL);
	/* The ext server is sched_ext's: a kernel without sched_ext has none,
	 * for the same reason, and its absence is never guessed from the
	 * version (it said "kernel older than 7.0" on 6.18). */
	{
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(o, "state"));
		const char *es = cJSON_GetStringValue(cJSON_GetObjectItem(k, "ext_server_per_cpu"));

		if (st && strstr(st, "without CONFIG_SCHED_CLASS_EXT"))
			assert_true(es && !strcmp(es, st));
		if (es && !strncmp(es, "absent: kernel older than", 25))
			assert_false(il_sysinfo_kernel_at_least(6, 12));
	}
	check_leaf(k, "kernel", "config", NULL);
	/* Where debugfs cannot be read, the preemption model says how it was
	 * found instead (command line, config, uname). */
	if (access("/sys/kernel/debug/sched/preempt", R_OK) != 0)
		assert_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
				       cJSON_GetObjectItem(k, "preempt"), "source")),
				   "/sched/preempt: "));
}

static void check_system(const cJSON *s, bool run)
{
	const cJSON *h, *st;
	struct il_cpustat *now = NULL;

	assert_non_null(s);
	check_leaf(s, "system", "cpu_model", NULL);
	h = cJSON_GetObjectItemCaseSensitive(s, "hypervisor");
	if (!(cJSON_IsString(h) && is_reason(h->valuestring))) {
		check_leaf(h, "system.hypervisor", "present", NULL);
		check_leaf(h, "system.hypervisor", "vendor", NULL);
		/* Where the vendor was read, and the kernel's own detection. */
		check_leaf(h, "system.hypervisor", "vendor_from", NULL);
		check_leaf(h, "system.hypervisor", "kernel", NULL);
	}
	check_leaf(s, "system", run ? "steal_pct" : "steal_since_boot_pct", NULL);
	st = cJSON_GetObjectItem(s, run ? "steal_pct" : "steal_since_boot_pct");
	if (cJSON_IsNumber(st))
		assert_true(st->valuedouble >= 0 && st->valuedouble <= 100);
	/*
	 * The kernel's own account: on a guest whose /proc/stat has never
	 * shown steal on any CPU (a hypervisor that tells none: bhyve, KVM
	 * without steal time), a number would claim that nothing was stolen.
	 */
	assert_int_equal(il_cpustat_read(&now), 0);
	if (cJSON_IsTrue(cJSON_GetObjectItem(h, "present")) && !il_cpustat_steal_seen(now)) {
		assert_true(cJSON_IsString(st));
		assert_non_null(strstr(st->valuestring, "unreadable: 0 on every CPU since boot"));
	} else if (cJSON_IsFalse(cJSON_GetObjectItem(h, "present")) || il_cpustat_steal_seen(now)) {
		assert_true(cJSON_IsNumber(st));
	}
	il_cpustat_free(now);
}

static void check_header(const cJSON *root)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(root, "tool_version"));

	assert_non_null(v);
	/* "0.1.0 (git 6a57e1f)" or "0.1.0 (git unreadable: ...)". */
	assert_non_null(strstr(v, " (git "));
}

static void test_sysinfo_facts(void **state)
{
	cJSON *k = cJSON_CreateObject(), *s = cJSON_CreateObject();

	il_sysinfo_kernel_facts(k);
	il_sysinfo_system_facts(s);
	check_kernel(k);
	check_leaf(s, "system", "cpu_model", NULL);
	cJSON_Delete(k);
	cJSON_Delete(s);
}

/* Writes text to dir/name, making the directories on the way. */
static void put(const char *dir, const char *name, const char *text)
{
	char p[600], cmd[700];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * The CPU bandwidth on the run's group: the tightest of the group and its
 * ancestors, v1 (quota over period) or v2 (cpu.max), a container's mount
 * of a subtree, and what cannot be read said so. Fakes of /proc/self's
 * two files and of the hierarchies, in a temporary directory.
 */
static void test_sysinfo_cpu_bandwidth(void **state)
{
	char d[] = "/tmp/il-bandwidth-XXXXXX", cg[300], mi[300], text[1200], why[256];
	struct il_cpu_bandwidth b;
	cJSON *sys = cJSON_CreateObject();

	assert_non_null(mkdtemp(d));
	snprintf(cg, sizeof(cg), "%s/cgroup", d);
	snprintf(mi, sizeof(mi), "%s/mountinfo", d);

	/* v1, hybrid: the parent holds 0.5 CPU, the group 0.2 (binding). */
	put(d, "cgroup", "4:memory:/x\n3:cpu,cpuacct:/run/job\n0::/other\n");
	snprintf(text, sizeof(text),
		 "30 25 0:26 / %s/v1\\040cpu rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
		 "31 25 0:27 / %s/v2 rw - cgroup2 cgroup2 rw\n",
		 d, d);
	put(d, "mountinfo", text);
	put(d, "v1 cpu/cpu.cfs_quota_us", "-1\n");
	put(d, "v1 cpu/cpu.cfs_period_us", "100000\n");
	put(d, "v1 cpu/run/cpu.cfs_quota_us", "50000\n");
	put(d, "v1 cpu/run/cpu.cfs_period_us", "100000\n");
	put(d, "v1 cpu/run/job/cpu.cfs_quota_us", "20000\n");
	put(d, "v1 cpu/run/job/cpu.cfs_period_us", "100000\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), 0);
	assert_float_equal(b.cpus, 0.2, 1e-12);
	assert_int_equal(b.quota_us, 20000);
	assert_non_null(strstr(b.file, "v1 cpu/run/job/cpu.cfs_quota_us"));
	/* The parent binds when it is the tighter one. */
	put(d, "v1 cpu/run/cpu.cfs_quota_us", "10000\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), 0);
	assert_float_equal(b.cpus, 0.1, 1e-12);
	assert_non_null(strstr(b.file, "v1 cpu/run/cpu.cfs_quota_us"));
	/* No limit anywhere: 0. */
	put(d, "v1 cpu/run/cpu.cfs_quota_us", "-1\n");
	put(d, "v1 cpu/run/job/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), 0);
	assert_float_equal(b.cpus, 0, 0);
	/* A file that cannot be read is said, not taken as unlimited. */
	snprintf(text, sizeof(text), "%s/v1 cpu/run/cpu.cfs_period_us", d);
	assert_int_equal(unlink(text), 0);
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "v1 cpu/run"));

	/* v2 only, a container's mount of its own subtree; 1.5 CPUs. */
	put(d, "cgroup", "0::/pod/ctr\n");
	snprintf(text, sizeof(text), "31 25 0:27 /pod %s/v2c rw - cgroup2 cgroup2 rw\n", d);
	put(d, "mountinfo", text);
	put(d, "v2c/ctr/cpu.max", "150000 100000\n");
	put(d, "v2c/cpu.max", "max 100000\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), 0);
	assert_float_equal(b.cpus, 1.5, 1e-12);
	assert_int_equal(b.period_us, 100000);
	/* A group outside the mounted subtree cannot be read. */
	put(d, "cgroup", "0::/elsewhere\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "outside"));
	/* No cpu hierarchy at all. */
	put(d, "mountinfo", "22 1 0:5 / /proc rw - proc proc rw\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no cgroup hierarchy with the cpu controller is mounted");

	/* This machine's own: a limit, "unlimited", or why it is unreadable. */
	il_cpu_bandwidth_json(sys);
	{
		const cJSON *v = cJSON_GetObjectItem(sys, "cpu_bandwidth");

		assert_true(cJSON_IsObject(v) ||
			    (cJSON_IsString(v) && (!strcmp(v->valuestring, "unlimited") ||
						   !strncmp(v->valuestring, "unreadable: ", 12))));
	}
	cJSON_Delete(sys);
	assert_int_equal(il_test_tmpdir_remove(d), 0);
}

/*
 * What the fuzz target (tests/fuzz/regress/cpu_bandwidth) showed the old
 * reader got wrong: a mountinfo line past 4 KiB (a container's deep cgroup
 * subtree) was split by fgets and its rest read as a mount of its own, and
 * strtoll's clamped or partial numbers were taken as limits. Each is now
 * read whole, or said to be unreadable with the reason.
 */
static void test_sysinfo_cpu_bandwidth_hostile(void **state)
{
	char d[] = "/tmp/il-bandwidth-XXXXXX", cg[300], mi[300], root[4096], why[512], part[211];
	static char text[9000];
	struct il_cpu_bandwidth b;
	size_t n = 0;

	assert_non_null(mkdtemp(d));
	snprintf(cg, sizeof(cg), "%s/cgroup", d);
	snprintf(mi, sizeof(mi), "%s/mountinfo", d);
	/* The pod's subtree: 4013 bytes, in 19 directories of 210. */
	memset(part, 'x', sizeof(part) - 1);
	part[sizeof(part) - 1] = '\0';
	n = (size_t)snprintf(root, sizeof(root), "/pod");
	for (int i = 0; i < 19; i++)
		n += (size_t)snprintf(root + n, sizeof(root) - n, "/%s", part);
	snprintf(text, sizeof(text), "0::%s/ctr\n", root);
	put(d, "cgroup", text);
	snprintf(text, sizeof(text),
		 "31 25 0:27 %s %s/v2 rw,nosuid shared:9 master:2 - cgroup2 cgroup2 rw\n", root, d);
	assert_true(strlen(text) > 4096);
	put(d, "mountinfo", text);
	put(d, "v2/ctr/cpu.max", "150000 100000\n");
	put(d, "v2/cpu.max", "max 100000\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), 0);
	assert_float_equal(b.cpus, 1.5, 1e-12);
	assert_non_null(strstr(b.file, "/v2/ctr/cpu.max"));

	/* A quota past 2^63 is not 2^63-1 (92 trillion CPUs): unreadable. */
	put(d, "cgroup", "0::/ctr\n");
	snprintf(text, sizeof(text), "31 25 0:27 / %s/v2 rw - cgroup2 cgroup2 rw\n", d);
	put(d, "mountinfo", text);
	put(d, "v2/ctr/cpu.max", "99999999999999999999 100000\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "/v2/ctr/cpu.max: a number out of range"));
	/* Nor is "150000abc" 150000, or "abc" 0 (unlimited). */
	put(d, "v2/ctr/cpu.max", "150000abc 100000\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a quota (and period) on one line"));
	put(d, "v2/ctr/cpu.max", "abc\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -EINVAL);
	/* A period of 0 would divide by it. */
	put(d, "v2/ctr/cpu.max", "150000 0\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -ERANGE);
	/* No newline at the end is still the value. */
	put(d, "v2/ctr/cpu.max", "50000 100000");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), 0);
	assert_float_equal(b.cpus, 0.5, 1e-12);
	/* A group that climbs out of the hierarchy is not followed. */
	put(d, "cgroup", "0::/../../etc\n");
	assert_int_equal(il_cpu_bandwidth_read(cg, mi, &b, why, sizeof(why)), -EINVAL);
	assert_int_equal(il_test_tmpdir_remove(d), 0);
}

static void test_sysinfo_preempt_parse(void **state)
{
	char m[32];

	assert_int_equal(il_sysinfo_preempt_parse("none (voluntary) full lazy", m, sizeof(m)), 0);
	assert_string_equal(m, "voluntary");
	assert_int_equal(il_sysinfo_preempt_parse("(full)", m, sizeof(m)), 0);
	assert_string_equal(m, "full");
	assert_int_equal(il_sysinfo_preempt_parse("none voluntary full", m, sizeof(m)), -EINVAL);
	assert_int_equal(il_sysinfo_preempt_parse("none () full", m, sizeof(m)), -EINVAL);
}

/* The kernel config reader: /boot/config-RELEASE or /proc/config.gz. */
static void test_sysinfo_kconfig(void **state)
{
	char path[300], v[64];

	IL_TEST_NEED(il_sysinfo_kconfig_source(path, sizeof(path)) == 0,
		     "no /boot/config-RELEASE and no /proc/config.gz");
	/* Every x86/arm kernel config has CONFIG_SMP or says it is not set. */
	assert_int_equal(il_sysinfo_kconfig("CONFIG_SMP", v, sizeof(v)), 0);
	assert_true(strcmp(v, "y") == 0 || strcmp(v, "n") == 0);
	assert_int_equal(il_sysinfo_kconfig("CONFIG_NO_SUCH_OPTION_EVER", v, sizeof(v)), -ENOENT);
}

/*
 * What the fuzz target (tests/fuzz/regress/sysinfo) showed the old readers
 * got wrong: a value longer than the caller's buffer was read as its first
 * bytes (31 zeros and a 1 as 0), a NUL ended a value early ("1", NUL,
 * "00" as 1), the rest of a config line past 512 bytes (a long
 * CONFIG_CMDLINE) was read as a line that sets any option, and the rest
 * of a /proc/self/mounts line past 512 bytes as a cgroup cpu mount.
 */
static void test_sysinfo_long_lines(void **state)
{
	char d[] = "/tmp/il-sysinfo-XXXXXX", path[300], v[32], dir[256];
	static char text[2048];
	size_t pos = 0, n;
	int64_t i64;

	/* A value cut short is no value; one that fits exactly still is. */
	assert_int_equal(
	    il_sysinfo_value_parse("0000000000000000000000000000000001\n", 35, v, sizeof(v)),
	    -EOVERFLOW);
	assert_int_equal(il_sysinfo_value_parse("1\00000\n", 5, v, sizeof(v)), -EINVAL);
	assert_int_equal(il_sysinfo_value_parse("950000\n", 7, v, sizeof(v)), 0);
	assert_string_equal(v, "950000");
	assert_non_null(mkdtemp(d));
	snprintf(path, sizeof(path), "%s/value", d);
	put(d, "value", "0000000000000000000000000000000001\n");
	assert_int_equal(il_sysinfo_read_i64(path, &i64), -EOVERFLOW);
	put(d, "value", "0000000000000000000000000000001\n"); /* 31 bytes and a newline */
	assert_int_equal(il_sysinfo_read_i64(path, &i64), 0);
	assert_int_equal(i64, 1);
	put(d, "value", "0000000000000000000000000000001"); /* and without */
	assert_int_equal(il_sysinfo_read_value(path, v, sizeof(v)), 0);
	assert_int_equal(il_test_tmpdir_remove(d), 0);

	/* CONFIG_PREEMPT is not set, whatever a long CONFIG_CMDLINE holds. */
	n = (size_t)snprintf(text, sizeof(text),
			     "CONFIG_CMDLINE=\"%0495dCONFIG_PREEMPT=y\"\n"
			     "# CONFIG_PREEMPT is not set\n",
			     0);
	assert_int_equal(il_sysinfo_kconfig_parse(text, n, "CONFIG_PREEMPT", v, sizeof(v)), 0);
	assert_string_equal(v, "n");
	/* A value too long for the buffer is not its first bytes. */
	assert_int_equal(il_sysinfo_kconfig_parse(text, n, "CONFIG_CMDLINE", v, sizeof(v)),
			 -EOVERFLOW);

	/* The rest of a long tmpfs line is no cgroup cpu mount at /fake. */
	n = (size_t)snprintf(text, sizeof(text),
			     "tmpfs /%0504da /fake cgroup rw,cpu 0 0\n"
			     "cgroup /sys/fs/cgroup/cpu\\040x cgroup rw,cpu,cpuacct 0 0\n",
			     0);
	assert_int_equal(il_sysinfo_cpu_mount_next(text, n, &pos, dir, sizeof(dir)), 1);
	assert_string_equal(dir, "/sys/fs/cgroup/cpu x");
	assert_int_equal(il_sysinfo_cpu_mount_next(text, n, &pos, dir, sizeof(dir)), 0);
}

/* In the command's own mount namespace, /dev/null over every kernel
 * config there is: present, readable, and no config. */
static void configs_null(void *ctx)
{
	struct utsname u;
	char boot[300];

	(void)ctx;
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		_exit(125);
	if (uname(&u) == 0) {
		snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
		if (access(boot, F_OK) == 0 && mount("/dev/null", boot, NULL, MS_BIND, NULL) != 0)
			_exit(125);
	}
	if (access("/proc/config.gz", F_OK) == 0 &&
	    mount("/dev/null", "/proc/config.gz", NULL, MS_BIND, NULL) != 0)
		_exit(125);
}

/*
 * A kernel config that is there and empty (/dev/null bound over it) is
 * unreadable, not a config that sets nothing: kernel.rt_group_sched.config
 * read "n" and sched_ext's state "absent: kernel built without
 * CONFIG_SCHED_CLASS_EXT", both guessed.
 */
static void test_sysinfo_kconfig_empty_unreadable(void **state)
{
	char inputlat[PATH_MAX];
	char *argv[] = {inputlat, "check", "--json", NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	const char *want = "unreadable: /proc/config.gz: no CONFIG_ line (empty, or not a kernel "
			   "config)";
	const char *cfg, *ext;
	char why[400];
	cJSON *root;

	(void)state;
	assert_non_null(res);
	if (geteuid() != 0) {
		free(res);
		IL_TEST_SKIP("needs root to bind /dev/null over the kernel config");
		return;
	}
	snprintf(inputlat, sizeof(inputlat), "%s", il_test_build_path("inputlat"));
	assert_int_equal(il_test_run_with(argv, 60000, configs_null, NULL, res), 0);
	if (res->exit_code == 125) {
		free(res);
		IL_TEST_SKIP("no private mount namespace to bind /dev/null in");
		return;
	}
	assert_int_equal(res->exit_code, 0);
	root = cJSON_Parse(res->out);
	assert_non_null(root);
	cfg = cJSON_GetStringValue(il_json_get(root, "kernel.rt_group_sched.config"));
	ext = cJSON_GetStringValue(il_json_get(root, "kernel.sched_ext.state"));
	if (access("/proc/config.gz", F_OK) == 0) {
		struct utsname u;
		char boot[300];

		assert_true(uname(&u) == 0);
		snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
		if (access(boot, F_OK) == 0)
			snprintf(why, sizeof(why),
				 "unreadable: %s: no CONFIG_ line (empty, or not a kernel config)",
				 boot);
		else
			snprintf(why, sizeof(why), "%s", want);
		assert_string_equal(cfg, why);
		assert_string_equal(cJSON_GetStringValue(il_json_get(root, "kernel.config")), why);
	} else {
		assert_non_null(cfg);
		assert_true(strncmp(cfg, "unreadable: ", 12) == 0);
	}
	if (ext && strstr(ext, "kernel built without"))
		fail_msg("sched_ext.state guessed from an empty config: %s", ext);
	cJSON_Delete(root);
	free(res);
}

static cJSON *run_json(char *const argv[], const char *what)
{
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root;

	assert_non_null(res);
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	if (res->exit_code != 0)
		fail_msg("%s: exit %d: %s", what, res->exit_code, res->err);
	root = cJSON_Parse(res->out);
	free(res);
	return root;
}

/*
 * Where debugfs does not show the fair server, whether the kernel has one
 * comes from its own types (BTF), and why says so; only without BTF from
 * the version. Where /sys/kernel/btf/vmlinux exists, the kernel's version
 * must agree with what BTF said (6.12 added struct rq.fair_server).
 * The BTF is read as a run reads it: on the prefetch thread (started
 * twice, joined twice: both are no-ops when repeated), the probe waiting
 * for it.
 */
static void test_sysinfo_fair_server_source(void **state)
{
	struct il_fair_server fs;
	struct stat st;

	(void)state;
	il_sysinfo_prefetch();
	il_sysinfo_prefetch();
	assert_int_equal(il_fair_server_probe(&fs), 0);
	il_sysinfo_prefetch_join();
	il_sysinfo_prefetch_join();
	print_message("fair server: present %d (%s)\n", fs.present, fs.why);
	assert_true(fs.why[0]);
	if (fs.readable)
		return; /* read from debugfs itself */
	if (stat(IL_SYSINFO_FAIR_SERVER, &st) == 0) {
		/* debugfs mounted (Debian mounts it) and locked: its directory
		 * is there to see, its values refused, and the why says so. */
		assert_true(fs.present);
		assert_non_null(strstr(fs.why, IL_SYSINFO_FAIR_SERVER "/cpu0: "));
		return;
	}
	if (stat(IL_SYSINFO_VMLINUX_BTF, &st) == 0) {
		assert_non_null(strstr(fs.why, "in the kernel's BTF"));
		assert_int_equal(fs.present, il_sysinfo_kernel_at_least(6, 12));
	} else {
		assert_non_null(strstr(fs.why, "no BTF to read"));
	}
}

/*
 * Where debugfs is not mounted, the fair server's why says whether the
 * kernel is locked down, as its own log says (a locked-down kernel
 * refuses debugfs reads mounted or not: "not mounted" alone sent readers
 * to mount it in vain). Checked both ways against the log read here.
 */
static void test_sysinfo_lockdown_said(void **state)
{
	struct il_fair_server fs;
	static char log[1 << 21];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	bool locked;

	(void)state;
	IL_TEST_NEED(n >= 0, "the kernel log is unreadable here: %s", strerror(errno));
	log[n] = '\0';
	locked = strstr(log, "Kernel is locked down from ") != NULL;
	assert_int_equal(il_fair_server_probe(&fs), 0);
	IL_TEST_NEED(strstr(fs.why, "debugfs not mounted"),
		     "debugfs is mounted or the fair server readable here: %s", fs.why);
	print_message("kernel log: %s; fair server: %s\n", locked ? "locked down" : "not locked",
		      fs.why);
	assert_int_equal(strstr(fs.why, "the kernel is locked down (from ") != NULL, locked);
}

static void test_sysinfo_check_json(void **state)
{
	char inputlat[PATH_MAX];
	char *argv[] = {inputlat, "check", "--json", NULL};
	cJSON *root;

	snprintf(inputlat, sizeof(inputlat), "%s", il_test_build_path("inputlat"));
	root = run_json(argv, "check --json");
	assert_non_null(root);
	check_header(root);
	check_kernel(cJSON_GetObjectItem(root, "kernel"));
	check_system(cJSON_GetObjectItem(root, "system"), false);
	cJSON_Delete(root);
}

/* A short cfs run (no root needed): the report carries the facts, steal
 * during the run and the seed it used. */
static void test_sysinfo_run_json(void **state)
{
	char inputlat[PATH_MAX], json[256];
	static char text[1 << 20];
	char *argv[] = {inputlat,  "run",    "--events", "5", "--interval-ms", "5", "--seed", "7",
			"--quiet", "--json", json,	 NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	cJSON *root;

	assert_int_equal(il_test_tmpfile_make(json, sizeof(json), "sysinfo"), 0);
	assert_non_null(res);
	snprintf(inputlat, sizeof(inputlat), "%s", il_test_build_path("inputlat"));
	assert_int_equal(il_test_run(argv, 60000, res), 0);
	if (res->exit_code != 0)
		fail_msg("run: exit %d: %s", res->exit_code, res->err);
	free(res);
	assert_true(il_test_read_file(json, text, sizeof(text)) > 0);
	unlink(json);
	root = cJSON_Parse(text);
	assert_non_null(root);
	check_header(root);
	check_kernel(cJSON_GetObjectItem(root, "kernel"));
	check_system(cJSON_GetObjectItem(root, "system"), true);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "seed")), 7);
	cJSON_Delete(root);
	assert_int_equal(il_test_count_project_procs(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sysinfo_facts),
	    cmocka_unit_test(test_sysinfo_cpu_bandwidth),
	    cmocka_unit_test(test_sysinfo_cpu_bandwidth_hostile),
	    cmocka_unit_test(test_sysinfo_preempt_parse),
	    cmocka_unit_test(test_sysinfo_kconfig),
	    cmocka_unit_test(test_sysinfo_long_lines),
	    cmocka_unit_test(test_sysinfo_kconfig_empty_unreadable),
	    cmocka_unit_test(test_sysinfo_lockdown_said),
	    cmocka_unit_test(test_sysinfo_check_json),
	    cmocka_unit_test(test_sysinfo_run_json),
	    cmocka_unit_test(test_sysinfo_fair_server_source),
	};

	if (il_test_filters("test_sysinfo", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
