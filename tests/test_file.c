/*
 * common/il_file: il_file_read's size bound. A cap smaller than the
 * 64 KiB first block once made every read fail (EFBIG before a byte was
 * read), which turned /proc/PID/task/TID/schedstat "unreadable" in the
 * attribution's cross-check; pseudo-files report size 0, so only the
 * bound while reading protects there.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_file.h"
#include "il_test.h"

static char dir[] = "/tmp/il-test-file-XXXXXX";

static void write_bytes(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	assert_int_equal(fclose(f), 0);
}

/* Exactly max bytes are read; max + 1 are refused with EFBIG, whatever max. */
static void test_file_read_bound(void **state)
{
	static const size_t caps[] = {1, 16, 256, 4095, 4096, 65535, 65536, 65537, 200000};
	char path[64];

	(void)state;
	snprintf(path, sizeof(path), "%s/f", dir);
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		size_t len = 0, max = caps[i];
		char *text;

		write_bytes(path, max);
		text = il_file_read(path, max, &len);
		if (!text)
			fail_msg("max %zu: %zu bytes refused: %s", max, max, strerror(errno));
		assert_int_equal(len, max);
		assert_int_equal(strlen(text), max);
		free(text);

		write_bytes(path, max + 1);
		errno = 0;
		assert_null(il_file_read(path, max, &len));
		assert_int_equal(errno, EFBIG);
	}
	unlink(path);
}

/* A pseudo-file (size 0 by stat) under a small cap reads whole. */
static void test_file_read_proc_small_cap(void **state)
{
	char path[64], *text;
	size_t len = 0;

	(void)state;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)getpid());
	IL_TEST_NEED(access(path, R_OK) == 0, "%s: %s", path, strerror(errno));
	text = il_file_read(path, 256, &len);
	if (!text)
		fail_msg("%s under a 256-byte cap: %s", path, strerror(errno));
	assert_true(len > 4 && len <= 256);
	assert_non_null(strchr(text, ' '));
	free(text);
	/* The same file under a cap it exceeds: refused, never truncated. */
	errno = 0;
	assert_null(il_file_read(path, 2, &len));
	assert_int_equal(errno, EFBIG);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	/* All of it: a failed test leaves its files behind. */
	return il_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_file_read_bound),
	    cmocka_unit_test(test_file_read_proc_small_cap),
	};

	if (il_test_filters("test_file", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
