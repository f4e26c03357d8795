/*
 * Replay of an evemu recording (evemu-record's text format). The clicks
 * go through the synthetic pipe, so a recording of a real mouse can be
 * replayed anywhere, with the recording's own press spacing and hold.
 *
 *   # comment                      N: <name>
 *   I: <bus> <vendor> <product> <version>     (hex)
 *   P:, B:, A:, S:, ...            device description, ignored here
 *   E: <sec>.<usec> <type> <code> <value>     (type/code hex, value dec)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/input.h>

#include "il_file.h"
#include "il_input_backend.h"
#include "il_parse.h"

/* Used when a press has no recorded release (the recording was cut). */
#define REPLAY_DEFAULT_HOLD_NS 10000000ull
/* An evemu recording is text, about 30 bytes an event: 2 million events. */
#define EVEMU_MAX_BYTES (64 << 20)

struct replay_click {
	uint64_t press_us;
	uint64_t hold_us;
};

struct replay_injector {
	struct il_injector base; /* first: the dispatcher casts */
	struct il_injector *synth;
	struct replay_click *clicks;
	size_t n_clicks;
	size_t pressed; /* presses made so far; the last one played clicks[pressed - 1] */
};

void il_evemu_free(struct il_evemu *rec)
{
	if (!rec)
		return;
	free(rec->events);
	free(rec);
}

static int parse_hex(const char *s, unsigned max, unsigned *out)
{
	uint64_t v;

	if (il_parse_hex_u64(s, 0, max, &v) < 0)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* "<sec>.<usec>": evemu prints exactly six digits of microseconds. */
static int parse_time(char *s, uint64_t *us)
{
	char *dot = strchr(s, '.');
	uint64_t sec, usec;

	if (!dot || strlen(dot + 1) != 6)
		return -EINVAL;
	*dot = '\0';
	if (il_parse_u64(s, 0, UINT32_MAX, &sec) < 0 || il_parse_u64(dot + 1, 0, 999999, &usec) < 0)
		return -EINVAL;
	*us = sec * 1000000ull + usec;
	return 0;
}

static int parse_event(char *line, struct il_evemu_event *ev)
{
	char *tok[4], *save = NULL;
	unsigned type, code;
	int64_t value;

	line[strcspn(line, "#")] = '\0'; /* evemu appends "# EV_KEY / BTN_LEFT ..." */
	for (int i = 0; i < 4; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok[i])
			return -EINVAL;
	}
	if (strtok_r(NULL, " \t", &save))
		return -EINVAL;
	if (parse_time(tok[0], &ev->time_us) < 0 || parse_hex(tok[1], EV_MAX, &type) < 0 ||
	    parse_hex(tok[2], 0xffff, &code) < 0 ||
	    il_parse_i64(tok[3], INT32_MIN, INT32_MAX, &value) < 0)
		return -EINVAL;
	ev->type = (uint16_t)type;
	ev->code = (uint16_t)code;
	ev->value = (int32_t)value;
	return 0;
}

static int parse_id(char *line, struct il_evemu *rec)
{
	char *tok[4], *save = NULL;
	unsigned v[4];

	for (int i = 0; i < 4; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok[i] || parse_hex(tok[i], 0xffff, &v[i]) < 0)
			return -EINVAL;
	}
	rec->bus = v[0];
	rec->vendor = v[1];
	rec->product = v[2];
	rec->version = v[3];
	return 0;
}

