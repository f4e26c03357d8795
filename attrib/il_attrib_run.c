#include "il_attrib_run.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_capture.h"
#include "il_clock.h"
#include "il_cpustat.h"
#include "il_file.h"
#include "il_parse.h"
#include "il_policy.h"
#include "il_procfs.h"
#include "il_sched.h"
#include "il_sysinfo.h"
#include "il_thread.h"

/*
 * schedstat's run_delay is the kernel's own count of a thread's run-queue
 * wait: the cross-check compares it with the capture's waits counted the
 * same way (runqueue_as_schedstat_ms: each whole wait when it ends, if it
 * ends between the two readings; the clipped runqueue_ms differs by the
 * waits in progress at either, up to a second each for a CFS thread
 * under RT throttling). Its stamps
 * are the run-queues' own clocks, which the scheduler updates lazily: it
 * skips an update after a wake-up that preempts (rq_clock_skip_update()),
 * and a wait that moves to another CPU (RT push and pull) is stamped by two
 * run-queue clocks. For RT threads, woken mostly by preempting and moved
 * between CPUs, run_delay then misses a few to tens of microseconds per
 * wait (measured here: 0.03 ms of schedstat against 1.5 ms captured for
 * viz:drm under rt --hog 1). CFS threads are compared; RT threads, and
 * those with a counted wait that began before the capture followed them,
 * are reported with both figures and "schedstat_comparable": false.
 */

struct tracked {
	int pid, tid;
	char name[32];
	bool pipeline;
	bool rt; /* SCHED_FIFO, SCHED_RR or SCHED_DEADLINE: schedstat not compared */
	/*
	 * Its events are followed, so the report has its run-queue total and
	 * the schedstat beside it. Hogs and load are only named: their
	 * schedstat is not read, which matters when the orchestrator shares
	 * the CPUs with 1024 of them: a thousand /proc reads at a thousandth
	 * of a CPU held the stop back seconds before the children heard of it.
	 */
	bool followed;
	uint64_t delay0_ns, delay1_ns; /* schedstat run_delay at start and stop */
	uint64_t oncpu0_ns, oncpu1_ns; /* schedstat's time on a CPU, likewise */
	bool have0, have1;
	bool read0; /* its first reading was taken (first_readings) */
};

struct il_attrib_run {
	enum il_attrib_mode mode;
	bool available;
	char why[256];
	struct il_capture *cap;
	struct il_attrib *eng;
	struct tracked *t;
	size_t nt, tcap; /* t[] holds tcap */
	uint64_t from_ns, to_ns;
	uint64_t drops, last_drain_ns;
	/* Events lost up to the stop: the run's. Between the stop and the
	 * detach nobody drains, and a busy machine's switches may fill the
	 * rings; those losses are after to_ns and no event's. */
	uint64_t run_drops;
	/*
	 * Why events were lost: a ring holds il_capture_ring_slots events a CPU
	 * between two drains (the orchestrator's 20 ms tick and every record).
	 * The longest time between two drains in the window, and the longest
	 * of those after which the rings had dropped events: a reader held
	 * off its CPU (other tenants, a thousand load threads) against rings
	 * too small for the switch rate even when drained on time.
	 */
	uint64_t longest_gap_ns, longest_drop_gap_ns;
	unsigned unnamed; /* hog/load threads past the culprit table: not named */
	struct il_cpustat *stat0, *stat1;
	struct il_capture_prog progs[IL_CAPTURE_MAX_PROGS];
	size_t nprogs;
	bool stopped, closed;
	bool readings; /* every followed thread had its first reading (first_readings) */
};

int il_attrib_mode_parse(const char *s)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "auto"))
		return IL_ATTRIB_AUTO;
	if (!strcmp(s, "on"))
		return IL_ATTRIB_ON;
	if (!strcmp(s, "off"))
		return IL_ATTRIB_OFF;
	return -EINVAL;
}

const char *il_attrib_mode_name(enum il_attrib_mode m)
{
	return m == IL_ATTRIB_ON ? "on" : m == IL_ATTRIB_OFF ? "off" : "auto";
}

static void feed_cb(void *ctx, const struct il_kev *ev)
{
	il_attrib_feed(ctx, ev);
}

