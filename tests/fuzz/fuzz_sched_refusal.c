/*
 * Fuzz target: /proc/thread-self/cgroup as policies/il_sched_refusal.c
 * reads it to find the thread's cgroup-v1 cpu group (whose RT runtime
 * explains a refused fifo/rr), through il_sched_refusal_cpu_group with the
 * buffers its caller and a short one use. The input is the file's text.
 *
 * A group that parses is what the kernel wrote: an absolute path from the
 * one whole line whose controllers include cpu, never the rest of a long
 * line, nor a prefix of a path too long for the buffer.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_sched_refusal.h"

/* How many lines are "ID:CONTROLLERS:path" with cpu among the controllers. */
static int cpu_lines(const char *text, size_t n, const char *path)
{
	const char *p = text, *end = text + n;
	size_t plen = strlen(path);
	int count = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		const char *c1 = memchr(p, ':', (size_t)(eol - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;

		if (c2 && (size_t)(eol - c2 - 1) == plen && !memcmp(c2 + 1, path, plen)) {
			char list[1024];
			size_t l = (size_t)(c2 - c1 - 1);

			if (l < sizeof(list) - 2) {
				snprintf(list, sizeof(list), ",%.*s,", (int)l, c1 + 1);
				count += strstr(list, ",cpu,") != NULL;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return count;
}

static int check(const char *text, size_t n, size_t len)
{
	static char path[PATH_MAX];
	int rc = il_sched_refusal_cpu_group(text, n, path, len);

	IL_FUZZ_CHECK(rc == 0 || rc == -ENOENT || rc == -EINVAL || rc == -ENAMETOOLONG);
	if (rc)
		return 0;
	IL_FUZZ_CHECK(path[0] == '/' && strlen(path) < len);
	if (cpu_lines(text, n, path) != 1) {
		fprintf(stderr, "sched_refusal: group %s from no single whole cpu line\n", path);
		return -1;
	}
	return 0;
}

int il_fuzz_sched_refusal(const uint8_t *data, size_t size)
{
	char *text;
	int rc;

	text = il_fuzz_copy(data, &size, false);
	if (!text)
		return 0;
	rc = check(text, size, PATH_MAX);
	if (rc == 0)
		rc = check(text, size, 16);
	free(text);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_sched_refusal)
