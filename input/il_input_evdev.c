/*
 * evdev reader for browser-sim's evdev thread: the uinput virtual mouse
 * or a physical device. It does what Chrome's EventConverterEvdev does:
 * grab the node, read with libevdev, and report a press once the frame
 * that carries BTN_LEFT 1 is closed by SYN_REPORT.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>
#include <linux/input.h>

#include "il_clock.h"
#include "il_input_backend.h"
#include "il_parse.h"

#define SYS_INPUT    "/sys/class/input"
#define WAIT_STEP_MS 10

struct evdev_reader {
	struct il_input_reader base; /* first: the dispatcher casts */
	struct libevdev *dev;
	int fd;
	bool press_pending; /* BTN_LEFT 1 seen, SYN_REPORT not yet */
	uint64_t press_ns;  /* kernel timestamp of that BTN_LEFT 1 */
	uint64_t invalid;   /* SYN_DROPPED and events we cannot use */
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
	nanosleep(&ts, NULL);
}

int il_input_sysfs_attr_parse(const char *text, size_t n, char *buf, size_t len)
{
	if (il_parse_one_line(text, n, &n) < 0)
		return -EINVAL;
	if (n >= len)
		return -EOVERFLOW;
	memcpy(buf, text, n);
	buf[n] = '\0';
	return 0;
}

/* Reads a sysfs attribute into buf without the trailing newline: 0, or
 * -errno (il_input_sysfs_attr_parse's for a text that is no value). */
static int read_attr(const char *path, char *buf, size_t len)
{
	char text[4097];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t got;

	if (fd < 0)
		return -errno;
	/* Up to one page (a sysfs attribute's most) and a byte more. */
	while (n < sizeof(text) && (got = read(fd, text + n, sizeof(text) - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		n += (size_t)got;
	}
	close(fd);
	return n == sizeof(text) ? -EOVERFLOW : il_input_sysfs_attr_parse(text, n, buf, len);
}

/*
 * Finds /dev/input/eventN for the device called `name` by reading
 * /sys/class/input/eventN/device/name: no udev needed, so this works in
 * a bare initramfs. With several matches the highest N (the newest
 * device) wins.
 */
static int find_by_name(const char *name, char *path, size_t len)
{
	DIR *d = opendir(SYS_INPUT);
	struct dirent *e;
	long best = -1;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char attr[300], val[256];
		uint64_t n;

		if (strncmp(e->d_name, "event", 5) != 0 ||
		    il_parse_u64(e->d_name + 5, 0, INT32_MAX, &n) < 0)
			continue;
		snprintf(attr, sizeof(attr), SYS_INPUT "/%s/device/name", e->d_name);
		if (read_attr(attr, val, sizeof(val)) == 0 && strcmp(val, name) == 0 &&
		    (long)n > best)
			best = (long)n;
	}
	closedir(d);
	if (best < 0)
		return -ENOENT;
	snprintf(path, len, "/dev/input/event%ld", best);
	return 0;
}

/*
 * The uinput node appears asynchronously after UI_DEV_CREATE (sysfs first,
 * then the devtmpfs node), so both lookup and open are retried for a
 * bounded time. A physical device (wait_ms 0) is tried once.
 */
static int open_node(const struct il_input_spec *spec, unsigned wait_ms, char *path, size_t len,
		     char *err, size_t errlen)
{
	bool by_name = spec->kind == IL_INPUT_UINPUT && spec->arg[0] == '\0';
	unsigned waited = 0;
	int rc;

	for (;;) {
		if (by_name)
			rc = find_by_name(IL_UINPUT_NAME, path, len);
		else
			rc = snprintf(path, len, "%s", spec->arg) < (int)len ? 0 : -ENAMETOOLONG;
		if (rc == 0) {
			/* Non-blocking and never our controlling terminal, whatever
			 * the path turns out to be; only a character device is an
			 * input device. */
			int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
			struct stat st;

			/* Said without il_file_kind: tests/vm/run builds this
			 * file alone into vm_test_uinput. */
			if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISCHR(st.st_mode)) {
				snprintf(err, errlen,
					 "%s: not a character device, so not an "
					 "input device node",
					 path);
				close(fd);
				return -ENOTTY;
			}
			if (fd >= 0)
				return fd;
			rc = -errno;
		}
		if (rc != -ENOENT || waited >= wait_ms)
			break;
		sleep_ms(WAIT_STEP_MS);
		waited += WAIT_STEP_MS;
	}
	if (by_name && rc == -ENOENT)
		snprintf(err, errlen,
			 "uinput: no input device named \"%s\" under " SYS_INPUT " after %u ms",
			 IL_UINPUT_NAME, wait_ms);
	else if (rc == -EACCES || rc == -EPERM)
		snprintf(err, errlen, "%s: %s: reading input devices needs root or the input group",
			 path, strerror(-rc));
	else
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc;
}

static uint64_t event_ns(const struct input_event *ev)
{
	return (uint64_t)ev->input_event_sec * 1000000000ull +
	       (uint64_t)ev->input_event_usec * 1000ull;
}