static void unavailable(struct il_attrib_run *r, const char *why)
{
	r->available = false;
	snprintf(r->why, sizeof(r->why), "%s", why);
	il_capture_free(r->cap);
	r->cap = NULL;
}

int il_attrib_run_new(enum il_attrib_mode mode, struct il_attrib_run **out, char *why,
		      size_t whylen)
{
	struct il_attrib_run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->mode = mode;
	if (mode == IL_ATTRIB_OFF) {
		snprintf(r->why, sizeof(r->why), "turned off (--attribution off)");
		*out = r;
		return 0;
	}
	rc = il_attrib_new(NULL, &r->eng);
	if (rc < 0) {
		free(r);
		return rc;
	}
	rc = il_capture_new(feed_cb, r->eng, &r->cap, r->why, sizeof(r->why));
	if (rc < 0) {
		if (mode == IL_ATTRIB_ON) {
			snprintf(why, whylen, "%s", r->why);
			il_attrib_free(r->eng);
			free(r);
			return rc;
		}
		r->cap = NULL;
	} else {
		r->available = true;
	}
	*out = r;
	return 0;
}

bool il_attrib_run_available(const struct il_attrib_run *r)
{
	return r && r->available;
}

const char *il_attrib_run_why(const struct il_attrib_run *r)
{
	return r ? r->why : "";
}

const struct il_attrib *il_attrib_run_engine(const struct il_attrib_run *r)
{
	return r && r->available ? r->eng : NULL;
}

static const char *str_of(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int num_of(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	/* Whole and an int's: a cast of anything else is undefined. */
	return il_json_whole_in(v, INT_MIN, INT_MAX) ? (int)v->valuedouble : dflt;
}

static int add_thread(struct il_attrib_run *r, const struct il_attrib_thread *t, bool pipeline)
{
	struct tracked *x = &r->t[r->nt];
	int rc = il_attrib_thread_add(r->eng, t);

	if (rc < 0)
		return rc;
	if (!t->name_only) {
		rc = il_capture_track(r->cap, t->tid);
		if (rc < 0)
			return rc;
	}
	x->pid = t->pid;
	x->tid = t->tid;
	snprintf(x->name, sizeof(x->name), "%s", t->name);
	x->pipeline = pipeline;
	x->rt = t->policy && (!strcmp(t->policy, "fifo") || !strcmp(t->policy, "rr") ||
			      !strcmp(t->policy, "deadline"));
	x->followed = !t->name_only;
	r->nt++;
	return 0;
}

/* Threads of the run's processes beyond the reported ones (add_run_extras). */
#define RUN_EXTRA_THREADS 64

static bool tracked_tid(const struct il_attrib_run *r, int tid)
{
	for (size_t i = 0; i < r->nt; i++)
		if (r->t[i].tid == tid)
			return true;
	return false;
}

/*
 * The threads of the run's processes that report no role: each child's
 * main thread (its control loop, at FIFO 97 under an RT policy, woken by
 * the orchestrator's pings) and the orchestrator's other threads (its
 * watchdog, its readers). Named only, never followed: when one holds a CPU
 * the chain waits for it is the run's own, with its read-back class, not
 * "another program's".
 */
static void add_run_extras(struct il_attrib_run *r, const cJSON *threads, int self_pid)
{
	const cJSON *t;
	int pids[IL_PROC_COUNT + 1], n = 0;
	const char *procs[IL_PROC_COUNT + 1];

	pids[n] = self_pid;
	procs[n++] = "inputlat";
	cJSON_ArrayForEach (t, threads) {
		int pid = num_of(t, "pid", 0);
		const char *proc = str_of(t, "process");
		bool seen = false;

		for (int i = 0; i < n; i++)
			seen = seen || pids[i] == pid;
		if (pid > 0 && proc && !seen && n < IL_PROC_COUNT + 1) {
			pids[n] = pid;
			procs[n++] = proc;
		}
	}
	for (int i = 0; i < n; i++) {
		char dir[64];
		struct dirent *e;
		DIR *d;

		snprintf(dir, sizeof(dir), "/proc/%d/task", pids[i]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d)) && r->nt < r->tcap) {
			int tid = atoi(e->d_name);
			char comm[32], path[96];
			struct il_sched_state st;
			struct il_attrib_thread th = {.pid = pids[i],
						      .tid = tid,
						      .process = procs[i],
						      .role = "control",
						      .name_only = true};

			if (tid <= 0 || tracked_tid(r, tid))
				continue;
			snprintf(path, sizeof(path), "%s/%d/comm", dir, tid);
			if (il_sysinfo_read_value(path, comm, sizeof(comm)) < 0)
				continue;
			th.name = comm;
			if (il_sched_read(tid, &st) == 0) {
				th.policy = il_sched_class_name(st.sched_class);
				th.priority = st.priority;
				th.nice = st.nice;
			}
			if (add_thread(r, &th, false) < 0)
				break; /* the culprit table is full: the rest unnamed */
		}
		closedir(d);
	}
}

