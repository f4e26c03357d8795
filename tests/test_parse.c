/*
 * common/il_parse: the checked number parsers every option and file goes
 * through (what they refuse matters as much as what they accept), and the
 * name of an option getopt refused, as the subcommands and benchmarks say
 * it (an unknown letter inside a cluster once named the argument before).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "il_parse.h"
#include "il_test.h"

static void test_parse_u64(void **state)
{
	static const char *const refused[] = {
	    "", " 1", "1 ", "+1", "-1", "0x10", "1e3", "1.0", "18446744073709551616", "nan", "1a"};
	uint64_t v = 7;

	(void)state;
	assert_int_equal(il_parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(il_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(il_parse_u64("11", 0, 10, &v), -ERANGE);
	assert_int_equal(il_parse_u64("4", 5, 10, &v), -ERANGE);
	/* A negative number is out of range, not "not a number"; "-0" is 0. */
	assert_int_equal(il_parse_u64("-1", 0, 10, &v), -ERANGE);
	assert_int_equal(il_parse_u64("-18446744073709551617", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(il_parse_u64("-0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(il_parse_u64("-0", 1, 10, &v), -ERANGE);
	assert_int_equal(il_parse_u64("--1", 0, 10, &v), -EINVAL);
	assert_int_equal(il_parse_u64("-1a", 0, 10, &v), -EINVAL);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (il_parse_u64(refused[i], 0, UINT64_MAX, &v) == 0)
			fail_msg("il_parse_u64 took \"%s\"", refused[i]);
	assert_int_equal(il_parse_hex_u64("1a", 0, 255, &v), 0);
	assert_int_equal(v, 26);
	/* Digits only: strtoull would take these. */
	assert_true(il_parse_hex_u64("0x1a", 0, 255, &v) < 0);
	assert_true(il_parse_hex_u64("0X1a", 0, 255, &v) < 0);
	assert_true(il_parse_hex_u64("1a ", 0, 255, &v) < 0);
	assert_true(il_parse_hex_u64("", 0, 255, &v) < 0);
}

static void test_parse_i64_double(void **state)
{
	static const char *const refused[] = {"",      "inf", "-inf", "nan", "1e999",
					      "0x1p3", " 1",  "1 ",   "1.5x"};
	int64_t i;
	double d;

	(void)state;
	assert_int_equal(il_parse_i64("-20", -20, 19, &i), 0);
	assert_int_equal(i, -20);
	assert_int_equal(il_parse_i64("-21", -20, 19, &i), -ERANGE);
	assert_int_equal(il_parse_double("0.1", 0.1, 1000, &d), 0);
	assert_true(fabs(d - 0.1) < 1e-12);
	assert_int_equal(il_parse_double("1000.0001", 0.1, 1000, &d), -ERANGE);
	/* Beyond a double: out of range; below its smallest: that tiny value. */
	assert_int_equal(il_parse_double("1e999", -1e300, 1e300, &d), -ERANGE);
	assert_int_equal(il_parse_double("-1e999", -1e300, 1e300, &d), -ERANGE);
	assert_int_equal(il_parse_double("1e-400", 0, 1, &d), 0);
	assert_true(d >= 0 && d < 1e-300);
	assert_int_equal(il_parse_double("1e-400", 0.1, 1, &d), -ERANGE);
	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
		if (il_parse_double(refused[k], -1e300, 1e300, &d) == 0)
			fail_msg("il_parse_double took \"%s\"", refused[k]);
}

/*
 * Runs getopt_long over argv (short options -a and -j X, long ones opts)
 * until it refuses an option; then its name, or with why the message for
 * it (il_parse_option_error). NULL when nothing was refused.
 */
static const char *refused(int argc, char **argv, const struct option *opts, bool why, char *buf,
			   size_t len)
{
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":aj:", opts, NULL)) != -1)
		if (c == '?')
			return why ? il_parse_option_error(argv, opts, buf, len)
				   : il_parse_bad_option(argv, buf, len);
	return NULL;
}

static const struct option json_opts[] = {{"json", required_argument, NULL, 'j'},
					  {NULL, 0, NULL, 0}};

static const char *refused_name(int argc, char **argv, char *buf, size_t len)
{
	return refused(argc, argv, json_opts, false, buf, len);
}

