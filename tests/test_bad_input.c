/*
 * Bad input (issue 8): a table of mistakes a user can make on the command
 * line, in a policy file, in a state file left for `inputlat restore` and
 * in the JSON given to `inputlat compare`. Each one must end in its exit
 * code with exactly one line on stderr that starts with the pinned words,
 * nothing on stdout, no signal, no hang and no system knob changed.
 *
 * Also here: outputs never follow symlinks, and files the harness writes
 * are 0644 whatever the umask or a file left in their place.
 *
 * Inputs live in tests/data/bad/ (@D in the table); what cannot be checked
 * in (directories, symlinks, modes, owners) is made in a temporary
 * directory (@T). State-file cases point IL_STATE_DIR at their own
 * directory, so the machine's /run/inputlat is never touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

#define CASE_TIMEOUT_MS 10000
#define MAX_ARGS	12

/* What a case needs made before it runs, beyond the files in @D. */
enum prep {
	PREP_NONE,
	PREP_DIR,	     /* @T/dir.policy is a directory */
	PREP_STATE,	     /* @T/<case>/knobs.state = @D/<file>, mode 0600 */
	PREP_STATE_0666,     /* the same, mode 0666 */
	PREP_STATE_OWNER,    /* the same, owned by nobody (needs root) */
	PREP_STATE_LINK,     /* @T/<case>/knobs.state -> @T/<case>/target */
	PREP_STATE_EMPTY,    /* an empty knobs.state */
	PREP_STATE_DIR_0777, /* the state directory itself is world-writable */
};

struct bad_case {
	const char *name;
	const char *argv[MAX_ARGS]; /* after "inputlat"; @D, @T and @S are expanded */
	enum prep prep;
	const char *file; /* the @D file PREP_STATE* copies */
	int exit_code;
	const char *first; /* the exact start of the one stderr line, expanded too */
};

/*
 * The messages are pinned as the harness prints them today; a case whose
 * message should change says so in a comment and in the report.
 */
