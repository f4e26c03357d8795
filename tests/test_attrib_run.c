/*
 * Whole runs with attribution (issue 12): `inputlat run --attribution on`
 * under background load, under an RT hog and with a CFS hog, then what
 * the report, --records, --trace, --trace-marker and `inputlat explain`
 * say about them:
 *   - every completed event explained, the residual within 5% of
 *     processing latency for at least 95% of them, stamps and kernel
 *     consistent, send + wake + runqueue + dispatch = stamp k - end k-1
 *     for asleep receivers (within 2 us);
 *   - each pipeline thread's run-queue wait from schedstat over the run
 *     agrees with its attributed run-queue total within 10% (CFS threads:
 *     il_attrib_run.c says why RT threads' schedstat misses microseconds);
 *   - the JS hogs are named as the culprit under --hog;
 *   - --attribution off leaves it out and says so;
 *   - --trace-marker's account: what reached the trace buffer, and (in a
 *     stand-in tracefs of a private mount namespace) tracing off and a
 *     trace_marker that refuses writes, said rather than hidden.
 * Needs root (BPF; rt needs SCHED_FIFO); each case skips with the reason.
 * Runs the machine: registered to run under the machine lock.
 */
#include "il_test.h"
#include "il_test_proc.h"

#include "il_chain.h"
#include "il_clock.h"
#include "il_cmd.h"
#include "il_file.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define RUN_TIMEOUT_MS 90000

static char bpf_why[256];

static void need_bpf(void)
{
	IL_TEST_NEED_ROOT("attribution (BPF)");
	IL_TEST_NEED(!bpf_why[0], "%s", bpf_why);
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", il_test_suite.tmpdir, name);
}

/* Runs inputlat with args (NULL-terminated, after "run"); fails unless it exits 0. */
static struct il_test_result *run(const char *what, ...)
{
	char *argv[40] = {il_test_suite.inputlat, "run"};
	struct il_test_result *res = calloc(1, sizeof(*res));
	int argc = 2;
	va_list ap;

	assert_non_null(res);
	va_start(ap, what);
	while (argc < 39 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	assert_int_equal(il_test_run(argv, RUN_TIMEOUT_MS, res), 0);
	print_message("%s: exit %d in %.1f s\n%s", what, res->exit_code, res->elapsed_s, res->err);
	if (res->exit_code != 0)
		fail_msg("%s: exit %d: %s", what, res->exit_code, res->err);
	return res;
}

static const cJSON *attribution(const cJSON *root)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "attribution");

	assert_non_null(a);
	return a;
}