/* A list with an empty item is told from one without, whatever its place. */
/* A kernel file's one line: the newline at its end only, no NUL. */
static void test_parse_one_line(void **state)
{
	size_t n = 99;

	(void)state;
	assert_int_equal(il_parse_one_line("150000 100000\n", 14, &n), 0);
	assert_int_equal(n, 13);
	assert_int_equal(il_parse_one_line("max", 3, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(il_parse_one_line("\n", 1, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(il_parse_one_line("1\n2\n", 4, &n), -EINVAL);
	assert_int_equal(il_parse_one_line("1\n\n", 3, &n), -EINVAL);
	assert_int_equal(il_parse_one_line("1\0002\n", 4, &n), -EINVAL);
}

static void test_parse_list_has_empty(void **state)
{
	static const char *const empty[] = {"", ",", ",a", "a,", "a,,b", "a,b,", ",,"};
	static const char *const full[] = {"a", "a,b", "0-1,3", "one-cpu,over4"};

	(void)state;
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
		if (!il_parse_list_has_empty(empty[i]))
			fail_msg("'%s' has an empty item", empty[i]);
	for (size_t i = 0; i < sizeof(full) / sizeof(full[0]); i++)
		if (il_parse_list_has_empty(full[i]))
			fail_msg("'%s' has no empty item", full[i]);
}

static void test_parse_bad_option(void **state)
{
	char *cluster[] = {"prog", "-xyz", "file", NULL};
	char *inner[] = {"prog", "file", "-ax", NULL};
	char *lng[] = {"prog", "--json", "out", "--bogus=3", NULL};
	char *single[] = {"prog", "-q", NULL};
	char buf[8];

	(void)state;
	assert_string_equal(refused_name(3, cluster, buf, sizeof(buf)), "-x");
	/* After a known letter of the same cluster. */
	assert_string_equal(refused_name(3, inner, buf, sizeof(buf)), "-x");
	assert_string_equal(refused_name(4, lng, buf, sizeof(buf)), "--bogus=3");
	assert_string_equal(refused_name(2, single, buf, sizeof(buf)), "-q");
}

/* The message for what getopt_long refused, with run's options of one prefix. */
static const char *refused_why(int argc, char **argv, char *buf, size_t len)
{
	static const struct option opts[] = {{"warmup", required_argument, NULL, 'w'},
					     {"work", required_argument, NULL, 'k'},
					     {"work-model", required_argument, NULL, 'm'},
					     {"json", required_argument, NULL, 'j'},
					     {NULL, 0, NULL, 0}};

	return refused(argc, argv, opts, true, buf, len);
}

/* getopt_long refuses an ambiguous prefix as it does an unknown name: the
 * message tells them apart, and a unique prefix or exact name is taken. */
static void test_parse_option_error(void **state)
{
	char *amb[] = {"prog", "--w", "3", NULL};
	char *amb2[] = {"prog", "--wo=3", NULL};
	char *unknown[] = {"prog", "--bogus=3", NULL};
	char *shrt[] = {"prog", "-x", NULL};
	char *unique[] = {"prog", "--wa", "3", "--work", "main=1", "--j", "x", NULL};
	char buf[300], tiny[24];

	(void)state;
	assert_string_equal(refused_why(3, amb, buf, sizeof(buf)),
			    "ambiguous option '--w' (--warmup, --work, --work-model)");
	assert_string_equal(refused_why(2, amb2, buf, sizeof(buf)),
			    "ambiguous option '--wo' (--work, --work-model)");
	assert_string_equal(refused_why(2, unknown, buf, sizeof(buf)),
			    "unknown option '--bogus=3'");
	assert_string_equal(refused_why(2, shrt, buf, sizeof(buf)), "unknown option '-x'");
	assert_null(refused_why(7, unique, buf, sizeof(buf)));
	/* A buffer too small is cut, never overrun. */
	assert_non_null(refused_why(3, amb, tiny, sizeof(tiny)));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_u64),
	    cmocka_unit_test(test_parse_i64_double),
	    cmocka_unit_test(test_parse_bad_option),
	    cmocka_unit_test(test_parse_option_error),
	    cmocka_unit_test(test_parse_list_has_empty),
	    cmocka_unit_test(test_parse_one_line),
	};

	if (il_test_filters("test_parse", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
