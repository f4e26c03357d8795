/*
 * The run's loop, on the orchestrator's thread: children report ready, the
 * run starts, mouse-downs are injected on a jittered timer, finished
 * records come back from viz-sim, a tick expires events and pings the
 * children, and a stop collects every child's stats and exit.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_ctl.h"
#include "il_ctxsw.h"
#include "il_file.h"
#include "il_hist.h"
#include "il_memlock.h"
#include "il_run_stats.h"
#include "il_run.h"
#include "il_sched.h"
#include "il_thread.h"
#include "il_thread_record.h"
#include "il_watchdog.h"

#define TICK_MS		 20
#define READY_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS	 1500
/* After the stop's time is up, the watchdog kills what the loop did not. */
#define STOP_KILL_SLACK_MS 300
#define PING_INTERVAL_MS   250
/*
 * A ping wakes every child's control thread at FIFO 97 (under an RT
 * policy), above the chain: sent while a mouse-down is in flight it
 * preempted the chain mid-event (70-80 us, perf sched beside a run, every
 * 261 ms). So it waits for a tick with no event in flight, past its
 * interval; only a run never without one (1 ms apart) pings at this age.
 * Kept short: a hung child is found this much later (at 500 ms, the ASan
 * pass's SIGSTOP cases took 2.55 s under load, against their 2.5 s).
 */
#define PING_LATE_MS 300
#define PING_DEAD_MS 1500
/* What one wake-up of a nice-0 thread may wait per CPU-bound thread it
 * competes with: EEVDF runs every eligible task whose deadline is earlier
 * first, about half of them at one 3 ms slice each, and a ping's answer
 * takes a few wake-ups. */
#define PING_PER_BUSY_MS 12

static void run_stop(struct il_run *r);
static void hold_loop(struct il_run *r);
static void inject(struct il_run *r);

/*
 * The stop's bound, and the loop's priority while children exit. The loop
 * runs at FIFO 98 to keep control while RT work holds the CPUs; reaping
 * children at that priority is a hazard: a reaper spinning in the kernel
 * (release_task invalidating /proc dentries) waits for an exiting child
 * thread of lower priority, which never runs when both are confined to
 * one CPU. So from the stop on the loop is SCHED_OTHER, and the watchdog
 * (FIFO 99, never reaping) SIGKILLs children still there when the stop's
 * time is up, whatever the loop can do.
 */
/* The stop's bound: 1.5 s, and 5 ms more per hog or load thread to join
 * (1024 of them under a sanitizer took longer than 1.5 s to end). */
static uint64_t stop_timeout_ms(const struct il_run *r)
{
	return STOP_TIMEOUT_MS + 5 * (r->o->hog_threads + r->o->load_threads);
}

/*
 * How long a child may take to answer a ping before it counts as hung:
 * 1.5 s, and more when the run itself keeps the CPUs busy with hog and
 * load threads. 1024 load threads at nice 0 on 2 CPUs made a nice-0 child
 * wait about 0.8 s per wake-up: starved, not hung. Never less than
 * --timeout-ms: a user who gives an event that long to cross all three
 * processes says this machine is that slow (an emulated one: under qemu
 * TCG, with --timeout-ms 20000, render-sim once went 1.5 s without an
 * answer in a run whose events all completed).
 */
static uint64_t ping_dead_ms(const struct il_run *r)
{
	uint64_t busy = (uint64_t)r->o->hog_threads + (uint64_t)r->o->load_threads;
	uint64_t ms = PING_DEAD_MS + PING_PER_BUSY_MS * busy /
					 (uint64_t)(r->cpus_allowed > 0 ? r->cpus_allowed : 1);

	return ms > r->o->timeout_ms ? ms : r->o->timeout_ms;
}

/*
 * il_sched_text, the parameters of the class that changed between a and
 * b (a fair slice when both are fair, deadline runtime/deadline/period
 * when both are deadline), and " cpus LIST": "fifo 52 cpus 0-1",
 * "other nice 5 cpus 0", "other slice 3000 us cpus 0-1".
 */
static void sched_cpus_text(const struct il_sched_state *a, const struct il_sched_state *b,
			    char *buf, size_t len)
{
	char t[48], extra[96] = "";
	bool fair = !il_sched_class_is_rt(a->sched_class) && a->sched_class != SCHED_DEADLINE &&
		    !il_sched_class_is_rt(b->sched_class) && b->sched_class != SCHED_DEADLINE;

	il_sched_text(a->sched_class, a->priority, a->nice, t, sizeof(t));
	if (fair && a->slice_ns != b->slice_ns)
		snprintf(extra, sizeof(extra), " slice %.0f us", (double)a->slice_ns / 1e3);
	else if (a->sched_class == SCHED_DEADLINE && b->sched_class == SCHED_DEADLINE &&
		 (a->dl_runtime_ns != b->dl_runtime_ns || a->dl_deadline_ns != b->dl_deadline_ns ||
		  a->dl_period_ns != b->dl_period_ns))
		snprintf(extra, sizeof(extra), " runtime %.0f us deadline %.0f us period %.0f us",
			 (double)a->dl_runtime_ns / 1e3, (double)a->dl_deadline_ns / 1e3,
			 (double)a->dl_period_ns / 1e3);
	snprintf(buf, len, "%s%s cpus %s", t, extra, a->cpus);
}

