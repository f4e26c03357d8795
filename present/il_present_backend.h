/*
 * Internal interface between the presentation dispatcher (il_present.c)
 * and its back ends. A back end embeds struct il_present as its FIRST
 * member and fills in `ops`; il_present_flip / il_present_close forward
 * through it.
 */
#ifndef IL_PRESENT_BACKEND_H
#define IL_PRESENT_BACKEND_H

#include <stddef.h>
#include <uv.h>

#include "il_present.h"

struct il_present_ops {
	int (*flip)(struct il_present *p);
	void (*close)(struct il_present *p, void (*on_closed)(void *ctx), void *ctx);
};

struct il_present {
	const struct il_present_ops *ops;
};

/* Lead: simulated 60 Hz vblank (il_present_sim.c). */
int il_present_sim_check(const struct il_present_spec *spec, char *err, size_t errlen);
int il_present_sim_open(const struct il_present_spec *spec, uv_loop_t *loop, il_present_done_cb cb,
			void *ctx, struct il_present **out, char *err, size_t errlen);

/*
 * KMS page flips (il_present_drm.c). spec->device empty: the first card
 * under /dev/dri that has KMS resources and dumb buffers. Check fails with
 * "no KMS device under /dev/dri" (-ENODEV) when there is none. Open sets a
 * dumb-buffer framebuffer on the first connected connector's preferred
 * mode; close restores the CRTC as it was.
 */
int il_present_drm_check(const struct il_present_spec *spec, char *err, size_t errlen);
int il_present_drm_open(const struct il_present_spec *spec, uv_loop_t *loop, il_present_done_cb cb,
			void *ctx, struct il_present **out, char *err, size_t errlen);

#endif
