/*
 * Fuzz target: the IPC frame decoder. il_ctl.c's reader is tied to libuv
 * streams, so this replays its logic (reader_consume) on the input: the
 * bytes arrive in chunks into a buffer of the reader's size, every chunk is
 * decoded frame by frame, INCOMPLETE waits for the next chunk, an error
 * drops what is buffered, EVENT payloads are decoded and CONTROL payloads
 * parsed with cJSON. Every frame that decodes must encode back to the same
 * bytes.
 *
 * The first input byte picks the chunk size (0: the whole input at once),
 * so the fuzzer also explores frames split across reads.
 */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_msg.h"

struct fuzz_counts {
	uint64_t events, controls, invalid;
};

struct fuzz_reader {
	size_t len;
	struct fuzz_counts n;
	uint8_t buf[2 * IL_FRAME_MAX_LEN]; /* as struct il_frame_reader */
};

static int check_frame(const uint8_t *start, const struct il_frame *f, struct fuzz_counts *n)
{
	static uint8_t enc[IL_FRAME_MAX_LEN];

	IL_FUZZ_CHECK(f->frame_len >= IL_FRAME_HDR_LEN && f->frame_len <= IL_FRAME_MAX_LEN);
	IL_FUZZ_CHECK(f->payload == start + IL_FRAME_HDR_LEN);
	IL_FUZZ_CHECK(f->payload_len == f->frame_len - IL_FRAME_HDR_LEN);
	if (f->type == IL_FRAME_EVENT) {
		struct il_msg m;

		IL_FUZZ_CHECK(f->frame_len == IL_FRAME_EVENT_LEN);
		IL_FUZZ_CHECK(il_frame_event_payload(f, &m) == 0);
		IL_FUZZ_CHECK(m.event_id == f->event_id);
		il_frame_encode_event(&m, enc);
		IL_FUZZ_CHECK(memcmp(enc, start, IL_FRAME_EVENT_LEN) == 0);
		n->events++;
	} else {
		struct il_msg m;
		cJSON *json;
		int enc_len;

		IL_FUZZ_CHECK(f->type == IL_FRAME_CONTROL);
		IL_FUZZ_CHECK(il_frame_event_payload(f, &m) == IL_FRAME_BAD_LENGTH);
		enc_len = il_frame_encode_control((const char *)f->payload, f->payload_len, enc,
						  sizeof(enc));
		IL_FUZZ_CHECK(enc_len == (int)f->frame_len);
		/* A CONTROL frame's event id is always 0 on the wire, so only
		 * the length, version, type and payload must match. */
		IL_FUZZ_CHECK(memcmp(enc, start, 8) == 0);
		IL_FUZZ_CHECK(memcmp(enc + IL_FRAME_HDR_LEN, f->payload, f->payload_len) == 0);
		json = il_frame_control_json(f);
		if (json) {
			char *text = cJSON_PrintUnformatted(json);

			/* What the receiver does next: look at fields, print it. */
			(void)cJSON_GetObjectItemCaseSensitive(json, "cmd");
			free(text);
			n->controls++;
		} else {
			n->invalid++;
		}
		cJSON_Delete(json);
	}
	return 0;
}

/* reader_consume without the callbacks: 0, or -1 when a check failed. */
static int consume(struct fuzz_reader *r)
{
	size_t off = 0;

	while (off < r->len) {
		struct il_frame f;
		int rc;

		memset(&f, 0xa5, sizeof(f));
		rc = il_frame_decode(r->buf + off, r->len - off, &f);
		IL_FUZZ_CHECK(il_frame_strerror(rc) != NULL);
		if (rc == IL_FRAME_INCOMPLETE) {
			/* The rest must fit in the buffer, or the reader stalls. */
			IL_FUZZ_CHECK(r->len - off < IL_FRAME_MAX_LEN);
			break;
		}
		if (rc < 0) {
			IL_FUZZ_CHECK(rc >= IL_FRAME_BAD_PAYLOAD);
			r->len = 0;
			r->n.invalid++;
			return 0;
		}
		IL_FUZZ_CHECK(rc == IL_FRAME_OK);
		IL_FUZZ_CHECK(f.frame_len <= r->len - off);
		if (check_frame(r->buf + off, &f, &r->n) < 0)
			return -1;
		off += f.frame_len;
	}
	if (off) {
		memmove(r->buf, r->buf + off, r->len - off);
		r->len -= off;
	}
	return 0;
}

/*
 * Decodes the input in place, frame after frame, as a reader whose buffer
 * holds exactly these bytes: the input is its own allocation, so a decoder
 * that reads past len trips ASan here.
 */
static int decode_in_place(const uint8_t *data, size_t size)
{
	struct fuzz_counts n = {0};
	size_t off = 0;

	while (off < size) {
		struct il_frame f;
		int rc = il_frame_decode(data + off, size - off, &f);

		if (rc != IL_FRAME_OK)
			break;
		if (check_frame(data + off, &f, &n) < 0)
			return -1;
		off += f.frame_len;
	}
	return 0;
}

int il_fuzz_frame(const uint8_t *data, size_t size)
{
	static struct fuzz_reader *r;
	size_t chunk, off = 0;

	if (size > IL_FUZZ_MAX_INPUT)
		size = IL_FUZZ_MAX_INPUT;
	if (size && decode_in_place(data + 1, size - 1) < 0)
		return -1;
	/* The reader stays allocated: 128 KiB per input would dominate. */
	if (!r && !(r = malloc(sizeof(*r))))
		return 0;
	r->len = 0;
	memset(&r->n, 0, sizeof(r->n));
	if (size == 0)
		return consume(r);
	chunk = data[0] ? data[0] : size;
	data++;
	size--;
	while (off < size) {
		size_t n = size - off;

		if (n > chunk)
			n = chunk;
		IL_FUZZ_CHECK(n <= sizeof(r->buf) - r->len);
		memcpy(r->buf + r->len, data + off, n);
		r->len += n;
		off += n;
		if (consume(r) < 0)
			return -1;
	}
	return 0;
}

IL_FUZZ_ENTRY(il_fuzz_frame)