/* What every run with attribution on must show. */
static void check_run(const cJSON *root, const char *what, bool under_load)
{
	const cJSON *a = attribution(root), *check, *t, *h;
	double explained, within5;
	unsigned pipeline = 0, compared = 0, agreed = 0;

	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "available")));
	explained = il_test_json_num(a, "events_explained_pct");
	within5 = il_test_json_num(a, "residual_within_5pct_pct");
	check = cJSON_GetObjectItemCaseSensitive(a, "check");
	print_message("%s: explained %.1f%%, residual <= 5%% for %.1f%% of events (p50 %.2f%%, p95 "
		      "%.2f%%), consistent %.1f%%, identity %.1f%%, BPF %.1f ns/run, %g events, "
		      "%g dropped, drains at most %.1f ms apart\n",
		      what, explained, within5, il_json_num(a, "residual_pct.p50"),
		      il_json_num(a, "residual_pct.p95"), il_test_json_num(check, "consistent_pct"),
		      il_test_json_num(check, "identity_within_2us_pct"),
		      il_json_num(a, "bpf.ns_per_run"), il_json_num(a, "bpf.events"),
		      il_json_num(a, "bpf.drops"), il_json_num(a, "bpf.longest_drain_gap_ms"));
	assert_true(explained >= 95);
	assert_true(within5 >= 95);
	assert_true(il_test_json_num(check, "consistent_pct") >= 95);
	assert_true(il_test_json_num(check, "identity_within_2us_pct") >= 99);
	assert_true(il_json_num(a, "bpf.ns_per_run") > 0);
	/*
	 * Events the ring had no room for are counted and said (bpf.drops);
	 * what this judges is what was explained despite them, above. Under
	 * ASan, beside the other lanes, the reader fell behind here (1662 of
	 * 48423 events once, 99.5% still explained; 5977 of 48868 on another
	 * machine, 100%): the other lanes' runs fill the rings with switches
	 * (every switch on a CPU where a followed thread waits is kept) while
	 * ASan's orchestrator waits for a CPU. The rings are judged where
	 * the reader kept its cadence: drops after no
	 * gap between drains longer than five of its 20 ms ticks mean rings
	 * too small for the switch rate, which is this project's to fix;
	 * drops after a longer gap are a reader held off its CPU, reported
	 * as such (longest_drain_gap_before_drops_ms), and said here.
	 */
	{
		double drops = il_json_num(a, "bpf.drops"), events = il_json_num(a, "bpf.events");
		double gap = il_json_num(a, "bpf.longest_drain_gap_ms");
		const cJSON *dgap = il_json_get(a, "bpf.longest_drain_gap_before_drops_ms");

		assert_true(il_json_num(a, "bpf.ring_slots_per_cpu") >= 1024);
		assert_true(gap > 0 && gap < RUN_TIMEOUT_MS);
		/* A gap before drops is one of the gaps; none without drops. */
		assert_true(drops > 0 ? cJSON_IsNumber(dgap) && dgap->valuedouble <= gap
				      : cJSON_IsNull(dgap));
		if (drops > 0.10 * events && dgap->valuedouble <= 100)
			fail_msg("%s: %g of %g events dropped, though the reader drained at "
				 "least every %.1f ms before each drop",
				 what, drops, events, dgap->valuedouble);
		if (drops > 0.10 * events)
			print_message("%s: %g of %g events dropped after the reader was held "
				      "off for %.1f ms (not judged: the machine's, said in the "
				      "report)\n",
				      what, drops, events, dgap->valuedouble);
	}

	/* schedstat, read by the harness at the capture's start and stop. */
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(a, "threads")) {
		const cJSON *rule;
		double cap, ss, waits, slack;
		bool comparable;

		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "pipeline")))
			continue;
		/* The captured waits counted as run_delay counts them. */
		rule = cJSON_GetObjectItemCaseSensitive(t, "runqueue_as_schedstat_ms");
		cap = cJSON_IsNumber(rule) ? rule->valuedouble : NAN;
		slack = il_json_num(t, "runqueue_as_schedstat_slack_ms");
		ss = il_test_json_num(t, "schedstat_run_delay_ms");
		waits = il_test_json_num(t, "waits");
		comparable =
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "schedstat_comparable"));
		print_message("  %-14s runqueue %8.3f ms (+%.3f unseen, clipped %8.3f), schedstat "
			      "%8.3f ms, %4.0f waits%s%s\n",
			      il_test_json_str(t, "name"), cap, slack,
			      il_test_json_num(t, "runqueue_ms"), ss, waits,
			      comparable ? "" : " not compared: ",
			      comparable	     ? ""
			      : cJSON_IsString(rule) ? rule->valuestring
						     : "RT (il_attrib_run.c)");
		if (comparable) {
			/* Within 10%, beyond what unseen switch-ins leave open. */
			if (cap <= 1.1 * ss && ss <= cap + slack + 0.1 * ss)
				agreed++;
			else
				print_message("  ^ captured run-queue time off schedstat's by "
					      "more than 10%%\n");
			compared++;
		}
		pipeline++;
	}
	assert_int_equal(pipeline, IL_T_COUNT);
	/*
	 * The capture agrees with the kernel's own count for most CFS threads.
	 * Compared as the kernel counts (each whole wait, when it ends between
	 * the readings), they agreed within 3% where the clipped totals had
	 * been 13-36% off for one or two threads a run on a loaded host. At
	 * least seven in ten must agree within 10%.
	 */
	if (compared)
		assert_true(agreed * 10 >= compared * 7);
	/* Every CFS pipeline thread is compared. */
	if (under_load)
		assert_int_equal(compared, pipeline);

	/*
	 * Each followed thread's running time between the readings beside the
	 * kernel's own time on a CPU (schedstat's first field), which runs a
	 * few us a switch-in above the switch times: the capture must not go
	 * over it. The orchestrator's once read 20-50 ms above perf's (a fold
	 * ahead of the events counted a stretch twice).
	 */
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(a, "threads"))
		print_message(
		    "  %-14s running %8.3f ms (+%.3f unseen), schedstat on a CPU %8.3f ms\n",
		    il_test_json_str(t, "name"), il_json_num(t, "running_as_schedstat_ms"),
		    il_json_num(t, "running_as_schedstat_slack_ms"),
		    il_json_num(t, "schedstat_on_cpu_ms"));
	print_message("%s: running within schedstat's for %.0f%% of %.0f threads\n", what,
		      il_json_num(check, "running_within_schedstat_pct"),
		      il_json_num(check, "running_compared"));
	assert_true(il_test_json_num(check, "running_compared") >= IL_T_COUNT);
	/* A switch-out the ring had no room for leaves a thread running on in
	 * the capture: with drops, most threads must still be within. */
	if (il_json_num(a, "bpf.drops") > 0)
		assert_true(il_test_json_num(check, "running_within_schedstat_pct") >= 75);
	else
		assert_true(il_test_json_num(check, "running_within_schedstat_pct") == 100);

	/* hops[] has the user-space split, from the stamps. */
	cJSON_ArrayForEach (h, cJSON_GetObjectItemCaseSensitive(root, "hops")) {
		double work = il_test_json_num(h, "work_p50_us"),
		       queue = il_test_json_num(h, "queue_p50_us");

		assert_true(work >= 0 && queue >= 0);
	}
}

