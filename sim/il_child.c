#include "il_child.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "il_ctl.h"
#include "il_halt.h"
#include "il_marks.h"
#include "il_memlock.h"
#include "il_parse.h"
#include "il_policy.h"
#include "il_sched_table.h"
#include "il_rss.h"
#include "il_sched.h"
#include "il_sysinfo.h"
#include "il_thread.h"
#include "il_tracefs.h"
#include "il_hop.h"
#include "il_work.h"

#define MAX_WORK 32
/* Above every role, below the orchestrator's watchdog (99) and control (98). */
#define CHILD_CONTROL_PRIO 97
/* The orchestrator sends the on-CPU map before spawning us: it is there. */
#define ONCPU_MAP_WAIT_MS 5000

struct work_entry {
	char name[16];
	uint64_t us;
};

struct il_child {
	enum il_proc_id proc;
	const char *process;
	struct il_child_hooks hooks;
	/* What each thread runs, as the orchestrator resolved it (NULL: the
	 * inherited attributes). Never a policy file: see il_sched_table.h. */
	struct il_sched_table *table;
	enum il_lock_kind lock;
	bool oncpu_from_ctl; /* --oncpu-map=ctl: the orchestrator sends the records */
	bool halt_from_ctl;  /* --halt-word=ctl: the orchestrator sends the halt word */
	struct il_halt halt; /* mapped for the process's life; IL_HALT_NONE without */
	char runaway[16];
	uint64_t rttime_us;
	struct work_entry work[MAX_WORK];
	int nwork;
	uv_loop_t loop;
	uv_pipe_t ctl;
	uv_shutdown_t shutdown;
	struct il_frame_reader *reader;
	pthread_mutex_t threads_lock;
	cJSON *threads;
	char memlock_why[192];		 /* "" when this process's memory is locked */
	struct il_sched_ask control_ask; /* this control thread's FIFO under RT */
};

