/*
 * `inputlat explain` (attrib/il_explain, harness/cmd_explain): the text it
 * writes for a report with known figures, the event and worst selections,
 * --json, a second report (which component grew), and one line with exit
 * 2 for what it cannot explain. Reports are built here, no run needed.
 */
#include "il_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "il_attrib.h"
#include "il_cmd.h"
#include "il_explain.h"

static char dir[256];

/* A hop of a stored event: components in us by name, one culprit. */
static cJSON *hop(int k, double total, const char *big, double big_us, const char *culprit,
		  const char *cls, double cul_us)
{
	cJSON *h = cJSON_CreateObject(), *c = cJSON_AddObjectToObject(h, "components_us");
	double rest = total - big_us;

	cJSON_AddNumberToObject(h, "index", k);
	cJSON_AddNumberToObject(h, "total_us", total);
	for (int i = 0; i < IL_NCOMP; i++) {
		const char *n = il_attrib_comp_name(i);
		double v = 0;

		if (!strcmp(n, big))
			v = big_us;
		else if (!strcmp(n, "work"))
			v = rest;
		cJSON_AddNumberToObject(c, n, v);
	}
	cJSON_AddNumberToObject(h, "cpu_from", 0);
	cJSON_AddNumberToObject(h, "cpu_to", 1);
	if (culprit) {
		cJSON *a = cJSON_AddArrayToObject(h, "culprits"), *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "thread", culprit);
		if (cls) {
			cJSON_AddStringToObject(o, "class", cls);
			cJSON_AddNumberToObject(o, "priority", 0);
		}
		cJSON_AddNumberToObject(o, "us", cul_us);
		cJSON_AddItemToArray(a, o);
	}
	return h;
}

/* Event id: hops 1..11 of 100 us of work each, hop 6 with `rq` us of runqueue behind js0. */
static cJSON *event(int id, double rq)
{
	cJSON *e = cJSON_CreateObject(), *hops = cJSON_AddArrayToObject(e, "hops");

	cJSON_AddNumberToObject(e, "id", id);
	cJSON_AddBoolToObject(e, "explained", true);
	cJSON_AddNumberToObject(e, "processing_us", 1100 + rq);
	for (int k = 1; k <= IL_STAMP_PROCESSED; k++)
		cJSON_AddItemToArray(
		    hops, k == 6 ? hop(k, 100 + rq, "runqueue", rq, "render:js0", "other", rq)
				 : hop(k, 100, "work", 100, NULL, NULL, 0));
	return e;
}

static cJSON *band(double lo, double hi, int count, double mean, double rq, int ev)
{
	cJSON *b = cJSON_CreateObject(), *c = cJSON_AddObjectToObject(b, "components_us");
	cJSON *cu = cJSON_AddArrayToObject(b, "culprits"), *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(b, "lo_us", lo);
	cJSON_AddNumberToObject(b, "hi_us", hi);
	cJSON_AddNumberToObject(b, "count", count);
	cJSON_AddNumberToObject(b, "mean_us", mean);
	for (int i = 0; i < IL_NCOMP; i++) {
		const char *n = il_attrib_comp_name(i);

		cJSON_AddNumberToObject(c, n,
					!strcmp(n, "runqueue") ? rq
					: !strcmp(n, "work")   ? mean - rq
							       : 0);
	}
	cJSON_AddStringToObject(o, "thread", "render:js0");
	cJSON_AddStringToObject(o, "class", "other");
	cJSON_AddNumberToObject(o, "priority", 0);
	cJSON_AddNumberToObject(o, "total_ms", rq * count / 1000);
	cJSON_AddItemToArray(cu, o);
	cJSON_AddNumberToObject(b, "event", ev);
	{
		cJSON *hops = cJSON_AddArrayToObject(b, "hops_us");

		for (int k = 1; k <= IL_STAMP_PROCESSED; k++) {
			cJSON *h = cJSON_CreateArray();

			for (int i = 0; i < IL_NCOMP; i++)
				cJSON_AddItemToArray(
				    h, cJSON_CreateNumber(k == 6 && i == IL_COMP_RUNQUEUE ? rq
							  : i == IL_COMP_WORK ? (mean - rq) / 11
									      : 0));
			cJSON_AddItemToArray(hops, h);
		}
	}
	return b;
}

/* A run report: 100 events, p50 1.2 ms (100 us of runqueue), p99 4.1 ms
 * (3000 us of runqueue behind render:js0); events 7 and 99 kept. */
static cJSON *report(const char *policy, double p50_rq)
{
	cJSON *r = cJSON_CreateObject(), *a, *bands, *evs, *lat, *sc;

	cJSON_AddStringToObject(r, "policy", policy);
	sc = cJSON_AddObjectToObject(r, "scenario");
	cJSON_AddNumberToObject(sc, "hog_threads", 2);
	cJSON_AddStringToObject(sc, "hog_mode", "busy");
	cJSON_AddNumberToObject(sc, "load_threads", 0);
	lat = cJSON_AddObjectToObject(cJSON_AddObjectToObject(r, "latency_us"), "processing");
	cJSON_AddNumberToObject(lat, "p50", 1100 + p50_rq);
	cJSON_AddNumberToObject(lat, "p99", 4100);
	a = cJSON_AddObjectToObject(r, "attribution");
	cJSON_AddBoolToObject(a, "available", true);
	cJSON_AddNumberToObject(a, "events_explained", 100);
	cJSON_AddNumberToObject(a, "events_unexplained", 0);
	bands = cJSON_AddArrayToObject(a, "bands");
	cJSON_AddItemToArray(bands, band(1100, 1600, 98, 1100 + p50_rq, p50_rq, 7));
	cJSON_AddItemToArray(bands, band(4000, 4300, 2, 4100, 3000, 99));
	evs = cJSON_AddArrayToObject(a, "events");
	cJSON_AddItemToArray(evs, event(7, p50_rq));
	cJSON_AddItemToArray(evs, event(99, 3000));
	/* Hops whose receiver ran on another CPU: 10% with 100 us of runqueue. */
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(a, "check"), "cross_cpu_pct", p50_rq / 10);
	return r;
}

