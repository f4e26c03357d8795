/*
 * Input back ends on a machine without uinput: the clean errors, the
 * evemu replay parser and the replay injector through the synthetic pipe.
 * The real uinput -> evdev path is tested inside the VM (tests/vm/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/input.h>

#include "il_clock.h"
#include "il_input.h"
#include "il_input_backend.h"
#include "il_test.h"

static char err[512];

static void data_path(char *buf, size_t len, const char *name)
{
	const char *src = getenv("IL_SOURCE_DIR");

	snprintf(buf, len, "%s/tests/data/%s", src ? src : ".", name);
}

/* One line without its newline, as err buffers hold it. */
static void assert_one_line(const char *msg)
{
	assert_true(msg[0] != '\0');
	assert_null(strchr(msg, '\n'));
}

static void test_input_uinput_missing(void **state)
{
	struct il_input_spec spec;
	struct il_injector *inj = (struct il_injector *)0x1;

	(void)state;
	/* With uinput, the VM test covers the real path. */
	IL_TEST_NEED(access("/dev/uinput", F_OK) != 0,
		     "this machine has /dev/uinput: the missing-uinput error cannot be seen");
	assert_int_equal(il_input_spec_parse("uinput", &spec, err, sizeof(err)), 0);
	assert_int_equal(il_input_check(&spec, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "CONFIG_INPUT_UINPUT"));
	assert_non_null(strstr(err, "/dev/uinput"));
	assert_one_line(err);
	/* Opening fails the same way and leaves *out untouched. */
	err[0] = '\0';
	assert_int_equal(il_injector_open(&spec, -1, &inj, err, sizeof(err)), -ENODEV);
	assert_ptr_equal(inj, (struct il_injector *)0x1);
	assert_non_null(strstr(err, "CONFIG_INPUT_UINPUT"));
}

