/*
 * Child faults (issue 8): each of the three chain processes in turn is
 * killed (SIGKILL), hung (SIGSTOP) or sends a garbage control frame. The
 * orchestrator must name the right child and the reason, exit 1 within
 * 2 s of the fault being detectable, still write its JSON report with
 * what it measured and an "error", and leave no process behind.
 *
 * Runs under the cfs policy: no root, no system knob. Only pids this file
 * started (inputlat and the chain it spawned) are ever signalled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_test_proc.h"

#define NCHAIN 3
#define NKIDS 4 /* the chain and il-workload */
#define START_TIMEOUT_MS 10000
/* The orchestrator pings every 250 ms and gives up after 1.5 s. */
#define HANG_LIMIT_S 2.5
#define FAULT_LIMIT_S 2.0
/* A death can race with the next write to the dead child: kill each several times. */
#define KILL_ROUNDS 5

static const char *const kid_names[NKIDS] = { "browser-sim", "render-sim", "viz-sim",
					      "il-workload" };

static char tmpdir[256], inputlat[PATH_MAX];
/* What this file started and has not reaped yet, for the teardown. */
static pid_t live_run, live_kids[NKIDS];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* True while pid runs the program comm (not gone, not a zombie, not reused). */
static bool proc_alive(pid_t pid, const char *comm)
{
	char path[64], buf[512], *l, *r;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l || r[1] != ' ')
		return false;
	if ((size_t)(r - l - 1) != strlen(comm) || strncmp(l + 1, comm, strlen(comm)) != 0)
		return false;
	return r[2] != 'Z' && r[2] != 'X';
}

/* Waits up to timeout_ms for every recorded child to be gone. */
static bool kids_gone(const pid_t kids[NKIDS], int timeout_ms)
{
	double t0 = now_s();

	for (;;) {
		bool any = false;

		for (int i = 0; i < NKIDS; i++)
			any |= proc_alive(kids[i], kid_names[i]);
		if (!any)
			return true;
		if ((now_s() - t0) * 1000 > timeout_ms)
			return false;
		usleep(10000);
	}
}

/* Reaps orphans handed to us (we are their subreaper): never live ones. */
static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void kill_live(void)
{
	for (int i = 0; i < NKIDS; i++)
		if (proc_alive(live_kids[i], kid_names[i])) {
			kill(live_kids[i], SIGKILL);
			kill(live_kids[i], SIGCONT);
		}
	if (live_run > 0) {
		kill(live_run, SIGKILL);
		waitpid(live_run, NULL, 0);
		live_run = 0;
	}
	kids_gone(live_kids, 2000);
	reap_orphans();
	memset(live_kids, 0, sizeof(live_kids));
}

/* Starts argv and waits for its three chain processes (and il-workload). */
static pid_t start_chain(char *const argv[], const char *out, const char *err, pid_t kids[NKIDS])
{
	double t0 = now_s();
	pid_t pid;
	int status;

	memset(kids, 0, NKIDS * sizeof(*kids));
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	live_run = pid;
	for (;;) {
		int n = 0;

		for (int i = 0; i < NKIDS; i++) {
			if (!kids[i])
				kids[i] = il_test_find_child(pid, kid_names[i]);
			n += i < NCHAIN && kids[i];
		}
		memcpy(live_kids, kids, sizeof(live_kids));
		if (n == NCHAIN && kids[NCHAIN])
			return pid;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			char buf[4096];

			live_run = 0;
			il_test_read_file(err, buf, sizeof(buf));
			fail_msg("inputlat ended (status 0x%x) before its chain was up: %s", status, buf);
		}
		if (now_s() - t0 > START_TIMEOUT_MS / 1000.0)
			fail_msg("inputlat did not start its chain within %d ms", START_TIMEOUT_MS);
		usleep(2000);
	}
}

/* The report must exist, parse, count completed events and carry an error naming child. */
static void check_partial_json(const char *path, const char *child, const char *why)
{
	static char buf[1 << 22];
	const cJSON *ev, *c, *e;
	cJSON *root;

	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		fail_msg("%s: no partial report at %s", why, path);
	root = cJSON_Parse(buf);
	if (!root)
		fail_msg("%s: %s does not parse as JSON", why, path);
	ev = cJSON_GetObjectItemCaseSensitive(root, "events");
	c = cJSON_GetObjectItemCaseSensitive(ev, "completed");
	if (!cJSON_IsNumber(c) || c->valuedouble <= 0)
		fail_msg("%s: %s has no completed events", why, path);
	e = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (!cJSON_IsString(e) || !strstr(e->valuestring, child))
		fail_msg("%s: %s has no \"error\" naming %s", why, path, child);
	print_message("  %s: report has %.0f completed, error \"%s\"\n", why, c->valuedouble,
		      e->valuestring);
	cJSON_Delete(root);
}

static void assert_nothing_left(const pid_t kids[NKIDS], const char *why)
{
	if (!kids_gone(kids, 2000))
		fail_msg("%s: a chain process is still there 2 s after inputlat ended", why);
	reap_orphans();
	if (il_test_count_project_procs() != 0)
		fail_msg("%s: %d project processes left", why, il_test_count_project_procs());
}

static void need_text(const char *text, const char *a, const char *b, const char *why)
{
	if (!strstr(text, a) || !strstr(text, b))
		fail_msg("%s: stderr does not name '%s' and '%s':\n%s", why, a, b, text);
}

