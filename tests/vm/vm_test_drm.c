/*
 * Inside the VM: the drm presenter on bochs-drm (qemu -vga std). 30 page
 * flips with increasing sequence and time, coalescing of requests made
 * during a pending flip, and the CRTC restored on close. vgem is loaded
 * too, so the card scan must skip a non-KMS card.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "il_clock.h"
#include "il_present_backend.h"
#include "vm_check.h"

#define FLIPS 30

struct run {
	struct il_present *p;
	unsigned done, want;
	uint64_t flip_ns[FLIPS + 8], seq[FLIPS + 8], req_ns[FLIPS + 8];
	bool chain; /* request the next flip from the callback */
	bool closed;
};

static void done_cb(void *ctx, uint64_t flip_ns, uint64_t seq)
{
	struct run *r = ctx;

	if (r->done < FLIPS + 8) {
		r->flip_ns[r->done] = flip_ns;
		r->seq[r->done] = seq;
	}
	r->done++;
	if (r->chain && r->done < r->want) {
		r->req_ns[r->done] = il_now_ns();
		VM_CHECK(r->p->ops->flip(r->p) == 0, "flip %u", r->done);
	}
}

static void timeout_cb(uv_timer_t *t)
{
	printf("FAIL: timed out waiting for flip events\n");
	uv_stop(t->loop);
}

static void closed_cb(void *ctx)
{
	((struct run *)ctx)->closed = true;
}

/* Runs the loop until `want` callbacks arrived or 20 s passed. */
static void run_until(uv_loop_t *loop, struct run *r)
{
	uv_timer_t t;

	uv_timer_init(loop, &t);
	uv_timer_start(&t, timeout_cb, 20000, 0);
	while (r->done < r->want && uv_run(loop, UV_RUN_ONCE))
		if (!uv_is_active((uv_handle_t *)&t))
			break;
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
}

/* The framebuffer on the first CRTC, as fbcon left it. */
static uint32_t crtc_fb(void)
{
	uint32_t fb = 0;

	for (int i = 0; i < 4 && !fb; i++) {
		char path[32];
		int fd;
		drmModeRes *res;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		res = drmModeGetResources(fd);
		if (res && res->count_crtcs > 0) {
			drmModeCrtc *c = drmModeGetCrtc(fd, res->crtcs[0]);
			fb = c ? c->buffer_id : 0;
			drmModeFreeCrtc(c);
		}
		drmModeFreeResources(res);
		close(fd);
	}
	return fb;
}

int main(void)
{
	static struct run r;
	struct il_present_spec spec = {.kind = IL_PRESENT_DRM};
	uv_loop_t loop;
	char err[512] = "";
	uint32_t fb_before = crtc_fb();
	bool seq_up = true, time_up = true, after_req = true;
	int rc;

	uv_loop_init(&loop);
	rc = il_present_drm_check(&spec, err, sizeof(err));
	VM_CHECK(rc == 0, "drm check: %s", err);
	rc = il_present_drm_open(&spec, &loop, done_cb, &r, &r.p, err, sizeof(err));
	VM_CHECK(rc == 0, "drm open: %s", err);
	if (rc < 0)
		return vm_summary("vm_test_drm");

	/* 30 frames back to back, each requested when the previous is shown. */
	r.chain = true;
	r.want = FLIPS;
	r.req_ns[0] = il_now_ns();
	VM_CHECK(r.p->ops->flip(r.p) == 0, "first flip");
	run_until(&loop, &r);
	VM_CHECK(r.done == FLIPS, "%u flip events, want %u", r.done, FLIPS);
	for (unsigned i = 0; i < r.done && i < FLIPS; i++) {
		seq_up &= i == 0 || r.seq[i] > r.seq[i - 1];
		time_up &= i == 0 || r.flip_ns[i] > r.flip_ns[i - 1];
		after_req &= r.flip_ns[i] >= r.req_ns[i] && r.flip_ns[i] <= il_now_ns();
	}
	VM_CHECK(seq_up, "sequence numbers increasing");
	VM_CHECK(time_up, "flip timestamps increasing");
	VM_CHECK(after_req, "each flip at or after its request, on CLOCK_MONOTONIC");
	if (r.done >= 2)
		printf(
		    "# %u flips, seq %llu..%llu, %.2f ms apart on average (TCG, functional only)\n",
		    r.done, (unsigned long long)r.seq[0], (unsigned long long)r.seq[r.done - 1],
		    il_ns_to_ms((r.flip_ns[r.done - 1] - r.flip_ns[0]) / (r.done - 1)));

	/* Three requests at once: one flip answers the first, the next both others. */
	memset(&r.seq, 0, sizeof(r.seq));
	r.chain = false;
	r.done = 0;
	r.want = 3;
	for (int i = 0; i < 3; i++)
		VM_CHECK(r.p->ops->flip(r.p) == 0, "burst flip %d", i);
	run_until(&loop, &r);
	VM_CHECK(r.done == 3, "burst: %u callbacks, want 3", r.done);
	VM_CHECK(r.seq[1] > r.seq[0], "burst: second flip after the first");
	VM_CHECK(r.seq[2] == r.seq[1] && r.flip_ns[2] == r.flip_ns[1],
		 "burst: requests during a pending flip share the next one");

	r.p->ops->close(r.p, closed_cb, &r);
	uv_run(&loop, UV_RUN_DEFAULT);
	VM_CHECK(r.closed, "on_closed called");
	VM_CHECK(crtc_fb() == fb_before, "CRTC restored: fb %u, was %u", crtc_fb(), fb_before);
	VM_CHECK(uv_loop_close(&loop) == 0, "no handle left on the loop");

	/* A render-only card given by path is refused with one line. */
	spec.device[0] = '\0';
	for (int i = 0; i < 4; i++) {
		char path[32];
		int fd;
		drmModeRes *res;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		res = drmModeGetResources(fd);
		if (!res)
			snprintf(spec.device, sizeof(spec.device), "%s", path);
		drmModeFreeResources(res);
		close(fd);
	}
	VM_CHECK(spec.device[0], "a non-KMS card (vgem) is present");
	if (spec.device[0]) {
		rc = il_present_drm_check(&spec, err, sizeof(err));
		VM_CHECK(rc == -ENODEV && strstr(err, "not a KMS device"), "%d %s", rc, err);
		printf("# %s\n", err);
	}
	return vm_summary("vm_test_drm");
}
