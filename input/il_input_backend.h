/*
 * Internal interface between the input dispatcher (il_input.c) and the
 * source back ends. Each back end embeds struct il_injector or struct
 * il_input_reader as its FIRST member and fills in `ops`; the public
 * il_injector_* / il_input_reader_* functions in il_input.c forward
 * through the ops table, so a back end never sees another's state.
 *
 * Which back end serves which --input kind:
 *   kind        injector                  reader (browser-sim)
 *   synthetic   il_injector_open_synth    il_reader_open_synth
 *   uinput      il_injector_open_uinput   il_reader_open_evdev
 *   evdev:PATH  none (*out = NULL)        il_reader_open_evdev
 *   replay:FILE il_injector_open_replay   il_reader_open_synth
 * Replay writes through the synthetic pipe (it wraps the synth injector),
 * so it needs neither uinput nor root.
 */
#ifndef IL_INPUT_BACKEND_H
#define IL_INPUT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_input.h"

/* The name of the uinput device; the reader finds its node by this name. */
#define IL_UINPUT_NAME "inputlat virtual mouse"

struct il_injector_ops {
	int (*press)(struct il_injector *inj, uint64_t *stamp0_ns);
	int (*release)(struct il_injector *inj);
	bool (*next_delay)(struct il_injector *inj, uint64_t default_ns, uint64_t *delay_ns);
	uint64_t (*hold_ns)(struct il_injector *inj);
	/* Device node the injector created ("/dev/input/event5"), or NULL. */
	const char *(*devnode)(const struct il_injector *inj);
	void (*free)(struct il_injector *inj);
};

struct il_injector {
	const struct il_injector_ops *ops;
};

struct il_input_reader_ops {
	int (*fd)(const struct il_input_reader *r);
	int (*dispatch)(struct il_input_reader *r, il_input_press_cb press_cb, void *ctx);
	uint64_t (*invalid_events)(const struct il_input_reader *r);
	void (*free)(struct il_input_reader *r);
};

struct il_input_reader {
	const struct il_input_reader_ops *ops;
};

/*
 * All open functions: return 0 and set *out, or a negative errno with one
 * line in err (then *out is untouched). Signatures mirror il_injector_open
 * and il_input_reader_open.
 */

/* Lead: the synthetic pipe source (il_input_synth.c). */
int il_injector_open_synth(const struct il_input_spec *spec, int synth_fd, struct il_injector **out,
			   char *err, size_t errlen);
int il_reader_open_synth(const struct il_input_spec *spec, int synth_fd,
			 struct il_input_reader **out, char *err, size_t errlen);

/*
 * uinput virtual mouse (il_input_uinput.c). synth_fd is ignored. Needs
 * /dev/uinput writable. The device exists until the injector is freed.
 */
int il_injector_open_uinput(const struct il_input_spec *spec, int synth_fd,
			    struct il_injector **out, char *err, size_t errlen);

/*
 * A sysfs attribute's text (n bytes; device/name of /sys/class/input/eventN)
 * as its value, without the one newline sysfs ends it with, into buf (len
 * bytes). 0; -EINVAL when the text holds a NUL or a newline before its end
 * (a uinput device may be named "inputlat virtual mouse\nX": its first
 * line is not its name); -EOVERFLOW when the value does not fit.
 */
int il_input_sysfs_attr_parse(const char *text, size_t n, char *buf, size_t len);

/*
 * evdev reader (il_input_evdev.c) for the uinput and evdev:PATH kinds.
 * evdev:PATH opens PATH. uinput opens spec->arg when it is set (the
 * orchestrator should pass the injector's devnode there, so concurrent
 * runs never read each other's mouse), else scans /sys/class/input for a
 * device named IL_UINPUT_NAME, retrying for up to IL_EVDEV_WAIT_MS since
 * the node appears asynchronously after UI_DEV_CREATE. Grabs the device
 * and switches its event clock to CLOCK_MONOTONIC. synth_fd is ignored
 * (and not closed).
 */
#define IL_EVDEV_WAIT_MS 2000
int il_reader_open_evdev(const struct il_input_spec *spec, int synth_fd,
			 struct il_input_reader **out, char *err, size_t errlen);

/*
 * Replay of an evemu recording (il_input_replay.c) through the synthetic
 * pipe: synth_fd as for il_injector_open_synth.
 */
int il_injector_open_replay(const struct il_input_spec *spec, int synth_fd,
			    struct il_injector **out, char *err, size_t errlen);

/*
 * Pre-start checks, one line naming the missing piece in err.
 * uinput: /dev/uinput present (CONFIG_INPUT_UINPUT) and writable.
 * evdev:  path present, an evdev node, readable.
 * replay: file parses and holds at least one BTN_LEFT press.
 */
int il_input_check_uinput(const struct il_input_spec *spec, char *err, size_t errlen);
int il_input_check_evdev(const struct il_input_spec *spec, char *err, size_t errlen);
int il_input_check_replay(const struct il_input_spec *spec, char *err, size_t errlen);

/* --- evemu recordings (il_input_replay.c), exposed for tests --------- */
struct il_evemu_event {
	uint64_t time_us; /* recording's timestamp, microseconds */
	uint16_t type;
	uint16_t code;
	int32_t value;
};

struct il_evemu {
	char name[256];
	unsigned bus, vendor, product, version;
	size_t n_events;
	struct il_evemu_event *events;
};

/*
 * Parses an evemu-record file. Unknown/description lines (#, P:, B:, A:,
 * S:, ...) are skipped; N:, I: and E: are kept. Errors name the file and
 * line. *out is freed with il_evemu_free.
 */
int il_evemu_parse(const char *path, struct il_evemu **out, char *err, size_t errlen);
/* Writes rec in evemu-record form (N:, I:, E: lines); 0 or -errno. */
int il_evemu_write(const struct il_evemu *rec, const char *path);
void il_evemu_free(struct il_evemu *rec);

#endif