static void die_usage(const char *process, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void die_usage(const char *process, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", process);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int parse_work(struct il_child *c, const char *v)
{
	const char *eq = strchr(v, '=');
	uint64_t us;

	if (!eq || eq == v || (size_t)(eq - v) >= sizeof(c->work[0].name) || c->nwork >= MAX_WORK)
		return -EINVAL;
	if (il_parse_u64(eq + 1, 0, 10000000, &us) < 0)
		return -EINVAL;
	memcpy(c->work[c->nwork].name, v, (size_t)(eq - v));
	c->work[c->nwork].name[eq - v] = '\0';
	c->work[c->nwork].us = us;
	c->nwork++;
	return 0;
}

int il_hop_marker_fd = -1;

/* --trace-marker's account, sent in the process's stats. */
static struct il_marks marks;

void il_hop_mark(const struct il_msg *m, enum il_stamp k, int begin)
{
	const struct il_hop_desc *d = il_chain_hop((int)k);
	char buf[128];
	int n;

	if (begin)
		n = snprintf(buf, sizeof(buf), "B|%d|hop %d %s ev=%llu", (int)getpid(), (int)k,
			     d ? d->name : "?", (unsigned long long)m->event_id);
	else
		n = snprintf(buf, sizeof(buf), "E|%d", (int)getpid());
	if (n > 0)
		il_marks_write(&marks, il_hop_marker_fd, buf, (size_t)n);
}

static int parse_common(struct il_child *c, const char *name, const char *v, pid_t *parent)
{
	uint64_t u;
	double d;

	if (strcmp(name, "trace-marker") == 0) {
		/* Before any thread starts: the helper forks a child of its own. */
		il_hop_marker_fd = il_tracefs_open_marker();
		marks.asked = true;
		if (il_hop_marker_fd < 0)
			marks.open_err = -il_hop_marker_fd;
		return 0;
	}
	if (strcmp(name, "sched") == 0) {
		if (!c->table && !(c->table = calloc(1, sizeof(*c->table))))
			return -ENOMEM;
		return il_sched_table_parse(v, c->table) < 0 ? -EINVAL : 0;
	}
	if (strcmp(name, "loops-per-us") == 0) {
		if (il_parse_double(v, 0.001, 1e9, &d) < 0)
			return -EINVAL;
		il_work_set_loops_per_us(d);
		return 0;
	}
	if (strcmp(name, "work-model") == 0) {
		enum il_work_model m;

		if (il_work_model_parse(v, &m) < 0)
			return -EINVAL;
		il_work_set_model(m);
		return 0;
	}
	if (strcmp(name, "work-scale") == 0) {
		if (il_parse_double(v, 0.01, 100, &d) < 0)
			return -EINVAL;
		il_work_set_scale(d);
		return 0;
	}
	/* Any run bound the orchestrator can compute (10^7 events of 600 s). */
	if (strcmp(name, "rttime-us") == 0)
		return il_parse_u64(v, 1000, UINT64_MAX / 4, &c->rttime_us) < 0 ? -EINVAL : 0;
	if (strcmp(name, "parent-pid") == 0) {
		if (il_parse_u64(v, 1, INT32_MAX, &u) < 0)
			return -EINVAL;
		*parent = (pid_t)u;
		return 0;
	}
	if (strcmp(name, "work") == 0)
		return parse_work(c, v);
	if (strcmp(name, "runaway") == 0) {
		snprintf(c->runaway, sizeof(c->runaway), "%s", v);
		return 0;
	}
	if (strcmp(name, "oncpu-map") == 0) {
		if (strcmp(v, "ctl") != 0)
			return -EINVAL;
		c->oncpu_from_ctl = true;
		return 0;
	}
	if (strcmp(name, "halt-word") == 0) {
		if (strcmp(v, "ctl") != 0)
			return -EINVAL;
		c->halt_from_ctl = true;
		return 0;
	}
	if (strcmp(name, "lock") == 0) {
		int k = il_lock_kind_parse(v);

		if (k < 0)
			return -EINVAL;
		c->lock = (enum il_lock_kind)k;
		return 0;
	}
	return 1; /* not a common option */
}

static void ctl_send_or_exit(struct il_child *c, const cJSON *o)
{
	int rc = il_ctl_send((uv_stream_t *)&c->ctl, o);

	/* Too big for a frame is a bug of ours, worth its own line; if the
	 * orchestrator is gone there is nobody to report to. */
	if (rc == UV_EMSGSIZE)
		fprintf(stderr, "%s: a control message exceeds the %d-byte frame limit\n",
			c->process, IL_FRAME_MAX_LEN);
	if (rc < 0)
		_exit(1);
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
	struct il_child *c = req->data;

	uv_close((uv_handle_t *)&c->ctl, NULL);
}

static void ctl_frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *ev, cJSON *json)
{
	struct il_child *c = ctx;
	const cJSON *type = json ? cJSON_GetObjectItemCaseSensitive(json, "type") : NULL;

	if (!cJSON_IsString(type))
		return;
	if (strcmp(type->valuestring, "ping") == 0) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "type", "pong");
		cJSON_AddItemToObject(
		    o, "seq", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(json, "seq"), 1));
		ctl_send_or_exit(c, o);
		cJSON_Delete(o);
	} else if (strcmp(type->valuestring, "start") == 0) {
		if (c->hooks.start)
			c->hooks.start(c);
	} else if (strcmp(type->valuestring, "stop") == 0) {
		cJSON *stats = cJSON_CreateObject();

		/* Handlers still working stop working, so that the threads join
		 * within the orchestrator's stop bound whatever --work asked. */
		il_work_stop();
		cJSON_AddStringToObject(stats, "type", "stats");
		cJSON_AddStringToObject(stats, "process", c->process);
		if (c->hooks.stop)
			c->hooks.stop(c, stats);
		cJSON_AddNumberToObject(stats, "rss_kib", (double)il_rss_peak_kib());
		{
			cJSON *ml = cJSON_AddObjectToObject(stats, "memlock");

			cJSON_AddBoolToObject(ml, "locked", !c->memlock_why[0]);
			cJSON_AddNumberToObject(ml, "locked_vm_kib",
						(double)il_memlock_locked_kib());
			if (c->memlock_why[0])
				cJSON_AddStringToObject(ml, "why", c->memlock_why);
		}
		cJSON_AddItemToObject(stats, "control_rt",
				      il_sched_ask_json(&c->control_ask, "control"));
		cJSON_AddStringToObject(stats, "lock", il_lock_kind_name(c->lock));
		if (marks.asked)
			cJSON_AddItemToObject(stats, "trace_marker", il_marks_json(&marks));
		ctl_send_or_exit(c, stats);
		cJSON_Delete(stats);
		il_frame_reader_free(c->reader);
		c->reader = NULL;
		c->shutdown.data = c;
		if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->ctl, shutdown_cb) < 0)
			uv_close((uv_handle_t *)&c->ctl, NULL);
	}
}