static void handle_event(struct evdev_reader *r, const struct input_event *ev,
			 il_input_press_cb press_cb, void *ctx)
{
	if (ev->type == EV_KEY && ev->code == BTN_LEFT && ev->value == 1) {
		r->press_pending = true;
		r->press_ns = event_ns(ev);
	} else if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
		if (r->press_pending) {
			r->press_pending = false;
			press_cb(ctx, r->press_ns);
		}
	} else if (ev->type == EV_SYN && ev->code == SYN_DROPPED) {
		/* The frame in progress is incomplete; libevdev resyncs next. */
		r->press_pending = false;
		r->invalid++;
	}
}

static int evdev_dispatch(struct il_input_reader *base, il_input_press_cb press_cb, void *ctx)
{
	struct evdev_reader *r = (struct evdev_reader *)base;
	unsigned flags = LIBEVDEV_READ_FLAG_NORMAL;

	for (;;) {
		struct input_event ev;
		int rc = libevdev_next_event(r->dev, flags, &ev);

		if (rc == LIBEVDEV_READ_STATUS_SUCCESS) {
			handle_event(r, &ev, press_cb, ctx);
		} else if (rc == LIBEVDEV_READ_STATUS_SYNC) {
			/*
			 * In normal mode this is the SYN_DROPPED itself
			 * (counted by handle_event); then libevdev replays
			 * the state delta in sync mode. A press lost in the
			 * overflow shows up there as BTN_LEFT 1 and is still
			 * reported, with the resync's timestamp, so that an
			 * injected event is not silently missing. A press
			 * whose release was lost too leaves no delta: the
			 * harness sees it as an incomplete event.
			 */
			flags = LIBEVDEV_READ_FLAG_SYNC;
			handle_event(r, &ev, press_cb, ctx);
		} else if (rc == -EAGAIN) {
			if (flags == LIBEVDEV_READ_FLAG_SYNC) {
				/* Sync done; back to normal reads. */
				flags = LIBEVDEV_READ_FLAG_NORMAL;
				continue;
			}
			return 0;
		} else if (rc == -ENODEV) {
			return -EPIPE; /* the device went away: end of input */
		} else {
			return rc;
		}
	}
}

static int evdev_fd(const struct il_input_reader *base)
{
	return ((const struct evdev_reader *)base)->fd;
}

static uint64_t evdev_invalid(const struct il_input_reader *base)
{
	return ((const struct evdev_reader *)base)->invalid;
}

static void evdev_free(struct il_input_reader *base)
{
	struct evdev_reader *r = (struct evdev_reader *)base;

	if (!r)
		return;
	if (r->dev) {
		libevdev_grab(r->dev, LIBEVDEV_UNGRAB);
		libevdev_free(r->dev);
	}
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

static const struct il_input_reader_ops evdev_ops = {
    .fd = evdev_fd,
    .dispatch = evdev_dispatch,
    .invalid_events = evdev_invalid,
    .free = evdev_free,
};

/* Opens, checks and grabs the node; shared by the reader and the check. */
static int open_device(const struct il_input_spec *spec, unsigned wait_ms, bool grab,
		       struct evdev_reader *r, char *err, size_t errlen)
{
	char path[300];
	int clk = CLOCK_MONOTONIC;
	int rc;

	r->fd = open_node(spec, wait_ms, path, sizeof(path), err, errlen);
	if (r->fd < 0)
		return r->fd;
	rc = libevdev_new_from_fd(r->fd, &r->dev);
	if (rc < 0) {
		r->dev = NULL;
		snprintf(err, errlen, "%s: not an evdev input device (%s)", path, strerror(-rc));
		return rc;
	}
	if (!libevdev_has_event_code(r->dev, EV_KEY, BTN_LEFT)) {
		snprintf(err, errlen, "%s: \"%s\" has no left button (BTN_LEFT); give a mouse",
			 path, libevdev_get_name(r->dev));
		return -ENOTSUP;
	}
	if (!grab)
		return 0;
	/* Exclusive: the desktop must not act on our synthetic clicks. */
	rc = libevdev_grab(r->dev, LIBEVDEV_GRAB);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot grab: %s (another process holds it)", path,
			 strerror(-rc));
		return rc;
	}
	/* Kernel timestamps on CLOCK_MONOTONIC, the project's one time base. */
	if (ioctl(r->fd, EVIOCSCLOCKID, &clk) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot set event clock to CLOCK_MONOTONIC: %s", path,
			 strerror(-rc));
		return rc;
	}
	return 0;
}

int il_input_check_evdev(const struct il_input_spec *spec, char *err, size_t errlen)
{
	struct evdev_reader r = {.fd = -1};
	int rc = open_device(spec, 0, false, &r, err, errlen);

	libevdev_free(r.dev);
	if (r.fd >= 0)
		close(r.fd);
	return rc;
}

int il_reader_open_evdev(const struct il_input_spec *spec, int synth_fd,
			 struct il_input_reader **out, char *err, size_t errlen)
{
	struct evdev_reader *r;
	unsigned wait_ms = spec->kind == IL_INPUT_UINPUT ? IL_EVDEV_WAIT_MS : 0;
	int rc;

	(void)synth_fd;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "evdev: out of memory");
		return -ENOMEM;
	}
	r->fd = -1;
	rc = open_device(spec, wait_ms, true, r, err, errlen);
	if (rc < 0) {
		evdev_free(&r->base);
		return rc;
	}
	r->base.ops = &evdev_ops;
	*out = &r->base;
	return 0;
}
