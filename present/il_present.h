/*
 * Presentation back ends for viz-sim's drm thread. A flip request is
 * answered, once the frame is on screen, by done_cb with the flip's
 * timestamp (stamp 12).
 *
 *   sim                  a 60 Hz vblank from a timerfd (default)
 *   drm[:/dev/dri/cardN] a real KMS page flip through libdrm
 */
#ifndef IL_PRESENT_H
#define IL_PRESENT_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

enum il_present_kind {
	IL_PRESENT_SIM,
	IL_PRESENT_DRM,
};

struct il_present_spec {
	enum il_present_kind kind;
	char device[256]; /* empty: first KMS-capable card */
};

int il_present_spec_parse(const char *s, struct il_present_spec *out, char *err, size_t errlen);
void il_present_spec_format(const struct il_present_spec *spec, char *buf, size_t len);

/* Checks before start that the back end can work here (one line in err). */
int il_present_check(const struct il_present_spec *spec, char *err, size_t errlen);

/* flip_ns: CLOCK_MONOTONIC ns of the flip; seq: vblank/flip sequence. */
typedef void (*il_present_done_cb)(void *ctx, uint64_t flip_ns, uint64_t seq);

struct il_present;

/*
 * Opens the back end on `loop` (the drm thread's loop). Returns 0 or
 * -errno with one line in err; on failure *out is untouched.
 */
int il_present_open(const struct il_present_spec *spec, uv_loop_t *loop, il_present_done_cb cb,
		    void *ctx, struct il_present **out, char *err, size_t errlen);

/*
 * Requests a flip of a new frame. Every request gets exactly one done_cb
 * (requests made before the same vblank complete together).
 */
int il_present_flip(struct il_present *p);

/* Stops the back end; on_closed runs once its handles are closed. */
void il_present_close(struct il_present *p, void (*on_closed)(void *ctx), void *ctx);

#endif
