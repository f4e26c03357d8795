#include "il_ctl.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct il_frame_reader {
	uv_stream_t *stream;
	il_frame_cb cb;
	il_frame_eof_cb eof_cb;
	il_frame_invalid_cb invalid_cb;
	void *ctx;
	uint64_t invalid;
	bool dispatching; /* inside a callback: a free must wait for it to return */
	bool dead;
	size_t len;
	/* Room for one maximal frame plus a read's worth of the next. */
	uint8_t buf[2 * IL_FRAME_MAX_LEN];
};

static void reader_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct il_frame_reader *r = h->data;

	buf->base = (char *)r->buf + r->len;
	buf->len = sizeof(r->buf) - r->len;
}

static void count_invalid(struct il_frame_reader *r, int err)
{
	r->invalid++;
	if (r->invalid_cb)
		r->invalid_cb(r->ctx, err);
}

/* Returns false when a callback freed the reader (it is gone then). */
static bool reader_consume(struct il_frame_reader *r)
{
	size_t off = 0;

	r->dispatching = true;
	while (off < r->len && !r->dead) {
		struct il_frame f;
		int rc = il_frame_decode(r->buf + off, r->len - off, &f);

		if (rc == IL_FRAME_INCOMPLETE)
			break;
		if (rc < 0) {
			/* A stream cannot be resynchronised after a bad header:
			 * count it and drop what is buffered. */
			r->len = 0;
			count_invalid(r, rc);
			break;
		}
		off += f.frame_len;
		if (f.type == IL_FRAME_EVENT) {
			struct il_msg m;

			if (il_frame_event_payload(&f, &m) == 0)
				r->cb(r->ctx, &f, &m, NULL);
			else
				count_invalid(r, IL_FRAME_BAD_LENGTH);
		} else {
			cJSON *json = il_frame_control_json(&f);

			if (json)
				r->cb(r->ctx, &f, NULL, json);
			else
				count_invalid(r, IL_FRAME_BAD_PAYLOAD);
			cJSON_Delete(json);
		}
	}
	r->dispatching = false;
	if (r->dead) {
		free(r);
		return false;
	}
	if (off && off <= r->len) {
		memmove(r->buf, r->buf + off, r->len - off);
		r->len -= off;
	}
	return true;
}

static void reader_read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct il_frame_reader *r = s->data;

	if (nread < 0) {
		uv_read_stop(s);
		r->eof_cb(r->ctx, (int)nread);
		return;
	}
	r->len += (size_t)nread;
	(void)reader_consume(r);
}

