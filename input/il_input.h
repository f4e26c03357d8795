/*
 * Input sources. The orchestrator owns an injector (it takes stamp 0 and
 * writes a mouse-down); browser-sim's evdev thread owns a reader (it reads
 * and decodes the events exactly as it would from an evdev node).
 *
 * Source specs (the --input option):
 *   synthetic          struct input_event records over a pipe (default)
 *   uinput             a libevdev uinput virtual mouse
 *   evdev:/dev/input/eventN   a physical device, no injector
 *   replay:FILE        an evemu recording, replayed with its timing
 */
#ifndef IL_INPUT_H
#define IL_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum il_input_kind {
	IL_INPUT_SYNTHETIC,
	IL_INPUT_UINPUT,
	IL_INPUT_EVDEV,
	IL_INPUT_REPLAY,
};

struct il_input_spec {
	enum il_input_kind kind;
	char arg[256]; /* device path or file; empty otherwise */
};

/* How long a replay's clicks take to play (il_input_replay_span). */
struct il_replay_span {
	uint64_t clicks;	     /* of those asked, the recording holds this many */
	uint64_t span_ns;	     /* from the run's first delay to the last click's release */
	uint64_t longest_gap_ns;     /* the longest recorded press-to-press spacing */
	uint64_t longest_gap_before; /* the click (1-based) that gap precedes */
};

/* One year of 365.25 days, in ns. */
#define IL_YEAR_NS (31557600ull * 1000000000ull)
/*
 * The longest span il_input_replay_span counts: 300 years. A recording's
 * times (2^32 s at most, never decreasing) reach about 272 (two holds each
 * to the largest time), so only a caller's first delay passes it; and a
 * run's bound (span * 1.1 plus the rest, il_run_bound.c) cannot wrap.
 */
#define IL_REPLAY_SPAN_MAX_NS (300ull * IL_YEAR_NS)

/*
 * For --input replay:FILE: what its first `clicks` clicks (or all it has)
 * take to play, the first one after first_ns (the harness's own delay),
 * the rest at their recorded spacing, with the last one's recorded hold.
 * Returns 0 or -errno (message in err): -ERANGE when the span passes
 * IL_REPLAY_SPAN_MAX_NS (holds that each reach past later presses).
 */
int il_input_replay_span(const struct il_input_spec *spec, uint64_t first_ns, uint64_t clicks,
			 struct il_replay_span *out, char *err, size_t errlen);

/* Parses an --input value. Returns 0 or -EINVAL (message in err). */
int il_input_spec_parse(const char *s, struct il_input_spec *out, char *err, size_t errlen);

/* The canonical text form of a spec ("synthetic", "evdev:/dev/...", ...). */
void il_input_spec_format(const struct il_input_spec *spec, char *buf, size_t len);

/*
 * Checks, before anything starts, that the source can work on this machine
 * (e.g. /dev/uinput exists). Returns 0 or a negative errno with one line in
 * err that names the missing kernel piece.
 */
int il_input_check(const struct il_input_spec *spec, char *err, size_t errlen);

/* --- injector: orchestrator side ----------------------------------- */
struct il_injector;

/*
 * Opens the injector. For synthetic, synth_fd is the write end of the pipe
 * to browser-sim (ownership stays with the caller). For evdev sources there
 * is no injector: *out is set to NULL and 0 returned.
 */
int il_injector_open(const struct il_input_spec *spec, int synth_fd, struct il_injector **out,
		     char *err, size_t errlen);
void il_injector_free(struct il_injector *inj);

/*
 * Injects one mouse-down (BTN_LEFT 1 + SYN_REPORT). *stamp0_ns is the
 * CLOCK_MONOTONIC time taken right before the write. Returns 0 or -errno.
 */
int il_injector_press(struct il_injector *inj, uint64_t *stamp0_ns);

/* Device node a uinput injector created ("/dev/input/event5"), else NULL. */
const char *il_injector_devnode(const struct il_injector *inj);

/* Releases the button (outside the measurement). */
int il_injector_release(struct il_injector *inj);

/*
 * Delay before the next press: default_ns for generated sources, the
 * recording's own spacing for replay. Returns false when a replay is done.
 */
bool il_injector_next_delay(struct il_injector *inj, uint64_t default_ns, uint64_t *delay_ns);

/*
 * Delay between a press and its release (the click's hold time): for
 * generated sources a fixed short hold, for replay the recorded one.
 */
uint64_t il_injector_hold_ns(struct il_injector *inj);

/* --- reader: browser-sim evdev thread ------------------------------- */
struct il_input_reader;

/*
 * Opens the reader. For synthetic, synth_fd is the read end of the pipe
 * (the reader takes ownership). Returns 0 or -errno with one line in err.
 */
int il_input_reader_open(const struct il_input_spec *spec, int synth_fd,
			 struct il_input_reader **out, char *err, size_t errlen);
void il_input_reader_free(struct il_input_reader *r);

/* The fd to poll for readability (non-blocking). */
int il_input_reader_fd(const struct il_input_reader *r);

/* Called once per BTN_LEFT press completed by SYN_REPORT. */
typedef void (*il_input_press_cb)(void *ctx, uint64_t kernel_ns);

/*
 * When the reading thread picked up a press: the time it woke to read
 * (wake_ns), unless the press is stamped (event_ns, microseconds, cut
 * down) less than a microsecond before that wake or after it. Such a
 * press may have been written after the wake and before the read (the
 * thread woke for the click before it, a release written just ahead of
 * this press): its pickup is when it was read (read_ns), never a time
 * before it existed.
 */
uint64_t il_input_pickup_ns(uint64_t wake_ns, uint64_t event_ns, uint64_t read_ns);

/*
 * Reads everything available and calls press_cb per mouse-down. Returns
 * 0, -EAGAIN-free; -EPIPE at end of input; -EPROTO counted events with
 * codes libevdev does not know are reported through invalid_events.
 */
int il_input_reader_dispatch(struct il_input_reader *r, il_input_press_cb press_cb, void *ctx);

/* Events whose type/code libevdev does not know, or short reads. */
uint64_t il_input_reader_invalid_events(const struct il_input_reader *r);

#endif
