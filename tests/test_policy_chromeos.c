/*
 * Chrome's own policies end to end (issues 15 and 20): `chromeos` and
 * `chromeos-rt` run for real, and every thread is read back twice, live
 * from the kernel while the run goes and from the report after it, and
 * compared with chromeos_expect.h: class, priority, nice and the clamps.
 * Where the kernel has no uclamp (this machine, every Debian 12 kernel)
 * the run must go on without the optional clamps and say so: "uclamp":
 * "unsupported: ..." on each thread that asked, one warnings[] entry, one
 * stderr line, no clamp in the read-back. A clamp not marked optional
 * stops the run before anything starts.
 *
 * Neither policy touches a system knob. Runs here are bounded (100
 * events) and leave no process behind: the test is their subreaper and
 * kills only the pid it started.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chromeos_expect.h"
#include "il_policy.h"
#include "il_sched.h"
#include "il_sysinfo.h"
#include "il_file.h"
#include "il_test.h"
#include "il_test_proc.h"

#define NCHAIN_THREADS 10 /* the named rows of chromeos_threads[] */
#define EVENTS	       100

static const char *const chain_procs[] = {"browser-sim", "render-sim", "viz-sim"};
static pid_t live_run;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process of a chain thread: "viz:io" lives in viz-sim. */
static int proc_of(const char *thread)
{
	return strncmp(thread, "browser:", 8) == 0 ? 0 : strncmp(thread, "render:", 7) == 0 ? 1 : 2;
}

/* The tid of the thread named name in process pid, 0 if none (yet). */
static pid_t find_thread(pid_t pid, const char *name)
{
	char path[64], comm[64], p[320];
	struct dirent *e;
	pid_t tid = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && !tid && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task/%s/comm", (int)pid, e->d_name);
		if (il_test_read_file(p, comm, sizeof(comm)) <= 0)
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		if (strcmp(comm, name) == 0)
			tid = (pid_t)strtol(e->d_name, NULL, 10);
	}
	if (d)
		closedir(d);
	return tid;
}

/*
 * The kernel's view s of one thread against w. Where the kernel has
 * uclamp the asked clamps must read back exactly (205 = 20%), else no
 * clamp may show at all. why says what differs.
 */
static bool state_matches(const struct chromeos_attrs *w, const struct il_sched_state *s,
			  bool uclamp, char *why, size_t len)
{
	if (s->sched_class != w->sched_class || s->priority != w->priority || s->nice != w->nice) {
		snprintf(why, len, "%s prio %d nice %d, want %s prio %d nice %d",
			 il_sched_class_name(s->sched_class), s->priority, s->nice,
			 il_sched_class_name(w->sched_class), w->priority, w->nice);
		return false;
	}
	if (s->has_uclamp != uclamp) {
		snprintf(why, len, "read-back %s clamps on a kernel %s uclamp",
			 s->has_uclamp ? "has" : "lacks", uclamp ? "with" : "without");
		return false;
	}
	if (uclamp && w->uclamp_min_pct >= 0 &&
	    (s->util_min != il_uclamp_pct_to_util((unsigned)w->uclamp_min_pct) ||
	     s->util_max != il_uclamp_pct_to_util((unsigned)w->uclamp_max_pct))) {
		snprintf(why, len, "util %u/%u, want %u/%u", s->util_min, s->util_max,
			 il_uclamp_pct_to_util((unsigned)w->uclamp_min_pct),
			 il_uclamp_pct_to_util((unsigned)w->uclamp_max_pct));
		return false;
	}
	return true;
}

static const struct chromeos_attrs *want_of(const struct chromeos_thread *t, bool rt)
{
	return rt ? &t->rt : &t->shipped;
}

/* Polls the live chain until every chain thread exists and matches, the
 * run ends, or 15 s pass. */
