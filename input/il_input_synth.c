/*
 * The synthetic source: the orchestrator writes struct input_event records
 * into a pipe, and browser-sim decodes them the way it decodes an evdev
 * node, validating every type and code against libevdev's tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_input_backend.h"

/* A click is held this long before the release (outside the measurement). */
#define SYNTH_HOLD_NS 2000000ull

struct synth_injector {
	struct il_injector base;
	int fd;
};

static void fill_event(struct input_event *ev, uint64_t ns, uint16_t type, uint16_t code,
		       int32_t value)
{
	memset(ev, 0, sizeof(*ev));
	ev->input_event_sec = (time_t)(ns / 1000000000ull);
	ev->input_event_usec = (suseconds_t)((ns % 1000000000ull) / 1000);
	ev->type = type;
	ev->code = code;
	ev->value = value;
}

static int synth_write_button(struct synth_injector *s, int value, uint64_t *stamp0_ns)
{
	struct input_event ev[2];
	uint64_t now = il_now_ns();
	ssize_t n;

	/* The kernel would stamp the event at the interrupt; stamp 0 plays that part. */
	fill_event(&ev[0], now, EV_KEY, BTN_LEFT, value);
	fill_event(&ev[1], now, EV_SYN, SYN_REPORT, 0);
	if (stamp0_ns)
		*stamp0_ns = now;
	/* One write of less than PIPE_BUF bytes is atomic: the reader never sees half a click. */
	n = write(s->fd, ev, sizeof(ev));
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(ev) ? 0 : -EIO;
}

static int synth_press(struct il_injector *inj, uint64_t *stamp0_ns)
{
	return synth_write_button((struct synth_injector *)inj, 1, stamp0_ns);
}

static int synth_release(struct il_injector *inj)
{
	return synth_write_button((struct synth_injector *)inj, 0, NULL);
}

static bool synth_next_delay(struct il_injector *inj, uint64_t default_ns, uint64_t *delay_ns)
{
	*delay_ns = default_ns;
	return true;
}

static uint64_t synth_hold_ns(struct il_injector *inj)
{
	return SYNTH_HOLD_NS;
}

static void synth_injector_free(struct il_injector *inj)
{
	free(inj);
}

static const struct il_injector_ops synth_injector_ops = {
    .press = synth_press,
    .release = synth_release,
    .next_delay = synth_next_delay,
    .hold_ns = synth_hold_ns,
    .devnode = NULL,
    .free = synth_injector_free,
};

int il_injector_open_synth(const struct il_input_spec *spec, int synth_fd, struct il_injector **out,
			   char *err, size_t errlen)
{
	struct synth_injector *s;

	if (synth_fd < 0) {
		snprintf(err, errlen, "synthetic input: no pipe to browser-sim");
		return -EBADF;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "synthetic input: out of memory");
		return -ENOMEM;
	}
	s->base.ops = &synth_injector_ops;
	s->fd = synth_fd;
	*out = &s->base;
	return 0;
}

struct synth_reader {
	struct il_input_reader base;
	int fd;
	bool press_pending;
	uint64_t press_kernel_ns;
	uint64_t invalid;
	size_t have;
	unsigned char partial[sizeof(struct input_event)];
};

static int synth_reader_fd(const struct il_input_reader *r)
{
	return ((const struct synth_reader *)r)->fd;
}

static uint64_t synth_reader_invalid(const struct il_input_reader *r)
{
	return ((const struct synth_reader *)r)->invalid;
}

/* Decodes one event as the evdev thread of a real device would. */
static void synth_decode(struct synth_reader *s, const struct input_event *ev, il_input_press_cb cb,
			 void *ctx)
{
	if (!libevdev_event_type_get_name(ev->type) ||
	    !libevdev_event_code_get_name(ev->type, ev->code)) {
		s->invalid++;
		return;
	}
	if (ev->type == EV_KEY && ev->code == BTN_LEFT && ev->value == 1) {
		s->press_pending = true;
		s->press_kernel_ns = (uint64_t)ev->input_event_sec * 1000000000ull +
				     (uint64_t)ev->input_event_usec * 1000ull;
	} else if (ev->type == EV_SYN && ev->code == SYN_REPORT && s->press_pending) {
		s->press_pending = false;
		cb(ctx, s->press_kernel_ns);
	}
}

static int synth_dispatch(struct il_input_reader *r, il_input_press_cb cb, void *ctx)
{
	struct synth_reader *s = (struct synth_reader *)r;
	unsigned char buf[64 * sizeof(struct input_event)];

	for (;;) {
		ssize_t n = read(s->fd, buf, sizeof(buf));
		size_t off = 0;

		if (n == 0)
			return -EPIPE;
		if (n < 0)
			return errno == EAGAIN ? 0 : (errno == EINTR ? 0 : -errno);
		/* A pipe may split records; carry the partial one over. */
		while (off < (size_t)n) {
			size_t take = sizeof(s->partial) - s->have;

			if (take > (size_t)n - off)
				take = (size_t)n - off;
			memcpy(s->partial + s->have, buf + off, take);
			s->have += take;
			off += take;
			if (s->have == sizeof(s->partial)) {
				struct input_event ev;

				memcpy(&ev, s->partial, sizeof(ev));
				s->have = 0;
				synth_decode(s, &ev, cb, ctx);
			}
		}
	}
}

static void synth_reader_free(struct il_input_reader *r)
{
	struct synth_reader *s = (struct synth_reader *)r;

	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

static const struct il_input_reader_ops synth_reader_ops = {
    .fd = synth_reader_fd,
    .dispatch = synth_dispatch,
    .invalid_events = synth_reader_invalid,
    .free = synth_reader_free,
};

int il_reader_open_synth(const struct il_input_spec *spec, int synth_fd,
			 struct il_input_reader **out, char *err, size_t errlen)
{
	struct synth_reader *s;
	int fl;

	if (synth_fd < 0) {
		snprintf(err, errlen, "synthetic input: no pipe from the orchestrator");
		return -EBADF;
	}
	fl = fcntl(synth_fd, F_GETFL);
	if (fl < 0 || fcntl(synth_fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "synthetic input: fcntl: %s", strerror(errno));
		return -errno;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "synthetic input: out of memory");
		return -ENOMEM;
	}
	s->base.ops = &synth_reader_ops;
	s->fd = synth_fd;
	*out = &s->base;
	return 0;
}