static void write_report(const char *path, cJSON *r)
{
	char *text;

	/* What every run report carries; explain refuses a report without. */
	if (!cJSON_GetObjectItem(r, "file_version"))
		cJSON_AddNumberToObject(r, "file_version", 1);
	text = cJSON_Print(r);

	il_test_write_file(path, text);
	free(text);
	cJSON_Delete(r);
}

static int explain(char *out, size_t outlen, char *err, size_t errlen, ...)
{
	char *argv[16] = {"explain"};
	int argc = 1;
	va_list ap;

	va_start(ap, errlen);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return il_test_capture(il_cmd_explain, argc, argv, out, outlen, err, errlen);
}

static char A[300], B[300], OUT[1 << 16], ERR[4096];

/* The p99 summary names the component and its culprit, with its share. */
static void test_explain_percentile(void **state)
{
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, "--percentile", "99", NULL),
			 0);
	print_message("%s", OUT);
	assert_non_null(strstr(OUT, "p99 4.10 ms"));
	assert_non_null(
	    strstr(OUT, "runqueue 3.00 ms (73%, behind render:js0 (SCHED_OTHER nice 0)"));
	/* The band's example event, with its hop table and largest hop. */
	assert_non_null(strstr(OUT, "## event 99"));
	assert_non_null(
	    strstr(OUT, "largest: hop 6 compositor->main, 3.10 ms (76% of processing), "
			"mostly runqueue 3.00 ms behind render:js0 (SCHED_OTHER nice 0) on CPU 1"));
	assert_string_equal(ERR, "");
}

/* Default: p50 and p99. */
static void test_explain_default(void **state)
{
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, NULL), 0);
	assert_non_null(strstr(OUT, "  p50 1.20 ms"));
	assert_non_null(strstr(OUT, "  p99 4.10 ms"));
}

/* An event by id; the hop rows add up to the event's processing latency. */
static void test_explain_event(void **state)
{
	char *row;

	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "7", A, NULL), 0);
	assert_non_null(strstr(OUT, "## event 7: processing 1.20 ms"));
	row = strstr(OUT, "total (hops 1-11)");
	assert_non_null(row);
	assert_int_equal(atoi(row + strlen("total (hops 1-11)")), 1200);
}

/* Not kept and no --records: one line, exit 2. */
static void test_explain_event_missing(void **state)
{
	int rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "42", A, NULL);

	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "event 42", "--records");
}

/*
 * Its run wrote records: the line names them (it said "run with --records
 * FILE" of a run that had), on one line whatever the saved path holds.
 */
static void test_explain_event_missing_names_records(void **state)
{
	char path[300];
	cJSON *r = report("cfs", 100);
	int rc;

	snprintf(path, sizeof(path), "%s/with-records.json", dir);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "outputs"), "records",
				"/runs/a\nforged line.records");
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "42", path, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "event 42",
				     "wrote every event to /runs/a?forged line.records: add "
				     "--records /runs/a?forged line.records");
}

/* ... but found in a --records file. */
static void test_explain_event_from_records(void **state)
{
	char rec[300], *text;
	cJSON *e = event(42, 500);

	snprintf(rec, sizeof(rec), "%s/records.jsonl", dir);
	text = cJSON_PrintUnformatted(e);
	cJSON_Delete(e);
	{
		char line[1 << 15];

		snprintf(line, sizeof(line),
			 "{\"id\":41,\"state\":\"completed\"}\n"
			 "{\"id\":42,\"state\":\"completed\",\"attribution\":%s}\n",
			 text);
		il_test_write_file(rec, line);
	}
	free(text);
	assert_int_equal(
	    explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "42", "--records", rec, A, NULL),
	    0);
	assert_non_null(strstr(OUT, "## event 42: processing 1.60 ms"));
}

/* explain --event id --records path on report A: one line, exit 2, naming both. */
static void records_refused(const char *path, const char *id, const char *needle1,
			    const char *needle2)
{
	int rc =
	    explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", id, "--records", path, A, NULL);

	il_test_assert_one_line_exit(rc, OUT, ERR, 2, needle1, needle2);
}

/*
 * A --records that is not a records file: refused in one line, never read
 * without end (/dev/zero once filled memory until the kernel killed the
 * process). The event's own line without attribution says why.
 */