/* Every completed record carries its breakdown, and each hop adds up. */
static void check_records(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;

	assert_non_null(f);
	while (getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line), *h;
		const cJSON *a;

		assert_non_null(o);
		/* Warm-up events are not attributed, as they are in no statistic. */
		if (strcmp(il_test_json_str(o, "state"), "completed") ||
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "warmup"))) {
			cJSON_Delete(o);
			continue;
		}
		a = cJSON_GetObjectItemCaseSensitive(o, "attribution");
		assert_non_null(a);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "explained"))) {
			cJSON_ArrayForEach (h, cJSON_GetObjectItemCaseSensitive(a, "hops")) {
				const cJSON *c,
				    *comps = cJSON_GetObjectItemCaseSensitive(h, "components_us");
				double sum = 0;

				cJSON_ArrayForEach (c, comps)
					sum += c->valuedouble;
				/* Each component is rounded to 10 ns. */
				assert_true(fabs(sum - il_test_json_num(h, "total_us")) <= 0.1);
			}
			n++;
		}
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	assert_true(n > 0);
}

/* A busy process whose name is not UTF-8 (prctl PR_SET_NAME takes any
 * bytes), on the last CPU for at most 60 s; killed by its pid after. */
#define BAD_NAME                                                                                   \
	"\xff\xfe"                                                                                 \
	"bad"

static pid_t start_bad_name_hog(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		cpu_set_t one;
		uint64_t end = il_now_ns() + 60ull * 1000000000ull;

		CPU_ZERO(&one);
		CPU_SET((int)sysconf(_SC_NPROCESSORS_ONLN) - 1, &one);
		sched_setaffinity(0, sizeof(one), &one);
		prctl(PR_SET_NAME, BAD_NAME, 0, 0, 0);
		while (il_now_ns() < end)
			;
		_exit(0);
	}
	return pid;
}

/* The whole file is valid UTF-8, and whether it holds the bad name (as
 * U+FFFD U+FFFD "bad"). */
static bool valid_utf8(const char *path, bool *has_bad)
{
	size_t len;
	char *text = il_file_read(path, 1 << 28, &len);
	bool ok = text != NULL;

	for (size_t i = 0; ok && i < len; i += il_utf8_len((unsigned char *)text + i))
		ok = il_utf8_len((unsigned char *)text + i) != 0;
	*has_bad = text && strstr(text, "\xef\xbf\xbd\xef\xbf\xbd"
					"bad");
	free(text);
	return ok;
}

