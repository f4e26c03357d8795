/*
 * il-workload: the orchestrator's child that carries what is not in the
 * hop chain: the background `load` threads and the `canary`. It is never
 * in the chain, so its threads compete with the pipeline only for CPU.
 *
 *   il-workload --load N --policy NAME|PATH --builtin-dir DIR
 *               --rttime-us N --parent-pid PID [--canary-cpu C]
 *
 * It talks to the orchestrator on fd 3 (common/il_ctl.h): "ready" once
 * every thread has applied its policy attributes, then "start" resets the
 * counters, "ping" gets "pong", "stop" gets
 *   {"type":"stats","canary":{max_stall_ms,cpu_share,wakeups,...},
 *    "load":{cpu_share,threads,per_thread:[...]}}
 * and the process exits 0. End of file on fd 3 exits at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <uv.h>

#include "il_canary.h"
#include "il_clock.h"
#include "il_ctl.h"
#include "il_load.h"
#include "il_parse.h"
#include "il_policy.h"
#include "il_sched.h"
#include "il_thread.h"

#define PROG "il-workload"

struct wl_opts {
	uint64_t load;
	const char *policy;
	const char *builtin_dir;
	uint64_t rttime_us;
	uint64_t parent_pid;
	int canary_cpu;
};

struct wl {
	struct il_policy *policy;
	/* The ready report, appended to by every thread's init. */
	pthread_mutex_t lock;
	cJSON *threads;

	uv_loop_t *loop;
	uv_pipe_t ctl;
	uv_shutdown_t shutdown_req;
	struct il_frame_reader *reader;
	struct il_canary *canary;
	struct il_load *load;
	int exit_code;
};

/* Every load and canary thread runs this first (il_thread_init_fn). */
static int wl_thread_init(void *ctx, enum il_role role, const char *name, char *err,
			  size_t errlen)
{
	struct wl *w = ctx;
	const struct il_role_attrs *a = il_policy_role(w->policy, role);
	struct il_sched_state st;
	char why[200] = "";
	cJSON *e, *sched;
	int ret;

	pthread_setname_np(pthread_self(), name);
	if (!a) {
		snprintf(err, errlen, "%s: no attributes for role %s", name, il_role_name(role));
		return -EINVAL;
	}
	ret = il_sched_apply_self(a, why, sizeof(why));
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", name, why);
		return ret;
	}
	ret = il_sched_read(0, &st);
	if (ret < 0) {
		snprintf(err, errlen, "%s: sched_getattr: %s", name, strerror(-ret));
		return ret;
	}
	e = cJSON_CreateObject();
	sched = il_sched_state_json(&st);
	if (!e || !sched) {
		cJSON_Delete(e);
		cJSON_Delete(sched);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	cJSON_AddStringToObject(e, "process", PROG);
	cJSON_AddStringToObject(e, "role", il_role_name(role));
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddNumberToObject(e, "pid", getpid());
	cJSON_AddNumberToObject(e, "tid", il_gettid());
	cJSON_AddItemToObject(e, "sched", sched);
	pthread_mutex_lock(&w->lock);
	cJSON_AddItemToArray(w->threads, e);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void send_error(struct wl *w, const char *msg)
{
	cJSON *o = cJSON_CreateObject();

	fprintf(stderr, PROG ": %s\n", msg);
	if (!o)
		return;
	cJSON_AddStringToObject(o, "type", "error");
	cJSON_AddStringToObject(o, "message", msg);
	il_ctl_send((uv_stream_t *)&w->ctl, o);
	cJSON_Delete(o);
}

static void send_stats(struct wl *w)
{
	cJSON *o = cJSON_CreateObject(), *load;

	if (!o)
		return;
	cJSON_AddStringToObject(o, "type", "stats");
	cJSON_AddStringToObject(o, "process", PROG);
	cJSON_AddItemToObject(o, "canary", il_canary_stats_json(w->canary));
	if (w->load) {
		load = il_load_stats_json(w->load, 0);
	} else {
		/* No load asked for: the key is still there, with nothing in it. */
		load = cJSON_CreateObject();
		cJSON_AddNumberToObject(load, "threads", 0);
		cJSON_AddNumberToObject(load, "cpu_share", 0);
		cJSON_AddArrayToObject(load, "per_thread");
	}
	cJSON_AddItemToObject(o, "load", load);
	il_ctl_send((uv_stream_t *)&w->ctl, o);
	cJSON_Delete(o);
}

static void ctl_closed_cb(uv_handle_t *h)
{
	uv_stop(h->loop);
}

/* The stats are flushed; now the process may go. */
static void shutdown_cb(uv_shutdown_t *req, int status)
{
	struct wl *w = req->data;

	uv_close((uv_handle_t *)&w->ctl, ctl_closed_cb);
}

static void frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *ev, cJSON *json)
{
	struct wl *w = ctx;
	const cJSON *type = json ? cJSON_GetObjectItemCaseSensitive(json, "type") : NULL;
	const char *t = cJSON_IsString(type) ? type->valuestring : "";

	if (strcmp(t, "start") == 0) {
		il_canary_mark_start(w->canary);
		if (w->load)
			il_load_mark_start(w->load);
	} else if (strcmp(t, "ping") == 0) {
		cJSON *pong = cJSON_CreateObject();
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(json, "seq");

		if (!pong)
			return;
		cJSON_AddStringToObject(pong, "type", "pong");
		cJSON_AddNumberToObject(pong, "seq", cJSON_IsNumber(seq) ? seq->valuedouble : 0);
		il_ctl_send((uv_stream_t *)&w->ctl, pong);
		cJSON_Delete(pong);
	} else if (strcmp(t, "stop") == 0) {
		send_stats(w);
		w->exit_code = 0;
		w->shutdown_req.data = w;
		if (uv_shutdown(&w->shutdown_req, (uv_stream_t *)&w->ctl, shutdown_cb) < 0)
			uv_close((uv_handle_t *)&w->ctl, ctl_closed_cb);
	} else {
		/* Not fatal: a newer orchestrator may know more types. */
		fprintf(stderr, PROG ": ignoring control message of type '%s'\n", t);
	}
}

