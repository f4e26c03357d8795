/*
 * Fuzz target: the evdev record decoder of the synthetic source. The input
 * is written into a pipe as if by the orchestrator, the write end closed,
 * and browser-sim's reader (il_input_reader_open, IL_INPUT_SYNTHETIC)
 * dispatches until end of input. Presses and invalid records can never
 * outnumber the whole records written.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdlib.h>
#include <unistd.h>

#include "il_fuzz.h"
#include "il_input.h"

static void press_cb(void *ctx, uint64_t kernel_ns)
{
	(*(uint64_t *)ctx)++;
}

int il_fuzz_evdev(const uint8_t *data, size_t size)
{
	struct il_input_spec spec = {.kind = IL_INPUT_SYNTHETIC};
	struct il_input_reader *r = NULL;
	uint64_t presses = 0, records;
	char err[256];
	int fds[2], rc, rounds = 0;

	/* One write below the pipe's capacity never blocks. */
	if (size > IL_FUZZ_MAX_INPUT)
		size = IL_FUZZ_MAX_INPUT;
	records = size / sizeof(struct input_event);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;
	if (size && write(fds[1], data, size) != (ssize_t)size) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	close(fds[1]);
	rc = il_input_reader_open(&spec, fds[0], &r, err, sizeof(err));
	if (rc < 0) {
		close(fds[0]);
		return 0;
	}
	IL_FUZZ_CHECK(il_input_reader_fd(r) == fds[0]);
	do {
		rc = il_input_reader_dispatch(r, press_cb, &presses);
		IL_FUZZ_CHECK(rc == 0 || rc == -EPIPE);
		/* Everything is in the pipe already: one call reads it all. */
		IL_FUZZ_CHECK(++rounds <= 2);
	} while (rc != -EPIPE);
	/* A press needs two records: BTN_LEFT 1 and SYN_REPORT. */
	IL_FUZZ_CHECK(presses * 2 <= records);
	IL_FUZZ_CHECK(il_input_reader_invalid_events(r) <= records);
	il_input_reader_free(r);
	return 0;
}

IL_FUZZ_ENTRY(il_fuzz_evdev)
