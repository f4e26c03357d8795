/* The Perfetto trace: well-formed, named, in hop order, linked by flows. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "il_test.h"

#include <cJSON.h>

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include "il_clock.h"
#include "il_event_sink.h"
#include "il_file.h"
#include "il_outputs.h"
#include "il_procfs.h"
#include "il_result.h"
#include "il_sampler.h"
#include "il_trace.h"

#define NEVENTS 5

/* The run of DESIGN.md in miniature: which thread runs stamp k. */
static const int hop_tid[IL_NSTAMPS] = {100, 201, 202, 203, 301, 302, 303,
					302, 401, 402, 403, 404, 404};

static const struct il_trace_thread threads[] = {
    {100, 100, "inputlat", "inputlat:inj"},  {200, 201, "browser-sim", "browser:evdev"},
    {200, 202, "browser-sim", "browser:ui"}, {200, 203, "browser-sim", "browser:io"},
    {300, 301, "render-sim", "render:io"},   {300, 302, "render-sim", "render:comp"},
    {300, 303, "render-sim", "render:main"}, {400, 401, "viz-sim", "viz:io"},
    {400, 402, "viz-sim", "viz:comp"},	     {400, 403, "viz-sim", "viz:gpu"},
    {400, 404, "viz-sim", "viz:drm"},
};
#define NTHREADS (sizeof(threads) / sizeof(threads[0]))

struct fixture {
	char dir[64];
	char path[96];
	struct il_msg msgs[NEVENTS];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/il-trace-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/t.json", f->dir);
	for (int i = 0; i < NEVENTS; i++) {
		struct il_msg *m = &f->msgs[i];
		uint64_t t = 5000000000ull + (uint64_t)i * 20000000ull;

		m->event_id = (uint64_t)i + 1;
		for (int k = 0; k < IL_NSTAMPS; k++) {
			m->stamp_ns[k] = t + (uint64_t)k * 300000ull;
			m->end_ns[k] = m->stamp_ns[k] + 100000ull + (uint64_t)k * 1000ull;
			m->tid[k] = (uint32_t)hop_tid[k];
		}
		m->end_ns[12] = m->stamp_ns[12]; /* the flip is an instant */
	}
	/* Event 4 timed out in the renderer: hops 7..12 never happened. */
	for (int k = 7; k < IL_NSTAMPS; k++)
		f->msgs[3].stamp_ns[k] = f->msgs[3].end_ns[k] = 0;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	/* All of it: a failed test leaves its files behind. */
	il_test_tmpdir_remove(f->dir);
	free(f);
	return 0;
}

static cJSON *load(const char *path)
{
	FILE *fp = fopen(path, "r");
	static char buf[4 << 20];
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return cJSON_Parse(buf);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *ph_of(const cJSON *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "ph");

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static const cJSON *events_of(const cJSON *root)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");

	assert_true(cJSON_IsArray(ev));
	return ev;
}

static const cJSON *slice_of(const cJSON *root, int id, int hop);

static void test_trace_slices_named_and_complete(void **state)
{
	struct fixture *f = *state;
	const struct il_trace_counter ctr[] = {{5000000000ull, "canary stall ms", 0.4, 0},
					       {5050000000ull, "hog share", 0.97, 0}};
	cJSON *root;
	const cJSON *e;
	int nx = 0, ncounters = 0;

	assert_int_equal(il_trace_write(f->path, f->msgs, NEVENTS, threads, NTHREADS, ctr, 2, 0),
			 0);
	root = load(f->path);
	assert_non_null(root);

	cJSON_ArrayForEach (e, events_of(root)) {
		const char *ph = ph_of(e);

		if (strcmp(ph, "X") == 0) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
			int tid = (int)num(e, "tid");
			bool named = false;
			const cJSON *m;

			nx++;
			num(e, "pid");
			num(e, "ts");
			assert_true(num(e, "dur") >= 0);
			assert_true(cJSON_IsString(name) && name->valuestring[0]);
			/* Every tid has a thread_name record in the same pid. */
			cJSON_ArrayForEach (m, events_of(root)) {
				const cJSON *mn = cJSON_GetObjectItemCaseSensitive(m, "name");

				if (strcmp(ph_of(m), "M") == 0 &&
				    strcmp(mn->valuestring, "thread_name") == 0 &&
				    (int)num(m, "tid") == tid && num(m, "pid") == num(e, "pid"))
					named = true;
			}
			assert_true(named);
		} else if (strcmp(ph, "C") == 0) {
			const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

			ncounters++;
			num(args, "value");
		}
	}
	/* The flip is an instant (end == stamp): dur 0 as measured, not a
	 * constant 1 us that reads as a measured duration. */
	assert_true(num(slice_of(root, 1, IL_STAMP_PRESENTED), "dur") == 0);
	/* 13 slices (inject + 12 hops) per complete event, 7 for the timed-out one. */
	assert_int_equal(nx, 4 * 13 + 7);
	assert_int_equal(ncounters, 2);
	cJSON_Delete(root);
}