static void ctl_invalid_cb(void *ctx, int err)
{
	/* The control channel carries the run's protocol: garbage there means
	 * the two ends no longer agree, and no result could be trusted. */
	il_child_fail(ctx, "invalid frame on the control channel (%s)", il_frame_strerror(err));
}

static void ctl_eof_cb(void *ctx, int status)
{
	/* The orchestrator is gone (or closed us): nothing left to measure for.
	 * _exit also ends RT role threads at once. */
	_exit(0);
}

struct il_child *il_child_init(int argc, char **argv, enum il_proc_id proc,
			       const struct il_child_hooks *hooks)
{
	const char *process = il_chain_proc(proc)->program;
	struct il_child *c = calloc(1, sizeof(*c));
	pid_t parent = 0;
	struct stat ctl_st;
	int rc;

	if (!c) {
		fprintf(stderr, "%s: out of memory\n", process);
		exit(1);
	}
	c->halt = IL_HALT_NONE;
	/* Never outlive the orchestrator, even when it is SIGKILLed. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, process);
	signal(SIGPIPE, SIG_IGN);
	/* Ctrl-C, Ctrl-backslash and Ctrl-Z reach the whole process group; the
	 * orchestrator leads the stop (a child stopped by Ctrl-Z could not take
	 * part, one killed by Ctrl-backslash would fail the run it ends). */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN); /* a line on a terminal never stops a child */
	c->proc = proc;
	c->process = process;
	c->hooks = *hooks;
	c->lock = IL_LOCK_PTHREAD;
	pthread_mutex_init(&c->threads_lock, NULL);
	c->threads = cJSON_CreateArray();

	/* Options come as --name=value or --name value. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		char name[64];
		const char *eq;

		if (strncmp(a, "--", 2) != 0)
			die_usage(process, "unexpected argument '%s'", a);
		if (strcmp(a, "--help") == 0 || strcmp(a, "--version") == 0) {
			/* Said, not ignored, as inputlat's own --help does. */
			if (i + 1 < argc)
				die_usage(process, "unexpected argument '%s' after %s", argv[i + 1],
					  a);
			printf("%s: one process of inputlat's chain, started by `inputlat run` "
			       "(see inputlat run --help)\n",
			       process);
			exit(0);
		}
		a += 2;
		eq = strchr(a, '=');
		if (eq) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
			v = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", a);
			/* Unknown is the better answer than "needs a value" when it is
			 * both: ask with an empty value, which no known option takes. */
			if (i + 1 >= argc) {
				if (parse_common(c, name, "", &parent) == 1 &&
				    (!hooks->option || hooks->option(c, name, "") == 1))
					die_usage(process, "unknown option --%s", name);
				die_usage(process, "--%s needs a value", name);
			}
			v = argv[++i];
		}
		rc = parse_common(c, name, v, &parent);
		if (rc == 1) {
			rc = hooks->option ? hooks->option(c, name, v) : -EINVAL;
			if (rc == 1)
				die_usage(process, "unknown option --%s", name);
		}
		if (rc < 0)
			die_usage(process, "bad value '%s' for --%s", v, name);
	}
	/* The orchestrator died before PDEATHSIG was armed, or this was
	 * started by hand with another parent: one line either way. */
	if (parent && getppid() != parent) {
		fprintf(stderr,
			"%s: --parent-pid %d is not this process's parent (%d): started "
			"by hand, or the orchestrator is gone\n",
			process, (int)parent, (int)getppid());
		exit(1);
	}

	/* The owner-aware lock needs its on-CPU source; without it the lock
	 * would silently be a different one, so that is an error. */
	{
		char why[256];
		int fd = -1;

		/* The run's one BPF program is the orchestrator's: its records
		 * come first on the control channel, before any frame. */
		if (c->oncpu_from_ctl) {
			rc = il_ctl_recv_fd(IL_FD_CONTROL, ONCPU_MAP_WAIT_MS, &fd);
			if (rc < 0) {
				fprintf(stderr,
					"%s: --lock %s: no on-CPU map from the orchestrator: %s\n",
					process, il_lock_kind_name(c->lock), strerror(-rc));
				exit(2);
			}
		}
		rc = il_lock_kind_prepare_from(c->lock, fd, why, sizeof(why));
		if (fd >= 0)
			close(fd);
		if (rc < 0) {
			fprintf(stderr, "%s: --lock %s\n", process, why);
			exit(2);
		}
		/* Then the halt word, for a process with busy worker groups. */
		if (c->halt_from_ctl) {
			rc = il_ctl_recv_fd(IL_FD_CONTROL, ONCPU_MAP_WAIT_MS, &fd);
			if (rc < 0) {
				fprintf(stderr, "%s: no halt word from the orchestrator: %s\n",
					process, strerror(-rc));
				exit(2);
			}
			if (il_halt_map(&c->halt, fd, why, sizeof(why)) < 0) {
				fprintf(stderr, "%s: %s\n", process, why);
				exit(2);
			}
		}
	}
	/* Hygiene, as cyclictest: memory locked before any thread starts (each
	 * thread prefaults its own stack in il_child_thread_init). A failure is
	 * reported in the run's warnings, not fatal: the run still measures. */
	if (il_memlock_all(c->memlock_why, sizeof(c->memlock_why)) == 0)
		c->memlock_why[0] = '\0';
	il_memlock_prefault_stack();
	if (c->table && il_sched_table_uses_rt(c->table)) {
		/* A runaway RT thread gets SIGXCPU, then SIGKILL (RLIMIT_RTTIME). */
		if (c->rttime_us)
			il_rttime_limit_set(c->rttime_us, c->rttime_us + 1000000);
		/* The control thread must answer pings even when RT work holds
		 * every CPU; it sleeps in epoll nearly all the time. */
		il_sched_ask_apply(&c->control_ask, SCHED_FIFO, CHILD_CONTROL_PRIO);
	} else {
		il_sched_ask_apply(&c->control_ask, SCHED_OTHER, 0);
	}

	uv_loop_init(&c->loop);
	uv_pipe_init(&c->loop, &c->ctl, 0);
	/* The orchestrator's end is a socketpair: any other open fd 3 (a shell
	 * started it by hand with one open) would fail at the first frame,
	 * where nobody hears of it. */
	if (fstat(IL_FD_CONTROL, &ctl_st) < 0)
		rc = -errno;
	else
		rc = S_ISSOCK(ctl_st.st_mode) ? 0 : UV_ENOTSOCK;
	if (rc == 0)
		rc = uv_pipe_open(&c->ctl, IL_FD_CONTROL);
	if (rc < 0) {
		fprintf(stderr,
			"%s: no control channel on fd %d: %s (started by hand? run it through "
			"inputlat)\n",
			process, IL_FD_CONTROL, uv_strerror(rc));
		exit(2);
	}
	rc = il_frame_reader_start((uv_stream_t *)&c->ctl, ctl_frame_cb, ctl_eof_cb, c, &c->reader);
	if (rc < 0) {
		fprintf(stderr, "%s: control channel: %s\n", process, uv_strerror(rc));
		exit(1);
	}
	il_frame_reader_on_invalid(c->reader, ctl_invalid_cb);
	return c;
}