static void test_explain_records_refused(void **state)
{
	char fifo[300], rec[300], big[300];
	struct {
		const char *path, *why;
	} bad[] = {
	    {"/dev/zero", "a character device"},
	    {"/tmp", "a directory"},
	    {"/nonexistent/records.jsonl", "No such file"},
	    {fifo, "a FIFO"},
	};
	FILE *f;

	snprintf(fifo, sizeof(fifo), "%s/records.fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		records_refused(bad[i].path, "42", bad[i].path, bad[i].why);
	unlink(fifo);
	/* The event's line, 17 MiB long: bounded, not read whole. */
	snprintf(big, sizeof(big), "%s/big.jsonl", dir);
	f = fopen(big, "w");
	assert_non_null(f);
	fputs("{\"id\":41,\"state\":\"completed\"}\n{\"id\":42,\"x\":\"", f);
	for (int i = 0; i < 17 * 1024; i++)
		for (int j = 0; j < 1024; j++)
			fputc('a', f);
	fputs("\"}\n", f);
	assert_int_equal(fclose(f), 0);
	/* The event's line is bounded; another event's long line is skipped as
	 * it is read. */
	records_refused(big, "42", "line 2", "longer than 16 MiB");
	records_refused(big, "43", "event 43", "nor in");
	unlink(big);
	/* Found, but warm-up (never attributed) or without attribution; the
	 * last line, without its newline, is read too. */
	snprintf(rec, sizeof(rec), "%s/warm.jsonl", dir);
	il_test_write_file(rec, "{\"id\":42,\"state\":\"completed\",\"warmup\":true}\n"
				"{\"id\":43,\"state\":\"completed\",\"warmup\":false}");
	records_refused(rec, "42", "event 42", "warm-up");
	records_refused(rec, "43", "event 43", "no attribution");
	/* An attribution that is not an object (it leaked, detached), and a
	 * number no run writes. */
	il_test_write_file(rec, "{\"id\":42,\"attribution\":\"x\"}\n"
				"{\"id\":43,\"attribution\":{\"hops\":[{\"total_us\":-1e308}]}}\n");
	records_refused(rec, "42", "event 42", "its attribution is not an object");
	records_refused(rec, "43", "total_us = -1e+308", "not a record a run wrote");
	/* Two attributions in one line: which one is the event's has no answer. */
	il_test_write_file(rec, "{\"id\":42,\"attribution\":{\"hops\":[]},"
				"\"attribution\":{\"hops\":[]}}\n");
	records_refused(rec, "42", "event 42", "a key appears twice in one object");
	unlink(rec);
}

/* A records file as any JSON writer lays it out (Python's json.dumps puts
 * a space after ':' and ','): the event is found by its id, not by bytes. */
static void test_explain_records_any_spacing(void **state)
{
	char rec[300], *text, line[1 << 15];
	cJSON *e = event(42, 500);

	snprintf(rec, sizeof(rec), "%s/spaced.jsonl", dir);
	text = cJSON_Print(e); /* indented, with newlines: made one line below */
	cJSON_Delete(e);
	for (char *p = text; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	snprintf(line, sizeof(line),
		 "{\"id\": 420, \"state\": \"completed\"}\n"
		 "  { \"id\" : 42 , \"state\": \"completed\", \"attribution\": %s}",
		 text);
	free(text);
	il_test_write_file(rec, line);
	assert_int_equal(
	    explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "42", "--records", rec, A, NULL),
	    0);
	assert_non_null(strstr(OUT, "## event 42: processing 1.60 ms"));
	unlink(rec);
}

/*
 * A --records line no run writes is refused, named: hop 1 5000 times was
 * summed into a 5013-line table ("total 457900" for a 1.8 ms event), a hop
 * 99 dropped, a CPU of 1e17 printed as -2147483648, text after the value
 * taken.
 */
static void test_explain_records_impossible_refused(void **state)
{
	static const struct {
		const char *hops, *tail, *says;
	} cases[] = {
	    {"[H1, H1]", "", "attribution: hops: hop 1 twice: not a record a run wrote"},
	    {"[{\"index\": 99, \"total_us\": 5, \"components_us\": C}]", "",
	     "attribution: index: not a hop of the chain (1..12): not a record a run wrote"},
	    {"[{\"index\": 1, \"total_us\": 5, \"cpu_from\": 1e17, \"components_us\": C}]", "",
	     "attribution: cpu_from: not a CPU number: not a record a run wrote"},
	    {"[H1]", " {\"id\": 43}", "but its line is more than one JSON value"},
	};
	static const char comps[] = "{\"work\": 5, \"preempted\": 0, \"send\": 0, \"wake\": 0, "
				    "\"runqueue\": 0, \"busy\": 0, \"dispatch\": 0, \"irq\": 0, "
				    "\"vblank\": 0, \"residual\": 0}";
	char rec[300], hop[512], hops[2048], line[4096];

	(void)state;
	snprintf(rec, sizeof(rec), "%s/impossible.jsonl", dir);
	snprintf(hop, sizeof(hop), "{\"index\": 1, \"total_us\": 5, \"components_us\": %s}", comps);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *t = cases[i].hops;
		size_t o = 0;

		/* H1: the hop above; C: its components. */
		for (; *t && o < sizeof(hops) - 600; t++) {
			if (*t == 'H' && t[1] == '1')
				o += (size_t)snprintf(hops + o, sizeof(hops) - o, "%s", hop), t++;
			else if (*t == 'C')
				o += (size_t)snprintf(hops + o, sizeof(hops) - o, "%s", comps);
			else
				hops[o++] = *t;
		}
		hops[o] = '\0';
		snprintf(line, sizeof(line),
			 "{\"id\": 42, \"attribution\": {\"id\": 42, \"explained\": true, "
			 "\"processing_us\": 5, \"hops\": %s}}%s\n",
			 hops, cases[i].tail);
		il_test_write_file(rec, line);
		il_test_assert_one_line_exit(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event",
						     "42", "--records", rec, A, NULL),
					     OUT, ERR, 2, cases[i].says, NULL);
	}
	unlink(rec);
}

/* Event 42's record with its attribution edited by how (a JSON path and a value). */
static void record_edited(const char *rec, void (*how)(cJSON *attr))
{
	cJSON *e = event(42, 500);
	char *text, line[1 << 15];

	how(e);
	text = cJSON_PrintUnformatted(e);
	cJSON_Delete(e);
	snprintf(line, sizeof(line), "{\"id\":42,\"state\":\"completed\",\"attribution\":%s}\n",
		 text);
	free(text);
	il_test_write_file(rec, line);
}

static cJSON *hop_of(cJSON *attr, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(attr, "hops"), i);
}

static void hop2_negative(cJSON *a)
{
	cJSON_ReplaceItemInObject(hop_of(a, 1), "total_us", cJSON_CreateNumber(-500));
}

static void runqueue_huge(cJSON *a)
{
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(hop_of(a, 5), "components_us"), "runqueue",
				  cJSON_CreateNumber(1e15));
}

static void no_hops(cJSON *a)
{
	cJSON_ReplaceItemInObject(a, "hops", cJSON_CreateArray());
}

static void other_id(cJSON *a)
{
	cJSON_ReplaceItemInObject(a, "id", cJSON_CreateNumber(16));
}

static void no_id(cJSON *a)
{
	cJSON_DeleteItemFromObject(a, "id");
}

static void no_explained(cJSON *a)
{
	cJSON_DeleteItemFromObject(a, "explained");
}

