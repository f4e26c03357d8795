/* Policy files: the built-ins load, and every broken file fails with its
 * own message at the right line. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chromeos_expect.h"
#include "il_cmd.h"
#include "il_policy.h"
#include "il_sysinfo.h"
#include "il_test.h"

static char builtin_dir[4096];
static char tmp_dir[] = "/tmp/il_test_policy.XXXXXX";

static int setup(void **state)
{
	const char *b = getenv("IL_BUILD_DIR");
	snprintf(builtin_dir, sizeof(builtin_dir), "%s/policies", b ? b : ".");
	/* The subcommands find the built-ins the way the program does. */
	setenv("IL_POLICY_DIR", builtin_dir, 1);
	return mkdtemp(tmp_dir) ? 0 : -1;
}

/* The directory and whatever the cases wrote in it (broken.policy,
 * nul.policy: naming them one by one left a directory per run behind). */
static int teardown(void **state)
{
	(void)state;
	return il_test_tmpdir_remove(tmp_dir);
}

static struct il_policy *load_ok(const char *name)
{
	struct il_policy *p = NULL;
	char err[512] = "";
	int r = il_policy_load(name, builtin_dir, &p, err, sizeof(err));
	if (r)
		fail_msg("%s: %s", name, err);
	assert_non_null(p);
	return p;
}

static void test_policy_builtins_listed(void **state)
{
	static const char *const want[] = {"cfs",	  "cfs-chrome",	    "chromeos",
					   "chromeos-rt", "deadline",	    "eevdf-slice",
					   "rt",	  "rt-fair-server", "rt-throttled"};
	char **names = NULL;
	size_t n = 0;
	assert_int_equal(il_policy_list(builtin_dir, &names, &n), 0);
	assert_int_equal(n, 9);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], want[i]);
	il_policy_list_free(names, n);
}

static void test_policy_builtins_load(void **state)
{
	char **names = NULL;
	size_t n = 0;
	assert_int_equal(il_policy_list(builtin_dir, &names, &n), 0);
	for (size_t i = 0; i < n; i++) {
		struct il_policy *p = load_ok(names[i]);
		assert_string_equal(il_policy_name(p), names[i]);
		assert_true(strlen(il_policy_description(p)) > 10);
		il_policy_free(p);
	}
	il_policy_list_free(names, n);
}

static void test_policy_builtin_values(void **state)
{
	struct il_policy *p = load_ok("cfs");
	for (int r = 0; r < IL_ROLE_COUNT; r++) {
		assert_int_equal(il_policy_role(p, r)->sched_class, SCHED_OTHER);
		assert_int_equal(il_policy_role(p, r)->nice, 0);
	}
	assert_false(il_policy_uses_rt(p));
	assert_false(il_policy_knobs(p)->has_rt_runtime);
	il_policy_free(p);

	p = load_ok("cfs-chrome");
	assert_int_equal(il_policy_role(p, IL_ROLE_COMPOSITOR)->nice, -8);
	assert_int_equal(il_policy_role(p, IL_ROLE_MAIN)->nice, 0);
	il_policy_free(p);

	p = load_ok("eevdf-slice");
	assert_int_equal(il_policy_role(p, IL_ROLE_MAIN)->slice_ns, 400000);
	assert_int_equal(il_policy_role(p, IL_ROLE_CANARY)->slice_ns, 0);
	il_policy_free(p);

	p = load_ok("rt");
	static const enum il_role rt_roles[] = {IL_ROLE_EVDEV,	    IL_ROLE_UI,	  IL_ROLE_IO,
						IL_ROLE_COMPOSITOR, IL_ROLE_MAIN, IL_ROLE_GPU,
						IL_ROLE_DRM,	    IL_ROLE_JS};
	for (size_t i = 0; i < sizeof(rt_roles) / sizeof(rt_roles[0]); i++)
		assert_int_equal(il_policy_role(p, rt_roles[i])->sched_class, SCHED_FIFO);
	assert_int_equal(il_policy_role(p, IL_ROLE_EVDEV)->priority, 60);
	assert_int_equal(il_policy_role(p, IL_ROLE_LOAD)->sched_class, SCHED_OTHER);
	assert_true(il_policy_uses_rt(p));
	assert_true(il_policy_knobs(p)->has_rt_runtime);
	assert_int_equal(il_policy_knobs(p)->rt_runtime_us, -1);
	il_policy_free(p);

	p = load_ok("rt-throttled");
	assert_int_equal(il_policy_knobs(p)->rt_runtime_us, 950000);
	assert_int_equal(il_policy_knobs(p)->rt_period_us, 1000000);
	il_policy_free(p);

	p = load_ok("rt-fair-server");
	assert_true(il_policy_knobs(p)->has_fair_server);
	assert_int_equal(il_policy_knobs(p)->fs_runtime_ns, 50000000);
	assert_int_equal(il_policy_knobs(p)->fs_period_ns, 1000000000);
	il_policy_free(p);

	p = load_ok("deadline");
	const struct il_role_attrs *m = il_policy_role(p, IL_ROLE_MAIN);
	assert_int_equal(m->sched_class, SCHED_DEADLINE);
	assert_int_equal(m->dl_runtime_ns, 900000);
	assert_int_equal(m->dl_deadline_ns, 4000000);
	assert_int_equal(m->dl_period_ns, 4000000);
	assert_int_equal(il_policy_role(p, IL_ROLE_JS)->sched_class, SCHED_OTHER);
	il_policy_free(p);
}