/* A number of the thread's start record ("sched"), 0 when absent (a
 * present one is whole and in range: il_thread_record_bad). */
static uint64_t sched_u64(const cJSON *sc, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(sc, key);

	return il_json_whole_in(v, 0, IL_THREAD_RECORD_NS_MAX) ? (uint64_t)v->valuedouble : 0;
}

static int sched_int(const cJSON *sc, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(sc, key);

	return il_json_whole_in(v, -IL_THREAD_RECORD_PRIO_MAX, IL_THREAD_RECORD_PRIO_MAX)
		   ? (int)v->valuedouble
		   : 0;
}

/*
 * Each thread's scheduling read again before the stop, against what it
 * reported at the start: someone else (chrt -p, renice, taskset -p, a
 * daemon, sched_setattr) may have changed it during the run, which then
 * was not under its policy throughout. Compared: class, priority, nice,
 * CPUs, a fair slice, deadline parameters. The thread's record gets
 * "changed" (null, or "fifo 52 cpus 0-1 -> other cpus 0-1"); the report
 * warns.
 */
static void sched_recheck(struct il_run *r)
{
	cJSON *t;

	cJSON_ArrayForEach (t, r->threads) {
		const cJSON *sc = cJSON_GetObjectItemCaseSensitive(t, "sched");
		const char *pol =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "policy"));
		const char *cpus =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "cpus"));
		const cJSON *tid = cJSON_GetObjectItemCaseSensitive(t, "tid");
		char was[IL_CPULIST_MAX + 160], now[IL_CPULIST_MAX + 160],
		    both[2 * sizeof(was) + 8];
		struct il_sched_state st, st0 = {0};
		char task[64];

		if (cJSON_GetObjectItemCaseSensitive(t, "changed"))
			continue;
		/* Still a thread of the process it reported from: a tid reused
		 * by someone else's thread would be compared otherwise. */
		snprintf(task, sizeof(task), "/proc/%.0f/task/%.0f",
			 cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(t, "pid")),
			 cJSON_GetNumberValue(tid));
		if (!pol || !cpus || !cJSON_IsNumber(tid) || access(task, F_OK) != 0 ||
		    il_sched_read((pid_t)tid->valuedouble, &st)) {
			cJSON_AddNullToObject(t, "changed"); /* gone, or nothing to compare */
			continue;
		}
		st0.sched_class = il_sched_class_parse(pol);
		st0.priority = sched_int(sc, "priority");
		st0.nice = sched_int(sc, "nice");
		st0.slice_ns = sched_u64(sc, "slice_ns");
		st0.dl_runtime_ns = sched_u64(sc, "dl_runtime_ns");
		st0.dl_deadline_ns = sched_u64(sc, "dl_deadline_ns");
		st0.dl_period_ns = sched_u64(sc, "dl_period_ns");
		snprintf(st0.cpus, sizeof(st0.cpus), "%s", cpus);
		sched_cpus_text(&st0, &st, was, sizeof(was));
		sched_cpus_text(&st, &st0, now, sizeof(now));
		if (!strcmp(was, now)) {
			cJSON_AddNullToObject(t, "changed");
			continue;
		}
		snprintf(both, sizeof(both), "%s -> %s", was, now);
		cJSON_AddStringToObject(t, "changed", both);
	}
}

static void enter_stopping(struct il_run *r, uint64_t now)
{
	struct sched_param sp = {.sched_priority = 0};

	sched_recheck(r);

	il_progress_clear(&r->progress);
	r->phase = IL_PH_STOPPING;
	r->phase_deadline_ns = now + il_ms_to_ns(stop_timeout_ms(r));
	il_watchdog_kill_at(r->phase_deadline_ns + il_ms_to_ns(STOP_KILL_SLACK_MS));
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

/* Arms the injection timer delay_ns from now (0: at once). */
static void inject_arm(struct il_run *r, uint64_t delay_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	/* A zero it_value disarms: "at once" is 1 ns. */
	its.it_value = il_ns_to_ts(delay_ns ? delay_ns : 1);
	if (timerfd_settime(r->inject_tfd, 0, &its, NULL) < 0)
		il_orch_fail(r, "arming the injection timer: %s", strerror(errno));
}

/* --trace-marker: the injection as a slice in tracefs (see sim/il_hop.h). */
static void inject_mark(struct il_run *r, uint64_t id, bool begin)
{
	char buf[64];
	int n = begin ? snprintf(buf, sizeof(buf), "B|%d|inject ev=%llu", (int)getpid(),
				 (unsigned long long)id)
		      : snprintf(buf, sizeof(buf), "E|%d", (int)getpid());

	if (n > 0)
		il_marks_write(&r->marks, r->marker_fd, buf, (size_t)n);
}

static void inject_stop(struct il_run *r)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (r->inject_tfd >= 0)
		timerfd_settime(r->inject_tfd, 0, &its, NULL);
}