/* --- SIGKILL and SIGSTOP ----------------------------------------------- */
static void signal_child(int child, int sig, int round)
{
	char json[300], out[300], err[300], buf[65536], why[64];
	char *argv[] = { inputlat, "run", "--policy", "cfs", "--events", "10000",
			 "--interval-ms", "1", "--quiet", "--json", json, NULL };
	const char *name = kid_names[child];
	pid_t kids[NKIDS], pid;
	double t_sig, elapsed;
	int status;

	snprintf(why, sizeof(why), "%s %s #%d", sig == SIGKILL ? "SIGKILL" : "SIGSTOP", name, round);
	snprintf(json, sizeof(json), "%s/%s-%d-%d.json", tmpdir, name, sig, round);
	snprintf(out, sizeof(out), "%s/%s-%d-%d.out", tmpdir, name, sig, round);
	snprintf(err, sizeof(err), "%s/%s-%d-%d.err", tmpdir, name, sig, round);
	pid = start_chain(argv, out, err, kids);
	/* Let events flow so there is something to report. */
	usleep(600000);
	assert_true(proc_alive(pid, "inputlat"));
	t_sig = now_s();
	assert_int_equal(kill(kids[child], sig), 0);
	status = il_test_wait(pid, 10000, NULL);
	elapsed = now_s() - t_sig;
	live_run = 0;
	il_test_read_file(err, buf, sizeof(buf));
	print_message("%s: inputlat ended %.2f s after the signal, status 0x%x: %s", why, elapsed,
		      status, buf);
	if (!(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1))
		fail_msg("%s: inputlat status 0x%x, want exit 1", why, status);
	if (sig == SIGKILL) {
		if (elapsed > FAULT_LIMIT_S)
			fail_msg("%s: exit %.2f s after the kill, want < %.1f s", why, elapsed,
				 FAULT_LIMIT_S);
		need_text(buf, name, "died", why);
		need_text(buf, "signal 9", "died", why);
	} else {
		if (elapsed > HANG_LIMIT_S)
			fail_msg("%s: exit %.2f s after the stop, want < %.1f s", why, elapsed,
				 HANG_LIMIT_S);
		need_text(buf, name, "stopped answering", why);
		/* The orchestrator must take the hung child down itself. */
		if (!kids_gone(kids, 2000)) {
			bool stopped_left = proc_alive(kids[child], name);

			if (stopped_left) {
				kill(kids[child], SIGKILL);
				kill(kids[child], SIGCONT);
			}
			fail_msg("%s: %s left after inputlat ended", why,
				 stopped_left ? "the stopped child was" : "a chain process was");
		}
	}
	check_partial_json(json, name, why);
	assert_nothing_left(kids, why);
	memset(live_kids, 0, sizeof(live_kids));
}

/*
 * HARNESS BUG (see report), test_faults_sigkill(browser-sim): the next
 * mouse-down write to browser-sim's input pipe fails with EPIPE before
 * libuv delivers the child's exit, and inject_cb() in harness/il_run.c
 * fails the run with "injecting mouse-down N: Broken pipe", which names
 * neither the child nor the signal. Fails until an EPIPE from the injector
 * defers to the exit callback. The race is lost in about half of the
 * kills at a 1 ms interval, hence several rounds per child.
 */
static void test_faults_sigkill(void **state)
{
	for (int round = 1; round <= KILL_ROUNDS; round++)
		signal_child((int)(intptr_t)*state, SIGKILL, round);
}

static void test_faults_sigstop(void **state)
{
	signal_child((int)(intptr_t)*state, SIGSTOP, 1);
}

/* --- a garbage control frame ------------------------------------------- */
static void test_faults_garbage(void **state)
{
	const char *name = kid_names[(intptr_t)*state];
	char json[300], why[64];
	char *argv[] = { inputlat, "run", "--policy", "cfs", "--test-garbage", (char *)name,
			 "--events", "1000", "--quiet", "--json", json, NULL };
	struct il_test_result *res = malloc(sizeof(*res));
	pid_t none[NKIDS] = { 0 };

	assert_non_null(res);
	snprintf(why, sizeof(why), "garbage frame to %s", name);
	snprintf(json, sizeof(json), "%s/%s-garbage.json", tmpdir, name);
	assert_int_equal(il_test_run(argv, 30000, res), 0);
	print_message("%s: exit %d after %.2f s: %s", why, res->exit_code, res->elapsed_s, res->err);
	assert_false(res->timed_out);
	if (res->exit_code != 1)
		fail_msg("%s: exit %d (signal %d), want 1", why, res->exit_code, res->term_signal);
	/* 1000 events take 20 s: an exit this early is the fault's. */
	if (res->elapsed_s > FAULT_LIMIT_S)
		fail_msg("%s: exit after %.2f s, want < %.1f s", why, res->elapsed_s, FAULT_LIMIT_S);
	need_text(res->err, name, "invalid frame", why);
	check_partial_json(json, name, why);
	assert_nothing_left(none, why);
	free(res);
}

/* --- fixtures ---------------------------------------------------------- */
static int teardown(void **state)
{
	kill_live();
	return 0;
}

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/il-test-faults.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(inputlat, sizeof(inputlat), "%s", il_test_build_path("inputlat"));
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[512];

	kill_live();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	static char names[3 * NCHAIN][64];
	struct CMUnitTest tests[3 * NCHAIN];
	static const struct {
		const char *what;
		CMUnitTestFunction fn;
	} kinds[3] = { { "sigkill", test_faults_sigkill },
		       { "sigstop", test_faults_sigstop },
		       { "garbage", test_faults_garbage } };
	size_t n = 0;

	for (int c = 0; c < NCHAIN; c++)
		for (int k = 0; k < 3; k++) {
			snprintf(names[n], sizeof(names[n]), "test_faults_%s(%s)", kinds[k].what,
				 kid_names[c]);
			tests[n] = (struct CMUnitTest){ names[n], kinds[k].fn, NULL, teardown,
							(void *)(intptr_t)c };
			n++;
		}
	return _cmocka_run_group_tests("test_faults", tests, n, group_setup, group_teardown);
}
