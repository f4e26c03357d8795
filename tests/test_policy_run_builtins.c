/*
 * Every built-in policy end to end (issue 3): `inputlat run --policy NAME`
 * as a user runs it, checked twice: on the live threads, read from /proc
 * and sched_getattr while the run goes, and in the report's threads[]
 * after it ends, with the knobs it changed put back.
 *
 * The knob fixture (tests/lib/il_test_knobs.h) waits while another run
 * holds the system knobs and puts them back after every case.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "il_chain.h"
#include "il_policy.h"
#include "il_role.h"
#include "il_sched.h"
#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

#define START_TIMEOUT_MS 20000

static const char *const builtins[] = {"cfs",	       "cfs-chrome",	 "eevdf-slice", "rt",
				       "rt-throttled", "rt-fair-server", "deadline"};
#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

/* --- the live threads -------------------------------------------------- */
/* sched_getattr(2)'s structure, named apart from any libc definition. */
struct raw_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

/* What the kernel says about one live thread, read without il_sched. */
struct live_attrs {
	int policy, rt_priority, nice; /* /proc/PID/task/TID/stat fields 41, 40, 19 */
	struct raw_sched_attr attr;    /* sched_getattr on the tid */
	cpu_set_t cpus;
};

static int read_live(pid_t pid, pid_t tid, struct live_attrs *out)
{
	struct il_procfs_stat st;

	if (il_procfs_stat(pid, tid, IL_PROCFS_POLICY, &st))
		return -ESRCH;
	out->nice = (int)(long long)st.f[IL_PROCFS_NICE];
	out->rt_priority = (int)st.f[IL_PROCFS_RT_PRIORITY];
	out->policy = (int)st.f[IL_PROCFS_POLICY];
	memset(&out->attr, 0, sizeof(out->attr));
	if (syscall(SYS_sched_getattr, tid, &out->attr, sizeof(out->attr), 0) < 0)
		return -errno;
	if (sched_getaffinity(tid, sizeof(out->cpus), &out->cpus) < 0)
		return -errno;
	return 0;
}

/* Compares a live thread with what its role asks for; why says how it differs. */
static bool live_matches(const struct il_role_attrs *want, const struct live_attrs *got, char *why,
			 size_t len)
{
	const struct raw_sched_attr *a = &got->attr;
	int cls = want->sched_class;

	if (got->policy != cls || (int)a->sched_policy != cls) {
		snprintf(why, len, "class %d in /proc, %u from sched_getattr, want %s", got->policy,
			 a->sched_policy, il_sched_class_name(cls));
		return false;
	}
	if ((cls == SCHED_FIFO || cls == SCHED_RR) &&
	    (got->rt_priority != want->priority || (int)a->sched_priority != want->priority)) {
		snprintf(why, len, "priority %d (sched_getattr %u), want %d", got->rt_priority,
			 a->sched_priority, want->priority);
		return false;
	}
	if ((cls == SCHED_OTHER || cls == SCHED_BATCH) &&
	    (got->nice != want->nice || a->sched_nice != want->nice)) {
		snprintf(why, len, "nice %d (sched_getattr %d), want %d", got->nice, a->sched_nice,
			 want->nice);
		return false;
	}
	/* A fair thread's sched_runtime is its slice (Linux 6.12+). */
	if ((cls == SCHED_OTHER || cls == SCHED_BATCH) && want->slice_ns &&
	    a->sched_runtime != want->slice_ns) {
		snprintf(why, len, "slice %llu ns, want %llu", (unsigned long long)a->sched_runtime,
			 (unsigned long long)want->slice_ns);
		return false;
	}
	if (cls == SCHED_DEADLINE &&
	    (a->sched_runtime != want->dl_runtime_ns || a->sched_deadline != want->dl_deadline_ns ||
	     a->sched_period != want->dl_period_ns)) {
		snprintf(why, len, "deadline %llu/%llu/%llu ns, want %llu/%llu/%llu",
			 (unsigned long long)a->sched_runtime,
			 (unsigned long long)a->sched_deadline, (unsigned long long)a->sched_period,
			 (unsigned long long)want->dl_runtime_ns,
			 (unsigned long long)want->dl_deadline_ns,
			 (unsigned long long)want->dl_period_ns);
		return false;
	}
	if (want->has_cpus && !CPU_EQUAL(&want->cpus, &got->cpus)) {
		snprintf(why, len, "affinity differs from the policy's cpus");
		return false;
	}
	return true;
}