/* Finds the X slice of (event_id, hop); NULL when absent. */
static const cJSON *slice_of(const cJSON *root, int id, int hop)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, events_of(root)) {
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

		if (strcmp(ph_of(e), "X") == 0 && (int)num(args, "event_id") == id &&
		    (int)num(args, "hop") == hop)
			return e;
	}
	return NULL;
}

static void test_trace_hop_order_and_flows(void **state)
{
	struct fixture *f = *state;
	cJSON *root;

	assert_int_equal(il_trace_write(f->path, f->msgs, NEVENTS, threads, NTHREADS, NULL, 0, 0),
			 0);
	root = load(f->path);
	assert_non_null(root);

	for (int id = 1; id <= NEVENTS; id++) {
		int last = id == 4 ? 6 : 12, nflow = 0;
		double prev_ts = -1;
		const cJSON *e;

		/* Slices of one mouse-down start in hop order, each on its hop's thread. */
		for (int k = 0; k <= last; k++) {
			const cJSON *s = slice_of(root, id, k);

			assert_non_null(s);
			assert_true(num(s, "ts") > prev_ts);
			assert_int_equal((int)num(s, "tid"), hop_tid[k]);
			prev_ts = num(s, "ts");
		}
		assert_null(slice_of(root, id, last + 1));

		/* One flow: s, t..., f in time order, each inside the slice of its hop. */
		prev_ts = -1;
		cJSON_ArrayForEach (e, events_of(root)) {
			const char *ph = ph_of(e);
			const cJSON *s;
			double ts;

			if (strcmp(ph, "s") && strcmp(ph, "t") && strcmp(ph, "f"))
				continue;
			if ((int)num(e, "id") != id)
				continue;
			ts = num(e, "ts");
			s = slice_of(root, id, nflow);
			assert_non_null(s);
			assert_string_equal(ph, nflow == 0 ? "s" : nflow == last ? "f" : "t");
			assert_true(ts >= prev_ts);
			/* At the slice's start: its stamp, measured. */
			assert_true(ts == num(s, "ts"));
			assert_int_equal((int)num(e, "tid"), (int)num(s, "tid"));
			if (nflow == last)
				assert_string_equal(
				    cJSON_GetObjectItemCaseSensitive(e, "bp")->valuestring, "e");
			prev_ts = ts;
			nflow++;
		}
		assert_int_equal(nflow, last + 1);
	}
	cJSON_Delete(root);
}

/*
 * A flow's points never run backwards. The "s" sat at the middle of the
 * inject slice (ts + dur/2, a guess), so a long inject slice put it after
 * the next point (26 of 60 flows under `cfs --load 2`). Here the injector
 * ends 1863 us after hop 1 began, and event 3's hop 5 is stamped before
 * hop 4 (out of order, as the report counts it): that one gets no flow,
 * and otherData says so; every other flow's ts is non-decreasing.
 */
static void test_trace_flows_in_time_order(void **state)
{
	struct fixture *f = *state;
	double prev[NEVENTS + 1];
	int npoints[NEVENTS + 1] = {0};
	cJSON *root;
	const cJSON *e;

	f->msgs[1].end_ns[0] = f->msgs[1].stamp_ns[1] + 1863000ull;
	f->msgs[2].stamp_ns[5] = f->msgs[2].stamp_ns[4] - 1000ull;
	assert_int_equal(il_trace_write(f->path, f->msgs, NEVENTS, threads, NTHREADS, NULL, 0, 0),
			 0);
	root = load(f->path);
	assert_non_null(root);
	for (int i = 0; i <= NEVENTS; i++)
		prev[i] = -1e300;
	cJSON_ArrayForEach (e, events_of(root)) {
		const char *ph = ph_of(e);
		int id;

		if (strcmp(ph, "s") && strcmp(ph, "t") && strcmp(ph, "f"))
			continue;
		id = (int)num(e, "id");
		assert_true(id >= 1 && id <= NEVENTS);
		assert_true(num(e, "ts") >= prev[id]);
		prev[id] = num(e, "ts");
		npoints[id]++;
	}
	assert_int_equal(npoints[2], 13);
	assert_int_equal(npoints[3], 0);
	assert_int_equal(
	    (int)num(cJSON_GetObjectItemCaseSensitive(root, "otherData"), "flows_left_out"), 1);
	cJSON_Delete(root);
}

static void test_trace_bounded(void **state)
{
	struct fixture *f = *state;
	cJSON *root;
	const cJSON *e;
	int maxid = 0;

	assert_int_equal(il_trace_write(f->path, f->msgs, NEVENTS, threads, NTHREADS, NULL, 0, 2),
			 0);
	root = load(f->path);
	cJSON_ArrayForEach (e, events_of(root))
		if (strcmp(ph_of(e), "X") == 0) {
			int id = (int)num(cJSON_GetObjectItemCaseSensitive(e, "args"), "event_id");

			maxid = id > maxid ? id : maxid;
		}
	assert_int_equal(maxid, 2);
	cJSON_Delete(root);
}

