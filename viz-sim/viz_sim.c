/*
 * viz-sim: the display compositor process. Its IO thread receives the
 * compositor frame (hop 8), the compositor thread aggregates it (hop 9),
 * the GPU thread draws and swaps (hop 10), the DRM thread requests the page
 * flip (hop 11) and learns when it happened (hop 12). The finished record
 * goes back to browser (presentation feedback) and to the orchestrator.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "il_child.h"
#include "il_ctl.h"
#include "il_hop.h"
#include "il_present.h"
#include "il_queue.h"

struct viz {
	struct il_present_spec present_spec;
	struct il_role_thread io, comp, gpu, drm;
	/* io thread */
	uv_pipe_t from_render, feedback, records;
	struct il_frame_reader *reader;
	struct il_queue done_q;
	uint64_t send_errors;
	/* Presentation feedback that could not reach browser-sim: the event
	 * was presented, so apart from send_errors (events lost). */
	uint64_t feedback_errors;
	/* compositor, gpu */
	struct il_queue comp_q, gpu_q;
	/* drm thread */
	struct il_queue drm_q;
	struct il_present *present;
	/* Drawn, waiting for the flip that shows them: every one a flip asked
	 * before a vblank shows is answered at that vblank (il_present.h). */
	struct il_msg_fifo pending;
	uint64_t last_flip_seq;
};

static struct viz V;

/* --- io thread: hop 8, and sending finished records ------------------- */
static void io_frame_cb(void *ctx, const struct il_frame *f, const struct il_msg *ev, cJSON *json)
{
	struct il_msg m;

	if (!ev)
		return;
	m = *ev;
	il_hop_begin(&m, IL_STAMP_VIZ_IO);
	il_hop_end(&m, IL_STAMP_VIZ_IO, V.io.work_us);
	il_queue_push(&V.comp_q, &m);
}

static void io_eof_cb(void *ctx, int status)
{
}

static void done_cb(void *ctx, struct il_msg *m)
{
	/* Presentation feedback to the browser, the record to the orchestrator. */
	il_hop_send((uv_stream_t *)&V.feedback, m, &V.feedback_errors);
	il_hop_send((uv_stream_t *)&V.records, m, &V.send_errors);
}

static int io_setup(struct il_role_thread *t)
{
	int rc = il_queue_init(&V.done_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			       il_child_lock(t->child), done_cb, NULL);

	if (rc < 0)
		return rc;
	uv_pipe_init(&t->loop, &V.feedback, 0);
	uv_pipe_init(&t->loop, &V.records, 0);
	uv_pipe_init(&t->loop, &V.from_render, 0);
	if ((rc = uv_pipe_open(&V.feedback, il_child_fd(t->child, IL_CH_FEEDBACK))) < 0 ||
	    (rc = uv_pipe_open(&V.records, il_child_fd(t->child, IL_CH_RECORDS))) < 0 ||
	    (rc = uv_pipe_open(&V.from_render, il_child_fd(t->child, IL_CH_RENDER_VIZ))) < 0)
		return rc;
	return il_frame_reader_start((uv_stream_t *)&V.from_render, io_frame_cb, io_eof_cb, NULL,
				     &V.reader);
}

static void io_teardown(struct il_role_thread *t)
{
	il_queue_close(&V.done_q);
}

/* --- compositor thread: hop 9 ----------------------------------------- */
static void comp_cb(void *ctx, struct il_msg *m)
{
	il_hop_begin(m, IL_STAMP_VIZ_COMP);
	il_hop_end(m, IL_STAMP_VIZ_COMP, V.comp.work_us);
	il_queue_push(&V.gpu_q, m);
}

static int comp_setup(struct il_role_thread *t)
{
	return il_queue_init(&V.comp_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			     il_child_lock(t->child), comp_cb, NULL);
}

static void comp_teardown(struct il_role_thread *t)
{
	il_queue_close(&V.comp_q);
}

/* --- gpu thread: hop 10 ----------------------------------------------- */
static void gpu_cb(void *ctx, struct il_msg *m)
{
	il_hop_begin(m, IL_STAMP_GPU);
	il_hop_end(m, IL_STAMP_GPU, V.gpu.work_us);
	il_queue_push(&V.drm_q, m);
}

static int gpu_setup(struct il_role_thread *t)
{
	return il_queue_init(&V.gpu_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			     il_child_lock(t->child), gpu_cb, NULL);
}

static void gpu_teardown(struct il_role_thread *t)
{
	il_queue_close(&V.gpu_q);
}

