/*
 * uinput injector: a libevdev-made virtual mouse. The orchestrator writes
 * a mouse-down into it and browser-sim reads it back from the evdev node,
 * so hop 0 -> 1 crosses the real kernel input stack.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <linux/input.h>

#include "il_clock.h"
#include "il_input_backend.h"

#define UINPUT_PATH "/dev/uinput"
/* A click's hold time; long enough that no reader merges press and release. */
#define UINPUT_HOLD_NS 10000000ull

struct uinput_injector {
	struct il_injector base; /* first: the dispatcher casts */
	struct libevdev_uinput *uidev;
};

int il_input_check_uinput(const struct il_input_spec *spec, char *err, size_t errlen)
{
	(void)spec;
	if (access(UINPUT_PATH, F_OK) != 0) {
		snprintf(err, errlen,
			 "%s missing: kernel built without CONFIG_INPUT_UINPUT (or module uinput "
			 "not loaded)",
			 UINPUT_PATH);
		return -ENODEV;
	}
	if (access(UINPUT_PATH, W_OK) != 0) {
		int rc = -errno;
		snprintf(err, errlen, "%s: %s: creating a virtual mouse needs root or write access",
			 UINPUT_PATH, strerror(-rc));
		return rc;
	}
	return 0;
}

/*
 * Both events go out in one write(): the kernel then delivers them as one
 * frame, and stamp 0 is taken immediately before the only system call, so
 * the injector's share of hop 1 is a single write.
 */
static int write_frame(struct uinput_injector *u, int value)
{
	struct input_event ev[2];

	memset(ev, 0, sizeof(ev));
	ev[0].type = EV_KEY;
	ev[0].code = BTN_LEFT;
	ev[0].value = value;
	ev[1].type = EV_SYN;
	ev[1].code = SYN_REPORT;
	ev[1].value = 0;

	ssize_t n = write(libevdev_uinput_get_fd(u->uidev), ev, sizeof(ev));
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(ev) ? 0 : -EIO;
}

static int uinput_press(struct il_injector *inj, uint64_t *stamp0_ns)
{
	struct uinput_injector *u = (struct uinput_injector *)inj;

	*stamp0_ns = il_now_ns();
	return write_frame(u, 1);
}

static int uinput_release(struct il_injector *inj)
{
	return write_frame((struct uinput_injector *)inj, 0);
}

static bool uinput_next_delay(struct il_injector *inj, uint64_t default_ns, uint64_t *delay_ns)
{
	(void)inj;
	*delay_ns = default_ns;
	return true;
}

static uint64_t uinput_hold_ns(struct il_injector *inj)
{
	(void)inj;
	return UINPUT_HOLD_NS;
}

static const char *uinput_devnode(const struct il_injector *inj)
{
	const struct uinput_injector *u = (const struct uinput_injector *)inj;

	return libevdev_uinput_get_devnode(u->uidev);
}

static void uinput_free(struct il_injector *inj)
{
	struct uinput_injector *u = (struct uinput_injector *)inj;

	if (!u)
		return;
	/* Destroying the device also drops any button still held down. */
	libevdev_uinput_destroy(u->uidev);
	free(u);
}

static const struct il_injector_ops uinput_ops = {
    .press = uinput_press,
    .release = uinput_release,
    .next_delay = uinput_next_delay,
    .hold_ns = uinput_hold_ns,
    .devnode = uinput_devnode,
    .free = uinput_free,
};

int il_injector_open_uinput(const struct il_input_spec *spec, int synth_fd,
			    struct il_injector **out, char *err, size_t errlen)
{
	struct libevdev *dev = NULL;
	struct uinput_injector *u = NULL;
	int rc;

	(void)synth_fd;
	rc = il_input_check_uinput(spec, err, errlen);
	if (rc < 0)
		return rc;

	u = calloc(1, sizeof(*u));
	dev = libevdev_new();
	if (!u || !dev) {
		snprintf(err, errlen, "uinput: out of memory");
		rc = -ENOMEM;
		goto out;
	}
	/* A plain two-button relative mouse, as the kernel's hid-generic makes. */
	libevdev_set_name(dev, IL_UINPUT_NAME);
	libevdev_set_id_bustype(dev, BUS_VIRTUAL);
	libevdev_set_id_vendor(dev, 0x1d6b);  /* Linux Foundation */
	libevdev_set_id_product(dev, 0x696c); /* "il" */
	libevdev_enable_event_type(dev, EV_REL);
	libevdev_enable_event_code(dev, EV_REL, REL_X, NULL);
	libevdev_enable_event_code(dev, EV_REL, REL_Y, NULL);
	libevdev_enable_event_type(dev, EV_KEY);
	libevdev_enable_event_code(dev, EV_KEY, BTN_LEFT, NULL);
	libevdev_enable_event_code(dev, EV_KEY, BTN_RIGHT, NULL);

	rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &u->uidev);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot create virtual mouse: %s", UINPUT_PATH,
			 strerror(-rc));
		goto out;
	}
	u->base.ops = &uinput_ops;
	*out = &u->base;
	u = NULL;
	rc = 0;
out:
	/* The uinput device is a copy; the template is no longer needed. */
	libevdev_free(dev);
	free(u);
	return rc;
}