static void test_attrib_run_load(void **state)
{
	char json[300], rec[300], trace[300], policy[300], out[1 << 16], err[4096];
	struct il_test_result *res;
	cJSON *root, *tr;
	FILE *f;
	const cJSON *e;
	unsigned sched = 0, hops = 0;
	char *argv[] = {"explain", json, "--percentile", "99", NULL};
	bool bad_seen = false;
	double win_from, win_to;
	pid_t bad;

	need_bpf();
	path_of(json, sizeof(json), "load.json");
	path_of(rec, sizeof(rec), "load.records");
	path_of(trace, sizeof(trace), "load.trace");
	/* Beside the load, a process named in bytes that are not UTF-8: it
	 * holds CPUs the pipeline waits for, so the per-CPU tracks (and maybe
	 * the records' culprits) name it, and the outputs stay valid UTF-8. */
	/*
	 * cfs, with render:main on the hog's CPU so that it surely waits
	 * behind it: left to the balancer, the pipeline's threads once never
	 * waited on that CPU (beside the load and the qemu VM test), and the
	 * name appeared nowhere.
	 */
	path_of(policy, sizeof(policy), "cfs-main-by-bad.policy");
	f = fopen(policy, "w");
	assert_non_null(f);
	fprintf(f,
		"[policy]\nname = cfs-main-by-bad\ndescription = cfs, render:main on the last "
		"CPU\n[render:main]\nclass = other\ncpus = %ld\n",
		sysconf(_SC_NPROCESSORS_ONLN) - 1);
	assert_int_equal(fclose(f), 0);
	bad = start_bad_name_hog();
	res = run("cfs --load 2", "--policy", policy, "--load", "2", "--events", "200",
		  "--attribution", "on", "--json", json, "--records", rec, "--trace", trace,
		  "--trace-events", "50", NULL);
	kill(bad, SIGKILL);
	assert_int_equal(waitpid(bad, NULL, 0), bad);
	free(res);
	assert_true(valid_utf8(json, &bad_seen));
	assert_true(valid_utf8(rec, &bad_seen));
	assert_true(valid_utf8(trace, &bad_seen));
	print_message("the bad-name process is in the trace: %s\n", bad_seen ? "yes" : "no");
	assert_true(bad_seen);
	root = il_test_json_load(json);
	check_run(root, "cfs --load 2", true);
	/* The capture's window, on the clock the trace's hop slices use. */
	win_from = il_test_json_num(il_json_get(root, "attribution.capture_window_ns"), "from");
	win_to = il_test_json_num(il_json_get(root, "attribution.capture_window_ns"), "to");
	assert_true(win_from > 0 && win_to > win_from);
	assert_true(fabs((win_to - win_from) / 1e6 -
			 il_test_json_num(il_json_get(root, "attribution"), "capture_ms")) < 0.01);
	cJSON_Delete(root);
	check_records(rec);

	/* The trace: absolute CLOCK_MONOTONIC time, and per-CPU tracks. */
	tr = il_test_json_load(trace);
	assert_string_equal(cJSON_GetStringValue(il_json_get(tr, "otherData.clock")),
			    "CLOCK_MONOTONIC");
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(tr, "traceEvents")) {
		const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "cat"));

		if (cat && !strcmp(cat, "sched")) {
			double from_ns = il_test_json_num(e, "ts") * 1e3,
			       to_ns = from_ns + il_test_json_num(e, "dur") * 1e3;

			sched++;
			assert_true(il_test_json_num(e, "pid") >= 1e9);
			/* Inside the window every per-thread figure covers (a
			 * probe saw slices up to 16 ms past its end). */
			if (from_ns < win_from - 1e3 || to_ns > win_to + 1e3)
				fail_msg("a CPU slice %.0f..%.0f ns is outside the capture "
					 "window %.0f..%.0f",
					 from_ns, to_ns, win_from, win_to);
		} else if (cat && !strcmp(cat, "hop")) {
			double ts_ns = il_test_json_num(e, "ts") * 1e3;

			hops++;
			/* The 10 warm-up mouse-downs (the default) are left out. */
			assert_true(il_test_json_num(cJSON_GetObjectItemCaseSensitive(e, "args"),
						     "event_id") > 10);
			/* Microseconds since boot, not since the run began; every
			 * hop of the run begins inside the capture's window. */
			assert_true(il_test_json_num(e, "ts") > 1e6);
			if (ts_ns < win_from - 1e3 || ts_ns > win_to + 1e3)
				fail_msg("a hop slice at %.0f ns is outside the capture window "
					 "%.0f..%.0f",
					 ts_ns, win_from, win_to);
		}
	}
	assert_int_equal((int)il_test_json_num(il_json_get(tr, "otherData"), "warmup_left_out"),
			 10);
	cJSON_Delete(tr);
	print_message("trace: %u hop slices, %u CPU-track slices\n", hops, sched);
	assert_true(hops >= 50 * IL_NSTAMPS);
	assert_true(sched > 0);

	/* explain reads it. */
	assert_int_equal(
	    il_test_capture(il_cmd_explain, 4, argv, out, sizeof(out), err, sizeof(err)), 0);
	print_message("%s", out);
	assert_non_null(strstr(out, "  p99 "));
	assert_non_null(strstr(out, "total (hops 1-11)"));
}

/* Whether a culprit is one of the run's own threads (not another program's). */
static bool run_process(const char *process)
{
	/* The orchestrator, or one of the programs it starts. */
	return process && (!strcmp(process, "inputlat") || il_chain_proc_parse(process) >= 0);
}

/*
 * What a culprit of the run's own should carry: its thread's read-back
 * ("fifo 52"), from threads[] by tid, or for the orchestrator from
 * hygiene.harness_threads' "inputlat:loop". "" when the run has none.
 */
