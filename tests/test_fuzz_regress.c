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

/* Every target, by the directory name of its corpus and regress inputs. */
static const struct target {
	const char *name;
	fuzz_fn fn;
} targets[] = {
    {"frame", il_fuzz_frame},
    {"policy", il_fuzz_policy},
    {"evdev", il_fuzz_evdev},
    {"cli", il_fuzz_cli},
    {"report", il_fuzz_report},
    {"evemu", il_fuzz_evemu},
    {"evemu_round", il_fuzz_evemu_round},
    {"state", il_fuzz_state},
    {"cpustat", il_fuzz_cpustat},
    {"cpu_bandwidth", il_fuzz_cpu_bandwidth},
    {"tracefs", il_fuzz_tracefs},
    {"sysinfo", il_fuzz_sysinfo},
    {"input_attr", il_fuzz_input_attr},
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

/* One target's corpus and regress inputs (state: its struct target). */
static void test_fuzz_regress_replay(void **state)
{
	const struct target *t = *state;
	int failed = 0;
	int seeds = replay_dir("corpus", t->name, t->fn, 1, &failed);

	/* An empty corpus would make the test pass without testing anything. */
	assert_true(seeds > 0);
	(void)replay_dir("regress", t->name, t->fn, 0, &failed);
	assert_int_equal(failed, 0);
}

/* Edge cases a corpus file cannot hold conveniently. */
static void test_fuzz_regress_empty(void **state)
{
	static const uint8_t none[1];

	for (size_t i = 0; i < NTARGETS; i++)
		if (targets[i].fn(none, 0) != 0)
			fail_msg("%s: an empty input failed its checks", targets[i].name);
}

int main(void)
{
	static char names[NTARGETS][64];
	struct CMUnitTest tests[NTARGETS + 1];
	size_t n = 0;

	for (; n < NTARGETS; n++) {
		snprintf(names[n], sizeof(names[n]), "test_fuzz_regress_%s", targets[n].name);
		tests[n] = (struct CMUnitTest){names[n], test_fuzz_regress_replay, NULL, NULL,
					       (void *)&targets[n]};
	}
	tests[n++] = (struct CMUnitTest){"test_fuzz_regress_empty", test_fuzz_regress_empty, NULL,
					 NULL, NULL};
	if (il_test_filters("test_fuzz_regress", tests, n) < 0)
		return 1;
	return _cmocka_run_group_tests("test_fuzz_regress", tests, n, NULL, NULL);
}