/*
 * The injector preempted after its write: its end (end_ns[0]) comes
 * 1863 us after hop 1's stamp. The trace's queue_us was stamp1 - end0,
 * -1863 us, where the report clamps the same split (34 of 60 events under
 * CFS load), and the inject slice lasted until the injector ran again,
 * over the hops downstream. Now every slice and queue_us is the report's
 * split (il_msg_hop_split): queue 0, the inject slice ends at stamp 1.
 */
static void test_trace_queue_is_report_split(void **state)
{
	struct fixture *f = *state;
	struct il_msg *m = &f->msgs[1];
	cJSON *root;
	const cJSON *inj, *hop1;

	m->end_ns[0] = m->stamp_ns[1] + 1863000ull;
	assert_int_equal(il_trace_write(f->path, f->msgs, NEVENTS, threads, NTHREADS, NULL, 0, 0),
			 0);
	root = load(f->path);
	assert_non_null(root);
	inj = slice_of(root, 2, 0);
	hop1 = slice_of(root, 2, 1);
	assert_non_null(inj);
	assert_non_null(hop1);
	assert_true(fabs(num(inj, "dur") - 300.0) < 1e-6);
	assert_true(fabs(num(cJSON_GetObjectItemCaseSensitive(hop1, "args"), "queue_us")) < 1e-6);
	/* Every slice and queue_us as the report splits its hop. */
	for (int id = 1; id <= NEVENTS; id++)
		for (int k = 0; k < IL_NSTAMPS; k++) {
			const struct il_msg *mm = &f->msgs[id - 1];
			const cJSON *s = slice_of(root, id, k);
			uint64_t work, queue;

			if (!s)
				continue;
			if (k > 0) {
				assert_int_equal(il_msg_hop_split(mm, k, &work, &queue), 0);
				assert_true(fabs(num(cJSON_GetObjectItemCaseSensitive(s, "args"),
						     "queue_us") -
						 (double)queue / 1e3) < 1e-6);
			}
			if (il_msg_hop_split(mm, k + 1, &work, &queue) == 0)
				assert_true(fabs(num(s, "dur") - (double)work / 1e3) < 1e-6);
		}
	cJSON_Delete(root);
}

/*
 * The run's trace sink, fed as a run feeds it: `--warmup 2 --trace-events
 * 2` over the fixture's five events. Warm-up events are in no statistic;
 * the trace took the first N completed events, warm-ups included, so a
 * probe's `--trace-events 5` traced only the five warm-ups and said
 * mouse_downs 5. Now they are left out, do not count against the cap, and
 * otherData says how many were left out.
 */
static void test_trace_sink_leaves_out_warmup(void **state)
{
	struct fixture *f = *state;
	struct il_event_run_info info = {.self_pid = 100, .self_tid = 100};
	cJSON *none = cJSON_CreateArray();
	struct il_result r;
	struct il_event_sink sink;
	struct il_out *o;
	char err[256];
	cJSON *root;
	const cJSON *e, *other;
	int ids[NEVENTS + 1] = {0};

	memset(&r, 0, sizeof(r));
	assert_int_equal(il_out_open("--trace", f->path, &o, err, sizeof(err)), 0);
	assert_int_equal(il_trace_sink_new(o, 2, &sink), 0);
	info.threads = none;
	assert_int_equal(sink.start(sink.ctx, &info), 0);
	for (int i = 0; i < NEVENTS; i++) {
		struct il_event ev = {.id = f->msgs[i].event_id,
				      .state = IL_EV_COMPLETED,
				      .msg = &f->msgs[i],
				      .warmup = i < 2};

		assert_int_equal(sink.event(sink.ctx, &ev), 0);
	}
	assert_int_equal(sink.finish(sink.ctx, &r), 0);
	sink.free(sink.ctx);
	cJSON_Delete(none);

	root = load(f->path);
	assert_non_null(root);
	cJSON_ArrayForEach (e, events_of(root))
		if (strcmp(ph_of(e), "X") == 0)
			ids[(int)num(cJSON_GetObjectItemCaseSensitive(e, "args"), "event_id")] = 1;
	/* Events 3 and 4 (the first two measured ones), none of the warm-up. */
	assert_false(ids[1] || ids[2] || ids[5]);
	assert_true(ids[3] && ids[4]);
	other = cJSON_GetObjectItemCaseSensitive(root, "otherData");
	assert_int_equal((int)num(other, "mouse_downs"), 2);
	assert_int_equal((int)num(other, "warmup_left_out"), 2);
	cJSON_Delete(root);
}