/* --- drm thread: hops 11 and 12 --------------------------------------- */
static void drm_cb(void *ctx, struct il_msg *m)
{
	il_hop_begin(m, IL_STAMP_DRM);
	il_hop_end(m, IL_STAMP_DRM, V.drm.work_us);
	/* Refused past IL_MSG_FIFO_MAX (counted): no flip is asked for it. */
	if (il_msg_fifo_push(&V.pending, m) == 0)
		il_present_flip(V.present);
}

static void flip_done_cb(void *ctx, uint64_t flip_ns, uint64_t seq)
{
	struct il_msg m;

	/* The back end answers every request once, in request order. */
	if (!il_msg_fifo_pop(&V.pending, &m))
		return;
	m.stamp_ns[IL_STAMP_FLIP] = flip_ns;
	m.tid[IL_STAMP_FLIP] = (uint32_t)il_gettid();
	m.cpu[IL_STAMP_FLIP] = il_cpu_now();
	m.end_ns[IL_STAMP_FLIP] = il_now_ns();
	V.last_flip_seq = seq;
	il_queue_push(&V.done_q, &m);
}

static int drm_setup(struct il_role_thread *t)
{
	char err[256];
	int rc = il_queue_init(&V.drm_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			       il_child_lock(t->child), drm_cb, NULL);

	if (rc < 0)
		return rc;
	/* 64 frames' worth at first; it grows with a backlog (il_msg_fifo.h). */
	if (il_msg_fifo_init(&V.pending, 64, IL_MSG_FIFO_MAX) < 0)
		return -ENOMEM;
	rc = il_present_open(&V.present_spec, &t->loop, flip_done_cb, NULL, &V.present, err,
			     sizeof(err));
	if (rc < 0)
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", err);
	return rc;
}

static void drm_teardown(struct il_role_thread *t)
{
	il_queue_close(&V.drm_q);
	if (V.present)
		il_present_close(V.present, NULL, NULL);
}

/* --- process ---------------------------------------------------------- */
static int viz_option(struct il_child *c, const char *name, const char *value)
{
	char err[256];

	if (strcmp(name, "present") == 0)
		return il_present_spec_parse(value, &V.present_spec, err, sizeof(err));
	return 1;
}

static void viz_stop(struct il_child *c, cJSON *stats)
{
	cJSON *queues;

	il_role_thread_stop(&V.io);
	il_role_thread_stop(&V.comp);
	il_role_thread_stop(&V.gpu);
	il_role_thread_stop(&V.drm);
	/* Only now that no thread can push any more. */
	queues = cJSON_AddObjectToObject(stats, "queues");
	il_msg_fifo_stats_json(&V.done_q.fifo, "io", queues);
	il_msg_fifo_stats_json(&V.comp_q.fifo, "compositor", queues);
	il_msg_fifo_stats_json(&V.gpu_q.fifo, "gpu", queues);
	il_msg_fifo_stats_json(&V.drm_q.fifo, "drm", queues);
	il_msg_fifo_stats_json(&V.pending, "pending_flips", queues);
	il_msg_fifo_free(&V.pending);
	il_queue_free(&V.done_q);
	il_queue_free(&V.comp_q);
	il_queue_free(&V.gpu_q);
	il_queue_free(&V.drm_q);
	cJSON_AddNumberToObject(stats, "invalid_frames", (double)il_frame_reader_invalid(V.reader));
	cJSON_AddNumberToObject(stats, "send_errors", (double)V.send_errors);
	cJSON_AddNumberToObject(stats, "feedback_send_errors", (double)V.feedback_errors);
	cJSON_AddNumberToObject(stats, "last_flip_seq", (double)V.last_flip_seq);
}

int main(int argc, char **argv)
{
	static const struct il_child_hooks hooks = {.option = viz_option, .stop = viz_stop};
	struct il_child *c = il_child_init(argc, argv, IL_PROC_VIZ, &hooks);

	il_child_start_thread(c, &V.io, IL_T_VIZ_IO, io_setup, io_teardown);
	il_child_start_thread(c, &V.drm, IL_T_VIZ_DRM, drm_setup, drm_teardown);
	il_child_start_thread(c, &V.gpu, IL_T_VIZ_GPU, gpu_setup, gpu_teardown);
	il_child_start_thread(c, &V.comp, IL_T_VIZ_COMP, comp_setup, comp_teardown);
	il_child_ready(c);
	return il_child_run(c);
}
