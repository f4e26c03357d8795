/*
 * The control channel between the orchestrator and each child (fd 3):
 * CONTROL frames carrying one JSON object each, on a libuv stream.
 *
 * Protocol (the "type" key):
 *   child -> orchestrator  {"type":"ready","process":NAME,"pid":N,"threads":[THREAD...]}
 *                          {"type":"pong","seq":N}
 *                          {"type":"stats", ...process-specific keys...}
 *                          {"type":"error","message":"one line"}
 *   orchestrator -> child  {"type":"start"}   measurement begins (reset counters)
 *                          {"type":"ping","seq":N}
 *                          {"type":"stop"}    reply with "stats", then exit 0
 * THREAD = {"role":ROLE,"name":"browser:ui","tid":N,"sched":{read-back attrs}}
 * End of file on the channel means the orchestrator is gone: exit at once.
 */
#ifndef IL_CTL_H
#define IL_CTL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "il_msg.h"

struct il_frame_reader;

/* Called per valid frame; json is parsed for CONTROL frames (NULL for EVENT). */
typedef void (*il_frame_cb)(void *ctx, const struct il_frame *f, const struct il_msg *ev,
			    cJSON *json);
/* Called once at end of stream or read error (status is a libuv code). */
typedef void (*il_frame_eof_cb)(void *ctx, int status);

/*
 * Starts reading frames from `stream`. Malformed frames are counted
 * (il_frame_reader_invalid) and the buffered bytes dropped, never fatal.
 * The reader is malloc'ed once here; no allocation per frame.
 */
int il_frame_reader_start(uv_stream_t *stream, il_frame_cb cb, il_frame_eof_cb eof_cb, void *ctx,
			  struct il_frame_reader **out);
uint64_t il_frame_reader_invalid(const struct il_frame_reader *r);

/* Called after each malformed frame is counted (err: enum il_frame_err). */
typedef void (*il_frame_invalid_cb)(void *ctx, int err);
/* Where a malformed frame is fatal (the control channel), say so here. */
void il_frame_reader_on_invalid(struct il_frame_reader *r, il_frame_invalid_cb cb);
/* Stops reading and frees the reader (the stream stays open). */
void il_frame_reader_free(struct il_frame_reader *r);

/* Sends a CONTROL frame with the JSON text of obj. Returns 0 or a libuv error. */
int il_ctl_send(uv_stream_t *stream, const cJSON *obj);

/* Sends {"type":TYPE} with no other key. */
int il_ctl_send_type(uv_stream_t *stream, const char *type);

/* Sends an EVENT frame; tries a direct write first, queues otherwise. */
int il_frame_send_event(uv_stream_t *stream, const struct il_msg *m);

/*
 * A descriptor over the control channel, before any frame: one byte with
 * the descriptor attached (SCM_RIGHTS), sent on the raw socket before it
 * is handed to libuv, and received by the child, blocking, before it
 * starts reading frames (the --oncpu-map=ctl option says it will come).
 * recv waits at most timeout_ms. Both return 0 or a negative errno; *fd is
 * the child's new descriptor (close-on-exec).
 */
int il_ctl_send_fd(int sock, int fd);
int il_ctl_recv_fd(int sock, int timeout_ms, int *fd);

#endif