/*
 * A per-CPU track names whatever held the CPU: another process's name is
 * any bytes it set (prctl PR_SET_NAME). The trace stays valid UTF-8 (a
 * strict reader, Python's json, refused it): each byte that starts no
 * valid sequence is U+FFFD, valid multi-byte names pass as they are.
 */
static void test_trace_names_valid_utf8(void **state)
{
	struct fixture *f = *state;
	struct il_trace_writer *w;
	cJSON *root;
	const cJSON *e;
	char *text;
	size_t len;
	int seen = 0;

	assert_int_equal(il_trace_open(f->path, 10, &w), 0);
	il_trace_set_t0(w, 1000);
	assert_int_equal(il_trace_add_cpu_slice(w, 1, 2000, 3000,
						"\xff\xfe"
						"bad\x01",
						42, "other", 0),
			 0);
	assert_int_equal(il_trace_add_cpu_slice(w, 0, 2000, 3000, "k\xc3\xa4se", 43, NULL, 0), 0);
	assert_int_equal(il_trace_close(w, threads, NTHREADS, NULL, 0), 0);
	text = il_file_read(f->path, 1 << 20, &len);
	assert_non_null(text);
	for (size_t i = 0; i < len; i += il_utf8_len((unsigned char *)text + i))
		if (!il_utf8_len((unsigned char *)text + i))
			fail_msg("byte %zu of the trace is not valid UTF-8", i);
	free(text);
	root = load(f->path);
	cJSON_ArrayForEach (e, events_of(root)) {
		const char *name =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));

		if (name && !strcmp(name, "\xef\xbf\xbd\xef\xbf\xbd"
					  "bad\x01"))
			seen |= 1;
		if (name && !strcmp(name, "k\xc3\xa4se"))
			seen |= 2;
	}
	assert_int_equal(seen, 3);
	cJSON_Delete(root);
}

static void test_trace_refuses_symlink(void **state)
{
	struct fixture *f = *state;
	char link[128], buf[8] = {0};
	FILE *fp;

	fp = fopen(f->path, "w");
	fputs("keep", fp);
	fclose(fp);
	snprintf(link, sizeof(link), "%s/link.json", f->dir);
	assert_int_equal(symlink(f->path, link), 0);
	assert_int_equal(il_trace_write(link, f->msgs, NEVENTS, threads, NTHREADS, NULL, 0, 0),
			 -ELOOP);
	fp = fopen(f->path, "r");
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "keep");
	assert_int_equal(il_trace_write(NULL, f->msgs, 1, threads, NTHREADS, NULL, 0, 0), -EINVAL);
}

/*
 * A JSON number of the trace, read exactly (not as a double): in units of
 * 1e-9 of the number (for ts and dur, femtoseconds). False when it is not
 * a plain decimal of at most 9 decimals. *end is where it stops.
 */
static bool exact_num(const char *s, __int128 *v, const char **end)
{
	bool neg = *s == '-';
	__int128 x = 0;
	int decimals = 0;

	s += neg;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9')
		x = x * 10 + (*s++ - '0');
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9' && decimals < 9) {
			x = x * 10 + (*s++ - '0');
			decimals++;
		}
		if (*s >= '0' && *s <= '9')
			return false;
	}
	if (*s == 'e' || *s == 'E')
		return false;
	for (; decimals < 9; decimals++)
		x *= 10;
	*v = neg ? -x : x;
	*end = s;
	return true;
}

/* The exact value of KEY in the event object starting at e (up to its end). */
static __int128 exact_key(const char *e, const char *key)
{
	char pat[32];
	const char *p, *stop = strstr(e, "}}");
	__int128 v = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(e, pat);
	if (!p || (stop && p > stop))
		fail_msg("no %s in %.200s", key, e);
	if (!exact_num(p + strlen(pat), &v, &p))
		fail_msg("%s is not a plain decimal: %.60s", key, strstr(e, pat));
	return v;
}

/* Nanoseconds as exact_num reads microseconds. */
static __int128 ns_exact(uint64_t ns)
{
	return (__int128)ns * 1000000;
}

/*
 * A slice's ts + dur must be where it ends, to the nanosecond, and the
 * same number as the next slice's ts when it ends at that stamp: ts and
 * dur were two decimals of their own (shortest doubles), and a run's
 * trace is in absolute CLOCK_MONOTONIC microseconds, so past 11.6 days of
 * uptime a stamp has 16 digits and was written in 17, not the stamp's
 * nanosecond (2000000002400.2109 for ...2400.211), and a slice's end was
 * off its neighbour's start. Here the stamps are 23 days in, at odd
 * nanoseconds, written as a run writes them (t0 0); one sender is
 * preempted past the next stamp (its slice ends at that stamp).
 */