static void culprit_want(const cJSON *root, const cJSON *c, char *want, size_t len)
{
	const char *proc = il_test_json_str(c, "process"), *thread = il_test_json_str(c, "thread");
	char harness[64] = "";
	const cJSON *t;

	want[0] = '\0';
	cJSON_ArrayForEach (t, il_json_get(root, "threads"))
		if (il_test_json_num(t, "tid") == il_test_json_num(c, "tid")) {
			snprintf(want, len, "%s %d", il_test_json_str(t, "policy"),
				 (int)il_test_json_num(t, "priority"));
			return;
		}
	/* The orchestrator's loop thread ("inputlat"), a child's main thread
	 * (its control loop: "browser-sim"), as hygiene read them back. */
	if (!strcmp(proc, "inputlat") && !strcmp(thread, "inputlat"))
		snprintf(harness, sizeof(harness), "inputlat:loop");
	else if (!strcmp(proc, thread))
		snprintf(harness, sizeof(harness), "%s:control", proc);
	cJSON_ArrayForEach (t, il_json_get(root, "hygiene.harness_threads"))
		if (harness[0] && !strcmp(il_test_json_str(t, "thread"), harness))
			snprintf(want, len, "%s", il_test_json_str(t, "got"));
}

/*
 * An RT run: every culprit of the run's own threads carries the class and
 * priority its thread read back; the orchestrator's was said to be
 * "SCHED_FIFO 0" (its class read, its priority never) where the kernel
 * had it at FIFO 98.
 */
static void test_attrib_run_rt_hog(void **state)
{
	char json[300], got[64], want[64], bad[200] = "";
	struct il_test_result *res;
	const cJSON *c;
	cJSON *root;
	int checked = 0;

	need_bpf();
	path_of(json, sizeof(json), "rt.json");
	res = run("rt --hog 1", "--policy", "rt", "--hog", "1", "--events", "150", "--attribution",
		  "on", "--json", json, NULL);
	free(res);
	root = il_test_json_load(json);
	check_run(root, "rt --hog 1", false);
	cJSON_ArrayForEach (c, il_json_get(root, "attribution.culprits")) {
		const char *proc = cJSON_GetStringValue(cJSON_GetObjectItem(c, "process"));

		if (!run_process(proc))
			continue;
		culprit_want(root, c, want, sizeof(want));
		snprintf(got, sizeof(got), "%s %d", il_test_json_str(c, "class"),
			 (int)il_test_json_num(c, "priority"));
		print_message("culprit %s (%s): %s, read back %s\n", il_test_json_str(c, "thread"),
			      proc, got, want);
		checked++;
		/* Another thread of the run's (a reader, the watchdog): named as
		 * the run's, with a class, nothing to read it back against. */
		if (!want[0] && cJSON_IsString(cJSON_GetObjectItem(c, "class")))
			continue;
		if (strcmp(got, want) && !bad[0])
			snprintf(bad, sizeof(bad), "culprit %s is %s, its thread read back %s",
				 il_test_json_str(c, "thread"), got, want);
	}
	/* Copied out first: a failed assertion leaves the test without freeing. */
	cJSON_Delete(root);
	if (bad[0])
		fail_msg("%s", bad);
	/* The JS hog at least: it held the pipeline's CPU. */
	assert_true(checked > 0);
}

/*
 * Two busy CFS hogs: of the run's own threads, the JS threads are the top
 * culprit. Another program's thread may rank above them on a busy machine
 * (stress-ng's, under scripts/test --under-load), and is then named
 * rightly: the claim is about the run's threads.
 */
static void test_attrib_run_hog_culprit(void **state)
{
	char json[300], thread[64] = "", process[64] = "";
	struct il_test_result *res;
	const cJSON *c, *culprits;
	cJSON *root;
	int foreign = 0;

	need_bpf();
	path_of(json, sizeof(json), "hog.json");
	res = run("cfs --hog 2", "--policy", "cfs", "--hog", "2", "--events", "150",
		  "--attribution", "on", "--json", json, NULL);
	free(res);
	root = il_test_json_load(json);
	culprits = il_json_get(root, "attribution.culprits");
	cJSON_ArrayForEach (c, culprits) {
		/* null for a thread of no process of the run (stress-ng's, a
		 * kernel thread): not the run's, so not what this claim is about. */
		const char *proc = cJSON_GetStringValue(cJSON_GetObjectItem(c, "process"));

		print_message("culprit: %s (%s), %.1f ms, share %.3f\n",
			      il_test_json_str(c, "thread"), proc ? proc : "no process of the run",
			      il_test_json_num(c, "total_ms"), il_test_json_num(c, "share"));
		if (!run_process(proc)) {
			foreign++;
			continue;
		}
		snprintf(thread, sizeof(thread), "%s", il_test_json_str(c, "thread"));
		snprintf(process, sizeof(process), "%s", proc);
		break;
	}
	/* Copied out first: a failed assertion leaves the test without freeing. */
	cJSON_Delete(root);
	if (foreign)
		print_message("%d other programs' threads held the CPUs longer (a busy machine)\n",
			      foreign);
	assert_true(!strncmp(thread, "render:js", 9));
	assert_string_equal(process, "render-sim");
}

