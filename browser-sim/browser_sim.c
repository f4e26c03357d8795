/*
 * browser-sim: the browser process. Its evdev thread reads the mouse-down
 * (hop 1), the UI thread handles it (hop 2), the IO thread sends it to the
 * renderer over a pipe (hop 3) and receives presentation feedback from viz.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "il_child.h"
#include "il_ctl.h"
#include "il_hop.h"
#include "il_input.h"
#include "il_queue.h"

struct browser {
	struct il_input_spec input;
	char input_node[256];
	struct il_role_thread evdev, ui, io;
	/* evdev thread */
	struct il_input_reader *reader;
	uv_poll_t poll;
	uint64_t next_event_id;
	uint64_t press_stamp_ns;
	uint32_t press_cpu;
	/* ui thread */
	struct il_queue ui_q;
	/* io thread */
	struct il_queue io_q;
	uv_pipe_t to_render;
	uv_pipe_t feedback;
	struct il_frame_reader *feedback_reader;
	uint64_t feedback_events;
	uint64_t send_errors;
};

static struct browser B;

/* --- evdev thread: hop 1 (IL_STAMP_EVDEV) ---------------------------------------------- */
static void evdev_press_cb(void *ctx, uint64_t kernel_ns)
{
	struct il_msg m = {0};

	m.event_id = ++B.next_event_id;
	m.kernel_ns = kernel_ns;
	m.stamp_ns[IL_STAMP_EVDEV] = il_input_pickup_ns(B.press_stamp_ns, kernel_ns, il_now_ns());
	m.tid[IL_STAMP_EVDEV] = (uint32_t)il_gettid();
	m.cpu[IL_STAMP_EVDEV] = B.press_cpu;
	if (il_hop_marker_fd >= 0)
		il_hop_mark(&m, IL_STAMP_EVDEV, 1);
	il_hop_end(&m, IL_STAMP_EVDEV, B.evdev.work_us);
	il_queue_push(&B.ui_q, &m);
}

static void evdev_poll_cb(uv_poll_t *h, int status, int events)
{
	int rc;

	/* Hop 1 starts when the evdev thread wakes to read. */
	B.press_stamp_ns = il_now_ns();
	B.press_cpu = il_cpu_now();
	rc = il_input_reader_dispatch(B.reader, evdev_press_cb, NULL);
	if (rc == -EPIPE || (rc < 0 && rc != -EAGAIN))
		uv_poll_stop(h); /* input closed: the run is ending */
}

static int evdev_setup(struct il_role_thread *t)
{
	char err[256];
	int rc;

	if (B.input_node[0])
		snprintf(B.input.arg, sizeof(B.input.arg), "%s", B.input_node);
	rc = il_input_reader_open(&B.input, il_child_fd(t->child, IL_CH_INPUT), &B.reader, err,
				  sizeof(err));
	if (rc < 0) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", err);
		return rc;
	}
	rc = uv_poll_init(&t->loop, &B.poll, il_input_reader_fd(B.reader));
	if (rc == 0)
		rc = uv_poll_start(&B.poll, UV_READABLE, evdev_poll_cb);
	return rc;
}

static void evdev_teardown(struct il_role_thread *t)
{
	uv_close((uv_handle_t *)&B.poll, NULL);
}

/* --- ui thread: hop 2 ------------------------------------------------- */
static void ui_cb(void *ctx, struct il_msg *m)
{
	il_hop_begin(m, IL_STAMP_UI);
	il_hop_end(m, IL_STAMP_UI, B.ui.work_us);
	il_queue_push(&B.io_q, m);
}

static int ui_setup(struct il_role_thread *t)
{
	return il_queue_init(&B.ui_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			     il_child_lock(t->child), ui_cb, NULL);
}

static void ui_teardown(struct il_role_thread *t)
{
	il_queue_close(&B.ui_q);
}