static void test_trace_slices_end_where_they_end(void **state)
{
	struct fixture *f = *state;
	const uint64_t base = 2000000000000123ull;
	struct il_trace_writer *w;
	char *text, *p;
	size_t len, nx = 0, ncpu = 0;

	for (int i = 0; i < NEVENTS; i++)
		for (int k = 0; k < IL_NSTAMPS; k++) {
			struct il_msg *m = &f->msgs[i];

			if (!m->stamp_ns[k])
				continue;
			m->stamp_ns[k] = base + (uint64_t)i * 20000017ull + (uint64_t)k * 300011ull;
			m->end_ns[k] = k == IL_STAMP_PRESENTED
					   ? m->stamp_ns[k]
					   : m->stamp_ns[k] + 100003ull + (uint64_t)k * 1001ull;
		}
	f->msgs[1].end_ns[3] = f->msgs[1].stamp_ns[4] + 5001;
	assert_int_equal(il_trace_open(f->path, 0, &w), 0);
	il_trace_set_t0(w, 0);
	for (int i = 0; i < NEVENTS; i++)
		assert_int_equal(il_trace_add(w, &f->msgs[i], threads, NTHREADS), 0);
	assert_int_equal(il_trace_add_cpu_slice(w, 1, base + 7, base + 1234567, "hog", 9, NULL, 0),
			 0);
	assert_int_equal(il_trace_close(w, threads, NTHREADS, NULL, 0), 0);
	text = il_file_read(f->path, 1 << 24, &len);
	assert_non_null(text);
	for (p = strstr(text, "{\"ph\":\"X\""); p; p = strstr(p + 1, "{\"ph\":\"X\"")) {
		__int128 ts = exact_key(p, "ts"), dur = exact_key(p, "dur");
		const char *cat = strstr(p, "\"cat\":\"sched\"");

		if (cat && cat < strstr(p, "}}")) {
			assert_true(ts == ns_exact(base + 7));
			assert_true(ts + dur == ns_exact(base + 1234567));
			ncpu++;
			continue;
		}
		{
			int id = (int)(exact_key(p, "event_id") / 1000000000),
			    k = (int)(exact_key(p, "hop") / 1000000000);
			const struct il_msg *m = &f->msgs[id - 1];
			uint64_t end = m->end_ns[k], work, queue;

			if (il_msg_hop_split(m, k + 1, &work, &queue) == 0)
				end = m->stamp_ns[k] + work;
			if (ts != ns_exact(m->stamp_ns[k]) || ts + dur != ns_exact(end))
				fail_msg("event %d hop %d: ts %.40s, want %llu.%03llu, ending at "
					 "%llu.%03llu",
					 id, k, strstr(p, "\"ts\":") + 5,
					 (unsigned long long)(m->stamp_ns[k] / 1000),
					 (unsigned long long)(m->stamp_ns[k] % 1000),
					 (unsigned long long)(end / 1000),
					 (unsigned long long)(end % 1000));
			/* Cut at the next hop's stamp: the next slice's ts, the same number. */
			if (k + 1 < IL_NSTAMPS && m->stamp_ns[k + 1] &&
			    m->end_ns[k] >= m->stamp_ns[k + 1])
				assert_true(ts + dur == ns_exact(m->stamp_ns[k + 1]));
		}
		nx++;
	}
	assert_int_equal(nx, 4 * 13 + 7);
	assert_int_equal(ncpu, 1);
	free(text);
}

/* --- the counters' sampler ---------------------------------------------- */
#define SLEEPERS 70

struct sampled {
	pthread_t th;
	_Atomic int tid, stop;
	int busy;
};

static void *sampled_main(void *arg)
{
	struct sampled *s = arg;
	struct timespec ts = {0, 20000000}; /* the sleepers' own CPU stays near 0 */

	s->tid = (int)syscall(SYS_gettid);
	while (!s->stop)
		if (!s->busy)
			nanosleep(&ts, NULL);
	return NULL;
}

/*
 * Starts n sampled threads (the busy ones as s[i].busy says) and returns
 * their ready reports as js threads, with cpus when not NULL.
 */
static cJSON *sampled_start(struct sampled *s, int n, const char *cpus)
{
	cJSON *threads = cJSON_CreateArray();

	for (int i = 0; i < n; i++) {
		int cerr = pthread_create(&s[i].th, NULL, sampled_main, &s[i]);
		cJSON *t;

		if (cerr) {
			/* Those started would run on past the failure: stopped first. */
			for (int j = 0; j < i; j++) {
				s[j].stop = 1;
				pthread_join(s[j].th, NULL);
			}
			cJSON_Delete(threads);
			fail_msg("pthread_create of sampled thread %d: %s", i, strerror(cerr));
		}
		t = cJSON_CreateObject();
		while (!s[i].tid)
			usleep(100);
		cJSON_AddStringToObject(t, "role", "js");
		cJSON_AddNumberToObject(t, "pid", getpid());
		cJSON_AddNumberToObject(t, "tid", s[i].tid);
		if (cpus)
			cJSON_AddStringToObject(t, "cpus", cpus);
		cJSON_AddItemToArray(threads, t);
	}
	return threads;
}

