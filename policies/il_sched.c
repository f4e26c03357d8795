/* sched_setattr/sched_getattr for the calling thread (il_sched_attr.h). */
#include "il_sched.h"
#include "il_parse.h"
#include "il_procfs.h"
#include "il_sched_attr.h"
#include "il_sched_refusal.h"
#include "il_sysinfo.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

void il_cpuset_format(const cpu_set_t *set, char *buf, size_t len)
{
	char all[IL_CPULIST_MAX];
	size_t off = 0;

	if (len == 0)
		return;
	all[0] = '\0';
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, set))
			continue;
		int last = cpu;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		/* IL_CPULIST_MAX holds any set: this never truncates. */
		off += (size_t)(last == cpu ? snprintf(all + off, sizeof(all) - off, "%s%d",
						       off ? "," : "", cpu)
					    : snprintf(all + off, sizeof(all) - off, "%s%d-%d",
						       off ? "," : "", cpu, last));
		cpu = last;
	}
	if (off < len) {
		memcpy(buf, all, off + 1);
		return;
	}
	/* Too long for buf: whole entries, then ",..." so that a shortened
	 * list never reads as the whole set. */
	while (off > 0 && off + 4 >= len) {
		char *comma;

		all[off] = '\0';
		comma = strrchr(all, ',');
		off = comma ? (size_t)(comma - all) : 0;
	}
	all[off] = '\0';
	snprintf(buf, len, "%s%s", all, off ? ",..." : "...");
}

int il_cpuset_parse(const char *s, cpu_set_t *out)
{
	char buf[IL_CPULIST_MAX];
	/* "0,,1" is not "0,1": a CPU left out is a mistake, not a list. */
	if (strlen(s) >= sizeof(buf) || il_parse_list_has_empty(s))
		return -EINVAL;
	strcpy(buf, s);
	cpu_set_t set;
	CPU_ZERO(&set);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t lo, hi;
		char *dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (il_parse_u64(tok, 0, CPU_SETSIZE - 1, &lo))
			return -EINVAL;
		hi = lo;
		if (dash && il_parse_u64(dash + 1, 0, CPU_SETSIZE - 1, &hi))
			return -EINVAL;
		if (hi < lo)
			return -EINVAL;
		for (uint64_t cpu = lo; cpu <= hi; cpu++)
			CPU_SET((int)cpu, &set);
	}
	if (CPU_COUNT(&set) == 0)
		return -EINVAL; /* "cpus = ,": an empty set is no affinity */
	*out = set;
	return 0;
}

int il_sched_read(pid_t tid, struct il_sched_state *out)
{
	struct il_sched_attr attr = {0};
	cpu_set_t set;
	if (il_sys_sched_getattr(tid, &attr) != 0)
		return -errno;
	if (sched_getaffinity(tid, sizeof(set), &set) != 0)
		return -errno;

	struct il_sched_state s = {.sched_class = (int)attr.sched_policy,
				   .reset_on_fork = attr.sched_flags & SCHED_FLAG_RESET_ON_FORK};
	if (il_sched_class_is_rt(s.sched_class)) {
		s.priority = (int)attr.sched_priority;
	} else if (s.sched_class == SCHED_DEADLINE) {
		s.dl_runtime_ns = attr.sched_runtime;
		s.dl_deadline_ns = attr.sched_deadline;
		s.dl_period_ns = attr.sched_period;
	} else {
		/* Since 6.12 the kernel reports the fair slice in force here
		 * (custom or default); older kernels report 0. */
		s.nice = attr.sched_nice;
		s.slice_ns = attr.sched_runtime;
	}
	/* Without uclamp the kernel leaves both fields 0, which would read as
	 * "clamped to nothing"; they count only where uclamp exists. */
	if (il_sysinfo_uclamp(NULL, 0) == 1) {
		s.has_uclamp = true;
		s.util_min = attr.sched_util_min;
		s.util_max = attr.sched_util_max;
	}
	s.set = set;
	il_cpuset_format(&set, s.cpus, sizeof(s.cpus));
	*out = s;
	return 0;
}

