/*
 * The thread records a child reports ready with are checked once as they
 * arrive (il_thread_record_bad): what the orchestrator later casts to an
 * integer (pid, tid, priority, nice, the sched times) is a whole number in
 * its type's range, or the record is refused, naming what is wrong. A cast
 * of NaN or of 1e300 to an int is undefined.
 */
#include <stdio.h>
#include <string.h>

#include "il_test.h"
#include "il_thread_record.h"

static const char *bad_of(const char *text)
{
	static char why[128];
	cJSON *t = cJSON_Parse(text);
	const char *bad;

	assert_non_null(t);
	bad = il_thread_record_bad(t);
	snprintf(why, sizeof(why), "%s", bad ? bad : "");
	cJSON_Delete(t);
	return why;
}

static void test_thread_record_as_children_write_it(void **state)
{
	(void)state;
	assert_string_equal(
	    bad_of("{\"process\":\"render-sim\",\"role\":\"main\",\"name\":\"render:main\","
		   "\"pid\":4242,\"tid\":4250,\"sched\":{\"policy\":\"fifo\",\"priority\":52,"
		   "\"nice\":0,\"slice_ns\":0,\"dl_runtime_ns\":0,\"dl_deadline_ns\":0,"
		   "\"dl_period_ns\":0,\"cpus\":\"0-1\"}}"),
	    "");
	/* No read-back (sched_getattr failed): nothing of it is cast. */
	assert_string_equal(bad_of("{\"pid\":1,\"tid\":2147483647}"), "");
	assert_string_equal(bad_of("{\"pid\":1,\"tid\":2,\"sched\":{\"priority\":-20,"
				   "\"dl_period_ns\":9000000000000000000}}"),
			    "");
}

static void test_thread_record_refused(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
	    {"[]", "not an object"},
	    {"{\"tid\":2}", "pid is not a pid"},
	    {"{\"pid\":0,\"tid\":2}", "pid is not a pid"},
	    {"{\"pid\":1.5,\"tid\":2}", "pid is not a pid"},
	    {"{\"pid\":\"1\",\"tid\":2}", "pid is not a pid"},
	    {"{\"pid\":1,\"tid\":2147483648}", "tid is not a thread id"},
	    {"{\"pid\":1,\"tid\":1e300}", "tid is not a thread id"},
	    {"{\"pid\":1,\"tid\":2,\"sched\":[]}", "sched is not an object"},
	    {"{\"pid\":1,\"tid\":2,\"sched\":{\"priority\":1e300}}",
	     "sched.priority is out of range"},
	    {"{\"pid\":1,\"tid\":2,\"sched\":{\"nice\":-1e10}}", "sched.nice is out of range"},
	    {"{\"pid\":1,\"tid\":2,\"sched\":{\"priority\":\"x\"}}",
	     "sched.priority is out of range"},
	    {"{\"pid\":1,\"tid\":2,\"sched\":{\"slice_ns\":-1}}",
	     "a sched time (slice_ns, dl_*_ns) is out of range"},
	    {"{\"pid\":1,\"tid\":2,\"sched\":{\"dl_period_ns\":1e19}}",
	     "a sched time (slice_ns, dl_*_ns) is out of range"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(bad_of(cases[i].text), cases[i].why) != 0)
			fail_msg("%s: got '%s', want '%s'", cases[i].text, bad_of(cases[i].text),
				 cases[i].why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_thread_record_as_children_write_it),
	    cmocka_unit_test(test_thread_record_refused),
	};

	if (il_test_filters("test_thread_record", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
