#include "il_msg.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "il_file.h"

/*
 * Little-endian field access: the frame is a wire format, not a memcpy of
 * a struct, but on a little-endian host each helper compiles to one move
 * (this runs twice per cross-process hop, so it matters).
 */
static inline void put_u16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_u32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint16_t get_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void put_header(uint8_t *buf, uint32_t len, uint16_t type, uint64_t event_id)
{
	put_u32(buf, len);
	put_u16(buf + 4, IL_FRAME_VERSION);
	put_u16(buf + 6, type);
	put_u64(buf + 8, event_id);
}

void il_frame_encode_event(const struct il_msg *m, uint8_t *buf)
{
	uint8_t *p = buf + IL_FRAME_HDR_LEN;

	put_header(buf, IL_FRAME_EVENT_LEN, IL_FRAME_EVENT, m->event_id);
	put_u64(p, m->kernel_ns);
	p += 8;
	for (int i = 0; i < IL_NSTAMPS; i++, p += 8)
		put_u64(p, m->stamp_ns[i]);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 8)
		put_u64(p, m->end_ns[i]);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 4)
		put_u32(p, m->tid[i]);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 4)
		put_u32(p, m->cpu[i]);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 4)
		put_u32(p, m->work_cpu_ns[i]);
}

int il_frame_encode_control(const char *json, size_t len, uint8_t *buf, size_t cap)
{
	size_t total = IL_FRAME_HDR_LEN + len;

	if (total > cap || total > IL_FRAME_MAX_LEN)
		return -EMSGSIZE;
	put_header(buf, (uint32_t)total, IL_FRAME_CONTROL, 0);
	memcpy(buf + IL_FRAME_HDR_LEN, json, len);
	return (int)total;
}

int il_frame_decode(const uint8_t *buf, size_t len, struct il_frame *f)
{
	uint32_t flen;
	uint16_t version, type;

	/* The length is validated as soon as it is readable so that a garbage
	 * length is reported at once instead of waiting for bytes that never come. */
	if (len < 4)
		return IL_FRAME_INCOMPLETE;
	flen = get_u32(buf);
	if (flen < IL_FRAME_HDR_LEN || flen > IL_FRAME_MAX_LEN)
		return IL_FRAME_BAD_LENGTH;
	if (len < IL_FRAME_HDR_LEN)
		return IL_FRAME_INCOMPLETE;
	version = get_u16(buf + 4);
	if (version != IL_FRAME_VERSION)
		return IL_FRAME_BAD_VERSION;
	type = get_u16(buf + 6);
	if (type != IL_FRAME_EVENT && type != IL_FRAME_CONTROL)
		return IL_FRAME_BAD_TYPE;
	if (type == IL_FRAME_EVENT && flen != IL_FRAME_EVENT_LEN)
		return IL_FRAME_BAD_LENGTH;
	if (len < flen)
		return IL_FRAME_INCOMPLETE;
	f->type = type;
	f->event_id = get_u64(buf + 8);
	f->payload = buf + IL_FRAME_HDR_LEN;
	f->payload_len = flen - IL_FRAME_HDR_LEN;
	f->frame_len = flen;
	return IL_FRAME_OK;
}

cJSON *il_frame_control_json(const struct il_frame *f)
{
	cJSON *json = NULL;
	char why[160];

	if (f->type != IL_FRAME_CONTROL ||
	    il_json_parse_one((const char *)f->payload, f->payload_len, &json, why, sizeof(why)) <
		0)
		return NULL;
	if (!cJSON_IsObject(json)) {
		cJSON_Delete(json);
		return NULL;
	}
	return json;
}

int il_frame_event_payload(const struct il_frame *f, struct il_msg *m)
{
	const uint8_t *p = f->payload;

	if (f->type != IL_FRAME_EVENT || f->payload_len != IL_FRAME_EVENT_PAYLOAD)
		return IL_FRAME_BAD_LENGTH;
	m->event_id = f->event_id;
	m->kernel_ns = get_u64(p);
	p += 8;
	for (int i = 0; i < IL_NSTAMPS; i++, p += 8)
		m->stamp_ns[i] = get_u64(p);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 8)
		m->end_ns[i] = get_u64(p);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 4)
		m->tid[i] = get_u32(p);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 4)
		m->cpu[i] = get_u32(p);
	for (int i = 0; i < IL_NSTAMPS; i++, p += 4)
		m->work_cpu_ns[i] = get_u32(p);
	return 0;
}

const char *il_frame_strerror(int err)
{
	switch (err) {
	case IL_FRAME_OK:
		return "ok";
	case IL_FRAME_INCOMPLETE:
		return "incomplete frame";
	case IL_FRAME_BAD_LENGTH:
		return "bad frame length";
	case IL_FRAME_BAD_VERSION:
		return "bad frame version";
	case IL_FRAME_BAD_TYPE:
		return "bad frame type";
	case IL_FRAME_BAD_PAYLOAD:
		return "bad frame payload";
	default:
		return "unknown frame error";
	}
}

int il_msg_hop_split(const struct il_msg *m, int k, uint64_t *work_ns, uint64_t *queue_ns)
{
	uint64_t from, to, end;

	if (k < 1 || k > IL_NHOPS || !m->stamp_ns[k - 1] || !m->stamp_ns[k])
		return -ENODATA;
	from = m->stamp_ns[k - 1];
	to = m->stamp_ns[k];
	if (to < from)
		return -ERANGE;
	end = m->end_ns[k - 1];
	if (end < from)
		end = from;
	if (end > to)
		end = to;
	*work_ns = end - from;
	*queue_ns = to - end;
	return 0;
}