static void test_policy_unknown_name(void **state)
{
	struct il_policy *p = (struct il_policy *)0x1;
	char err[512];
	assert_int_equal(il_policy_load("nope", builtin_dir, &p, err, sizeof(err)), -ENOENT);
	assert_ptr_equal(p, (struct il_policy *)0x1);
	assert_string_equal(err, "unknown policy 'nope' (built-ins: cfs, cfs-chrome, chromeos, "
				 "chromeos-rt, deadline, eevdf-slice, rt, rt-fair-server, "
				 "rt-throttled)");

	assert_int_equal(il_policy_load("/nonexistent/x.policy", builtin_dir, &p, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/x.policy: No such file or directory");
}

static char *write_tmp(const char *text)
{
	static char path[4200];
	snprintf(path, sizeof(path), "%s/broken.policy", tmp_dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

struct broken {
	const char *text;
	const char *msg; /* after "PATH:" */
};

#define NAME_RULE                                                                                  \
	"policy name: one word of printable ASCII without '/', at most 64 characters (it names "   \
	"the run in the summary line, the report and the sweep's files)"

#define NO_POLICY                                                                                  \
	"no policy in it: empty, or only comments and blank lines (want a [policy] name, or a "    \
	"role's settings)"

static const struct broken broken_files[] = {
    {"# unknown role\n[ui]\nclass = other\n\n[render]\nclass = fifo\n",
     "5: unknown section [render] (want a role: evdev, ui, io, compositor, main, "
     "gpu, drm, js, load, canary; a thread: browser:evdev, browser:ui, browser:io, "
     "render:io, render:comp, render:main, viz:io, viz:comp, viz:gpu, viz:drm; or "
     "policy, knobs)"},
    {"[ui]\nclass = fast\n", "2: unknown class 'fast' (want other, batch, idle, fifo, "
			     "rr or deadline)"},
    {"[ui]\nclass = other\nweight = 3\n",
     "3: unknown key 'weight' in [ui] (want class, "
     "priority, nice, slice_us, runtime_us, deadline_us, period_us, cpus, uclamp_min, "
     "uclamp_max)"},
    /* Its range is its class's (the next cases), not the int range. */
    {"[io]\nclass = fifo\npriority = high\n", "3: bad number 'high' for priority (want "
					      "an integer)"},
    /* An escape sequence reached the terminal as it was; a blank split
     * the summary line's words. */
    {"[policy]\nname = x\x1b[31m\n", "2: " NAME_RULE},
    {"[policy]\nname = two words\n", "2: " NAME_RULE},
    {"[policy]\nname = a/b\n", "2: " NAME_RULE},
    {"[policy]\nname = x\ndescription = set the title \x1b]0;pwn\x07\n",
     "3: description: want UTF-8 text without control characters"},
    {"[policy]\nname = x\ndescription = x\xff\n",
     "3: description: want UTF-8 text without control characters"},
    {"[policy]\nname = x\ndescription = \xc2\x9b"
     "31m\n", /* C1 CSI */
     "3: description: want UTF-8 text without control characters"},

    {"[io]\nclass = fifo\npriority = 0\n", "3: priority 0 out of range for fifo (want "
					   "1..89)"},
    {"[io]\npriority = 100\nclass = rr\n", "2: priority 100 out of range for rr (want "
					   "1..89)"},
    {"[io]\nclass = fifo\n", "1: [io]: class fifo needs priority = 1..89"},
    /* 90..99 belong to the harness: a policy thread there would outrank
     * the watchdog (99) and Ctrl-C's loop (98). */
    {"[js]\nclass = fifo\npriority = 99\n",
     "3: priority 99 above 89, the highest a "
     "policy may use (90..99 are the harness's: watchdog 99, orchestrator 98, control "
     "threads 97)"},
    {"[viz:io]\nclass = rr\npriority = 90\n",
     "3: priority 90 above 89, the highest a "
     "policy may use (90..99 are the harness's: watchdog 99, orchestrator 98, control "
     "threads 97)"},
    /* uclamp and "optional". */
    {"[ui]\nuclamp_min = 101\n", "2: uclamp_min 101 out of range 0..100"},
    {"[ui]\noptional uclamp_max = half\n", "2: bad number 'half' for uclamp_max (want "
					   "an integer 0..100)"},
    {"[ui]\nuclamp_min = 80\noptional uclamp_max = 50\n",
     "2: uclamp_min 80 > "
     "uclamp_max 50 (want uclamp_min <= uclamp_max)"},
    {"[drm]\nclass = deadline\nruntime_us = 100\nperiod_us = 1000\noptional uclamp_min = "
     "20\n",
     "5: uclamp_min does not apply to class deadline (its runtime and period set "
     "its share)"},
    {"[ui]\noptional nice = -8\n", "2: nice in [ui] cannot be optional (only uclamp_min "
				   "and uclamp_max, which a kernel may lack, can)"},
    {"[knobs]\noptional sched_rt_runtime_us = -1\n",
     "2: sched_rt_runtime_us in [knobs] "
     "cannot be optional (only uclamp_min and uclamp_max, which a kernel may lack, can)"},
    {"[ui]\noptinal uclamp_min = 20\n",
     "2: unknown key 'optinal uclamp_min' in [ui] "
     "(want class, priority, nice, slice_us, runtime_us, deadline_us, period_us, cpus, "
     "uclamp_min, uclamp_max; a setting is marked optional as 'optional KEY = VALUE')"},
    {"[ui]\noptional uclamp = 20\n",
     "2: unknown key 'uclamp' in [ui] (want class, "
     "priority, nice, slice_us, runtime_us, deadline_us, period_us, cpus, uclamp_min, "
     "uclamp_max)"},
    {"[ui]\nuclamp_min = 20\noptional uclamp_min = 20\n", "3: duplicate key 'uclamp_min' "
							  "in [ui] (first at line 2)"},
    {"[ui]\noptional\n", "2: syntax error (want '[section]', 'key = value' or a # "
			 "comment)"},
    /* Thread sections. */
    {"[viz:io]\nclass = rr\npriority = 6\n[viz:io]\nnice = 1\n", "4: duplicate section "
								 "[viz:io] (first at line 1)"},
    {"[render:comp]\nclass = rr\n", "1: [render:comp]: class rr needs priority = 1..89"},
    {"[ui]\nclass = other\npriority = 5\n", "3: priority applies only to fifo and rr, not "
					    "other (use nice for other/batch)"},
    {"[ui]\nnice = -21\n", "2: nice -21 out of range -20..19"},
    {"[ui]\nclass = fifo\npriority = 5\nnice = -5\n", "4: nice applies only to other and "
						      "batch, not fifo"},
    {"[ui]\nclass = other\nslice_us = 50\n", "3: slice_us 50 out of range 100..100000"},
    {"[drm]\nclass = deadline\nruntime_us = 5000\nperiod_us = 4000\n",
     "3: runtime_us 5000 > period_us 4000 (want runtime <= deadline <= period)"},
    {"[drm]\nclass = deadline\nruntime_us = 500\ndeadline_us = 400\nperiod_us = 4000\n",
     "3: runtime_us 500 > deadline_us 400 (want runtime <= deadline <= period)"},
    {"[drm]\nclass = deadline\nruntime_us = 500\ndeadline_us = 5000\nperiod_us = 4000\n",
     "4: deadline_us 5000 > period_us 4000 (want runtime <= deadline <= period)"},
    {"[policy]\nname = x\n\n[drm]\nclass = deadline\nruntime_us = 500\n",
     "4: [drm]: class deadline needs runtime_us and period_us"},
    {"[drm]\nclass = other\nperiod_us = 4000\n", "3: period_us applies only to class "
						 "deadline, not other"},
    {"[drm]\nclass = deadline\nruntime_us = 100\nperiod_us = 1000\ncpus = 0\n",
     "5: cpus cannot be set for class deadline (SCHED_DEADLINE needs the affinity of "
     "its whole root domain)"},
    {"[ui]\nclass = other\n[io]\nclass = other\n[ui]\nnice = 1\n",
     "5: duplicate section [ui] (first at line 1)"},
    {"[ui]\nnice = 1\nnice = 2\n", "3: duplicate key 'nice' in [ui] (first at line 2)"},
    {"[ui]\ncpus = 0-x\n", "2: bad cpus '0-x' (want a list like 0,1 or 0-3)"},
    {"[ui]\ncpus = 0,,1\n", "2: bad cpus '0,,1' (want a list like 0,1 or 0-3)"},
    {"class = other\n", "1: key 'class' before any [section]"},
    {"[ui]\nclass = other\n  nice = -8\n", "3: indented line (keys and sections start "
					   "in column 1)"},
    {"[ui]\nclass other\n", "2: syntax error (want '[section]', 'key = value' or a # "
			    "comment)"},
    /* One line a line, a section header whole (inih dropped "nice = 1"
     * of a CR-only file, and what follows a ']'). */
    {"[ui]\rnice = 1\r", "1: a carriage return inside a line (lines end with LF or CRLF)"},
    {"[ui] junk\nnice = 1\n", "1: text after the section header [ui]"},
    {"[policy\nname = x\n", "1: a section header without its ']'"},
    {"[knobs]\nsched_rt_runtime_us = -2\n", "2: sched_rt_runtime_us -2 out of range "
					    "-1..2147483647"},
    {"[knobs]\nsched_rt_period_us = 100000\nsched_rt_runtime_us = 200000\n",
     "3: sched_rt_runtime_us 200000 > sched_rt_period_us 100000 (want -1 or at most "
     "the period)"},
    {"[knobs]\nfair_server_runtime_us = 50000\n", "1: [knobs]: fair_server_runtime_us "
						  "and fair_server_period_us go together"},
    /* No policy at all passed for the untuned cfs one, under the file's
     * name; an empty section was a role (or a thread) run on defaults. */
    {"", " " NO_POLICY},
    {"# only a comment\n; and another\n", " " NO_POLICY},
    {" \n\t\n\n", " " NO_POLICY},
    {"\xEF\xBB\xBF\r\n", " " NO_POLICY},
    {"[policy]\n", "1: empty section [policy] (give it settings, or leave it out)"},
    {"[knobs]\n# none yet\n[ui]\nnice = 1\n", "1: empty section [knobs] (give it settings, "
					      "or leave it out)"},
    {"[io]\nclass = fifo\npriority = 50\n[viz:io]\n\n",
     "4: empty section [viz:io] (give it settings, or leave it out)"},
    {"[knobs]\nrt_runtime = 5\n",
     "2: unknown key 'rt_runtime' in [knobs] (want "
     "sched_rt_runtime_us, sched_rt_period_us, fair_server_runtime_us, "
     "fair_server_period_us)"},
};

static void test_policy_broken_files(void **state)
{
	for (size_t i = 0; i < sizeof(broken_files) / sizeof(broken_files[0]); i++) {
		const char *path = write_tmp(broken_files[i].text);
		struct il_policy *p = (struct il_policy *)0x1;
		char err[512] = "", want[1024];
		int r = il_policy_load(path, builtin_dir, &p, err, sizeof(err));
		snprintf(want, sizeof(want), "%s:%s", path, broken_files[i].msg);
		if (r != -EINVAL || strcmp(err, want) != 0)
			fail_msg("case %zu: r=%d\n got: %s\nwant: %s", i, r, err, want);
		assert_ptr_equal(p, (struct il_policy *)0x1);
	}
}

/*
 * A file that calls itself by a built-in's name ran as that built-in in
 * every report ("policy rt", every thread CFS, grouped with real rt rounds
 * by compare). Refused, named; a byte-for-byte copy of the built-in is it.
 */
static void test_policy_builtin_name_taken(void **state)
{
	char theirs[4200], err[9000] = "", want[9000], *text = NULL;
	struct il_policy *p = NULL;
	const char *path;
	size_t n = 0;
	FILE *f;

	(void)state;
	snprintf(theirs, sizeof(theirs), "%s/cfs.policy", builtin_dir);
	path = write_tmp("[policy]\nname = cfs\n[ui]\nclass = fifo\npriority = 50\n");
	assert_int_equal(il_policy_load(path, builtin_dir, &p, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:2: name 'cfs' is a built-in policy's (%s): this file is not that policy; give "
		 "it another name",
		 path, theirs);
	assert_string_equal(err, want);
	/* No [policy] name: its file name gives it, and that is a built-in's. */
	snprintf(want, sizeof(want), "%s/cfs.policy", tmp_dir);
	f = fopen(want, "w");
	assert_non_null(f);
	fputs("[ui]\nnice = 3\n", f);
	fclose(f);
	assert_int_equal(il_policy_load(want, builtin_dir, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: its file name makes it 'cfs', a built-in policy's"));
	/* A copy of the built-in is that policy. */
	f = fopen(theirs, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &n, '\0', f) > 0);
	fclose(f);
	path = write_tmp(text);
	free(text);
	if (il_policy_load(path, builtin_dir, &p, err, sizeof(err)) != 0)
		fail_msg("a copy of cfs.policy refused: %s", err);
	assert_string_equal(il_policy_name(p), "cfs");
	il_policy_free(p);
	unlink(want);
}

/* CRLF line ends are text (a file from Windows), a trailing comment after a
 * section header too: the same policy as with LF. */
static void test_policy_crlf_and_header_comment(void **state)
{
	struct il_policy *p = NULL;
	char err[512] = "";
	const char *path = write_tmp("[policy]  ; the header\r\nname = crlf\r\n[ui]\r\nclass = "
				     "other\r\nnice = 3\r\n");

	(void)state;
	if (il_policy_load(path, builtin_dir, &p, err, sizeof(err)) != 0)
		fail_msg("CRLF policy refused: %s", err);
	assert_string_equal(il_policy_name(p), "crlf");
	assert_int_equal(il_policy_role(p, IL_ROLE_UI)->nice, 3);
	il_policy_free(p);
}

/* A comment after a value may start with '#' as a line's does: "class =
 * fifo # the ui" was the unknown class "fifo # the ui". A '#' not after a
 * blank stays in the value. */
static void test_policy_inline_comments(void **state)
{
	struct il_policy *p = NULL;
	char err[512] = "";
	const char *path =
	    write_tmp("[policy] # the header\nname = in#line # a comment\n"
		      "description = hash  # comment ; more\n[ui]\nclass = fifo\t# tab\n"
		      "priority = 50 ; semicolon\n[io]\nclass = other # c\nnice = 2#\n");

	(void)state;
	assert_int_not_equal(il_policy_load(path, builtin_dir, &p, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "nice"));
	path = write_tmp("[policy] # the header\nname = in#line # a comment\n"
			 "description = hash  # comment ; more\n[ui]\nclass = fifo\t# tab\n"
			 "priority = 50 ; semicolon\n[io]\nclass = other # c\nnice = 2 #\n");
	if (il_policy_load(path, builtin_dir, &p, err, sizeof(err)) != 0)
		fail_msg("inline comments refused: %s", err);
	assert_string_equal(il_policy_name(p), "in#line");
	assert_string_equal(il_policy_description(p), "hash");
	assert_int_equal(il_policy_role(p, IL_ROLE_UI)->sched_class, SCHED_FIFO);
	assert_int_equal(il_policy_role(p, IL_ROLE_UI)->priority, 50);
	assert_int_equal(il_policy_role(p, IL_ROLE_IO)->nice, 2);
	il_policy_free(p);
}

/* A NUL byte anywhere is named as such, on its line (it once came out as
 * "line longer than 198 characters"). */
static void test_policy_nul_byte(void **state)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *msg;
	} cases[] = {
	    {"[ui]\nclass = oth\0er\n", 20, "2: a NUL byte (a policy file is text)"},
	    {"\0[ui]\nclass = other\n", 20, "1: a NUL byte (a policy file is text)"},
	    {"[ui]\nclass = other\n# ok\n\0", 25, "4: a NUL byte (a policy file is text)"},
	};
	char path[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/nul.policy", tmp_dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_policy *p = NULL;
		char err[512] = "", want[4400];
		FILE *f = fopen(path, "w");
		int r;

		assert_non_null(f);
		assert_int_equal(fwrite(cases[i].bytes, 1, cases[i].len, f), cases[i].len);
		fclose(f);
		r = il_policy_load(path, builtin_dir, &p, err, sizeof(err));
		snprintf(want, sizeof(want), "%s:%s", path, cases[i].msg);
		if (r != -EINVAL || strcmp(err, want) != 0)
			fail_msg("case %zu: r=%d\n got: %s\nwant: %s", i, r, err, want);
		assert_null(p);
	}
}

/* "optional" marks exactly the clamps it precedes, and blanks around it
 * do not matter. */
static void test_policy_optional(void **state)
{
	const char *path = write_tmp("[ui]\nclass = other\nnice = -8\noptional  uclamp_min = 20\n"
				     "uclamp_max = 90\n[gpu]\noptional\tuclamp_max = 0\n"
				     "[main]\nuclamp_min = 0\n");
	struct il_policy *p = NULL;
	char err[512] = "";
	assert_int_equal(il_policy_load(path, builtin_dir, &p, err, sizeof(err)), 0);
	const struct il_role_attrs *ui = il_policy_role(p, IL_ROLE_UI);
	assert_int_equal(ui->nice, -8);
	assert_true(ui->has_uclamp_min && ui->has_uclamp_max);
	assert_int_equal(ui->uclamp_min_pct, 20);
	assert_int_equal(ui->uclamp_max_pct, 90);
	assert_int_equal(ui->optional, IL_OPT_UCLAMP_MIN);
	const struct il_role_attrs *gpu = il_policy_role(p, IL_ROLE_GPU);
	assert_false(gpu->has_uclamp_min);
	assert_true(gpu->has_uclamp_max);
	assert_int_equal(gpu->uclamp_max_pct, 0);
	assert_int_equal(gpu->optional, IL_OPT_UCLAMP_MAX);
	const struct il_role_attrs *m = il_policy_role(p, IL_ROLE_MAIN);
	assert_true(m->has_uclamp_min);
	assert_int_equal(m->optional, 0);
	assert_false(il_policy_role(p, IL_ROLE_JS)->has_uclamp_min);
	il_policy_free(p);
	/* Chromium's rounding: (pct * 1024 + 50) / 100. */
	assert_int_equal(il_uclamp_pct_to_util(20), 205);
	assert_int_equal(il_uclamp_pct_to_util(100), 1024);
	assert_int_equal(il_uclamp_pct_to_util(0), 0);
}

/* A thread section replaces its role's section for that thread only. */
static void test_policy_thread_sections(void **state)
{
	const char *path = write_tmp("[io]\nclass = other\nnice = 2\n"
				     "[viz:io]\nclass = rr\npriority = 6\n");
	struct il_policy *p = NULL;
	const char *label = NULL;
	char err[512] = "";
	assert_int_equal(il_policy_load(path, builtin_dir, &p, err, sizeof(err)), 0);
	assert_true(il_policy_uses_rt(p));
	assert_int_equal(il_policy_thread(p, IL_ROLE_IO, "viz:io")->sched_class, SCHED_RR);
	assert_int_equal(il_policy_thread(p, IL_ROLE_IO, "viz:io")->priority, 6);
	assert_int_equal(il_policy_thread(p, IL_ROLE_IO, "render:io")->nice, 2);
	assert_int_equal(il_policy_thread(p, IL_ROLE_IO, NULL)->nice, 2);
	/* A thread named like a chain thread but of another role keeps its role's. */
	assert_int_equal(il_policy_thread(p, IL_ROLE_JS, "viz:io")->sched_class, SCHED_OTHER);
	assert_null(il_policy_thread(p, IL_ROLE_COUNT, "viz:io"));
	/* attrs_at: the roles, then the one thread section. */
	for (int r = 0; r < IL_ROLE_COUNT; r++) {
		assert_ptr_equal(il_policy_attrs_at(p, (size_t)r, &label), il_policy_role(p, r));
		assert_string_equal(label, il_role_name(r));
	}
	assert_ptr_equal(il_policy_attrs_at(p, IL_ROLE_COUNT, &label),
			 il_policy_thread(p, IL_ROLE_IO, "viz:io"));
	assert_string_equal(label, "viz:io");
	assert_null(il_policy_attrs_at(p, IL_ROLE_COUNT + 1, &label));
	il_policy_free(p);
}

/* chromeos and chromeos-rt give every thread what chromeos_expect.h says. */
static void test_policy_chromeos_builtins(void **state)
{
	const char *names[2] = {"chromeos", "chromeos-rt"};
	for (int k = 0; k < 2; k++) {
		struct il_policy *p = load_ok(names[k]);
		for (size_t i = 0; i < N_CHROMEOS_THREADS; i++) {
			const struct chromeos_thread *t = &chromeos_threads[i];
			const struct chromeos_attrs *w = k ? &t->rt : &t->shipped;
			const struct il_role_attrs *a = il_policy_thread(p, t->role, t->name);
			const char *who = t->name ? t->name : il_role_name(t->role);
			if (a->sched_class != w->sched_class || a->priority != w->priority ||
			    a->nice != w->nice || a->has_uclamp_min != (w->uclamp_min_pct >= 0) ||
			    a->has_uclamp_max != (w->uclamp_max_pct >= 0) ||
			    (a->has_uclamp_min && (int)a->uclamp_min_pct != w->uclamp_min_pct) ||
			    (a->has_uclamp_max && (int)a->uclamp_max_pct != w->uclamp_max_pct) ||
			    a->has_cpus || a->slice_ns)
				fail_msg("%s %s: %s prio %d nice %d uclamp %d/%d, want %s prio %d "
					 "nice %d uclamp %d/%d",
					 names[k], who, il_sched_class_name(a->sched_class),
					 a->priority, a->nice,
					 a->has_uclamp_min ? (int)a->uclamp_min_pct : -1,
					 a->has_uclamp_max ? (int)a->uclamp_max_pct : -1,
					 il_sched_class_name(w->sched_class), w->priority, w->nice,
					 w->uclamp_min_pct, w->uclamp_max_pct);
			/* Every clamp is optional: the policies run on kernels without uclamp. */
			assert_int_equal(a->optional,
					 (a->has_uclamp_min ? IL_OPT_UCLAMP_MIN : 0u) |
					     (a->has_uclamp_max ? IL_OPT_UCLAMP_MAX : 0u));
		}
		assert_int_equal(il_policy_uses_rt(p), k == 1);
		assert_false(il_policy_knobs(p)->has_rt_runtime ||
			     il_policy_knobs(p)->has_rt_period ||
			     il_policy_knobs(p)->has_fair_server);
		il_policy_free(p);
	}
}

static void test_policy_defaults_and_cpus(void **state)
{
	const char *path = write_tmp("[policy]\nname = mine\ndescription = test ; comment\n"
				     "[js]\nclass = batch\nnice = 5\ncpus = 0,2-3\n"
				     "[load]\nclass = idle\n");
	struct il_policy *p = NULL;
	char err[512] = "";
	assert_int_equal(il_policy_load(path, builtin_dir, &p, err, sizeof(err)), 0);
	assert_string_equal(il_policy_name(p), "mine");
	assert_string_equal(il_policy_description(p), "test");
	assert_string_equal(il_policy_path(p), path);
	const struct il_role_attrs *js = il_policy_role(p, IL_ROLE_JS);
	assert_int_equal(js->sched_class, SCHED_BATCH);
	assert_int_equal(js->nice, 5);
	assert_true(js->has_cpus);
	assert_int_equal(CPU_COUNT(&js->cpus), 3);
	assert_true(CPU_ISSET(0, &js->cpus) && CPU_ISSET(2, &js->cpus) && CPU_ISSET(3, &js->cpus));
	assert_int_equal(il_policy_role(p, IL_ROLE_LOAD)->sched_class, SCHED_IDLE);
	assert_int_equal(il_policy_role(p, IL_ROLE_UI)->sched_class, SCHED_OTHER);
	assert_false(il_policy_role(p, IL_ROLE_UI)->has_cpus);
	assert_null(il_policy_role(p, IL_ROLE_COUNT));
	assert_false(il_policy_uses_rt(p));
	il_policy_free(p);
	il_policy_free(NULL);
}

static void test_policy_class_names(void **state)
{
	static const int classes[] = {SCHED_OTHER, SCHED_BATCH, SCHED_IDLE,
				      SCHED_FIFO,  SCHED_RR,	SCHED_DEADLINE};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		assert_int_equal(il_sched_class_parse(il_sched_class_name(classes[i])), classes[i]);
	assert_int_equal(il_sched_class_parse("FIFO"), -EINVAL);
	assert_int_equal(il_sched_class_parse(NULL), -EINVAL);
	assert_null(il_sched_class_name(4));
	assert_null(il_sched_class_name(-1));
}

static void test_policy_cmd_policies(void **state)
{
	char out[8192], err[1024];
	char *list[] = {"policies", NULL};
	assert_int_equal(
	    il_test_capture(il_cmd_policies, 1, list, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(err, "");
	int lines = 0;
	for (char *l = out; *l; l = strchr(l, '\n') + 1, lines++)
		assert_non_null(strchr(l, '\n'));
	assert_int_equal(lines, 9);
	assert_true(strncmp(out, "cfs              every thread SCHED_OTHER nice 0", 48) == 0);
	assert_non_null(strstr(out, "\nrt-fair-server   "));

	char *show[] = {"policies", "show", "rt", NULL};
	assert_int_equal(
	    il_test_capture(il_cmd_policies, 3, show, out, sizeof(out), err, sizeof(err)), 0);
	assert_non_null(strstr(out, "\nevdev         fifo        60    -        -"));
	assert_non_null(strstr(out, "\nsched_rt_runtime_us    = -1"));
	char show_rt[8192];
	snprintf(show_rt, sizeof(show_rt), "%s", out);

	char *nope[] = {"policies", "show", "nope", NULL};
	assert_int_equal(
	    il_test_capture(il_cmd_policies, 3, nope, out, sizeof(out), err, sizeof(err)), 2);
	assert_string_equal(err, "inputlat policies: unknown policy 'nope' (built-ins: cfs, "
				 "cfs-chrome, chromeos, chromeos-rt, deadline, eevdf-slice, rt, "
				 "rt-fair-server, rt-throttled)\n");
	assert_string_equal(out, "");

	char *cros[] = {"policies", "show", "chromeos-rt", NULL};
	assert_int_equal(
	    il_test_capture(il_cmd_policies, 3, cros, out, sizeof(out), err, sizeof(err)), 0);
	assert_non_null(strstr(out, "\nevdev         rr           6    -        -          -"
				    "           -         - all   min 20? max 100?\n"));
	assert_non_null(strstr(out, "\nviz:io        rr           6    -"));
	assert_non_null(strstr(out, "\nrender:comp   rr           6    -"));

	/* A runtime valid beside a longer period: show says run refuses it
	 * beside this machine's (it showed the plan and nothing more). */
	int64_t period;
	char path[300], want[300];
	assert_int_equal(il_sysinfo_read_i64(IL_SYSINFO_RT_PERIOD, &period), 0);
	snprintf(path, sizeof(path), "%s/long-runtime.policy", tmp_dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "[knobs]\nsched_rt_runtime_us = %lld\n", (long long)period + 1);
	assert_int_equal(fclose(f), 0);
	char *longer[] = {"policies", "show", path, NULL};
	assert_int_equal(
	    il_test_capture(il_cmd_policies, 3, longer, out, sizeof(out), err, sizeof(err)), 0);
	snprintf(want, sizeof(want),
		 "\n# run refuses these on this machine: sched_rt_runtime_us %lld > "
		 "sched_rt_period_us %lld (want -1 or at most the period)\n",
		 (long long)period + 1, (long long)period);
	assert_non_null(strstr(out, want));
	assert_null(strstr(show_rt, "run refuses"));

	char *bad[] = {"policies", "frob", NULL};
	assert_int_equal(
	    il_test_capture(il_cmd_policies, 2, bad, out, sizeof(out), err, sizeof(err)), 2);
	assert_string_equal(err, "inputlat policies: unexpected 'frob' (want: inputlat policies "
				 "[show NAME|PATH])\n");
}

/*
 * A built-ins' directory without a policy (IL_POLICY_DIR pointing at the
 * wrong place): 'policies' says so in one line and fails, and a name is
 * unknown for that reason. It printed nothing and exited 0, after
 * qsort(NULL, 0, ...), which UBSan flags; an unreadable directory is its
 * error.
 */
static void test_policy_cmd_policies_no_builtins(void **state)
{
	char empty[300], out[1024], err[1024], want[600];
	const char *dirs[] = {empty, "/", "/proc"};
	char *list[] = {"policies", NULL}, *show[] = {"policies", "show", "rt", NULL};
	struct il_policy *p = NULL;

	(void)state;
	snprintf(empty, sizeof(empty), "%s/no-policies", tmp_dir);
	assert_int_equal(mkdir(empty, 0755), 0);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		setenv("IL_POLICY_DIR", dirs[i], 1);
		assert_int_equal(
		    il_test_capture(il_cmd_policies, 1, list, out, sizeof(out), err, sizeof(err)),
		    1);
		snprintf(want, sizeof(want), "inputlat policies: no *.policy files in %s\n",
			 dirs[i]);
		assert_string_equal(err, want);
		assert_string_equal(out, "");
		assert_int_equal(
		    il_test_capture(il_cmd_policies, 3, show, out, sizeof(out), err, sizeof(err)),
		    2);
		snprintf(want, sizeof(want),
			 "inputlat policies: unknown policy 'rt' (no built-ins: no *.policy files "
			 "in %s)\n",
			 dirs[i]);
		assert_string_equal(err, want);
		/* What 'run --policy rt' says: il_policy_load's line. */
		assert_int_equal(il_policy_load("rt", dirs[i], &p, err, sizeof(err)), -ENOENT);
		assert_null(p);
	}
	assert_int_equal(il_policy_load("rt", "/nonexistent", &p, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown policy 'rt' (no built-ins: /nonexistent: No such file "
				 "or directory)");
	setenv("IL_POLICY_DIR", builtin_dir, 1);
}

/*
 * 'check' with no policy in its directory says so, as 'policies' does: it
 * printed every capability, no policy line, and exited 0 (with --json, a
 * "policies": [] beside them), as if there were none to judge. It still
 * checks (and restores what a dead run left) first: its capabilities are
 * printed, then the one line, exit 1.
 */
static void test_policy_cmd_check_no_builtins(void **state)
{
	char empty[300], out[1 << 14], err[1024], want[600];
	const char *dirs[] = {empty, "/", "/proc"};
	char *text[] = {"check", NULL}, *json[] = {"check", "--json", NULL};

	(void)state;
	snprintf(empty, sizeof(empty), "%s/no-policies-check", tmp_dir);
	assert_int_equal(mkdir(empty, 0755), 0);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		setenv("IL_POLICY_DIR", dirs[i], 1);
		snprintf(want, sizeof(want), "inputlat check: no *.policy files in %s\n", dirs[i]);
		assert_int_equal(
		    il_test_capture(il_cmd_check, 1, text, out, sizeof(out), err, sizeof(err)), 1);
		assert_string_equal(err, want);
		assert_non_null(strstr(out, "\nSCHED_FIFO on a test thread: "));
		assert_null(strstr(out, "policy rt:"));
		assert_int_equal(
		    il_test_capture(il_cmd_check, 2, json, out, sizeof(out), err, sizeof(err)), 1);
		assert_string_equal(err, want);
		{
			cJSON *j = cJSON_Parse(out);
			const cJSON *pol = cJSON_GetObjectItemCaseSensitive(j, "policies");

			assert_true(cJSON_IsArray(pol));
			assert_int_equal(cJSON_GetArraySize(pol), 0);
			cJSON_Delete(j);
		}
	}
	setenv("IL_POLICY_DIR", "/nonexistent", 1);
	assert_int_equal(il_test_capture(il_cmd_check, 1, text, out, sizeof(out), err, sizeof(err)),
			 1);
	assert_string_equal(err, "inputlat check: /nonexistent: No such file or directory\n");
	assert_non_null(strstr(out, "\nSCHED_FIFO on a test thread: "));
	setenv("IL_POLICY_DIR", builtin_dir, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_policy_builtins_listed),
	    cmocka_unit_test(test_policy_builtins_load),
	    cmocka_unit_test(test_policy_builtin_values),
	    cmocka_unit_test(test_policy_unknown_name),
	    cmocka_unit_test(test_policy_broken_files),
	    cmocka_unit_test(test_policy_builtin_name_taken),
	    cmocka_unit_test(test_policy_nul_byte),
	    cmocka_unit_test(test_policy_crlf_and_header_comment),
	    cmocka_unit_test(test_policy_inline_comments),
	    cmocka_unit_test(test_policy_optional),
	    cmocka_unit_test(test_policy_thread_sections),
	    cmocka_unit_test(test_policy_chromeos_builtins),
	    cmocka_unit_test(test_policy_defaults_and_cpus),
	    cmocka_unit_test(test_policy_class_names),
	    cmocka_unit_test(test_policy_cmd_policies),
	    cmocka_unit_test(test_policy_cmd_policies_no_builtins),
	    cmocka_unit_test(test_policy_cmd_check_no_builtins),
	};
	if (il_test_filters("test_policy", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
