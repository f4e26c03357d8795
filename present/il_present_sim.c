/*
 * Simulated presentation: a 60 Hz vblank from a periodic timerfd. A flip
 * requested before a vblank completes at that vblank, like a KMS page flip
 * with DRM_MODE_PAGE_FLIP_EVENT; stamp 12 is when the drm thread handles
 * the vblank.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_present_backend.h"

#define SIM_VBLANK_NS 16666667ull

struct sim_present {
	struct il_present base;
	uv_poll_t poll;
	int tfd;
	uint64_t seq;
	unsigned pending;
	il_present_done_cb cb;
	void *ctx;
	void (*on_closed)(void *ctx);
	void *closed_ctx;
};

static void sim_vblank_cb(uv_poll_t *h, int status, int events)
{
	struct sim_present *s = h->data;
	uint64_t expirations, now;
	unsigned n;

	if (read(s->tfd, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations))
		return;
	now = il_now_ns();
	s->seq += expirations;
	n = s->pending;
	s->pending = 0;
	while (n--)
		s->cb(s->ctx, now, s->seq);
}

static int sim_flip(struct il_present *p)
{
	((struct sim_present *)p)->pending++;
	return 0;
}

static void sim_closed_cb(uv_handle_t *h)
{
	struct sim_present *s = h->data;
	void (*on_closed)(void *) = s->on_closed;
	void *ctx = s->closed_ctx;

	close(s->tfd);
	free(s);
	if (on_closed)
		on_closed(ctx);
}

static void sim_close(struct il_present *p, void (*on_closed)(void *ctx), void *ctx)
{
	struct sim_present *s = (struct sim_present *)p;

	s->on_closed = on_closed;
	s->closed_ctx = ctx;
	uv_close((uv_handle_t *)&s->poll, sim_closed_cb);
}

static const struct il_present_ops sim_ops = {.flip = sim_flip, .close = sim_close};

int il_present_sim_check(const struct il_present_spec *spec, char *err, size_t errlen)
{
	return 0;
}

int il_present_sim_open(const struct il_present_spec *spec, uv_loop_t *loop, il_present_done_cb cb,
			void *ctx, struct il_present **out, char *err, size_t errlen)
{
	struct sim_present *s = calloc(1, sizeof(*s));
	struct itimerspec its = {0};
	int rc;

	if (!s) {
		snprintf(err, errlen, "present sim: out of memory");
		return -ENOMEM;
	}
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->tfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "present sim: timerfd_create: %s", strerror(errno));
		free(s);
		return rc;
	}
	its.it_interval = il_ns_to_ts(SIM_VBLANK_NS);
	its.it_value = il_ns_to_ts(SIM_VBLANK_NS);
	if (timerfd_settime(s->tfd, 0, &its, NULL) < 0) {
		rc = -errno;
		snprintf(err, errlen, "present sim: timerfd_settime: %s", strerror(errno));
		goto fail;
	}
	rc = uv_poll_init(loop, &s->poll, s->tfd);
	if (rc < 0) {
		snprintf(err, errlen, "present sim: uv_poll_init: %s", uv_strerror(rc));
		goto fail;
	}
	s->poll.data = s;
	s->base.ops = &sim_ops;
	s->cb = cb;
	s->ctx = ctx;
	rc = uv_poll_start(&s->poll, UV_READABLE, sim_vblank_cb);
	if (rc < 0) {
		snprintf(err, errlen, "present sim: uv_poll_start: %s", uv_strerror(rc));
		uv_close((uv_handle_t *)&s->poll, sim_closed_cb);
		return rc;
	}
	*out = &s->base;
	return 0;
fail:
	close(s->tfd);
	free(s);
	return rc;
}