static const struct bad_case cases[] = {
    /* --- run: command-line options ----------------------------------- */
    {"run --events abc",
     {"run", "--events", "abc"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --events: 'abc' is not a number"},
    /* A negative number is a number, out of range. */
    {"run --events -1",
     {"run", "--events", "-1"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --events: -1 is out of range (0..10000000)"},
    {"run --events 2^66",
     {"run", "--events", "99999999999999999999"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --events: 99999999999999999999 is out of range (0..10000000)"},
    /* A directory that is there but takes no new files: it read "No
     * such file or directory". */
    {"run --json in /proc",
     {"run", "--json", "/proc/self/mem"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --json /proc/self/mem: its directory takes no new files (it is in /proc)"},
    {"run --interval-ms 0",
     {"run", "--interval-ms", "0"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --interval-ms: 0 is out of range (0.1..600000)"},
    {"run --bound-ms 999",
     {"run", "--bound-ms", "999"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --bound-ms: 999 is out of range (1000..86400000)"},
    {"run --timeout-ms x",
     {"run", "--timeout-ms", "x"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --timeout-ms: 'x' is not a number"},
    {"run --work nope=1",
     {"run", "--work", "nope=1"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --work: unknown role 'nope' (use evdev, ui, io, compositor, main, gpu, drm"},
    {"run --work ui=-5",
     {"run", "--work", "ui=-5"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --work: '-5' is not a number of microseconds (0..1000000)"},
    {"run --work ui",
     {"run", "--work", "ui"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --work: expected ROLE=US or none, got 'ui'"},
    {"run --work-model cpu",
     {"run", "--work-model", "cpu"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --work-model: unknown model 'cpu' (use cpu-time or loops)"},
    {"run --work-model (empty)",
     {"run", "--work-model", ""},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --work-model: unknown model '' (use cpu-time or loops)"},
    {"run --hog-mode lazy",
     {"run", "--hog-mode", "lazy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-mode: unknown mode 'lazy' (use js, js-bursty, busy or bursty)"},
    {"run --hog 0",
     {"run", "--hog", "0"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog: 0 is out of range (1..1024)"},
    /* --hog's value is optional; a separate "-1" is still its value
     * ("unknown option '-1'" before). */
    {"run --hog -1",
     {"run", "--hog", "-1"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog: -1 is out of range (1..1024)"},
    {"run --load abc",
     {"run", "--load", "abc"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --load: 'abc' is not a number"},
    {"run --input bogus",
     {"run", "--input", "bogus"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --input: unknown source 'bogus' (use synthetic, uinput, "
     "evdev:/dev/input/eventN or replay:FILE)"},
    /* A replay plays its recorded spacing: a day's gap is refused up front
     * (it ran into the watchdog after 21 s and wrote nothing). */
    {"run replay longer than any bound",
     {"run", "--warmup", "0", "--events", "2", "--input", "replay:@D/day-gap.evemu"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/day-gap.evemu: its 2 clicks take 99999 s to play; its longest gap, "
     "99999.0 s, comes before click 2, and the run would need "},
    {"run replay longer than --bound-ms",
     {"run", "--warmup", "0", "--events", "2", "--bound-ms", "60000", "--input",
      "replay:@D/day-gap.evemu"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --bound-ms 60000 is shorter than the 99999.0 s that @D/day-gap.evemu's 2 "
     "clicks take to play; its longest gap, 99999.0 s, comes before click 2"},
    {"run --input evdev:",
     {"run", "--input", "evdev:"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --input: 'evdev:' needs a path after the colon"},
    {"run --present vga",
     {"run", "--present", "vga"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --present: unknown back end 'vga' (use sim or drm[:/dev/dri/cardN])"},
    {"run --policy nope",
     {"run", "--policy", "nope"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: unknown policy 'nope' (built-ins: cfs, cfs-chrome, chromeos, chromeos-rt, "
     "deadline, eevdf-slice, rt, rt-fair-server, rt-throttled)"},
    {"run --lock spin",
     {"run", "--lock", "spin"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --lock: unknown lock 'spin' (use pthread, adaptive-np, il-none or il-bpf)"},
    {"run --bogus",
     {"run", "--bogus"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: unknown option '--bogus' (see inputlat run --help)"},
    /* getopt_long takes a unique prefix: one of several is named so. */
    {"run --w (ambiguous)",
     {"run", "--w", "3"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: ambiguous option '--w' (--warmup, --work, --work-model) (see inputlat run "
     "--help)"},
    {"run extra",
     {"run", "--events", "5", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: unexpected argument 'extra'"},
    /* --- other commands ---------------------------------------------- */
    {"frobnicate",
     {"frobnicate"},
     PREP_NONE,
     NULL,
     2,
     "inputlat: unknown command 'frobnicate' (see inputlat --help)"},
    {"--version extra",
     {"--version", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat: unexpected 'extra' after --version (see inputlat --help)"},
    {"policies show nope",
     {"policies", "show", "nope"},
     PREP_NONE,
     NULL,
     2,
     "inputlat policies: unknown policy 'nope' (built-ins: cfs,"},
    {"check --frob",
     {"check", "--frob"},
     PREP_NONE,
     NULL,
     2,
     "inputlat check: unknown option '--frob' (want --json or --help)"},
    {"restore extra",
     {"restore", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat restore: unexpected 'extra' (restore takes no arguments)"},
    /* An operand beside --help was ignored: the help, exit 0. */
    {"run --help extra",
     {"run", "--help", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: unexpected argument 'extra'"},
    {"policies --help extra",
     {"policies", "--help", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat policies: unexpected 'extra' (want: inputlat policies [show NAME|PATH])"},
    {"check --help extra",
     {"check", "--help", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat check: unknown option 'extra' (want --json or --help)"},
    {"restore --help extra",
     {"restore", "--help", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat restore: unexpected 'extra' (restore takes no arguments)"},
    {"compare --help A B",
     {"compare", "--help", "@D/no-latency.json", "@D/no-latency.json"},
     PREP_NONE,
     NULL,
     2,
     "compare: unexpected argument '@D/no-latency.json' with --help; usage: inputlat compare"},
    {"explain --help RUN",
     {"explain", "--help", "@D/no-latency.json"},
     PREP_NONE,
     NULL,
     2,
     "explain: unexpected argument '@D/no-latency.json' with --help (see inputlat explain "
     "--help)"},
    {"stats --help extra",
     {"stats", "--help", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: unexpected argument 'extra' after --help"},
    {"stats fdr --help 0.5",
     {"stats", "fdr", "--help", "0.5"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: fdr: unexpected argument '0.5' with --help"},
    {"reproduce --help extra",
     {"reproduce", "--help", "extra"},
     PREP_NONE,
     NULL,
     2,
     "inputlat reproduce: unexpected argument 'extra' (see --help)"},
    /* --- run: the JS hog's script ------------------------------------- */
    {"hog script syntax error",
     {"run", "--hog", "1", "--hog-script", "@D/syntax-error.js"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-script @D/syntax-error.js:3: SyntaxError: unexpected token in "
     "expression: ';'"},
    {"hog script missing",
     {"run", "--hog", "1", "--hog-script", "@D/no-such.js"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-script @D/no-such.js: No such file or directory"},
    {"hog script, busy",
     {"run", "--hog-mode", "busy", "--hog-script", "@D/syntax-error.js"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-script needs --hog-mode js or js-bursty (the mode is busy)"},
    /* An unknown letter inside a cluster is named, not the argument before. */
    {"run, unknown short option in a cluster",
     {"run", "--events", "3", "-qz"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: unknown option '-q' (see inputlat run --help)"},
    {"explain, unknown short option in a cluster",
     {"explain", "-xyz", "@D/no-latency.json"},
     PREP_NONE,
     NULL,
     2,
     "explain: unknown option '-x' (see inputlat explain --help)"},
    /* An option that would shape something the run does not have. */
    {"hog mode without hogs",
     {"run", "--hog-mode", "busy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-mode shapes the hog threads: it needs --hog [N]"},
    {"hog gap without hogs",
     {"run", "--hog-gap-ms", "10"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-gap-ms shapes the hog threads: it needs --hog [N]"},
    {"hog task, not bursty",
     {"run", "--hog", "1", "--hog-mode", "busy", "--hog-task-ms", "10"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hog-task-ms shapes a bursty hog's long tasks: it needs --hog-mode "
     "js-bursty or bursty (the mode is busy)"},
    {"hist bound without hist",
     {"run", "--hist-max-us", "500", "--hist-csv", "@T/h.csv"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --hist-max-us sizes the --hist histogram: it needs --hist FILE"},
    {"trace events without trace",
     {"run", "--trace-events", "5"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: --trace-events sizes the --trace file: it needs --trace FILE"},
    /* --- run: policy files ------------------------------------------- */
    {"policy unknown role",
     {"run", "--policy", "@D/unknown-role.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/unknown-role.policy:4: unknown section [render] (want a role:"},
    {"policy unknown key",
     {"run", "--policy", "@D/unknown-key.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/unknown-key.policy:6: unknown key 'bogus' in [ui] (want class,"},
    {"policy bad class",
     {"run", "--policy", "@D/bad-class.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/bad-class.policy:3: unknown class 'fast' (want other, batch, idle, "
     "fifo, rr or deadline)"},
    {"policy fifo priority 0",
     {"run", "--policy", "@D/fifo-prio0.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/fifo-prio0.policy:4: priority 0 out of range for fifo (want 1..89)"},
    {"policy runtime > period",
     {"run", "--policy", "@D/runtime-over-period.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/runtime-over-period.policy:4: runtime_us 2000 > period_us 1000 (want "
     "runtime <= deadline <= period)"},
    {"policy duplicate section",
     {"run", "--policy", "@D/duplicate-section.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/duplicate-section.policy:4: duplicate section [ui] (first at line 2)"},
    {"policy nice abc",
     {"run", "--policy", "@D/nice-nan.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/nice-nan.policy:4: bad number 'abc' for nice (want an integer -20..19)"},
    {"policy nice 99",
     {"run", "--policy", "@D/nice-99.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/nice-99.policy:4: nice 99 out of range -20..19"},
    {"policy only garbage",
     {"run", "--policy", "@D/garbage.policy"},
     PREP_NONE,
     NULL,
     2,
     "inputlat run: @D/garbage.policy:1: syntax error (want '[section]', 'key = value' or a # "
     "comment)"},
    {"policy is a directory",
     {"run", "--policy", "@T/dir.policy"},
     PREP_DIR,
     NULL,
     2,
     "inputlat run: @T/dir.policy: a directory, not a regular file"},
    /* --- restore: state files (IL_STATE_DIR = @S) --------------------- */
    {"state garbage JSON",
     {"restore"},
     PREP_STATE,
     "garbage.state",
     1,
     "inputlat restore: @S/knobs.state: unreadable or not an inputlat state file; check the "
     "knobs and remove it by hand"},
    {"state names a forbidden file",
     {"restore"},
     PREP_STATE,
     "forbidden-path.state",
     1,
     "inputlat restore: @S/knobs.state: unreadable or not an inputlat state file"},
    {"state mode 0666",
     {"restore"},
     PREP_STATE_0666,
     "valid.state",
     1,
     "inputlat restore: @S/knobs.state: not a regular file owned by root or us, or writable by "
     "others: refusing it"},
    {"state owned by nobody",
     {"restore"},
     PREP_STATE_OWNER,
     "valid.state",
     1,
     "inputlat restore: @S/knobs.state: not a regular file owned by root or us, or writable by "
     "others: refusing it"},
    {"state is a symlink",
     {"restore"},
     PREP_STATE_LINK,
     NULL,
     1,
     "inputlat restore: @S/knobs.state: Too many levels of symbolic links (refusing a symlink)"},
    /* An empty file gets the owner/mode message: misleading, see the report. */
    {"state empty", {"restore"}, PREP_STATE_EMPTY, NULL, 1, "inputlat restore: @S/knobs.state: "},
    {"state dir 0777",
     {"restore"},
     PREP_STATE_DIR_0777,
     "valid.state",
     1,
     "inputlat restore: state directory @S is writable by others or not owned by root or us: "
     "refusing it"},
    /* --- compare: JSON files (the prefix lacks "inputlat ", see the report) */
    {"stats without a verb",
     {"stats"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: no verb given (the one verb is fdr) (see inputlat stats fdr --help)"},
    {"stats unknown verb",
     {"stats", "bonferroni"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: unknown verb 'bonferroni' (the one verb is fdr) (see inputlat stats fdr "
     "--help)"},
    {"stats fdr without p-values",
     {"stats", "fdr"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: fdr: no p-values given (see inputlat stats fdr --help)"},
    {"stats fdr p above 1",
     {"stats", "fdr", "0.01", "1.5"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: fdr: p-value '1.5': expected a number from 0 to 1 (see inputlat stats fdr "
     "--help)"},
    {"stats fdr nan",
     {"stats", "fdr", "nan"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: fdr: p-value 'nan': expected a number from 0 to 1 (see inputlat stats fdr "
     "--help)"},
    {"stats fdr -0.1: a p-value, not an option",
     {"stats", "fdr", "-0.1"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: fdr: p-value '-0.1': expected a number from 0 to 1"},
    {"stats fdr bad alpha",
     {"stats", "fdr", "--alpha", "0.9", "0.01"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: --alpha '0.9': expected a number from 0.000001 to 0.5 (see inputlat stats "
     "fdr --help)"},
    {"stats fdr --alpha after the p-values: an option still",
     {"stats", "fdr", "0.01", "0.02", "--alpha", "0.9"},
     PREP_NONE,
     NULL,
     2,
     "inputlat stats: --alpha '0.9': expected a number from 0.000001 to 0.5"},
    {"reproduce --json in a missing directory: said before any run",
     {"reproduce", "--rounds", "1", "--json", "@T/no-such-dir/r.json"},
     PREP_NONE,
     NULL,
     2,
     "inputlat reproduce: --json @T/no-such-dir/r.json: directory @T/no-such-dir: No such file "
     "or directory"},
    /* Every argument is one line: a newline in one split its error line
     * in two. */
    {"a newline in an argument",
     {"run", "--lock", "a\nb"},
     PREP_NONE,
     NULL,
     2,
     "inputlat: argument 3 has a line break (at byte 1): names and values are one line"},
    {"a carriage return in a report's name",
     {"compare", "A\r.json", "@T/good.json"},
     PREP_NONE,
     NULL,
     2,
     "inputlat: argument 2 has a line break (at byte 1)"},
    {"reproduce --lock in a missing directory: said before any run, not once a run",
     {"reproduce", "--rounds", "1", "--lock", "@T/no-such-dir/x.lock"},
     PREP_NONE,
     NULL,
     2,
     "inputlat reproduce: --lock @T/no-such-dir/x.lock: No such file or directory"},
    {"reproduce --lock on a device",
     {"reproduce", "--rounds", "1", "--lock", "/dev/null"},
     PREP_NONE,
     NULL,
     2,
     "inputlat reproduce: --lock /dev/null: a character device, not a regular file"},
    {"compare missing file",
     {"compare", "@T/good.json", "@T/missing.json"},
     PREP_NONE,
     NULL,
     2,
     "compare: @T/missing.json: No such file or directory"},
    {"compare not JSON",
     {"compare", "@T/good.json", "@D/not-json.json"},
     PREP_NONE,
     NULL,
     2,
     "compare: @D/not-json.json: not JSON"},
    {"compare without latency_us",
     {"compare", "@T/good.json", "@D/no-latency.json"},
     PREP_NONE,
     NULL,
     2,
     "compare: @D/no-latency.json: missing key latency_us.processing (is it an inputlat run "
     "--json report?)"},
    {"compare an array",
     {"compare", "@D/array.json", "@T/good.json"},
     PREP_NONE,
     NULL,
     2,
     "compare: @D/array.json: not a JSON object"},
    /* A directory is a group of rounds, each *.json in it a report. */
    {"compare a directory without reports",
     {"compare", "@T/good.json", "/dev"},
     PREP_NONE,
     NULL,
     2,
     "compare: /dev: no *.json run reports in this directory"},
    {"compare one file",
     {"compare", "@T/good.json"},
     PREP_NONE,
     NULL,
     2,
     "compare: expected 2 to 16 groups of reports, got 1"},
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static char datadir[PATH_MAX];

/* --- helpers ----------------------------------------------------------- */
/* Copies in with @D, @T and @S (the case's state directory) expanded. */
static void expand(const char *in, const char *sdir, char *out, size_t len)
{
	size_t n = 0;

	while (*in && n + 1 < len) {
		const char *rep = NULL;

		if (in[0] == '@' && in[1] == 'D')
			rep = datadir;
		else if (in[0] == '@' && in[1] == 'T')
			rep = il_test_suite.tmpdir;
		else if (in[0] == '@' && in[1] == 'S')
			rep = sdir;
		if (rep) {
			n += (size_t)snprintf(out + n, len - n, "%s", rep);
			if (n >= len)
				n = len - 1;
			in += 2;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	static char buf[65536];
	ssize_t n = il_test_read_file(from, buf, sizeof(buf));
	int fd;

	assert_true(n >= 0);
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, (size_t)n), n);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

/* Makes what the case needs; returns false (with why) when it cannot here. */
static bool prepare(const struct bad_case *c, const char *sdir, char *why, size_t len)
{
	char src[PATH_MAX + 64], dst[PATH_MAX + 64], target[PATH_MAX + 64];
	struct passwd *pw;

	snprintf(dst, sizeof(dst), "%s/knobs.state", sdir);
	if (c->file)
		snprintf(src, sizeof(src), "%s/%s", datadir, c->file);
	switch (c->prep) {
	case PREP_NONE:
		break;
	case PREP_DIR:
		snprintf(dst, sizeof(dst), "%s/dir.policy", il_test_suite.tmpdir);
		assert_true(mkdir(dst, 0755) == 0 || errno == EEXIST);
		break;
	case PREP_STATE:
	case PREP_STATE_0666:
	case PREP_STATE_OWNER:
	case PREP_STATE_LINK:
	case PREP_STATE_EMPTY:
	case PREP_STATE_DIR_0777:
		assert_int_equal(mkdir(sdir, 0700), 0);
		if (c->prep == PREP_STATE_LINK) {
			snprintf(target, sizeof(target), "%s/target", sdir);
			copy_file(il_test_build_path("policies/cfs.policy"), target, 0600);
			assert_int_equal(symlink(target, dst), 0);
		} else if (c->prep == PREP_STATE_EMPTY) {
			int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600);

			assert_true(fd >= 0);
			close(fd);
		} else {
			copy_file(src, dst, c->prep == PREP_STATE_0666 ? 0666 : 0600);
		}
		if (c->prep == PREP_STATE_DIR_0777)
			assert_int_equal(chmod(sdir, 0777), 0);
		if (c->prep == PREP_STATE_OWNER) {
			pw = getpwnam("nobody");
			if (geteuid() != 0 || !pw) {
				snprintf(why, len, "chown to nobody needs root and a user nobody");
				return false;
			}
			assert_int_equal(chown(dst, pw->pw_uid, pw->pw_gid), 0);
		}
		break;
	}
	return true;
}

/* --- the table --------------------------------------------------------- */
static void test_bad_input_table(void **state)
{
	struct il_test_result *res = malloc(sizeof(*res));
	char knob_before[32], knob_after[32];
	int failed = 0, skipped = 0;

	assert_non_null(res);
	assert_true(NCASES >= 25);
	for (size_t i = 0; i < NCASES; i++) {
		const struct bad_case *c = &cases[i];
		char args[MAX_ARGS + 1][PATH_MAX + 64], first[1024], sdir[PATH_MAX], why[200];
		char *argv[MAX_ARGS + 2];
		int n = 0;

		snprintf(sdir, sizeof(sdir), "%s/state%zu", il_test_suite.tmpdir, i);
		if (!prepare(c, sdir, why, sizeof(why))) {
			print_message("[ SKIP ] %-30s %s\n", c->name, why);
			skipped++;
			continue;
		}
		argv[n++] = il_test_suite.inputlat;
		for (int a = 0; a < MAX_ARGS && c->argv[a]; a++) {
			expand(c->argv[a], sdir, args[a], sizeof(args[a]));
			argv[n++] = args[a];
		}
		argv[n] = NULL;
		expand(c->first, sdir, first, sizeof(first));
		if (c->prep >= PREP_STATE)
			setenv("IL_STATE_DIR", sdir, 1);
		snprintf(knob_before, sizeof(knob_before), "%s", il_test_knob(IL_TEST_RT_RUNTIME));
		assert_int_equal(il_test_run(argv, CASE_TIMEOUT_MS, res), 0);
		snprintf(knob_after, sizeof(knob_after), "%s", il_test_knob(IL_TEST_RT_RUNTIME));
		unsetenv("IL_STATE_DIR");

		/* A knob that moved while another run holds them was not moved by us. */
		if (strcmp(knob_before, knob_after) != 0 &&
		    access(il_test_knobs_state_file(), F_OK) == 0) {
			print_message("%s: sched_rt_runtime_us %s -> %s while %s exists: another "
				      "run's change, not checked\n",
				      c->name, knob_before, knob_after, il_test_knobs_state_file());
			snprintf(knob_after, sizeof(knob_after), "%s", knob_before);
		}
		if (res->timed_out || res->term_signal || res->exit_code != c->exit_code ||
		    !il_test_one_line_starting(res->err, first) || res->out[0] ||
		    strcmp(knob_before, knob_after) != 0) {
			print_error(
			    "[ FAIL ] %s: exit %d signal %d%s in %.2f s, sched_rt_runtime_us "
			    "%s -> %s\n  want exit %d and one line starting\n    %s\n  stderr:\n%s"
			    "  stdout:\n%s\n",
			    c->name, res->exit_code, res->term_signal,
			    res->timed_out ? " (timed out)" : "", res->elapsed_s, knob_before,
			    knob_after, c->exit_code, first, res->err, res->out);
			failed++;
		} else {
			print_message("[  OK  ] %-30s exit %d: %s", c->name, res->exit_code,
				      res->err);
		}
		/* No project process may outlive a refused command. */
		assert_int_equal(il_test_count_project_procs(), 0);
	}
	print_message("%zu bad inputs: %zu rejected as pinned, %d failed, %d skipped\n", NCASES,
		      NCASES - (size_t)failed - (size_t)skipped, failed, skipped);
	free(res);
	assert_int_equal(failed, 0);
}

/* --- outputs: no symlinks, 0644 ---------------------------------------- */
static void assert_untouched(const char *path, const char *want)
{
	static char buf[65536];

	assert_true(il_test_read_file(path, buf, sizeof(buf)) >= 0);
	assert_string_equal(buf, want);
}

/*
 * `inputlat run --json LINK` refuses the symlink. A user who asked for an
 * output that was not written must get a non-zero exit (the harness once
 * refused only after the whole run and exited 0).
 */
static void test_bad_input_no_symlink_outputs(void **state)
{
	static const char *const opts[] = {"--json", "--hist", "--hist-csv", "--records",
					   "--trace"};
	struct il_test_result *res = malloc(sizeof(*res));
	char dir[PATH_MAX], link[PATH_MAX + 32], target[PATH_MAX + 32];
	int exit0 = 0;

	assert_non_null(res);
	snprintf(dir, sizeof(dir), "%s/links", il_test_suite.tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(target, sizeof(target), "%s/target", dir);
	copy_file(il_test_build_path("policies/cfs.policy"), target, 0644);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char *argv[] = {il_test_suite.inputlat, "run", "--events", "5", "--quiet",
				(char *)opts[i],	link,  NULL};
		char want[PATH_MAX + 256], before[65536];

		snprintf(link, sizeof(link), "%s/out%zu", dir, i);
		assert_int_equal(symlink(target, link), 0);
		assert_true(il_test_read_file(target, before, sizeof(before)) > 0);
		assert_int_equal(il_test_run(argv, 30000, res), 0);
		assert_false(res->timed_out);
		assert_int_equal(res->term_signal, 0);
		assert_untouched(target, before);
		/* The symlink itself is still there, still a symlink. */
		{
			struct stat st;

			assert_int_equal(lstat(link, &st), 0);
			assert_true(S_ISLNK(st.st_mode));
		}
		/* Refused before the run, as a user's mistake (issue 16). */
		snprintf(want, sizeof(want),
			 "inputlat run: %s %s: a symlink; refusing to follow it", opts[i], link);
		if (!il_test_one_line_starting(res->err, want))
			fail_msg("%s LINK: want one line starting '%s', got:\n%s", opts[i], want,
				 res->err);
		print_message("%s %s: exit %d: %s", opts[i], link, res->exit_code, res->err);
		if (res->exit_code == 0) {
			print_error(
			    "%s %s was not written (symlink refused) but inputlat exited 0\n",
			    opts[i], link);
			exit0++;
		}
	}
	free(res);
	assert_int_equal(exit0, 0);
}

/*
 * The benchmarks' options: a bad value names its option (it said only
 * "bad value 'abc'"), an unknown option is named, an output that cannot be
 * written is said before the measurement; one line, exit 2 each.
 */
static void test_bad_input_bench_options(void **state)
{
	static const struct {
		const char *bench, *args[4], *line;
	} cases[] = {
	    {"overhead", {"--rounds", "abc"}, "overhead: --rounds: bad value 'abc' (see --help)"},
	    {"overhead", {"--rounds=abc"}, "overhead: bad value in '--rounds=abc' (see --help)"},
	    {"overhead", {"--frob"}, "overhead: unknown option '--frob' (see --help)"},
	    {"lock-bench",
	     {"--s"},
	     "lock-bench: ambiguous option '--s' (--scenarios, --seconds, --spin-budget-ns, "
	     "--switch-rounds); see --help"},
	    {"lock-bench",
	     {"--switch-rounds", "5"},
	     "lock-bench: invalid --switch-rounds '5': expected 6..1000"},
	    {"lock-bench",
	     {"--placements", "one-cpu,,over4"},
	     "lock-bench: invalid --placements 'one-cpu,,over4': expected a list of "
	     "one-per-cpu,one-cpu,over4,over8"},
	    {"lock-bench",
	     {"--hogs", "none,fifo,none"},
	     "lock-bench: invalid --hogs 'none,fifo,none': a name given twice"},
	    {"rss-events", {"--counts", "x"}, "rss-events: --counts: bad value 'x' (see --help)"},
	    {"rss-events",
	     {"--counts", "1000,,10000"},
	     "rss-events: --counts: bad value '1000,,10000' (see --help)"},
	    {"rss-events",
	     {"--json", "/nonexistent-il/x.json"},
	     "rss-events: --json /nonexistent-il/x.json: directory /nonexistent-il: No such file "
	     "or "
	     "directory"},
	    {"hop-floor", {"--samples", "1"}, "hop-floor: --samples: bad value '1' (see --help)"},
	    /* Operands: ignored ('hop-floor x' measured, 'lock-bench --version
	     * x' printed the version), --help and --version included. */
	    {"hop-floor", {"x"}, "hop-floor: unexpected argument 'x' (see --help)"},
	    {"hop-floor", {"--help", "x"}, "hop-floor: unexpected argument 'x' (see --help)"},
	    {"overhead", {"--rounds", "3", "x"}, "overhead: unexpected argument 'x' (see --help)"},
	    {"overhead", {"x", "--help"}, "overhead: unexpected argument 'x' (see --help)"},
	    {"rss-events", {"x"}, "rss-events: unexpected argument 'x' (see --help)"},
	    {"rss-events", {"--help", "x"}, "rss-events: unexpected argument 'x' (see --help)"},
	    {"lock-bench", {"--version", "x"}, "lock-bench: unexpected argument 'x'; see --help"},
	    {"lock-bench", {"x", "--help"}, "lock-bench: unexpected argument 'x'; see --help"},
	    /* A bare "usage: ..." named no argument. */
	    {"bpf-floor", {"--json", "a.json"}, "bpf-floor: no '--' before the command (usage: "},
	    {"bpf-floor",
	     {"--jsn", "a.json", "--", "true"},
	     "bpf-floor: unknown option '--jsn' (see --help)"},
	    {"bpf-floor",
	     {"a.json", "--", "true"},
	     "bpf-floor: unexpected argument 'a.json' before '--' (usage: "},
	    {"bpf-floor", {"--json"}, "bpf-floor: --json needs a value (see --help)"},
	    {"bpf-floor", {"--json", "--", "true"}, "bpf-floor: --json needs a value (see --help)"},
	    {"bpf-floor", {"--json", "a.json", "--"}, "bpf-floor: no COMMAND after '--' (usage: "},
	    {"bpf-floor",
	     {"--json", "a.json", "--json", "b.json"},
	     "bpf-floor: --json given twice ('a.json' and 'b.json')"},
	    {"hop-cost", {"loop"}, "hop-cost: no N given (usage: "},
	    {"hop-cost",
	     {"loop", "abc"},
	     "hop-cost: N 'abc' is not a count of hops (1..100000000)"},
	    {"hop-cost", {"loop", "0"}, "hop-cost: N '0' is not a count of hops (1..100000000)"},
	    {"hop-cost", {"loop", "5", "x"}, "hop-cost: unexpected argument 'x' (usage: "},
	    {"hop-cost",
	     {"spin", "abc"},
	     "hop-cost: unknown mode 'spin' (loop, queue, async, frame)"},
	};
	struct il_test_result *res = malloc(sizeof(*res));
	int failed = 0;

	(void)state;
	assert_non_null(res);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[PATH_MAX], *argv[8];
		int n = 0;

		snprintf(path, sizeof(path), "%s", il_test_build_path("bench/"));
		strncat(path, cases[i].bench, sizeof(path) - strlen(path) - 1);
		/* bpf-floor is built where its BPF skeleton could be, lock-bench
		 * where spin/ is. */
		if ((!strcmp(cases[i].bench, "bpf-floor") && !IL_TEST_ATTRIB_BPF) ||
		    (!strcmp(cases[i].bench, "lock-bench") && !IL_TEST_WITH_SPIN)) {
			print_message("%s not built: its case skipped\n", path);
			continue;
		}
		argv[n++] = path;
		for (int a = 0; a < 4 && cases[i].args[a]; a++)
			argv[n++] = (char *)cases[i].args[a];
		argv[n] = NULL;
		assert_int_equal(il_test_run(argv, CASE_TIMEOUT_MS, res), 0);
		if (res->exit_code != 2 ||
		    strncmp(res->err, cases[i].line, strlen(cases[i].line)) ||
		    !il_test_one_line(res->err)) {
			print_error("%s %s: exit %d, stderr: %s", cases[i].bench, cases[i].args[0],
				    res->exit_code, res->err);
			failed++;
		}
	}
	free(res);
	assert_int_equal(failed, 0);
}

/*
 * rss-events --json FILE that is one of the files its runs write in
 * --dir, by that name or another (a trace.json there, ./records.jsonl
 * from inside it): the results went over a run's report, or the next run
 * removed them. Refused in one line before any run; nothing is written.
 */
static void test_bad_input_rss_events_json_is_a_run_file(void **state)
{
	static const char *const names[] = {"run.json", "trace.json", "records.jsonl", "err.txt"};
	struct il_test_result *res = malloc(sizeof(*res));
	char bench[PATH_MAX], dir[] = "/tmp/il-rss-json-XXXXXX", json[PATH_MAX], line[PATH_MAX * 2];
	char *argv[] = {bench, "--counts", "1000", "--dir", dir, "--json", json, NULL};

	(void)state;
	assert_non_null(res);
	assert_non_null(mkdtemp(dir));
	snprintf(bench, sizeof(bench), "%s", il_test_build_path("bench/rss-events"));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* The directory by another spelling: its own name again. */
		snprintf(json, sizeof(json), "%s/../%s/%s", dir, dir + 5, names[i]);
		assert_int_equal(il_test_run(argv, CASE_TIMEOUT_MS, res), 0);
		snprintf(line, sizeof(line),
			 "rss-events: --json %s is %s, one of the files its runs write and remove "
			 "in --dir %s; give another --json or --dir",
			 json, names[i], dir);
		il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2, line, NULL);
	}
	/* Nothing run, nothing written: the directory is as it was. */
	assert_int_equal(rmdir(dir), 0);
	free(res);
}

/*
 * js-engines' TICKS: per-tick figures divide by it, and an unchecked
 * strtol ran 'abc' and '0' as 0 ticks (inf per tick) and '-5' as none.
 * Built where libmujs and duktape are (install-deps installs both).
 */
static void test_bad_input_js_engines_ticks(void **state)
{
	static const char *const bad[] = {"abc", "0", "-5", "1e3", "99999999999"};
	struct il_test_result *res;
	char path[PATH_MAX], script[PATH_MAX];
	int failed = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s", il_test_build_path("bench/js-engines"));
	if (access(path, X_OK) != 0) {
		print_message("skipped: %s not built (it needs libmujs-dev and duktape-dev)\n",
			      path);
		skip();
	}
	/* A script that exists, so TICKS is what is refused. */
	snprintf(script, sizeof(script), "%s/render-sim/js/miner.js",
		 getenv("IL_SOURCE_DIR") ? getenv("IL_SOURCE_DIR") : ".");
	res = malloc(sizeof(*res));
	assert_non_null(res);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = {path, script, (char *)bad[i], NULL};
		char line[96];

		snprintf(line, sizeof(line), "js-engines: TICKS '%s': want a whole number", bad[i]);
		assert_int_equal(il_test_run(argv, CASE_TIMEOUT_MS, res), 0);
		if (res->exit_code != 2 || strncmp(res->err, line, strlen(line)) ||
		    !il_test_one_line(res->err)) {
			print_error("js-engines %s: exit %d, stderr: %s", bad[i], res->exit_code,
				    res->err);
			failed++;
		}
	}
	/* Options: '--help' was taken for the script's path. */
	{
		char *help_x[] = {path, "--help", "x", NULL}, *dash[] = {path, "-x", NULL};

		assert_int_equal(il_test_run(help_x, CASE_TIMEOUT_MS, res), 0);
		if (res->exit_code != 2 || !strstr(res->err, "unexpected argument 'x'") ||
		    !il_test_one_line(res->err)) {
			print_error("js-engines --help x: exit %d, stderr: %s", res->exit_code,
				    res->err);
			failed++;
		}
		assert_int_equal(il_test_run(dash, CASE_TIMEOUT_MS, res), 0);
		if (res->exit_code != 2 || !strstr(res->err, "unknown option '-x'") ||
		    !il_test_one_line(res->err)) {
			print_error("js-engines -x: exit %d, stderr: %s", res->exit_code, res->err);
			failed++;
		}
	}
	free(res);
	assert_int_equal(failed, 0);
}

/* In the child: fd 3 (the control channel's number) is a regular file. */
static void fd3_regular_file(void *ctx)
{
	int fd = open((const char *)ctx, O_RDONLY);

	if (fd >= 0 && fd != 3) {
		dup2(fd, 3);
		close(fd);
	}
}

/*
 * The chain's processes started by hand, as a curious user does: one line
 * and a non-zero exit each (no arguments with an unrelated fd 3 open
 * exited 1 silently at its first frame; an unknown option without a value
 * was said to need one), and --help says what they are. And ilspin-oncpu.
 */
static void test_bad_input_chain_by_hand(void **state)
{
	static const char *const progs[] = {"browser-sim", "render-sim", "viz-sim", "il-workload"};
	struct il_test_result *res = malloc(sizeof(*res));
	char path[PATH_MAX], line[256], file[PATH_MAX + 16];
	int failed = 0;

	(void)state;
	assert_non_null(res);
	snprintf(file, sizeof(file), "%s/good.json", il_test_suite.tmpdir);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		static const char *const args[][2] = {{NULL}, {"--frob"}, {"--lock"}, {"--help"}};

		snprintf(path, sizeof(path), "%s%s", il_test_build_path(""), progs[i]);
		for (size_t a = 0; a < sizeof(args) / sizeof(args[0]); a++) {
			char *argv[] = {path, (char *)args[a][0], NULL};
			int want_exit = a == 3 ? 0 : 2;

			switch (a) {
			case 0:
				snprintf(line, sizeof(line),
					 "%s: no control channel on fd 3: socket operation on "
					 "non-socket",
					 progs[i]);
				break;
			case 1:
				snprintf(line, sizeof(line), "%s: unknown option --frob", progs[i]);
				break;
			case 2:
				snprintf(line, sizeof(line), "%s: --lock needs a value", progs[i]);
				break;
			default:
				snprintf(line, sizeof(line), "%s: one process of inputlat's chain",
					 progs[i]);
			}
			assert_int_equal(
			    il_test_run_with(argv, CASE_TIMEOUT_MS, fd3_regular_file, file, res),
			    0);
			if (res->exit_code != want_exit ||
			    strncmp(a == 3 ? res->out : res->err, line, strlen(line)) ||
			    !il_test_one_line(a == 3 ? res->out : res->err)) {
				print_error("%s %s: exit %d, stdout: %s stderr: %s", progs[i],
					    args[a][0] ? args[a][0] : "(none)", res->exit_code,
					    res->out, res->err);
				failed++;
			}
		}
		/* An operand after --help was ignored: the help, exit 0. */
		{
			char *argv[] = {path, "--help", "x", NULL};

			snprintf(line, sizeof(line), "%s: unexpected argument 'x' after --help\n",
				 progs[i]);
			assert_int_equal(
			    il_test_run_with(argv, CASE_TIMEOUT_MS, fd3_regular_file, file, res),
			    0);
			if (res->exit_code != 2 || strcmp(res->err, line) || res->out[0]) {
				print_error("%s --help x: exit %d, stdout: %s stderr: %s", progs[i],
					    res->exit_code, res->out, res->err);
				failed++;
			}
		}
	}
	/* The on-CPU publisher too: getopt's line and then the whole usage;
	 * and a --pin-dir off bpffs (libbpf's own line and "Invalid argument"). */
	{
		char *argv[] = {path, "--frob", NULL};
		char *pin[] = {path, "--pin-dir", (char *)il_test_suite.tmpdir, NULL};
		char *version[] = {path, "--version", "x", NULL};

		snprintf(path, sizeof(path), "%s", il_test_build_path("ilspin-oncpu"));
		if (!IL_TEST_WITH_SPIN)
			print_message("ilspin-oncpu not built (IL_WITH_SPIN=OFF): not tried\n");
		else if (il_test_run(argv, CASE_TIMEOUT_MS, res) != 0 || res->exit_code != 2 ||
			 !il_test_one_line(res->err) ||
			 !strstr(res->err, "ilspin-oncpu: unknown or ambiguous option '--frob'")) {
			print_error("ilspin-oncpu --frob: exit %d, stderr: %s", res->exit_code,
				    res->err);
			failed++;
		} else if (il_test_run(pin, CASE_TIMEOUT_MS, res) != 0 || res->exit_code != 2 ||
			   !il_test_one_line(res->err) ||
			   !strstr(res->err, "is not on a BPF filesystem")) {
			print_error("ilspin-oncpu --pin-dir %s: exit %d, stderr: %s",
				    il_test_suite.tmpdir, res->exit_code, res->err);
			failed++;
		} else if (il_test_run(version, CASE_TIMEOUT_MS, res) != 0 || res->exit_code != 2 ||
			   res->out[0] ||
			   strcmp(res->err,
				  "ilspin-oncpu: unexpected argument 'x' (see --help)\n")) {
			/* It printed the version and ignored the x. */
			print_error("ilspin-oncpu --version x: exit %d, stdout: %s stderr: %s",
				    res->exit_code, res->out, res->err);
			failed++;
		}
	}
	free(res);
	assert_int_equal(failed, 0);
}

static void assert_mode(const char *path, mode_t want)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	if ((st.st_mode & 07777) != want)
		fail_msg("%s has mode %04o, want %04o", path, (unsigned)(st.st_mode & 07777),
			 (unsigned)want);
}

static void test_bad_input_output_modes(void **state)
{
	static const char *const opts[] = {"--json", "--hist", "--hist-csv", "--records",
					   "--trace"};
	struct il_test_result *res = malloc(sizeof(*res));
	char outs[5][PATH_MAX + 32];
	char *argv[16] = {il_test_suite.inputlat, "run", "--events", "5", "--quiet"};
	int n = 5;
	mode_t old;

	assert_non_null(res);
	for (size_t i = 0; i < 5; i++) {
		snprintf(outs[i], sizeof(outs[i]), "%s/mode%zu.out", il_test_suite.tmpdir, i);
		argv[n++] = (char *)opts[i];
		argv[n++] = outs[i];
	}
	argv[n] = NULL;
	/* Even with no umask to help, nothing is group- or world-writable. */
	old = umask(0);
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	umask(old);
	if (res->exit_code != 0)
		fail_msg("inputlat exited %d: %s", res->exit_code, res->err);
	for (size_t i = 0; i < 5; i++)
		assert_mode(outs[i], 0644);

	/*
	 * A file already there must not keep its mode: a world-writable
	 * leftover may not stay world-writable once root has written the
	 * report (il_file_create once only opened with O_TRUNC; now the
	 * report is a new file renamed over it).
	 */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(chmod(outs[i], 0666), 0);
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	if (res->exit_code != 0)
		fail_msg("inputlat exited %d: %s", res->exit_code, res->err);
	for (size_t i = 0; i < 5; i++)
		assert_mode(outs[i], 0644);
	free(res);
}

/* --- fixtures ---------------------------------------------------------- */
static int group_setup(void **state)
{
	const char *src = getenv("IL_SOURCE_DIR");
	char good[PATH_MAX + 16];
	char *argv[] = {
	    il_test_suite.inputlat, "run", "--events", "5", "--quiet", "--json", good, NULL};
	struct il_test_result *res;
	int ok;

	if (il_test_suite_setup(state) < 0)
		return -1;
	chmod(il_test_suite.tmpdir, 0755);
	snprintf(datadir, sizeof(datadir), "%s/tests/data/bad", src ? src : "..");
	if (access(datadir, R_OK) != 0) {
		print_error("%s: %s (IL_SOURCE_DIR not set?)\n", datadir, strerror(errno));
		return -1;
	}
	/* A real report for the other side of `compare`. */
	snprintf(good, sizeof(good), "%s/good.json", il_test_suite.tmpdir);
	res = malloc(sizeof(*res));
	if (!res)
		return -1;
	ok = il_test_run(argv, 30000, res) == 0 && res->exit_code == 0;
	if (!ok)
		print_error("inputlat run for good.json failed: %s\n", res->err);
	free(res);
	return ok ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_input_table),
	    cmocka_unit_test(test_bad_input_no_symlink_outputs),
	    cmocka_unit_test(test_bad_input_output_modes),
	    cmocka_unit_test(test_bad_input_bench_options),
	    cmocka_unit_test(test_bad_input_rss_events_json_is_a_run_file),
	    cmocka_unit_test(test_bad_input_chain_by_hand),
	    cmocka_unit_test(test_bad_input_js_engines_ticks),
	};

	if (il_test_filters("test_bad_input", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, il_test_suite_teardown);
}
