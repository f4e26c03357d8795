/*
 * Whether RT throttling held the run's RT threads back (il_rt_throttle):
 * each branch of the kernel's rule from its inputs, and the live probe
 * against the files this process can read itself. Reports said
 * sched_rt_runtime_us -1 beside a root group's 950000 and left the reader
 * to guess which was in force.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "il_cpu_bandwidth.h"
#include "il_rt_throttle.h"
#include "il_sysinfo.h"
#include "il_test.h"

static struct il_rt_inputs base(void)
{
	struct il_rt_inputs in = {
	    .global_runtime_us = 950000,
	    .global_period_us = 1000000,
	    .group_err = -ENOENT,
	    .rt_groups = 0,
	    .rt_groups_how = "CONFIG_RT_GROUP_SCHED=n in /boot/config-x",
	};

	return in;
}

static void decide(const struct il_rt_inputs *in, int in_force, long long runtime,
		   const char *source, const char *why_has)
{
	struct il_rt_throttle t;

	memset(&t, 0x5a, sizeof(t));
	il_rt_throttle_decide(in, &t);
	print_message("in_force %d %lld/%lld %s: %s\n", t.in_force, t.runtime_us, t.period_us,
		      t.source, t.why);
	assert_int_equal(t.in_force, in_force);
	if (in_force == 1)
		assert_int_equal(t.runtime_us, runtime);
	assert_string_equal(t.source, source);
	assert_non_null(strstr(t.why, why_has));
}

static void test_rt_throttle_rule(void **state)
{
	struct il_rt_inputs in;

	(void)state;
	/* -1 is off in every group, whatever the group says. */
	in = base();
	in.global_runtime_us = -1;
	in.group_err = 0;
	snprintf(in.group_dir, sizeof(in.group_dir), "/sys/fs/cgroup/cpu");
	in.group_runtime_us = 950000;
	in.group_period_us = 1000000;
	decide(&in, 0, 0, IL_SYSINFO_RT_RUNTIME, "-1");
	/* With RT groups the run's own group decides (a child group's 0 holds
	 * every RT thread back; a group at runtime = period is no limit). */
	in.global_runtime_us = 950000;
	in.group_runtime_us = 400000;
	decide(&in, 1, 400000, "/sys/fs/cgroup/cpu/cpu.rt_runtime_us", "cgroup");
	in.group_runtime_us = 1000000;
	decide(&in, 0, 0, "/sys/fs/cgroup/cpu/cpu.rt_runtime_us", "no limit");
	/* A group that cannot be read is not guessed at. */
	in.group_err = -EACCES;
	decide(&in, -1, 0, "", "Permission denied");
	/* RT groups built in, no v1 hierarchy to read them from. */
	in = base();
	in.rt_groups = 1;
	decide(&in, -1, 0, "", "built in");
	/* No RT groups from 6.12 (the fair server): no RT throttling at all,
	 * whatever sched_rt_runtime_us says; before it, the global values. */
	in = base();
	in.fair_server_present = true;
	decide(&in, 0, 0, "", "fair server");
	/* Not known (no config, no BTF) is said, not guessed, either way. */
	in.rt_groups = -1;
	decide(&in, -1, 0, "", "cannot be told");
	in.fair_server_present = false;
	decide(&in, -1, 0, "", "cannot be told");
	in = base();
	decide(&in, 1, 950000, IL_SYSINFO_RT_RUNTIME, "before the fair server");
	in.global_runtime_us = 1000000;
	decide(&in, 0, 0, IL_SYSINFO_RT_RUNTIME, "no limit");
	in = base();
	in.global_err = -EACCES;
	decide(&in, -1, 0, "", "Permission denied");
}

/* One v1 cpu mount: mountinfo's line for it, whose root is root. */
static int group_of(const char *root, const char *cgroup, size_t n,
		    struct il_cpu_bandwidth_group *g)
{
	char mi[300], why[200];
	int len =
	    snprintf(mi, sizeof(mi),
		     "31 25 0:28 %s /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n", root);

	return il_cpu_bandwidth_group_parse(mi, (size_t)len, cgroup, n, g, why, sizeof(why));
}