static void inject_poll_cb(uv_poll_t *h, int status, int events)
{
	struct il_run *r = h->data;
	uint64_t expirations;

	if (read(r->inject_tfd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	inject(r);
}

/* --- small helpers ----------------------------------------------------- */
static uint64_t rng_next(struct il_run *r)
{
	/* splitmix64: good enough for pacing jitter, reproducible with --seed. */
	uint64_t z = (r->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void send_all(struct il_run *r, const char *type)
{
	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (r->procs[i].spawned && !r->procs[i].exited)
			il_ctl_send_type((uv_stream_t *)&r->procs[i].ctl, type);
}

static void kill_all(struct il_run *r)
{
	for (int i = 0; i < IL_PROC_COUNT; i++)
		il_proc_kill(&r->procs[i]);
}

/* The run stops now: its stop time, and its memory locked then, as each
 * child reads its own at the stop (not after the teardown). */
static void mark_stop(struct il_run *r)
{
	r->stop_ns = il_now_ns();
	r->locked_kib = (int64_t)il_memlock_locked_kib();
}

/* --- failure and stop -------------------------------------------------- */
void il_orch_fail(struct il_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->phase >= IL_PH_STOPPING && r->exit_code)
		return;
	va_start(ap, fmt);
	vsnprintf(r->fail_msg, sizeof(r->fail_msg), fmt, ap);
	va_end(ap);
	il_progress_clear(&r->progress);
	fprintf(stderr, "inputlat: %s\n", r->fail_msg);
	r->exit_code = 1;
	/* A failed run does not wait for goodbyes: the children are ours, by pid. */
	kill_all(r);
	inject_stop(r);
	/* Its stop starts here: the report's teardown_ms times it from now
	 * (it said null for every failed run). */
	if (!r->stop_ns)
		mark_stop(r);
	enter_stopping(r, il_now_ns());
}

static bool all_exited(const struct il_run *r)
{
	/*
	 * Gone means exited AND its control channel read to the end: SIGCHLD
	 * can be handled before the last bytes the child wrote (its stats,
	 * sent right before it exits) are read, and a run that finished then
	 * reported that child with no stats (1 run in 30 here).
	 */
	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (r->procs[i].spawned && (!r->procs[i].exited || !r->procs[i].ctl_eof))
			return false;
	return true;
}

static void run_finish(struct il_run *r)
{
	il_progress_clear(&r->progress);
	r->phase = IL_PH_DONE;
	r->end_ns = il_now_ns();
	inject_stop(r);
	uv_timer_stop(&r->release_timer);
	uv_timer_stop(&r->tick_timer);
	uv_prepare_stop(&r->io_prepare);
	uv_check_stop(&r->io_check);
	uv_stop(&r->loop);
}

static void run_stop(struct il_run *r)
{
	if (r->phase >= IL_PH_STOPPING)
		return;
	inject_stop(r);
	mark_stop(r);
	/* First, since it needs no process to be woken: the load and hog
	 * threads end as they next look (wire/il_halt.h). */
	il_halt_set(&r->halt, r->stop_ns);
	/* Wake-ups counted up to here: the stop itself wakes every thread. */
	if (r->phase >= IL_PH_RUNNING)
		il_ctxsw_sample(r->ctxsw, 1);
	/* While the children still live: their schedstat closes the capture. */
	il_attrib_run_stop(r->attrib);
	enter_stopping(r, r->stop_ns);
	send_all(r, "stop");
	if (r->o->test.stall_at_stop)
		hold_loop(r);
}

/* --- children ---------------------------------------------------------- */
static void send_ping(struct il_proc *p, uint64_t now)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", "ping");
	cJSON_AddNumberToObject(o, "seq", (double)++p->ping_seq);
	il_ctl_send((uv_stream_t *)&p->ctl, o);
	cJSON_Delete(o);
	p->ping_sent_ns = now;
}

static struct il_run *proc_run(struct il_proc *p)
{
	return p->data;
}

static void on_all_ready(struct il_run *r)
{
	struct il_event_run_info info;

	r->phase = IL_PH_RUNNING;
	r->measure_start_ns = il_now_ns();
	if (r->o->trace_path) {
		r->sampler = il_sampler_new(r->threads, r->cpus_allowed, 100000);
		il_sampler_tick(r->sampler, r->measure_start_ns);
		r->last_sample_ns = r->measure_start_ns;
	}
	info = (struct il_event_run_info){
	    .o = r->o,
	    .threads = r->threads,
	    .measure_start_ns = r->measure_start_ns,
	    .self_pid = (int)getpid(),
	    .self_tid = r->self_tid,
	};
	r->ctxsw = il_ctxsw_new(r->threads, (int)getpid(), r->self_tid);
	il_ctxsw_sample(r->ctxsw, 0);
	if (il_event_sinks_start(&r->sinks, &info) < 0) {
		il_orch_fail(r, "cannot start the run's outputs");
		return;
	}
	/*
	 * The first event goes out once every child handled "start": a ping
	 * follows it on each control channel, which a child handles in order,
	 * so its pong says the start is marked (no fixed settle time).
	 */
	send_all(r, "start");
	for (int i = 0; i < IL_PROC_COUNT; i++) {
		struct il_proc *p = &r->procs[i];

		if (p->spawned && !p->exited) {
			send_ping(p, r->measure_start_ns);
			p->start_seq = p->ping_seq;
		}
	}
	if (!(r->inj && r->o->events) && r->o->input.kind != IL_INPUT_EVDEV)
		r->phase = IL_PH_DRAINING; /* nothing to inject: just run for --duration-ms */
}

static void on_all_started(struct il_run *r)
{
	if (r->phase == IL_PH_RUNNING && r->inj && r->o->events)
		inject_arm(r, 0);
}

static void proc_control(struct il_proc *p, cJSON *msg)
{
	struct il_run *r = proc_run(p);
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(msg, "type");

	if (!cJSON_IsString(type))
		return;
	if (strcmp(type->valuestring, "ready") == 0 && !p->ready) {
		const cJSON *t;

		p->ready = true;
		cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(msg, "threads")) {
			const char *bad = il_thread_record_bad(t);

			if (bad) {
				il_orch_fail(r, "%s reported a thread record that is not one (%s)",
					     p->name, bad);
				return;
			}
			cJSON_AddItemToArray(r->threads, cJSON_Duplicate(t, 1));
		}
		for (int i = 0; i < IL_PROC_COUNT; i++)
			if (!r->procs[i].ready)
				return;
		if (r->phase == IL_PH_STARTING)
			on_all_ready(r);
	} else if (strcmp(type->valuestring, "pong") == 0) {
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(msg, "seq");

		p->pong_ns = il_now_ns();
		p->ping_sent_ns = 0;
		if (!p->started && p->start_seq && il_json_whole_in(seq, 0, 9007199254740992.0) &&
		    (uint64_t)seq->valuedouble >= p->start_seq) {
			p->started = true;
			for (int i = 0; i < IL_PROC_COUNT; i++)
				if (!r->procs[i].started)
					return;
			on_all_started(r);
		}
	} else if (strcmp(type->valuestring, "stats") == 0) {
		cJSON_Delete(p->stats_msg);
		p->stats_msg = cJSON_Duplicate(msg, 1);
	} else if (strcmp(type->valuestring, "error") == 0) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "message");

		il_orch_fail(r, "%s: %s", p->name,
			     cJSON_IsString(m) && m->valuestring[0] ? m->valuestring
								    : "failed without saying why");
		/* A policy that cannot be applied is the user's to fix: exit 2. */
		if (r->phase_deadline_ns && !p->ready)
			r->exit_code = 2;
	}
}