int il_child_fd(const struct il_child *c, enum il_channel ch)
{
	return il_chain_fd(ch, c->proc);
}

uint64_t il_child_work_us(const struct il_child *c, const char *thread_name)
{
	for (int i = 0; i < c->nwork; i++)
		if (strcmp(c->work[i].name, thread_name) == 0)
			return c->work[i].us;
	return 0;
}

enum il_lock_kind il_child_lock(const struct il_child *c)
{
	return c->lock;
}

uv_loop_t *il_child_loop(struct il_child *c)
{
	return &c->loop;
}

const _Atomic uint64_t *il_child_halt_word(const struct il_child *c)
{
	return c->halt.word;
}

void *il_child_data(const struct il_child *c)
{
	return c->hooks.data;
}

int il_child_thread_init(void *child, enum il_role role, const char *name, char *err, size_t errlen)
{
	struct il_child *c = child;
	struct il_sched_state st;
	cJSON *t;
	int rc;

	const struct il_role_attrs *a =
	    c->table ? il_sched_table_lookup(c->table, role, name) : NULL;
	unsigned dropped = 0;

	pthread_setname_np(pthread_self(), name);
	il_memlock_prefault_stack();
	if (c->table && !a) {
		snprintf(err, errlen, "%s: no scheduling attributes for role %s", name,
			 il_role_name(role));
		return -EINVAL;
	}
	if (a) {
		rc = il_sched_apply_self(a, &dropped, err, errlen);
		if (rc < 0)
			return rc;
	}
	t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "process", c->process);
	cJSON_AddStringToObject(t, "role", il_role_name(role));
	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddNumberToObject(t, "pid", getpid());
	cJSON_AddNumberToObject(t, "tid", il_gettid());
	if (il_sched_read(il_gettid(), &st) == 0)
		cJSON_AddItemToObject(t, "sched", il_sched_state_json(&st));
	/* What became of the clamps this thread's policy asked for: applied
	 * (the read-back above has them), or left out as optional. */
	if (a && (a->has_uclamp_min || a->has_uclamp_max)) {
		char why[160], text[200];

		il_sysinfo_uclamp(why, sizeof(why));
		snprintf(text, sizeof(text), "unsupported: %s", why);
		cJSON_AddStringToObject(t, "uclamp", dropped ? text : "applied");
	}
	pthread_mutex_lock(&c->threads_lock);
	cJSON_AddItemToArray(c->threads, t);
	pthread_mutex_unlock(&c->threads_lock);
	return 0;
}