static void test_attrib_run_off(void **state)
{
	char json[300], rec[300], buf[4096];
	struct il_test_result *res;
	const cJSON *a;
	cJSON *root;

	path_of(json, sizeof(json), "off.json");
	path_of(rec, sizeof(rec), "off.records");
	res = run("--attribution off", "--events", "20", "--attribution", "off", "--json", json,
		  "--records", rec, NULL);
	assert_null(strstr(res->err, "attribution"));
	free(res);
	root = il_test_json_load(json);
	a = attribution(root);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(a, "available")));
	assert_non_null(strstr(il_test_json_str(a, "why"), "--attribution off"));
	cJSON_Delete(root);
	assert_true(il_test_read_file(rec, buf, sizeof(buf)) > 0);
	assert_null(strstr(buf, "\"attribution\""));
}

/*
 * tracefs's trace buffer, in a private mount namespace (no mount is left):
 * with needle NULL, writes token to trace_marker and returns 0; else
 * counts the lines holding needle after the line holding token. The
 * buffer keeps every run's markers since boot and a pid is reused within
 * a CI run (pid_max 32768 here), so a needle of a browser-sim pid found
 * an earlier run's markers too ("10 of the 5"): only those after this
 * test's own token are counted. -1 when tracefs is out of reach.
 */