static void test_input_evdev_missing_path(void **state)
{
	struct il_input_spec spec;
	struct il_input_reader *r = NULL;

	(void)state;
	assert_int_equal(il_input_spec_parse("evdev:/dev/input/event999", &spec, err, sizeof(err)),
			 0);
	assert_int_equal(il_input_check(&spec, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/dev/input/event999: No such file or directory");
	err[0] = '\0';
	assert_int_equal(il_input_reader_open(&spec, -1, &r, err, sizeof(err)), -ENOENT);
	assert_null(r);
	assert_string_equal(err, "/dev/input/event999: No such file or directory");
}

static void test_input_evdev_not_evdev(void **state)
{
	struct il_input_spec spec;

	(void)state;
	assert_int_equal(il_input_spec_parse("evdev:/dev/null", &spec, err, sizeof(err)), 0);
	assert_true(il_input_check(&spec, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/dev/null: not an evdev input device"));
	assert_one_line(err);
}

static void test_input_replay_parse(void **state)
{
	char path[512];
	struct il_evemu *rec = NULL;

	(void)state;
	data_path(path, sizeof(path), "mouse-3clicks.evemu");
	assert_int_equal(il_evemu_parse(path, &rec, err, sizeof(err)), 0);
	assert_string_equal(rec->name, "Logitech USB Optical Mouse");
	assert_int_equal(rec->bus, 0x3);
	assert_int_equal(rec->vendor, 0x46d);
	assert_int_equal(rec->product, 0xc077);
	assert_int_equal(rec->version, 0x111);
	assert_int_equal(rec->n_events, 23);
	assert_int_equal(rec->events[1].type, EV_REL);
	assert_int_equal(rec->events[1].code, REL_Y);
	assert_int_equal(rec->events[1].value, -2);
	assert_int_equal(rec->events[4].time_us, 120412);
	assert_int_equal(rec->events[4].type, EV_KEY);
	assert_int_equal(rec->events[4].code, BTN_LEFT);
	assert_int_equal(rec->events[4].value, 1);
	assert_int_equal(rec->events[3].value, 589825);
	il_evemu_free(rec);
}

struct pickup {
	uint64_t wake_ns, stamp_ns;
	int presses;
};

static void pickup_cb(void *ctx, uint64_t kernel_ns)
{
	struct pickup *p = ctx;

	p->stamp_ns = il_input_pickup_ns(p->wake_ns, kernel_ns, il_now_ns());
	p->presses++;
}

/*
 * A press written after the reader woke and before it read (the reader woke
 * for the release just ahead of it) is picked up when it is read, after
 * stamp 0; a press that waited for the wake is picked up at the wake.
 */
static void test_input_pickup_after_wake(void **state)
{
	struct il_input_spec spec = {.kind = IL_INPUT_SYNTHETIC};
	struct il_injector *inj = NULL;
	struct il_input_reader *rd = NULL;
	struct pickup p = {0};
	uint64_t stamp0;
	int fds[2];

	(void)state;
	assert_int_equal(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(il_injector_open(&spec, fds[1], &inj, err, sizeof(err)), 0);
	assert_int_equal(il_input_reader_open(&spec, fds[0], &rd, err, sizeof(err)), 0);

	/* Written after the wake: read time, never before stamp 0. */
	for (int i = 0; i < 1000; i++) {
		p.wake_ns = il_now_ns();
		assert_int_equal(il_injector_press(inj, &stamp0), 0);
		assert_int_equal(il_injector_release(inj), 0);
		assert_int_equal(il_input_reader_dispatch(rd, pickup_cb, &p), 0);
		assert_int_equal(p.presses, i + 1);
		assert_true(p.stamp_ns > stamp0);
	}

	/* Written 2 ms before the wake: the wake is the pickup. */
	assert_int_equal(il_injector_press(inj, &stamp0), 0);
	assert_int_equal(il_injector_release(inj), 0);
	usleep(2000);
	p.wake_ns = il_now_ns();
	assert_int_equal(il_input_reader_dispatch(rd, pickup_cb, &p), 0);
	assert_int_equal(p.stamp_ns, p.wake_ns);

	/* Stamped (microseconds, cut down) under a microsecond before the wake. */
	assert_int_equal(il_input_pickup_ns(5000999, 5000000, 7000000), 7000000);
	assert_int_equal(il_input_pickup_ns(5001000, 5000000, 7000000), 5001000);

	il_input_reader_free(rd);
	il_injector_free(inj);
	close(fds[1]);
}

static void test_input_replay_roundtrip(void **state)
{
	char path[512], tmp[256];
	struct il_evemu *a = NULL, *b = NULL;

	(void)state;
	assert_int_equal(il_test_tmpfile_make(tmp, sizeof(tmp), "evemu"), 0);
	data_path(path, sizeof(path), "mouse-3clicks.evemu");
	assert_int_equal(il_evemu_parse(path, &a, err, sizeof(err)), 0);
	assert_int_equal(il_evemu_write(a, tmp), 0);
	assert_int_equal(il_evemu_parse(tmp, &b, err, sizeof(err)), 0);
	unlink(tmp);
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->bus, b->bus);
	assert_int_equal(a->vendor, b->vendor);
	assert_int_equal(a->product, b->product);
	assert_int_equal(a->version, b->version);
	assert_int_equal(a->n_events, b->n_events);
	assert_memory_equal(a->events, b->events, a->n_events * sizeof(a->events[0]));
	il_evemu_free(a);
	il_evemu_free(b);
}

static void test_input_replay_bad_line(void **state)
{
	char tmp[256];
	struct il_evemu *rec = (struct il_evemu *)0x1;

	(void)state;
	assert_int_equal(il_test_tmpfile_make(tmp, sizeof(tmp), "evemu"), 0);
	il_test_write_file(tmp, "N: x\nI: 0003 0001 0002 0003\nE: 0.000001 0001 0110 one\n");
	assert_int_equal(il_evemu_parse(tmp, &rec, err, sizeof(err)), -EINVAL);
	assert_ptr_equal(rec, (struct il_evemu *)0x1);
	assert_non_null(strstr(err, ":3: bad E: line"));
	assert_one_line(err);

	/* Longer than the line buffer: a name keeps its head, anything else
	 * is refused at its own line (it was read on as a "line 2"). */
	{
		static char text[12000];
		int n = snprintf(text, sizeof(text), "N: ");

		memset(text + n, 'a', 5000);
		snprintf(text + n + 5000, sizeof(text) - (size_t)n - 5000,
			 "\nE: 0.000001 0001 0110 0001\nE: 0.000001 0000 0000 0000\n");
		il_test_write_file(tmp, text);
		assert_int_equal(il_evemu_parse(tmp, &rec, err, sizeof(err)), 0);
		assert_int_equal(rec->n_events, 2);
		il_evemu_free(rec);
		n = snprintf(text, sizeof(text), "N: x\nE: 0.000001 0001 0110 0001");
		memset(text + n, ' ', 5000);
		snprintf(text + n + 5000, sizeof(text) - (size_t)n - 5000, "\n");
		il_test_write_file(tmp, text);
		assert_int_equal(il_evemu_parse(tmp, &rec, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, ":2: a line longer than 4095 bytes"));
		assert_one_line(err);
		/* Exactly 4095 bytes and its line end: a whole line, parsed. */
		n = snprintf(text, sizeof(text), "N: x\nE: 0.000001 0001 0110 0001");
		memset(text + n, ' ', (size_t)(5 + 4095 - n));
		snprintf(text + 5 + 4095, sizeof(text) - 5 - 4095,
			 "\nE: 0.000001 0000 0000 0000\n");
		il_test_write_file(tmp, text);
		assert_int_equal(il_evemu_parse(tmp, &rec, err, sizeof(err)), 0);
		assert_int_equal(rec->n_events, 2);
		il_evemu_free(rec);
	}
	unlink(tmp);
}

static void test_input_replay_missing_file(void **state)
{
	struct il_input_spec spec;

	(void)state;
	assert_int_equal(
	    il_input_spec_parse("replay:/nonexistent/rec.evemu", &spec, err, sizeof(err)), 0);
	assert_int_equal(il_input_check(&spec, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/rec.evemu: No such file or directory");
}

struct count {
	unsigned presses;
	uint64_t last_ns;
};

static void count_cb(void *ctx, uint64_t kernel_ns)
{
	struct count *c = ctx;

	c->presses++;
	c->last_ns = kernel_ns;
}

/* Replay keeps the recording's press spacing and holds, via the pipe. */
static void test_input_replay_timing(void **state)
{
	struct il_input_spec spec = {.kind = IL_INPUT_REPLAY};
	struct il_injector *inj = NULL;
	struct il_input_reader *r = NULL;
	struct count c = {0};
	uint64_t delay, stamp0;
	int pfd[2];

	(void)state;
	data_path(spec.arg, sizeof(spec.arg), "mouse-3clicks.evemu");
	assert_int_equal(il_input_check(&spec, err, sizeof(err)), 0);
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(il_injector_open(&spec, pfd[1], &inj, err, sizeof(err)), 0);
	assert_int_equal(il_input_reader_open(&spec, pfd[0], &r, err, sizeof(err)), 0);

	/* The harness's order: press, hold, release, then the delay to the next. */
	const uint64_t want_hold[] = {80965000ull, 65000000ull, 100000000ull};
	const uint64_t want_delay[] = {599738000ull, 600000000ull};
	assert_true(il_injector_next_delay(inj, 5000, &delay)); /* before any press */
	assert_int_equal(delay, 5000);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(il_injector_press(inj, &stamp0), 0);
		assert_int_equal(il_injector_hold_ns(inj), want_hold[i]);
		assert_int_equal(il_input_reader_dispatch(r, count_cb, &c), 0);
		assert_int_equal(c.presses, i + 1);
		assert_int_equal(il_injector_release(inj), 0);
		if (i < 2) {
			assert_true(il_injector_next_delay(inj, 5000, &delay));
			assert_int_equal(delay, want_delay[i]);
		}
	}
	/* The right-button click is not a press; after three, the replay ends. */
	assert_false(il_injector_next_delay(inj, 5000, &delay));
	assert_int_equal(il_injector_press(inj, &stamp0), -ENODATA);
	assert_int_equal(il_input_reader_dispatch(r, count_cb, &c), 0);
	assert_int_equal(c.presses, 3);
	assert_int_equal(il_input_reader_invalid_events(r), 0);
	il_injector_free(inj);
	close(pfd[1]);
	assert_int_equal(il_input_reader_dispatch(r, count_cb, &c), -EPIPE);
	il_input_reader_free(r);
}

/*
 * What a replay's clicks take to play, for the run's bound: the harness's
 * first delay, the recorded spacing, the last click's hold; the longest
 * gap named by the click it precedes.
 */
static void test_input_replay_span(void **state)
{
	struct il_input_spec spec = {.kind = IL_INPUT_REPLAY};
	struct il_replay_span sp;

	(void)state;
	data_path(spec.arg, sizeof(spec.arg), "mouse-3clicks.evemu");
	assert_int_equal(il_input_replay_span(&spec, 5000000, 2, &sp, err, sizeof(err)), 0);
	assert_int_equal(sp.clicks, 2);
	assert_int_equal(sp.span_ns, 5000000ull + 599738000ull + 65000000ull);
	assert_int_equal(sp.longest_gap_ns, 599738000ull);
	assert_int_equal(sp.longest_gap_before, 2);
	/* More asked than recorded: all three. */
	assert_int_equal(il_input_replay_span(&spec, 5000000, 100, &sp, err, sizeof(err)), 0);
	assert_int_equal(sp.clicks, 3);
	assert_int_equal(sp.span_ns, 5000000ull + 599738000ull + 600000000ull + 100000000ull);
	assert_int_equal(sp.longest_gap_ns, 600000000ull);
	assert_int_equal(sp.longest_gap_before, 3);
}

/*
 * A span that cannot be counted is refused in one line, never wrapped: the
 * harness's first delay near 2^64 wrapped the sum of a real recording to
 * less than that delay. The longest span a recording can hold, two holds
 * each to the largest time (2^32 - 1 s), is counted exactly.
 */
static void test_input_replay_span_wrap(void **state)
{
	const uint64_t t_ns = 4294967295000000000ull;
	struct il_input_spec spec = {.kind = IL_INPUT_REPLAY};
	struct il_replay_span sp;
	char tmp[256];

	(void)state;
	data_path(spec.arg, sizeof(spec.arg), "mouse-3clicks.evemu");
	assert_int_equal(
	    il_input_replay_span(&spec, UINT64_MAX - 1000000000ull, 100, &sp, err, sizeof(err)),
	    -ERANGE);
	assert_non_null(strstr(err, "mouse-3clicks.evemu: its clicks' spacing and holds add up "
				    "to more than 300 years: not a recording to replay"));
	assert_one_line(err);

	/* Click 1 is held until click 2 is reported at the largest time, and
	 * click 2, pressed at 0, is held until then too. */
	assert_int_equal(il_test_tmpfile_make(tmp, sizeof(tmp), "evemu"), 0);
	il_test_write_file(tmp, "N: x\nI: 0003 0001 0002 0003\n"
				"E: 0.000000 0001 0110 1\nE: 0.000000 0000 0000 0\n"
				"E: 0.000000 0001 0110 1\n"
				"E: 4294967295.000000 0001 0110 0\n"
				"E: 4294967295.000000 0000 0000 0\n"
				"E: 4294967295.000000 0001 0110 0\n"
				"E: 4294967295.000000 0001 0110 1\n"
				"E: 4294967295.000000 0000 0000 0\n");
	snprintf(spec.arg, sizeof(spec.arg), "%s", tmp);
	assert_int_equal(il_input_replay_span(&spec, 20000000, 100, &sp, err, sizeof(err)), 0);
	assert_int_equal(sp.clicks, 3);
	assert_int_equal(sp.span_ns, 20000000ull + t_ns + t_ns + 10000000ull);
	assert_int_equal(sp.longest_gap_ns, t_ns);
	assert_int_equal(sp.longest_gap_before, 3);
	/* The same with a first delay that takes it past the limit. */
	assert_int_equal(il_input_replay_span(&spec, IL_REPLAY_SPAN_MAX_NS - 2 * t_ns, 100, &sp,
					      err, sizeof(err)),
			 -ERANGE);
	assert_one_line(err);
	unlink(tmp);
}

/*
 * The uinput reader finds its device by the sysfs name attribute. The old
 * reader took the first line of the text: a device named
 * "inputlat virtual mouse\nX" (uinput takes any bytes) passed for ours
 * (tests/fuzz/regress/input_attr).
 */
static void test_input_sysfs_attr_parse(void **state)
{
	static const char two[] = IL_UINPUT_NAME "\nX\n", ours[] = IL_UINPUT_NAME "\n";
	char buf[256];

	assert_int_equal(il_input_sysfs_attr_parse(two, sizeof(two) - 1, buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(il_input_sysfs_attr_parse("a\0b\n", 4, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(il_input_sysfs_attr_parse(ours, sizeof(ours) - 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, IL_UINPUT_NAME);
	/* Too long for the buffer is not its first bytes. */
	assert_int_equal(il_input_sysfs_attr_parse(ours, sizeof(ours) - 1, buf, 8), -EOVERFLOW);
	/* Without the newline, and empty. */
	assert_int_equal(il_input_sysfs_attr_parse("mouse", 5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "mouse");
	assert_int_equal(il_input_sysfs_attr_parse("\n", 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_input_replay_span),
	    cmocka_unit_test(test_input_replay_span_wrap),
	    cmocka_unit_test(test_input_uinput_missing),
	    cmocka_unit_test(test_input_evdev_missing_path),
	    cmocka_unit_test(test_input_evdev_not_evdev),
	    cmocka_unit_test(test_input_replay_parse),
	    cmocka_unit_test(test_input_pickup_after_wake),
	    cmocka_unit_test(test_input_replay_roundtrip),
	    cmocka_unit_test(test_input_replay_bad_line),
	    cmocka_unit_test(test_input_replay_missing_file),
	    cmocka_unit_test(test_input_replay_timing),
	    cmocka_unit_test(test_input_sysfs_attr_parse),
	};
	if (il_test_filters("test_input", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