int il_attrib_run_threads(struct il_attrib_run *r, const cJSON *threads, int self_pid, int self_tid)
{
	const cJSON *t;
	int n = cJSON_GetArraySize(threads), rc;
	struct il_attrib_thread self = {.pid = self_pid,
					.tid = self_tid,
					.name = "inputlat",
					.process = "inputlat",
					.role = "inject"};

	if (!r->available)
		return -ENODATA;
	r->tcap = (size_t)n + 1 + RUN_EXTRA_THREADS;
	r->t = calloc(r->tcap, sizeof(*r->t));
	if (!r->t) {
		unavailable(r, "out of memory");
		return -ENOMEM;
	}
	/* The orchestrator's own attributes, read back from its thread as
	 * the children's are: it injects (stamp 0). The class alone named it
	 * "SCHED_FIFO 0" where the kernel had it at FIFO 98. Unread, it is
	 * unknown (NULL), not a default. */
	{
		struct il_sched_state st;

		if (il_sched_read(self_tid, &st) == 0) {
			self.policy = il_sched_class_name(st.sched_class);
			self.priority = st.priority;
			self.nice = st.nice;
		}
	}
	/* First, before the hogs and the load can fill the culprit table
	 * (1024 load threads did, and the whole run lost its attribution). */
	rc = add_thread(r, &self, false);
	if (rc < 0) {
		unavailable(r, "cannot follow the orchestrator's thread");
		return rc;
	}
	cJSON_ArrayForEach (t, threads) {
		const cJSON *sched = cJSON_GetObjectItemCaseSensitive(t, "sched");
		const char *role = str_of(t, "role");
		struct il_attrib_thread th = {
		    .pid = num_of(t, "pid", 0),
		    .tid = num_of(t, "tid", 0),
		    .name = str_of(t, "name"),
		    .process = str_of(t, "process"),
		    .role = role,
		    .policy = sched ? str_of(sched, "policy") : str_of(t, "policy"),
		    .priority = num_of(sched ? sched : t, "priority", 0),
		    .nice = num_of(sched ? sched : t, "nice", 0),
		};
		bool pipeline =
		    role && strcmp(role, "js") && strcmp(role, "load") && strcmp(role, "canary");

		if (th.tid <= 0 || !th.name)
			continue;
		/* The hogs and the load only ever matter as who held a CPU: they are
		 * named, their own events are not followed (that would double the
		 * events and the BPF cost for nothing the report uses). */
		th.name_only = role && (!strcmp(role, "js") || !strcmp(role, "load"));
		rc = add_thread(r, &th, pipeline);
		/* Hundreds of load threads outgrow the culprit table: those past
		 * it are not named (their time shows as an unknown culprit),
		 * counted in the report; the pipeline's threads always fit. */
		if (rc == -ENOSPC && th.name_only) {
			r->unnamed++;
			continue;
		}
		if (rc < 0) {
			char why[128];

			snprintf(why, sizeof(why), "cannot follow thread %s: %s", th.name,
				 strerror(-rc));
			unavailable(r, why);
			return rc;
		}
	}
	add_run_extras(r, threads, self_pid);
	il_cpustat_read(&r->stat0);
	r->from_ns = il_now_ns();
	r->last_drain_ns = r->from_ns;
	il_attrib_start(r->eng, r->from_ns);
	return 0;
}

/*
 * A thread's schedstat: on a CPU and waiting (ns). The calling thread is
 * running as it reads, and the kernel's figure for a running thread lags
 * up to a tick: its own time on a CPU comes from its CPU clock, which the
 * kernel brings up to date first.
 */
