/* Whether RT throttling holds back the run's RT threads (il_rt_throttle.h). */
#include "il_rt_throttle.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_cpu_bandwidth.h"
#include "il_sysinfo.h"

int il_rt_group_of_thread(char *dir, size_t len, long long *rt_runtime_us)
{
	struct il_cpu_bandwidth_group g;
	char why[200], file[sizeof(g.dir) + 32];
	int64_t v;
	int r;

	/* The group as the bandwidth limit finds it: whole lines, and a mount
	 * that shows a subtree (a container's) taken into account. */
	r = il_cpu_bandwidth_group("/proc/thread-self/cgroup", "/proc/self/mountinfo", &g, why,
				   sizeof(why));
	if (r < 0)
		return r;
	if (g.v2)
		return -ENOENT; /* RT groups have files only in the v1 hierarchy */
	if (strlen(g.dir) >= len)
		return -ENAMETOOLONG;
	snprintf(file, sizeof(file), "%s/cpu.rt_runtime_us", g.dir);
	r = il_sysinfo_read_i64(file, &v);
	if (r < 0)
		return r;
	snprintf(dir, len, "%s", g.dir);
	*rt_runtime_us = (long long)v;
	return 0;
}

/* In force with runtime of period from source; runtime >= period is none. */
static void set_limit(struct il_rt_throttle *t, long long runtime, long long period,
		      const char *source, const char *rule)
{
	snprintf(t->source, sizeof(t->source), "%s", source);
	if (runtime >= period) {
		t->in_force = 0;
		snprintf(t->why, sizeof(t->why),
			 "%s, and allows %lld us of every %lld us: no limit", rule, runtime,
			 period);
		return;
	}
	t->in_force = 1;
	t->runtime_us = runtime;
	t->period_us = period;
	snprintf(t->why, sizeof(t->why), "%s: RT threads may run %lld us of every %lld us per CPU",
		 rule, runtime, period);
}

void il_rt_throttle_decide(const struct il_rt_inputs *in, struct il_rt_throttle *out)
{
	struct il_rt_throttle t = {.in_force = -1, .runtime_us = -1, .period_us = -1};

	if (in->global_err < 0) {
		snprintf(t.why, sizeof(t.why), "%s or %s: %s", IL_SYSINFO_RT_RUNTIME,
			 IL_SYSINFO_RT_PERIOD, strerror(-in->global_err));
	} else if (in->global_runtime_us < 0) {
		t.in_force = 0;
		snprintf(t.source, sizeof(t.source), "%s", IL_SYSINFO_RT_RUNTIME);
		snprintf(t.why, sizeof(t.why),
			 "sched_rt_runtime_us is -1, which turns RT throttling off in every "
			 "group, whatever a group's cpu.rt_runtime_us says");
	} else if (in->group_err == 0) {
		/* The group's file is there only with RT_GROUP_SCHED: its own proof. */
		char file[340], rule[400];

		snprintf(file, sizeof(file), "%s/cpu.rt_runtime_us", in->group_dir);
		snprintf(rule, sizeof(rule), "RT group scheduling: the run's cpu cgroup %s sets it",
			 in->group_dir);
		set_limit(&t, in->group_runtime_us, in->group_period_us, file, rule);
	} else if (in->group_err != -ENOENT) {
		snprintf(t.why, sizeof(t.why), "the run's cpu cgroup %s: %s",
			 in->group_dir[0] ? in->group_dir : "(not found)",
			 strerror(-in->group_err));
	} else if (in->rt_groups == 1) {
		snprintf(t.why, sizeof(t.why),
			 "RT group scheduling is built in (%s), and no cgroup-v1 cpu hierarchy "
			 "shows the run's group's cpu.rt_runtime_us",
			 in->rt_groups_how);
	} else if (in->rt_groups == 0 && in->fair_server_present) {
		/* 6.12 removed the global RT bandwidth control outside RT groups. */
		t.in_force = 0;
		snprintf(t.why, sizeof(t.why),
			 "no RT group scheduling (%s) on a kernel with the fair server (6.12+): "
			 "there is no RT throttling; the fair server reserves CPU time for CFS "
			 "instead",
			 in->rt_groups_how);
	} else if (in->rt_groups < 0) {
		snprintf(t.why, sizeof(t.why),
			 "whether RT group scheduling is built in cannot be told (%s), and no "
			 "cgroup-v1 cpu hierarchy shows an RT group",
			 in->rt_groups_how);
	} else {
		char rule[520];

		snprintf(rule, sizeof(rule),
			 "sched_rt_runtime_us per sched_rt_period_us (no RT group scheduling, %s, "
			 "on a kernel before the fair server)",
			 in->rt_groups_how);
		set_limit(&t, in->global_runtime_us, in->global_period_us, IL_SYSINFO_RT_RUNTIME,
			  rule);
	}
	*out = t;
}