/* Stops the n sampled threads; the last hog share smp counted. */
static double sampled_stop(struct sampled *s, int n, const struct il_sampler *smp)
{
	const struct il_trace_counter *c;
	double share = -1;
	size_t k;

	for (int i = 0; i < n; i++) {
		s[i].stop = 1;
		pthread_join(s[i].th, NULL);
	}
	c = il_sampler_counters(smp, &k);
	for (size_t i = 0; i < k; i++)
		if (strstr(c[i].name, "hog"))
			share = c[i].value;
	return share;
}

/*
 * --hog takes up to 1024 threads: the hog share counts them all. The
 * sampler kept the first 64 and left the rest out; here the only busy
 * hog comes after 70 sleeping ones, and its CPU must show.
 */
static void test_trace_sampler_counts_every_hog(void **state)
{
	static struct sampled s[SLEEPERS + 1];
	cJSON *threads;
	struct il_sampler *smp;
	double share;

	memset(s, 0, sizeof(s));
	s[SLEEPERS].busy = 1;
	threads = sampled_start(s, SLEEPERS + 1, NULL);
	smp = il_sampler_new(threads, 1, 16);
	assert_non_null(smp);
	il_sampler_tick(smp, il_now_ns());
	usleep(100000);
	il_sampler_tick(smp, il_now_ns());
	share = sampled_stop(s, SLEEPERS + 1, smp);
	print_message("hog CPU share with the busy one 71st of 71: %.1f%%\n", share);
	/* 100 ms of one busy thread on "1 CPU": far above 0 even when shared. */
	assert_true(share > 20);
	il_sampler_free(smp);
	cJSON_Delete(threads);
}

/*
 * A Chrome counter's value is drawn from its ts until the next sample.
 * The sampler stamped each value at the end of the interval it describes,
 * so every value was drawn over the following ~100 ms. Now each sample is
 * at its interval's start, with the interval's end, and the trace says
 * where the track's last interval ends (otherData.counters_end_ts).
 */
static void test_trace_counters_at_interval_start(void **state)
{
	static struct sampled s[1];
	struct fixture *f = *state;
	const struct il_trace_counter *c;
	struct il_sampler *smp;
	cJSON *threads, *root;
	const cJSON *e;
	uint64_t t[3];
	double want_ts[] = {0, 0, 0};
	size_t k, n = 0;

	memset(s, 0, sizeof(s));
	s[0].busy = 1;
	threads = sampled_start(s, 1, NULL);
	smp = il_sampler_new(threads, 1, 16);
	assert_non_null(smp);
	for (int i = 0; i < 3; i++) {
		if (i)
			usleep(30000);
		t[i] = il_now_ns();
		il_sampler_tick(smp, t[i]);
	}
	sampled_stop(s, 1, smp);
	c = il_sampler_counters(smp, &k);
	assert_int_equal(k, 2);
	for (size_t i = 0; i < k; i++) {
		assert_int_equal(c[i].ts_ns, t[i]);
		assert_int_equal(c[i].end_ns, t[i + 1]);
	}
	/* In the trace (t0 = t[0]): at 0 and t1 - t0, ending at t2 - t0. */
	assert_int_equal(il_trace_write(f->path, NULL, 0, NULL, 0, c, k, 0), 0);
	root = load(f->path);
	assert_non_null(root);
	for (int i = 0; i < 3; i++)
		want_ts[i] = (double)(t[i] - t[0]) / 1e3;
	cJSON_ArrayForEach (e, events_of(root)) {
		if (strcmp(ph_of(e), "C") != 0)
			continue;
		assert_true(n < 2);
		assert_true(fabs(num(e, "ts") - want_ts[n]) < 1e-3);
		n++;
	}
	assert_int_equal(n, 2);
	e = cJSON_GetObjectItemCaseSensitive(root, "otherData");
	assert_true(fabs(num(cJSON_GetObjectItemCaseSensitive(e, "counters_end_ts"), c[1].name) -
			 want_ts[2]) < 1e-3);
	cJSON_Delete(root);
	il_sampler_free(smp);
	cJSON_Delete(threads);
}

/*
 * A counter track has one sample per interval measured. The trace closed
 * each track by writing its last sample again at the interval's end, so
 * every track ended in a sample that was not measured: the same value
 * twice, and one sample more than intervals for whoever counts or averages
 * them (a real run's 10 ticks gave 11 samples a track). Two tracks of
 * three intervals, as the sampler hands them (ticks interleaved): three
 * samples each, in rising time, the last one measured, and where each
 * track ends in otherData.
 */