static bool live_check(pid_t run, bool rt, bool uclamp, char *why, size_t len)
{
	double t0 = now_s();
	pid_t kids[3] = {0};

	snprintf(why, len, "the run ended before its threads were seen");
	while (now_s() - t0 < 15) {
		int ok = 0;

		for (int i = 0; i < 3; i++)
			if (!kids[i])
				kids[i] = il_test_find_child(run, chain_procs[i]);
		for (int i = 0; i < NCHAIN_THREADS; i++) {
			const struct chromeos_thread *t = &chromeos_threads[i];
			pid_t kid = kids[proc_of(t->name)];
			pid_t tid = kid ? find_thread(kid, t->name) : 0;
			struct il_sched_state s;
			char d[200];

			if (!tid || il_sched_read(tid, &s) != 0) {
				snprintf(why, len, "%s not (yet) there", t->name);
				break;
			}
			if (!state_matches(want_of(t, rt), &s, uclamp, d, sizeof(d))) {
				/* Threads apply their policy themselves as they start. */
				snprintf(why, len, "%s tid %d: %s", t->name, (int)tid, d);
				break;
			}
			ok++;
		}
		if (ok == NCHAIN_THREADS)
			return true;
		if (waitpid(run, NULL, WNOHANG) == run) {
			live_run = 0;
			return false;
		}
		usleep(2000);
	}
	return false;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v))
		fail_msg("'%s' is missing or not a string", key);
	return v->valuestring;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("'%s' is missing or not a number", key);
	return v->valuedouble;
}

/* The threads[] entry, as the report flattens it, back into a state. */
static void json_state(const cJSON *t, struct il_sched_state *s)
{
	const cJSON *umin = cJSON_GetObjectItemCaseSensitive(t, "util_min");
	const cJSON *umax = cJSON_GetObjectItemCaseSensitive(t, "util_max");

	memset(s, 0, sizeof(*s));
	s->sched_class = il_sched_class_parse(str(t, "policy"));
	s->priority = (int)num(t, "priority");
	s->nice = (int)num(t, "nice");
	s->has_uclamp = cJSON_IsNumber(umin) && cJSON_IsNumber(umax);
	if (s->has_uclamp) {
		s->util_min = (uint32_t)umin->valuedouble;
		s->util_max = (uint32_t)umax->valuedouble;
	} else if (!cJSON_IsString(umin) || !cJSON_IsString(umax) ||
		   strncmp(umin->valuestring, "unsupported: ", 13) != 0) {
		fail_msg("%s: util_min/util_max neither numbers nor 'unsupported: ...'",
			 str(t, "name"));
	}
}

/* How a work-accuracy warning begins in the report's warnings[], and on
 * stderr (harness/il_report.c, il_report_check): "work: " (the CPU's
 * speed) or "work cost: " (one handler's fixed cost). */
#define WORK_PREFIX  "work"
#define WORK_WARNING "warning: " WORK_PREFIX
/* And a memory-locking one: true of the build (AddressSanitizer's
 * mlockall locks nothing), not of the policy checked here. */
#define MEMORY_PREFIX  "memory: "
#define MEMORY_WARNING "warning: " MEMORY_PREFIX

/* Lines of text containing needle. */
static int count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (memmem(l, len, needle, strlen(needle)))
			n++;
		l += len + (nl != NULL);
	}
	return n;
}

/* One built-in, run with a JavaScript hog and a load thread so js and load
 * report too: js-bursty under chromeos, the never-blocking miner under
 * chromeos-rt (issue 15's acceptance: its js thread stays on CFS). */
