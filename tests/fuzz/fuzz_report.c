/*
 * Fuzz target: the readers of run reports (`inputlat run --json`). The
 * input is one report, or several split on a line "%%" (REPORT_SEP), each
 * the contents of a memfd read through /proc/self/fd/N as a path, and goes
 * through the verbs that read reports, called in-process as main.c calls
 * them: `explain` (il_json_load, il_header_version_check, il_report_sane,
 * il_explain_run; with two reports il_comparable_* and
 * il_explain_compare), `compare` (add_report's checks, il_round_latency,
 * the statistics over rounds or over events) and `reproduce` with
 * IL_REPRODUCE_REPORTS (load_scenario, il_repro_recorded_check, the
 * claims' judging), the reports its recorded runs, one a scenario. With
 * two parts or more, the second is also the first report's `--records`
 * file for `explain --event N --records` (find_record, record_of_run and
 * the line's checks), N the first event id it holds.
 *
 * Every verb must end with an exit code it documents; one that refuses
 * (2) says so in one line on stderr (compare's "warning:" lines aside),
 * and nothing a report holds reaches the terminal as a control byte.
 * stdout and stderr go to a memfd while a verb runs (swapping glibc's FILE
 * pointers, as fuzz_cli does); libFuzzer and the sanitizers keep fd 2.
 */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "il_cmd.h"
#include "il_fuzz.h"

#define REPORT_SEP "\n%%\n"
/* reproduce takes one a scenario; compare and explain the first four. */
#define MAX_REPORTS 9
/* reproduce's scenario ids, in its order (cmd_reproduce.c setup_scenarios). */
static const char *const scenario_ids[] = {
    "c1-cfs", "c1-rt",		 "c1-chromeos",	      "c1-chromeos-rt",	   "c2-rt",
    "c2-cfs", "c3-rt-throttled", "c3-rt-fair-server", "c4-rt-fair-server",
};
#define NSCEN (sizeof(scenario_ids) / sizeof(scenario_ids[0]))
_Static_assert(NSCEN == MAX_REPORTS, "one report a scenario");

static int report_fd[MAX_REPORTS] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
static char report_path[MAX_REPORTS][64];
/* reproduce's directory of recorded runs, PREFIX<pid>. */
#define RECORDED_PREFIX "/tmp/il-fuzz-report."
static char recorded_dir[64];
static FILE *out_file, *err_file;