/* A child that was still there at the stop's bound and is killed: said
 * once, as the run's warning. */
static void say_stop_late(struct il_run *r, struct il_proc *p)
{
	if (p->stop_late_said || r->exit_code)
		return;
	p->stop_late_said = true;
	/* What it would have sent (its hog, load, memory figures) is missing. */
	if (!p->stats_msg)
		snprintf(r->stats_why[p - r->procs], sizeof(r->stats_why[0]),
			 "killed at the stop: it did not exit within %llu ms",
			 (unsigned long long)stop_timeout_ms(r));
	il_warn(&r->warnings, "%s did not exit within %llu ms of the stop and was killed%s",
		p->name, (unsigned long long)stop_timeout_ms(r),
		p->stats_msg ? " (after sending its figures)"
			     : ": its figures are missing (stats_missing)");
}

static void proc_exited(struct il_proc *p)
{
	struct il_run *r = proc_run(p);
	char how[128];

	il_proc_describe_exit(p, how, sizeof(how));
	if (r->phase < IL_PH_STOPPING) {
		il_orch_fail(r, "%s died (%s); stopping the run", p->name, how);
	} else if (r->phase == IL_PH_STOPPING && p->term_signal == SIGKILL &&
		   il_now_ns() >= r->phase_deadline_ns) {
		/* Killed by us (or by the watchdog, while the loop was held up)
		 * at the stop's bound: that is what happened, said once, not a
		 * failure of its own. */
		say_stop_late(r, p);
	} else if (!r->exit_code && r->phase == IL_PH_STOPPING &&
		   (p->term_signal || p->exit_status != 0)) {
		/* A child that fails on its way out (a sanitizer report, a crash in
		 * teardown) fails the run: its results may be wrong too. */
		fprintf(stderr, "inputlat: %s failed while stopping (%s)\n", p->name, how);
		snprintf(r->fail_msg, sizeof(r->fail_msg), "%s failed while stopping (%s)", p->name,
			 how);
		r->exit_code = 1;
	}
	/* The last child gone ends the run now, not at the next tick. */
	if (r->phase == IL_PH_STOPPING && all_exited(r))
		run_finish(r);
}

