/*
 * KMS presentation: viz-sim's drm thread flips between two dumb buffers
 * with drmModePageFlip and takes stamp 12 from the flip event, the same
 * moment Chrome's DRM thread reports as presentation.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include <drm_mode.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "il_clock.h"
#include "il_present_backend.h"

#define NO_KMS	  "no KMS device under /dev/dri"
#define MAX_CARDS 16

struct dumb_fb {
	uint32_t handle, fb_id, pitch;
	uint64_t size;
	uint32_t *map;
};

struct drm_present {
	struct il_present base; /* first: the dispatcher casts */
	uv_poll_t poll;
	il_present_done_cb cb;
	void *ctx;
	int fd;
	uint32_t conn_id, crtc_id;
	drmModeModeInfo mode;
	drmModeCrtc *saved; /* CRTC state to restore on close */
	struct dumb_fb fb[2];
	int front;	/* index of the buffer on screen */
	bool monotonic; /* flip timestamps are CLOCK_MONOTONIC */
	bool flip_pending;
	bool closing;
	unsigned in_flight; /* requests the pending flip answers */
	unsigned queued;    /* requests waiting for the next flip */
	uint64_t seq;	    /* last sequence reported */
	uint32_t frame;	    /* drives the colour */
	void (*on_closed)(void *ctx);
	void *closed_ctx;
};

/* KMS card = has modesetting resources with a CRTC, and dumb buffers. */
static bool is_kms(int fd)
{
	uint64_t dumb = 0;
	drmModeRes *res;
	bool ok;

	if (drmGetCap(fd, DRM_CAP_DUMB_BUFFER, &dumb) < 0 || !dumb)
		return false;
	res = drmModeGetResources(fd);
	ok = res && res->count_crtcs > 0 && res->count_connectors > 0;
	drmModeFreeResources(res);
	return ok;
}

/*
 * Opens spec->device, or the first KMS-capable primary node. Render-only
 * cards (vgem, most GPU compute nodes) have no modesetting resources and
 * are skipped. Returns the fd or -errno with one line in err.
 */
static int open_card(const struct il_present_spec *spec, char *path, size_t len, char *err,
		     size_t errlen)
{
	drmDevicePtr devs[MAX_CARDS];
	int n, fd = -ENODEV;

	if (spec->device[0]) {
		struct stat st;

		snprintf(path, len, "%s", spec->device);
		/* Never blocking on a FIFO, never our controlling terminal. */
		fd = open(path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			fd = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-fd));
			return fd;
		}
		if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
			close(fd);
			snprintf(err, errlen, "%s: not a character device (want /dev/dri/cardN)",
				 path);
			return -ENODEV;
		}
		/* Page-flip events are read when the loop says they are there. */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		if (!is_kms(fd)) {
			close(fd);
			snprintf(err, errlen,
				 "%s: not a KMS device (no modesetting or dumb buffers)", path);
			return -ENODEV;
		}
		return fd;
	}

	n = drmGetDevices2(0, devs, MAX_CARDS);
	for (int i = 0; i < n && fd < 0; i++) {
		int cfd;

		if (!(devs[i]->available_nodes & (1 << DRM_NODE_PRIMARY)))
			continue;
		cfd = open(devs[i]->nodes[DRM_NODE_PRIMARY], O_RDWR | O_CLOEXEC);
		if (cfd < 0)
			continue;
		if (is_kms(cfd)) {
			snprintf(path, len, "%s", devs[i]->nodes[DRM_NODE_PRIMARY]);
			fd = cfd;
		} else {
			close(cfd);
		}
	}
	if (n > 0)
		drmFreeDevices(devs, n);
	if (fd < 0)
		snprintf(err, errlen, NO_KMS);
	return fd;
}

int il_present_drm_check(const struct il_present_spec *spec, char *err, size_t errlen)
{
	char path[300];
	int fd = open_card(spec, path, sizeof(path), err, errlen);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* First connected connector with modes, its preferred mode, and a CRTC. */
static int pick_output(struct drm_present *p, const char *path, char *err, size_t errlen)
{
	drmModeRes *res = drmModeGetResources(p->fd);
	drmModeConnector *conn = NULL;
	int rc = -ENODEV;

	if (!res) {
		snprintf(err, errlen, "%s: no modesetting resources", path);
		return -ENODEV;
	}
	for (int i = 0; i < res->count_connectors && !conn; i++) {
		conn = drmModeGetConnector(p->fd, res->connectors[i]);
		if (conn && (conn->connection != DRM_MODE_CONNECTED || conn->count_modes == 0)) {
			drmModeFreeConnector(conn);
			conn = NULL;
		}
	}
	if (!conn) {
		snprintf(err, errlen, "%s: no connected connector with a mode", path);
		goto out;
	}
	p->conn_id = conn->connector_id;
	p->mode = conn->modes[0];
	for (int i = 0; i < conn->count_modes; i++) {
		if (conn->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			p->mode = conn->modes[i];
			break;
		}
	}
	/* Keep the CRTC already driving the connector, else any it can use. */
	for (int i = 0; i < conn->count_encoders && !p->crtc_id; i++) {
		drmModeEncoder *enc = drmModeGetEncoder(p->fd, conn->encoders[i]);

		if (!enc)
			continue;
		if (enc->encoder_id == conn->encoder_id && enc->crtc_id)
			p->crtc_id = enc->crtc_id;
		for (int c = 0; c < res->count_crtcs && !p->crtc_id; c++)
			if (enc->possible_crtcs & (1u << c))
				p->crtc_id = res->crtcs[c];
		drmModeFreeEncoder(enc);
	}
	if (!p->crtc_id) {
		snprintf(err, errlen, "%s: no CRTC for connector %u", path, p->conn_id);
		goto out;
	}
	rc = 0;
out:
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);
	return rc;
}