static void test_trace_counters_sampled_once(void **state)
{
	static const char *const names[] = {"canary wait", "hog share"};
	struct fixture *f = *state;
	struct il_trace_counter c[6];
	const uint64_t t0 = 7000000000ull, tick = 100000123ull;
	const cJSON *e, *ends;
	cJSON *root;
	size_t n[2] = {0, 0};
	double last_ts[2] = {-1, -1};

	for (int i = 0; i < 6; i++)
		c[i] = (struct il_trace_counter){.ts_ns = t0 + (uint64_t)(i / 2) * tick,
						 .name = names[i % 2],
						 .value = 10.0 * (i % 2 + 1) + i / 2,
						 .end_ns = t0 + (uint64_t)(i / 2 + 1) * tick};
	assert_int_equal(il_trace_write(f->path, NULL, 0, NULL, 0, c, 6, 0), 0);
	root = load(f->path);
	assert_non_null(root);
	cJSON_ArrayForEach (e, events_of(root)) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		int t;
		double ts;

		if (strcmp(ph_of(e), "C") != 0)
			continue;
		t = strcmp(name->valuestring, names[0]) == 0 ? 0 : 1;
		assert_string_equal(name->valuestring, names[t]);
		ts = num(e, "ts");
		if (n[t] >= 3 || ts <= last_ts[t])
			fail_msg("track '%s': sample %zu at %.3f us after one at %.3f (value %g): "
				 "more samples than its 3 intervals, or not in rising time",
				 names[t], n[t] + 1, ts, last_ts[t],
				 num(cJSON_GetObjectItemCaseSensitive(e, "args"), "value"));
		assert_true(fabs(ts - (double)(n[t] * tick) / 1e3) < 1e-3);
		assert_true(num(cJSON_GetObjectItemCaseSensitive(e, "args"), "value") ==
			    c[n[t] * 2 + (size_t)t].value);
		last_ts[t] = ts;
		n[t]++;
	}
	assert_int_equal(n[0], 3);
	assert_int_equal(n[1], 3);
	ends = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "otherData"),
						"counters_end_ts");
	for (int t = 0; t < 2; t++)
		assert_true(fabs(num(ends, names[t]) - (double)(3 * tick) / 1e3) < 1e-3);
	cJSON_Delete(root);
}

/*
 * Hogs pinned to one CPU of two: the counter is their share of that CPU,
 * as the report's hog.cpu_share, not of the machine (it read 46% for a
 * hog the report and schedstat gave 91%). The busy hog's own schedstat
 * over the same window says what it must read.
 */
static void test_trace_sampler_share_of_hog_cpus(void **state)
{
	static struct sampled s[2];
	cJSON *threads;
	struct il_sampler *smp;
	uint64_t on0, on1, t0, t1;
	double share, want;

	(void)state;
	memset(s, 0, sizeof(s));
	s[1].busy = 1;
	threads = sampled_start(s, 2, "1");
	smp = il_sampler_new(threads, 2, 16);
	assert_non_null(smp);
	t0 = il_now_ns();
	il_sampler_tick(smp, t0);
	assert_int_equal(il_procfs_schedstat(getpid(), s[1].tid, &on0, NULL, NULL), 0);
	usleep(200000);
	t1 = il_now_ns();
	il_sampler_tick(smp, t1);
	assert_int_equal(il_procfs_schedstat(getpid(), s[1].tid, &on1, NULL, NULL), 0);
	share = sampled_stop(s, 2, smp);
	want = 100.0 * (double)(on1 - on0) / (double)(t1 - t0);
	print_message("hog CPU share of its one CPU: %.1f%% (its schedstat: %.1f%%)\n", share,
		      want);
	/* The reads are microseconds apart; of two CPUs it would be half. */
	assert_true(fabs(share - want) <= 0.1 * want + 2);
	il_sampler_free(smp);
	cJSON_Delete(threads);
}

/*
 * The canary starved for 350 ms by a FIFO thread on its CPU. The kernel
 * adds a wait to run_delay when it ends, and the counter read 0 while the
 * canary waited and then 211-593 ms "per 100 ms" in the interval where it
 * ran again (perf: 100 in each). Now no interval is given more than its
 * length, the stall shows where it was, and the counter's total is the
 * canary's own run_delay over the same ticks.
 */
struct stall {
	pthread_t canary, hog;
	_Atomic int tid, stop, hog_state; /* hog: 1 spinning, 2 done, -1 not FIFO */
	int cpu;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *stall_canary(void *arg)
{
	struct stall *x = arg;
	struct timespec ms = {0, 1000000};

	pin_to(x->cpu);
	x->tid = (int)syscall(SYS_gettid);
	while (!x->stop)
		nanosleep(&ms, NULL); /* as il-workload's canary: wakes, runs a moment */
	return NULL;
}

static void *stall_hog(void *arg)
{
	struct stall *x = arg;
	struct sched_param sp = {.sched_priority = 10};

	pin_to(x->cpu);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
		x->hog_state = -1;
		return NULL;
	}
	x->hog_state = 1;
	/* Bounded by its own clock, and by the RLIMIT_RTTIME the test set. */
	for (uint64_t t0 = il_now_ns(); il_now_ns() - t0 < 350000000ull;)
		;
	x->hog_state = 2;
	return NULL;
}