/* --- io thread: hop 3, and presentation feedback ---------------------- */
static void io_cb(void *ctx, struct il_msg *m)
{
	il_hop_begin(m, IL_STAMP_BROWSER_IO);
	il_hop_end(m, IL_STAMP_BROWSER_IO, B.io.work_us);
	il_hop_send((uv_stream_t *)&B.to_render, m, &B.send_errors);
}

static void feedback_cb(void *ctx, const struct il_frame *f, const struct il_msg *ev, cJSON *json)
{
	if (ev)
		B.feedback_events++;
}

static void feedback_eof_cb(void *ctx, int status)
{
}

static int io_setup(struct il_role_thread *t)
{
	int rc = il_queue_init(&B.io_q, &t->loop, IL_QUEUE_CAP, IL_MSG_FIFO_MAX,
			       il_child_lock(t->child), io_cb, NULL);

	if (rc < 0)
		return rc;
	uv_pipe_init(&t->loop, &B.to_render, 0);
	rc = uv_pipe_open(&B.to_render, il_child_fd(t->child, IL_CH_BROWSER_RENDER));
	if (rc < 0)
		return rc;
	uv_pipe_init(&t->loop, &B.feedback, 0);
	rc = uv_pipe_open(&B.feedback, il_child_fd(t->child, IL_CH_FEEDBACK));
	if (rc < 0)
		return rc;
	return il_frame_reader_start((uv_stream_t *)&B.feedback, feedback_cb, feedback_eof_cb, NULL,
				     &B.feedback_reader);
}

static void io_teardown(struct il_role_thread *t)
{
	il_queue_close(&B.io_q);
}

/* --- process ---------------------------------------------------------- */
static int browser_option(struct il_child *c, const char *name, const char *value)
{
	char err[256];

	if (strcmp(name, "input") == 0)
		return il_input_spec_parse(value, &B.input, err, sizeof(err));
	if (strcmp(name, "input-node") == 0) {
		snprintf(B.input_node, sizeof(B.input_node), "%s", value);
		return 0;
	}
	return 1;
}

static void browser_stop(struct il_child *c, cJSON *stats)
{
	cJSON *queues;

	il_role_thread_stop(&B.evdev);
	il_role_thread_stop(&B.ui);
	il_role_thread_stop(&B.io);
	/* Only now that no thread can push any more. */
	queues = cJSON_AddObjectToObject(stats, "queues");
	il_msg_fifo_stats_json(&B.ui_q.fifo, "ui", queues);
	il_msg_fifo_stats_json(&B.io_q.fifo, "io", queues);
	il_queue_free(&B.ui_q);
	il_queue_free(&B.io_q);
	cJSON_AddNumberToObject(stats, "events_read", (double)B.next_event_id);
	cJSON_AddNumberToObject(stats, "feedback_events", (double)B.feedback_events);
	cJSON_AddNumberToObject(stats, "invalid_frames",
				(double)il_frame_reader_invalid(B.feedback_reader));
	cJSON_AddNumberToObject(stats, "invalid_input_events",
				B.reader ? (double)il_input_reader_invalid_events(B.reader) : 0.0);
	cJSON_AddNumberToObject(stats, "send_errors", (double)B.send_errors);
}

int main(int argc, char **argv)
{
	static const struct il_child_hooks hooks = {.option = browser_option, .stop = browser_stop};
	struct il_child *c = il_child_init(argc, argv, IL_PROC_BROWSER, &hooks);

	/* Consumers first, so a producer never posts to a queue that is not there. */
	il_child_start_thread(c, &B.io, IL_T_BROWSER_IO, io_setup, io_teardown);
	il_child_start_thread(c, &B.ui, IL_T_BROWSER_UI, ui_setup, ui_teardown);
	il_child_start_thread(c, &B.evdev, IL_T_BROWSER_EVDEV, evdev_setup, evdev_teardown);
	il_child_ready(c);
	return il_child_run(c);
}
