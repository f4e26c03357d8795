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
#include <sys/stat.h>
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

/*
 * il_out_path_same: two names of one file, there or not yet, and two
 * files that are not one. reproduce's '--lock X --json X' wrote the
 * verdicts over the lock it held with flock (a new inode at X: the next
 * reproduce's lock was another file).
 */
static void test_file_out_path_same(void **state)
{
	char a[128], a_dot[128], a_dir[128], b[128], hard[128], soft[128], sub[128], cwd[4096];

	(void)state;
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(a_dot, sizeof(a_dot), "%s/./a", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(a_dir, sizeof(a_dir), "%s/sub/../a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(hard, sizeof(hard), "%s/hard", dir);
	snprintf(soft, sizeof(soft), "%s/soft", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	/* Neither there yet. */
	assert_true(il_out_path_same(a, a));
	assert_true(il_out_path_same(a, a_dot));
	assert_true(il_out_path_same(a_dir, a));
	assert_false(il_out_path_same(a, b));
	assert_false(il_out_path_same(a, sub));
	/* One there: not the other. */
	write_bytes(a, 1);
	assert_false(il_out_path_same(a, b));
	assert_false(il_out_path_same(b, a));
	/* Both there: one file by any name. */
	assert_int_equal(link(a, hard), 0);
	assert_int_equal(symlink("a", soft), 0);
	assert_true(il_out_path_same(a, a_dot));
	assert_true(il_out_path_same(hard, a));
	assert_true(il_out_path_same(a, soft));
	write_bytes(b, 1);
	assert_false(il_out_path_same(a, b));
	/* A relative name against its absolute one. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_true(il_out_path_same("a", a));
	assert_true(il_out_path_same("new", "./new"));
	assert_false(il_out_path_same("new", "sub/new"));
	assert_int_equal(chdir(cwd), 0);
	/* stdout is no file; nor is nothing. */
	assert_false(il_out_path_same("-", "-"));
	assert_false(il_out_path_same(NULL, a));
	unlink(a);
	unlink(b);
	unlink(hard);
	unlink(soft);
	rmdir(sub);
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
	    cmocka_unit_test(test_file_out_path_same),
	};

	if (il_test_filters("test_file", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
