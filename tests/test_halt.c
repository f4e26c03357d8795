/*
 * The halt word (wire/il_halt.h): what the orchestrator writes another
 * process reads, through the descriptor it is handed; the file cannot be
 * shrunk under a reader; the child's side refuses what is not one word
 * and never keeps the descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_clock.h"
#include "il_halt.h"
#include "il_test.h"

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void test_halt_set_is_seen_through_the_fd(void **state)
{
	struct il_halt o = IL_HALT_NONE, c = IL_HALT_NONE;
	char err[256] = "";
	int fd;

	assert_int_equal(il_halt_create(&o, err, sizeof(err)), 0);
	assert_non_null(o.word);
	assert_int_equal(il_halt_read(o.word), 0);
	fd = dup(o.fd);
	assert_true(fd >= 0);
	assert_int_equal(il_halt_map(&c, fd, err, sizeof(err)), 0);
	assert_false(fd_is_open(fd)); /* closed once mapped */
	assert_int_equal(il_halt_read(c.word), 0);
	il_halt_set(&o, 123456789);
	assert_int_equal(il_halt_read(c.word), 123456789);
	/* 0 would read as "still running": a stop is never 0. */
	il_halt_set(&o, 0);
	assert_int_equal(il_halt_read(c.word), 1);
	assert_int_equal(il_halt_read(NULL), 0);
	il_halt_free(&c);
	il_halt_free(&o);
	il_halt_free(&o); /* twice: harmless */
	assert_null(o.word);
}

/* Another process, as a child of the run: it sees the word change. */
static void test_halt_crosses_processes(void **state)
{
	struct il_halt o = IL_HALT_NONE;
	char err[256] = "";
	int status;
	pid_t pid;

	assert_int_equal(il_halt_create(&o, err, sizeof(err)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct il_halt c = IL_HALT_NONE;
		uint64_t t0 = il_now_ns();

		if (il_halt_map(&c, dup(o.fd), err, sizeof(err)) < 0)
			_exit(3);
		while (!il_halt_read(c.word))
			if (il_now_ns() - t0 > il_ms_to_ns(10000))
				_exit(4);
		_exit(il_halt_read(c.word) == 42 ? 0 : 5);
	}
	usleep(20000);
	il_halt_set(&o, 42);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	il_halt_free(&o);
}

/* Sealed at one word: a reader can never be shown a shorter file (SIGBUS). */
static void test_halt_file_is_sealed(void **state)
{
	struct il_halt o = IL_HALT_NONE;
	char err[256] = "";

	assert_int_equal(il_halt_create(&o, err, sizeof(err)), 0);
	assert_int_equal(ftruncate(o.fd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(o.fd, 4096), -1);
	assert_int_equal(errno, EPERM);
	il_halt_free(&o);
}

/* What is not one word is refused with one line, and the fd is closed. */
static void test_halt_map_refuses(void **state)
{
	struct il_halt c = IL_HALT_NONE;
	char path[] = "/tmp/il-test-halt.XXXXXX", err[256] = "", block[4096] = {0};
	int fd, pfd[2];

	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	assert_int_equal(il_halt_map(&c, fd, err, sizeof(err)), -EINVAL);
	print_message("a page: %s\n", err);
	assert_non_null(strstr(err, "4096 bytes"));
	assert_null(strchr(err, '\n'));
	assert_false(fd_is_open(fd));
	assert_null(c.word);

	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(il_halt_map(&c, pfd[0], err, sizeof(err)), -EINVAL);
	print_message("a pipe: %s\n", err);
	assert_false(fd_is_open(pfd[0]));
	close(pfd[1]);

	assert_int_equal(il_halt_map(&c, 999, err, sizeof(err)), -EBADF);
	print_message("no fd: %s\n", err);
	assert_null(c.word);
	il_halt_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_halt_set_is_seen_through_the_fd),
	    cmocka_unit_test(test_halt_crosses_processes),
	    cmocka_unit_test(test_halt_file_is_sealed),
	    cmocka_unit_test(test_halt_map_refuses),
	};
	if (il_test_filters("test_halt", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
