/*
 * /dev/cpu_dma_latency is held only when it is PM QoS's own device: with
 * /dev/null or a regular file bound over its name, the run's report said
 * cpu_dma_latency.held true, a 0 written into nothing. Each case runs in
 * a child in its own mount namespace; needs root (mounts, the device).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_dma_latency.h"
#include "il_test.h"

#define DEV "/dev/cpu_dma_latency"

static char file_path[4096];

/* In the child: fd and why of il_dma_latency_hold with over (NULL: the
 * device itself) bound over the device's name, as one line. */
static void child(int out, const char *over)
{
	char why[256] = "", line[400];
	int32_t v;
	int fd;

	if (over &&
	    (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	     mount(over, DEV, NULL, MS_BIND, NULL) != 0))
		_exit(77);
	fd = il_dma_latency_hold(&v, why, sizeof(why));
	snprintf(line, sizeof(line), "%s|%d|%s", fd >= 0 ? "held" : "not", (int)v, why);
	if (write(out, line, strlen(line)) < 0)
		_exit(2);
	_exit(0);
}

static void hold_with(const char *over, char *line, size_t len)
{
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], over);
	}
	close(fds[1]);
	n = read(fds[0], line, len - 1);
	line[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		IL_TEST_SKIP("no private mount namespace to bind over " DEV);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void need(void)
{
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root to open " DEV " and to bind over it");
	if (access(DEV, F_OK) != 0)
		IL_TEST_SKIP(DEV " absent here");
}

static void test_dma_latency_device_held(void **state)
{
	char line[400];

	(void)state;
	need();
	hold_with(NULL, line, sizeof(line));
	if (strncmp(line, "held|", 5) != 0)
		fail_msg("the real device: %s", line);
}

static void test_dma_latency_dev_null_not_held(void **state)
{
	char line[400];

	(void)state;
	need();
	hold_with("/dev/null", line, sizeof(line));
	if (strncmp(line, "not|-1|not held: " DEV " is character device 1:3, not PM QoS's 10:",
		    strlen("not|-1|not held: " DEV " is character device 1:3, not PM QoS's 10:")) !=
	    0)
		fail_msg("/dev/null over it: %s", line);
}

static void test_dma_latency_file_not_held(void **state)
{
	char line[400], text[16] = "";
	FILE *f;

	(void)state;
	need();
	snprintf(file_path, sizeof(file_path), "%s/dma-latency-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	{
		int fd = mkstemp(file_path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "keep\n", 5), 5);
		close(fd);
	}
	hold_with(file_path, line, sizeof(line));
	f = fopen(file_path, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	unlink(file_path);
	if (strncmp(line, "not|-1|not held: " DEV " is not a character device",
		    strlen("not|-1|not held: " DEV " is not a character device")) != 0)
		fail_msg("a regular file over it: %s", line);
	/* Checked before anything was written. */
	assert_string_equal(text, "keep\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dma_latency_device_held),
	    cmocka_unit_test(test_dma_latency_dev_null_not_held),
	    cmocka_unit_test(test_dma_latency_file_not_held),
	};

	if (il_test_filters("test_dma_latency", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
