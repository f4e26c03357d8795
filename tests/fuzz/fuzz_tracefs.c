/*
 * Fuzz target: a tracepoint's id file (events/GROUP/NAME/id) through
 * il_tracefs_id_parse, as il_tracefs_event_ids reads it (at most 15
 * bytes; longer inputs are also tried whole). An id is what BPF attaches
 * to, so a parsed id must be the kernel's text for it: the input is
 * exactly "%d\n" or "%d" of the id, in [1, INT_MAX].
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_tracefs.h"

static int check(const char *text, size_t n)
{
	char want[16];
	int id = il_tracefs_id_parse(text, n), w;

	IL_FUZZ_CHECK(id == -EIO || id >= 1);
	if (id < 0)
		return 0;
	w = snprintf(want, sizeof(want), "%d\n", id);
	IL_FUZZ_CHECK((size_t)w == n || (size_t)w - 1 == n);
	IL_FUZZ_CHECK(memcmp(text, want, n) == 0);
	return 0;
}

int il_fuzz_tracefs(const uint8_t *data, size_t size)
{
	char *copy;
	int rc;

	copy = il_fuzz_copy(data, &size, false);
	if (!copy)
		return 0;
	rc = check(copy, size < 15 ? size : 15);
	if (rc == 0)
		rc = check(copy, size);
	free(copy);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_tracefs)