static void proc_control_eof(struct il_proc *p)
{
	struct il_run *r = proc_run(p);

	/* The last child's stats read ends the run, when its exit came first. */
	p->ctl_eof = true;
	if (r->phase == IL_PH_STOPPING && all_exited(r))
		run_finish(r);
}

static void proc_invalid(struct il_proc *p, int err)
{
	il_orch_fail(proc_run(p), "%s sent an invalid control frame (%s); stopping the run",
		     p->name, il_frame_strerror(err));
}

const struct il_proc_events il_orch_proc_events = {
    .control = proc_control,
    .exited = proc_exited,
    .control_eof = proc_control_eof,
    .invalid = proc_invalid,
};

/* Test hook (--test-garbage CHILD): bytes that are no frame, on its control channel. */
static void send_garbage(struct il_run *r)
{
	static const char junk[16] = "\xff\xff\xff\x7fgarbage!!!!!";
	uv_buf_t b = uv_buf_init((char *)junk, sizeof(junk));

	r->garbage_sent = true;
	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (i == r->o->test.garbage_proc && !r->procs[i].exited)
			uv_try_write((uv_stream_t *)&r->procs[i].ctl, &b, 1);
}

/* --- records from viz -------------------------------------------------- */
static void record_frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *m,
			    cJSON *json)
{
	struct il_run *r = ctx;

	if (!m)
		return;
	if (r->o->input.kind == IL_INPUT_EVDEV) {
		/* A physical mouse: the kernel's timestamp of the press is stamp 0,
		 * on the kernel's IRQ (CPU not reported). */
		struct il_msg s0;

		memset(&s0, 0, sizeof(s0));
		s0.stamp_ns[IL_STAMP_INJECT] = s0.end_ns[IL_STAMP_INJECT] = m->kernel_ns;
		s0.tid[IL_STAMP_INJECT] = (uint32_t)r->self_tid;
		s0.cpu[IL_STAMP_INJECT] = UINT32_MAX;
		il_event_window_open(r->events, m->event_id, &s0);
	}
	switch (il_event_window_record(r->events, m, il_ms_to_ns(r->o->timeout_ms))) {
	case IL_RECORD_STRAY:
		r->stray++;
		break;
	case IL_RECORD_LATE:
		r->late++;
		break;
	case IL_RECORD_COMPLETED:
	case IL_RECORD_TIMED_OUT:
		/* The last record ends the run now, not at the next tick. */
		if (r->phase == IL_PH_DRAINING && il_event_window_pending(r->events) == 0 &&
		    il_now_ns() - r->measure_start_ns >= il_ms_to_ns(r->o->duration_ms))
			run_stop(r);
		break;
	}
}

static void record_eof_cb(void *ctx, int status)
{
}

/* --- injection --------------------------------------------------------- */
static void release_cb(uv_timer_t *t)
{
	struct il_run *r = t->data;

	il_injector_release(r->inj);
}

static void inject(struct il_run *r)
{
	uint64_t id, base_ns, delay_ns, jitter;
	struct il_msg *m;
	int rc;

	if (r->phase != IL_PH_RUNNING)
		return;
	if (il_event_window_sent(r->events) >= il_run_opts_total_events(r->o)) {
		r->phase = IL_PH_DRAINING;
		return;
	}
	m = il_event_window_next(r->events);
	if (!m) {
		il_orch_fail(r, "out of memory for the events in flight");
		return;
	}
	id = m->event_id;
	m->tid[IL_STAMP_INJECT] = (uint32_t)r->self_tid;
	m->cpu[IL_STAMP_INJECT] = il_cpu_now();
	/*
	 * A click still held (its release timer late on a busy loop, or a hold
	 * longer than the interval) is released first: a press on a button
	 * already down is dropped by evdev, and that event would time out.
	 */
	if (uv_is_active((uv_handle_t *)&r->release_timer)) {
		uv_timer_stop(&r->release_timer);
		il_injector_release(r->inj);
	}
	if (r->marker_fd >= 0)
		inject_mark(r, m->event_id, true);
	rc = il_injector_press(r->inj, &m->stamp_ns[IL_STAMP_INJECT]);
	m->end_ns[IL_STAMP_INJECT] = il_now_ns();
	if (r->marker_fd >= 0)
		inject_mark(r, m->event_id, false);
	if (rc < 0) {
		r->inject_errors++;
		if (rc == -EPIPE) {
			/* browser-sim is gone: its exit callback (moments away) names it
			 * and the signal; the tick fails the run if that never comes. */
			r->inject_epipe_ns = il_now_ns();
			return;
		}
		if (rc != -EAGAIN) {
			il_orch_fail(r, "injecting mouse-down %llu: %s", (unsigned long long)id,
				     strerror(-rc));
			return;
		}
	} else {
		if (id == 1)
			r->first_inject_ns = m->stamp_ns[IL_STAMP_INJECT];
		il_event_window_commit(r->events);
		uv_timer_start(&r->release_timer, release_cb,
			       il_injector_hold_ns(r->inj) / 1000000 + 1, 0);
	}
	/* +-10% jitter so the pacing never phase-locks with the 60 Hz vblank. */
	base_ns = il_us_to_ns(r->o->interval_us);
	if (!il_injector_next_delay(r->inj, base_ns, &delay_ns)) {
		r->phase = IL_PH_DRAINING;
		return;
	}
	if (delay_ns == base_ns) {
		jitter = rng_next(r) % (base_ns / 5 + 1);
		delay_ns = base_ns - base_ns / 10 + jitter;
	}
	if (il_event_window_sent(r->events) >= il_run_opts_total_events(r->o)) {
		r->phase = IL_PH_DRAINING;
		return;
	}
	inject_arm(r, delay_ns);
}

