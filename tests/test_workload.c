/*
 * The il-workload child over its control channel, the way `inputlat run`
 * drives it: ready with read-back attributes, ping/pong, start, stop with
 * stats and exit 0; end of file exits at once; a bad option exits 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "il_test.h"

#include "il_clock.h"
#include "il_msg.h"

struct child {
	pid_t pid;
	int fd; /* our end of its fd 3 */
	uint8_t buf[2 * IL_FRAME_MAX_LEN];
	size_t len;
};

static void spawn(struct child *c, const char *const *extra)
{
	const char *build = getenv("IL_BUILD_DIR");
	char exe[4096], ppid[32];
	const char *argv[32];
	int sv[2], n = 0;

	if (!build)
		build = ".";
	snprintf(exe, sizeof(exe), "%s/il-workload", build);
	snprintf(ppid, sizeof(ppid), "%d", (int)getpid());
	if (access(exe, X_OK) != 0) {
		print_message("skipped: %s not built\n", exe);
		skip();
	}
	/* No scheduling table: the threads keep the attributes they inherit
	 * (cfs); children never read a policy file (il_sched_table.h). */
	argv[n++] = exe;
	argv[n++] = "--parent-pid";
	argv[n++] = ppid;
	argv[n++] = "--rttime-us=1000000";
	for (int i = 0; extra && extra[i] && n < 30; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	c->len = 0;
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(sv[1], 3); /* dup2 clears CLOEXEC on the copy */
		if (devnull >= 0)
			dup2(devnull, 2);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(sv[1]);
	c->fd = sv[0];
}

static void send_json(struct child *c, const char *json)
{
	uint8_t frame[1024];
	int len = il_frame_encode_control(json, strlen(json), frame, sizeof(frame));

	assert_true(len > 0);
	assert_int_equal(write(c->fd, frame, (size_t)len), len);
}

/* The next CONTROL frame as JSON; NULL at end of file. 20 s at most (a
 * bound on a hang, not an expectation). */
static cJSON *recv_json(struct child *c)
{
	uint64_t deadline = il_now_ns() + il_ms_to_ns(20000);

	for (;;) {
		struct il_frame f;
		int rc = il_frame_decode(c->buf, c->len, &f);

		if (rc == IL_FRAME_OK) {
			cJSON *j = cJSON_ParseWithLength((const char *)f.payload, f.payload_len);

			assert_int_equal(f.type, IL_FRAME_CONTROL);
			memmove(c->buf, c->buf + f.frame_len, c->len - f.frame_len);
			c->len -= f.frame_len;
			assert_non_null(j);
			return j;
		}
		assert_int_equal(rc, IL_FRAME_INCOMPLETE);
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		int left = (int)((deadline - il_now_ns()) / 1000000);

		assert_true(il_now_ns() < deadline);
		if (poll(&p, 1, left > 0 ? left : 1) <= 0)
			continue;
		ssize_t n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);

		if (n <= 0)
			return NULL;
		c->len += (size_t)n;
	}
}

/* Exit status after at most timeout_ms; kills (only this pid) on overrun. */
static int wait_exit(struct child *c, int timeout_ms)
{
	int status;

	for (int i = 0; i < timeout_ms / 10; i++) {
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(10000);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &status, 0);
	return -1;
}

static const char *str(const cJSON *o, const char *k)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, k));

	assert_non_null(s);
	return s;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

/* A child started without options, past its "ready". */
static void spawn_ready(struct child *c)
{
	cJSON *j;

	spawn(c, NULL);
	j = recv_json(c);
	assert_non_null(j);
	cJSON_Delete(j);
}