bool il_sched_matches(const struct il_role_attrs *want, const struct il_sched_state *got)
{
	if (want->sched_class != got->sched_class)
		return false;
	if (il_sched_class_is_rt(want->sched_class) && want->priority != got->priority)
		return false;
	if (il_sched_class_is_fair(want->sched_class)) {
		if (want->nice != got->nice)
			return false;
		if (want->slice_ns && want->slice_ns != got->slice_ns)
			return false;
	}
	if (want->sched_class == SCHED_DEADLINE && (want->dl_runtime_ns != got->dl_runtime_ns ||
						    want->dl_deadline_ns != got->dl_deadline_ns ||
						    want->dl_period_ns != got->dl_period_ns))
		return false;
	if (want->has_cpus && !CPU_EQUAL(&want->cpus, &got->set))
		return false;
	if (want->has_uclamp_min &&
	    (got->has_uclamp ? got->util_min != il_uclamp_pct_to_util(want->uclamp_min_pct)
			     : !(want->optional & IL_OPT_UCLAMP_MIN)))
		return false;
	if (want->has_uclamp_max &&
	    (got->has_uclamp ? got->util_max != il_uclamp_pct_to_util(want->uclamp_max_pct)
			     : !(want->optional & IL_OPT_UCLAMP_MAX)))
		return false;
	return true;
}

/* "uclamp_min 20%" or "uclamp_min 20% and uclamp_max 100%" for the clamps in bits. */
static void clamps_text(const struct il_role_attrs *a, unsigned bits, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (bits & IL_OPT_UCLAMP_MIN)
		n = snprintf(buf, len, "uclamp_min %u%%", a->uclamp_min_pct);
	if ((bits & IL_OPT_UCLAMP_MAX) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%suclamp_max %u%%", n ? " and " : "",
			 a->uclamp_max_pct);
}

/* Which of a's clamps the caller asked for, as IL_OPT_* bits. */
static unsigned clamps_asked(const struct il_role_attrs *a)
{
	return (a->has_uclamp_min ? IL_OPT_UCLAMP_MIN : 0u) |
	       (a->has_uclamp_max ? IL_OPT_UCLAMP_MAX : 0u);
}

/* One line saying what was refused and what would make it work. */
static void explain(int e, const struct il_role_attrs *a, char *err, size_t errlen)
{
	if (e == EPERM || (e == EBUSY && a->sched_class == SCHED_DEADLINE)) {
		il_sched_refusal_explain(e, a, err, errlen);
	} else if (e == EOPNOTSUPP && clamps_asked(a)) {
		char what[64];

		clamps_text(a, clamps_asked(a), what, sizeof(what));
		snprintf(err, errlen,
			 "%s: kernel built without CONFIG_UCLAMP_TASK "
			 "(sched_setattr: %s)",
			 what, strerror(e));
	} else if (e == EINVAL && a->slice_ns) {
		snprintf(err, errlen,
			 "EEVDF custom slice not supported by this kernel "
			 "(needs Linux 6.12+)");
	} else {
		snprintf(err, errlen, "sched_setattr(%s): %s", il_sched_class_name(a->sched_class),
			 strerror(e));
	}
}