/* Test hook --test-stall: the loop held up 2 s (nothing it watches is
 * read meanwhile), as a starved CPU or a slow reap holds it. */
static void hold_loop(struct il_run *r)
{
	struct timespec ts = {.tv_sec = 2};

	r->stalled = true;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Test hook (--test-stall CHILD): the loop held up inside a tick, every
 * child pinged first, so that each ping is older than the hang limit when
 * the tick goes on. (--test-stall stop holds it right after the stop is
 * sent instead: run_stop.)
 */
static void stall(struct il_run *r)
{
	uint64_t now = il_now_ns();

	for (int i = 0; i < IL_PROC_COUNT; i++)
		if (r->procs[i].spawned && !r->procs[i].exited)
			send_ping(&r->procs[i], now);
	if (r->o->test.stall_proc >= 0)
		il_proc_kill(&r->procs[r->o->test.stall_proc]);
	hold_loop(r);
}

/* --- the periodic tick: timeouts, liveness, phase changes -------------- */
/*
 * Timed out as of the last time the loop read everything, not as of now
 * (as check_liveness): after the loop was held up, this tick runs before
 * the I/O of the same turn, where the records of events presented in time
 * are still waiting. Judged as of now, a 2 s hold wrote off the events in
 * flight before it (3 of 300 at 5 ms), whose records then came "late".
 */
static void expire_events(struct il_run *r, uint64_t now)
{
	il_event_window_expire(r->events, r->io_seen_ns ? r->io_seen_ns : now,
			       il_ms_to_ns(r->o->timeout_ms));
}

static void check_liveness(struct il_run *r, uint64_t now)
{
	uint64_t dead_ms = ping_dead_ms(r);

	for (int i = 0; i < IL_PROC_COUNT; i++) {
		struct il_proc *p = &r->procs[i];

		if (!p->spawned || p->exited)
			continue;
		/*
		 * Late as of the last time the loop read everything, not as of
		 * now: after the loop was held up (a starved CPU, a slow reap),
		 * this tick runs before the I/O of the same turn, where the
		 * answers (and a dead child's exit) are still waiting to be read.
		 * A child that died, or is dying, is not hung either: its exit
		 * says "died".
		 */
		if (p->ping_sent_ns && r->io_seen_ns > p->ping_sent_ns &&
		    r->io_seen_ns - p->ping_sent_ns > il_ms_to_ns(dead_ms)) {
			if (il_proc_is_ending(p))
				continue;
			il_orch_fail(
			    r, "%s stopped answering (no reply for %llu ms); stopping the run",
			    p->name, (unsigned long long)dead_ms);
			return;
		}
		if (!p->ping_sent_ns && (now - p->pong_ns > il_ms_to_ns(PING_LATE_MS) ||
					 (now - p->pong_ns > il_ms_to_ns(PING_INTERVAL_MS) &&
					  (!r->events || il_event_window_pending(r->events) == 0))))
			send_ping(p, now);
	}
}

/* Events final so far of all, time since measuring began, and where the
 * processing latency stands. */
static void show_progress(struct il_run *r, uint64_t now)
{
	const struct il_hist *h = r->stats->processing;
	uint64_t done = il_event_window_completed(r->events) + il_event_window_timed_out(r->events);
	char total[32] = "";

	if (r->o->events)
		snprintf(total, sizeof(total), "/%llu", (unsigned long long)r->o->events);
	if (il_hist_count(h))
		il_progress_show(
		    &r->progress, "inputlat: %llu%s events  %.1f s  p50 %.0f us  p99 %.0f us",
		    (unsigned long long)done, total, il_ns_to_us(now - r->measure_start_ns) / 1e6,
		    il_ns_to_us(il_hist_percentile(h, 50)), il_ns_to_us(il_hist_percentile(h, 99)));
	else
		il_progress_show(&r->progress, "inputlat: %llu%s events  %.1f s",
				 (unsigned long long)done, total,
				 il_ns_to_us(now - r->measure_start_ns) / 1e6);
}

static void io_prepare_cb(uv_prepare_t *h)
{
	struct il_run *r = h->data;

	r->poll_from_ns = il_now_ns();
}

static void io_check_cb(uv_check_t *h)
{
	struct il_run *r = h->data;

	r->io_seen_ns = r->poll_from_ns;
}

static void tick_cb(uv_timer_t *t)
{
	struct il_run *r = t->data;
	uint64_t now = il_now_ns();

	switch (r->phase) {
	case IL_PH_STARTING:
		/* Late as of the last full read, as at the stop below. */
		if (r->io_seen_ns > r->phase_deadline_ns) {
			for (int i = 0; i < IL_PROC_COUNT; i++)
				if (!r->procs[i].ready) {
					il_orch_fail(r, "%s did not report ready within %d ms",
						     r->procs[i].name, READY_TIMEOUT_MS);
					return;
				}
		}
		break;
	case IL_PH_RUNNING:
	case IL_PH_DRAINING:
		if (il_progress_due(&r->progress, now))
			show_progress(r, now);
		if (r->sampler && now - r->last_sample_ns >= il_ms_to_ns(IL_SAMPLER_PERIOD_MS)) {
			il_sampler_tick(r->sampler, now);
			r->last_sample_ns = now;
		}
		/* As of the last full read too: its death may be waiting there,
		 * and says more than the closed pipe. */
		if (r->inject_epipe_ns && r->io_seen_ns > r->inject_epipe_ns + il_ms_to_ns(500)) {
			il_orch_fail(r, "browser-sim closed its input pipe; stopping the run");
			return;
		}
		il_attrib_run_tick(r->attrib);
		if (r->o->test.stall && !r->stalled &&
		    now - r->measure_start_ns > il_ms_to_ns(300)) {
			stall(r);
			now = il_now_ns();
		}
		expire_events(r, now);
		check_liveness(r, now);
		/* 300 ms into the measurement, once an event of it completed (a
		 * partial report then has one to keep: under ASan and load none
		 * had by 300 ms), and at 5 s whatever came. */
		if (r->o->test.garbage_proc >= 0 && !r->garbage_sent &&
		    now - r->measure_start_ns > il_ms_to_ns(300) &&
		    (il_event_window_completed(r->events) > 0 ||
		     now - r->measure_start_ns > il_ms_to_ns(5000)))
			send_garbage(r);
		if (r->phase == IL_PH_RUNNING && r->o->input.kind == IL_INPUT_EVDEV &&
		    il_event_window_sent(r->events) >= il_run_opts_total_events(r->o))
			r->phase = IL_PH_DRAINING;
		if (r->phase == IL_PH_RUNNING && !r->inj && r->o->input.kind != IL_INPUT_EVDEV)
			r->phase = IL_PH_DRAINING;
		if (r->phase == IL_PH_DRAINING && il_event_window_pending(r->events) == 0 &&
		    now - r->measure_start_ns >= il_ms_to_ns(r->o->duration_ms))
			run_stop(r);
		break;
	case IL_PH_STOPPING:
		/* Children send their stats and exit; we wait for every exit. */
		if (all_exited(r)) {
			run_finish(r);
		} else if (r->io_seen_ns > r->phase_deadline_ns) {
			/*
			 * Past the bound as of the last time the loop read
			 * everything (io_seen_ns), not as of now: after the loop
			 * was held up, this tick runs before the I/O of the same
			 * turn, where the children's exits may be waiting (in
			 * CI, a run beside a knob-holding one named all three
			 * as not exiting). Each is named once: the
			 * ticks until the kills are reaped come here again.
			 * Said as the run's warning (on stderr at the end, and
			 * in the report), not also as a line of its own now: one
			 * event, one line.
			 */
			for (int i = 0; i < IL_PROC_COUNT; i++)
				if (r->procs[i].spawned && !r->procs[i].exited)
					say_stop_late(r, &r->procs[i]);
			kill_all(r);
			if (r->io_seen_ns > r->phase_deadline_ns + il_ms_to_ns(500))
				run_finish(r);
		}
		break;
	case IL_PH_DONE:
		break;
	}
}

static void signal_cb(uv_signal_t *s, int signum)
{
	struct il_run *r = s->data;

	if (r->phase >= IL_PH_STOPPING) {
		/* A second signal: no more waiting. */
		kill_all(r);
		run_finish(r);
		return;
	}
	il_progress_clear(&r->progress);
	/*
	 * Ctrl-Z ends the run too: a paused run would hold the system knobs
	 * (and the machine lock) for as long as it stays stopped, its watchdog
	 * stopped with it, and its latencies after `fg` would measure the
	 * pause. The children ignore SIGTSTP (il_child.c), so they are not
	 * left stopped with the stop to do.
	 */
	if (signum == SIGTSTP)
		fprintf(stderr,
			"inputlat: %s: a paused run would keep the system knobs changed and "
			"measure the pause; stopping, writing results for the events so far\n",
			strsignal(signum));
	else
		fprintf(stderr, "inputlat: %s: stopping, writing results for the events so far\n",
			strsignal(signum));
	r->interrupted = true;
	run_stop(r);
}

int il_orch_records_start(struct il_run *r, int fd)
{
	int rc;

	uv_pipe_init(&r->loop, &r->records, 0);
	rc = uv_pipe_open(&r->records, fd);
	if (rc == 0)
		rc = il_frame_reader_start((uv_stream_t *)&r->records, record_frame_cb,
					   record_eof_cb, r, &r->records_reader);
	return rc;
}

static void walk_close_cb(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

void il_orch_init(struct il_run *r)
{
	static const int sigs[] = {IL_RUN_STOP_SIGNALS};

	_Static_assert(sizeof(sigs) / sizeof(sigs[0]) == sizeof(r->sig) / sizeof(r->sig[0]),
		       "one uv_signal_t per stop signal");

	int rc = uv_loop_init(&r->loop);

	if (rc < 0) {
		/* No loop, no run (libuv would assert later): one line, and
		 * il_orch_run returns at once. */
		il_progress_init(&r->progress, true);
		r->phase = IL_PH_STARTING;
		il_orch_fail(r, "cannot create the event loop: %s%s", uv_strerror(rc),
			     rc == UV_EMFILE ? " (raise the open-file limit, ulimit -n)" : "");
		return;
	}
	r->loop_open = true;
	uv_timer_init(&r->loop, &r->release_timer);
	uv_timer_init(&r->loop, &r->tick_timer);
	uv_prepare_init(&r->loop, &r->io_prepare);
	uv_check_init(&r->loop, &r->io_check);
	r->release_timer.data = r->tick_timer.data = r->io_prepare.data = r->io_check.data = r;
	/* The phase first: a failure below moves it on to stopping, and the
	 * loop then ends at once (no child is started) instead of waiting for
	 * children that never were to say ready. */
	il_progress_init(&r->progress, r->o->quiet);
	r->phase = IL_PH_STARTING;
	r->phase_deadline_ns = il_now_ns() + il_ms_to_ns(READY_TIMEOUT_MS);
	r->inject_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	rc = r->inject_tfd < 0 ? -errno : uv_poll_init(&r->loop, &r->inject_poll, r->inject_tfd);
	if (rc < 0) {
		il_orch_fail(r, "cannot create the injection timer: %s%s", strerror(-rc),
			     rc == -EMFILE ? " (raise the open-file limit, ulimit -n)" : "");
		return;
	}
	r->inject_poll.data = r;
	uv_poll_start(&r->inject_poll, UV_READABLE, inject_poll_cb);
	/* libuv's signal pipe is made here: without it no handler, and an
	 * unchecked handle would abort in libuv. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (il_stop_signal_ignored(sigs[i]))
			continue; /* nohup's SIGHUP stays ignored */
		rc = uv_signal_init(&r->loop, &r->sig[i]);
		if (rc < 0) {
			il_orch_fail(
			    r, "cannot watch for %s: %s%s", strsignal(sigs[i]), uv_strerror(rc),
			    rc == UV_EMFILE ? " (raise the open-file limit, ulimit -n)" : "");
			return;
		}
		r->sig[i].data = r;
		uv_signal_start(&r->sig[i], signal_cb, sigs[i]);
	}
	signal(SIGPIPE, SIG_IGN);
}

void il_orch_run(struct il_run *r)
{
	if (!r->loop_open) { /* il_orch_init failed, and said why */
		r->phase = IL_PH_DONE;
		r->end_ns = il_now_ns();
		return;
	}
	uv_timer_start(&r->tick_timer, tick_cb, TICK_MS, TICK_MS);
	uv_prepare_start(&r->io_prepare, io_prepare_cb);
	uv_check_start(&r->io_check, io_check_cb);
	uv_run(&r->loop, UV_RUN_DEFAULT);

	/* Close everything, then let the loop deliver the close callbacks. */
	for (int i = 0; i < IL_PROC_COUNT; i++)
		il_proc_close(&r->procs[i]);
	r->invalid_frames = il_frame_reader_invalid(r->records_reader);
	il_frame_reader_free(r->records_reader);
	r->records_reader = NULL;
	uv_walk(&r->loop, walk_close_cb, NULL);
	uv_run(&r->loop, UV_RUN_DEFAULT);
	uv_loop_close(&r->loop);
	r->loop_open = false;

	for (int i = 0; i < IL_PROC_COUNT; i++) {
		const cJSON *s = r->procs[i].stats_msg;
		const cJSON *inv = s ? cJSON_GetObjectItemCaseSensitive(s, "invalid_frames") : NULL;

		if (il_json_whole_in(inv, 0, 9007199254740992.0))
			r->invalid_frames += (uint64_t)inv->valuedouble;
	}
	if (r->end_ns == 0)
		r->end_ns = il_now_ns();
	/* Events still in flight leave with their state, stamp 0 and all. */
	il_event_window_flush(r->events);
}