static void run_builtin(const char *name, bool rt)
{
	char json[300], out[300], err[300], why[400];
	/* Every event must complete: what is checked is the policy, not
	 * latency, so a loaded machine gets 20 s per event (--timeout-ms). */
	char *argv[] = {il_test_suite.inputlat,
			"run",
			"--policy",
			(char *)name,
			"--events",
			"100",
			"--interval-ms",
			"10",
			"--timeout-ms",
			"20000",
			"--hog",
			"1",
			"--hog-mode",
			rt ? "js" : "js-bursty",
			"--load",
			"1",
			"--quiet",
			"--json",
			json,
			NULL};
	static char text[65536];
	char ureason[160];
	bool uclamp;
	int status, nthreads = 0, nwork, nmem;
	cJSON *root, *t, *w;

	if (geteuid() != 0)
		IL_TEST_SKIP("policy %s needs root (negative nice%s)", name,
			     rt ? ", SCHED_RR" : "");
	uclamp = il_sysinfo_uclamp(ureason, sizeof(ureason)) == 1;
	snprintf(json, sizeof(json), "%s/%s.json", il_test_suite.tmpdir, name);
	snprintf(out, sizeof(out), "%s/%s.out", il_test_suite.tmpdir, name);
	snprintf(err, sizeof(err), "%s/%s.err", il_test_suite.tmpdir, name);

	live_run = il_test_spawn(argv, out, err);
	assert_true(live_run > 0);
	bool live_ok = live_check(live_run, rt, uclamp, why, sizeof(why));
	status = live_run ? il_test_wait(live_run, 60000, NULL) : 0;
	live_run = 0;
	il_test_read_file(err, text, sizeof(text));
	if (!live_ok)
		fail_msg("%s, live: %s (stderr: %s)", name, why, text);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fail_msg("%s: status 0x%x: %s", name, status, text);

	/*
	 * stderr: exactly one warning, the uclamp one, where uclamp is missing,
	 * besides work-accuracy ones: those say the host ran slower than its
	 * calibration during the run (seen here: 2 and 11 lines on a busy
	 * host) or that a small handler paid a fixed cost per call, which is
	 * true of the host, not of the policy checked here.
	 */
	nwork = count_lines(text, WORK_WARNING);
	if (nwork)
		print_message("%s: %d work-accuracy warning(s), not counted (a slow host)\n", name,
			      nwork);
	nmem = count_lines(text, MEMORY_WARNING);
	if (nmem)
		print_message("%s: %d memory-locking warning(s), not counted (the build's)\n", name,
			      nmem);
	nwork += nmem;
	assert_int_equal(count_lines(text, "warning:") - nwork, uclamp ? 0 : 1);
	if (!uclamp) {
		char line[512];

		snprintf(line, sizeof(line),
			 "inputlat run: warning: policy %s: optional uclamp_min "
			 "and uclamp_max not applied to evdev, ui, compositor, gpu, drm, %s: %s\n",
			 name, rt ? "render:comp, viz:io" : "viz:io", ureason);
		if (!strstr(text, line))
			fail_msg("stderr lacks '%s': %s", line, text);
	}

	/* The whole report (with attribution it outgrows any fixed buffer). */
	{
		char jerr[512];

		if (il_json_load(json, &root, jerr, sizeof(jerr)) < 0)
			fail_msg("%s: %s", name, jerr);
	}
	assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(root, "events"), "completed"),
			 EVENTS);
	/* The report's warnings: the same, the work-accuracy ones aside. */
	w = cJSON_GetObjectItemCaseSensitive(root, "warnings");
	assert_true(cJSON_IsArray(w));
	{
		const char *other = NULL;
		int nother = 0, nwork_json = 0;

		cJSON_ArrayForEach (t, w) {
			const char *msg = cJSON_GetStringValue(t);

			assert_non_null(msg);
			if (strncmp(msg, WORK_PREFIX, strlen(WORK_PREFIX)) == 0 ||
			    strncmp(msg, MEMORY_PREFIX, strlen(MEMORY_PREFIX)) == 0) {
				nwork_json++;
			} else {
				other = msg;
				nother++;
			}
		}
		assert_int_equal(nwork_json, nwork);
		assert_int_equal(nother, uclamp ? 0 : 1);
		if (!uclamp) {
			assert_non_null(
			    strstr(other, "optional uclamp_min and uclamp_max not applied"));
			assert_non_null(strstr(other, ureason));
		}
	}
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(root, "threads")) {
		const struct chromeos_thread *row = NULL;
		const char *tname = str(t, "name");
		int role = il_role_parse(str(t, "role"));
		struct il_sched_state s;
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(t, "uclamp");
		char d[200];

		for (size_t i = 0; i < N_CHROMEOS_THREADS && !row; i++)
			if (chromeos_threads[i].name ? strcmp(chromeos_threads[i].name, tname) == 0
						     : (int)chromeos_threads[i].role == role)
				row = &chromeos_threads[i];
		if (!row)
			fail_msg("%s: threads[] has %s (role %s), which the table lacks", name,
				 tname, str(t, "role"));
		json_state(t, &s);
		if (!state_matches(want_of(row, rt), &s, uclamp, d, sizeof(d)))
			fail_msg("%s: report, %s: %s", name, tname, d);
		/* The threads that asked for clamps say what became of them. */
		if (want_of(row, rt)->uclamp_min_pct >= 0) {
			char want[200];

			snprintf(want, sizeof(want), "unsupported: %s", ureason);
			assert_true(cJSON_IsString(u));
			assert_string_equal(u->valuestring, uclamp ? "applied" : want);
		} else {
			assert_null(u);
		}
		nthreads++;
	}
	/* The chain's ten, one hog, one load, the canary. */
	assert_int_equal(nthreads, NCHAIN_THREADS + 3);
	/* The hog ran the miner. */
	w = cJSON_GetObjectItemCaseSensitive(root, "hog");
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(w, "mode"))) {
		/* Say what the report had instead: render-sim's final stats. */
		char *t = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(root, "processes"), "render-sim"));

		fail_msg("%s: report's hog has no mode; hog is %s, render-sim's stats: %s", name,
			 cJSON_IsNull(w) ? "null"
			 : w		 ? "an object"
					 : "missing",
			 t ? t : "missing");
	}
	assert_string_equal(str(w, "mode"), rt ? "js" : "js-bursty");
	assert_non_null(strstr(str(w, "script"), "miner.js"));
	assert_int_equal(num(w, "js_errors"), 0);
	assert_true(num(cJSON_GetArrayItem(cJSON_GetObjectItem(w, "per_thread"), 0), "iterations") >
		    0);
	cJSON_Delete(root);
	assert_int_equal(il_test_count_project_procs(), 0);
}