static int create_fb(int fd, const drmModeModeInfo *mode, struct dumb_fb *fb)
{
	struct drm_mode_create_dumb creq = {
	    .width = mode->hdisplay, .height = mode->vdisplay, .bpp = 32};
	struct drm_mode_map_dumb mreq = {0};
	void *map;

	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &creq) < 0)
		return -errno;
	fb->handle = creq.handle;
	fb->pitch = creq.pitch;
	fb->size = creq.size;
	if (drmModeAddFB(fd, mode->hdisplay, mode->vdisplay, 24, 32, fb->pitch, fb->handle,
			 &fb->fb_id) < 0)
		return -errno;
	mreq.handle = fb->handle;
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &mreq) < 0)
		return -errno;
	map = mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mreq.offset);
	if (map == MAP_FAILED)
		return -errno;
	fb->map = map;
	return 0;
}

static void destroy_fb(int fd, struct dumb_fb *fb)
{
	if (fb->map)
		munmap(fb->map, fb->size);
	if (fb->fb_id)
		drmModeRmFB(fd, fb->fb_id);
	if (fb->handle) {
		struct drm_mode_destroy_dumb dreq = {.handle = fb->handle};
		drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &dreq);
	}
	memset(fb, 0, sizeof(*fb));
}

/* "Drawing": a whole-buffer colour change, so every frame differs. */
static void draw(struct drm_present *p, struct dumb_fb *fb)
{
	uint32_t colour = 0x00ffffffu & (p->frame++ * 0x00102040u + 0x00204080u);
	size_t n = (size_t)fb->size / sizeof(uint32_t);

	for (size_t i = 0; i < n; i++)
		fb->map[i] = colour;
}

static int start_flip(struct drm_present *p)
{
	int back = !p->front;

	draw(p, &p->fb[back]);
	if (drmModePageFlip(p->fd, p->crtc_id, p->fb[back].fb_id, DRM_MODE_PAGE_FLIP_EVENT, p) < 0)
		return -errno;
	p->flip_pending = true;
	p->in_flight = p->queued;
	p->queued = 0;
	return 0;
}

/* Converts a flip event's timestamp to CLOCK_MONOTONIC nanoseconds. */
static uint64_t flip_time_ns(const struct drm_present *p, unsigned sec, unsigned usec)
{
	uint64_t t = (uint64_t)sec * 1000000000ull + (uint64_t)usec * 1000ull;
	struct timespec rt;

	if (p->monotonic)
		return t;
	/* Old kernels stamp with CLOCK_REALTIME: shift by the clocks' offset. */
	clock_gettime(CLOCK_REALTIME, &rt);
	return il_now_ns() - (il_ts_to_ns(&rt) - t);
}

static void page_flip_handler(int fd, unsigned int sequence, unsigned int sec, unsigned int usec,
			      void *data)
{
	struct drm_present *p = data;
	uint64_t flip_ns = flip_time_ns(p, sec, usec);
	unsigned done = p->in_flight;

	(void)fd;
	p->flip_pending = false;
	p->in_flight = 0;
	p->front = !p->front;
	/*
	 * Drivers without a vblank interrupt (bochs) send a faked event
	 * whose sequence is always 0; the reported sequence then counts
	 * flips so it still increases by at least one per flip.
	 */
	p->seq = sequence > p->seq ? sequence : p->seq + 1;
	if (p->closing)
		return;
	/* Requests that arrived meanwhile go out together in the next flip. */
	if (p->queued && start_flip(p) < 0) {
		/* Flipping failed: answer them now rather than never. */
		done += p->queued;
		p->queued = 0;
	}
	for (unsigned i = 0; i < done; i++)
		p->cb(p->ctx, flip_ns, p->seq);
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
	struct drm_present *p = h->data;
	drmEventContext ev = {.version = 2, .page_flip_handler = page_flip_handler};

	(void)events;
	if (status < 0)
		return;
	drmHandleEvent(p->fd, &ev);
}

