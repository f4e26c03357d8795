#include "il_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_fds.h"
#include "il_paths.h"
#include "il_sched.h"
#include "il_spin.h"
#include "il_thread.h"
#include "il_watchdog.h"
#include "il_work.h"

#define TICK_MS 20
#define READY_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 1500
#define PING_INTERVAL_MS 250
#define PING_DEAD_MS 1500
/* The orchestrator's loop runs above every role so a run can always end. */
#define ORCH_FIFO_PRIO 98

static const char *const proc_names[IL_P_COUNT] = { "browser-sim", "render-sim", "viz-sim",
						    "il-workload" };

static void run_stop(struct il_run *r);
static void inject_cb(uv_timer_t *t);
static void run_fail(struct il_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
	for (int i = 0; i < r->nprocs; i++)
		if (r->procs[i].spawned && !r->procs[i].exited)
			il_ctl_send_type((uv_stream_t *)&r->procs[i].ctl, type);
}

static void kill_all(struct il_run *r)
{
	for (int i = 0; i < r->nprocs; i++)
		il_proc_kill(&r->procs[i]);
}

/* --- failure and stop -------------------------------------------------- */
static void run_fail(struct il_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->phase >= IL_PH_STOPPING && r->exit_code)
		return;
	va_start(ap, fmt);
	vsnprintf(r->fail_msg, sizeof(r->fail_msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "inputlat: %s\n", r->fail_msg);
	r->exit_code = 1;
	/* A failed run does not wait for goodbyes: the children are ours, by pid. */
	kill_all(r);
	uv_timer_stop(&r->inject_timer);
	r->phase = IL_PH_STOPPING;
	r->phase_deadline_ns = il_now_ns() + il_ms_to_ns(STOP_TIMEOUT_MS);
}

static bool all_exited(const struct il_run *r)
{
	for (int i = 0; i < r->nprocs; i++)
		if (r->procs[i].spawned && !r->procs[i].exited)
			return false;
	return true;
}

static void run_finish(struct il_run *r)
{
	r->phase = IL_PH_DONE;
	r->end_ns = il_now_ns();
	uv_timer_stop(&r->inject_timer);
	uv_timer_stop(&r->release_timer);
	uv_timer_stop(&r->tick_timer);
	uv_stop(&r->loop);
}

static void run_stop(struct il_run *r)
{
	if (r->phase >= IL_PH_STOPPING)
		return;
	uv_timer_stop(&r->inject_timer);
	r->phase = IL_PH_STOPPING;
	r->phase_deadline_ns = il_now_ns() + il_ms_to_ns(STOP_TIMEOUT_MS);
	send_all(r, "stop");
}

/* --- children ---------------------------------------------------------- */
static struct il_run *proc_run(struct il_proc *p)
{
	return p->data;
}

static void on_all_ready(struct il_run *r)
{
	r->phase = IL_PH_RUNNING;
	r->measure_start_ns = il_now_ns();
	if (r->o->trace_path) {
		r->sampler = il_sampler_new(r->threads, r->nr_cpus, 100000);
		il_sampler_tick(r->sampler, r->measure_start_ns);
		r->last_sample_ns = r->measure_start_ns;
	}
	send_all(r, "start");
	/* A short settle before the first event so "start" is handled everywhere. */
	if (r->inj && r->o->events)
		uv_timer_start(&r->inject_timer, inject_cb, 20, 0);
	else if (r->o->input.kind != IL_INPUT_EVDEV)
		r->phase = IL_PH_DRAINING; /* nothing to inject: just run for --duration-ms */
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
		cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(msg, "threads"))
			cJSON_AddItemToArray(r->threads, cJSON_Duplicate(t, 1));
		for (int i = 0; i < r->nprocs; i++)
			if (!r->procs[i].ready)
				return;
		if (r->phase == IL_PH_STARTING)
			on_all_ready(r);
	} else if (strcmp(type->valuestring, "pong") == 0) {
		p->pong_ns = il_now_ns();
		p->ping_sent_ns = 0;
	} else if (strcmp(type->valuestring, "stats") == 0) {
		cJSON_Delete(p->stats_msg);
		p->stats_msg = cJSON_Duplicate(msg, 1);
		p->stats_received = true;
	} else if (strcmp(type->valuestring, "error") == 0) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "message");

		run_fail(r, "%s: %s", p->name, cJSON_IsString(m) ? m->valuestring : "failed");
		/* A policy that cannot be applied is the user's to fix: exit 2. */
		if (r->phase_deadline_ns && !p->ready)
			r->exit_code = 2;
	}
}

