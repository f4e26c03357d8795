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

#include "il_rt_throttle.h"
#include "il_sysinfo.h"
#include "il_test.h"

static struct il_rt_inputs base(void)
{
	struct il_rt_inputs in = {
	    .global_runtime_us = 950000,
	    .global_period_us = 1000000,
	    .group_err = -ENOENT,
	    .kconfig_readable = true,
	    .kconfig = "n",
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
	snprintf(in.kconfig, sizeof(in.kconfig), "y");
	decide(&in, -1, 0, "", "built in");
	/* No RT groups from 6.12 (the fair server): no RT throttling at all,
	 * whatever sched_rt_runtime_us says; before it, the global values. */
	in = base();
	in.fair_server_present = true;
	decide(&in, 0, 0, "", "fair server");
	in.kconfig_err = -ENOENT; /* an old config without the option */
	decide(&in, 0, 0, "", "fair server");
	in.kconfig_readable = false;
	decide(&in, -1, 0, "", "none could be read");
	in = base();
	decide(&in, 1, 950000, IL_SYSINFO_RT_RUNTIME, "before the fair server");
	in.global_runtime_us = 1000000;
	decide(&in, 0, 0, IL_SYSINFO_RT_RUNTIME, "no limit");
	in = base();
	in.global_err = -EACCES;
	decide(&in, -1, 0, "", "Permission denied");
}

/* The probe here, against what this process reads itself. */
static void test_rt_throttle_live(void **state)
{
	struct il_rt_throttle t;
	int64_t rt;
	char dir[300];
	long long grp;

	(void)state;
	il_rt_throttle_probe(true, &t);
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
	} else {
		assert_true(t.in_force == 0 || t.in_force == -1);
	}
	assert_true(t.why[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rt_throttle_rule),
	    cmocka_unit_test(test_rt_throttle_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