static void test_policy_chromeos_shipped(void **state)
{
	run_builtin("chromeos", false);
}

static void test_policy_chromeos_rt(void **state)
{
	run_builtin("chromeos-rt", true);
}

/* A clamp not marked optional, on a kernel without uclamp: one line,
 * exit 2, and nothing started. */
static void test_policy_chromeos_required_uclamp(void **state)
{
	char path[300], why[160], want[512];
	char *argv[] = {il_test_suite.inputlat, "run", "--policy", path, "--events", "5", NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	FILE *f;

	assert_non_null(res);
	if (il_sysinfo_uclamp(why, sizeof(why)) != 0) {
		free(res);
		IL_TEST_SKIP("this kernel has uclamp (%s): a required clamp is applied", why);
	}
	snprintf(path, sizeof(path), "%s/required.policy", il_test_suite.tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[policy]\nname = required\n[ui]\nclass = other\nuclamp_min = 20\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(il_test_run(argv, 20000, res), 0);
	snprintf(want, sizeof(want),
		 "inputlat run: policy required: [ui] uclamp_min = 20 needs "
		 "uclamp: %s (write 'optional uclamp_min = 20' to run without it)\n",
		 why);
	assert_int_equal(res->exit_code, 2);
	assert_string_equal(res->err, want);
	assert_string_equal(res->out, "");
	assert_int_equal(il_test_count_project_procs(), 0);
	free(res);
}

static int teardown(void **state)
{
	if (live_run > 0) {
		kill(live_run, SIGKILL);
		waitpid(live_run, NULL, 0);
		live_run = 0;
	}
	return 0;
}

/* Not il_test_suite_teardown: a run reaped here by waitpid is still on
 * il_test_spawn's list, and its pid must not be signalled again. */
static int group_teardown(void **state)
{
	teardown(state);
	return il_test_paths_close(&il_test_suite) < 0 ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_policy_chromeos_required_uclamp, teardown),
	    cmocka_unit_test_teardown(test_policy_chromeos_shipped, teardown),
	    cmocka_unit_test_teardown(test_policy_chromeos_rt, teardown),
	};

	if (il_test_filters("test_policy_chromeos", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_suite_setup, group_teardown);
}