/*
 * Polls the live chain until each pipeline thread of il_chain exists and
 * has its role's attributes (threads apply them themselves at start), or
 * the run ends, or timeout_ms. tids[] gets what was found; why says which
 * thread differs and how. Returns true when all matched.
 */
static bool live_check(const struct il_test_chain *c, const struct il_policy *pol,
		       pid_t tids[IL_T_COUNT], char *why, size_t len, int timeout_ms)
{
	bool mismatch_seen = false;
	double t0 = il_test_now_s();

	snprintf(why, len, "the run ended before its threads were seen");
	for (;;) {
		char w[400];
		bool mismatch = false;
		int ok = 0;

		for (int i = 0; i < IL_T_COUNT; i++) {
			const struct il_thread_desc *td = il_chain_thread((enum il_thread_id)i);
			pid_t pid = c->kids[td->proc];
			struct live_attrs got;
			char d[200];

			tids[i] = il_test_find_thread(pid, td->name);
			if (!tids[i]) {
				snprintf(w, sizeof(w), "no thread %s in %s pid %d", td->name,
					 il_test_kid_name(td->proc), (int)pid);
				break;
			}
			if (read_live(pid, tids[i], &got) < 0) {
				snprintf(w, sizeof(w), "cannot read %s tid %d", td->name,
					 (int)tids[i]);
				break;
			}
			if (!live_matches(il_policy_role(pol, td->role), &got, d, sizeof(d))) {
				snprintf(w, sizeof(w), "%s (role %s) tid %d: %s", td->name,
					 il_role_name(td->role), (int)tids[i], d);
				mismatch = true;
				break;
			}
			ok++;
		}
		if (ok == IL_T_COUNT)
			return true;
		/* A thread seen with the wrong attributes says more than one not started yet. */
		if (mismatch || !mismatch_seen)
			snprintf(why, len, "%s", w);
		mismatch_seen |= mismatch;
		if (!il_test_proc_alive(c->pid, "inputlat") ||
		    (il_test_now_s() - t0) * 1000 > timeout_ms)
			return false;
		usleep(2000);
	}
}

/* --- the report -------------------------------------------------------- */
/* Reads one threads[] entry back into the form il_sched_matches takes. */
static void json_state(const cJSON *t, struct il_sched_state *s)
{
	const cJSON *dl = cJSON_GetObjectItemCaseSensitive(t, "dl_deadline_ns");

	memset(s, 0, sizeof(*s));
	s->sched_class = il_sched_class_parse(il_test_json_str(t, "policy"));
	assert_true(s->sched_class >= 0);
	s->priority = (int)il_test_json_num(t, "priority");
	s->nice = (int)il_test_json_num(t, "nice");
	s->slice_ns = (uint64_t)il_test_json_num(t, "slice_ns");
	s->dl_runtime_ns = (uint64_t)il_test_json_num(t, "dl_runtime_ns");
	s->dl_period_ns = (uint64_t)il_test_json_num(t, "dl_period_ns");
	/* The deadline itself is reported too; absent, it is the period. */
	s->dl_deadline_ns = cJSON_IsNumber(dl) ? (uint64_t)dl->valuedouble : s->dl_period_ns;
	snprintf(s->cpus, sizeof(s->cpus), "%s", il_test_json_str(t, "cpus"));
}

static void check_json_thread(const cJSON *t, const struct il_policy *pol, const char *what)
{
	const char *role_name = il_test_json_str(t, "role");
	const struct il_role_attrs *want;
	struct il_sched_state s;
	int role = il_role_parse(role_name);

	if (role < 0)
		fail_msg("%s: unknown role '%s'", what, role_name);
	want = il_policy_role(pol, (enum il_role)role);
	json_state(t, &s);
	assert_string_equal(il_test_json_str(t, "policy"), il_sched_class_name(want->sched_class));
	if (!il_sched_matches(want, &s))
		fail_msg(
		    "%s (role %s): report says %s prio %d nice %d slice %llu dl %llu/%llu/%llu "
		    "cpus %s; the policy wants %s prio %d nice %d slice %llu dl %llu/%llu/%llu",
		    what, role_name, il_test_json_str(t, "policy"), s.priority, s.nice,
		    (unsigned long long)s.slice_ns, (unsigned long long)s.dl_runtime_ns,
		    (unsigned long long)s.dl_deadline_ns, (unsigned long long)s.dl_period_ns,
		    s.cpus, il_sched_class_name(want->sched_class), want->priority, want->nice,
		    (unsigned long long)want->slice_ns, (unsigned long long)want->dl_runtime_ns,
		    (unsigned long long)want->dl_deadline_ns,
		    (unsigned long long)want->dl_period_ns);
}

