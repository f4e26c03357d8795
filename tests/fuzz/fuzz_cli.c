/*
 * Fuzz target: every parser of command-line text. The input, NUL
 * terminated, goes through il_parse_u64/i64/double (with bounds taken from
 * its first bytes), il_input_spec_parse and il_present_spec_parse; then it
 * is split on NUL and newline into the arguments of `inputlat run`
 * (argv[0] = "run") for il_run_opts_parse. That one prints to stderr (and
 * --help to stdout): both point at /dev/null while it runs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_input.h"
#include "il_parse.h"
#include "il_present.h"
#include "il_run_opts.h"

/* More arguments than `run` has options, so repeated options are tried too. */
#define MAX_ARGS 64

static uint64_t bound(const uint8_t *data, size_t size, size_t at)
{
	uint64_t v = 0;

	if (size >= at + 8)
		memcpy(&v, data + at, 8);
	return v;
}

static int check_numbers(const char *s, const uint8_t *data, size_t size)
{
	uint64_t umin = bound(data, size, 0), umax = bound(data, size, 8), u = 7;
	int64_t imin = (int64_t)umin, imax = (int64_t)umax, i = 7;
	double d = 7;
	int rc;

	/* What parses is plain decimal: no space, hex, inf or nan, and no sign
	 * but that of "-0", which is 0 (il_parse_u64; test_parse). */
	rc = il_parse_u64(s, 0, UINT64_MAX, &u);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(s[0] &&
			      (s[0] == '-' ? s[1] && s[1 + strspn(s + 1, "0")] == '\0' && u == 0
					   : s[strspn(s, "0123456789")] == '\0'));
	rc = il_parse_u64(s, umin, umax, &u);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(u >= umin && u <= umax);

	rc = il_parse_i64(s, INT64_MIN, INT64_MAX, &i);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(s[s[0] == '-'] &&
			      s[(s[0] == '-') + strspn(s + (s[0] == '-'), "0123456789")] == '\0');
	rc = il_parse_i64(s, imin, imax, &i);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(i >= imin && i <= imax);

	rc = il_parse_double(s, -1e300, 1e300, &d);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0) {
		IL_FUZZ_CHECK(isfinite(d) && d >= -1e300 && d <= 1e300);
		IL_FUZZ_CHECK(s[strspn(s, "0123456789.eE+-")] == '\0');
	}
	rc = il_parse_double(s, 0.0, 1.0, &d);
	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc == 0)
		IL_FUZZ_CHECK(d >= 0.0 && d <= 1.0);
	return 0;
}

/* A spec that parses formats to text that parses to the same spec. */
static int check_specs(const char *s)
{
	struct il_input_spec in, in2;
	struct il_present_spec pr, pr2;
	char err[512], text[512];

	err[0] = '\0';
	if (il_input_spec_parse(s, &in, err, sizeof(err)) == 0) {
		il_input_spec_format(&in, text, sizeof(text));
		IL_FUZZ_CHECK(il_input_spec_parse(text, &in2, err, sizeof(err)) == 0);
		IL_FUZZ_CHECK(in2.kind == in.kind && strcmp(in2.arg, in.arg) == 0);
	} else {
		IL_FUZZ_CHECK(err[0] != '\0');
	}
	err[0] = '\0';
	if (il_present_spec_parse(s, &pr, err, sizeof(err)) == 0) {
		il_present_spec_format(&pr, text, sizeof(text));
		IL_FUZZ_CHECK(il_present_spec_parse(text, &pr2, err, sizeof(err)) == 0);
		IL_FUZZ_CHECK(pr2.kind == pr.kind && strcmp(pr2.device, pr.device) == 0);
	} else {
		IL_FUZZ_CHECK(err[0] != '\0');
	}
	return 0;
}

/* IL_FUZZ_CHECK that frees the arguments: `ret` is -1 until all passed. */
#define IL_FUZZ_CHECK_OUT(cond)                                                                    \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

static FILE *devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "we");
	return f;
}

/*
 * Runs il_run_opts_parse with its output thrown away. glibc's stdout and
 * stderr are plain variables (the glibc manual says so), and swapping the
 * FILE pointers costs no syscall; libFuzzer and the sanitizers keep their
 * own handle and fd 2, so their reports still arrive.
 */
static int check_run_opts(const char *s, size_t len)
{
	char *argv[MAX_ARGS + 1];
	char good0[] = "run", good1[] = "--events=5", good2[] = "--load=2";
	char *good[] = {good0, good1, good2, NULL};
	int argc = 0, rc, rc2, ret = 0;
	size_t start = 0;
	struct il_run_opts o, o2;
	FILE *out = stdout, *err = stderr, *null = devnull();

	argv[argc++] = strdup("run");
	/* Every argument is an allocation of its own, so a parser that reads
	 * past an argument's NUL trips ASan. */
	for (size_t i = 0; i <= len && argc < MAX_ARGS; i++) {
		if (i == len || s[i] == '\0' || s[i] == '\n') {
			argv[argc++] = strndup(s + start, i - start);
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	for (int i = 0; i < argc; i++)
		if (!argv[i])
			goto out;
	if (null) {
		fflush(stdout);
		stdout = null;
		stderr = null;
	}
	rc = il_run_opts_parse(argc, argv, &o);
	/* Whatever the input did, the next parse must start afresh (getopt
	 * keeps state between calls): the CLI test tables parse many command
	 * lines in one process. */
	rc2 = il_run_opts_parse(3, good, &o2);
	stdout = out;
	stderr = err;
	ret = -1;
	IL_FUZZ_CHECK_OUT(rc2 == 0 && o2.events == 5 && o2.load_threads == 2);
	IL_FUZZ_CHECK_OUT(rc == 0 || rc == 1 || rc == 2);
	if (rc == 0) {
		IL_FUZZ_CHECK_OUT(o.events > 0 || o.duration_ms > 0);
		IL_FUZZ_CHECK_OUT(o.interval_us >= 100 && o.timeout_ms >= 1);
		IL_FUZZ_CHECK_OUT(o.policy[0] != '\0');
	}
	ret = 0;
out:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return ret;
}

int il_fuzz_cli(const uint8_t *data, size_t size)
{
	char *s;
	int ret;

	/* Command lines are short; long inputs only slow getopt down. */
	if (size > 4096)
		size = 4096;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	ret = check_numbers(s, data, size);
	if (ret == 0)
		ret = check_specs(s);
	if (ret == 0)
		ret = check_run_opts(s, size);
	free(s);
	return ret;
}

IL_FUZZ_ENTRY(il_fuzz_cli)
