/* The shared test library's own promises: what a test prints reaches the log whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Longer than cmocka 1.1's 1024-byte message buffer, with a marker at its end. */
#define LONG_LEN 5000

static char *long_text(void)
{
	char *t = malloc(LONG_LEN + 1);

	assert_non_null(t);
	memset(t, 'x', LONG_LEN);
	memcpy(t + LONG_LEN - 4, "|END", 4);
	t[LONG_LEN] = '\0';
	return t;
}

/*
 * Runs fn with file descriptor fd sent to a temporary file, in a child
 * (fail_msg() ends its case with a longjmp only a cmocka group catches),
 * and returns what it wrote there.
 */
static char *captured(int fd, void (*fn)(void))
{
	FILE *f = tmpfile();
	char *out = calloc(1, 4 * LONG_LEN);
	pid_t pid;
	size_t n;
	int st;

	assert_non_null(f);
	assert_non_null(out);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* The other stream too, or the inner group's "FAILED" lines would read
		 * as this test's in the log. */
		int null = open("/dev/null", O_WRONLY);

		dup2(null, fd == STDOUT_FILENO ? STDERR_FILENO : STDOUT_FILENO);
		dup2(fileno(f), fd);
		fn();
		fflush(NULL);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	rewind(f);
	n = fread(out, 1, 4 * LONG_LEN - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static void print_long(void)
{
	char *t = long_text();

	print_message("%s\n", t);
	free(t);
}

static void fail_long_case(void **state)
{
	char *t = long_text();

	(void)state;
	fail_msg("%s", t);
}

static void fail_long(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(fail_long_case)};

	cmocka_run_group_tests_name("inner", tests, NULL, NULL);
}

/* A command's output printed for the log arrives whole (cmocka cut it at 1023 bytes). */
static void test_il_test_print_message_whole(void **state)
{
	char *out = captured(STDOUT_FILENO, print_long);

	(void)state;
	assert_int_equal(strlen(out), LONG_LEN + 1);
	assert_non_null(strstr(out, "|END\n"));
	free(out);
}

/* A failure's message, a child's stderr in it, arrives whole too. */
static void test_il_test_fail_msg_whole(void **state)
{
	char *out = captured(STDERR_FILENO, fail_long);

	(void)state;
	assert_non_null(strstr(out, "ERROR: x"));
	assert_non_null(strstr(out, "|END\n"));
	free(out);
}

static int made_pipe = -1;

/* Makes a directory with a file in it and a file, says where, and fails. */
static void make_then_fail_case(void **state)
{
	char dir[256], file[256], inner[300], both[600];

	(void)state;
	assert_int_equal(il_test_tmpdir_make(dir, sizeof(dir), "made"), 0);
	assert_int_equal(il_test_tmpfile_make(file, sizeof(file), "made"), 0);
	snprintf(inner, sizeof(inner), "%s/out.json", dir);
	il_test_write_file(inner, "{}");
	snprintf(both, sizeof(both), "%s\n%s\n", dir, file);
	assert_true(write(made_pipe, both, strlen(both)) == (ssize_t)strlen(both));
	fail_msg("failing on purpose, past the case's own clean-up");
}

/*
 * A test that fails leaves no temporary file behind: what il_test made
 * goes when the process exits, whichever way its cases ended; a forked
 * child that exits takes nothing its parent made.
 */
static void test_il_test_tmp_removed_at_exit(void **state)
{
	const struct CMUnitTest inner[] = {cmocka_unit_test(make_then_fail_case)};
	char buf[600] = "", mine[256], *nl, *file;
	int p[2], st;
	pid_t pid;

	(void)state;
	assert_int_equal(il_test_tmpfile_make(mine, sizeof(mine), "mine"), 0);
	assert_int_equal(pipe(p), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		made_pipe = p[1];
		cmocka_run_group_tests_name("inner", inner, NULL, NULL);
		exit(0); /* exit(), not _exit(): the at-exit removal runs */
	}
	close(p[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(read(p[0], buf, sizeof(buf) - 1) > 0);
	close(p[0]);
	/* "DIR\nFILE\n" */
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	*nl = '\0';
	file = nl + 1;
	nl = strchr(file, '\n');
	assert_non_null(nl);
	*nl = '\0';
	if (access(buf, F_OK) == 0 || access(file, F_OK) == 0)
		fail_msg("left behind by a failed case: %s %s", buf, file);
	assert_int_equal(access(mine, F_OK), 0);
	assert_int_equal(il_test_tmpdir_remove(mine), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_il_test_print_message_whole),
	    cmocka_unit_test(test_il_test_fail_msg_whole),
	    cmocka_unit_test(test_il_test_tmp_removed_at_exit),
	};
	if (il_test_filters("test_il_test", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