int il_frame_reader_start(uv_stream_t *stream, il_frame_cb cb, il_frame_eof_cb eof_cb, void *ctx,
			  struct il_frame_reader **out)
{
	struct il_frame_reader *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->stream = stream;
	r->cb = cb;
	r->eof_cb = eof_cb;
	r->ctx = ctx;
	stream->data = r;
	rc = uv_read_start(stream, reader_alloc_cb, reader_read_cb);
	if (rc < 0) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void il_frame_reader_on_invalid(struct il_frame_reader *r, il_frame_invalid_cb cb)
{
	r->invalid_cb = cb;
}

uint64_t il_frame_reader_invalid(const struct il_frame_reader *r)
{
	return r ? r->invalid : 0;
}

void il_frame_reader_free(struct il_frame_reader *r)
{
	if (!r)
		return;
	if (r->stream && !uv_is_closing((uv_handle_t *)r->stream))
		uv_read_stop(r->stream);
	if (r->dispatching) {
		r->dead = true; /* reader_consume frees it when the callback returns */
		return;
	}
	free(r);
}

struct write_req {
	uv_write_t req;
	uint8_t data[];
};

static void write_done_cb(uv_write_t *req, int status)
{
	free(req);
}

/* Queues len bytes for writing after whatever is pending. */
static int queue_write(uv_stream_t *s, const uint8_t *data, size_t len)
{
	struct write_req *w = malloc(sizeof(*w) + len);
	uv_buf_t b;
	int rc;

	if (!w)
		return UV_ENOMEM;
	memcpy(w->data, data, len);
	b = uv_buf_init((char *)w->data, (unsigned)len);
	rc = uv_write(&w->req, s, &b, 1, write_done_cb);
	if (rc < 0)
		free(w);
	return rc;
}

/* A direct write when nothing is queued; the rest (rare: a full socket
 * buffer) is copied and queued, which keeps frame order. */
static int send_bytes(uv_stream_t *s, const uint8_t *data, size_t len)
{
	uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
	int n = uv_try_write(s, &b, 1);

	if (n == (int)len)
		return 0;
	if (n < 0 && n != UV_EAGAIN)
		return n;
	if (n < 0)
		n = 0;
	return queue_write(s, data + n, len - (size_t)n);
}

int il_frame_send_event(uv_stream_t *stream, const struct il_msg *m)
{
	uint8_t buf[IL_FRAME_EVENT_LEN];

	il_frame_encode_event(m, buf);
	return send_bytes(stream, buf, sizeof(buf));
}

int il_ctl_send(uv_stream_t *stream, const cJSON *obj)
{
	char *text = cJSON_PrintUnformatted(obj);
	uint8_t *frame;
	size_t len;
	int rc;

	if (!text)
		return UV_ENOMEM;
	len = strlen(text);
	frame = malloc(IL_FRAME_HDR_LEN + len);
	if (!frame) {
		free(text);
		return UV_ENOMEM;
	}
	rc = il_frame_encode_control(text, len, frame, IL_FRAME_HDR_LEN + len);
	if (rc > 0)
		rc = send_bytes(stream, frame, (size_t)rc);
	else
		rc = UV_EMSGSIZE;
	free(frame);
	free(text);
	return rc;
}

int il_ctl_send_type(uv_stream_t *stream, const char *type)
{
	cJSON *o = cJSON_CreateObject();
	int rc;

	if (!o)
		return UV_ENOMEM;
	cJSON_AddStringToObject(o, "type", type);
	rc = il_ctl_send(stream, o);
	cJSON_Delete(o);
	return rc;
}

/* The byte that carries a descriptor; anything else there is a protocol error. */
#define FD_MARK 'F'

/* One mark byte and room for one descriptor: what send_fd and recv_fd pass. */
struct fd_msg {
	char mark;
	struct iovec iov;
	struct msghdr msg;
	/* Last: struct cmsghdr ends in a flexible array (glibc's __cmsg_data). */
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
};

/* Points m's message at its own mark byte and control buffer, zeroed. */
static void fd_msg_init(struct fd_msg *m, char mark)
{
	memset(m, 0, sizeof(*m));
	m->mark = mark;
	m->iov.iov_base = &m->mark;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->c.buf;
	m->msg.msg_controllen = sizeof(m->c.buf);
}

int il_ctl_send_fd(int sock, int fd)
{
	struct fd_msg m;
	struct cmsghdr *h;
	ssize_t n;

	fd_msg_init(&m, FD_MARK);
	h = CMSG_FIRSTHDR(&m.msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	do
		n = sendmsg(sock, &m.msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : n < 0 ? -errno : -EIO;
}

int il_ctl_recv_fd(int sock, int timeout_ms, int *fd)
{
	struct fd_msg m;
	struct pollfd p = {.fd = sock, .events = POLLIN};
	struct cmsghdr *h;
	ssize_t n;
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -ETIMEDOUT;
	if (r < 0)
		return -errno;
	fd_msg_init(&m, 0);
	do
		n = recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != 1 || m.mark != FD_MARK)
		return -EPROTO;
	for (h = CMSG_FIRSTHDR(&m.msg); h; h = CMSG_NXTHDR(&m.msg, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(fd, CMSG_DATA(h), sizeof(int));
			return 0;
		}
	return -EPROTO;
}