static void proc_exited(struct il_proc *p)
{
	struct il_run *r = proc_run(p);
	char how[128];

	il_proc_describe_exit(p, how, sizeof(how));
	if (r->phase < IL_PH_STOPPING) {
		run_fail(r, "%s died (%s); stopping the run", p->name, how);
	} else if (!r->exit_code && r->phase == IL_PH_STOPPING &&
		   (p->term_signal || p->exit_status != 0)) {
		/* A child that fails on its way out (a sanitizer report, a crash in
		 * teardown) fails the run: its results may be wrong too. */
		fprintf(stderr, "inputlat: %s failed while stopping (%s)\n", p->name, how);
		snprintf(r->fail_msg, sizeof(r->fail_msg), "%s failed while stopping (%s)", p->name, how);
		r->exit_code = 1;
	}
}

static void proc_control_eof(struct il_proc *p)
{
	/* The exit callback tells what happened; nothing to do here. */
}

static void proc_invalid(struct il_proc *p, int err)
{
	run_fail(proc_run(p), "%s sent an invalid control frame (%s); stopping the run", p->name,
		 il_frame_strerror(err));
}

static const struct il_proc_events proc_events = {
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
	for (int i = 0; i < r->nprocs; i++)
		if (strcmp(r->procs[i].name, r->o->garbage) == 0 && !r->procs[i].exited)
			uv_try_write((uv_stream_t *)&r->procs[i].ctl, &b, 1);
}

/* --- records from viz -------------------------------------------------- */
static void record_frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *m, cJSON *json)
{
	struct il_run *r = ctx;
	uint64_t id;

	if (!m)
		return;
	id = m->event_id;
	if (r->o->input.kind == IL_INPUT_EVDEV && id >= 1 && id <= r->capacity &&
	    r->state[id] == IL_EV_UNSENT) {
		/* A physical mouse: the kernel's timestamp of the press is stamp 0. */
		r->stamp0[id] = r->stamp0_end[id] = m->kernel_ns;
		r->state[id] = IL_EV_PENDING;
		if (id > r->nsent)
			r->nsent = id;
	}
	if (id < 1 || id > r->nsent) {
		r->stray++;
		return;
	}
	if (r->state[id] != IL_EV_PENDING) {
		r->late++;
		return;
	}
	r->msgs[id] = *m;
	r->msgs[id].stamp_ns[0] = r->stamp0[id];
	r->msgs[id].end_ns[0] = r->stamp0_end[id];
	r->msgs[id].tid[0] = (uint32_t)r->self_tid;
	if (m->stamp_ns[12] - r->stamp0[id] > il_ms_to_ns(r->o->timeout_ms)) {
		r->state[id] = IL_EV_TIMED_OUT;
		r->timed_out++;
	} else {
		r->state[id] = IL_EV_COMPLETED;
		r->completed++;
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

static void inject_cb(uv_timer_t *t)
{
	struct il_run *r = t->data;
	uint64_t id, base_ns, delay_ns, jitter;
	int rc;

	if (r->phase != IL_PH_RUNNING)
		return;
	if (r->nsent >= r->o->events || r->nsent >= r->capacity) {
		r->phase = IL_PH_DRAINING;
		return;
	}
	id = r->nsent + 1;
	rc = il_injector_press(r->inj, &r->stamp0[id]);
	r->stamp0_end[id] = il_now_ns();
	if (rc < 0) {
		r->inject_errors++;
		if (rc == -EPIPE) {
			/* browser-sim is gone: its exit callback (moments away) names it
			 * and the signal; the tick fails the run if that never comes. */
			r->inject_epipe_ns = il_now_ns();
			return;
		}
		if (rc != -EAGAIN) {
			run_fail(r, "injecting mouse-down %llu: %s", (unsigned long long)id, strerror(-rc));
			return;
		}
	} else {
		r->nsent = id;
		r->state[id] = IL_EV_PENDING;
		uv_timer_start(&r->release_timer, release_cb, il_injector_hold_ns(r->inj) / 1000000 + 1, 0);
	}
	/* +-10% jitter so the pacing never phase-locks with the 60 Hz vblank. */
	base_ns = il_ms_to_ns(r->o->interval_ms);
	if (!il_injector_next_delay(r->inj, base_ns, &delay_ns)) {
		r->phase = IL_PH_DRAINING;
		return;
	}
	if (delay_ns == base_ns) {
		jitter = rng_next(r) % (base_ns / 5 + 1);
		delay_ns = base_ns - base_ns / 10 + jitter;
	}
	if (r->nsent >= r->o->events) {
		r->phase = IL_PH_DRAINING;
		return;
	}
	uv_timer_start(&r->inject_timer, inject_cb, (delay_ns + 500000) / 1000000, 0);
}

/* --- the periodic tick: timeouts, liveness, phase changes -------------- */
static void expire_events(struct il_run *r, uint64_t now)
{
	uint64_t limit = il_ms_to_ns(r->o->timeout_ms);

	while (r->oldest_pending < r->nsent) {
		uint64_t id = r->oldest_pending + 1;

		if (r->state[id] == IL_EV_PENDING) {
			if (now - r->stamp0[id] <= limit)
				break;
			r->state[id] = IL_EV_TIMED_OUT;
			r->timed_out++;
		}
		r->oldest_pending = id;
	}
}

static void check_liveness(struct il_run *r, uint64_t now)
{
	for (int i = 0; i < r->nprocs; i++) {
		struct il_proc *p = &r->procs[i];

		if (!p->spawned || p->exited)
			continue;
		if (p->ping_sent_ns && now - p->ping_sent_ns > il_ms_to_ns(PING_DEAD_MS)) {
			run_fail(r, "%s stopped answering (no reply for %d ms); stopping the run", p->name,
				 PING_DEAD_MS);
			return;
		}
		if (!p->ping_sent_ns && now - p->pong_ns > il_ms_to_ns(PING_INTERVAL_MS)) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "type", "ping");
			cJSON_AddNumberToObject(o, "seq", (double)++p->ping_seq);
			il_ctl_send((uv_stream_t *)&p->ctl, o);
			cJSON_Delete(o);
			p->ping_sent_ns = now;
		}
	}
}