static bool read_schedstat(const struct tracked *x, uint64_t *oncpu_ns, uint64_t *delay_ns)
{
	if (il_procfs_schedstat(x->pid, x->tid, oncpu_ns, delay_ns, NULL) < 0)
		return false;
	if (x->tid == il_gettid())
		*oncpu_ns = il_thread_cpu_ns();
	return true;
}

/*
 * schedstat's first reading of each followed thread, once the capture
 * knows what the thread is doing: a wait in progress at a reading counts
 * whole on the kernel's side, so the capture must have seen it begin.
 * Read as the threads were added, a thread already waiting under load
 * (render:comp under --load 2) had a wait of unknown start and could not
 * be compared.
 */
static void first_readings(struct il_attrib_run *r)
{
	bool all = true;

	for (size_t i = 0; i < r->nt; i++) {
		struct tracked *x = &r->t[i];

		if (!x->followed || x->read0)
			continue;
		if (!il_attrib_thread_known(r->eng, x->tid)) {
			all = false;
			continue;
		}
		x->read0 = true;
		/* Stamped before the reading: a wait ending in between is in both. */
		il_attrib_thread_readings(r->eng, x->tid, il_now_ns(), 0);
		x->have0 = read_schedstat(x, &x->oncpu0_ns, &x->delay0_ns);
	}
	r->readings = all;
}

void il_attrib_run_tick(struct il_attrib_run *r)
{
	uint64_t now, drops, gap;

	if (!r || !r->available || !r->cap)
		return;
	now = il_now_ns();
	if (!r->readings && r->t && r->from_ns && !r->stopped)
		first_readings(r);
	il_capture_drain(r->cap);
	drops = il_capture_drops(r->cap);
	gap = now - r->last_drain_ns;
	if (!r->stopped && now > r->last_drain_ns && gap > r->longest_gap_ns)
		r->longest_gap_ns = gap;
	if (drops != r->drops) {
		/* Some events since the last drain never made it: say so for the
		 * events of that time instead of explaining them wrongly. */
		il_attrib_mark_lost(r->eng, r->last_drain_ns, now);
		r->drops = drops;
		if (!r->stopped && now > r->last_drain_ns && gap > r->longest_drop_gap_ns)
			r->longest_drop_gap_ns = gap;
	}
	r->last_drain_ns = now;
}

/* The last moment a record's stamps speak of: its kernel events are before it. */
static uint64_t last_stamp(const struct il_msg *m)
{
	uint64_t t = 0;

	for (int k = 0; k < IL_NSTAMPS; k++) {
		if (m->stamp_ns[k] > t)
			t = m->stamp_ns[k];
		if (m->end_ns[k] > t)
			t = m->end_ns[k];
	}
	return t;
}

/* How long a record waits at most for its kernel events (a program still
 * writing one on another CPU), polling: a few microseconds as a rule. */
#define EVENTS_WAIT_NS 2000000ull
#define EVENTS_POLL_NS 20000L

/*
 * Folds what no event needs any more, up to t but never past what the
 * rings have handed on: an event still to come must find the timelines
 * open. Folding warm-up events at their injection, before the capture had
 * delivered that far, let a late switch-out land after the fold, and the
 * stretch before it was counted twice (the orchestrator's running_ms read
 * 20-50 ms above perf's in runs with --hog 2).
 */
static void advance(struct il_attrib_run *r, uint64_t t)
{
	uint64_t done = il_capture_done_to(r->cap);

	il_attrib_advance(r->eng, t < done ? t : done);
}

int il_attrib_run_event(struct il_attrib_run *r, const struct il_msg *m,
			struct il_attrib_event *out)
{
	struct il_attrib_event local;
	uint64_t need, t0;
	int rc;

	if (!r || !r->available || !r->t)
		return -ENODATA;
	/* Every kernel event of the record is before its last stamp, and so in
	 * the rings; the reader hands them on once nothing earlier can still
	 * come, which can be a few microseconds after the record arrives. */
	need = last_stamp(m);
	t0 = il_now_ns();
	il_attrib_run_tick(r);
	while (il_capture_done_to(r->cap) < need && il_now_ns() - t0 < EVENTS_WAIT_NS) {
		struct timespec ts = {0, EVENTS_POLL_NS};

		nanosleep(&ts, NULL);
		il_attrib_run_tick(r);
	}
	rc = il_attrib_explain(r->eng, m, out ? out : &local);
	/* Events come in id order, and ids in injection order: nothing older
	 * than this one's injection is needed again. */
	advance(r, m->stamp_ns[IL_STAMP_INJECT]);
	return rc;
}

