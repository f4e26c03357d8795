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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_il_test_print_message_whole),
	    cmocka_unit_test(test_il_test_fail_msg_whole),
	};
	if (il_test_filters("test_il_test", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