static void remove_dir(const char *dir)
{
	char path[128];

	for (size_t i = 0; i < NSCEN; i++) {
		snprintf(path, sizeof(path), "%s/%s.0.json", dir, scenario_ids[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void remove_recorded(void)
{
	if (recorded_dir[0])
		remove_dir(recorded_dir);
	recorded_dir[0] = '\0';
}

/*
 * A fuzzer that crashed (abort, a sanitizer's report) ends without atexit:
 * the directories of fuzzers no longer alive (their pid in the name) go
 * when the next one starts.
 */
static void remove_dead(void)
{
	glob_t g;

	if (glob(RECORDED_PREFIX "*", GLOB_NOSORT, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *end;
		long pid = strtol(g.gl_pathv[i] + strlen(RECORDED_PREFIX), &end, 10);

		if (pid > 0 && !*end && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			remove_dir(g.gl_pathv[i]);
	}
	globfree(&g);
}

/* The memfds, the output captures and reproduce's directory, made once. */
static int setup(void)
{
	static int done;

	if (done)
		return done > 0 ? 0 : -1;
	done = -1;
	for (int i = 0; i < MAX_REPORTS; i++) {
		report_fd[i] = memfd_create("il-fuzz-report", MFD_CLOEXEC);
		if (report_fd[i] < 0)
			return -1;
		snprintf(report_path[i], sizeof(report_path[i]), "/proc/self/fd/%d", report_fd[i]);
	}
	out_file = fdopen(memfd_create("il-fuzz-report-out", MFD_CLOEXEC), "w+");
	err_file = fdopen(memfd_create("il-fuzz-report-err", MFD_CLOEXEC), "w+");
	remove_dead();
	snprintf(recorded_dir, sizeof(recorded_dir), RECORDED_PREFIX "%ld", (long)getpid());
	remove_dir(recorded_dir); /* a dead one's, of a pid used again */
	if (!out_file || !err_file || mkdir(recorded_dir, 0700) < 0) {
		recorded_dir[0] = '\0';
		return -1;
	}
	/* The directory is the fuzzer's, not left behind when it ends. */
	atexit(remove_recorded);
	done = 1;
	return 0;
}

static int put(int fd, const uint8_t *data, size_t size)
{
	return ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size ? 0 : -1;
}

static int put_path(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "we");
	int rc = 0;

	if (!f)
		return -1;
	if (size && fwrite(data, 1, size, f) != size)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* What a verb wrote to f since it was rewound, NUL-terminated (static). */
static const char *captured(FILE *f, size_t *len)
{
	static char *buf;
	static size_t cap;
	long n;

	fflush(f);
	n = ftell(f);
	if (n < 0)
		n = 0;
	if ((size_t)n + 1 > cap) {
		free(buf);
		cap = (size_t)n + 1;
		buf = malloc(cap);
		if (!buf) {
			cap = 0;
			*len = 0;
			return "";
		}
	}
	rewind(f);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	return buf;
}

/* No byte of a report reaches a terminal as a control sequence. */
static int printable(const char *text, size_t len, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
			fprintf(stderr, "fuzz_report: %s: control byte 0x%02x at %zu: %.200s\n",
				what, c, i, text);
			return -1;
		}
	}
	return 0;
}

/* A refusal is one line (compare's warnings, each a line of its own, aside). */
static int one_line(const char *text, const char *verb)
{
	int lines = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		/* "compare: warning: ...", not a report's key that holds the words. */
		if (len < strlen(verb) + 11 || strncmp(p, verb, strlen(verb)) ||
		    strncmp(p + strlen(verb), ": warning: ", 11))
			lines++;
		p += len + (nl != NULL);
	}
	if (lines != 1) {
		fprintf(stderr, "fuzz_report: %s refused in %d lines, not one:\n%s", verb, lines,
			text);
		return -1;
	}
	return 0;
}

/*
 * Runs one verb (its arguments up to a NULL) with its output captured, and
 * checks its exit code is one of codes (a string of digits), its output
 * printable and a refusal (2) one line.
 */
static int verb(int (*fn)(int, char **), const char *codes, ...)
{
	char *argv[16];
	int argc = 0;
	clock_t t0;
	FILE *out = stdout, *err = stderr;
	const char *text;
	size_t len;
	va_list ap;
	int rc;

	va_start(ap, codes);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	rewind(out_file);
	rewind(err_file);
	fflush(stdout);
	stdout = out_file;
	stderr = err_file;
	t0 = clock();
	rc = fn(argc, argv);
	t0 = clock() - t0;
	stdout = out;
	stderr = err;
	if (rc < 0 || rc > 9 || !strchr(codes, '0' + rc)) {
		text = captured(err_file, &len);
		fprintf(stderr, "fuzz_report: %s exit %d, not one of %s: %.300s\n", argv[0], rc,
			codes, text);
		return -1;
	}
	text = captured(out_file, &len);
	if (printable(text, len, "stdout") < 0)
		return -1;
	text = captured(err_file, &len);
	/* To see what each verb said of an input: IL_FUZZ_REPORT_SHOW=1. */
	if (getenv("IL_FUZZ_REPORT_SHOW"))
		fprintf(stderr, "fuzz_report: %s exit %d in %.1f ms: %s", argv[0], rc,
			1e3 * (double)t0 / CLOCKS_PER_SEC, text);
	if (printable(text, len, "stderr") < 0)
		return -1;
	if (rc == 2 && fn != il_cmd_reproduce && one_line(text, argv[0]) < 0)
		return -1;
	return 0;
}

/* The parts of the input between separators, at most MAX_REPORTS. */
static size_t split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len)
{
	size_t n = 0, sep = strlen(REPORT_SEP);

	while (n < MAX_REPORTS - 1) {
		const uint8_t *s = memmem(data, size, REPORT_SEP, sep);

		if (!s)
			break;
		part[n] = data;
		len[n++] = (size_t)(s - data);
		size -= (size_t)(s - data) + sep;
		data = s + sep;
	}
	part[n] = data;
	len[n++] = size;
	return n;
}

static char *P(size_t i)
{
	return report_path[i];
}

/*
 * The first event id a --records file holds ("id": N, as its lines start),
 * in buf; "1" when there is none, so that the records are read anyway.
 */
static char *first_id(const uint8_t *data, size_t size, char *buf, size_t n)
{
	const uint8_t *p = data, *end = data + size;

	snprintf(buf, n, "1");
	while ((p = memmem(p, (size_t)(end - p), "\"id\"", 4)) != NULL) {
		size_t k = 0;

		p += 4;
		while (p < end && (*p == ' ' || *p == ':'))
			p++;
		while (p + k < end && k < 19 && k + 1 < n && p[k] >= '0' && p[k] <= '9')
			k++;
		if (k) {
			memcpy(buf, p, k);
			buf[k] = '\0';
			break;
		}
	}
	return buf;
}

int il_fuzz_report(const uint8_t *data, size_t size)
{
	const uint8_t *part[MAX_REPORTS];
	size_t len[MAX_REPORTS], n;
	char list_a[160], list_b[160], path[128], id[24];
	unsigned pick = 0;
	int ret = 0;

	if (size > IL_FUZZ_MAX_INPUT)
		size = IL_FUZZ_MAX_INPUT;
	if (setup() < 0)
		return 0;
	n = split(data, size, part, len);
	for (size_t i = 0; i < n; i++)
		if (put(report_fd[i], part[i], len[i]) < 0)
			return 0;
	/* With one report, compare and explain get it twice (another file):
	 * compare refuses a run against itself only after reading both. */
	if (n == 1 && put(report_fd[1], part[0], len[0]) < 0)
		return 0;
	/* Which options ride along: a function of the input, so a crash replays. */
	for (size_t i = 0; i < size; i++)
		pick = pick * 31 + data[i];

	switch (pick % 4) {
	case 0:
		ret = verb(il_cmd_explain, "02", "explain", P(0), NULL);
		break;
	case 1:
		ret = verb(il_cmd_explain, "02", "explain", "--json", P(0), NULL);
		break;
	case 2:
		ret = verb(il_cmd_explain, "02", "explain", "--worst", "3", P(0), NULL);
		break;
	default:
		ret = verb(il_cmd_explain, "02", "explain", "--percentile", "99.9", P(0), NULL);
		break;
	}
	/* One report alone is compared with its copy once: refused as a run
	 * against itself, after both were read. */
	if (ret == 0 && n > 1)
		ret = verb(il_cmd_explain, "02", "explain", P(0), P(1), NULL);
	/* The second part as the first report's records: an event the report
	 * did not keep is looked up there. */
	if (ret == 0 && n > 1)
		ret =
		    verb(il_cmd_explain, "02", "explain", "--event",
			 first_id(part[1], len[1], id, sizeof(id)), "--records", P(1), P(0), NULL);
	/* One run a side (events resampled), then rounds. */
	if (ret == 0)
		ret = verb(il_cmd_compare, "02", "compare", "--resamples", "200", "--unit", "event",
			   P(0), P(1), NULL);
	if (ret == 0 && n > 1)
		ret = verb(il_cmd_compare, "02", "compare", "--unit", "round", P(0), P(1), NULL);
	if (ret == 0 && n >= 3) {
		snprintf(list_a, sizeof(list_a), "%s,%s", P(0), P(1));
		snprintf(list_b, sizeof(list_b), "%s%s%s", P(2), n > 3 ? "," : "",
			 n > 3 ? P(3) : "");
		ret = verb(il_cmd_compare, "02", "compare", list_a, list_b, NULL);
	}
	if (ret == 0 && pick % 3 == 0)
		ret = verb(il_cmd_compare, "02", "compare", "--metric", "ratio:hog.idle_waste_pct",
			   P(0), P(1), NULL);
	/* reproduce judges recorded runs: report i is scenario i's round 0. */
	if (ret == 0) {
		for (size_t i = 0; i < NSCEN; i++) {
			snprintf(path, sizeof(path), "%s/%s.0.json", recorded_dir, scenario_ids[i]);
			if (i < n) {
				if (put_path(path, part[i], len[i]) < 0)
					return 0;
			} else {
				unlink(path);
			}
		}
		setenv("IL_REPRODUCE_REPORTS", recorded_dir, 1);
		ret = verb(il_cmd_reproduce, "012", "reproduce", "--rounds", "1", NULL);
		unsetenv("IL_REPRODUCE_REPORTS");
	}
	return ret;
}

IL_FUZZ_ENTRY(il_fuzz_report)