void il_attrib_run_skip(struct il_attrib_run *r, const struct il_msg *m)
{
	if (r && r->available && r->t && m->stamp_ns[IL_STAMP_INJECT])
		advance(r, m->stamp_ns[IL_STAMP_INJECT]);
}

/* Cheap, so that the children get their "stop" at once: the end of the
 * figures, read while they still live. */
void il_attrib_run_stop(struct il_attrib_run *r)
{
	if (!r || !r->available || r->stopped)
		return;
	r->stopped = true;
	/* The last readings inside the window: a thread's time between them
	 * is all in the capture (the orchestrator runs on while it drains). */
	for (size_t i = 0; i < r->nt; i++) {
		struct tracked *x = &r->t[i];

		x->have1 = x->read0 && read_schedstat(x, &x->oncpu1_ns, &x->delay1_ns);
		if (x->followed)
			il_attrib_thread_readings(r->eng, x->tid, 0, il_now_ns());
	}
	r->to_ns = il_now_ns();
	il_attrib_stop(r->eng, r->to_ns);
	il_attrib_run_tick(r);
	r->run_drops = r->drops;
	il_cpustat_read(&r->stat1);
}

/* Detaching takes a while (each link's perf event is released), so it
 * waits until the report: what comes after to_ns is not counted. */
void il_attrib_run_close(struct il_attrib_run *r)
{
	if (!r || !r->available || r->closed)
		return;
	il_attrib_run_stop(r);
	r->closed = true;
	il_capture_stop(r->cap);
	il_attrib_run_tick(r);
	r->nprogs = il_capture_progs(r->cap, r->progs, IL_CAPTURE_MAX_PROGS);
	if (r->t && r->to_ns > r->from_ns)
		il_attrib_finish(r->eng, r->to_ns);
}

static cJSON *steal_json(const struct il_attrib_run *r)
{
	cJSON *o = cJSON_CreateObject();
	uint64_t steal = 0, total = 0;
	long hz = sysconf(_SC_CLK_TCK);

	char why[200];

	if (!r->stat0 || !r->stat1) {
		cJSON_AddStringToObject(o, "why", "/proc/stat unreadable");
		return o;
	}
	if (!il_sysinfo_steal_told(r->stat1, why, sizeof(why))) {
		cJSON_AddStringToObject(o, "why", why);
		return o;
	}
	if (hz <= 0) {
		cJSON_AddStringToObject(o, "why",
					"unreadable: sysconf(_SC_CLK_TCK) gave no tick rate");
		return o;
	}
	for (unsigned c = 0; c < il_cpustat_ncpu(r->stat1); c++) {
		const struct il_cpustat_cpu *a = il_cpustat_cpu(r->stat0, c),
					    *b = il_cpustat_cpu(r->stat1, c);

		if (!a || !b || !a->present || !b->present)
			continue;
		steal += b->steal - a->steal;
		total += il_cpustat_total(b) - il_cpustat_total(a);
	}
	cJSON_AddNumberToObject(o, "ms", (double)steal * 1000.0 / (double)hz);
	cJSON_AddNumberToObject(o, "pct",
				total ? round(1e4 * (double)steal / (double)total) / 100 : 0);
	return o;
}