static void processing_off(cJSON *a)
{
	cJSON_ReplaceItemInObject(a, "processing_us", cJSON_CreateNumber(2040));
}

/*
 * A --records line whose figures no run writes, or that is another
 * event's, is refused in one line: a hop of -500 us, a 16-digit runqueue
 * beside a total it no longer made, a table of zeros beside "processing
 * 2.04 ms", "## event 16" for event 42, "## event nan: ... not explained:
 * ?" were printed.
 */
static void test_explain_records_out_of_domain_refused(void **state)
{
	static const struct {
		void (*how)(cJSON *attr);
		const char *says;
	} cases[] = {
	    {hop2_negative, "event 42: hop 2: total_us = -500 is not a duration (0 or more)"},
	    {runqueue_huge, "event 42: hop 6: components_us add up to 1000000000000100.00, not "
			    "its total_us 600.00"},
	    {no_hops, "event 42: hops: no hop 1"},
	    {other_id, "attribution: id 16 is another event's"},
	    {no_id, "attribution: id: not an event's id"},
	    {no_explained, "attribution: event 42: explained: not true or false"},
	    {processing_off, "event 42: hops 1-11 add up to 1600.00 us, not its processing_us "
			     "2040.00"},
	};
	char rec[300];

	(void)state;
	snprintf(rec, sizeof(rec), "%s/edited.jsonl", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		record_edited(rec, cases[i].how);
		records_refused(rec, "42", cases[i].says, "not a record a run wrote");
	}
	unlink(rec);
}

/*
 * Another run's records are not this report's: 'explain --event 15
 * --records b.rec a.json' printed b's event under a.json's header. The
 * line's event must be injected between the run's first event and its
 * stop, and its stamps taken by the run's threads.
 */
static void test_explain_records_of_another_run_refused(void **state)
{
	static const struct {
		const char *stamps, *tids, *says;
	} cases[] = {
	    {"[5000, 5100]", "[1, 101, 102]", NULL},
	    {"[9000, 9100]", "[1, 101, 102]",
	     "is not of the run %s reports: injected at 9000 ns, outside that run (1000 to 8000 "
	     "ns, CLOCK_MONOTONIC); that run wrote its records to /runs/a.rec"},
	    {"[5000, 5100]", "[1, 101, 777]",
	     "is not of the run %s reports: its stamp 2 was taken by thread 777, none of that "
	     "run's"},
	    {NULL, "[1, 101, 102]", "is not of the run %s reports: its line has no stamp_ns"},
	};
	char rep[300], rec[300], says[512], *text, line[1 << 15];
	cJSON *r = report("cfs", 100), *e = event(42, 500), *m, *th;

	(void)state;
	snprintf(rep, sizeof(rep), "%s/with-milestones.json", dir);
	snprintf(rec, sizeof(rec), "%s/run.rec", dir);
	m = cJSON_AddObjectToObject(r, "milestones_ns");
	cJSON_AddNumberToObject(m, "first_event", 1000);
	cJSON_AddNumberToObject(m, "stop", 8000);
	th = cJSON_AddArrayToObject(r, "threads");
	for (int t = 101; t <= 102; t++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "tid", t);
		cJSON_AddItemToArray(th, o);
	}
	cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "outputs"), "records", "/runs/a.rec");
	write_report(rep, r);
	text = cJSON_PrintUnformatted(e);
	cJSON_Delete(e);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		if (cases[i].stamps)
			snprintf(line, sizeof(line),
				 "{\"id\":42,\"state\":\"completed\",\"stamp_ns\":%s,\"tid\":%s,"
				 "\"attribution\":%s}\n",
				 cases[i].stamps, cases[i].tids, text);
		else
			snprintf(
			    line, sizeof(line),
			    "{\"id\":42,\"state\":\"completed\",\"tid\":%s,\"attribution\":%s}\n",
			    cases[i].tids, text);
		il_test_write_file(rec, line);
		rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "42", "--records", rec,
			     rep, NULL);
		if (!cases[i].says) {
			assert_int_equal(rc, 0);
			assert_non_null(strstr(OUT, "## event 42: processing 1.60 ms"));
			continue;
		}
		snprintf(says, sizeof(says), cases[i].says, rep);
		il_test_assert_one_line_exit(rc, OUT, ERR, 2, "event 42 in ", says);
	}
	free(text);
	unlink(rec);
	unlink(rep);
}

/* Values no run writes are refused, named, in one line: never printed as
 * a 300-digit count, a "(null)" or a band of "nan events". */
static void test_explain_impossible_reports_refused(void **state)
{
	static const struct {
		const char *key, *json, *says;
	} cases[] = {
	    {"attribution", "\"x\"", "its attribution is not an object"},
	    {"events_unexplained", "-1e308", "events_unexplained: not a count of events"},
	    {"events_explained", "2.5", "events_explained: not a count of events"},
	    {"bands", "[1, [2]]", "bands: an entry that is not an object"},
	    {"events", "{}", "events: not a list"},
	    {"steal", "{\"ms\": -1e300}", "ms = -1e+300"},
	};
	char path[300];
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/impossible.json", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *r = report("cfs", 100), *a = cJSON_GetObjectItem(r, "attribution");
		cJSON *v = cJSON_Parse(cases[i].json);

		if (!strcmp(cases[i].key, "attribution"))
			cJSON_ReplaceItemInObject(r, "attribution", v);
		else if (cJSON_GetObjectItem(a, cases[i].key))
			cJSON_ReplaceItemInObject(a, cases[i].key, v);
		else
			cJSON_AddItemToObject(a, cases[i].key, v);
		write_report(path, r);
		rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
		il_test_assert_one_line_exit(rc, OUT, ERR, 2, cases[i].says, NULL);
	}
	/* More events than a run keeps: 14000 of them and --worst 1000 ranked
	 * for over five minutes, walking the list from its start for each. */
	{
		cJSON *r = report("cfs", 100);
		cJSON *evs = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "attribution"), "events");

		while (cJSON_GetArraySize(evs) <= IL_ATTRIB_MAX_STORED)
			cJSON_AddItemToArray(evs, event(1000 + cJSON_GetArraySize(evs), 100));
		write_report(path, r);
		rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--worst", "1000", path, NULL);
		il_test_assert_one_line_exit(
		    rc, OUT, ERR, 2, "events: 585 kept, more than the 584 a run keeps", NULL);
	}
}

