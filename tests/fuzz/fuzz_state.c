/*
 * Fuzz target: the files a dead run leaves for the next start to act on,
 * read back after a crash: the knob state file (il_knobs_state_parse, the
 * originals `inputlat restore` and the next run write back as root), the
 * knob lock file (il_knobs_lock_parse, which names the state file) and a
 * background load's state file (il_background_state_parse, which names
 * the process group the next start kills). The input is each file's text;
 * it goes through all three parsers, and none acts on it.
 *
 * What parses may be acted on, so it must be what the writers write: a
 * state file names only knobs a run may change (the RT bandwidth sysctls,
 * a cgroup's cpu.rt_runtime_us, the fair server's runtime and period),
 * each with a number to write back; pids are real pids; a background
 * cookie is one of ours or none; every string fits its buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "il_background.h"
#include "il_fuzz.h"
#include "il_knobs.h"
#include "il_parse.h"

/* What knob_path_allowed (il_knobs.c) lets through, said another way. */
static int knob_path_ok(const char *p)
{
	static const char *const exact[] = {IL_SYSINFO_RT_RUNTIME, IL_SYSINFO_RT_PERIOD};
	const char *fs = IL_SYSINFO_FAIR_SERVER "/cpu", *cg = "/sys/fs/cgroup/";

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(p, exact[i]))
			return 1;
	if (strstr(p, "/../") || strstr(p, "/./"))
		return 0;
	if (!strncmp(p, cg, strlen(cg))) {
		const char *end = strrchr(p, '/');
		return end && !strcmp(end, "/cpu.rt_runtime_us");
	}
	if (!strncmp(p, fs, strlen(fs))) {
		const char *end = strrchr(p, '/');
		return end && (!strcmp(end, "/runtime") || !strcmp(end, "/period"));
	}
	return 0;
}

static int check_knobs(const char *text)
{
	static struct il_knob_change ch[IL_KNOBS_MAX_CHANGES];
	uint64_t ticks = 0;
	long pid = 0;
	size_t n = 0;
	int rc = il_knobs_state_parse(text, &pid, &ticks, ch, &n);

	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc)
		return 0;
	IL_FUZZ_CHECK(pid >= 1 && pid <= INT_MAX);
	IL_FUZZ_CHECK(n <= IL_KNOBS_MAX_CHANGES);
	for (size_t i = 0; i < n; i++) {
		int64_t v;

		IL_FUZZ_CHECK(memchr(ch[i].path, '\0', sizeof(ch[i].path)));
		IL_FUZZ_CHECK(memchr(ch[i].original, '\0', sizeof(ch[i].original)));
		IL_FUZZ_CHECK(memchr(ch[i].applied, '\0', sizeof(ch[i].applied)));
		IL_FUZZ_CHECK(knob_path_ok(ch[i].path));
		IL_FUZZ_CHECK(il_parse_i64(ch[i].original, INT64_MIN, INT64_MAX, &v) == 0);
	}
	return 0;
}

static int check_lock(const char *text)
{
	char state_file[256];
	uint64_t ticks = 0;
	long pid = 0;
	int rc = il_knobs_lock_parse(text, &pid, &ticks, state_file, sizeof(state_file));

	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		IL_FUZZ_CHECK(pid >= 1 && pid <= INT_MAX);
		IL_FUZZ_CHECK(memchr(state_file, '\0', sizeof(state_file)));
	}
	return 0;
}

static int check_background(const char *text)
{
	struct il_background_state st;
	int rc = il_background_state_parse(text, &st);

	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc == 0) {
		IL_FUZZ_CHECK(st.pid >= 1 && st.pgid >= 1);
		IL_FUZZ_CHECK(memchr(st.command, '\0', sizeof(st.command)));
		IL_FUZZ_CHECK(st.cookie[0] == '\0' ||
			      (strlen(st.cookie) == strlen("IL_BACKGROUND=") + 16 &&
			       !strncmp(st.cookie, "IL_BACKGROUND=", 14)));
	}
	return 0;
}

int il_fuzz_state(const uint8_t *data, size_t size)
{
	char *text;
	int rc;

	/* The readers read a file into a buffer and NUL-terminate it. */
	text = il_fuzz_copy(data, &size, true);
	if (!text)
		return 0;
	rc = check_knobs(text);
	if (rc == 0)
		rc = check_lock(text);
	if (rc == 0)
		rc = check_background(text);
	free(text);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_state)