/*
 * The thread's group, which il_rt_group_of_thread finds as the bandwidth
 * limit does (il_cpu_bandwidth_group). Its own reader before read lines
 * of 512 bytes, so after a memory group of 501 bytes "x:cpu:/fake" was the
 * thread's cpu group; and it joined the mount point to the whole group
 * path, so under a mount that shows a container's subtree it named a
 * directory that is not there.
 */
static void test_rt_throttle_group(void **state)
{
	static char text[1024];
	struct il_cpu_bandwidth_group g;
	int n;

	(void)state;
	n = snprintf(text, sizeof(text), "4:memory:/%0501dx:cpu:/fake\n3:cpu,cpuacct:/real\n0::/\n",
		     0);
	assert_int_equal(group_of("/", text, (size_t)n, &g), 0);
	assert_string_equal(g.dir, "/sys/fs/cgroup/cpu/real");
	assert_false(g.v2);
	/* Named twice (a group name with a newline can fake a line), or no path. */
	assert_int_equal(group_of("/", "3:cpu:/a\n5:cpu:/b\n", 18, &g), -EINVAL);
	assert_int_equal(group_of("/", "3:cpu:\n", 7, &g), -EINVAL);
	/* Only v2's line: no v1 cpu group, no RT group. */
	assert_int_equal(group_of("/", "0::/\n", 5, &g), -ENOENT);
	/* No newline at the end, and cpu anywhere in the list. */
	assert_int_equal(group_of("/", "2:cpuacct,cpu:/g", 16, &g), 0);
	assert_string_equal(g.dir, "/sys/fs/cgroup/cpu/g");
	/* A container's mount shows its subtree: the group lies below it. */
	assert_int_equal(group_of("/docker/abc", "3:cpu:/docker/abc/inner\n", 24, &g), 0);
	assert_string_equal(g.dir, "/sys/fs/cgroup/cpu/inner");
}

/*
 * The probe here, against what this process reads itself. The VM runs it
 * too (tests/vm.cmake): there Debian's 6.1 has neither RT groups nor the
 * fair server (the global values in force) and its 6.12 has the fair
 * server without RT groups (none in force), the branches this host's
 * RT groups never reach.
 */
static void test_rt_throttle_live(void **state)
{
	struct il_rt_throttle t;
	struct il_fair_server fs;
	int64_t rt, per;
	char dir[300];
	long long grp;

	(void)state;
	il_fair_server_probe(&fs);
	il_rt_throttle_probe(fs.present, &t);
	print_message("here: in_force %d %lld/%lld %s: %s\n", t.in_force, t.runtime_us, t.period_us,
		      t.source, t.why);
	assert_int_equal(il_sysinfo_rt_runtime_us(&rt), 0);
	if (rt < 0) {
		assert_int_equal(t.in_force, 0);
	} else if (il_rt_group_of_thread(dir, sizeof(dir), &grp) == 0) {
		char file[340];
		int64_t per;

		snprintf(file, sizeof(file), "%s/cpu.rt_period_us", dir);
		assert_int_equal(il_sysinfo_read_i64(file, &per), 0);
		assert_int_equal(t.in_force, grp < per ? 1 : 0);
		if (t.in_force)
			assert_int_equal(t.runtime_us, grp);
		assert_non_null(strstr(t.source, dir));
	} else if (fs.present) {
		/* -1: a config that says RT groups are built in, with no v1
		 * hierarchy to read them from. */
		assert_true(t.in_force == 0 || t.in_force == -1);
	} else {
		assert_int_equal(il_sysinfo_rt_period_us(&per), 0);
		assert_int_equal(t.in_force, rt < per ? 1 : 0);
		if (t.in_force)
			assert_int_equal(t.runtime_us, rt);
	}
	assert_true(t.why[0] != '\0');
	/* The kernel's BTF, what answers where no config reads (the VM),
	 * agrees with the config where one does. */
	{
		char v[64];
		int btf = il_sysinfo_btf_rt_group_sched();

		if (btf >= 0 && il_sysinfo_kconfig("CONFIG_RT_GROUP_SCHED", v, sizeof(v)) == 0) {
			print_message("CONFIG_RT_GROUP_SCHED=%s, BTF says %d\n", v, btf);
			assert_int_equal(btf, strcmp(v, "y") == 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rt_throttle_rule),
	    cmocka_unit_test(test_rt_throttle_group),
	    cmocka_unit_test(test_rt_throttle_live),
	};

	if (il_test_filters("test_rt_throttle", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