int il_sched_apply_self(const struct il_role_attrs *a, unsigned *dropped, char *err, size_t errlen)
{
	const char *cname = il_sched_class_name(a->sched_class);
	unsigned clamps = clamps_asked(a);

	if (dropped)
		*dropped = 0;
	if (!cname) {
		snprintf(err, errlen, "unknown scheduling class %d", a->sched_class);
		return -EINVAL;
	}
	if (a->sched_class == SCHED_DEADLINE && a->has_cpus) {
		snprintf(err, errlen,
			 "deadline threads cannot set cpus: SCHED_DEADLINE "
			 "needs the affinity of its whole root domain");
		return -EINVAL;
	}
	if (il_sched_class_is_rt(a->sched_class)) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_RTTIME, &rl) != 0 || rl.rlim_max == RLIM_INFINITY) {
			snprintf(err, errlen,
				 "refusing %s without RLIMIT_RTTIME: call "
				 "il_rttime_limit_set() first so a runaway RT thread is killed",
				 cname);
			return -EINVAL;
		}
	}

	/* Clamps where the kernel has no uclamp: optional ones are left out
	 * (and the caller told), a required one is the error. When the probe
	 * itself was refused, sched_setattr's own answer decides below. */
	if (clamps) {
		char why[160];

		if (il_sysinfo_uclamp(why, sizeof(why)) == 0) {
			unsigned required = clamps & ~a->optional;
			char what[64];

			if (required) {
				clamps_text(a, required, what, sizeof(what));
				snprintf(err, errlen,
					 "%s: %s (mark it 'optional' in the policy "
					 "to run without it)",
					 what, why);
				return -EOPNOTSUPP;
			}
			if (dropped)
				*dropped = clamps;
			clamps = 0;
		}
	}

	struct il_sched_attr attr = {
	    .size = sizeof(attr),
	    .sched_policy = (uint32_t)a->sched_class,
	};
	if (il_sched_class_is_rt(a->sched_class)) {
		attr.sched_priority = (uint32_t)a->priority;
		attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	} else if (a->sched_class == SCHED_DEADLINE) {
		attr.sched_runtime = a->dl_runtime_ns;
		attr.sched_deadline = a->dl_deadline_ns;
		attr.sched_period = a->dl_period_ns;
		/* A deadline task may only fork with reset-on-fork set. */
		attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	} else if (il_sched_class_is_fair(a->sched_class)) {
		attr.sched_nice = a->nice;
		/* 0 asks for the default slice, dropping any custom one. */
		attr.sched_runtime = a->slice_ns;
	}
	if (clamps & IL_OPT_UCLAMP_MIN) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
		attr.sched_util_min = il_uclamp_pct_to_util(a->uclamp_min_pct);
	}
	if (clamps & IL_OPT_UCLAMP_MAX) {
		attr.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
		attr.sched_util_max = il_uclamp_pct_to_util(a->uclamp_max_pct);
	}

	/* A deadline thread may not narrow its affinity, so when leaving
	 * deadline the class changes first; otherwise affinity goes first so
	 * the new class never runs on a CPU the role should not use. */
	struct il_sched_state cur;
	bool have_cur = il_sched_read(0, &cur) == 0;
	bool class_first = have_cur && cur.sched_class == SCHED_DEADLINE;
	/* Only a privileged thread may clear reset-on-fork (which fifo, rr and
	 * deadline set): one that RLIMIT_RTPRIO let into fifo could not come
	 * back to a fair class without it (EPERM; seen in the qemu VM). For a
	 * fair class it only resets a negative nice in children. */
	if (have_cur && cur.reset_on_fork)
		attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
	if (class_first && il_sys_sched_setattr(0, &attr) != 0) {
		int e = errno;
		explain(e, a, err, errlen);
		return -e;
	}
	if (a->has_cpus && sched_setaffinity(0, sizeof(a->cpus), &a->cpus) != 0) {
		int e = errno;
		char cpus[64];
		il_cpuset_format(&a->cpus, cpus, sizeof(cpus));
		snprintf(err, errlen, "cpus %s: %s", cpus,
			 e == EINVAL ? "none of these CPUs is online and allowed" : strerror(e));
		return -e;
	}
	if (!class_first && il_sys_sched_setattr(0, &attr) != 0) {
		int e = errno;
		explain(e, a, err, errlen);
		return -e;
	}

	struct il_sched_state got;
	int r = il_sched_read(0, &got);
	if (r) {
		snprintf(err, errlen, "sched_getattr: %s", strerror(-r));
		return r;
	}
	if (il_sched_matches(a, &got))
		return 0;
	/* Kernels before 6.12 accept and ignore sched_runtime on SCHED_OTHER. */
	if (a->slice_ns && got.sched_class == a->sched_class && got.slice_ns != a->slice_ns) {
		snprintf(err, errlen,
			 "EEVDF custom slice not supported by this kernel "
			 "(needs Linux 6.12+; asked %" PRIu64 " ns, kernel has %" PRIu64 ")",
			 a->slice_ns, got.slice_ns);
		return -EINVAL;
	}
	if (clamps && got.has_uclamp)
		snprintf(err, errlen,
			 "kernel reports %s priority %d nice %d cpus %s util_min %u "
			 "util_max %u after sched_setattr(%s)",
			 il_sched_class_name(got.sched_class) ? il_sched_class_name(got.sched_class)
							      : "?",
			 got.priority, got.nice, got.cpus, got.util_min, got.util_max, cname);
	else
		snprintf(err, errlen,
			 "kernel reports %s priority %d nice %d cpus %s after "
			 "sched_setattr(%s)",
			 il_sched_class_name(got.sched_class) ? il_sched_class_name(got.sched_class)
							      : "?",
			 got.priority, got.nice, got.cpus, cname);
	return -EIO;
}

int il_rttime_limit_set(uint64_t soft_us, uint64_t hard_us)
{
	if (soft_us > hard_us)
		return -EINVAL;
	struct rlimit rl = {.rlim_cur = (rlim_t)soft_us, .rlim_max = (rlim_t)hard_us};
	if (setrlimit(RLIMIT_RTTIME, &rl) != 0)
		return -errno;
	return 0;
}