/* Each pipeline thread once in threads[], in its process, with its role and tid. */
static void check_json_pipeline(const cJSON *threads, const struct il_policy *pol,
				const struct il_test_chain *c, const pid_t tids[IL_T_COUNT])
{
	const cJSON *t;

	for (int i = 0; i < IL_T_COUNT; i++) {
		const struct il_thread_desc *td = il_chain_thread((enum il_thread_id)i);
		const cJSON *found = NULL;
		int n = 0;

		cJSON_ArrayForEach (t, threads) {
			if (strcmp(il_test_json_str(t, "name"), td->name) == 0) {
				found = t;
				n++;
			}
		}
		if (n != 1)
			fail_msg("threads[] has %d entries named %s", n, td->name);
		assert_string_equal(il_test_json_str(found, "process"), il_test_kid_name(td->proc));
		assert_string_equal(il_test_json_str(found, "role"), il_role_name(td->role));
		assert_int_equal(il_test_json_num(found, "pid"), c->kids[td->proc]);
		assert_int_equal(il_test_json_num(found, "tid"), tids[i]);
		check_json_thread(found, pol, td->name);
	}
	/* The threads around the pipeline (js, canary, load) follow their roles too. */
	cJSON_ArrayForEach (t, threads) {
		check_json_thread(t, pol, il_test_json_str(t, "name"));
	}
}

/* Knobs: changed as asked (when not already so), and put back. */
static void check_json_knobs(const cJSON *root, const struct il_knob_settings *k)
{
	const char *orig_runtime = il_test_knob_orig(IL_TEST_RT_RUNTIME);
	const cJSON *fs;

	if (k->has_rt_runtime) {
		const cJSON *e = il_test_knobs_report_entry(root, IL_TEST_RT_RUNTIME);
		char want[32];

		snprintf(want, sizeof(want), "%lld", (long long)k->rt_runtime_us);
		if (strcmp(orig_runtime, want) == 0) {
			assert_null(e);
		} else {
			assert_non_null(e);
			assert_string_equal(il_test_json_str(e, "original"), orig_runtime);
			assert_string_equal(il_test_json_str(e, "applied"), want);
			assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "restored")));
		}
	} else {
		assert_int_equal(
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "knobs")), 0);
	}
	fs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "kernel"),
					      "fair_server");
	assert_non_null(fs);
	if (k->has_fair_server) {
		const cJSON *tun = cJSON_GetObjectItemCaseSensitive(fs, "tunable");

		assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fs, "present")));
		assert_true(cJSON_IsBool(tun));
		/* Tuned: the values in force are the policy's. */
		if (cJSON_IsTrue(tun)) {
			assert_int_equal(il_test_json_num(fs, "runtime_ns"), k->fs_runtime_ns);
			assert_int_equal(il_test_json_num(fs, "period_ns"), k->fs_period_ns);
		}
	}
	/* Asked for and not applied: one warning says so (and why); otherwise none. */
	{
		const cJSON *w;
		int said = 0,
		    untuned = k->has_fair_server &&
			      !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fs, "tunable"));

		cJSON_ArrayForEach (w, cJSON_GetObjectItemCaseSensitive(root, "warnings"))
			said += cJSON_IsString(w) && strstr(w->valuestring, ": fair server ") &&
				strstr(w->valuestring, " not applied: ");
		assert_int_equal(said, untuned);
	}
}

/* --- the cases --------------------------------------------------------- */
static struct il_policy *load_builtin(const char *name)
{
	char err[512] = "";
	struct il_policy *p = NULL;

	if (il_policy_load(name, il_test_suite.policy_dir, &p, err, sizeof(err)) < 0)
		fail_msg("loading %s: %s", name, err);
	return p;
}

/* Skips what this machine truly cannot do, and nothing else. */
static void need_policy(struct il_policy *pol, const char *name)
{
	const struct il_knob_settings *k = il_policy_knobs(pol);
	bool needs_slice = false, needs_nice = false;
	const char *why = NULL;

	for (int r = 0; r < IL_ROLE_COUNT; r++) {
		needs_slice |= il_policy_role(pol, (enum il_role)r)->slice_ns != 0;
		needs_nice |= il_policy_role(pol, (enum il_role)r)->nice < 0;
	}
	if ((il_policy_uses_rt(pol) || needs_nice || k->has_rt_runtime || k->has_rt_period ||
	     k->has_fair_server) &&
	    geteuid() != 0)
		why = "needs root (RT classes, negative nice or system knobs)";
	else if (needs_slice && !il_test_kernel_at_least(6, 12))
		why = "needs EEVDF custom slices (Linux 6.12+)";
	else if (k->has_fair_server && !il_test_kernel_at_least(6, 12))
		why = "needs the fair server (Linux 6.12+)";
	if (why) {
		il_policy_free(pol);
		IL_TEST_SKIP("policy %s %s", name, why);
	}
}