static int trace_buffer(const char *token, const char *needle)
{
	int pfd[2], n = -1, st;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char line[512];
		int c = 0;
		bool after = false;
		FILE *f = NULL;

		close(pfd[0]);
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 ||
		     errno == EBUSY))
			f = fopen(needle ? "/sys/kernel/tracing/trace"
					 : "/sys/kernel/tracing/trace_marker",
				  needle ? "re" : "we");
		if (f && !needle) {
			c = fputs(token, f) >= 0 ? 0 : -1;
			c = fclose(f) == 0 ? c : -1;
		} else if (f) {
			while (fgets(line, sizeof(line), f)) {
				c += after && strstr(line, needle) != NULL;
				after = after || strstr(line, token) != NULL;
			}
			fclose(f);
		} else {
			c = -1;
		}
		if (write(pfd[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (pid > 0 && read(pfd[0], &n, sizeof(n)) != sizeof(n))
		n = -1;
	close(pfd[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return n;
}

/* True when one of root's warnings[] contains what. */
static bool warned(const cJSON *root, const char *what)
{
	const cJSON *w;

	cJSON_ArrayForEach (w, cJSON_GetObjectItemCaseSensitive(root, "warnings"))
		if (cJSON_IsString(w) && strstr(w->valuestring, what))
			return true;
	return false;
}

static void test_attrib_run_trace_marker(void **state)
{
	char json[300], needle[96], token[96], *text;
	struct il_test_result *res;
	const cJSON *t, *marks;
	cJSON *root;
	int browser = 0, n;
	bool started;

	IL_TEST_NEED_ROOT("tracefs trace_marker");
	path_of(json, sizeof(json), "marker.json");
	snprintf(token, sizeof(token), "il-test-attrib-run %d %.0f", (int)getpid(),
		 il_test_now_s() * 1e6);
	started = trace_buffer(token, NULL) == 0;
	res = run("--trace-marker", "--events", "5", "--warmup", "0", "--trace-marker",
		  "--attribution", "off", "--json", json, NULL);
	free(res);
	root = il_test_json_load(json);
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(root, "threads"))
		if (!strcmp(il_test_json_str(t, "name"), "browser:ui"))
			browser = (int)il_test_json_num(t, "pid");
	assert_true(browser > 0);
	marks = il_json_get(root, "trace_marker");
	text = cJSON_PrintUnformatted(marks);
	print_message("trace_marker %s\n", text);
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(marks, "tracing_on"))) {
		/* Turning tracing on would change the machine: the run said why
		 * the buffer has nothing, which is what there is to check. Every
		 * marker was tried; a kernel refuses them (6.18: EBADF) or takes
		 * and drops them, and the run counts which. */
		const cJSON *b = il_json_get(marks, "processes.browser-sim");

		assert_true(warned(root, "tracing_on is 0"));
		assert_int_equal(il_test_json_num(b, "written") + il_test_json_num(b, "failed"),
				 5 * 3 * 2);
		/* The kernel's EBADF is named as the kernel's refusal, not read
		 * as a bad descriptor of ours. */
		if (il_test_json_num(b, "failed") > 0 &&
		    !strcmp(il_test_json_str(b, "first_error"), strerror(EBADF)))
			assert_true(warned(root, "browser-sim: 30 of 30 markers not written "
						 "(refused by the kernel while tracing_on is 0"));
		free(text);
		cJSON_Delete(root);
		IL_TEST_SKIP("tracefs tracing_on is 0 on this machine: the kernel drops the "
			     "markers (the run warned so); their count cannot be checked");
	}
	/* browser-sim's three hops, a begin and an end each, per mouse-down. */
	assert_int_equal(il_test_json_num(il_json_get(marks, "processes.browser-sim"), "written"),
			 5 * 3 * 2);
	/* Hop 2's handler runs in browser-sim: one slice begin per mouse-down. */
	snprintf(needle, sizeof(needle), "B|%d|hop 2 evdev->ui ev=", browser);
	/* tracing_on: the test's own token went in before the run's markers. */
	assert_true(started);
	n = trace_buffer(token, needle);
	print_message("'%s' found %d times in the trace buffer\n", needle, n);
	if (n != 5)
		fail_msg("%d of the 5 hop-2 markers in the trace buffer, after a run that "
			 "accounted for them as %s",
			 n, text);
	free(text);
	cJSON_Delete(root);
}

/*
 * Runs inputlat in a private mount namespace whose /sys/kernel/tracing is
 * a tmpfs the script fills (a stand-in tracefs: its tracing_on and
 * trace_marker are ours), so the states this machine must not be put in
 * (tracing off, a trace_marker that refuses writes) are tried without
 * changing it. The script ends with the run's arguments in "$@".
 */
static struct il_test_result *run_fake_tracefs(const char *script, const char *json)
{
	char *argv[] = {"/usr/bin/unshare",
			"--mount",
			"--propagation",
			"private",
			"/bin/sh",
			"-c",
			(char *)script,
			"fake-tracefs",
			il_test_suite.inputlat,
			"run",
			"--events",
			"5",
			"--warmup",
			"0",
			"--trace-marker",
			"--attribution",
			"off",
			"--json",
			(char *)json,
			NULL};
	struct il_test_result *res = calloc(1, sizeof(*res));

	assert_non_null(res);
	assert_int_equal(il_test_run(argv, RUN_TIMEOUT_MS, res), 0);
	print_message("exit %d in %.1f s\n%s", res->exit_code, res->elapsed_s, res->err);
	if (res->exit_code != 0)
		fail_msg("run in a stand-in tracefs: exit %d: %s", res->exit_code, res->err);
	return res;
}

/* The written count of each process of the account (inputlat, the three sims). */
static double marks_of(const cJSON *marks, const char *proc, const char *what)
{
	char path[64];

	snprintf(path, sizeof(path), "processes.%s", proc);
	return il_test_json_num(il_json_get(marks, path), what);
}

static const char *const MARK_PROCS[] = {"inputlat", "browser-sim", "render-sim", "viz-sim"};

/*
 * tracing_on 0: the run says the kernel drops its markers, and what it
 * counts as written is what reached trace_marker (here a FIFO that a
 * reader copies to a file: the writes of four processes, each atomic).
 */
static void test_attrib_run_trace_marker_tracing_off(void **state)
{
	char json[300], out[300], script[1200], buf[65536], needle[96];
	struct il_test_result *res;
	const cJSON *marks, *t;
	double written = 0;
	int found = 0, browser = 0;
	cJSON *root;

	IL_TEST_NEED_ROOT("a private mount namespace");
	IL_TEST_NEED(access("/usr/bin/unshare", X_OK) == 0, "no /usr/bin/unshare (util-linux)");
	path_of(json, sizeof(json), "marker-off.json");
	path_of(out, sizeof(out), "marker-off.fifo-copy");
	snprintf(script, sizeof(script),
		 "set -e; T=/sys/kernel/tracing; "
		 "mount -t tmpfs -o size=1m,mode=0755 il-test-tracefs $T; "
		 "echo 0 > $T/tracing_on; mkfifo $T/trace_marker; "
		 "cat $T/trace_marker > '%s' & "
		 /* A writer of our own: the reader sees no end between the run's writers. */
		 "exec 3<>$T/trace_marker; set +e; \"$@\" 3>&-; rc=$?; exec 3>&-; wait; exit $rc",
		 out);
	res = run_fake_tracefs(script, json);
	free(res);
	root = il_test_json_load(json);
	marks = il_json_get(root, "trace_marker");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(marks, "tracing_on")));
	assert_true(warned(root, "tracing_on is 0"));
	for (size_t i = 0; i < sizeof(MARK_PROCS) / sizeof(MARK_PROCS[0]); i++) {
		assert_int_equal(marks_of(marks, MARK_PROCS[i], "failed"), 0);
		written += marks_of(marks, MARK_PROCS[i], "written");
	}
	/* browser-sim's three hops, a begin and an end each, per mouse-down. */
	assert_int_equal(marks_of(marks, "browser-sim", "written"), 5 * 3 * 2);
	cJSON_ArrayForEach (t, cJSON_GetObjectItemCaseSensitive(root, "threads"))
		if (!strcmp(il_test_json_str(t, "name"), "browser:ui"))
			browser = (int)il_test_json_num(t, "pid");
	assert_true(browser > 0);
	/* Markers have no newline: count their starts, "B|pid" and "E|pid". */
	assert_true(il_test_read_file(out, buf, sizeof(buf)) >= 0);
	for (const char *p = buf; (p = strchr(p, '|')); p++)
		found += p > buf && (p[-1] == 'B' || p[-1] == 'E') && p[1] >= '0' && p[1] <= '9';
	print_message("%d markers reached the stand-in trace_marker, %.0f accounted written\n",
		      found, written);
	assert_int_equal(found, (int)written);
	snprintf(needle, sizeof(needle), "B|%d|hop 2 evdev->ui ev=", browser);
	assert_non_null(strstr(buf, needle));
	cJSON_Delete(root);
}

