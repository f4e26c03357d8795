/*
 * Memory that does not grow with the run (issue 17): a run of 100,000
 * mouse-downs, every one traced and recorded, keeps every process (the
 * orchestrator, the three chain processes, il-workload) under 64 MiB of
 * peak RSS (VmHWM, which each process reads at its end and the run
 * report lists in rss_kib). Before the streaming event path the trace
 * alone took ~32 KB per traced event (~3 GB here).
 *
 * Needs no root: the cfs policy. Paced at 0.3 ms (the vblank takes up to
 * 64 flips per frame) so it takes ~35 s; the outputs (~350 MB) go to a
 * temporary directory that is removed afterwards, and the test skips when
 * there is not room for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "il_test.h"
#include "il_test_proc.h"

#define EVENTS	  100000
#define LIMIT_KIB (64 * 1024)
/* Room the outputs need: ~3.1 KB of trace and ~0.6 KB of records per event. */
#define NEED_BYTES (1ull << 30)

static char tmpdir[256];

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/il-test-rss.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Lines in a file, read in blocks (the records file is ~60 MB). */
static long count_lines(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	long n = 0;
	size_t got;

	if (!f)
		return -1;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < got; i++)
			n += buf[i] == '\n';
	fclose(f);
	return n;
}

/* The last bytes of a file, NUL-terminated. */
static void tail_of(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t got;

	assert_non_null(f);
	assert_int_equal(fseek(f, -(long)(len - 1), SEEK_END), 0);
	got = fread(out, 1, len - 1, f);
	out[got] = '\0';
	fclose(f);
}

static void test_rss_100k_traced_events(void **state)
{
	static const char *const procs[] = {"inputlat", "browser-sim", "render-sim", "viz-sim",
					    "il-workload"};
	static char text[16 << 20];
	char json[300], trace[300], records[300], events[16], end[192];
	char *argv[] = {(char *)il_test_build_path("inputlat"),
			"run",
			"--events",
			events,
			/* Every event measured: sent, records and trace all count EVENTS. */
			"--warmup",
			"0",
			"--interval-ms",
			"0.3",
			"--work",
			"none",
			/* The harness's own streaming memory: kernel attribution at
			 * 3300 events/s slows the orchestrator past the run's time
			 * bound (issue 12 work left), so it is measured off. */
			"--attribution",
			"off",
			"--quiet",
			"--json",
			json,
			"--trace",
			trace,
			"--trace-events",
			events,
			"--records",
			records,
			NULL};
	struct il_test_result *res;
	struct statvfs vfs;
	cJSON *root, *rss;
	double sent, completed;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* The programs carry the sanitizer too: RSS would be its shadow memory
	 * and quarantine (256 MB by default), not the harness's own. */
	print_message("skipped: built with a sanitizer, whose memory is not the harness's\n");
	skip();
#endif
	if (statvfs(tmpdir, &vfs) == 0 &&
	    (unsigned long long)vfs.f_bavail * vfs.f_frsize < NEED_BYTES) {
		print_message("skipped: %s has less than 1 GiB free for the run's outputs\n",
			      tmpdir);
		skip();
	}
	/* After the skips: gcc 12 cannot tell that skip() does not return and
	 * took the free() before it for a use after free (-Werror under ASan). */
	res = malloc(sizeof(*res));
	assert_non_null(res);
	snprintf(events, sizeof(events), "%d", EVENTS);
	snprintf(json, sizeof(json), "%s/run.json", tmpdir);
	snprintf(trace, sizeof(trace), "%s/trace.json", tmpdir);
	snprintf(records, sizeof(records), "%s/records.jsonl", tmpdir);
	assert_int_equal(il_test_run(argv, 150000, res), 0);
	if (res->timed_out || res->exit_code != 0)
		fail_msg("inputlat run: exit %d%s in %.1f s: %s", res->exit_code,
			 res->timed_out ? " (timed out)" : "", res->elapsed_s, res->err);
	print_message("%d traced events in %.1f s\n", EVENTS, res->elapsed_s);

	assert_true(il_test_read_file(json, text, sizeof(text)) > 0);
	root = cJSON_Parse(text);
	assert_non_null(root);
	sent =
	    cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "sent"));
	completed = cJSON_GetNumberValue(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(root, "events"), "completed"));
	assert_int_equal((int)sent, EVENTS);
	/* A loaded machine may time out a few; the point is they all went through. */
	assert_true(completed >= 0.99 * EVENTS);

	rss = cJSON_GetObjectItem(root, "rss_kib");
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		const cJSON *v = cJSON_GetObjectItem(rss, procs[i]);

		if (!cJSON_IsNumber(v))
			fail_msg("rss_kib.%s missing from the report", procs[i]);
		print_message("%-12s peak RSS %6.0f KiB\n", procs[i], v->valuedouble);
		if (v->valuedouble >= LIMIT_KIB)
			fail_msg("%s peaked at %.0f KiB, over %d KiB", procs[i], v->valuedouble,
				 LIMIT_KIB);
	}
	cJSON_Delete(root);

	/* Every event sent has its record line; the trace holds every completed one. */
	assert_int_equal(count_lines(records), EVENTS);
	tail_of(trace, end, sizeof(end));
	assert_non_null(strstr(end, "\"mouse_downs\":"));
	assert_true(atof(strstr(end, "\"mouse_downs\":") + 14) == completed);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_rss_100k_traced_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