static int push_event(struct il_evemu *rec, size_t *cap, const struct il_evemu_event *ev)
{
	if (rec->n_events == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct il_evemu_event *n = realloc(rec->events, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		rec->events = n;
		*cap = ncap;
	}
	rec->events[rec->n_events++] = *ev;
	return 0;
}

int il_evemu_parse(const char *path, struct il_evemu **out, char *err, size_t errlen)
{
	struct il_evemu *rec = calloc(1, sizeof(*rec));
	char line[4096];
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *f = NULL;
	int rc = 0;

	if (!rec) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* A regular file only, opened without blocking (a FIFO would wait for
	 * a writer, /dev/zero never ends), and of bounded size. */
	char why[64];
	int fd = il_file_open_input(path, false, why, sizeof(why));
	struct stat st;

	if (fd < 0) {
		rc = fd;
		if (rc == -EINVAL || rc == -EISDIR)
			snprintf(err, errlen,
				 "%s: %s, not a regular file (want an evemu-record "
				 "file)",
				 path, why);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	if (fstat(fd, &st) == 0 && st.st_size > EVEMU_MAX_BYTES) {
		close(fd);
		rc = -EFBIG;
		snprintf(err, errlen, "%s: %lld bytes, more than the %d MiB a recording may have",
			 path, (long long)st.st_size, EVEMU_MAX_BYTES >> 20);
		goto out;
	}
	f = fdopen(fd, "r");
	if (!f) {
		rc = -errno;
		close(fd);
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	for (long at = 0; fgets(line, sizeof(line), f); at = ftell(f)) {
		char *body = line + 2;

		lineno++;
		/* fgets stops at a newline, not at a NUL: a line with a NUL byte
		 * would lose its end silently. It is not text: say so. */
		if (ftell(f) - at != (long)strlen(line) || ftell(f) > EVEMU_MAX_BYTES) {
			rc = -EINVAL;
			snprintf(err, errlen, "%s:%u: %s", path, lineno,
				 ftell(f) > EVEMU_MAX_BYTES
				     ? "file grew past its size limit"
				     : "a NUL byte: not an evemu-record text file");
			goto out;
		}
		/* A line longer than the buffer: the rest of it is read and
		 * dropped here, not parsed as the next line (it was, reported
		 * as line 2 and "not an evemu-record line"). A comment or a
		 * device name keeps its head; any other line is refused. */
		if (!strchr(line, '\n') && !feof(f)) {
			char rest[4096];
			bool nul = false;
			size_t more = 0; /* bytes past the buffer, line end not counted */

			for (long r0 = ftell(f); fgets(rest, sizeof(rest), f); r0 = ftell(f)) {
				nul = nul || ftell(f) - r0 != (long)strlen(rest);
				more += strcspn(rest, "\r\n");
				if (strchr(rest, '\n'))
					break;
			}
			/* Exactly 4095 bytes and its line end: a whole line. */
			if (nul || (more && line[0] != '#' && line[0] != 'N')) {
				rc = -EINVAL;
				snprintf(err, errlen, "%s:%u: %s", path, lineno,
					 nul ? "a NUL byte: not an evemu-record text file"
					     : "a line longer than 4095 bytes: not an evemu-record "
					       "line");
				goto out;
			}
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (line[1] != ':' || (line[2] != ' ' && line[2] != '\0')) {
			rc = -EINVAL;
			snprintf(err, errlen, "%s:%u: not an evemu-record line: '%.40s'", path,
				 lineno, line);
			goto out;
		}
		body += *body == ' ';
		if (line[0] == 'N') {
			snprintf(rec->name, sizeof(rec->name), "%s", body);
		} else if (line[0] == 'I') {
			rc = parse_id(body, rec);
		} else if (line[0] == 'E') {
			struct il_evemu_event ev;
			rc = parse_event(body, &ev);
			if (rc == 0 && rec->n_events &&
			    ev.time_us < rec->events[rec->n_events - 1].time_us)
				rc = -EINVAL; /* time must not go backwards */
			if (rc == 0)
				rc = push_event(rec, &cap, &ev);
		}
		/* P:, B:, A:, S:, L: describe the device; replay does not need them. */
		if (rc < 0) {
			snprintf(err, errlen, "%s:%u: bad %c: line (want %s)", path, lineno,
				 line[0],
				 line[0] == 'I' ? "four hex numbers: bus vendor product version"
						: "E: <sec>.<usec> <type hex> <code hex> <value>, "
						  "time not decreasing");
			goto out;
		}
	}
	if (ferror(f)) {
		/* The failed read's errno (the loop calls nothing after it). */
		rc = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
		goto out;
	}
	*out = rec;
	rec = NULL;
out:
	if (f)
		fclose(f);
	il_evemu_free(rec);
	return rc;
}

int il_evemu_write(const struct il_evemu *rec, const char *path)
{
	FILE *f = il_file_create(path);
	int rc = 0;

	if (!f)
		return -errno;
	fprintf(f, "# EVEMU 1.3\n# written by inputlat\nN: %s\nI: %04x %04x %04x %04x\n", rec->name,
		rec->bus, rec->vendor, rec->product, rec->version);
	for (size_t i = 0; i < rec->n_events; i++) {
		const struct il_evemu_event *e = &rec->events[i];
		fprintf(f, "E: %llu.%06llu %04x %04x %d\n",
			(unsigned long long)(e->time_us / 1000000ull),
			(unsigned long long)(e->time_us % 1000000ull), e->type, e->code, e->value);
	}
	if (ferror(f))
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

/*
 * Turns the event stream into clicks: a press is a BTN_LEFT 1 frame (closed
 * by SYN_REPORT, as the reader sees it), its hold lasts until BTN_LEFT 0.
 */
static int extract_clicks(const struct il_evemu *rec, struct replay_click **out, size_t *n_out)
{
	struct replay_click *c = calloc(rec->n_events ? rec->n_events : 1, sizeof(*c));
	size_t n = 0;
	bool pending = false, held = false;
	uint64_t pending_us = 0;

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < rec->n_events; i++) {
		const struct il_evemu_event *e = &rec->events[i];

		if (e->type == EV_KEY && e->code == BTN_LEFT && e->value == 1) {
			pending = true;
			pending_us = e->time_us;
		} else if (e->type == EV_KEY && e->code == BTN_LEFT && e->value == 0 && held) {
			c[n - 1].hold_us = e->time_us - c[n - 1].press_us;
			held = false;
		} else if (e->type == EV_SYN && e->code == SYN_REPORT && pending) {
			c[n].press_us = pending_us;
			c[n].hold_us = REPLAY_DEFAULT_HOLD_NS / 1000;
			n++;
			pending = false;
			held = true;
		}
	}
	*out = c;
	*n_out = n;
	return 0;
}

static int load_clicks(const struct il_input_spec *spec, struct replay_click **clicks, size_t *n,
		       char *err, size_t errlen)
{
	struct il_evemu *rec = NULL;
	int rc = il_evemu_parse(spec->arg, &rec, err, errlen);

	if (rc < 0)
		return rc;
	rc = extract_clicks(rec, clicks, n);
	il_evemu_free(rec);
	if (rc < 0) {
		snprintf(err, errlen, "%s: out of memory", spec->arg);
		return rc;
	}
	if (*n == 0) {
		free(*clicks);
		*clicks = NULL;
		snprintf(err, errlen, "%s: recording has no left-button press (BTN_LEFT 1)",
			 spec->arg);
		return -EINVAL;
	}
	return 0;
}

int il_input_check_replay(const struct il_input_spec *spec, char *err, size_t errlen)
{
	struct replay_click *clicks;
	size_t n;
	int rc = load_clicks(spec, &clicks, &n, err, errlen);

	if (rc == 0)
		free(clicks);
	return rc;
}

/* Adds ns to *span; true when the sum passes IL_REPLAY_SPAN_MAX_NS. *span
 * is at most that limit (about 2^63.1) and ns a recorded time (below 2^62),
 * so the sum cannot wrap. */
static bool add_span(uint64_t *span, uint64_t ns)
{
	*span += ns;
	return *span > IL_REPLAY_SPAN_MAX_NS;
}

int il_input_replay_span(const struct il_input_spec *spec, uint64_t first_ns, uint64_t clicks,
			 struct il_replay_span *out, char *err, size_t errlen)
{
	struct replay_click *c;
	struct il_replay_span sp;
	size_t n, used;
	int rc = load_clicks(spec, &c, &n, err, errlen);

	if (rc < 0)
		return rc;
	used = clicks < n ? (size_t)clicks : n;
	sp = (struct il_replay_span){.clicks = used, .span_ns = first_ns};
	/* As the injector plays them: the harness's own delay to the first
	 * press, then the recorded press-to-press spacing, then the last hold.
	 * The sum wrapped (to less than first_ns) when a caller's first delay
	 * was near 2^64: it stops at IL_REPLAY_SPAN_MAX_NS instead. */
	bool over = first_ns > IL_REPLAY_SPAN_MAX_NS;
	for (size_t k = 1; k < used && !over; k++) {
		uint64_t gap = (c[k].press_us - c[k - 1].press_us) * 1000ull;
		uint64_t hold = c[k - 1].hold_us * 1000ull;

		/* A hold past the next press (a hostile recording) counts whole. */
		over = add_span(&sp.span_ns, gap > hold ? gap : hold);
		if (gap > sp.longest_gap_ns) {
			sp.longest_gap_ns = gap;
			sp.longest_gap_before = k + 1;
		}
	}
	if (used && !over)
		over = add_span(&sp.span_ns, c[used - 1].hold_us * 1000ull);
	free(c);
	if (over) {
		snprintf(err, errlen,
			 "%s: its clicks' spacing and holds add up to more than %llu years: "
			 "not a recording to replay",
			 spec->arg, (unsigned long long)(IL_REPLAY_SPAN_MAX_NS / IL_YEAR_NS));
		return -ERANGE; /* *out untouched */
	}
	*out = sp;
	return 0;
}

static int replay_press(struct il_injector *inj, uint64_t *stamp0_ns)
{
	struct replay_injector *r = (struct replay_injector *)inj;

	if (r->pressed >= r->n_clicks)
		return -ENODATA; /* next_delay already said the replay is done */
	r->pressed++;
	/* The synthetic injector takes stamp 0 right before its write. */
	return il_injector_press(r->synth, stamp0_ns);
}

static int replay_release(struct il_injector *inj)
{
	return il_injector_release(((struct replay_injector *)inj)->synth);
}

/*
 * Called after a press (as the harness does): the recorded press-to-press
 * spacing to the next click, false after the last one. Before the first
 * press the harness's own default_ns applies.
 */
static bool replay_next_delay(struct il_injector *inj, uint64_t default_ns, uint64_t *delay_ns)
{
	struct replay_injector *r = (struct replay_injector *)inj;
	size_t k = r->pressed;

	if (k >= r->n_clicks)
		return false;
	*delay_ns =
	    k == 0 ? default_ns : (r->clicks[k].press_us - r->clicks[k - 1].press_us) * 1000ull;
	return true;
}

/* The recorded hold of the click pressed last (the first before any press). */
static uint64_t replay_hold_ns(struct il_injector *inj)
{
	struct replay_injector *r = (struct replay_injector *)inj;
	size_t i = r->pressed ? r->pressed - 1 : 0;

	return r->clicks[i].hold_us * 1000ull;
}

static void replay_free(struct il_injector *inj)
{
	struct replay_injector *r = (struct replay_injector *)inj;

	if (!r)
		return;
	il_injector_free(r->synth);
	free(r->clicks);
	free(r);
}

static const struct il_injector_ops replay_ops = {
    .press = replay_press,
    .release = replay_release,
    .next_delay = replay_next_delay,
    .hold_ns = replay_hold_ns,
    .devnode = NULL,
    .free = replay_free,
};

int il_injector_open_replay(const struct il_input_spec *spec, int synth_fd,
			    struct il_injector **out, char *err, size_t errlen)
{
	struct replay_injector *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		snprintf(err, errlen, "replay: out of memory");
		return -ENOMEM;
	}
	rc = load_clicks(spec, &r->clicks, &r->n_clicks, err, errlen);
	if (rc < 0)
		goto fail;
	rc = il_injector_open_synth(spec, synth_fd, &r->synth, err, errlen);
	if (rc < 0)
		goto fail;
	r->base.ops = &replay_ops;
	*out = &r->base;
	return 0;
fail:
	free(r->clicks);
	free(r);
	return rc;
}