static cJSON *bpf_json(const struct il_attrib_run *r)
{
	cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "programs");
	uint64_t cnt = 0, ns = 0;
	struct il_attrib_counts c;

	for (size_t i = 0; i < r->nprogs; i++) {
		const struct il_capture_prog *p = &r->progs[i];
		cJSON *po = cJSON_CreateObject();

		cJSON_AddStringToObject(po, "name", p->name);
		cJSON_AddNumberToObject(po, "run_cnt", (double)p->run_cnt);
		cJSON_AddNumberToObject(po, "run_time_ns", (double)p->run_time_ns);
		if (p->run_cnt)
			cJSON_AddNumberToObject(
			    po, "ns_per_run",
			    round(10.0 * (double)p->run_time_ns / (double)p->run_cnt) / 10);
		else
			cJSON_AddNullToObject(po, "ns_per_run");
		cJSON_AddItemToArray(arr, po);
		cnt += p->run_cnt;
		ns += p->run_time_ns;
	}
	/* Every scheduling or interrupt event the kernel ran a program for, filtered or not. */
	cJSON_AddNumberToObject(o, "runs", (double)cnt);
	if (cnt && ns)
		cJSON_AddNumberToObject(o, "ns_per_run",
					round(10.0 * (double)ns / (double)cnt) / 10);
	else
		cJSON_AddStringToObject(o, "ns_per_run",
					cnt ? "unreadable: BPF statistics off"
					    : "unreadable: no runs");
	il_attrib_counts(r->eng, &c);
	cJSON_AddNumberToObject(o, "events", (double)c.kevents);
	cJSON_AddNumberToObject(o, "drops", (double)r->run_drops);
	cJSON_AddNumberToObject(o, "ring_slots_per_cpu", il_capture_ring_slots(r->cap));
	cJSON_AddNumberToObject(o, "longest_drain_gap_ms",
				round((double)r->longest_gap_ns / 1e4) / 100);
	/* null: nothing dropped in the window. */
	if (r->run_drops)
		cJSON_AddNumberToObject(o, "longest_drain_gap_before_drops_ms",
					round((double)r->longest_drop_gap_ns / 1e4) / 100);
	else
		cJSON_AddNullToObject(o, "longest_drain_gap_before_drops_ms");
	return o;
}

/* The kernel's tick (CONFIG_HZ), or 10 ms (HZ=100, the longest) unread. */
static double kernel_tick_ms(void)
{
	char v[16];
	uint64_t hz;

	/* Checked: strtol took "250abc" as 250 and "abc" as 0. */
	if (il_sysinfo_kconfig("CONFIG_HZ", v, sizeof(v)) < 0 ||
	    il_parse_u64(v, 100, 10000, &hz) < 0)
		return 10.0;
	return 1000.0 / (double)hz;
}

/*
 * schedstat's time on a CPU between the readings beside the captured
 * running time between them (running_as_schedstat_ms): whether the capture
 * stays within the kernel's figure, counted in *n. Only that way is judged:
 * the kernel's runs above the switch times (perf's and the capture's
 * alike, within 1-3 ms of each other): by 0-7 us a switch-in here, 45 ms
 * for a canary woken 6,000 times in a 6 s cfs --hog 2 run. A capture above
 * it counted time twice (a fold ahead of the events once made the
 * orchestrator's 20-50 ms too long). The kernel's figure for a thread
 * running at a reading lags by up to a tick (the reader's own are exact:
 * read_schedstat): within 10% and a tick.
 */
static bool oncpu_within(const struct tracked *x, cJSON *t, double tick_ms, unsigned *n)
{
	double ss = (double)(x->oncpu1_ns - x->oncpu0_ns) / 1e6;
	double cap =
	    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "running_as_schedstat_ms"));

	cJSON_AddNumberToObject(t, "schedstat_on_cpu_ms", round(ss * 1e3) / 1e3);
	if (isnan(cap))
		return false;
	(*n)++;
	return cap <= 1.1 * ss + tick_ms;
}

/* ok of n as a percentage at pct_key (null with none compared), n at n_key. */
static void add_agreement(cJSON *check, const char *pct_key, const char *n_key, unsigned ok,
			  unsigned n)
{
	if (n)
		cJSON_AddNumberToObject(check, pct_key, round(1e4 * ok / n) / 100);
	else
		cJSON_AddNullToObject(check, pct_key);
	cJSON_AddNumberToObject(check, n_key, n);
}

