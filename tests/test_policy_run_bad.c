/*
 * A bad policy is the user's mistake (issue 3): `inputlat run --policy`
 * with an unknown name or a broken file ends with exit 2 and one line on
 * stderr naming the file, the line and what is wrong, before any knob or
 * thread changes. Needs no root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_test.h"
#include "il_test_knobs.h"
#include "il_test_proc.h"

struct bad_policy {
	const char *text;
	int line;	    /* expected in "FILE:LINE:" */
	const char *expect; /* what the line names */
};

static void test_policy_run_bad(void **state)
{
	static const struct bad_policy cases[] = {
	    {"[policy]\nname = bad\n\n[ui]\nclass = other\nbogus = 1\n", 6, "bogus"},
	    {"[policy]\nname = bad\n[render]\nclass = other\n", 3, "render"},
	    {"[policy]\nname = bad\n[ui]\nclass = fast\n", 4, "fast"},
	    {"[ui]\nclass = fifo\npriority = 0\n", 3, "priority"},
	};
	char *argv[] = {il_test_suite.inputlat, "run", "--policy", "nope", "--events", "10", NULL};
	struct il_test_result *res = malloc(sizeof(*res));
	char path[300], where[320], before[32];
	bool others = access(il_test_knobs_state_file(), F_OK) == 0;

	assert_non_null(res);
	snprintf(before, sizeof(before), "%s", il_test_knob(IL_TEST_RT_RUNTIME));
	assert_int_equal(il_test_run(argv, 20000, res), 0);
	il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2, "nope",
				     "unknown policy");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/bad%zu.policy", il_test_suite.tmpdir, i);
		il_test_write_file(path, cases[i].text);
		argv[3] = path;
		assert_int_equal(il_test_run(argv, 20000, res), 0);
		snprintf(where, sizeof(where), "%s:%d:", path, cases[i].line);
		il_test_assert_one_line_exit(res->exit_code, res->out, res->err, 2, where,
					     cases[i].expect);
	}
	/* No knob was touched by any of them; another run's change is not ours. */
	others |= access(il_test_knobs_state_file(), F_OK) == 0;
	if (!others)
		assert_string_equal(il_test_knob(IL_TEST_RT_RUNTIME), before);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_policy_run_bad, il_test_proc_teardown),
	};

	if (il_test_filters("test_policy_run_bad", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, il_test_suite_setup, il_test_suite_teardown);
}