/* The orchestrator is gone: nothing to report to, nothing to clean up
 * that the kernel does not (no knob is ever changed here). */
static void eof_cb(void *ctx, int status)
{
	_exit(0);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options]   (started by `inputlat run`, control channel on fd 3)\n"
		"  --builtin-dir DIR   where built-in policy files are (required)\n"
		"  --canary-cpu C      pin the canary to CPU C (default: not pinned)\n"
		"  --help              this text\n"
		"  --load N            background CFS load threads, 0..%u (default 0)\n"
		"  --lock, --loops-per-us, --work   accepted like every child's, unused here\n"
		"  --parent-pid PID    the orchestrator; exit unless it is our parent (required)\n"
		"  --policy NAME|PATH  scheduling policy (required)\n"
		"  --rttime-us N       RLIMIT_RTTIME soft limit in us, 0 = leave it (default 0)\n",
		IL_LOAD_MAX_THREADS);
}

/* A user error: one line, exit 2. */
static void die_usage(const char *opt, const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", opt, what);
	exit(2);
}

static void parse_opts(int argc, char **argv, struct wl_opts *o)
{
	static const struct option longopts[] = {
		{ "builtin-dir", required_argument, NULL, 'b' },
		{ "canary-cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "load", required_argument, NULL, 'l' },
		{ "lock", required_argument, NULL, 'k' },
		{ "loops-per-us", required_argument, NULL, 'u' },
		{ "parent-pid", required_argument, NULL, 'p' },
		{ "policy", required_argument, NULL, 'P' },
		{ "rttime-us", required_argument, NULL, 'r' },
		{ "work", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	double d;
	int c;

	*o = (struct wl_opts){ .canary_cpu = -1, .builtin_dir = NULL };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->builtin_dir = optarg;
			break;
		case 'c':
			if (il_parse_u64(optarg, 0, CPU_SETSIZE - 1, &v) < 0)
				die_usage("--canary-cpu", "expected a CPU number, e.g. --canary-cpu 1");
			o->canary_cpu = (int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'l':
			if (il_parse_u64(optarg, 0, IL_LOAD_MAX_THREADS, &o->load) < 0)
				die_usage("--load", "expected a thread count 0..1024");
			break;
		case 'p':
			if (il_parse_u64(optarg, 1, INT32_MAX, &o->parent_pid) < 0)
				die_usage("--parent-pid", "expected a process id");
			break;
		case 'P':
			o->policy = optarg;
			break;
		case 'k':
		case 'w':
			/* Options every child gets from `inputlat run`; the
			 * workload has no lock study and no hop work. */
			break;
		case 'u':
			if (il_parse_double(optarg, 0, 1e9, &d) < 0)
				die_usage("--loops-per-us", "expected a positive number");
			break;
		case 'r':
			/* One hour of RT CPU time without blocking is plenty. */
			if (il_parse_u64(optarg, 0, 3600000000ull, &o->rttime_us) < 0)
				die_usage("--rttime-us", "expected microseconds 0..3600000000");
			break;
		default:
			die_usage(argv[optind - 1], "unknown option or missing argument (see --help)");
		}
	}
	if (optind < argc)
		die_usage(argv[optind], "unexpected argument (see --help)");
	if (!o->policy)
		die_usage("--policy", "required (a built-in name or a path)");
	if (!o->builtin_dir)
		die_usage("--builtin-dir", "required (the directory of the built-in policies)");
	if (!o->parent_pid)
		die_usage("--parent-pid", "required (the pid of inputlat run)");
}

static int send_ready(struct wl *w)
{
	cJSON *o = cJSON_CreateObject();
	int ret;

	if (!o)
		return UV_ENOMEM;
	cJSON_AddStringToObject(o, "type", "ready");
	cJSON_AddStringToObject(o, "process", PROG);
	cJSON_AddNumberToObject(o, "pid", getpid());
	pthread_mutex_lock(&w->lock);
	cJSON_AddItemToObject(o, "threads", w->threads);
	ret = il_ctl_send((uv_stream_t *)&w->ctl, o);
	cJSON_DetachItemViaPointer(o, w->threads);
	pthread_mutex_unlock(&w->lock);
	cJSON_Delete(o);
	return ret;
}

int main(int argc, char **argv)
{
	static struct wl w;
	struct wl_opts o;
	char err[256] = "";
	int ret;

	/* Never outlive the orchestrator, even if it is SIGKILLed. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	parse_opts(argc, argv, &o);
	/* It may have died before PDEATHSIG was armed: then we are
	 * reparented and must not run on unsupervised. */
	if ((uint64_t)getppid() != o.parent_pid) {
		fprintf(stderr, PROG ": --parent-pid %llu is not our parent (the orchestrator is gone); exiting\n",
			(unsigned long long)o.parent_pid);
		return 1;
	}
	prctl(PR_SET_NAME, PROG);
	signal(SIGPIPE, SIG_IGN);

	/* Checked before the loop exists: its epoll fd would take the
	 * number 3 when nothing was passed there. */
	if (fcntl(IL_FD_CONTROL, F_GETFD) < 0) {
		fprintf(stderr, PROG ": no control channel on fd %d; it is started by `inputlat run`\n",
			IL_FD_CONTROL);
		return 2;
	}
	w.exit_code = 1;
	w.loop = uv_default_loop();
	pthread_mutex_init(&w.lock, NULL);
	w.threads = cJSON_CreateArray();
	if (!w.threads) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	ret = uv_pipe_init(w.loop, &w.ctl, 0);
	if (ret == 0)
		ret = uv_pipe_open(&w.ctl, IL_FD_CONTROL);
	if (ret < 0) {
		fprintf(stderr, PROG ": fd %d is not a control channel (%s); it is started by `inputlat run`\n",
			IL_FD_CONTROL, uv_strerror(ret));
		return 2;
	}

	ret = il_policy_load(o.policy, o.builtin_dir, &w.policy, err, sizeof(err));
	if (ret < 0) {
		send_error(&w, err);
		return 2;
	}
	if (o.rttime_us) {
		/* SIGXCPU at the limit, SIGKILL half a second of RT time later. */
		ret = il_rttime_limit_set(o.rttime_us, o.rttime_us + 500000);
		if (ret < 0) {
			snprintf(err, sizeof(err), "RLIMIT_RTTIME: %s", strerror(-ret));
			send_error(&w, err);
			goto out;
		}
	}

	ret = il_canary_start(&(struct il_canary_config){ .cpu = o.canary_cpu }, wl_thread_init,
			      &w, &w.canary, err, sizeof(err));
	if (ret == 0 && o.load)
		ret = il_load_start(&(struct il_load_config){ .threads = (unsigned)o.load, .pin = true },
				    wl_thread_init, &w, &w.load, err, sizeof(err));
	if (ret < 0) {
		send_error(&w, err);
		goto out;
	}

	ret = il_frame_reader_start((uv_stream_t *)&w.ctl, frame_cb, eof_cb, &w, &w.reader);
	if (ret == 0)
		ret = send_ready(&w);
	if (ret < 0) {
		fprintf(stderr, PROG ": control channel: %s\n", uv_strerror(ret));
		goto out;
	}
	uv_run(w.loop, UV_RUN_DEFAULT);

out:
	il_frame_reader_free(w.reader);
	il_load_stop(w.load);
	il_canary_stop(w.canary);
	il_policy_free(w.policy);
	cJSON_Delete(w.threads);
	if (!uv_is_closing((uv_handle_t *)&w.ctl)) {
		uv_close((uv_handle_t *)&w.ctl, NULL);
	}
	uv_run(w.loop, UV_RUN_NOWAIT);
	uv_loop_close(w.loop);
	pthread_mutex_destroy(&w.lock);
	return w.exit_code;
}