/* A trace_marker that refuses every write: each process counts every one as
 * failed, names the error, and the run warns per process. */
static void test_attrib_run_trace_marker_refused(void **state)
{
	static const char script[] =
	    "set -e; T=/sys/kernel/tracing; "
	    "mount -t tmpfs -o size=4k,mode=0755 il-test-tracefs $T; "
	    "echo 1 > $T/tracing_on; : > $T/trace_marker; "
	    /* Whatever the first file left of the one page: taken. */
	    "head -c 65536 /dev/zero > $T/fill 2>/dev/null || true; exec \"$@\"";
	struct il_test_result *res;
	const cJSON *marks;
	char json[300];
	cJSON *root;

	IL_TEST_NEED_ROOT("a private mount namespace");
	IL_TEST_NEED(access("/usr/bin/unshare", X_OK) == 0, "no /usr/bin/unshare (util-linux)");
	path_of(json, sizeof(json), "marker-refused.json");
	res = run_fake_tracefs(script, json);
	free(res);
	root = il_test_json_load(json);
	marks = il_json_get(root, "trace_marker");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(marks, "tracing_on")));
	for (size_t i = 0; i < sizeof(MARK_PROCS) / sizeof(MARK_PROCS[0]); i++) {
		const cJSON *p = il_json_get(marks, "processes");
		const char *err = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(p, MARK_PROCS[i]), "first_error"));

		assert_int_equal(marks_of(marks, MARK_PROCS[i], "written"), 0);
		assert_true(marks_of(marks, MARK_PROCS[i], "failed") > 0);
		if (!err || !strstr(err, strerror(ENOSPC)))
			fail_msg("%s: first_error %s, want \"%s\"", MARK_PROCS[i],
				 err ? err : "null", strerror(ENOSPC));
	}
	assert_int_equal(marks_of(marks, "browser-sim", "failed"), 5 * 3 * 2);
	assert_true(warned(root, "browser-sim: 30 of 30 markers not written"));
	assert_true(warned(root, "--trace-marker: inputlat: "));
	assert_false(warned(root, "tracing_on is 0"));
	cJSON_Delete(root);
}

static int group_setup(void **state)
{
	char err[4096];
	char *argv[] = {il_test_suite.inputlat, "check", NULL};
	struct il_test_result *res;

	if (il_test_suite_setup(state) < 0)
		return -1;
	/* What `check` says about BPF is what a run will find. */
	res = calloc(1, sizeof(*res));
	if (res && il_test_run(argv, 30000, res) == 0 && strstr(res->out, "attribution: no")) {
		snprintf(err, sizeof(err), "%s", strstr(res->out, "attribution: no"));
		err[strcspn(err, "\n")] = '\0';
		snprintf(bpf_why, sizeof(bpf_why), "%.200s", err);
	}
	free(res);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_attrib_run_load, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_attrib_run_rt_hog, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_attrib_run_hog_culprit, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_attrib_run_off, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_attrib_run_trace_marker, il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_attrib_run_trace_marker_tracing_off,
				      il_test_proc_teardown),
	    cmocka_unit_test_teardown(test_attrib_run_trace_marker_refused, il_test_proc_teardown),
	};

	if (il_test_filters("test_attrib_run", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, il_test_suite_teardown);
}
