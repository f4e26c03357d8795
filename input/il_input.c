/* --input parsing and dispatch to the source back ends (il_input_backend.h). */
#include "il_input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "il_input_backend.h"

int il_input_spec_parse(const char *s, struct il_input_spec *out, char *err, size_t errlen)
{
	struct il_input_spec spec = {0};
	const char *arg = NULL;

	if (!s) {
		snprintf(err, errlen, "--input: missing value");
		return -EINVAL;
	}
	if (strcmp(s, "synthetic") == 0) {
		spec.kind = IL_INPUT_SYNTHETIC;
	} else if (strcmp(s, "uinput") == 0) {
		spec.kind = IL_INPUT_UINPUT;
	} else if (strncmp(s, "evdev:", 6) == 0) {
		spec.kind = IL_INPUT_EVDEV;
		arg = s + 6;
	} else if (strncmp(s, "replay:", 7) == 0) {
		spec.kind = IL_INPUT_REPLAY;
		arg = s + 7;
	} else {
		snprintf(err, errlen,
			 "--input: unknown source '%s' (use synthetic, uinput, "
			 "evdev:/dev/input/eventN or replay:FILE)",
			 s);
		return -EINVAL;
	}
	if (arg) {
		if (!*arg || strlen(arg) >= sizeof(spec.arg)) {
			snprintf(err, errlen, "--input: '%s' needs a path after the colon", s);
			return -EINVAL;
		}
		strcpy(spec.arg, arg);
	}
	*out = spec;
	return 0;
}

void il_input_spec_format(const struct il_input_spec *spec, char *buf, size_t len)
{
	switch (spec->kind) {
	case IL_INPUT_SYNTHETIC:
		snprintf(buf, len, "synthetic");
		break;
	case IL_INPUT_UINPUT:
		snprintf(buf, len, "uinput");
		break;
	case IL_INPUT_EVDEV:
		snprintf(buf, len, "evdev:%s", spec->arg);
		break;
	case IL_INPUT_REPLAY:
		snprintf(buf, len, "replay:%s", spec->arg);
		break;
	}
}

int il_input_check(const struct il_input_spec *spec, char *err, size_t errlen)
{
	switch (spec->kind) {
	case IL_INPUT_SYNTHETIC:
		return 0;
	case IL_INPUT_UINPUT:
		return il_input_check_uinput(spec, err, errlen);
	case IL_INPUT_EVDEV:
		return il_input_check_evdev(spec, err, errlen);
	case IL_INPUT_REPLAY:
		return il_input_check_replay(spec, err, errlen);
	}
	return -EINVAL;
}

int il_injector_open(const struct il_input_spec *spec, int synth_fd, struct il_injector **out,
		     char *err, size_t errlen)
{
	switch (spec->kind) {
	case IL_INPUT_SYNTHETIC:
		return il_injector_open_synth(spec, synth_fd, out, err, errlen);
	case IL_INPUT_UINPUT:
		return il_injector_open_uinput(spec, synth_fd, out, err, errlen);
	case IL_INPUT_EVDEV:
		*out = NULL; /* a physical device: the user is the injector */
		return 0;
	case IL_INPUT_REPLAY:
		return il_injector_open_replay(spec, synth_fd, out, err, errlen);
	}
	return -EINVAL;
}

void il_injector_free(struct il_injector *inj)
{
	if (inj)
		inj->ops->free(inj);
}

int il_injector_press(struct il_injector *inj, uint64_t *stamp0_ns)
{
	return inj->ops->press(inj, stamp0_ns);
}

int il_injector_release(struct il_injector *inj)
{
	return inj->ops->release(inj);
}

bool il_injector_next_delay(struct il_injector *inj, uint64_t default_ns, uint64_t *delay_ns)
{
	return inj->ops->next_delay(inj, default_ns, delay_ns);
}

uint64_t il_injector_hold_ns(struct il_injector *inj)
{
	return inj->ops->hold_ns(inj);
}

const char *il_injector_devnode(const struct il_injector *inj)
{
	return inj && inj->ops->devnode ? inj->ops->devnode(inj) : NULL;
}

int il_input_reader_open(const struct il_input_spec *spec, int synth_fd,
			 struct il_input_reader **out, char *err, size_t errlen)
{
	switch (spec->kind) {
	case IL_INPUT_SYNTHETIC:
	case IL_INPUT_REPLAY:
		return il_reader_open_synth(spec, synth_fd, out, err, errlen);
	case IL_INPUT_UINPUT:
	case IL_INPUT_EVDEV:
		return il_reader_open_evdev(spec, synth_fd, out, err, errlen);
	}
	return -EINVAL;
}

void il_input_reader_free(struct il_input_reader *r)
{
	if (r)
		r->ops->free(r);
}

int il_input_reader_fd(const struct il_input_reader *r)
{
	return r->ops->fd(r);
}

uint64_t il_input_pickup_ns(uint64_t wake_ns, uint64_t event_ns, uint64_t read_ns)
{
	return event_ns + 1000 > wake_ns ? read_ns : wake_ns;
}

int il_input_reader_dispatch(struct il_input_reader *r, il_input_press_cb press_cb, void *ctx)
{
	return r->ops->dispatch(r, press_cb, ctx);
}

uint64_t il_input_reader_invalid_events(const struct il_input_reader *r)
{
	return r->ops->invalid_events(r);
}