/* schedstat next to each thread's captured run-queue total. */
static void schedstat_check(const struct il_attrib_run *r, cJSON *attr)
{
	cJSON *threads = cJSON_GetObjectItemCaseSensitive(attr, "threads"), *t;
	cJSON *check = cJSON_GetObjectItemCaseSensitive(attr, "check");
	unsigned n = 0, ok = 0, nrun = 0, okrun = 0;
	double tick_ms = kernel_tick_ms();

	cJSON_ArrayForEach (t, threads) {
		int tid = num_of(t, "tid", 0);

		for (size_t i = 0; i < r->nt; i++) {
			const struct tracked *x = &r->t[i];
			/* The captured waits counted as run_delay counts them
			 * (il_attrib.c): a clipped total would differ by the waits
			 * in progress at either reading. */
			const cJSON *rule =
			    cJSON_GetObjectItemCaseSensitive(t, "runqueue_as_schedstat_ms");
			double cap_ns = cJSON_GetNumberValue(rule) * 1e6,
			       slack_ns = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
					      t, "runqueue_as_schedstat_slack_ms")) *
					  1e6;
			double ss_ns;
			bool comparable;

			if (x->tid != tid)
				continue;
			cJSON_AddBoolToObject(t, "pipeline", x->pipeline);
			if (!x->have0 || !x->have1) {
				cJSON_AddStringToObject(
				    t, "schedstat_run_delay_ms",
				    x->read0 ? "unreadable: no schedstat"
					     : "unreadable: no event of the thread was seen before "
					       "the stop, so no first reading");
				break;
			}
			ss_ns = (double)(x->delay1_ns - x->delay0_ns);
			cJSON_AddNumberToObject(t, "schedstat_run_delay_ms",
						round(ss_ns / 1e3) / 1e3);
			/* Every followed thread: the orchestrator's too. */
			okrun += oncpu_within(x, t, tick_ms, &nrun);
			comparable = !x->rt && cJSON_IsNumber(rule);
			cJSON_AddBoolToObject(t, "schedstat_comparable", comparable);
			if (!x->pipeline || !comparable)
				break;
			n++;
			/* Within 10%, beyond what unseen switch-ins leave open. */
			ok += cap_ns - 0.1 * ss_ns <= ss_ns &&
			      ss_ns <= cap_ns + slack_ns + 0.1 * ss_ns;
			break;
		}
	}
	if (!check)
		return;
	add_agreement(check, "schedstat_within_10pct_pct", "schedstat_compared", ok, n);
	add_agreement(check, "running_within_schedstat_pct", "running_compared", okrun, nrun);
}

int il_attrib_run_report(struct il_attrib_run *r, cJSON *root)
{
	cJSON *o = cJSON_AddObjectToObject(root, "attribution");

	if (!o)
		return -ENOMEM;
	cJSON_AddBoolToObject(o, "available", r && r->available);
	cJSON_AddStringToObject(o, "why", r && !r->available ? r->why : "");
	cJSON_AddStringToObject(o, "mode", il_attrib_mode_name(r ? r->mode : IL_ATTRIB_AUTO));
	if (!r || !r->available)
		return 0;
	il_attrib_run_close(r);
	if (il_attrib_report(r->eng, o) < 0)
		return -ENOMEM;
	schedstat_check(r, o);
	cJSON_AddNumberToObject(o, "threads_unnamed", r->unnamed);
	cJSON_AddItemToObject(o, "steal", steal_json(r));
	cJSON_AddItemToObject(o, "bpf", bpf_json(r));
	cJSON_AddNumberToObject(o, "capture_ms",
				round((double)(r->to_ns - r->from_ns) / 1e3) / 1e3);
	/* The window every per-thread figure covers, on CLOCK_MONOTONIC (as
	 * `perf record -k mono` and trace-cmd's mono clock): a cross-check
	 * against another tool's view of the same threads needs it. */
	{
		cJSON *w = cJSON_AddObjectToObject(o, "capture_window_ns");

		cJSON_AddNumberToObject(w, "from", (double)r->from_ns);
		cJSON_AddNumberToObject(w, "to", (double)r->to_ns);
		cJSON_AddStringToObject(w, "clock", "CLOCK_MONOTONIC");
	}
	return 0;
}

cJSON *il_attrib_run_event_json(const struct il_attrib_run *r, const struct il_attrib_event *e)
{
	if (!r || !r->available)
		return NULL;
	return il_attrib_event_json(r->eng, e);
}

void il_attrib_run_on_slice(struct il_attrib_run *r, il_attrib_slice_cb cb, void *ctx)
{
	if (r && r->eng)
		il_attrib_on_slice(r->eng, cb, ctx);
}

void il_attrib_run_free(struct il_attrib_run *r)
{
	if (!r)
		return;
	il_attrib_run_close(r);
	il_capture_free(r->cap);
	il_attrib_free(r->eng);
	il_cpustat_free(r->stat0);
	il_cpustat_free(r->stat1);
	free(r->t);
	free(r);
}