/* Whether RT group scheduling is built in: the kernel config where one
 * reads, else the kernel's own BTF (the VM's initramfs has no config). */
static void rt_groups_probe(struct il_rt_inputs *in)
{
	char path[300], v[64];
	int r = il_sysinfo_kconfig_source(path, sizeof(path));

	if (r == 0) {
		r = il_sysinfo_kconfig("CONFIG_RT_GROUP_SCHED", v, sizeof(v));
		/* An option the config does not name had its dependencies unmet. */
		if (r == 0 || r == -ENOENT) {
			in->rt_groups = r == 0 && strcmp(v, "y") == 0;
			if (r == 0)
				snprintf(in->rt_groups_how, sizeof(in->rt_groups_how),
					 "CONFIG_RT_GROUP_SCHED=%s in %s", v, path);
			else
				snprintf(in->rt_groups_how, sizeof(in->rt_groups_how),
					 "no CONFIG_RT_GROUP_SCHED in %s", path);
			return;
		}
		in->rt_groups = -1;
		snprintf(in->rt_groups_how, sizeof(in->rt_groups_how), "%s: %s", path,
			 strerror(-r));
		return;
	}
	r = il_sysinfo_btf_rt_group_sched();
	in->rt_groups = r;
	snprintf(in->rt_groups_how, sizeof(in->rt_groups_how), "%s",
		 r > 0	  ? "struct task_group has rt_bandwidth in the kernel's BTF"
		 : r == 0 ? "struct task_group has no rt_bandwidth in the kernel's BTF"
			  : "no kernel config and no BTF to read");
}

void il_rt_throttle_probe(bool fair_server_present, struct il_rt_throttle *out)
{
	struct il_rt_inputs in = {.fair_server_present = fair_server_present};
	int64_t v;

	in.global_err = il_sysinfo_rt_runtime_us(&v);
	in.global_runtime_us = v;
	if (in.global_err == 0) {
		in.global_err = il_sysinfo_rt_period_us(&v);
		in.global_period_us = v;
	}
	in.group_err =
	    il_rt_group_of_thread(in.group_dir, sizeof(in.group_dir), &in.group_runtime_us);
	if (in.group_err == 0) {
		char file[340];

		snprintf(file, sizeof(file), "%s/cpu.rt_period_us", in.group_dir);
		in.group_err = il_sysinfo_read_i64(file, &v);
		in.group_period_us = v;
	}
	rt_groups_probe(&in);
	il_rt_throttle_decide(&in, out);
}

void il_rt_throttle_json(cJSON *kernel, bool fair_server_present)
{
	struct il_rt_throttle t;
	cJSON *o = cJSON_AddObjectToObject(kernel, "rt_throttling");
	char text[660];

	if (!o)
		return;
	il_rt_throttle_probe(fair_server_present, &t);
	if (t.in_force < 0) {
		snprintf(text, sizeof(text), "unreadable: %s", t.why);
		cJSON_AddStringToObject(o, "in_force", text);
	} else {
		cJSON_AddBoolToObject(o, "in_force", t.in_force == 1);
	}
	if (t.in_force == 1) {
		cJSON_AddNumberToObject(o, "runtime_us", (double)t.runtime_us);
		cJSON_AddNumberToObject(o, "period_us", (double)t.period_us);
	} else {
		cJSON_AddNullToObject(o, "runtime_us");
		cJSON_AddNullToObject(o, "period_us");
	}
	if (t.source[0])
		cJSON_AddStringToObject(o, "source", t.source);
	else
		cJSON_AddNullToObject(o, "source");
	cJSON_AddStringToObject(o, "why", t.why);
}
