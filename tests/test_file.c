/*
 * common/il_file: il_file_read's size bound. A cap smaller than the
 * 64 KiB first block once made every read fail (EFBIG before a byte was
 * read), which turned /proc/PID/task/TID/schedstat "unreadable" in the
 * attribution's cross-check; pseudo-files report size 0, so only the
 * bound while reading protects there. And il_json_load's bound on the
 * tree: a report under 32 MiB of "0," was a tree of 1.3 GiB.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
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

/* --- il_json_load's tree bound ------------------------------------------- */
/* il_json_load of path, the tree's peak bytes in *peak. */
static int load_counted(const char *path, cJSON **root, char *err, size_t errlen, size_t *peak)
{
	int rc;

	il_test_json_count_begin();
	rc = il_json_load(path, root, err, errlen);
	*peak = il_test_json_count_peak();
	return rc;
}

/* The tree goes back through the counting hooks that allocated it. */
static void load_done(cJSON *root)
{
	cJSON_Delete(root);
	il_test_json_count_end();
}

/* A file of head, then item repeated (separated by commas) while the file
 * stays within max bytes, then tail. The items written in *n. */
static void write_repeated(const char *path, const char *head, const char *item, const char *tail,
			   size_t max, size_t *n)
{
	FILE *f = fopen(path, "w");
	size_t len = strlen(head) + strlen(tail), il = strlen(item) + 1;

	assert_non_null(f);
	fputs(head, f);
	*n = 0;
	while (len + il <= max) {
		if (*n)
			fputc(',', f);
		fputs(item, f);
		len += *n ? il : il - 1;
		++*n;
	}
	fputs(tail, f);
	assert_int_equal(fclose(f), 0);
}

/* Values counted without parsing: each is one node of cJSON's tree. */
static void test_file_json_count_values(void **state)
{
	static const struct {
		const char *text;
		size_t n;
	} cases[] = {
	    {"", 0},
	    {"0", 1},
	    {"[]", 1},
	    {"{ }", 1},
	    {"[0]", 2},
	    {"[0, 1 ,2]", 4},
	    {"[[],{}, [ ] ]", 4},
	    {"{\"a\": [1, 2], \"b\": \"x,y[{\"}", 5},
	    {"[\"a\\\",[\", \"\\\\\", 3]", 4},
	    {"{\"a\":{\"b\":{\"c\":null}}}", 4},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *root = cJSON_Parse(cases[i].text);
		size_t nodes = 0;

		if (root) {
			/* The count is the tree's, node for node. */
			cJSON *stack[8];
			size_t top = 0;

			stack[top++] = root;
			while (top) {
				cJSON *c = stack[--top];

				nodes++;
				for (cJSON *k = c->child; k; k = k->next)
					stack[top++] = k;
			}
			cJSON_Delete(root);
			assert_int_equal(nodes, cases[i].n);
		}
		if (il_json_count_values(cases[i].text, strlen(cases[i].text)) != cases[i].n)
			fail_msg("'%s': %zu values, want %zu", cases[i].text,
				 il_json_count_values(cases[i].text, strlen(cases[i].text)),
				 cases[i].n);
	}
}

/*
 * Under 32 MiB of small values (numbers, empty objects, members of one
 * object) is refused before a tree is built, in one line naming the file,
 * what it holds and the bound; cJSON held 1.3 GiB for the numbers.
 */
static void test_file_json_values_bound(void **state)
{
	static const struct {
		const char *head, *item, *tail;
	} hostile[] = {
	    {"{\"samples_us\":{\"processing\":[", "0", "]}}"},
	    {"[", "{}", "]"},
	    {"{\"hops\":[", "{\"a\":[]}", "]}"},
	};
	char path[128], err[512], want[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/hostile.json", dir);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		size_t n, peak;
		cJSON *root = NULL;
		int rc;

		write_repeated(path, hostile[i].head, hostile[i].item, hostile[i].tail,
			       IL_JSON_MAX_BYTES - 1, &n);
		rc = load_counted(path, &root, err, sizeof(err), &peak);
		load_done(root);
		if (rc != -E2BIG || peak > (1u << 20))
			fail_msg("%s (%zu items of %s): rc %d, tree %zu bytes: %s", path, n,
				 hostile[i].item, rc, peak, rc ? err : "read");
		/* The count is exact: the container(s) and every item's values. */
		snprintf(want, sizeof(want),
			 "%s: %zu JSON values, more than the %u a run "
			 "report may have",
			 path,
			 il_json_count_values(hostile[i].item, strlen(hostile[i].item)) * n +
			     (i == 1 ? 1 : 2) + (i == 0),
			 IL_JSON_MAX_VALUES);
		assert_string_equal(err, want);
		assert_null(strchr(err, '\n'));
	}
	unlink(path);
}

/*
 * A report at the bound is read, one value more is not; the largest run
 * writes about 250,000 values, an eighth of it. The tree of 2,000,000
 * values stays within about 100 bytes a value.
 */
static void test_file_json_values_at_bound(void **state)
{
	char path[128], err[512];
	size_t n, peak;
	cJSON *root = NULL;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/big.json", dir);
	/* {"samples_us":{"processing":[0,...]}}: 3 values and the items. */
	f = fopen(path, "w");
	assert_non_null(f);
	n = IL_JSON_MAX_VALUES - 3;
	fputs("{\"samples_us\":{\"processing\":[", f);
	for (size_t i = 0; i < n; i++)
		fputs(i ? ",1" : "1", f);
	fputs("]}}\n", f);
	assert_int_equal(fclose(f), 0);
	if (load_counted(path, &root, err, sizeof(err), &peak) < 0)
		fail_msg("at the bound: %s", err);
	assert_int_equal(cJSON_GetArraySize(il_json_get(root, "samples_us.processing")), n);
	load_done(root);
	assert_true(peak <= (size_t)IL_JSON_MAX_VALUES * 100);
	print_message("%u values: a tree of %zu bytes\n", IL_JSON_MAX_VALUES, peak);
	/* One more. */
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, -4, SEEK_END), 0);
	fputs(",1]}}\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(load_counted(path, &root, err, sizeof(err), &peak), -E2BIG);
	load_done(NULL);
	assert_non_null(strstr(err, "2000001 JSON values, more than the 2000000"));
	unlink(path);
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
	    cmocka_unit_test(test_file_json_count_values),
	    cmocka_unit_test(test_file_json_values_bound),
	    cmocka_unit_test(test_file_json_values_at_bound),
	};

	if (il_test_filters("test_file", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
