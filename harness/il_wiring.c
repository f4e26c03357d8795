/*
 * Wiring: one socket pair (or pipe) per channel of il_chain, each end
 * handed to the process the table names at the fd it names, and every
 * child spawned with the options that concern it alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "il_ctl.h"
#include "il_lock.h"
#include "il_present.h"
#include "il_run.h"
#include "il_sched_table.h"
#include "il_thread.h"
#include "il_watchdog.h"

#define MAX_ARGS 64

struct args {
	char *v[MAX_ARGS];
	int n;
};

static void args_add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void args_add(struct args *a, const char *fmt, ...)
{
	va_list ap;

	if (a->n >= MAX_ARGS - 1)
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

/* The processes with busy worker groups: the hogs' and the load's. */
static bool wants_halt_word(const struct il_run *r, enum il_proc_id p)
{
	return (p == IL_PROC_RENDER && r->o->hog_threads) ||
	       (p == IL_PROC_WORKLOAD && r->o->load_threads);
}

/* The options of child p: what every child takes, its own threads' work,
 * and what only that process needs. */
static void child_args(const struct il_run *r, enum il_proc_id p, struct args *a)
{
	const struct il_run_opts *o = r->o;
	char text[300];

	/* The policy as resolved once, here: a child never reads the file. */
	args_add(a, "--sched=%s", r->sched_text);
	args_add(a, "--rttime-us=%llu", (unsigned long long)r->rttime_us);
	args_add(a, "--parent-pid=%d", (int)getpid());
	if (r->marker_fd >= 0 && il_chain_proc(p)->in_chain)
		args_add(a, "--trace-marker=1");
	if (il_chain_proc(p)->in_chain) {
		args_add(a, "--loops-per-us=%.6f", r->loops_per_us);
		args_add(a, "--work-model=%s", il_work_model_name(r->work_model));
		if (o->test.work_scale != 1.0)
			args_add(a, "--work-scale=%.6g", o->test.work_scale);
		args_add(a, "--lock=%s", il_lock_kind_name(o->lock));
		/* The on-CPU records come over the control channel (il_wiring_start). */
		if (il_lock_kind_share_fd(o->lock) >= 0)
			args_add(a, "--oncpu-map=ctl");
		for (int t = 0; t < IL_T_COUNT; t++) {
			const struct il_thread_desc *d = il_chain_thread(t);

			if (d->proc != p)
				continue;
			args_add(a, "--work=%s=%llu", d->name, (unsigned long long)o->work_us[t]);
			if (o->test.runaway_thread == t)
				args_add(a, "--runaway=%s", d->name);
		}
	}
	if (wants_halt_word(r, p))
		args_add(a, "--halt-word=ctl");
	switch (p) {
	case IL_PROC_BROWSER:
		il_input_spec_format(&o->input, text, sizeof(text));
		args_add(a, "--input=%s", text);
		if (il_injector_devnode(r->inj))
			args_add(a, "--input-node=%s", il_injector_devnode(r->inj));
		break;
	case IL_PROC_RENDER:
		if (!o->hog_threads)
			break;
		args_add(a, "--hog=%llu", (unsigned long long)o->hog_threads);
		args_add(a, "--hog-mode=%s", il_hog_mode_name_of(o->hog_mode));
		if (il_hog_mode_is_js(o->hog_mode))
			args_add(a, "--hog-script=%s", r->hog_script);
		args_add(a, "--hog-task-ms=%llu", (unsigned long long)o->hog_task_ms);
		args_add(a, "--hog-gap-ms=%llu", (unsigned long long)o->hog_gap_ms);
		break;
	case IL_PROC_VIZ:
		il_present_spec_format(&o->present, text, sizeof(text));
		args_add(a, "--present=%s", text);
		break;
	case IL_PROC_WORKLOAD:
		args_add(a, "--load=%llu", (unsigned long long)o->load_threads);
		break;
	default:
		break;
	}
}

/* The fds of every process, index = fd number there (-1: nothing). */
struct fdmap {
	int child[IL_PROC_COUNT][IL_CHILD_MAX_FDS];
	int ctl[IL_PROC_COUNT]; /* the orchestrator's end of each control channel */
	int ends[IL_CH_COUNT][2];
};

static void fdmap_close_all(struct fdmap *m)
{
	for (int ch = 0; ch < IL_CH_COUNT; ch++)
		for (int e = 0; e < 2; e++)
			if (m->ends[ch][e] >= 0)
				close(m->ends[ch][e]);
	for (int p = 0; p < IL_PROC_COUNT; p++) {
		if (m->child[p][IL_FD_CONTROL] >= 0)
			close(m->child[p][IL_FD_CONTROL]);
		if (m->ctl[p] >= 0)
			close(m->ctl[p]);
	}
}

/* Creates every channel of the chain and the control channels. CLOEXEC
 * everywhere: a child inherits only the fds uv_spawn places for it. */