/* Sets the value at a dotted path of r ("a.events.0.hops.0.x"), the last step made if missing. */
static void set_at(cJSON *r, const char *path, const char *json)
{
	char buf[200], *save = NULL, *step, *next;
	cJSON *o = r;

	snprintf(buf, sizeof(buf), "%s", path);
	step = strtok_r(buf, ".", &save);
	while ((next = strtok_r(NULL, ".", &save))) {
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(step))
				     : cJSON_GetObjectItemCaseSensitive(o, step);
		assert_non_null(o);
		step = next;
	}
	if (cJSON_GetObjectItemCaseSensitive(o, step))
		cJSON_ReplaceItemInObjectCaseSensitive(o, step, cJSON_Parse(json));
	else
		cJSON_AddItemToObject(o, step, cJSON_Parse(json));
}

/*
 * What explain prints, anywhere in the report, is a value a run writes:
 * "p50 inf ms", "-5 events", "inf CPUs", a hop total of nan and a row of
 * nan were printed with exit 0 (compare refused the same values). (cJSON
 * writes inf as null: the values here are finite ones no run writes.)
 */
static void test_explain_impossible_values_refused(void **state)
{
	static const struct {
		const char *path, *json, *says;
	} cases[] = {
	    {"latency_us.processing.p50", "1e300",
	     "latency_us.processing.p50 = 1e+300 is not a latency (0 to 3600000000 us)"},
	    {"latency_us.processing.p99", "\"abc\"",
	     "latency_us.processing.p99 is not a latency or null"},
	    {"events", "{\"sent\": -5}", "events.sent is not a count of events"},
	    /* Entries without names: a strcmp on the missing name crashed. */
	    {"events", "[-5]", "events is not an object of counts"},
	    {"latency_us", "[{\"p50\": 5}]", "latency_us is not an object of latencies"},
	    {"kernel", "{\"nr_cpus\": 0}", "kernel.nr_cpus is not a count of CPUs"},
	    {"hops", "[{\"index\": 1, \"p50_us\": 1e30}]",
	     "hops[0].p50_us is not a latency (0 to 3600000000 us) or null"},
	    {"hops", "[{\"index\": 13}]", "hops[0].index is not a hop of the chain (1..12"},
	    {"scenario.hog_threads", "1e300", "hog_threads = 1e+300 is not a number a run writes"},
	    {"attribution.events.0.hops.0.total_us", "\"abc\"", "total_us: not a number"},
	    {"attribution.events.0.hops.0.components_us", "-5",
	     "components_us: not an object of figures"},
	    {"attribution.events.0.hops.0.components_us.work", "null",
	     "components_us.work: not a number"},
	    {"attribution.events.0.hops.0.index", "99", "index: not a hop of the chain (1..12)"},
	    {"attribution.events.0.hops.0.cpu_to", "1e17", "cpu_to: not a CPU number"},
	    /* Bands: explain takes a percentile's band by their counts, its time from the mean. */
	    {"attribution.bands.1.count", "-3",
	     "bands[1].count: not a count of events (1 or more)"},
	    {"attribution.bands.0.count", "0", "bands[0].count: not a count of events (1 or more)"},
	    {"attribution.bands.0.count", "97", "bands hold 99 events, events_explained says 100"},
	    {"attribution.bands.0.hi_us", "900",
	     "bands[0]: lo_us 1100 to hi_us 900 is not a range"},
	    {"attribution.bands.1.lo_us", "1000",
	     "bands[1]: from 1000 us, below the band before (to 1600 us)"},
	    {"attribution.bands.0.mean_us", "9000",
	     "bands[0]: mean_us 9000 outside its range 1100 to 1600 us"},
	    {"attribution.bands.1.components_us.work", "5",
	     "bands[1]: components_us add up to 3005.00, not its mean_us 4100.00"},
	    /* Made an int and a uint64_t to print and look up: UB, and 'nice -2147483648'. */
	    {"attribution.bands.1.culprits.0.priority", "1e18",
	     "priority: not a scheduling priority (-20 to 99)"},
	    {"attribution.bands.1.event", "-5", "event: not an event's id"},
	};
	char path[300];
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/impossible-values.json", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *r = report("cfs", 100);

		set_at(r, cases[i].path, cases[i].json);
		write_report(path, r);
		rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "7", path, NULL);
		il_test_assert_one_line_exit(rc, OUT, ERR, 2, cases[i].says, NULL);
	}
}

/*
 * Band 0 holds every event under 1 us and a run writes it as 0 to 1 us;
 * its top is judged as every other band's: it was left out (written as 0
 * to 0 us), so a band 0 whose mean lay above 1 us was printed as a
 * percentile's band, first of several or alone.
 */
static void test_explain_band_zero_top_judged(void **state)
{
	char path[300];
	cJSON *r, *bands;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/band-zero.json", dir);
	r = report("cfs", 100);
	bands = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "attribution"), "bands");
	cJSON_ReplaceItemInArray(bands, 0, band(0, 1, 98, 0.5, 0, 7));
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(OUT, "between 0 us and 1 us"));

	r = report("cfs", 100);
	set_at(r, "attribution.bands.0.lo_us", "0");
	set_at(r, "attribution.bands.0.hi_us", "1");
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2,
				     "bands[0]: mean_us 1200 outside its range 0 to 1 us", NULL);

	r = report("cfs", 100);
	bands = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "attribution"), "bands");
	cJSON_DeleteItemFromArray(bands, 1);
	set_at(r, "attribution.bands.0.count", "100");
	set_at(r, "attribution.bands.0.lo_us", "0");
	set_at(r, "attribution.bands.0.hi_us", "1");
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2,
				     "bands[0]: mean_us 1200 outside its range 0 to 1 us", NULL);
}