static void tick_cb(uv_timer_t *t)
{
	struct il_run *r = t->data;
	uint64_t now = il_now_ns();

	switch (r->phase) {
	case IL_PH_STARTING:
		if (now > r->phase_deadline_ns) {
			for (int i = 0; i < r->nprocs; i++)
				if (!r->procs[i].ready) {
					run_fail(r, "%s did not report ready within %d ms", r->procs[i].name,
						 READY_TIMEOUT_MS);
					return;
				}
		}
		break;
	case IL_PH_RUNNING:
	case IL_PH_DRAINING:
		if (r->sampler && now - r->last_sample_ns >= il_ms_to_ns(IL_SAMPLER_PERIOD_MS)) {
			il_sampler_tick(r->sampler, now);
			r->last_sample_ns = now;
		}
		if (r->inject_epipe_ns && now - r->inject_epipe_ns > il_ms_to_ns(500)) {
			run_fail(r, "browser-sim closed its input pipe; stopping the run");
			return;
		}
		expire_events(r, now);
		check_liveness(r, now);
		if (r->o->garbage[0] && !r->garbage_sent && now - r->measure_start_ns > il_ms_to_ns(300))
			send_garbage(r);
		if (r->phase == IL_PH_RUNNING && r->o->input.kind == IL_INPUT_EVDEV &&
		    r->nsent >= r->o->events)
			r->phase = IL_PH_DRAINING;
		if (r->phase == IL_PH_RUNNING && !r->inj && r->o->input.kind != IL_INPUT_EVDEV)
			r->phase = IL_PH_DRAINING;
		if (r->phase == IL_PH_DRAINING && r->oldest_pending >= r->nsent &&
		    now - r->measure_start_ns >= il_ms_to_ns(r->o->duration_ms))
			run_stop(r);
		break;
	case IL_PH_STOPPING:
		/* Children send their stats and exit; we wait for every exit. */
		if (all_exited(r)) {
			run_finish(r);
		} else if (now > r->phase_deadline_ns) {
			for (int i = 0; i < r->nprocs; i++)
				if (r->procs[i].spawned && !r->procs[i].exited && !r->exit_code)
					fprintf(stderr, "inputlat: %s did not exit after stop; killing it\n",
						r->procs[i].name);
			kill_all(r);
			if (now > r->phase_deadline_ns + il_ms_to_ns(500))
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
	fprintf(stderr, "inputlat: %s: stopping, writing results for the events so far\n",
		strsignal(signum));
	r->interrupted = true;
	run_stop(r);
}

/* --- setup ------------------------------------------------------------- */
struct args {
	char *v[64];
	int n;
};

static void args_add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void args_add(struct args *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n >= 63)
		return;
	va_start(ap, fmt);
	if (vasprintf(&a->v[a->n], fmt, ap) >= 0)
		a->n++;
	va_end(ap);
	a->v[a->n] = NULL;
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

/* Options every child takes; the chain's processes also take the hop settings. */
static void args_common(struct il_run *r, struct args *a, uint64_t rttime_us, bool chain)
{
	args_add(a, "--builtin-dir=%s", r->policy_dir);
	args_add(a, "--policy=%s", il_policy_path(r->policy));
	args_add(a, "--rttime-us=%llu", (unsigned long long)rttime_us);
	args_add(a, "--parent-pid=%d", (int)getpid());
	if (!chain)
		return;
	args_add(a, "--loops-per-us=%.6f", r->loops_per_us);
	args_add(a, "--lock=%s", r->o->lock);
	if (r->o->runaway[0])
		args_add(a, "--runaway=%s", r->o->runaway);
	for (int t = 0; t < IL_T_COUNT; t++)
		args_add(a, "--work=%s=%llu", il_thread_name(t), (unsigned long long)r->o->work_us[t]);
}

static int socket_pair(int sv[2])
{
	/* CLOEXEC so a child inherits only the fds uv_spawn places for it. */
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ? -errno : 0;
}

/* fds of one child: index = the fd number in the child. */
struct child_fds {
	int fd[IL_CHILD_MAX_FDS];
};

static int spawn_children(struct il_run *r, uint64_t rttime_us, char *err, size_t errlen)
{
	int ctl[IL_P_COUNT][2], br[2], rv[2], vb[2], vo[2], in[2] = { -1, -1 };
	struct child_fds cf[IL_P_COUNT];
	char input_text[300];
	int rc = 0;

	for (int i = 0; i < IL_P_COUNT; i++)
		ctl[i][0] = ctl[i][1] = -1;
	br[0] = br[1] = rv[0] = rv[1] = vb[0] = vb[1] = vo[0] = vo[1] = -1;
	/* The canary (in il-workload) is always on: a missing program is an error below. */
	r->nprocs = IL_P_COUNT;
	for (int i = 0; i < r->nprocs && rc == 0; i++)
		rc = socket_pair(ctl[i]);
	if (rc == 0)
		rc = socket_pair(br);
	if (rc == 0)
		rc = socket_pair(rv);
	if (rc == 0)
		rc = socket_pair(vb);
	if (rc == 0)
		rc = socket_pair(vo);
	if (rc == 0 && pipe2(in, O_CLOEXEC) < 0)
		rc = -errno;
	if (rc < 0) {
		snprintf(err, errlen, "creating the hop pipes: %s", strerror(-rc));
		goto out;
	}
	r->input_wfd = in[1];
	/* A stalled browser must not block the injector: a full pipe is an error we count. */
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);

	if (r->o->input.kind != IL_INPUT_EVDEV) {
		rc = il_injector_open(&r->o->input, in[1], &r->inj, err, errlen);
		if (rc < 0)
			goto out;
	}

	for (int i = 0; i < IL_P_COUNT; i++)
		for (int f = 0; f < IL_CHILD_MAX_FDS; f++)
			cf[i].fd[f] = -1;
	for (int i = 0; i < r->nprocs; i++)
		cf[i].fd[IL_FD_CONTROL] = ctl[i][1];
	cf[IL_P_BROWSER].fd[IL_FD_BROWSER_INPUT] = in[0];
	cf[IL_P_BROWSER].fd[IL_FD_BROWSER_TO_RENDER] = br[0];
	cf[IL_P_BROWSER].fd[IL_FD_BROWSER_FEEDBACK] = vb[0];
	cf[IL_P_RENDER].fd[IL_FD_RENDER_FROM_BROWSER] = br[1];
	cf[IL_P_RENDER].fd[IL_FD_RENDER_TO_VIZ] = rv[0];
	cf[IL_P_VIZ].fd[IL_FD_VIZ_FROM_RENDER] = rv[1];
	cf[IL_P_VIZ].fd[IL_FD_VIZ_FEEDBACK] = vb[1];
	cf[IL_P_VIZ].fd[IL_FD_VIZ_RECORDS] = vo[0];

	for (int i = 0; i < r->nprocs; i++) {
		struct args a = { 0 };

		args_common(r, &a, rttime_us, i != IL_P_WORKLOAD);
		if (i == IL_P_BROWSER) {
			il_input_spec_format(&r->o->input, input_text, sizeof(input_text));
			args_add(&a, "--input=%s", input_text);
			if (il_injector_devnode(r->inj))
				args_add(&a, "--input-node=%s", il_injector_devnode(r->inj));
		} else if (i == IL_P_RENDER && r->o->hog_threads) {
			args_add(&a, "--hog=%llu", (unsigned long long)r->o->hog_threads);
			args_add(&a, "--hog-mode=%s", r->o->hog_mode == IL_HOG_MODE_BURSTY ? "bursty" : "busy");
			args_add(&a, "--hog-task-ms=%llu", (unsigned long long)r->o->hog_task_ms);
			args_add(&a, "--hog-gap-ms=%llu", (unsigned long long)r->o->hog_gap_ms);
		} else if (i == IL_P_VIZ) {
			il_present_spec_format(&r->o->present, input_text, sizeof(input_text));
			args_add(&a, "--present=%s", input_text);
		} else if (i == IL_P_WORKLOAD) {
			args_add(&a, "--load=%llu", (unsigned long long)r->o->load_threads);
		}
		rc = il_proc_spawn(&r->loop, &r->procs[i], r->children_dir, proc_names[i], a.v,
				   cf[i].fd, IL_CHILD_MAX_FDS, ctl[i][0], &proc_events, r);
		args_free(&a);
		if (r->procs[i].spawned)
			il_watchdog_add_pid(r->procs[i].pid);
		if (rc < 0) {
			snprintf(err, errlen, "starting %.200s/%s: %s", r->children_dir, proc_names[i],
				 uv_strerror(rc));
			goto out;
		}
	}
	uv_pipe_init(&r->loop, &r->records, 0);
	rc = uv_pipe_open(&r->records, vo[1]);
	vo[1] = -1; /* owned by the pipe handle now */
	if (rc == 0)
		rc = il_frame_reader_start((uv_stream_t *)&r->records, record_frame_cb, record_eof_cb, r,
					   &r->records_reader);
	if (rc < 0)
		snprintf(err, errlen, "opening the records pipe: %s", uv_strerror(rc));
out:
	/* The children hold their ends now; ours are closed here. */
	for (int i = 0; i < IL_P_COUNT; i++)
		if (ctl[i][1] >= 0)
			close(ctl[i][1]);
	for (int i = 0; i < 2; i++) {
		if (br[i] >= 0)
			close(br[i]);
		if (rv[i] >= 0)
			close(rv[i]);
		if (vb[i] >= 0)
			close(vb[i]);
	}
	if (vo[0] >= 0)
		close(vo[0]);
	if (vo[1] >= 0)
		close(vo[1]);
	if (in[0] >= 0)
		close(in[0]);
	for (int i = 0; i < r->nprocs; i++)
		if (!r->procs[i].spawned && ctl[i][0] >= 0)
			close(ctl[i][0]);
	return rc;
}

/* Whether this process may use SCHED_FIFO/RR at priority prio at all. */
static bool may_use_rt(int prio)
{
	struct rlimit rl;
	char line[256];
	FILE *f;
	bool cap = false;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long eff;

		/* CAP_SYS_NICE is capability 23. */
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			cap = eff & (1ull << 23);
	}
	if (f)
		fclose(f);
	return cap || (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY ||
							    rl.rlim_cur >= (rlim_t)prio));
}