static void test_trace_sampler_canary_stall(void **state)
{
	static struct stall x;
	struct rlimit old_rt, rt = {.rlim_cur = 2000000, .rlim_max = 2000000}; /* us */
	cpu_set_t mine, all;
	int cpus[2], ncpus = 0, ticks = 0, full = 0;
	uint64_t t[16], wait0, wait1;
	const struct il_trace_counter *c;
	struct il_sampler *smp;
	cJSON *threads, *th;
	double sum_ms = 0, max = 0;
	size_t k, j = 0;

	(void)state;
	IL_TEST_NEED_ROOT("a SCHED_FIFO thread starves the canary");
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	for (int i = 0; i < CPU_SETSIZE && ncpus < 2; i++)
		if (CPU_ISSET(i, &all))
			cpus[ncpus++] = i;
	IL_TEST_NEED(ncpus == 2, "two CPUs to use (the sampler must run beside the stall)");
	memset(&x, 0, sizeof(x));
	x.cpu = cpus[0];
	assert_int_equal(getrlimit(RLIMIT_RTTIME, &old_rt), 0);
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &rt), 0);
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine), 0);
	pin_to(cpus[1]);
	assert_int_equal(pthread_create(&x.canary, NULL, stall_canary, &x), 0);
	while (!x.tid)
		usleep(100);
	threads = cJSON_CreateArray();
	th = cJSON_CreateObject();
	cJSON_AddStringToObject(th, "role", "canary");
	cJSON_AddNumberToObject(th, "pid", getpid());
	cJSON_AddNumberToObject(th, "tid", x.tid);
	cJSON_AddItemToArray(threads, th);
	smp = il_sampler_new(threads, 2, 64);
	assert_non_null(smp);
	assert_int_equal(il_procfs_schedstat(getpid(), x.tid, NULL, &wait0, NULL), 0);
	t[ticks++] = il_now_ns();
	il_sampler_tick(smp, t[0]);
	if (pthread_create(&x.hog, NULL, stall_hog, &x) != 0)
		x.hog_state = -1;
	/* Through the stall and 300 ms after it, a tick every 100 ms. */
	while (ticks < 10) {
		usleep(100000);
		t[ticks] = il_now_ns();
		il_sampler_tick(smp, t[ticks++]);
	}
	assert_int_equal(il_procfs_schedstat(getpid(), x.tid, NULL, &wait1, NULL), 0);
	x.stop = 1;
	pthread_join(x.canary, NULL);
	if (x.hog_state != -1 || x.hog)
		pthread_join(x.hog, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
	setrlimit(RLIMIT_RTTIME, &old_rt);
	assert_int_equal(x.hog_state, 2);
	c = il_sampler_counters(smp, &k);
	for (size_t i = 0; i < k; i++) {
		if (strcmp(c[i].name, "canary run-queue wait (ms per 100 ms)") != 0)
			continue;
		j++;
		assert_true(j < (size_t)ticks);
		sum_ms += c[i].value * (double)(t[j] - t[j - 1]) / 1e8;
		max = c[i].value > max ? c[i].value : max;
		full += c[i].value >= 90;
		print_message("%.0f ms: %.1f\n", (double)(t[j] - t[0]) / 1e6, c[i].value);
	}
	print_message("counted %.1f ms, run_delay %.1f ms over the same ticks\n", sum_ms,
		      (double)(wait1 - wait0) / 1e6);
	assert_int_equal(j, ticks - 1);
	/* Never more than the interval (the reads are microseconds from the ticks). */
	assert_true(max <= 100.0 + 1e-6);
	/* 350 ms of stall covers at least two whole intervals of ~100 ms. */
	assert_true(full >= 2);
	/* Moved, not lost: the canary's wait since the first tick (its wait
	 * before it is not in the counter; the canary sleeps then, ~0). */
	assert_true(fabs(sum_ms - (double)(wait1 - wait0) / 1e6) <=
		    0.02 * (double)(wait1 - wait0) / 1e6 + 1.0);
	il_sampler_free(smp);
	cJSON_Delete(threads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trace_sampler_counts_every_hog),
	    cmocka_unit_test(test_trace_sampler_share_of_hog_cpus),
	    cmocka_unit_test(test_trace_sampler_canary_stall),
	    cmocka_unit_test_setup_teardown(test_trace_counters_at_interval_start, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_counters_sampled_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_slices_named_and_complete, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_hop_order_and_flows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_flows_in_time_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_names_valid_utf8, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_sink_leaves_out_warmup, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_queue_is_report_split, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_slices_end_where_they_end, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_refuses_symlink, setup, teardown),
	};

	if (il_test_filters("test_trace", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
