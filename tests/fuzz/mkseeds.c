/*
 * Writes the binary seeds of tests/fuzz/corpus/ (frame, evdev) with the
 * project's own encoders, so the seeds follow the wire formats:
 *   cc -D_GNU_SOURCE -Icommon -Iwire tests/fuzz/mkseeds.c wire/il_msg.c -o /tmp/mkseeds
 *   /tmp/mkseeds tests/fuzz/corpus
 * Text seeds (policy, cli) are plain files, edited by hand.
 */
#include <linux/input.h>
#include <stdio.h>
#include <string.h>

#include "il_msg.h"

static int write_seed(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len) {
		perror(path);
		return -1;
	}
	return fclose(f);
}

static void fill(struct il_msg *m, uint64_t id)
{
	memset(m, 0, sizeof(*m));
	m->event_id = id;
	m->kernel_ns = 1000;
	for (int k = 0; k < IL_NSTAMPS; k++) {
		m->stamp_ns[k] = 1000 + 10 * (uint64_t)k;
		m->end_ns[k] = m->stamp_ns[k] + 5;
		m->tid[k] = 4000u + (uint32_t)k;
	}
}

static size_t put_control(const char *json, uint8_t *buf, size_t cap)
{
	int n = il_frame_encode_control(json, strlen(json), buf, cap);

	return n < 0 ? 0 : (size_t)n;
}

static void put_ev(struct input_event *ev, uint16_t type, uint16_t code, int32_t value)
{
	memset(ev, 0, sizeof(*ev));
	ev->input_event_sec = 12;
	ev->input_event_usec = 345678;
	ev->type = type;
	ev->code = code;
	ev->value = value;
}

int main(int argc, char **argv)
{
	char frame[4096], evdev[4096];
	uint8_t buf[4 * IL_FRAME_EVENT_LEN + 1024];
	struct il_msg m;
	struct input_event ev[8];
	size_t n;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds CORPUS_DIR\n");
		return 2;
	}
	snprintf(frame, sizeof(frame), "%s/frame", argv[1]);
	snprintf(evdev, sizeof(evdev), "%s/evdev", argv[1]);

	/* frame: the first byte is the chunk size of the fuzz target (0: all). */
	buf[0] = 0;
	fill(&m, 1);
	il_frame_encode_event(&m, buf + 1);
	rc |= write_seed(frame, "event", buf, 1 + IL_FRAME_EVENT_LEN);

	buf[0] = 0;
	n = put_control("{\"cmd\":\"stop\"}", buf + 1, sizeof(buf) - 1);
	rc |= write_seed(frame, "control-stop", buf, 1 + n);

	buf[0] = 0;
	n = put_control("{\"cmd\":\"stats\",\"events\":100,\"invalid\":0,\"hops\":[1,2,3]}",
			buf + 1, sizeof(buf) - 1);
	rc |= write_seed(frame, "control-stats", buf, 1 + n);

	/* Three frames split into 37-byte reads: event, control, event. */
	buf[0] = 37;
	n = 1;
	fill(&m, 2);
	il_frame_encode_event(&m, buf + n);
	n += IL_FRAME_EVENT_LEN;
	n += put_control("{\"cmd\":\"ready\",\"pid\":1234}", buf + n, sizeof(buf) - n);
	fill(&m, 3);
	il_frame_encode_event(&m, buf + n);
	n += IL_FRAME_EVENT_LEN;
	rc |= write_seed(frame, "stream-split", buf, n);

	/* Invalid: a CONTROL frame that is not a JSON object, then a bad version. */
	buf[0] = 0;
	n = 1 + put_control("[1,2", buf + 1, sizeof(buf) - 1);
	n += put_control("{}", buf + n, sizeof(buf) - n);
	buf[n - 2 - IL_FRAME_HDR_LEN + 4] = 9;
	rc |= write_seed(frame, "bad-json-bad-version", buf, n);

	/* Invalid: an EVENT frame with a CONTROL frame's length. */
	buf[0] = 0;
	n = 1 + put_control("{\"cmd\":\"x\"}", buf + 1, sizeof(buf) - 1);
	buf[1 + 6] = IL_FRAME_EVENT;
	rc |= write_seed(frame, "bad-event-length", buf, n);

	/* Truncated event: INCOMPLETE at the end of the stream. */
	buf[0] = 0;
	fill(&m, 4);
	il_frame_encode_event(&m, buf + 1);
	rc |= write_seed(frame, "truncated-event", buf, 1 + IL_FRAME_EVENT_LEN / 2);

	/* evdev: a click as the injector writes it, press then release. */
	put_ev(&ev[0], EV_KEY, BTN_LEFT, 1);
	put_ev(&ev[1], EV_SYN, SYN_REPORT, 0);
	rc |= write_seed(evdev, "press", ev, 2 * sizeof(ev[0]));
	put_ev(&ev[2], EV_KEY, BTN_LEFT, 0);
	put_ev(&ev[3], EV_SYN, SYN_REPORT, 0);
	rc |= write_seed(evdev, "click", ev, 4 * sizeof(ev[0]));
	/* Motion between clicks, an unknown code, and a half record at the end. */
	put_ev(&ev[0], EV_REL, REL_X, 5);
	put_ev(&ev[1], EV_SYN, SYN_REPORT, 0);
	put_ev(&ev[2], EV_KEY, BTN_LEFT, 1);
	put_ev(&ev[3], 0x1f, 0x3ff, 1);
	put_ev(&ev[4], EV_SYN, SYN_REPORT, 0);
	put_ev(&ev[5], EV_KEY, BTN_LEFT, 1);
	put_ev(&ev[6], EV_SYN, SYN_REPORT, 0);
	rc |=
	    write_seed(evdev, "motion-unknown-partial", ev, 7 * sizeof(ev[0]) + sizeof(ev[0]) / 2);
	return rc ? 1 : 0;
}