cJSON *il_sched_state_json(const struct il_sched_state *s)
{
	cJSON *o = cJSON_CreateObject();
	const char *cname = il_sched_class_name(s->sched_class);
	if (!o || !cJSON_AddStringToObject(o, "policy", cname ? cname : "unknown") ||
	    !cJSON_AddNumberToObject(o, "priority", s->priority) ||
	    !cJSON_AddNumberToObject(o, "nice", s->nice) ||
	    !cJSON_AddNumberToObject(o, "slice_ns", (double)s->slice_ns) ||
	    !cJSON_AddNumberToObject(o, "dl_runtime_ns", (double)s->dl_runtime_ns) ||
	    !cJSON_AddNumberToObject(o, "dl_deadline_ns", (double)s->dl_deadline_ns) ||
	    !cJSON_AddNumberToObject(o, "dl_period_ns", (double)s->dl_period_ns) ||
	    !cJSON_AddStringToObject(o, "cpus", s->cpus)) {
		cJSON_Delete(o);
		return NULL;
	}
	if (s->has_uclamp) {
		if (!cJSON_AddNumberToObject(o, "util_min", s->util_min) ||
		    !cJSON_AddNumberToObject(o, "util_max", s->util_max)) {
			cJSON_Delete(o);
			return NULL;
		}
	} else {
		char why[160], text[200];
		int u = il_sysinfo_uclamp(why, sizeof(why));

		snprintf(text, sizeof(text), "%s: %s", u == 0 ? "unsupported" : "unreadable", why);
		if (!cJSON_AddStringToObject(o, "util_min", text) ||
		    !cJSON_AddStringToObject(o, "util_max", text)) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

void il_sched_text(int cls, int prio, int nice, char *buf, size_t len)
{
	const char *n = il_sched_class_name(cls);

	if (il_sched_class_is_rt(cls))
		snprintf(buf, len, "%s %d", n ? n : "?", prio);
	else if (nice)
		snprintf(buf, len, "%s nice %d", n ? n : "?", nice);
	else
		snprintf(buf, len, "%s", n ? n : "?");
}

void il_sched_ask_record(struct il_sched_ask *a, int cls, int prio, int err, pid_t tid)
{
	struct il_sched_state s;
	int r;

	il_sched_text(cls, prio, 0, a->asked, sizeof(a->asked));
	r = il_sched_read(tid, &s);
	if (r == 0)
		il_sched_text(s.sched_class, s.priority, s.nice, a->got, sizeof(a->got));
	else
		snprintf(a->got, sizeof(a->got), "unread: %s", strerror(-r));
	a->why[0] = '\0';
	if (err)
		snprintf(a->why, sizeof(a->why), "refused: %s", strerror(err < 0 ? -err : err));
	/* Its tid and the name the kernel gives it: what a trace or ps -L
	 * shows of it, whatever the report's label for its role. */
	a->tid = tid ? (int)tid : (int)gettid();
	{
		struct il_procfs_stat st;
		int r = il_procfs_stat(0, a->tid, 0, &st);

		if (r == 0)
			snprintf(a->comm, sizeof(a->comm), "%s", st.comm);
		else
			snprintf(a->comm, sizeof(a->comm),
				 "unreadable: /proc/self/task/%d/stat: %s", a->tid, strerror(-r));
	}
}

void il_sched_ask_apply(struct il_sched_ask *a, int cls, int prio)
{
	int err;

	if (il_sched_class_is_rt(cls)) {
		struct sched_param sp = {.sched_priority = prio};

		err = pthread_setschedparam(pthread_self(), cls, &sp);
	} else {
		/* Nice 0 and the default slice too, whatever was inherited. */
		struct il_role_attrs fair = {.sched_class = cls};
		char e[256];

		err = il_sched_apply_self(&fair, NULL, e, sizeof(e));
	}
	il_sched_ask_record(a, cls, prio, err, 0);
}

cJSON *il_sched_ask_json(const struct il_sched_ask *a, const char *thread)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddStringToObject(o, "thread", thread) ||
	    !cJSON_AddStringToObject(o, "asked", a->asked) ||
	    !cJSON_AddStringToObject(o, "got", a->got) ||
	    !(a->why[0] ? cJSON_AddStringToObject(o, "why", a->why)
			: cJSON_AddNullToObject(o, "why")) ||
	    !(a->tid > 0 ? cJSON_AddNumberToObject(o, "tid", a->tid)
			 : cJSON_AddNullToObject(o, "tid")) ||
	    !(a->comm[0] ? cJSON_AddStringToObject(o, "comm", a->comm)
			 : cJSON_AddNullToObject(o, "comm"))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