static void walk_close_cb(uv_handle_t *h, void *arg)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

static void thread_stop_cb(uv_async_t *a)
{
	struct il_role_thread *t = a->data;

	if (t->teardown)
		t->teardown(t);
	/* Whatever the teardown left open is closed too, so uv_run returns. */
	uv_walk(&t->loop, walk_close_cb, NULL);
}

static void *role_thread_main(void *arg)
{
	struct il_role_thread *t = arg;

	t->tid = il_gettid();
	t->err = il_child_thread_init(t->child, t->role, t->name, t->errmsg, sizeof(t->errmsg));
	if (t->err == 0 && (t->err = uv_loop_init(&t->loop)) < 0)
		snprintf(t->errmsg, sizeof(t->errmsg), "%s: cannot create its event loop: %s%s",
			 t->name, uv_strerror(t->err),
			 t->err == UV_EMFILE ? " (raise the open-file limit, ulimit -n)" : "");
	if (t->err == 0) {
		uv_async_init(&t->loop, &t->stop_async, thread_stop_cb);
		t->stop_async.data = t;
		t->err = t->setup ? t->setup(t) : 0;
		if (t->err < 0 && !t->errmsg[0])
			snprintf(t->errmsg, sizeof(t->errmsg), "%s: setup failed: %s", t->name,
				 strerror(-t->err));
	}
	if (t->err < 0) {
		if (!t->errmsg[0])
			snprintf(t->errmsg, sizeof(t->errmsg), "%s: failed to start: %s", t->name,
				 strerror(-t->err));
		sem_post(&t->started);
		return NULL;
	}
	t->running = true;
	sem_post(&t->started);
	if (strcmp(t->child->runaway, t->name) == 0) {
		/* Test hook: a runaway RT thread, which RLIMIT_RTTIME must stop. */
		for (volatile uint64_t n = 0;; n++)
			;
	}
	uv_run(&t->loop, UV_RUN_DEFAULT);
	uv_loop_close(&t->loop);
	return NULL;
}

