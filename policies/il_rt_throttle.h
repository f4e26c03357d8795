/*
 * Whether RT throttling holds back the run's SCHED_FIFO and SCHED_RR
 * threads, and which knob sets it. Three places can look as if they
 * decide it, and a report that shows two of them side by side
 * (sched_rt_runtime_us -1 beside a root group's cpu.rt_runtime_us 950000)
 * leaves the reader to guess. The kernel's rule:
 *   - sched_rt_runtime_us -1 turns it off everywhere (rt_bandwidth_enabled),
 *     whatever a group's cpu.rt_runtime_us says;
 *   - with RT_GROUP_SCHED the thread's own cpu cgroup's cpu.rt_runtime_us
 *     per cpu.rt_period_us sets it (the kernel refuses a global value
 *     below the root group's, so the two differ only as said above);
 *   - without it, from 6.12 (the fair server) there is no RT throttling:
 *     the fair server reserves CFS time instead; before, the global
 *     sched_rt_runtime_us per sched_rt_period_us sets it.
 */
#ifndef IL_RT_THROTTLE_H
#define IL_RT_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/* The cgroup-v1 cpu group of the calling thread and its RT runtime
 * (cpu.rt_runtime_us): 0 with the group's directory in dir, or -errno
 * (-ENOENT: no cgroup-v1 cpu hierarchy with RT groups). */
int il_rt_group_of_thread(char *dir, size_t len, long long *rt_runtime_us);

struct il_rt_throttle {
	int in_force;	      /* 1 yes, 0 no, -1 unreadable (why says so) */
	long long runtime_us; /* when in force: per period_us, per CPU */
	long long period_us;
	char source[320]; /* the file whose value is in force, or "" */
	char why[640];	  /* one sentence: which rule decided it */
};

/* What the decision reads, each value with its error (0 or -errno). */
struct il_rt_inputs {
	int global_err; /* reading sched_rt_runtime_us and sched_rt_period_us */
	long long global_runtime_us, global_period_us;
	int group_err; /* the thread's v1 cpu group (-ENOENT: none shows one) */
	char group_dir[300];
	long long group_runtime_us, group_period_us;
	int rt_groups;		 /* RT group scheduling built in: 1, 0, -1 unknown */
	char rt_groups_how[400]; /* how that is known, or why not */
	bool fair_server_present;
};

/* The rule above applied to in: a pure function, so each branch is tested. */
void il_rt_throttle_decide(const struct il_rt_inputs *in, struct il_rt_throttle *out);

/* Reads the inputs for the calling thread now (the knobs as they are)
 * and decides. */
void il_rt_throttle_probe(bool fair_server_present, struct il_rt_throttle *out);

/* Adds kernel.rt_throttling {in_force, runtime_us, period_us, source, why}
 * (in_force "unreadable: WHY" when it cannot be known; the numbers null
 * when it is not in force). */
void il_rt_throttle_json(struct cJSON *kernel, bool fair_server_present);

#endif
