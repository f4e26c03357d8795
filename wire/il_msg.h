/*
 * The mouse-down record that travels the hop chain, and the framed binary
 * codec used wherever it crosses a process boundary.
 */
#ifndef IL_MSG_H
#define IL_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "il_chain.h"

struct il_msg {
	uint64_t event_id;
	/* CLOCK_MONOTONIC ns when hop k's handler started (0 = not reached);
	 * indexed by enum il_stamp. */
	uint64_t stamp_ns[IL_NSTAMPS];
	/* CLOCK_MONOTONIC ns when hop k's handler finished its work. */
	uint64_t end_ns[IL_NSTAMPS];
	/* Thread that ran hop k (kernel tid). */
	uint32_t tid[IL_NSTAMPS];
	/* CPU the handler of hop k started on (sched_getcpu), UINT32_MAX unknown. */
	uint32_t cpu[IL_NSTAMPS];
	/* Thread CPU time (CLOCK_THREAD_CPUTIME_ID) the handler of hop k spent
	 * on its configured work, 0 when it had none: configured work is CPU
	 * work, and this says how much it really was. */
	uint32_t work_cpu_ns[IL_NSTAMPS];
	/* Kernel timestamp of the input event (evdev time), 0 if unknown. */
	uint64_t kernel_ns;
};

/*
 * Frames. Every cross-process message is
 *   u32 length (whole frame, header included), u16 version, u16 type,
 *   u64 event id, payload
 * all little-endian. EVENT frames carry an il_msg; CONTROL frames carry
 * UTF-8 JSON text (not NUL-terminated).
 */
#define IL_FRAME_VERSION 2
#define IL_FRAME_HDR_LEN 16
/*
 * The largest frame. Control messages list threads: a child's "ready"
 * reports every thread it runs with its read-back attributes, and "stats"
 * one entry per worker, so a process with --hog or --load at the CLI's
 * largest (1024 threads, each under 512 bytes of JSON) must fit.
 */
#define IL_FRAME_MAX_LEN (1 << 20)

enum il_frame_type {
	IL_FRAME_EVENT = 1,
	IL_FRAME_CONTROL = 2,
};

/* Fixed payload size of an EVENT frame. */
#define IL_FRAME_EVENT_PAYLOAD (8 + IL_NSTAMPS * 8 * 2 + IL_NSTAMPS * 4 * 3)
#define IL_FRAME_EVENT_LEN     (IL_FRAME_HDR_LEN + IL_FRAME_EVENT_PAYLOAD)

/* Distinct decode errors, so a reader can count each kind. */
enum il_frame_err {
	IL_FRAME_OK = 0,
	IL_FRAME_INCOMPLETE = 1, /* need more bytes, not an error */
	IL_FRAME_BAD_LENGTH = -1,
	IL_FRAME_BAD_VERSION = -2,
	IL_FRAME_BAD_TYPE = -3,
	IL_FRAME_BAD_PAYLOAD = -4, /* a CONTROL frame that is not a JSON object */
};

/* Encodes an EVENT frame into buf (IL_FRAME_EVENT_LEN bytes). */
void il_frame_encode_event(const struct il_msg *m, uint8_t *buf);

/*
 * Encodes a CONTROL frame with `len` bytes of JSON. Returns the frame
 * length, or -EMSGSIZE when it does not fit in cap or IL_FRAME_MAX_LEN.
 */
int il_frame_encode_control(const char *json, size_t len, uint8_t *buf, size_t cap);

struct il_frame {
	enum il_frame_type type;
	uint64_t event_id;
	const uint8_t *payload;
	size_t payload_len;
	size_t frame_len;
};

/*
 * Looks at the first `len` bytes of a stream. Returns IL_FRAME_OK and
 * fills *f (frame_len bytes consumed), IL_FRAME_INCOMPLETE, or one of the
 * negative enum il_frame_err values. Never reads past len.
 */
int il_frame_decode(const uint8_t *buf, size_t len, struct il_frame *f);

/* Decodes an EVENT payload. Returns 0 or IL_FRAME_BAD_LENGTH. */
int il_frame_event_payload(const struct il_frame *f, struct il_msg *m);

/*
 * A CONTROL payload's JSON object (the caller deletes it), or NULL
 * (IL_FRAME_BAD_PAYLOAD): one object and nothing after it, no key twice
 * (il_json_parse_one), so "{...}garbage" is a malformed frame.
 */
struct cJSON *il_frame_control_json(const struct il_frame *f);

/*
 * Hop k's time (1..IL_NHOPS: stamp k-1 to stamp k) split as the report
 * splits it: *work_ns until hop k-1's handler ended (its end clamped into
 * the hop: a sender preempted after its send ends past stamp k, and that
 * counts as work up to stamp k, never as negative queueing) and
 * *queue_ns from then until stamp k. The report's hop_work/hop_queue and
 * the trace's slices and queue_us use this one split. Returns 0, or
 * -ENODATA when either stamp is missing (0) or k is out of range, or
 * -ERANGE when stamp k comes before stamp k-1; outputs untouched then.
 */
int il_msg_hop_split(const struct il_msg *m, int k, uint64_t *work_ns, uint64_t *queue_ns);

/* "bad length", "bad version", ... for an il_frame_err. */
const char *il_frame_strerror(int err);

#endif
