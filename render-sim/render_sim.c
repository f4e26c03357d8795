/*
 * render-sim: the renderer process. Its IO thread receives the input
 * (hop 4), the compositor thread's input handler forwards it to the main
 * thread (hop 5), the main thread runs the JS-like handler (hop 6), the
 * compositor commits the result (hop 7) and submits a frame to viz.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_child.h"
#include "il_ctl.h"
#include "il_hog.h"
#include "il_js.h"
#include "il_hop.h"
#include "il_parse.h"
#include "il_queue.h"

struct render {
	struct il_role_thread io, comp, main;
	/* io thread */
	uv_pipe_t from_browser;
	struct il_frame_reader *reader;
	/* compositor thread: input from io and commits from main share a queue */
	struct il_queue comp_q;
	uv_pipe_t to_viz;
	uint64_t send_errors;
	/* main thread */
	struct il_queue main_q;
	/* JS-like hogs (role js), started held and released at "start" */
	struct il_hog_config hog_cfg;
	struct il_hog *hog;
	bool hog_js; /* JavaScript hogs running hog_script */
	char hog_script_path[4096];
	char *hog_script;
};

static struct render R;

/* --- io thread: hop 4 ------------------------------------------------- */
static void io_frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *ev, cJSON *json)
{
	struct il_msg m;

	if (!ev)
		return;
	m = *ev;
	il_hop_begin(&m, IL_STAMP_RENDER_IO);
	il_hop_end(&m, IL_STAMP_RENDER_IO, R.io.work_us);
	il_queue_push(&R.comp_q, &m);
}

static void io_eof_cb(void *ctx, int status)
{
}

static int io_setup(struct il_role_thread *t)
{
	int rc;

	uv_pipe_init(&t->loop, &R.from_browser, 0);
	rc = uv_pipe_open(&R.from_browser, il_child_fd(t->child, IL_CH_BROWSER_RENDER));
	if (rc < 0)
		return rc;
	return il_frame_reader_start((uv_stream_t *)&R.from_browser, io_frame_cb, io_eof_cb, NULL,
				     &R.reader);
}

/* --- compositor thread: hops 5 and 7 ---------------------------------- */
static void comp_cb(void *ctx, struct il_msg *m)
{
	if (!m->stamp_ns[IL_STAMP_MAIN]) {
		/* Input handling: forward to the main thread (Blink dispatch). */
		il_hop_begin(m, IL_STAMP_RENDER_INPUT);
		il_hop_end(m, IL_STAMP_RENDER_INPUT, R.comp.work_us);
		il_queue_push(&R.main_q, m);
		return;
	}
	/* Commit: the main thread's result becomes a compositor frame for viz. */
	il_hop_begin(m, IL_STAMP_COMMIT);
	il_hop_end(m, IL_STAMP_COMMIT, R.comp.work_us);
	il_hop_send((uv_stream_t *)&R.to_viz, m, &R.send_errors);
}

static int comp_setup(struct il_role_thread *t)
{
	int rc = il_queue_init(&R.comp_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			       il_child_lock(t->child), comp_cb, NULL);

	if (rc < 0)
		return rc;
	uv_pipe_init(&t->loop, &R.to_viz, 0);
	return uv_pipe_open(&R.to_viz, il_child_fd(t->child, IL_CH_RENDER_VIZ));
}

static void comp_teardown(struct il_role_thread *t)
{
	il_queue_close(&R.comp_q);
}

/* --- main thread: hop 6 ----------------------------------------------- */
static void main_cb(void *ctx, struct il_msg *m)
{
	il_hop_begin(m, IL_STAMP_MAIN);
	il_hop_end(m, IL_STAMP_MAIN, R.main.work_us);
	il_queue_push(&R.comp_q, m);
}

static int main_setup(struct il_role_thread *t)
{
	return il_queue_init(&R.main_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			     il_child_lock(t->child), main_cb, NULL);
}

static void main_teardown(struct il_role_thread *t)
{
	il_queue_close(&R.main_q);
}