/*
 * --json carries what the text's header warns of: a run that failed or was
 * interrupted (its figures are of the events before the cut) gave JSON
 * that read as a whole run's, the warning in the text alone.
 */
static void test_explain_json_warnings(void **state)
{
	char path[300];
	cJSON *r, *o, *w;

	(void)state;
	snprintf(path, sizeof(path), "%s/warned.json", dir);
	r = report("cfs", 100);
	cJSON_AddBoolToObject(r, "interrupted", true);
	cJSON_AddItemToObject(r, "events", cJSON_Parse("{\"sent\": 40, \"completed\": 38}"));
	write_report(path, r);
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--json", path, NULL), 0);
	o = cJSON_Parse(OUT);
	assert_non_null(o);
	w = cJSON_GetObjectItem(o, "warnings");
	assert_true(cJSON_IsArray(w));
	assert_int_equal(cJSON_GetArraySize(w), 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(w, 0)),
			    "that run was interrupted (a signal) after 38 completed events");
	cJSON_Delete(o);

	r = report("cfs", 100);
	cJSON_AddStringToObject(r, "error", "viz-sim died\x1b]0;owned\x07");
	cJSON_AddItemToObject(r, "events", cJSON_Parse("{\"sent\": 120, \"completed\": 100}"));
	write_report(path, r);
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--json", path, NULL), 0);
	o = cJSON_Parse(OUT);
	assert_non_null(o);
	w = cJSON_GetObjectItem(o, "warnings");
	assert_int_equal(cJSON_GetArraySize(w), 1);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(w, 0)),
			    "that run failed (viz-sim died?]0;owned?) after 100 completed events");
	cJSON_Delete(o);

	/* None: an empty list, so a reader knows there were none. */
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--json", A, NULL), 0);
	o = cJSON_Parse(OUT);
	assert_non_null(o);
	w = cJSON_GetObjectItem(o, "warnings");
	assert_true(cJSON_IsArray(w));
	assert_int_equal(cJSON_GetArraySize(w), 0);
	cJSON_Delete(o);
}

/* Options that would do nothing are refused, not ignored. */
static void test_explain_ignored_options(void **state)
{
	int rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--records", "x.jsonl", A, NULL);

	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "--records", "--event");
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--worst", "2", A, B, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "two reports", "--worst");
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--json", A, B, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "two reports", "--json");
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--event", "42", A, B, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "two reports", "--event");
}

static void test_explain_worst(void **state)
{
	char *first, *second;

	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--worst", "2", A, NULL), 0);
	first = strstr(OUT, "## event 99, the worst");
	second = strstr(OUT, "## event 7");
	assert_non_null(first);
	assert_non_null(second);
	assert_true(first < second);
}

static void test_explain_json(void **state)
{
	cJSON *o;

	assert_int_equal(
	    explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--json", "--percentile", "99", A, NULL),
	    0);
	o = cJSON_Parse(OUT);
	assert_non_null(o);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(o, "percentiles")), 1);
	assert_int_equal(
	    (int)il_test_json_num(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "events"), 0), "id"),
	    99);
	cJSON_Delete(o);
}

/* Two reports: which component grew, and on which hop. */
static void test_explain_compare(void **state)
{
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, B, NULL), 0);
	print_message("%s", OUT);
	assert_non_null(strstr(OUT, "processing p50: cfs 1.20 ms, rt 1.50 ms (+300 us, x1.25)"));
	assert_non_null(strstr(OUT, "hop 6 compositor->main (+300 us)"));
	assert_non_null(
	    strstr(OUT, "=> rt is slower by 300 us at p50; runqueue grew most (+300 us)"));
	assert_non_null(strstr(
	    OUT, "cross-CPU hops (receiver on another CPU than its sender): cfs 10%, rt 40%\n"));
}

/*
 * A report against itself is refused in one line: "cfs.json is slower by
 * 0 us at p50" was printed. Runs of two machines or scenarios are compared
 * as asked, with one warning naming what differs (none was said).
 */
static void test_explain_compare_like_with_like(void **state)
{
	char path[320];
	cJSON *r = report("rt", 400);
	int rc;

	(void)state;
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, A, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "cfs.json: the same report as ",
				     "(a run compared with itself says nothing: give two runs)");

	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, B, NULL), 0);
	assert_string_equal(ERR, "");

	cJSON_AddStringToObject(r, "work_model", "cpu-time");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(r, "kernel"), "nr_cpus", 64);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "scenario"), "load_threads",
				  cJSON_CreateNumber(4));
	snprintf(path, sizeof(path), "%s/rt-elsewhere.json", dir);
	write_report(path, r);
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, path, NULL), 0);
	if (!strstr(ERR, "explain: warning: ") ||
	    !strstr(ERR, "rt-elsewhere.json are not runs of one machine and scenario "
			 "(scenario.load_threads 0 vs 4, work_model loops vs cpu-time): ") ||
	    strchr(ERR, '\n') != ERR + strlen(ERR) - 1)
		fail_msg("want one warning naming what differs, got: %s", ERR);
	assert_non_null(strstr(OUT, "=> rt is slower by"));
}

/* A report that does not say where its hops ran: said, not guessed. */
static void test_explain_compare_cross_cpu_unreadable(void **state)
{
	char path[320];
	cJSON *r = report("rt", 400);

	(void)state;
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(r, "attribution"), "check");
	snprintf(path, sizeof(path), "%s/rt-nocheck.json", dir);
	write_report(path, r);
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), A, path, NULL), 0);
	if (!strstr(OUT, "cross-CPU hops: unreadable: ") ||
	    !strstr(OUT, "rt-nocheck.json has no attribution.check.cross_cpu_pct\n"))
		fail_msg("want the missing figure said:\n%s", OUT);
}

