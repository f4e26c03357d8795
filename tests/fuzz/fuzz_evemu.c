/*
 * Fuzz target: the evemu-record reader of `inputlat run --input
 * replay:FILE` (il_input_replay.c), a text file anybody may have
 * recorded. The input is the file's contents, a memfd read through
 * /proc/self/fd/N as a path, and goes through il_evemu_parse, then
 * il_input_check_replay and il_input_replay_span as the run's preflight
 * calls them. A recording that parses keeps its time in order, holds no
 * more events than lines, and has no more clicks than press and
 * SYN_REPORT pairs; the two replay calls agree on whether it can be
 * replayed, and a refusal says so.
 */
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_input.h"
#include "il_input_backend.h"

int il_fuzz_evemu(const uint8_t *data, size_t size)
{
	struct il_input_spec spec = {.kind = IL_INPUT_REPLAY};
	struct il_replay_span span;
	struct il_evemu *rec = NULL;
	const char *input_path;
	char err[512], err2[512];
	size_t lines = 1;
	int rc, check, span_rc;

	if (size > IL_FUZZ_MAX_INPUT)
		size = IL_FUZZ_MAX_INPUT;
	if (!(input_path = il_fuzz_as_file(data, size)))
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';

	err[0] = '\0';
	rc = il_evemu_parse(input_path, &rec, err, sizeof(err));
	IL_FUZZ_CHECK(rc <= 0);
	IL_FUZZ_CHECK((rc == 0) == (rec != NULL));
	IL_FUZZ_CHECK(rc == 0 || (err[0] && !strchr(err, '\n')));
	if (rec) {
		IL_FUZZ_CHECK(rec->n_events <= lines);
		for (size_t i = 1; i < rec->n_events; i++)
			IL_FUZZ_CHECK(rec->events[i].time_us >= rec->events[i - 1].time_us);
		IL_FUZZ_CHECK(memchr(rec->name, '\0', sizeof(rec->name)) != NULL);
		IL_FUZZ_CHECK(!strpbrk(rec->name, "\r\n"));
	}

	snprintf(spec.arg, sizeof(spec.arg), "%s", input_path);
	err2[0] = '\0';
	check = il_input_check_replay(&spec, err2, sizeof(err2));
	IL_FUZZ_CHECK(check <= 0);
	IL_FUZZ_CHECK(check == 0 || (err2[0] && !strchr(err2, '\n')));
	/* What parses is what the run's checks read. */
	IL_FUZZ_CHECK(rc == 0 || check < 0);
	memset(&span, 0, sizeof(span));
	span_rc = il_input_replay_span(&spec, 1000000, UINT64_MAX, &span, err2, sizeof(err2));
	/* The span refuses only what it cannot count (-ERANGE), and no
	 * recording's times reach that with a first delay of 1 ms. */
	IL_FUZZ_CHECK((span_rc == 0) == (check == 0));
	if (span_rc == 0) {
		IL_FUZZ_CHECK(span.span_ns >= 1000000 && span.span_ns <= IL_REPLAY_SPAN_MAX_NS);
		/* A click is a BTN_LEFT 1 closed by a SYN_REPORT. */
		IL_FUZZ_CHECK(span.clicks >= 1 && rec && span.clicks * 2 <= rec->n_events);
		IL_FUZZ_CHECK(span.longest_gap_before <= span.clicks);
	}
	il_evemu_free(rec);
	return 0;
}

IL_FUZZ_ENTRY(il_fuzz_evemu)