/* --- process ---------------------------------------------------------- */
static int render_option(struct il_child *c, const char *name, const char *value)
{
	uint64_t v;

	if (strcmp(name, "hog") == 0)
		return il_parse_u64(value, 1, IL_HOG_MAX_THREADS, &v) < 0
			   ? -EINVAL
			   : (R.hog_cfg.threads = (unsigned)v, 0);
	if (strcmp(name, "hog-mode") == 0)
		return il_hog_mode_split(value, &R.hog_cfg.mode, &R.hog_js);
	if (strcmp(name, "hog-script") == 0) {
		snprintf(R.hog_script_path, sizeof(R.hog_script_path), "%s", value);
		return 0;
	}
	if (strcmp(name, "hog-task-ms") == 0)
		return il_parse_u64(value, 1, 600000, &v) < 0
			   ? -EINVAL
			   : (R.hog_cfg.task_ns = v * 1000000, 0);
	if (strcmp(name, "hog-gap-ms") == 0)
		return il_parse_u64(value, 0, 600000, &v) < 0 ? -EINVAL
							      : (R.hog_cfg.gap_ns = v * 1000000, 0);
	return 1;
}

static void render_start(struct il_child *c)
{
	if (R.hog)
		il_hog_mark_start(R.hog);
}

static void render_stop(struct il_child *c, cJSON *stats)
{
	cJSON *queues;

	/* Told to end first (1024 busy hogs would starve this thread's own
	 * work here), stats next (the hogs' clocks as they published them), then
	 * join the hogs so the chain threads can be joined on a CPU the hogs no
	 * longer hold. */
	if (R.hog) {
		il_hog_halt(R.hog);
		cJSON_AddItemToObject(stats, "hog", il_hog_stats_json(R.hog, 0));
		il_hog_stop(R.hog);
		R.hog = NULL;
	}
	il_role_thread_stop(&R.io);
	il_role_thread_stop(&R.main);
	il_role_thread_stop(&R.comp);
	/* Only now that no thread can push any more. */
	queues = cJSON_AddObjectToObject(stats, "queues");
	il_msg_fifo_stats_json(&R.comp_q.fifo, "compositor", queues);
	il_msg_fifo_stats_json(&R.main_q.fifo, "main", queues);
	il_queue_free(&R.comp_q);
	il_queue_free(&R.main_q);
	cJSON_AddNumberToObject(stats, "invalid_frames", (double)il_frame_reader_invalid(R.reader));
	cJSON_AddNumberToObject(stats, "send_errors", (double)R.send_errors);
	free(R.hog_script);
	R.hog_script = NULL;
}

int main(int argc, char **argv)
{
	static const struct il_child_hooks hooks = {
	    .option = render_option, .start = render_start, .stop = render_stop};
	struct il_child *c;
	char err[256];

	R.hog_cfg.task_ns = 200000000;
	R.hog_cfg.gap_ns = 50000000;
	R.hog_cfg.pin = true;
	R.hog_cfg.hold = true;
	c = il_child_init(argc, argv, IL_PROC_RENDER, &hooks);
	R.hog_cfg.halt_word = il_child_halt_word(c);

	il_child_start_thread(c, &R.comp, IL_T_RENDER_COMP, comp_setup, comp_teardown);
	il_child_start_thread(c, &R.main, IL_T_RENDER_MAIN, main_setup, main_teardown);
	il_child_start_thread(c, &R.io, IL_T_RENDER_IO, io_setup, NULL);
	/* The orchestrator checked the script; a failure here is one line too. */
	if (R.hog_cfg.threads && R.hog_js) {
		if (!R.hog_script_path[0])
			il_child_fail(c, "--hog-mode js needs --hog-script");
		if (il_js_read_file(R.hog_script_path, &R.hog_script, err, sizeof(err)) < 0)
			il_child_fail(c, "%s", err);
		R.hog_cfg.script = R.hog_script;
		R.hog_cfg.script_name = R.hog_script_path;
	}
	if (R.hog_cfg.threads &&
	    il_hog_start(&R.hog_cfg, il_child_thread_init, c, &R.hog, err, sizeof(err)) < 0)
		il_child_fail(c, "%s", err);
	il_child_ready(c);
	return il_child_run(c);
}