/* A report without attribution, or with it unavailable: one line, exit 2. */
/* Report r (taken) as file name: explain refuses it in one line, exit 2. */
static void report_refused(cJSON *r, const char *name, const char *says, const char *says2)
{
	char path[300];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, says, says2);
}

/* A report of another version: its keys mean other things, so refused. */
static void test_explain_other_version_refused(void **state)
{
	cJSON *r = report("cfs", 100);

	(void)state;
	cJSON_AddNumberToObject(r, "file_version", 2);
	report_refused(r, "v2.json",
		       "file_version 2: not a version this inputlat reads (it reads 1)", NULL);
}

static void test_explain_unavailable(void **state)
{
	char path[300];
	cJSON *r = cJSON_CreateObject(), *a = cJSON_AddObjectToObject(r, "attribution");
	int rc;

	cJSON_AddBoolToObject(a, "available", false);
	cJSON_AddStringToObject(a, "why", "built without BPF tools");
	report_refused(r, "off.json", "not available", "built without BPF tools");
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), "--percentile", "0", A, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "--percentile", NULL);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "expected RUN.json", NULL);

	/* Attribution on, nothing explained: a run that failed to start (it
	 * printed an empty table and "residual p50 0.00%"), or one whose events
	 * never completed. */
	r = cJSON_CreateObject();
	a = cJSON_AddObjectToObject(r, "attribution");
	cJSON_AddBoolToObject(a, "available", true);
	cJSON_AddNumberToObject(a, "events_explained", 0);
	cJSON_AddStringToObject(r, "error", "viz-sim: deadline: refused");
	report_refused(r, "failed.json",
		       "that run failed (viz-sim: deadline: refused): nothing to explain", NULL);
	r = cJSON_CreateObject();
	a = cJSON_AddObjectToObject(r, "attribution");
	cJSON_AddBoolToObject(a, "available", true);
	cJSON_AddNumberToObject(a, "events_explained", 0);
	cJSON_AddItemToObject(r, "events", cJSON_Parse("{\"completed\": 0}"));
	snprintf(path, sizeof(path), "%s/none.json", dir);
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2,
				     "no event of that run was explained (0 completed)", NULL);
}

/*
 * A run cut short says so in the header; and no string of a report reaches
 * the terminal with a control character in it (a policy, an error, a
 * kernel release: any file anybody wrote), on stdout or in the one line on
 * stderr.
 */
static void test_explain_cut_short_and_hostile_strings(void **state)
{
	char path[300];
	cJSON *r = report("\x1b[2Jcfs\nFORGED", 100), *a;
	int rc;

	(void)state;
	cJSON_AddStringToObject(r, "error", "viz-sim died\x1b]0;owned\x07");
	cJSON_AddItemToObject(r, "events", cJSON_Parse("{\"sent\": 120, \"completed\": 100}"));
	cJSON_AddItemToObject(r, "kernel", cJSON_Parse("{\"release\": \"6.1\\u001b[1A\"}"));
	snprintf(path, sizeof(path), "%s/cut.json", dir);
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	assert_int_equal(rc, 0);
	if (!strstr(OUT,
		    "# that run failed (viz-sim died?]0;owned?) after 100 completed events\n") ||
	    !strstr(OUT, "# policy ?[2Jcfs?FORGED, 120 events") || strstr(OUT, "\nFORGED") ||
	    !strstr(OUT, "kernel 6.1?[1A,"))
		fail_msg("header of a failed run with hostile strings:\n%s", OUT);
	assert_null(strchr(OUT, '\x1b'));
	assert_null(strchr(OUT, '\x07'));

	r = report("cfs", 100);
	cJSON_AddBoolToObject(r, "interrupted", true);
	cJSON_AddItemToObject(r, "events", cJSON_Parse("{\"sent\": 40, \"completed\": 38}"));
	write_report(path, r);
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL), 0);
	assert_non_null(
	    strstr(OUT, "# that run was interrupted (a signal) after 38 completed events\n"));
	/* The work model: a report from before the field ran loops. */
	assert_non_null(strstr(OUT, ", work loops; kernel "));
	r = report("cfs", 100);
	cJSON_AddStringToObject(r, "work_model", "cpu-time\x1b[2J");
	write_report(path, r);
	assert_int_equal(explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL), 0);
	assert_non_null(strstr(OUT, ", work cpu-time?[2J; kernel "));

	/* The one line on stderr too. */
	r = cJSON_CreateObject();
	a = cJSON_AddObjectToObject(r, "attribution");
	cJSON_AddBoolToObject(a, "available", false);
	cJSON_AddStringToObject(a, "why", "no BPF\x1b[2J here");
	write_report(path, r);
	rc = explain(OUT, sizeof(OUT), ERR, sizeof(ERR), path, NULL);
	il_test_assert_one_line_exit(rc, OUT, ERR, 2, "no BPF?[2J here", NULL);
}

static int group_setup(void **state)
{
	if (il_test_tmpdir_make(dir, sizeof(dir), "explain") < 0)
		return -1;
	snprintf(A, sizeof(A), "%s/cfs.json", dir);
	snprintf(B, sizeof(B), "%s/rt.json", dir);
	write_report(A, report("cfs", 100));
	write_report(B, report("rt", 400));
	return 0;
}

static int group_teardown(void **state)
{
	return il_test_tmpdir_remove(dir);
}

/* Another process's name, with an escape sequence in it: as ps shows it. */
static void test_explain_culprit_name_printable(void **state)
{
	cJSON *c = cJSON_CreateObject();
	char words[160];

	(void)state;
	cJSON_AddStringToObject(c, "thread", "\x1b[2Jevil\x07\x7f");
	cJSON_AddStringToObject(c, "class", "fair");
	cJSON_AddNumberToObject(c, "priority", 0);
	il_explain_culprit_words(NULL, c, words, sizeof(words));
	assert_string_equal(words, "?[2Jevil?? (CFS nice 0)");
	/* A thread of no process of the run is said to be another program's:
	 * one called "inputlat" read as the run's own orchestrator. */
	cJSON_ReplaceItemInObject(c, "thread", cJSON_CreateString("inputlat"));
	cJSON_AddNullToObject(c, "process");
	il_explain_culprit_words(NULL, c, words, sizeof(words));
	assert_string_equal(words, "inputlat of another program (CFS nice 0)");
	cJSON_ReplaceItemInObject(c, "process", cJSON_CreateString("inputlat"));
	il_explain_culprit_words(NULL, c, words, sizeof(words));
	assert_string_equal(words, "inputlat (CFS nice 0)");
	cJSON_Delete(c);
}

