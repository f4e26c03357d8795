/*
 * Fuzz regressions: every file of tests/fuzz/corpus/<target>/ (the seeds)
 * and tests/fuzz/regress/<target>/ (inputs that once crashed a fuzzer)
 * goes through the same logic as the libFuzzer target, here built without
 * libFuzzer. Run under ASan+UBSan, a memory error fails the suite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

static const char *fuzz_tree(void)
{
	static char buf[4096];
	const char *src = getenv("IL_SOURCE_DIR");

	if (src && *src && (size_t)snprintf(buf, sizeof(buf), "%s/tests/fuzz", src) < sizeof(buf))
		return buf;
	return IL_FUZZ_TREE;
}

/* Reads a whole file into an allocation of exactly its size (so reads
 * past the end trip ASan); *size_out 0 still returns a valid pointer. */
static uint8_t *read_file(const char *path, size_t *size_out)
{
	FILE *f = fopen(path, "rbe");
	uint8_t *data = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
		goto out;
	data = malloc(n ? (size_t)n : 1);
	if (data && n && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	*size_out = (size_t)n;
out:
	fclose(f);
	return data;
}

/*
 * Replays every regular file of <tree>/<kind>/<target>. Returns how many;
 * each input that fails is named on stderr and counted in *failed, so one
 * run lists all of them.
 */
static int replay_dir(const char *kind, const char *target, fuzz_fn fn, int must_exist, int *failed)
{
	char dir[4096];
	struct dirent **names;
	int n, count = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s/%s", fuzz_tree(), kind, target) >=
	    sizeof(dir))
		fail_msg("%s/%s: path too long", kind, target);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		if (must_exist)
			fail_msg("%s: %s", dir, strerror(errno));
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char path[8192];
		uint8_t *data = NULL;
		size_t size = 0;

		if (names[i]->d_name[0] != '.' &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) <
			sizeof(path)) {
			data = read_file(path, &size);
			if (!data) {
				print_error("%s: cannot read\n", path);
				(*failed)++;
			} else if (fn(data, size) != 0) {
				print_error("%s: fuzz check failed (the line above says which)\n",
					    path);
				(*failed)++;
			}
			free(data);
			count++;
		}
		free(names[i]);
	}
	free(names);
	return count;
}

static void replay(const char *target, fuzz_fn fn)
{
	int failed = 0;
	int seeds = replay_dir("corpus", target, fn, 1, &failed);

	/* An empty corpus would make the test pass without testing anything. */
	assert_true(seeds > 0);
	(void)replay_dir("regress", target, fn, 0, &failed);
	assert_int_equal(failed, 0);
}

static void test_fuzz_regress_frame(void **state)
{
	replay("frame", il_fuzz_frame);
}

static void test_fuzz_regress_policy(void **state)
{
	replay("policy", il_fuzz_policy);
}

static void test_fuzz_regress_evdev(void **state)
{
	replay("evdev", il_fuzz_evdev);
}

static void test_fuzz_regress_cli(void **state)
{
	replay("cli", il_fuzz_cli);
}

static void test_fuzz_regress_report(void **state)
{
	replay("report", il_fuzz_report);
}

static void test_fuzz_regress_evemu(void **state)
{
	replay("evemu", il_fuzz_evemu);
}

static void test_fuzz_regress_evemu_round(void **state)
{
	replay("evemu_round", il_fuzz_evemu_round);
}

static void test_fuzz_regress_state(void **state)
{
	replay("state", il_fuzz_state);
}

/* Edge cases a corpus file cannot hold conveniently. */
static void test_fuzz_regress_empty(void **state)
{
	static const uint8_t none[1];

	assert_int_equal(il_fuzz_frame(none, 0), 0);
	assert_int_equal(il_fuzz_policy(none, 0), 0);
	assert_int_equal(il_fuzz_evdev(none, 0), 0);
	assert_int_equal(il_fuzz_cli(none, 0), 0);
	assert_int_equal(il_fuzz_report(none, 0), 0);
	assert_int_equal(il_fuzz_evemu(none, 0), 0);
	assert_int_equal(il_fuzz_evemu_round(none, 0), 0);
	assert_int_equal(il_fuzz_state(none, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fuzz_regress_frame),
	    cmocka_unit_test(test_fuzz_regress_policy),
	    cmocka_unit_test(test_fuzz_regress_evdev),
	    cmocka_unit_test(test_fuzz_regress_cli),
	    cmocka_unit_test(test_fuzz_regress_report),
	    cmocka_unit_test(test_fuzz_regress_evemu),
	    cmocka_unit_test(test_fuzz_regress_evemu_round),
	    cmocka_unit_test(test_fuzz_regress_state),
	    cmocka_unit_test(test_fuzz_regress_empty),
	};

	if (il_test_filters("test_fuzz_regress", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