static int fdmap_create(struct fdmap *m, char *err, size_t errlen)
{
	memset(m, -1, sizeof(*m));
	for (int p = 0; p < IL_PROC_COUNT; p++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			goto fail;
		m->ctl[p] = sv[0];
		m->child[p][IL_FD_CONTROL] = sv[1];
	}
	for (int ch = 0; ch < IL_CH_COUNT; ch++) {
		const struct il_channel_desc *d = il_chain_channel(ch);
		int sv[2], rc;

		/* The input channel is a pipe: the injector writes input_events
		 * into it the way the kernel fills an evdev node. */
		if (ch == IL_CH_INPUT) {
			int pfd[2];

			rc = pipe2(pfd, O_CLOEXEC);
			sv[0] = pfd[1];
			sv[1] = pfd[0];
		} else {
			rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
		}
		if (rc < 0)
			goto fail;
		/* ends[ch][0] is the writer's end, [1] the reader's. */
		m->ends[ch][0] = sv[0];
		m->ends[ch][1] = sv[1];
		if (d->writer != IL_PROC_ORCH)
			m->child[d->writer][d->writer_fd] = sv[0];
		if (d->reader != IL_PROC_ORCH)
			m->child[d->reader][d->reader_fd] = sv[1];
	}
	return 0;
fail:
	snprintf(err, errlen, "creating the hop channels: %s", strerror(errno));
	fdmap_close_all(m);
	return -errno;
}

int il_wiring_start(struct il_run *r, char *err, size_t errlen)
{
	struct il_sched_table *t = calloc(1, sizeof(*t));
	struct fdmap m;
	int rc;

	if (t) {
		il_sched_table_from_policy(r->policy, t);
		r->sched_text = il_sched_table_format(t);
		free(t);
	}
	if (!r->sched_text) {
		snprintf(err, errlen, "out of memory for the scheduling table");
		return -ENOMEM;
	}

	rc = fdmap_create(&m, err, errlen);
	if (rc < 0)
		return rc;
	/* The orchestrator keeps the writer's end of the input pipe. A stalled
	 * browser must not block the injector: a full pipe is an error we count. */
	r->input_wfd = m.ends[IL_CH_INPUT][0];
	m.ends[IL_CH_INPUT][0] = -1;
	fcntl(r->input_wfd, F_SETFL, fcntl(r->input_wfd, F_GETFL) | O_NONBLOCK);

	if (r->o->input.kind != IL_INPUT_EVDEV) {
		rc = il_injector_open(&r->o->input, r->input_wfd, &r->inj, err, errlen);
		if (rc < 0)
			goto out;
	}
	if (r->o->hog_threads || r->o->load_threads) {
		rc = il_halt_create(&r->halt, err, errlen);
		if (rc < 0)
			goto out;
	}
	for (int p = 0; p < IL_PROC_COUNT; p++) {
		const char *prog = il_chain_proc(p)->program;
		int share = il_lock_kind_share_fd(r->o->lock);
		struct args a = {0};

		/* First on the channel, before the child reads any frame: the
		 * lock's on-CPU records (SCM_RIGHTS), one BPF program per run. */
		if (share >= 0 && il_chain_proc(p)->in_chain) {
			rc = il_ctl_send_fd(m.ctl[p], share);
			if (rc < 0) {
				snprintf(err, errlen, "handing the on-CPU map to %s: %s", prog,
					 strerror(-rc));
				goto out;
			}
		}
		/* Then the halt word, to the processes that read it. */
		if (wants_halt_word(r, p)) {
			rc = il_ctl_send_fd(m.ctl[p], r->halt.fd);
			if (rc < 0) {
				snprintf(err, errlen, "handing the halt word to %s: %s", prog,
					 strerror(-rc));
				goto out;
			}
		}
		child_args(r, p, &a);
		rc = il_proc_spawn(&r->loop, &r->procs[p], r->children_dir, prog, a.v, m.child[p],
				   IL_CHILD_MAX_FDS, m.ctl[p], &il_orch_proc_events, r);
		args_free(&a);
		if (r->procs[p].spawned) {
			m.ctl[p] = -1; /* owned by the proc's pipe handle now */
			il_watchdog_add_pid(r->procs[p].pid);
		}
		if (rc < 0) {
			/* EAGAIN from fork: say which limit, not only "try again". */
			snprintf(err, errlen, "starting %.200s/%s: %s%s", r->children_dir, prog,
				 uv_strerror(rc),
				 rc == UV_EMFILE ? " (the open-file limit: ulimit -n)"
						 : il_thread_limit_why(-rc));
			goto out;
		}
	}
	rc = il_orch_records_start(r, m.ends[IL_CH_RECORDS][1]);
	m.ends[IL_CH_RECORDS][1] = -1; /* owned by the records pipe handle now */
	if (rc < 0)
		snprintf(err, errlen, "opening the records pipe: %s", uv_strerror(rc));
out:
	/* The children hold their ends now; ours are closed here. */
	fdmap_close_all(&m);
	return rc;
}