/* "throttled" in words: x, y, z as the run had them in force. */
static void throttle_said(const char *run_json, const char *want)
{
	cJSON *run = run_json ? cJSON_Parse(run_json) : NULL;
	cJSON *c = cJSON_Parse("{\"thread\":\"throttled\",\"process\":null,\"class\":null}");
	char words[256];

	assert_true(c && (run || !run_json));
	il_explain_culprit_words(run, c, words, sizeof(words));
	assert_string_equal(words, want);
	cJSON_Delete(run);
	cJSON_Delete(c);
}

/*
 * What held an RT or deadline thread back while the CPU idled or ran CFS
 * is named by what the run had in force. Under --policy rt (RT throttling
 * off) on a kernel with the fair server it read "RT throttling or the fair
 * server", though RT throttling was off; a deadline run's waits were put
 * on RT throttling, which holds back no deadline thread.
 */
static void test_explain_throttled_by_what_was_in_force(void **state)
{
	(void)state;
	throttle_said("{\"kernel\":{\"sched_rt_runtime_us\":-1,\"fair_server\":{\"present\":true,"
		      "\"runtime_ns\":null}},\"threads\":[{\"policy\":\"fifo\"}]}",
		      "throttling (the fair server: the CPU idled or ran CFS)");
	throttle_said("{\"kernel\":{\"sched_rt_runtime_us\":950000,\"fair_server\":{\"present\":"
		      "false}},\"threads\":[{\"policy\":\"rr\"},{\"policy\":\"other\"}]}",
		      "throttling (RT throttling: the CPU idled or ran CFS)");
	throttle_said("{\"kernel\":{\"sched_rt_runtime_us\":950000,\"fair_server\":{\"present\":"
		      "true,\"runtime_ns\":50000000}},\"threads\":[{\"policy\":\"deadline\"}]}",
		      "throttling (the fair server or a deadline thread's own throttling (its "
		      "runtime used up): the CPU idled or ran CFS)");
	/* A fair server tuned to 0 is off. */
	throttle_said("{\"kernel\":{\"sched_rt_runtime_us\":-1,\"fair_server\":{\"present\":true,"
		      "\"runtime_ns\":0}},\"threads\":[{\"policy\":\"fifo\"}]}",
		      "throttling (neither RT throttling nor a fair server was in force: the CPU "
		      "idled or ran CFS)");
	/* sched_rt_runtime_us 950000 on 6.12+ without RT groups: no RT
	 * throttling there, and the report's rt_throttling says so (it read
	 * "RT throttling or the fair server"). Where it says in force, it is. */
	throttle_said("{\"kernel\":{\"sched_rt_runtime_us\":950000,\"rt_throttling\":{\"in_force\":"
		      "false},\"fair_server\":{\"present\":true,\"runtime_ns\":null}},\"threads\":"
		      "[{\"policy\":\"fifo\"}]}",
		      "throttling (the fair server: the CPU idled or ran CFS)");
	throttle_said(
	    "{\"kernel\":{\"sched_rt_runtime_us\":950000,\"rt_throttling\":{\"in_force\":"
	    "true},\"fair_server\":{\"present\":false}},\"threads\":[{\"policy\":\"fifo\"}]}",
	    "throttling (RT throttling: the CPU idled or ran CFS)");
	/* A report that does not say: every mechanism stays in the list. */
	throttle_said(NULL, "throttling (RT throttling, the fair server or a deadline thread's "
			    "own throttling (its runtime used up): the CPU idled or ran CFS)");
	throttle_said("{\"kernel\":\"odd\",\"threads\":7}",
		      "throttling (RT throttling, the fair server or a deadline thread's own "
		      "throttling (its runtime used up): the CPU idled or ran CFS)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_explain_percentile),
	    cmocka_unit_test(test_explain_default),
	    cmocka_unit_test(test_explain_event),
	    cmocka_unit_test(test_explain_event_missing),
	    cmocka_unit_test(test_explain_event_missing_names_records),
	    cmocka_unit_test(test_explain_event_from_records),
	    cmocka_unit_test(test_explain_records_refused),
	    cmocka_unit_test(test_explain_ignored_options),
	    cmocka_unit_test(test_explain_worst),
	    cmocka_unit_test(test_explain_json),
	    cmocka_unit_test(test_explain_json_warnings),
	    cmocka_unit_test(test_explain_compare),
	    cmocka_unit_test(test_explain_compare_like_with_like),
	    cmocka_unit_test(test_explain_compare_cross_cpu_unreadable),
	    cmocka_unit_test(test_explain_unavailable),
	    cmocka_unit_test(test_explain_other_version_refused),
	    cmocka_unit_test(test_explain_culprit_name_printable),
	    cmocka_unit_test(test_explain_cut_short_and_hostile_strings),
	    cmocka_unit_test(test_explain_records_any_spacing),
	    cmocka_unit_test(test_explain_records_impossible_refused),
	    cmocka_unit_test(test_explain_records_out_of_domain_refused),
	    cmocka_unit_test(test_explain_records_of_another_run_refused),
	    cmocka_unit_test(test_explain_impossible_reports_refused),
	    cmocka_unit_test(test_explain_impossible_values_refused),
	    cmocka_unit_test(test_explain_band_zero_top_judged),
	    cmocka_unit_test(test_explain_throttled_by_what_was_in_force),
	};

	if (il_test_filters("test_explain", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