static int role_thread_start(struct il_child *c, struct il_role_thread *t)
{
	int rc;

	t->child = c;
	t->work_us = il_child_work_us(c, t->name);
	sem_init(&t->started, 0, 0);
	rc = pthread_create(&t->th, NULL, role_thread_main, t);
	if (rc) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%s: pthread_create: %s%s", t->name,
			 strerror(rc), il_thread_limit_why(rc));
		return -rc;
	}
	while (sem_wait(&t->started) < 0 && errno == EINTR)
		;
	if (t->err < 0) {
		pthread_join(t->th, NULL);
		return t->err;
	}
	return 0;
}

void il_child_start_thread(struct il_child *c, struct il_role_thread *t, enum il_thread_id id,
			   il_role_setup_fn setup, il_role_teardown_fn teardown)
{
	const struct il_thread_desc *d = il_chain_thread(id);

	t->id = id;
	t->role = d->role;
	snprintf(t->name, sizeof(t->name), "%s", d->name);
	t->setup = setup;
	t->teardown = teardown;
	if (role_thread_start(c, t) < 0)
		il_child_fail(c, "%s", t->errmsg);
}

void il_role_thread_stop(struct il_role_thread *t)
{
	if (!t->running)
		return;
	uv_async_send(&t->stop_async);
	pthread_join(t->th, NULL);
	t->running = false;
}

void il_child_ready(struct il_child *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", "ready");
	cJSON_AddStringToObject(o, "process", c->process);
	cJSON_AddNumberToObject(o, "pid", getpid());
	pthread_mutex_lock(&c->threads_lock);
	cJSON_AddItemToObject(o, "threads", cJSON_Duplicate(c->threads, 1));
	pthread_mutex_unlock(&c->threads_lock);
	ctl_send_or_exit(c, o);
	cJSON_Delete(o);
}

void il_child_fail(struct il_child *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	cJSON *o = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Never an empty reason: the orchestrator prints it as the run's. */
	if (!msg[0])
		snprintf(msg, sizeof(msg), "failed without a message (a bug: please report it)");
	cJSON_AddStringToObject(o, "type", "error");
	cJSON_AddStringToObject(o, "message", msg);
	il_ctl_send((uv_stream_t *)&c->ctl, o);
	cJSON_Delete(o);
	/* A short, bounded flush: the frame is small and the socket idle. */
	uv_run(&c->loop, UV_RUN_NOWAIT);
	_exit(1);
}

int il_child_run(struct il_child *c)
{
	uv_run(&c->loop, UV_RUN_DEFAULT);
	/* The control pipe is closed by now; release everything so that a leak
	 * checker sees a clean exit (and reports real leaks). */
	il_frame_reader_free(c->reader);
	uv_loop_close(&c->loop);
	cJSON_Delete(c->threads);
	free(c->table);
	pthread_mutex_destroy(&c->threads_lock);
	free(c);
	/* A failure exits through il_child_fail, never here. */
	return 0;
}