static void test_workload_protocol(void **state)
{
	static const char *const extra[] = {"--load", "2", NULL};
	struct child c;
	cJSON *j, *t, *canary, *load;
	uint64_t t_start, t_stats;
	double wall_ms;
	int names = 0;

	spawn(&c, extra);
	j = recv_json(&c);
	assert_non_null(j);
	assert_string_equal(str(j, "type"), "ready");
	assert_string_equal(str(j, "process"), "il-workload");
	assert_int_equal((int)num(j, "pid"), c.pid);
	/* The canary and both load threads, each with its read-back class. */
	cJSON_ArrayForEach (t, cJSON_GetObjectItem(j, "threads")) {
		const char *name = str(t, "name");

		if (strcmp(name, "il:canary") == 0)
			assert_string_equal(str(t, "role"), "canary");
		else if (strcmp(name, "il:load0") == 0 || strcmp(name, "il:load1") == 0)
			assert_string_equal(str(t, "role"), "load");
		else
			fail_msg("unexpected thread %s", name);
		assert_string_equal(str(cJSON_GetObjectItem(t, "sched"), "policy"), "other");
		names++;
	}
	assert_int_equal(names, 3);
	cJSON_Delete(j);

	send_json(&c, "{\"type\":\"ping\",\"seq\":42}");
	j = recv_json(&c);
	assert_string_equal(str(j, "type"), "pong");
	assert_int_equal((int)num(j, "seq"), 42);
	cJSON_Delete(j);

	t_start = il_now_ns();
	send_json(&c, "{\"type\":\"start\"}");
	usleep(300000);
	send_json(&c, "{\"type\":\"stop\"}");
	j = recv_json(&c);
	t_stats = il_now_ns();
	assert_non_null(j);
	assert_string_equal(str(j, "type"), "stats");
	canary = cJSON_GetObjectItem(j, "canary");
	load = cJSON_GetObjectItem(j, "load");
	/*
	 * Counted from "start", not from the set-up: the canary's window fits
	 * between our sending "start" and reading the stats, however long
	 * that took here, and it woke about once a millisecond of it (fewer
	 * when other tasks delay it, never more).
	 */
	wall_ms = num(canary, "wall_ms");
	print_message("canary: %.0f wake-ups in a %.1f ms window; start to stats took %.1f ms\n",
		      num(canary, "wakeups"), wall_ms, il_ns_to_ms(t_stats - t_start));
	assert_true(wall_ms > 0 && wall_ms <= il_ns_to_ms(t_stats - t_start));
	assert_true(num(canary, "wakeups") > 50 && num(canary, "wakeups") <= wall_ms + 1);
	assert_true(num(canary, "max_stall_ms") > 0);
	assert_true(num(canary, "cpu_share") > 0 && num(canary, "cpu_share") <= 1);
	assert_int_equal((int)num(load, "threads"), 2);
	assert_true(num(load, "cpu_share") > 0 && num(load, "cpu_share") <= 1.05);
	cJSON_Delete(j);
	assert_int_equal(wait_exit(&c, 10000), 0);
	close(c.fd);
}

/* Without --load the stats say no load ran (null), not a load that got 0%
 * of the CPU: the report's "load" is what this child sends. */
static void test_workload_no_load_is_null(void **state)
{
	struct child c;
	cJSON *j;

	spawn_ready(&c);
	send_json(&c, "{\"type\":\"start\"}");
	usleep(20000);
	send_json(&c, "{\"type\":\"stop\"}");
	j = recv_json(&c);
	assert_non_null(j);
	assert_string_equal(str(j, "type"), "stats");
	assert_non_null(cJSON_GetObjectItem(j, "canary"));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "load")));
	cJSON_Delete(j);
	assert_int_equal(wait_exit(&c, 10000), 0);
	close(c.fd);
}

static void test_workload_eof_exits(void **state)
{
	struct child c;

	spawn_ready(&c);
	close(c.fd);
	/* No orchestrator, no reason to live: it exits (the bound is for a
	 * child that never does, not a timing claim). */
	assert_int_equal(wait_exit(&c, 10000), 0);
}

static void test_workload_bad_option(void **state)
{
	static const char *const extra[] = {"--load=lots", NULL};
	struct child c;

	spawn(&c, extra);
	assert_int_equal(wait_exit(&c, 10000), 2);
	close(c.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_workload_protocol),
	    cmocka_unit_test(test_workload_no_load_is_null),
	    cmocka_unit_test(test_workload_eof_exits),
	    cmocka_unit_test(test_workload_bad_option),
	};
	if (il_test_filters("test_workload", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