static int policy_max_rt_prio(const struct il_policy *p)
{
	int max = 0;

	for (int i = 0; i < IL_ROLE_COUNT; i++) {
		const struct il_role_attrs *a = il_policy_role(p, (enum il_role)i);

		if ((a->sched_class == SCHED_FIFO || a->sched_class == SCHED_RR) && a->priority > max)
			max = a->priority;
	}
	return max;
}

static bool policy_sets_knobs(const struct il_policy *p)
{
	const struct il_knob_settings *k = il_policy_knobs(p);

	return k->has_rt_runtime || k->has_rt_period || k->has_fair_server;
}

static char *join_cmdline(int argc, char **argv)
{
	size_t len = strlen("inputlat") + 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "inputlat");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static long long read_rt_runtime_us(void)
{
	FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	long long v = LLONG_MIN;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = LLONG_MIN;
		fclose(f);
	}
	return v;
}

static void walk_close_cb(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

static int run_alloc(struct il_run *r)
{
	r->capacity = r->o->events;
	r->stamp0 = calloc(r->capacity + 1, sizeof(*r->stamp0));
	r->stamp0_end = calloc(r->capacity + 1, sizeof(*r->stamp0_end));
	r->state = calloc(r->capacity + 1, sizeof(*r->state));
	r->msgs = calloc(r->capacity + 1, sizeof(*r->msgs));
	r->threads = cJSON_CreateArray();
	return r->stamp0 && r->stamp0_end && r->state && r->msgs && r->threads ? 0 : -ENOMEM;
}

static void run_free(struct il_run *r)
{
	free(r->stamp0);
	free(r->stamp0_end);
	free(r->state);
	free(r->msgs);
	cJSON_Delete(r->threads);
	il_sampler_free(r->sampler);
	for (int i = 0; i < r->nprocs; i++)
		il_proc_free_msgs(&r->procs[i]);
	free(r->cmdline);
	il_injector_free(r->inj);
	if (r->input_wfd > 0)
		close(r->input_wfd);
	il_policy_free(r->policy);
}

/* Writes every output asked for; returns the first error (each printed one line). */
static int write_outputs(struct il_run *r)
{
	int rc = 0;

#define IL_OUT(path, fn)                                                                           \
	do {                                                                                       \
		if ((path) && fn(r, (path)) < 0 && rc == 0)                                        \
			rc = -EIO;                                                                 \
	} while (0)
	IL_OUT(r->o->json_path, il_report_json);
	IL_OUT(r->o->hist_path, il_report_hist);
	IL_OUT(r->o->hist_csv_path, il_report_hist_csv);
	IL_OUT(r->o->trace_path, il_report_trace);
	IL_OUT(r->o->records_path, il_report_records);
#undef IL_OUT
	return rc;
}

int il_cmd_run(int argc, char **argv)
{
	struct il_run_opts o;
	struct il_run r;
	char err[1024];
	uint64_t bound_ns, rttime_us;
	bool wd_rt;
	int rc;

	rc = il_run_opts_parse(argc, argv, &o);
	if (rc == 1)
		return 0;
	if (rc)
		return 2;
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.input_wfd = -1;
	r.self_tid = il_gettid();
	r.nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	/* Everything a user can get wrong is checked before anything starts. */
	if (il_input_check(&o.input, err, sizeof(err)) < 0 ||
	    il_present_check(&o.present, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	if (strcmp(o.lock, "il-bpf") == 0) {
		/* Each child loads the on-CPU source itself; check here that it can. */
		if (il_spin_init(IL_SPIN_SOURCE_BPF, NULL) < 0) {
			fprintf(stderr, "inputlat run: --lock il-bpf: BPF on-CPU source unavailable: %s\n",
				il_spin_source_reason());
			return 2;
		}
		il_spin_close();
	}
	if (il_paths_children(r.children_dir, sizeof(r.children_dir), err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 1;
	}
	il_paths_policies(r.policy_dir, sizeof(r.policy_dir));
	if (il_policy_load(o.policy, r.policy_dir, &r.policy, err, sizeof(err)) < 0) {
		fprintf(stderr, "inputlat run: %s\n", err);
		return 2;
	}
	if (policy_max_rt_prio(r.policy) && !may_use_rt(policy_max_rt_prio(r.policy))) {
		fprintf(stderr, "inputlat run: policy %s needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d (run as root)\n",
			il_policy_name(r.policy), policy_max_rt_prio(r.policy));
		il_policy_free(r.policy);
		return 2;
	}
	/* A crashed run's knobs are put back first. A live run's knobs are left
	 * alone, and only a policy that needs knobs of its own must wait for it. */
	if (il_knobs_recover_stale(il_knobs_state_dir(), stderr) < 0 && policy_sets_knobs(r.policy)) {
		/* Its one line (held by a live run, or an untrustworthy state file) is printed. */
		il_policy_free(r.policy);
		return 1;
	}
	r.cmdline = join_cmdline(argc, argv);
	if (run_alloc(&r) < 0 || !r.cmdline) {
		fprintf(stderr, "inputlat run: out of memory for %llu events\n", (unsigned long long)o.events);
		run_free(&r);
		return 1;
	}
	r.rng = o.seed ? o.seed : il_now_ns();
	clock_gettime(CLOCK_REALTIME, &r.start_wall);
	r.start_ns = il_now_ns();
	r.loops_per_us = il_work_calibrate();

	/* Knobs: originals go to the state file before anything changes. */
	rc = il_knobs_apply(il_policy_knobs(r.policy), il_knobs_state_dir(), &r.knobs, err, sizeof(err));
	if (rc == -EBUSY) {
		/* Another run took the knobs since the check above: not the user's mistake. */
		fprintf(stderr, "inputlat run: another inputlat run holds the system knobs (state in %s); wait for it to end\n",
			il_knobs_state_dir());
		run_free(&r);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "inputlat run: policy %s: %s\n", il_policy_name(r.policy), err);
		run_free(&r);
		return 2;
	}
	r.fs = r.knobs.fs;
	/* The report gives the value in force during the run; the one before it
	 * is in knobs[].original. */
	r.rt_runtime_us = read_rt_runtime_us();

	bound_ns = il_ms_to_ns(READY_TIMEOUT_MS + o.duration_ms + o.timeout_ms + 10000) +
		   il_ms_to_ns(o.events * o.interval_ms * 11 / 10);
	rttime_us = o.rttime_ms ? o.rttime_ms * 1000 : bound_ns / 1000;
	if (il_watchdog_start(bound_ns, &r.knobs, &wd_rt) < 0) {
		fprintf(stderr, "inputlat run: cannot start the watchdog thread\n");
		il_knobs_restore(il_knobs_state_dir(), NULL, err, sizeof(err));
		run_free(&r);
		return 1;
	}
	if (il_policy_uses_rt(r.policy)) {
		struct sched_param sp = { .sched_priority = ORCH_FIFO_PRIO };

		il_rttime_limit_set(rttime_us, rttime_us + 1000000);
		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}

	uv_loop_init(&r.loop);
	uv_timer_init(&r.loop, &r.inject_timer);
	uv_timer_init(&r.loop, &r.release_timer);
	uv_timer_init(&r.loop, &r.tick_timer);
	r.inject_timer.data = r.release_timer.data = r.tick_timer.data = &r;
	{
		static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };

		for (int i = 0; i < 3; i++) {
			uv_signal_init(&r.loop, &r.sig[i]);
			r.sig[i].data = &r;
			uv_signal_start(&r.sig[i], signal_cb, sigs[i]);
		}
	}
	signal(SIGPIPE, SIG_IGN);

	r.phase = IL_PH_STARTING;
	r.phase_deadline_ns = il_now_ns() + il_ms_to_ns(READY_TIMEOUT_MS);
	rc = spawn_children(&r, rttime_us, err, sizeof(err));
	if (rc < 0) {
		run_fail(&r, "%s", err);
		if (rc == -ENOENT || rc == -EACCES || rc == -ENODEV)
			r.exit_code = 2;
	}
	uv_timer_start(&r.tick_timer, tick_cb, TICK_MS, TICK_MS);
	uv_run(&r.loop, UV_RUN_DEFAULT);

	/* Close everything, then let the loop deliver the close callbacks. */
	for (int i = 0; i < r.nprocs; i++)
		il_proc_close(&r.procs[i]);
	r.invalid_frames = il_frame_reader_invalid(r.records_reader);
	il_frame_reader_free(r.records_reader);
	r.records_reader = NULL;
	uv_walk(&r.loop, walk_close_cb, NULL);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	uv_loop_close(&r.loop);

	for (int i = 0; i < r.nprocs; i++) {
		const cJSON *s = r.procs[i].stats_msg;
		const cJSON *inv = s ? cJSON_GetObjectItemCaseSensitive(s, "invalid_frames") : NULL;

		if (cJSON_IsNumber(inv))
			r.invalid_frames += (uint64_t)inv->valuedouble;
	}
	if (r.end_ns == 0)
		r.end_ns = il_now_ns();

	if (r.knobs.n && il_knobs_restore(il_knobs_state_dir(), NULL, err, sizeof(err)) < 0)
		fprintf(stderr, "inputlat: restoring system knobs: %s\n", err);
	/* An output that could not be written fails the run: its results are lost. */
	if (write_outputs(&r) < 0 && r.exit_code == 0)
		r.exit_code = 1;
	if (r.exit_code == 0 || r.completed)
		il_report_summary(&r);
	il_watchdog_stop();
	rc = r.exit_code;
	run_free(&r);
	return rc;
}
