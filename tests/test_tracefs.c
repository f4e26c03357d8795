/*
 * common/il_tracefs: the text of a tracepoint's id file becomes the perf
 * event id that BPF attaches to. A wrong id attaches to another
 * tracepoint, so only the kernel's own text is an id.
 */
#include <errno.h>
#include <string.h>

#include "il_test.h"
#include "il_tracefs.h"

#define ID(s) il_tracefs_id_parse(s, sizeof(s) - 1)

static void test_tracefs_id_parse(void **state)
{
	assert_int_equal(ID("316\n"), 316);
	assert_int_equal(ID("316"), 316);
	assert_int_equal(ID("2147483647\n"), 2147483647);
	/* Not a number the kernel writes, or none in range. */
	assert_int_equal(ID(""), -EIO);
	assert_int_equal(ID("\n"), -EIO);
	assert_int_equal(ID("0\n"), -EIO);
	assert_int_equal(ID("-1\n"), -EIO);
	assert_int_equal(ID("+5\n"), -EIO);
	assert_int_equal(ID(" 5\n"), -EIO);
	assert_int_equal(ID("2147483648\n"), -EIO);
	assert_int_equal(ID("5\n\n"), -EIO);
	assert_int_equal(ID("5\n6\n"), -EIO);
	assert_int_equal(ID("5x\n"), -EIO);
}

/*
 * What the old reader took as an id (tests/fuzz/regress/tracefs): the
 * first 15 bytes of a longer text, NUL-terminated and cut at the first
 * newline. A NUL or a second line after the number was ignored, and a
 * number with leading zeros past 15 bytes was read as its first digits.
 */
static void test_tracefs_id_parse_cut_short(void **state)
{
	/* 0000000000000123456: the old reader saw 000000000000012, so 12. */
	assert_int_equal(il_tracefs_id_parse("000000000000012", 15), -EIO);
	assert_int_equal(ID("012\n"), -EIO);
	/* 12, a NUL, then anything: not 12. */
	assert_int_equal(ID("12\00099\n"), -EIO);
	assert_int_equal(ID("12\0"), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tracefs_id_parse),
	    cmocka_unit_test(test_tracefs_id_parse_cut_short),
	};

	if (il_test_filters("test_tracefs", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