static int drm_flip(struct il_present *base)
{
	struct drm_present *p = (struct drm_present *)base;

	p->queued++;
	if (p->flip_pending)
		return 0;
	int rc = start_flip(p);
	if (rc < 0)
		p->queued--;
	return rc;
}

/* Releases everything but the poll handle; safe on a half-opened p. */
static void release_kms(struct drm_present *p)
{
	if (p->fd < 0)
		return;
	/* A flip still in flight must land before its buffer goes away. */
	if (p->flip_pending) {
		drmEventContext ev = {.version = 2, .page_flip_handler = page_flip_handler};
		struct pollfd pfd = {.fd = p->fd, .events = POLLIN};

		p->closing = true;
		if (poll(&pfd, 1, 1000) > 0)
			drmHandleEvent(p->fd, &ev);
	}
	if (p->saved) {
		drmModeCrtc *s = p->saved;
		if (s->mode_valid)
			drmModeSetCrtc(p->fd, s->crtc_id, s->buffer_id, s->x, s->y, &p->conn_id, 1,
				       &s->mode);
		else
			drmModeSetCrtc(p->fd, s->crtc_id, 0, 0, 0, NULL, 0, NULL);
		drmModeFreeCrtc(s);
		p->saved = NULL;
	}
	destroy_fb(p->fd, &p->fb[0]);
	destroy_fb(p->fd, &p->fb[1]);
	close(p->fd);
	p->fd = -1;
}

static void closed_cb(uv_handle_t *h)
{
	struct drm_present *p = h->data;
	void (*on_closed)(void *) = p->on_closed;
	void *ctx = p->closed_ctx;

	free(p);
	if (on_closed)
		on_closed(ctx);
}

static void drm_close(struct il_present *base, void (*on_closed)(void *ctx), void *ctx)
{
	struct drm_present *p = (struct drm_present *)base;

	p->closing = true;
	p->on_closed = on_closed;
	p->closed_ctx = ctx;
	uv_poll_stop(&p->poll);
	release_kms(p);
	uv_close((uv_handle_t *)&p->poll, closed_cb);
}

static const struct il_present_ops drm_ops = {
    .flip = drm_flip,
    .close = drm_close,
};

int il_present_drm_open(const struct il_present_spec *spec, uv_loop_t *loop, il_present_done_cb cb,
			void *ctx, struct il_present **out, char *err, size_t errlen)
{
	struct drm_present *p = calloc(1, sizeof(*p));
	char path[300];
	uint64_t cap = 0;
	int rc;

	if (!p) {
		snprintf(err, errlen, "drm: out of memory");
		return -ENOMEM;
	}
	p->cb = cb;
	p->ctx = ctx;
	p->fd = open_card(spec, path, sizeof(path), err, errlen);
	if (p->fd < 0) {
		rc = p->fd;
		goto fail;
	}
	p->monotonic = drmGetCap(p->fd, DRM_CAP_TIMESTAMP_MONOTONIC, &cap) == 0 && cap;
	rc = pick_output(p, path, err, errlen);
	if (rc < 0)
		goto fail;
	p->saved = drmModeGetCrtc(p->fd, p->crtc_id);
	for (int i = 0; i < 2; i++) {
		rc = create_fb(p->fd, &p->mode, &p->fb[i]);
		if (rc < 0) {
			snprintf(err, errlen, "%s: cannot create a %ux%u dumb buffer: %s", path,
				 p->mode.hdisplay, p->mode.vdisplay, strerror(-rc));
			goto fail;
		}
	}
	draw(p, &p->fb[0]);
	if (drmModeSetCrtc(p->fd, p->crtc_id, p->fb[0].fb_id, 0, 0, &p->conn_id, 1, &p->mode) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot set mode %s: %s%s", path, p->mode.name,
			 strerror(-rc),
			 rc == -EACCES || rc == -EPERM
			     ? " (another DRM master, e.g. a display server, is running)"
			     : "");
		goto fail;
	}
	p->front = 0;
	rc = uv_poll_init(loop, &p->poll, p->fd);
	if (rc < 0) {
		snprintf(err, errlen, "%s: uv_poll_init: %s", path, uv_strerror(rc));
		goto fail;
	}
	p->poll.data = p;
	rc = uv_poll_start(&p->poll, UV_READABLE, poll_cb);
	if (rc < 0) {
		snprintf(err, errlen, "%s: uv_poll_start: %s", path, uv_strerror(rc));
		/* The handle is live now: close it through libuv. */
		drm_close(&p->base, NULL, NULL);
		return rc;
	}
	p->base.ops = &drm_ops;
	*out = &p->base;
	return 0;
fail:
	release_kms(p);
	free(p);
	return rc;
}
