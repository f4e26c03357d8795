/* `inputlat compare`: side-by-side output, ratios, interval, one-line errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_cmd.h"
#include "il_test.h"

static char dir[64];
static char out_text[1 << 16], err_text[1 << 12];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void write_text(const char *name, const char *text)
{
	char p[128];

	path_of(p, sizeof(p), name);
	il_test_write_file(p, text);
}

/* A report whose latencies are all `scale` times those of the base run. */
static void write_report(const char *name, double scale, int with_samples)
{
	char text[4096], samples[2048] = "";
	int n = 0;

	if (with_samples) {
		n += snprintf(samples + n, sizeof(samples) - (size_t)n, "\"samples_us\":{\"processing\":[");
		for (int i = 0; i < 100; i++)
			n += snprintf(samples + n, sizeof(samples) - (size_t)n, "%s%.1f", i ? "," : "",
				      scale * (900 + (i * 37) % 200));
		snprintf(samples + n, sizeof(samples) - (size_t)n, "]},");
	}
	snprintf(text, sizeof(text),
		 "{\"file_version\":1,\"policy\":\"p%.0f\",%s"
		 "\"events\":{\"sent\":100,\"completed\":100,\"timed_out\":0,\"invalid_frames\":0},"
		 "\"latency_us\":{"
		 "\"processing\":{\"min\":%g,\"p50\":%g,\"p90\":%g,\"p99\":%g,\"p999\":%g,\"max\":%g,\"mean\":%g},"
		 "\"presentation\":{\"min\":%g,\"p50\":%g,\"p90\":%g,\"p99\":%g,\"p999\":%g,\"max\":%g,\"mean\":null}},"
		 "\"hops\":[{\"index\":1,\"name\":\"inject->evdev\",\"p50_us\":%g}],"
		 "\"histogram\":{\"unit\":\"us\",\"buckets\":[[%g,30],[%g,60],[%g,10]]}}",
		 scale, samples, 900 * scale, 1000 * scale, 1080 * scale, 1100 * scale, 1150 * scale,
		 1200 * scale, 1000 * scale, 9000 * scale, 10000 * scale, 14000 * scale, 16000 * scale,
		 17000 * scale, 17500 * scale, 20 * scale, 950 * scale, 1000 * scale, 1100 * scale);
	write_text(name, text);
}

/* Runs compare with stdout and stderr captured; returns its exit code. */
static int run_compare(const char *a, const char *b)
{
	char pa[128], pb[128];
	char *argv[] = {"compare", pa, pb, NULL};

	path_of(pa, sizeof(pa), a);
	path_of(pb, sizeof(pb), b);
	return il_test_capture(il_cmd_compare, 3, argv, out_text, sizeof(out_text), err_text,
			       sizeof(err_text));
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int setup(void **state)
{
	(void)state;
	if (il_test_tmpdir_make(dir, sizeof(dir), "compare") < 0)
		return -1;
	write_report("a.json", 1, 1);
	write_report("b.json", 0.5, 1);
	write_report("c.json", 1, 0);
	write_report("d.json", 0.5, 0);
	write_text("broken.json", "{\"file_version\": 1, ");
	write_text("nokey.json", "{\"file_version\": 1, \"events\": {\"sent\": 1}}");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return il_test_tmpdir_remove(dir);
}

static void test_compare_side_by_side(void **state)
{
	(void)state;
	assert_int_equal(run_compare("a.json", "b.json"), 0);
	assert_non_null(strstr(out_text, "processing p50 (us)"));
	assert_non_null(strstr(out_text, "1000.0"));
	assert_non_null(strstr(out_text, "500.0"));
	assert_non_null(strstr(out_text, "0.50"));
	assert_non_null(strstr(out_text, "hop  1 inject->evdev p50 (us)"));
	assert_non_null(strstr(out_text, "per-event samples"));
	assert_non_null(strstr(out_text, "B is lower"));
	assert_string_equal(err_text, "");
}

static void test_compare_histogram_fallback(void **state)
{
	(void)state;
	assert_int_equal(run_compare("c.json", "d.json"), 0);
	assert_non_null(strstr(out_text, "histogram buckets"));
	assert_non_null(strstr(out_text, "B is lower"));
	assert_int_equal(run_compare("c.json", "c.json"), 0);
	assert_non_null(strstr(out_text, "no clear difference"));
}

static void test_compare_errors_one_line(void **state)
{
	char *argv[] = { "compare", "only-one.json", NULL };

	(void)state;
	assert_int_equal(run_compare("a.json", "missing.json"), 2);
	assert_non_null(strstr(err_text, "missing.json: No such file or directory"));
	assert_int_equal(count_lines(err_text), 1);

	assert_int_equal(run_compare("broken.json", "a.json"), 2);
	assert_non_null(strstr(err_text, "broken.json: not a JSON object"));
	assert_int_equal(count_lines(err_text), 1);

	assert_int_equal(run_compare("a.json", "nokey.json"), 2);
	assert_non_null(strstr(err_text, "nokey.json: missing key events.completed"));
	assert_int_equal(count_lines(err_text), 1);

	assert_int_equal(il_cmd_compare(2, argv), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_side_by_side),
		cmocka_unit_test(test_compare_histogram_fallback),
		cmocka_unit_test(test_compare_errors_one_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