static void test_policy_run_builtins(void **state)
{
	const char *name = *state;
	struct il_policy *pol = load_builtin(name);
	const struct il_knob_settings *k = il_policy_knobs(pol);
	char json[300], out[300], err[300], why[400], buf[4096], rp1[PATH_MAX], rp2[PATH_MAX];
	/* Every event must complete: what is checked is the policy, not latency,
	 * so a loaded machine gets 20 s per event before it times out. */
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
			"--json",
			json,
			NULL};
	const char *orig_runtime = il_test_knob_orig(IL_TEST_RT_RUNTIME);
	struct il_test_chain c;
	pid_t tids[IL_T_COUNT];
	cJSON *root, *ev;
	bool live_ok;
	int status;

	need_policy(pol, name);
	snprintf(json, sizeof(json), "%s/%s.json", il_test_suite.tmpdir, name);
	snprintf(out, sizeof(out), "%s/%s.out", il_test_suite.tmpdir, name);
	snprintf(err, sizeof(err), "%s/%s.err", il_test_suite.tmpdir, name);
	unlink(json);
	il_test_chain_assert_up(&c,
				il_test_knobs_chain_start(&c, argv, out, err, START_TIMEOUT_MS));

	/* While it runs: the kernel's view of every pipeline thread. */
	live_ok = live_check(&c, pol, tids, why, sizeof(why), 10000);
	if (live_ok && k->has_rt_runtime) {
		char want[32];

		snprintf(want, sizeof(want), "%lld", (long long)k->rt_runtime_us);
		/* When this run changed it, it holds the knobs: no other run can. */
		if (strcmp(orig_runtime, want) != 0 &&
		    strcmp(il_test_knob(IL_TEST_RT_RUNTIME), want) != 0) {
			live_ok = false;
			snprintf(why, sizeof(why),
				 "sched_rt_runtime_us is %s during the run, want %s",
				 il_test_knob(IL_TEST_RT_RUNTIME), want);
		}
	}
	status = il_test_chain_wait(&c, 60000);
	il_test_chain_stderr(&c, buf, sizeof(buf));
	if (!live_ok)
		fail_msg("policy %s, live threads: %s (stderr: %s)", name, why, buf);
	il_test_assert_exited(status, 0, buf);
	assert_true(il_test_chain_gone(&c, 2000));

	/* After it: the report says the same, thread by thread. */
	root = il_test_json_load(json);
	ev = cJSON_GetObjectItemCaseSensitive(root, "events");
	if (il_test_json_num(ev, "completed") != 100) {
		char *text = cJSON_PrintUnformatted(ev);

		snprintf(buf, sizeof(buf), "%s", text ? text : "?");
		free(text);
		fail_msg("policy %s: events %s, want 100 completed", name, buf);
	}
	assert_string_equal(il_test_json_str(root, "policy"), il_policy_name(pol));
	assert_non_null(realpath(il_test_json_str(root, "policy_file"), rp1));
	assert_non_null(realpath(il_policy_path(pol), rp2));
	assert_string_equal(rp1, rp2);
	assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "threads")));
	check_json_pipeline(cJSON_GetObjectItemCaseSensitive(root, "threads"), pol, &c, tids);
	check_json_knobs(root, k);
	cJSON_Delete(root);
	/* Only root can see whether another run holds the knobs right now. */
	if (geteuid() == 0 && il_test_knobs_wait_free(10000) &&
	    !il_test_knobs_back(0, why, sizeof(why)))
		fail_msg("policy %s, after the run: %s", name, why);
	il_policy_free(pol);
}

int main(void)
{
	struct CMUnitTest tests[NBUILTINS];
	static char names[NBUILTINS][64];

	for (size_t i = 0; i < NBUILTINS; i++) {
		snprintf(names[i], sizeof(names[i]), "test_policy_run_builtins(%s)", builtins[i]);
		tests[i] = (struct CMUnitTest){names[i], test_policy_run_builtins, NULL,
					       il_test_knobs_teardown, (void *)builtins[i]};
	}
	if (il_test_filters("test_policy_run_builtins", tests, NBUILTINS) < 0)
		return 1;
	return _cmocka_run_group_tests("test_policy_run_builtins", tests, NBUILTINS,
				       il_test_knobs_suite_setup, il_test_knobs_suite_teardown);
}
