/* --present parsing and dispatch to the presentation back ends. */
#include "il_present.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "il_present_backend.h"

int il_present_spec_parse(const char *s, struct il_present_spec *out, char *err, size_t errlen)
{
	struct il_present_spec spec = {0};

	if (s && strcmp(s, "sim") == 0) {
		spec.kind = IL_PRESENT_SIM;
	} else if (s && (strcmp(s, "drm") == 0 || strncmp(s, "drm:", 4) == 0)) {
		spec.kind = IL_PRESENT_DRM;
		if (s[3] == ':') {
			if (!s[4] || strlen(s + 4) >= sizeof(spec.device)) {
				snprintf(err, errlen,
					 "--present: '%s' needs a device path after 'drm:'", s);
				return -EINVAL;
			}
			strcpy(spec.device, s + 4);
		}
	} else {
		snprintf(err, errlen,
			 "--present: unknown back end '%s' (use sim or drm[:/dev/dri/cardN])",
			 s ? s : "");
		return -EINVAL;
	}
	*out = spec;
	return 0;
}

void il_present_spec_format(const struct il_present_spec *spec, char *buf, size_t len)
{
	if (spec->kind == IL_PRESENT_SIM)
		snprintf(buf, len, "sim");
	else if (spec->device[0])
		snprintf(buf, len, "drm:%s", spec->device);
	else
		snprintf(buf, len, "drm");
}

int il_present_check(const struct il_present_spec *spec, char *err, size_t errlen)
{
	if (spec->kind == IL_PRESENT_SIM)
		return il_present_sim_check(spec, err, errlen);
	return il_present_drm_check(spec, err, errlen);
}

int il_present_open(const struct il_present_spec *spec, uv_loop_t *loop, il_present_done_cb cb,
		    void *ctx, struct il_present **out, char *err, size_t errlen)
{
	if (spec->kind == IL_PRESENT_SIM)
		return il_present_sim_open(spec, loop, cb, ctx, out, err, errlen);
	return il_present_drm_open(spec, loop, cb, ctx, out, err, errlen);
}

int il_present_flip(struct il_present *p)
{
	return p->ops->flip(p);
}

void il_present_close(struct il_present *p, void (*on_closed)(void *ctx), void *ctx)
{
	p->ops->close(p, on_closed, ctx);
}
