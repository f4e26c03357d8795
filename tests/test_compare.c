/*
 * `inputlat compare`: verdicts on single runs and on groups of rounds,
 * its JSON for the sweep, one-line errors.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "il_cmd.h"
#include "il_comparable.h"
#include "il_file.h"
#include "il_report_sane.h"
#include "il_stats.h"
#include "il_test.h"

#define NEVENTS 2000

static char dir[64];
static char out_text[1 << 17], err_text[1 << 12];

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

static double gauss(uint64_t *s)
{
	double u1, u2;

	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u1 = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	u2 = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static cJSON *latency_obj(const double *v, size_t n)
{
	double *s = malloc(sizeof(*s) * n), sum = 0;
	cJSON *o = cJSON_CreateObject();

	memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	cJSON_AddNumberToObject(o, "min", s[0]);
	cJSON_AddNumberToObject(o, "p50", il_stats_quantile_sorted(s, n, 0.5));
	cJSON_AddNumberToObject(o, "p90", il_stats_quantile_sorted(s, n, 0.9));
	cJSON_AddNumberToObject(o, "p99", il_stats_quantile_sorted(s, n, 0.99));
	cJSON_AddNumberToObject(o, "p999", il_stats_quantile_sorted(s, n, 0.999));
	cJSON_AddNumberToObject(o, "max", s[n - 1]);
	cJSON_AddNumberToObject(o, "mean", sum / (double)n);
	cJSON_AddNumberToObject(o, "count", (double)n);
	free(s);
	return o;
}

/*
 * A run report whose events are a correlated (AR(1)) log-normal series
 * around median_us, every latency times `scale`; `seed` picks the run.
 */
static void write_report_lost(const char *name, const char *policy, double median_us, double scale,
			      uint64_t seed, size_t sent, size_t lost);

static void write_report(const char *name, const char *policy, double median_us, double scale,
			 uint64_t seed, size_t n)
{
	write_report_lost(name, policy, median_us, scale, seed, n, 0);
}

/* ... of which the last `lost` events timed out: the report's latencies
 * and samples are of the others, as a run writes them. */
static void write_report_lost(const char *name, const char *policy, double median_us, double scale,
			      uint64_t seed, size_t sent, size_t lost)
{
	size_t n = sent - lost;
	double *proc = malloc(sizeof(double) * sent), *pres = malloc(sizeof(double) * sent), x = 0;
	cJSON *root = cJSON_CreateObject(), *ev, *lat, *smp, *hops, *hop;
	char p[128];

	for (size_t i = 0; i < sent; i++) {
		x = 0.6 * x + 0.8 * gauss(&seed);
		proc[i] = scale * median_us * exp(0.2 * x);
		pres[i] = proc[i] + scale * 8000;
	}
	cJSON_AddNumberToObject(root, "file_version", 1);
	cJSON_AddStringToObject(root, "policy", policy);
	ev = cJSON_AddObjectToObject(root, "events");
	cJSON_AddNumberToObject(ev, "sent", (double)sent);
	cJSON_AddNumberToObject(ev, "completed", (double)n);
	cJSON_AddNumberToObject(ev, "timed_out", (double)lost);
	lat = cJSON_AddObjectToObject(root, "latency_us");
	cJSON_AddItemToObject(lat, "processing", latency_obj(proc, n));
	cJSON_AddItemToObject(lat, "presentation", latency_obj(pres, n));
	hops = cJSON_AddArrayToObject(root, "hops");
	hop = cJSON_CreateObject();
	cJSON_AddNumberToObject(hop, "index", 1);
	cJSON_AddStringToObject(hop, "name", "inject->evdev");
	cJSON_AddNumberToObject(hop, "p50_us", 20 * scale);
	cJSON_AddItemToArray(hops, hop);
	smp = cJSON_AddObjectToObject(root, "samples_us");
	cJSON_AddItemToObject(smp, "processing", cJSON_CreateDoubleArray(proc, (int)n));
	cJSON_AddItemToObject(smp, "presentation", cJSON_CreateDoubleArray(pres, (int)n));
	path_of(p, sizeof(p), name);
	assert_int_equal(il_json_write(p, root), 0);
	cJSON_Delete(root);
	free(proc);
	free(pres);
}

/* Runs compare with stdout and stderr captured; returns its exit code. */
static int run_compare_argv(int argc, char **argv)
{
	return il_test_capture(il_cmd_compare, argc, argv, out_text, sizeof(out_text), err_text,
			       sizeof(err_text));
}

/* "x,y" -> "DIR/x,DIR/y": every report of a group lives in the test's directory. */
static void in_dir(char *out, size_t len, const char *names)
{
	size_t n = 0;

	out[0] = '\0';
	while (*names && n < len) {
		size_t l = strcspn(names, ",");

		n += (size_t)snprintf(out + n, len - n, "%s%s/%.*s", n ? "," : "", dir, (int)l,
				      names);
		names += l + (names[l] == ',');
	}
}

static int run_compare(const char *a, const char *b)
{
	char pa[512], pb[512];
	char *argv[] = {"compare", pa, pb, NULL};

	in_dir(pa, sizeof(pa), a);
	in_dir(pb, sizeof(pb), b);
	return run_compare_argv(3, argv);
}

/* The verdict column of a row of the table ("processing p50 (us)"). */
static const char *verdict_of(const char *row)
{
	static char v[256];
	const char *l = strstr(out_text, row), *end;

	assert_non_null(l);
	end = strchr(l, '\n');
	/* The verdict is what follows the interval column: the last run of
	 * text after two spaces. */
	for (const char *p = end; p > l; p--)
		if (p[-1] == ' ' && p[-2] == ' ') {
			snprintf(v, sizeof(v), "%.*s", (int)(end - p), p);
			return v;
		}
	return "";
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A directory of rounds (a cell) in the test's directory. */
static void make_cell(const char *name)
{
	char p[128];

	path_of(p, sizeof(p), name);
	mkdir(p, 0755);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/il-compare-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	write_report("a.json", "cfs", 1700, 1.0, 1, NEVENTS);
	write_report("a12.json", "cfs", 1700, 1.2, 1, NEVENTS);
	write_report("small.json", "cfs", 1700, 1.0, 2, 100);
	/* Their figures again, in files of their own: one run each of two
	 * (compare refuses one report on both sides). */
	write_report("a-again.json", "cfs", 1700, 1.0, 1, NEVENTS);
	write_report("small-again.json", "cfs", 1700, 1.0, 2, 100);
	/* Two cells of five rounds each, B 15% lower, with a round effect. */
	make_cell("cellA");
	make_cell("cellB");
	make_cell("cellC");
	for (int r = 1; r <= 5; r++) {
		char name[64];
		double effect = 1 + 0.03 * ((r * 7) % 5 - 2) / 2.0;

		snprintf(name, sizeof(name), "cellA/round-%d.json", r);
		write_report(name, "cfs", 1700 * effect, 1.0, 100 + (uint64_t)r, 600);
		snprintf(name, sizeof(name), "cellB/round-%d.json", r);
		write_report(name, "rt", 1700 * (2 - effect), 0.85, 200 + (uint64_t)r, 600);
		/* Other runs of A's policy. */
		snprintf(name, sizeof(name), "cellC/round-%d.json", r);
		write_report(name, "cfs", 1700 * effect, 1.0, 300 + (uint64_t)r, 600);
	}
	write_text("cellA/merged.hist.csv", "upper_bound_us,count\n");
	write_text("broken.json", "{\"file_version\": 1, ");
	write_text("nokey.json", "{\"file_version\": 1, \"events\": {\"sent\": 1}}");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return il_test_tmpdir_remove(dir) == 0 ? 0 : -1;
}

/* What one run a side gets in place of a verdict (the interval is kept). */
#define ONE_RUN                                                                                    \
	"not enough data: one run a side (the interval is of its events, not of runs); needs "     \
	"at least 4 rounds of each"

static void test_compare_same_run_twice(void **state)
{
	(void)state;
	assert_int_equal(run_compare("a.json", "a-again.json"), 0);
	assert_string_equal(verdict_of("processing p50 (us)"), ONE_RUN);
	assert_string_equal(verdict_of("processing p99 (us)"), ONE_RUN);
	assert_string_equal(verdict_of("processing mean (us)"), ONE_RUN);
	assert_non_null(
	    strstr(out_text, "one run each: the intervals cover the variation within a run"));
	assert_non_null(strstr(out_text, "circular block bootstrap"));
	assert_non_null(strstr(out_text, "seed 1"));
	assert_string_equal(err_text, "");
}

/*
 * One run each, B every latency 1.2x A's: the ratio and its within-run
 * interval are shown, no verdict (two runs of one policy here differ by
 * more than their events' scatter: "lower" or "higher" came out for 74% of
 * A/A pairs at the runs' measured spread).
 */
static void test_compare_scaled_run_higher(void **state)
{
	(void)state;
	assert_int_equal(run_compare("a.json", "a12.json"), 0);
	assert_string_equal(verdict_of("processing p50 (us)"), ONE_RUN);
	assert_string_equal(verdict_of("presentation p50 (us)"), ONE_RUN);
	assert_non_null(strstr(out_text, " 1.200 "));
	assert_non_null(strstr(out_text, " 1.200-1.200 ") || strstr(out_text, "1.19"));
	assert_non_null(strstr(out_text, "hop  1 inject->evdev p50 (us)"));
	assert_non_null(strstr(out_text, "not from run to run, so no verdict"));
	/* Nor a p-value in the JSON: the events' one (0 here) is no test of
	 * the policies, and `stats fdr`, fed it, counted it a discovery. */
	{
		char pa[128], pb[128];
		char *argv[] = {"compare", "--json", "-", pa, pb, NULL};
		cJSON *root, *c;
		int rows = 0;

		path_of(pa, sizeof(pa), "a.json");
		path_of(pb, sizeof(pb), "a12.json");
		assert_int_equal(run_compare_argv(5, argv), 0);
		root = cJSON_Parse(out_text);
		assert_non_null(root);
		cJSON_ArrayForEach (c, cJSON_GetObjectItem(root, "comparisons")) {
			assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "p_value")));
			rows++;
		}
		assert_true(rows > 0);
		cJSON_Delete(root);
	}
}

static void test_compare_short_run_not_enough_for_p99(void **state)
{
	(void)state;
	assert_int_equal(run_compare("small.json", "small-again.json"), 0);
	assert_string_equal(verdict_of("processing p50 (us)"), ONE_RUN);
	assert_non_null(strstr(out_text, "not enough data: this percentile needs at least 500 "
					 "events per run (has 100 and 100)"));
}

static void test_compare_rounds(void **state)
{
	(void)state;
	assert_int_equal(run_compare("cellA", "cellB"), 0);
	assert_non_null(strstr(out_text, "# A = "));
	assert_non_null(strstr(out_text, "(5 runs, policy cfs, work loops)"));
	assert_non_null(
	    strstr(out_text, "permutation test over rounds (5 vs 5), all 252 partitions"));
	assert_string_equal(verdict_of("processing p50 (us)"), "lower");
	assert_string_equal(verdict_of("processing mean (us)"), "lower");
	/* 600 events a round carry a p99 (500 needed). */
	assert_string_equal(verdict_of("processing p99 (us)"), "lower");

	/* Three rounds a side cannot reach 5%, whatever the data. */
	assert_int_equal(run_compare("cellA/round-1.json,cellA/round-2.json,cellA/round-3.json",
				     "cellB/round-1.json,cellB/round-2.json,cellB/round-3.json"),
			 0);
	assert_string_equal(verdict_of("processing p50 (us)"),
			    "not enough data: 3 and 3 rounds cannot reach 0.05 (their smallest "
			    "p-value is 0.1); 4 rounds of each can");

	/* Same rounds on both sides: refused (test_compare_group_against_itself). */
	assert_int_equal(run_compare("cellA", "cellA"), 2);

	/* A round whose p50 is 0 has one, in its report: said so, not "gives
	 * no p50 (none in the report ...)"; and the header names the test the
	 * other rows ran, not "-" after its first row's refusal. */
	{
		char src[128], err[256];
		cJSON *root;

		make_cell("cellZ");
		for (int r = 1; r <= 5; r++) {
			char from[64], to[64];

			snprintf(from, sizeof(from), "cellB/round-%d.json", r);
			snprintf(to, sizeof(to), "cellZ/round-%d.json", r);
			path_of(src, sizeof(src), from);
			assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
			/* Its min too: a p50 below the min is no run's (refused). */
			if (r == 1) {
				cJSON *proc = cJSON_GetObjectItem(
				    cJSON_GetObjectItem(root, "latency_us"), "processing");

				cJSON_ReplaceItemInObject(proc, "p50", cJSON_CreateNumber(0));
				cJSON_ReplaceItemInObject(proc, "min", cJSON_CreateNumber(0));
			}
			path_of(src, sizeof(src), to);
			assert_int_equal(il_json_write(src, root), 0);
			cJSON_Delete(root);
		}
		assert_int_equal(run_compare("cellA", "cellZ"), 0);
		assert_string_equal(
		    verdict_of("processing p50 (us)"),
		    "not enough data: 1 of B's 5 rounds give a p50 of 0 us, which no "
		    "latency is (and a ratio over rounds cannot hold)");
		assert_non_null(strstr(
		    out_text, "\n# permutation test over rounds (5 vs 5), all 252 partitions; "));
	}

	/* Options after the groups are options, as anywhere else (they were
	 * read as a group: "--seed: No such file or directory"); --resamples,
	 * which sizes the one-run bootstrap, is refused where rounds are
	 * compared rather than ignored. */
	{
		char pa[512], pb[512];
		char *late[] = {"compare", pa, pb, "--seed", "3", NULL};
		char *res[] = {"compare", pa, pb, "--resamples", "100", NULL};

		in_dir(pa, sizeof(pa), "cellA");
		in_dir(pb, sizeof(pb), "cellB");
		assert_int_equal(run_compare_argv(5, late), 0);
		assert_non_null(strstr(out_text, "; seed 3"));
		assert_int_equal(run_compare_argv(5, res), 2);
		assert_string_equal(err_text,
				    "compare: --resamples sizes the bootstrap of one run a group; "
				    "these groups have rounds (a permutation test), drop it\n");
	}
}

static cJSON *processing_p50_row(const char *a, const char *b);

/* Cell `to`: cellA's rounds with their processing p50 set to p50_us. */
static void cell_with_p50(const char *to, double p50_us)
{
	make_cell(to);
	for (int r = 1; r <= 5; r++) {
		char from[64], name[64], src[128], err[256];
		cJSON *root, *proc;

		snprintf(from, sizeof(from), "cellA/round-%d.json", r);
		path_of(src, sizeof(src), from);
		assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
		proc = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "latency_us"), "processing");
		cJSON_ReplaceItemInObject(proc, "p50", cJSON_CreateNumber(p50_us));
		snprintf(name, sizeof(name), "%s/round-%d.json", to, r);
		path_of(src, sizeof(src), name);
		assert_int_equal(il_json_write(src, root), 0);
		cJSON_Delete(root);
	}
}

/*
 * A report's percentiles are histogram buckets' midpoints, within 0.39% of
 * the true value. Rounds 0.74% apart in every round (true values of 2000
 * and 2001 us can read so, from neighbouring buckets) were "higher" at
 * 1.0074: a claim the histogram cannot make. Now no clear difference, the
 * interval widened by the resolution, which the JSON row gives; 3% apart
 * is still found.
 */
static void test_compare_below_resolution(void **state)
{
	cJSON *row;

	(void)state;
	cell_with_p50("nearA", 1750);
	cell_with_p50("nearB", 1750 * 1.0074);
	cell_with_p50("farB", 1750 * 1.03);
	row = processing_p50_row("nearA", "nearB");
	assert_string_equal(il_test_json_str(row, "verdict"), "no clear difference");
	assert_float_equal(il_test_json_num(row, "ratio"), 1.0074, 1e-9);
	assert_true(il_test_json_num(row, "lo") < 1 && il_test_json_num(row, "hi") > 1.0074);
	assert_float_equal(il_test_json_num(row, "p_value"), 1, 1e-12);
	assert_float_equal(il_test_json_num(row, "resolution"), 1.0 / 256, 1e-12);
	assert_non_null(strstr(il_test_json_str(row, "method"), "within 0.39%"));
	cJSON_Delete(row);
	row = processing_p50_row("nearA", "farB");
	assert_string_equal(il_test_json_str(row, "verdict"), "higher");
	assert_true(il_test_json_num(row, "lo") > 1 && il_test_json_num(row, "lo") < 1.03);
	cJSON_Delete(row);
	/* The mean is exact: no resolution. */
	assert_int_equal(run_compare("nearA", "farB"), 0);
	assert_non_null(strstr(out_text, "widened"));
}

/*
 * compare --json of cells a against b (names in the test's directory):
 * processing p50's row, copied out (the caller frees it); the table is in
 * out_text as usual.
 */
static cJSON *processing_p50_row(const char *a, const char *b)
{
	char pa[512], pb[512], pj[128];
	char *argv[] = {"compare", "--json", pj, pa, pb, NULL};
	cJSON *root, *row = NULL;
	const cJSON *c;

	path_of(pj, sizeof(pj), "rows.json");
	in_dir(pa, sizeof(pa), a);
	in_dir(pb, sizeof(pb), b);
	assert_int_equal(run_compare_argv(5, argv), 0);
	root = il_test_json_load(pj);
	cJSON_ArrayForEach (c, cJSON_GetObjectItem(root, "comparisons"))
		if (!strcmp(il_test_json_str(c, "stat"), "p50") &&
		    !strcmp(il_test_json_str(c, "latency"), "processing"))
			row = cJSON_Duplicate(c, 1);
	cJSON_Delete(root);
	assert_non_null(row);
	return row;
}

/*
 * Rounds that lost events to time-outs: the events they lost were slower
 * than any they completed, and a verdict over the completed ones only
 * called such a side lower. A round that lost over half its events has its
 * p50 beyond the timeout, and its mean is unknown once it lost any: no
 * verdict, saying why. A round that lost a few places its p50 among all
 * its events (higher than over the completed ones), and is judged.
 */
static void test_compare_lost_events(void **state)
{
	double want;
	bool centre, refused;
	cJSON *row;

	(void)state;
	make_cell("cellLost");
	make_cell("cellFew");
	for (int r = 1; r <= 5; r++) {
		char name[64];

		/* As cellB (15% lower), two rounds losing 60% of 600 events. */
		snprintf(name, sizeof(name), "cellLost/round-%d.json", r);
		write_report_lost(name, "rt", 1700, 0.85, 200 + (uint64_t)r, 600, r <= 2 ? 360 : 0);
		/* Every round losing 30 of 600 (5%). */
		snprintf(name, sizeof(name), "cellFew/round-%d.json", r);
		write_report_lost(name, "rt", 1700, 0.85, 300 + (uint64_t)r, 600, 30);
	}
	assert_int_equal(run_compare("cellA", "cellLost"), 0);
	assert_string_equal(verdict_of("processing p50 (us)"),
			    "not enough data: 2 of B's 5 rounds lost about 50% of their events or "
			    "more (timed out or dropped): their p50 lies beyond the timeout");
	assert_string_equal(verdict_of("processing mean (us)"),
			    "not enough data: 2 of B's 5 rounds lost events (timed out or "
			    "dropped): a mean over them lies beyond any figure");
	/* The reference side is read alike. */
	assert_int_equal(run_compare("cellLost", "cellA"), 0);
	assert_non_null(strstr(verdict_of("processing p50 (us)"), "2 of A's 5 rounds lost"));
	/* No centre over the rounds that did well: the sweep ranked by it. */
	row = processing_p50_row("cellA", "cellLost");
	centre = !cJSON_IsNull(cJSON_GetObjectItem(row, "b"));
	cJSON_Delete(row);
	assert_false(centre);

	/* A completed event whose stamps were out of order is in no latency
	 * figure, but it was not lost: such a round keeps its mean. */
	{
		char name[160];
		cJSON *rep;

		make_cell("cellOoo");
		for (int r = 1; r <= 5; r++) {
			snprintf(name, sizeof(name), "cellOoo/round-%d.json", r);
			write_report(name, "rt", 1700, 0.85, 400 + (uint64_t)r, 600);
		}
		snprintf(name, sizeof(name), "%s/cellOoo/round-1.json", dir);
		rep = il_test_json_load(name);
		cJSON_ReplaceItemInObject((cJSON *)il_json_get(rep, "latency_us.processing"),
					  "count", cJSON_CreateNumber(599));
		assert_int_equal(il_json_write(name, rep), 0);
		cJSON_Delete(rep);
		assert_int_equal(run_compare("cellA", "cellOoo"), 0);
		assert_null(strstr(verdict_of("processing mean (us)"), "lost"));
		assert_null(strstr(verdict_of("processing p50 (us)"), "lost"));
	}

	/* 5% lost: p50 and p90 placed among all 600 events, p99 beyond. */
	row = processing_p50_row("cellA", "cellFew");
	want = il_test_json_num(row, "b");
	refused = !strcmp(il_test_json_str(row, "verdict"), "not enough data");
	cJSON_Delete(row);
	assert_false(refused);
	assert_string_equal(verdict_of("processing p99 (us)"),
			    "not enough data: 5 of B's 5 rounds lost about 1% of their events or "
			    "more (timed out or dropped): their p99 lies beyond the timeout");
	/* Each round's p50 is its 300th of 600 events, not its 285th of 570:
	 * the geometric mean over the rounds of that, from their own samples,
	 * by the nearest rank as the reports' own percentiles are. */
	{
		double lg = 0;

		for (int r = 1; r <= 5; r++) {
			char name[128];
			cJSON *rep;
			const cJSON *smp, *it;
			double v[600];
			int k = 0;

			snprintf(name, sizeof(name), "%s/cellFew/round-%d.json", dir, r);
			rep = il_test_json_load(name);
			smp = il_json_get(rep, "samples_us.processing");
			cJSON_ArrayForEach (it, smp)
				v[k++] = it->valuedouble;
			qsort(v, (size_t)k, sizeof(v[0]), cmp_double);
			/* ceil(0.5 x 600) = 300, among the 570. */
			lg += log(v[299]);
			cJSON_Delete(rep);
		}
		assert_float_equal(want, exp(lg / 5), 1e-6 * want);
	}
}

static void test_compare_json_for_the_sweep(void **state)
{
	char pa[128], pb[128], pc[128], pj[128], err[256];
	char *argv[] = {"compare", "--json", pj, "--seed", "7", pa, pb, pc, NULL};
	cJSON *root, *cmp, *c;
	int found = 0;

	(void)state;
	path_of(pa, sizeof(pa), "cellA");
	path_of(pb, sizeof(pb), "cellB");
	path_of(pc, sizeof(pc), "cellC");
	path_of(pj, sizeof(pj), "cmp.json");
	assert_int_equal(run_compare_argv(8, argv), 0);
	assert_int_equal(il_json_load(pj, &root, err, sizeof(err)), 0);
	assert_non_null(il_json_get(root, "kernel.release"));
	assert_int_equal((int)il_json_num(root, "seed"), 7);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(root, "unit")), "round");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "groups")), 3);
	cmp = cJSON_GetObjectItem(root, "comparisons");
	assert_int_equal(cJSON_GetArraySize(cmp), 2 * 8);
	cJSON_ArrayForEach (c, cmp) {
		const char *stat = cJSON_GetStringValue(cJSON_GetObjectItem(c, "stat"));
		const char *lat = cJSON_GetStringValue(cJSON_GetObjectItem(c, "latency"));
		int group = (int)il_json_num(c, "group");

		if (strcmp(stat, "p50") || strcmp(lat, "processing"))
			continue;
		found++;
		assert_int_equal((int)il_json_num(c, "seed"), 7);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(c, "a_rounds")), 5);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict")),
				    group == 1 ? "lower" : "no clear difference");
		assert_true(il_json_num(c, "lo") <= il_json_num(c, "ratio"));
		assert_true(il_json_num(c, "ratio") <= il_json_num(c, "hi"));
		assert_float_equal(il_json_num(c, "ratio"),
				   il_json_num(c, "b") / il_json_num(c, "a"), 1e-9);
	}
	assert_int_equal(found, 2);
	cJSON_Delete(root);

	/* --json - prints the JSON alone on stdout. */
	argv[2] = "-";
	assert_int_equal(run_compare_argv(8, argv), 0);
	root = cJSON_Parse(out_text);
	assert_non_null(root);
	cJSON_Delete(root);

	/* A seed past 2^53 reads back as itself, as run's: a string. As a
	 * number it was 1.2345678901234568e+17, which --seed refused. */
	argv[4] = "123456789012345678";
	assert_int_equal(run_compare_argv(8, argv), 0);
	root = cJSON_Parse(out_text);
	assert_non_null(root);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(root, "seed")),
			    "123456789012345678");
	assert_string_equal(
	    cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(root, "comparisons"), 0), "seed")),
	    "123456789012345678");
	cJSON_Delete(root);
	argv[4] = "7";

	/* A group's path that is not UTF-8 (a byte 0xff in a directory's name)
	 * still gives valid JSON on stdout, the byte as U+FFFD, as in a file. */
	{
		char bad[128];

		path_of(bad, sizeof(bad), "cell\xff");
		assert_int_equal(rename(pb, bad), 0);
		argv[6] = bad;
		assert_int_equal(run_compare_argv(8, argv), 0);
		assert_int_equal(rename(bad, pb), 0);
		argv[6] = pb;
		assert_null(strchr(out_text, '\xff'));
		assert_non_null(strstr(out_text, "cell\xef\xbf\xbd"));
		root = cJSON_Parse(out_text);
		assert_non_null(root);
		cJSON_Delete(root);
	}
}

static void test_compare_errors_one_line(void **state)
{
	char *one[] = {"compare", "only-one.json", NULL};
	char *bad[] = {"compare", "--resamples", "0", "a", "b", NULL};

	(void)state;
	assert_int_equal(run_compare("a.json", "missing.json"), 2);
	assert_non_null(strstr(err_text, "missing.json: No such file or directory"));
	assert_int_equal(count_lines(err_text), 1);

	assert_int_equal(run_compare("broken.json", "a.json"), 2);
	assert_non_null(strstr(err_text, "broken.json: not JSON"));
	assert_int_equal(count_lines(err_text), 1);

	assert_int_equal(run_compare("a.json", "nokey.json"), 2);
	assert_non_null(strstr(err_text, "nokey.json: missing key events.completed"));
	assert_int_equal(count_lines(err_text), 1);

	assert_int_equal(run_compare_argv(2, one), 2);
	assert_non_null(strstr(err_text, "expected 2 to 16 groups of reports, got 1"));
	assert_int_equal(count_lines(err_text), 1);
	assert_int_equal(run_compare_argv(5, bad), 2);
	assert_non_null(strstr(err_text, "--resamples '0'"));
	assert_int_equal(count_lines(err_text), 1);
	/* Too few resamples for the interval's level: one point was printed
	 * as a "95% interval" (it missed the estimate). */
	{
		char pa[256], pb[256];
		char *few[] = {"compare", "--resamples", "39", pa, pb, NULL};

		path_of(pa, sizeof(pa), "a.json");
		path_of(pb, sizeof(pb), "a12.json");
		assert_int_equal(run_compare_argv(5, few), 2);
		assert_non_null(strstr(err_text,
				       "39 resamples cannot give a 95% interval: it takes "
				       "at least 40"));
		assert_int_equal(count_lines(err_text), 1);
	}
}

/*
 * a.json as il_json_write printed it, with the first `from` replaced by
 * `to`, written as name: compare must refuse it in one line saying `says`.
 */
static void refused_variant(const char *name, const char *from, const char *to, const char *says)
{
	char src[128], *text, *compact, *w, *at, *out;

	path_of(src, sizeof(src), "a.json");
	text = il_file_read(src, 1 << 24, NULL);
	assert_non_null(text);
	compact = strdup(text);
	w = compact;
	for (const char *r = text; *r; r++)
		if (*r != '\n' && *r != '\t')
			*w++ = *r;
	*w = '\0';
	at = strstr(compact, from);
	assert_non_null(at);
	out = malloc(strlen(compact) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - compact), compact, to, at + strlen(from));
	write_text(name, out);
	free(out);
	free(compact);
	free(text);
	assert_int_equal(run_compare("a.json", name), 2);
	if (!strstr(err_text, says))
		fail_msg("%s: stderr lacks '%s': %s", name, says, err_text);
	assert_int_equal(count_lines(err_text), 1);
}

/* A value no run can write (huge, infinite, negative) is refused, named, never dropped. */
static void test_compare_impossible_values_refused(void **state)
{
	static const struct {
		const char *name, *from, *to, *says;
	} cases[] = {
	    {"huge-sample.json", "\"processing\":[", "\"processing\":[1e308,",
	     "samples_us.processing[0] = 1e+308 is not a latency"},
	    {"inf-sample.json", "\"processing\":[", "\"processing\":[1e400,",
	     "samples_us.processing[0] = inf is not a latency"},
	    {"neg-p50.json", "\"p50\":", "\"p50\":-5,\"was_p50\":",
	     "latency_us.processing.p50 = -5 is not a latency"},
	    /* A hop's figures too: a p50 of 1e30 us was printed, 31 digits. */
	    {"huge-hop.json", "\"p50_us\":", "\"p50_us\":1e30,\"was_p50_us\":",
	     "hops[0].p50_us is not a latency (0 to 3600000000 us) or null"},
	    {"neg-count.json", "\"timed_out\":", "\"late\":-5,\"timed_out\":",
	     "events.late is not a count of events"},
	    /* One run's figures hang together: a p50 below the min is not. */
	    {"p50-below-min.json", "\"p50\":", "\"p50\":1,\"was_p50\":",
	     "latency_us.processing: p50 1 us below its min "},
	    /* Another version's keys mean other things: not misread. */
	    {"version2.json", "\"file_version\":1", "\"file_version\":2",
	     "file_version 2: not a version this inputlat reads (it reads 1)"},
	    {"version-text.json", "\"file_version\":1", "\"file_version\":\"1\"",
	     "file_version is not a version number"},
	    {"version-none.json", "\"file_version\":1,", "",
	     "no file_version (is it an inputlat run --json report?)"},
	    /* Per-event samples that are not numbers were skipped silently. */
	    {"string-sample.json", "\"processing\":[", "\"processing\":[\"a\",null,",
	     "samples_us.processing is not a list of latencies"},
	    {"text-samples.json", "\"presentation\":[", "\"presentation\":\"abc\",\"was\":[",
	     "samples_us.presentation is not a list of latencies"},
	    {"error-object.json", "\"file_version\":1,", "\"file_version\":1,\"error\":{\"a\":1},",
	     "its error is not a message"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		refused_variant(cases[i].name, cases[i].from, cases[i].to, cases[i].says);
}

/*
 * Copies of one run's report (cp r1 r2 ...) are one round, not four: a
 * "lower" came out of one run against one run, which compare otherwise
 * refuses. The copies share the seed, start_time and milestones_ns.enter;
 * two runs started in one second with one --seed do not share enter.
 */
static void test_compare_copied_run_refused(void **state)
{
	char src[128], dst[128], err[256];
	cJSON *root;

	(void)state;
	make_cell("copies");
	path_of(src, sizeof(src), "a.json");
	assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
	cJSON_AddNumberToObject(root, "seed", 42);
	cJSON_AddStringToObject(root, "start_time", "2026-12-07T06:00:00Z");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(root, "milestones_ns"), "enter", 1e12);
	for (int r = 1; r <= 4; r++) {
		char name[64];

		snprintf(name, sizeof(name), "copies/round-%d.json", r);
		path_of(dst, sizeof(dst), name);
		/* Rounds 3 and 4: another start, as a second run with --seed 42. */
		if (r >= 3)
			cJSON_SetNumberValue(
			    cJSON_GetObjectItem(cJSON_GetObjectItem(root, "milestones_ns"),
						"enter"),
			    r * 1e12);
		assert_int_equal(il_json_write(dst, root), 0);
	}
	cJSON_Delete(root);
	assert_int_equal(run_compare("copies", "cellB"), 2);
	assert_non_null(strstr(err_text, "round-2.json: the same run as "));
	assert_non_null(strstr(err_text, "round-1.json (its seed, start_time and start), twice in "
					 "group "));
	assert_non_null(strstr(err_text, " (a round counts once)\n"));
	assert_int_equal(count_lines(err_text), 1);
	/* Without the copy: three runs, one --seed, one second, taken. */
	path_of(dst, sizeof(dst), "copies/round-2.json");
	assert_int_equal(unlink(dst), 0);
	assert_int_equal(run_compare("copies", "cellB"), 0);
}

/*
 * --metric over rounds: a round whose value a ratio cannot hold (0) or
 * that has none is said, never dropped. A had 12 rounds at 0 and 4 at 2.0,
 * B 16 at 1.0: the ratio over the 4 left said "lower" (B/A 0.5) though B
 * was above A in 12 of 16 rounds. diff: takes them all.
 */
static void test_compare_metric_rounds_not_dropped(void **state)
{
	char src[128], err[256];

	(void)state;
	make_cell("metA");
	make_cell("metB");
	for (int r = 0; r < 16; r++) {
		for (int side = 0; side < 2; side++) {
			char name[64];
			cJSON *root;

			snprintf(name, sizeof(name), "%s/round-%d.json", side ? "metB" : "metA", r);
			write_report(name, "cfs", 1700, 1.0, 300 + (uint64_t)r, 100);
			path_of(src, sizeof(src), name);
			assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
			cJSON_AddNumberToObject(cJSON_AddObjectToObject(root, "hog"),
						"idle_waste_pct",
						side	 ? 1.0
						: r < 12 ? 0.0
							 : 2.0);
			assert_int_equal(il_json_write(src, root), 0);
			cJSON_Delete(root);
		}
	}
	{
		char pa[128], pb[128], m[] = "ratio:hog.idle_waste_pct";
		char *argv[] = {"compare", "--metric", m, pa, pb, NULL};

		path_of(pa, sizeof(pa), "metA");
		path_of(pb, sizeof(pb), "metB");
		assert_int_equal(run_compare_argv(5, argv), 0);
		assert_non_null(strstr(out_text,
				       "not enough data: 12 of A's 16 rounds have "
				       "hog.idle_waste_pct at 0 or below, which a ratio "
				       "cannot hold (compare them with diff:hog.idle_waste_pct)"));
		assert_null(strstr(out_text, " lower"));
		strcpy(m, "diff:hog.idle_waste_pct");
		assert_int_equal(run_compare_argv(5, argv), 0);
		/* All 32 rounds: B-A = 1.0 - 0.5 = 0.5 in the means. */
		assert_non_null(strstr(out_text, "(16 vs 16)"));
		assert_null(strstr(out_text, "not enough data"));
	}
}

/*
 * A --metric KEY that is missing or holds no number is a mistake, not
 * "not enough data": ratio:policy (a string), ratio:latency_us (an
 * object) and a misspelt key exited 0 with "4 of A's 4 rounds have no
 * number at KEY". One line, exit 2; a null (hog: null, no hog) is still
 * a round without the figure.
 */
static void test_compare_metric_key_not_a_number(void **state)
{
	static const struct {
		const char *metric, *says;
	} cases[] = {
	    {"ratio:policy", "has a string at policy, not a number"},
	    {"ratio:latency_us", "has an object at latency_us, not a number"},
	    {"ratio:events.compleetd", "has no key events.compleetd"},
	    {"diff:hog.idle_waste_pct", NULL},
	};
	char pa[128], pb[128], m[64];
	char *argv[] = {"compare", "--metric", m, pa, pb, NULL};

	(void)state;
	make_cell("keyA");
	make_cell("keyB");
	for (int r = 0; r < 4; r++)
		for (int side = 0; side < 2; side++) {
			char name[64];

			char src[128], err[256];
			cJSON *root;

			snprintf(name, sizeof(name), "%s/round-%d.json", side ? "keyB" : "keyA", r);
			write_report(name, "cfs", 1700, 1.0, 300 + (uint64_t)r, 100);
			/* No hog in that run. */
			path_of(src, sizeof(src), name);
			assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
			cJSON_AddNullToObject(root, "hog");
			assert_int_equal(il_json_write(src, root), 0);
			cJSON_Delete(root);
		}
	path_of(pa, sizeof(pa), "keyA");
	path_of(pb, sizeof(pb), "keyB");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		snprintf(m, sizeof(m), "%s", cases[i].metric);
		rc = run_compare_argv(5, argv);
		if (!cases[i].says) {
			assert_int_equal(rc, 0);
			assert_non_null(strstr(out_text, "not enough data: 4 of A's 4 rounds have "
							 "no number at hog.idle_waste_pct"));
			continue;
		}
		il_test_assert_one_line_exit(rc, out_text, err_text, 2,
					     "compare: --metric: ", cases[i].says);
	}
}

/*
 * Reports each within il_json_load's bounds, more of them than memory
 * holds: 40 rounds of 31 MiB (a long string each) were all held at once,
 * as many as the user handed in. compare refuses the one that takes what
 * it holds past its bound (1 GiB, IL_COMPARE_MAX_MIB here 16), in one
 * line naming it, having held no more.
 */
static void test_compare_held_bound(void **state)
{
	char src[128], dst[128], err[256], *note;
	size_t note_len = 3u << 20, peak;
	cJSON *root;
	int rc;

	(void)state;
	make_cell("heavy");
	path_of(src, sizeof(src), "a.json");
	assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
	note = malloc(note_len + 1);
	assert_non_null(note);
	memset(note, 'x', note_len);
	note[note_len] = '\0';
	cJSON_AddStringToObject(root, "note", note);
	free(note);
	for (int r = 1; r <= 8; r++) {
		char name[64];

		snprintf(name, sizeof(name), "heavy/round-%02d.json", r);
		path_of(dst, sizeof(dst), name);
		assert_int_equal(il_json_write(dst, root), 0);
	}
	cJSON_Delete(root);
	/* The bound the default's 1 GiB stands for, at a size a test can write. */
	setenv("IL_COMPARE_MAX_MIB", "16", 1);
	il_test_json_count_begin();
	rc = run_compare("heavy", "cellB");
	peak = il_test_json_count_end();
	print_message("8 reports of 3 MiB under 16 MiB: exit %d, cJSON held %zu MiB at most\n", rc,
		      peak >> 20);
	il_test_assert_one_line_exit(rc, out_text, err_text, 2, ".json: 3 MiB parsed, ",
				     "more than the 16 MiB compare holds at once");
	/* What it held, and the report it was parsing when it refused. */
	assert_true(peak <= (16u << 20) + (4u << 20));
	/* Within the bound the same reports compare. */
	setenv("IL_COMPARE_MAX_MIB", "64", 1);
	rc = run_compare("heavy", "cellB");
	assert_int_equal(rc, 0);
	setenv("IL_COMPARE_MAX_MIB", "0", 1);
	rc = run_compare("heavy", "cellB");
	il_test_assert_one_line_exit(rc, out_text, err_text, 2, "IL_COMPARE_MAX_MIB '0'",
				     "expected 1..1048576");
	unsetenv("IL_COMPARE_MAX_MIB");
	for (int r = 1; r <= 8; r++) {
		char name[64];

		snprintf(name, sizeof(name), "heavy/round-%02d.json", r);
		path_of(dst, sizeof(dst), name);
		unlink(dst);
	}
}

/* a.json with its policy and error set (NULL: none), as name. */
static void write_variant(const char *name, const char *policy, const char *error)
{
	char src[128], dst[128], err[256];
	cJSON *root;

	path_of(src, sizeof(src), "a.json");
	path_of(dst, sizeof(dst), name);
	assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
	cJSON_ReplaceItemInObject(root, "policy", cJSON_CreateString(policy));
	if (error)
		cJSON_AddStringToObject(root, "error", error);
	assert_int_equal(il_json_write(dst, root), 0);
	cJSON_Delete(root);
}

/*
 * A failed run's report (it says why under `error`) is what was left when
 * a child died or hung, not a measurement: refused with the reason, in one
 * line, never counted as a round. A report's strings reach the terminal
 * without their control characters.
 */
static void test_compare_failed_run_refused(void **state)
{
	(void)state;
	write_variant("failed.json", "cfs", "render-sim exited (signal 9)\x1b[2J");
	assert_int_equal(run_compare("a.json", "failed.json"), 2);
	if (!strstr(err_text, "failed.json: that run failed (render-sim exited (signal 9)?[2J): "
			      "its figures are not a measurement"))
		fail_msg("want the failed run refused, got: %s", err_text);
	assert_int_equal(count_lines(err_text), 1);
	assert_string_equal(out_text, "");

	write_variant("hostile.json", "rt\x1b]0;owned\x07", NULL);
	assert_int_equal(run_compare("a.json", "hostile.json"), 0);
	assert_non_null(strstr(out_text, "policy rt?]0;owned?, work loops)"));
	assert_null(strchr(out_text, '\x1b'));
}

/* a.json with work_model set to `model`, as name. */
static void write_model_variant(const char *name, const char *model)
{
	char src[128], dst[128], err[256];
	cJSON *root;

	path_of(src, sizeof(src), "a.json");
	path_of(dst, sizeof(dst), name);
	assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
	cJSON_AddStringToObject(root, "work_model", model);
	assert_int_equal(il_json_write(dst, root), 0);
	cJSON_Delete(root);
}

/*
 * Runs of different work models (--work-model) are compared as asked, with
 * one warning naming each side's model; a report without work_model ran
 * the loops model (the only one before it was written); a value that is
 * no model's is "?", never echoed.
 */
static void test_compare_work_models_differ(void **state)
{
	(void)state;
	write_model_variant("cpu1.json", "cpu-time");
	write_model_variant("cpu2.json", "cpu-time");
	write_model_variant("bad-model.json", "\x1b[2Jloops");
	assert_int_equal(run_compare("cpu1.json", "cpu2.json"), 0);
	assert_string_equal(err_text, "");
	assert_non_null(strstr(out_text, "work cpu-time)"));

	assert_int_equal(run_compare("a.json", "cpu1.json"), 0);
	assert_int_equal(count_lines(err_text), 1);
	if (!strstr(err_text, "compare: warning: the runs' work models differ (") ||
	    !strstr(err_text, "a.json loops, ") || !strstr(err_text, "cpu1.json cpu-time)"))
		fail_msg("want the models named, got: %s", err_text);
	assert_non_null(strstr(out_text, "policy cfs, work loops)"));

	assert_int_equal(run_compare("cpu1.json,a.json", "cpu2.json"), 0);
	assert_non_null(strstr(err_text, "mixed"));

	assert_int_equal(run_compare("bad-model.json", "cpu1.json"), 0);
	assert_non_null(strstr(out_text, "work ?)"));
	assert_null(strchr(err_text, '\x1b'));
}

/* Copies report `from` to `to` with its number at dotted `key` set to v
 * (a string when s is not NULL), creating the objects on the way. */
static void write_edited(const char *from, const char *to, const char *key, double v, const char *s)
{
	char src[128], dst[128], err[256], obj[64];
	cJSON *root, *o;
	const char *dot;

	path_of(src, sizeof(src), from);
	path_of(dst, sizeof(dst), to);
	assert_int_equal(il_json_load(src, &root, err, sizeof(err)), 0);
	o = root;
	for (const char *k = key; (dot = strchr(k, '.')); k = dot + 1) {
		cJSON *next;

		snprintf(obj, sizeof(obj), "%.*s", (int)(dot - k), k);
		next = cJSON_GetObjectItem(o, obj);
		o = next ? next : cJSON_AddObjectToObject(o, obj);
	}
	key = strrchr(key, '.') ? strrchr(key, '.') + 1 : key;
	cJSON_DeleteItemFromObject(o, key);
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
	assert_int_equal(il_json_write(dst, root), 0);
	cJSON_Delete(root);
}

/*
 * One report, or one run, on both sides: refused in one line. "compare
 * g/A g/A" gave "no clear difference" with an interval, a verdict on
 * nothing; within a group the same was already refused.
 */
static void test_compare_group_against_itself(void **state)
{
	(void)state;
	assert_int_equal(run_compare("a.json", "a.json"), 2);
	il_test_assert_one_line_exit(2, out_text, err_text, 2, "a.json: the same report as ",
				     "a.json, in groups ");
	assert_non_null(strstr(err_text, "(a run compared with itself says nothing"));

	assert_int_equal(run_compare("cellA", "cellA"), 2);
	assert_non_null(strstr(err_text, "cellA/round-1.json: the same report as "));
	assert_int_equal(count_lines(err_text), 1);

	/* One round shared: B is not another set of runs either. */
	assert_int_equal(run_compare("cellA", "cellC/round-1.json,cellC/round-2.json,cellC/"
					      "round-3.json,cellA/round-4.json"),
			 2);
	assert_non_null(strstr(err_text, "cellA/round-4.json: the same report as "));

	/* A copy of a run (its seed, start time and start) is that run. */
	write_edited("a.json", "seeded.json", "seed", 7, NULL);
	write_edited("seeded.json", "seeded.json", "start_time", 0, "2026-12-07T06:00:00Z");
	write_edited("seeded.json", "seeded-copy.json", "seed", 7, NULL);
	assert_int_equal(run_compare("seeded.json", "seeded-copy.json"), 2);
	assert_non_null(strstr(err_text, "seeded-copy.json: the same run as "));
	assert_int_equal(count_lines(err_text), 1);
}

/* Rounds 1-5 of cell `from` written into cell `to`, as runs of this
 * machine (CPUs, kernel, CPU model) and load, 600 events each. */
static void place_rounds(const char *from, const char *to, int cpus, const char *release,
			 const char *model, int load)
{
	for (int r = 1; r <= 5; r++) {
		char f[64], t[64];

		snprintf(f, sizeof(f), "%s/round-%d.json", from, r);
		snprintf(t, sizeof(t), "%s/round-%d.json", to, r);
		write_edited(f, t, "kernel.nr_cpus", cpus, NULL);
		write_edited(t, t, "kernel.release", 0, release);
		write_edited(t, t, "system.cpu_model", 0, model);
		write_edited(t, t, "scenario.load_threads", load, NULL);
		write_edited(t, t, "scenario.events", 600, NULL);
	}
}

/*
 * A group's reports of another machine or scenario (kernel, CPU count,
 * CPU model, load, hog, events, interval) are compared as asked, with one
 * warning naming the fields that differ, and "warnings" in the JSON: B
 * with 32 CPUs, kernel 4.19 and no load gave "lower" without a word, and
 * `-m ratio:kernel.nr_cpus` "higher" with none.
 */
static void test_compare_other_machine_warns(void **state)
{
	char pa[256], pb[256];
	char *argv[] = {"compare", "--json", "-", pa, pb, NULL};
	cJSON *root;

	(void)state;
	make_cell("elsewhere");
	place_rounds("cellB", "elsewhere", 32, "4.19.0", "Other CPU", 0);
	/* cellA's rounds carry no machine or scenario: nothing to judge. */
	assert_int_equal(run_compare("cellA", "elsewhere"), 0);
	assert_string_equal(err_text, "");
	place_rounds("cellA", "cellA", 2, "6.18.44", "AMD EPYC", 4);
	assert_int_equal(run_compare("cellA", "elsewhere"), 0);
	assert_int_equal(count_lines(err_text), 1);
	if (!strstr(err_text, "compare: warning: ") || !strstr(err_text, "cellA and ") ||
	    !strstr(err_text,
		    "elsewhere are not runs of one machine and scenario (kernel.release "
		    "6.18.44 vs 4.19.0, kernel.nr_cpus 2 vs 32, system.cpu_model AMD EPYC "
		    "vs Other CPU, scenario.load_threads 4 vs 0): "))
		fail_msg("want the fields that differ named, got: %s", err_text);
	/* The verdict is still given: the comparison may be the question. */
	assert_string_equal(verdict_of("processing p50 (us)"), "lower");

	in_dir(pa, sizeof(pa), "cellA");
	in_dir(pb, sizeof(pb), "elsewhere");
	assert_int_equal(run_compare_argv(5, argv), 0);
	root = cJSON_Parse(out_text);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "warnings")), 1);
	assert_non_null(strstr(
	    cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "warnings"), 0)),
	    "kernel.nr_cpus 2 vs 32"));
	cJSON_Delete(root);

	/* Alike: no warning, and an empty list in the JSON. */
	in_dir(pb, sizeof(pb), "cellA/round-1.json,cellA/round-2.json");
	in_dir(pa, sizeof(pa), "cellA/round-3.json,cellA/round-4.json");
	assert_int_equal(run_compare_argv(5, argv), 0);
	assert_string_equal(err_text, "");
	root = cJSON_Parse(out_text);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "warnings")), 0);
	cJSON_Delete(root);

	/* Within a group too: its rounds then vary by more than chance. */
	assert_int_equal(run_compare("cellA/round-1.json,elsewhere/round-2.json",
				     "cellA/round-3.json,cellA/round-4.json"),
			 2); /* policies rt and cfs in one group: refused */
	assert_non_null(strstr(err_text, "a group's rounds are runs of one policy"));
	write_edited("cellA/round-5.json", "cellA-far.json", "kernel.nr_cpus", 64, NULL);
	assert_int_equal(run_compare("cellA/round-1.json,cellA-far.json",
				     "cellA/round-3.json,cellA/round-4.json"),
			 0);
	assert_int_equal(count_lines(err_text), 1);
	assert_non_null(strstr(err_text, "are not of one machine and scenario: "));
	assert_non_null(strstr(err_text, "cellA-far.json against "));
	assert_non_null(strstr(err_text, ": kernel.nr_cpus 2 vs 64\n"));
}

/*
 * Runs beside a --background load (scenario.background) are another
 * scenario than runs without, as load_threads of another count are:
 * compare said nothing of it, and reproduce took a recorded run beside
 * stress-ng as a run of its place.
 */
static void test_compare_other_background_warns(void **state)
{
	struct il_comparable_place want = {NULL, -1, -1, -1, -1, NULL, ""};
	char diff[256], err[256], p[128];
	cJSON *r;

	(void)state;
	make_cell("loaded");
	place_rounds("cellB", "loaded", 2, "6.18.44", "AMD EPYC", 4);
	place_rounds("cellA", "cellA", 2, "6.18.44", "AMD EPYC", 4);
	for (int i = 1; i <= 5; i++) {
		char f[64];

		snprintf(f, sizeof(f), "cellA/round-%d.json", i);
		write_edited(f, f, "scenario.background", NAN, NULL);
		snprintf(f, sizeof(f), "loaded/round-%d.json", i);
		write_edited(f, f, "scenario.background", 0, "stress-ng --cpu 2");
	}
	assert_int_equal(run_compare("cellA", "loaded"), 0);
	assert_int_equal(count_lines(err_text), 1);
	if (!strstr(err_text, "loaded are not runs of one machine and scenario "
			      "(scenario.background null vs stress-ng --cpu 2): "))
		fail_msg("want the background named, got: %s", err_text);

	/* A place: none wanted, the report ran stress-ng; and the other way. */
	path_of(p, sizeof(p), "loaded/round-1.json");
	assert_int_equal(il_json_load(p, &r, err, sizeof(err)), 0);
	assert_int_equal(il_comparable_place_diff(r, &want, diff, sizeof(diff)), 1);
	assert_string_equal(diff, "scenario.background stress-ng --cpu 2, its place's null");
	want.background = "stress-ng --cpu 2";
	assert_int_equal(il_comparable_place_diff(r, &want, diff, sizeof(diff)), 0);
	cJSON_Delete(r);
	path_of(p, sizeof(p), "cellA/round-1.json");
	assert_int_equal(il_json_load(p, &r, err, sizeof(err)), 0);
	assert_int_equal(il_comparable_place_diff(r, &want, diff, sizeof(diff)), 1);
	assert_string_equal(diff, "scenario.background null, its place's stress-ng --cpu 2");
	want.background = NULL;
	assert_int_equal(il_comparable_place_diff(r, &want, diff, sizeof(diff)), 0);
	cJSON_Delete(r);
}

/* Two reports that are one file: a round counts once (four names of one
 * 30-event run gave a permutation test and verdicts). */
static void test_compare_same_report_twice_in_a_group(void **state)
{
	char a[300], link[300], *argv[] = {"compare", a, link, NULL};

	(void)state;
	in_dir(a, sizeof(a), "a.json,a12.json,a.json");
	in_dir(link, sizeof(link), "a12.json");
	assert_int_equal(run_compare_argv(3, argv), 2);
	assert_non_null(strstr(err_text, "a.json: the same report as "));
	assert_non_null(strstr(err_text, "twice in group"));
	assert_int_equal(count_lines(err_text), 1);
	/* A symlink is the same report too. */
	path_of(link, sizeof(link), "a-link.json");
	unlink(link);
	path_of(a, sizeof(a), "a.json");
	assert_int_equal(symlink(a, link), 0);
	in_dir(a, sizeof(a), "a.json,a-link.json");
	in_dir(link, sizeof(link), "a12.json");
	assert_int_equal(run_compare_argv(3, argv), 2);
	assert_non_null(strstr(err_text, "a-link.json: the same report as "));
	/* A name left out of a list. */
	in_dir(a, sizeof(a), "a.json");
	strcat(a, ",");
	assert_int_equal(run_compare_argv(3, argv), 2);
	assert_non_null(strstr(err_text, "an empty name in the list"));
	assert_int_equal(count_lines(err_text), 1);
}

/* --json is checked before any work and never overwrites a report compared. */
static void test_compare_json_never_an_input(void **state)
{
	char x[300], a[300], *argv[] = {"compare", "-j", x, x, a, NULL}, *before, *after;

	(void)state;
	write_variant("x.json", "cfs", NULL);
	path_of(x, sizeof(x), "x.json");
	path_of(a, sizeof(a), "a.json");
	before = il_file_read(x, 1 << 24, NULL);
	assert_int_equal(run_compare_argv(5, argv), 2);
	assert_non_null(strstr(err_text, "refusing to overwrite an input"));
	assert_int_equal(count_lines(err_text), 1);
	assert_string_equal(out_text, "");
	after = il_file_read(x, 1 << 24, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	path_of(x, sizeof(x), "no-such-dir/c.json");
	assert_int_equal(run_compare_argv(5, argv), 2);
	assert_non_null(strstr(err_text, "no-such-dir"));
	assert_string_equal(out_text, "");
}

/* Counts no run writes, and text that is not one JSON value. */
static void test_compare_impossible_counts_refused(void **state)
{
	static const struct {
		const char *name, *from, *to, *says;
	} cases[] = {
	    {"neg-sent.json",
	     "\"sent\":", "\"sent\":-1e308,\"was\":", "events.sent is not a count"},
	    {"big-completed.json", "\"completed\":", "\"completed\":18446744073709551616,\"was\":",
	     "events.completed is not a count"},
	    {"half.json",
	     "\"timed_out\":", "\"timed_out\":0.5,\"was\":", "events.timed_out is not a count"},
	    {"over.json", "\"timed_out\":", "\"timed_out\":999999,\"was\":", "exceed events.sent"},
	    /* A key twice has no one meaning (Python's json would read the last). */
	    {"dup-sent.json", "\"sent\":", "\"sent\":1,\"sent\":",
	     "not JSON we can read (key \"sent\" appears twice in one object)"},
	    {"dup-newline.json", "\"sent\":", "\"a\\nb\":1,\"a\\nb\":2,\"sent\":",
	     "(key \"a?b\" appears twice in one object)"},
	    /* A key of the report is said as ps would: one line, no escape. */
	    {"newline-key.json", "\"timed_out\":", "\"late\\n\\u001b[2J\":-5,\"timed_out\":",
	     "events.late??[2J is not a count of events"},
	};
	char src[128], *text;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		refused_variant(cases[i].name, cases[i].from, cases[i].to, cases[i].says);
	/* More samples than a run keeps (a.json's 2000 and these): ten million
	 * of them a side kept one run each resampling for minutes, in gigabytes. */
	{
		size_t n = IL_REPORT_MAX_SAMPLES + 1;
		char *many = malloc(2 * n + 32), *w = many;

		w += sprintf(w, "\"processing\":[");
		for (size_t i = 0; i < n; i++)
			w += sprintf(w, "7,");
		refused_variant("many-samples.json", "\"processing\":[", many,
				"samples_us.processing has 102001 samples, more than the 100000 a "
				"run keeps");
		free(many);
	}
	path_of(src, sizeof(src), "a.json");
	text = il_file_read(src, 1 << 24, NULL);
	assert_non_null(text);
	/* Two reports in one file, and one with text after it. */
	{
		size_t n = strlen(text);
		char *two = malloc(2 * n + 8);

		sprintf(two, "%s%s", text, text);
		write_text("two.json", two);
		sprintf(two, "%s xx", text);
		write_text("trailing.json", two);
		free(two);
	}
	assert_int_equal(run_compare("a.json", "two.json"), 2);
	assert_non_null(strstr(err_text, "two.json: not JSON (more text after the value"));
	assert_int_equal(run_compare("a.json", "trailing.json"), 2);
	assert_non_null(strstr(err_text, "trailing.json: not JSON (more text after the value"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compare_same_run_twice),
	    cmocka_unit_test(test_compare_copied_run_refused),
	    cmocka_unit_test(test_compare_held_bound),
	    cmocka_unit_test(test_compare_metric_rounds_not_dropped),
	    cmocka_unit_test(test_compare_metric_key_not_a_number),
	    cmocka_unit_test(test_compare_scaled_run_higher),
	    cmocka_unit_test(test_compare_short_run_not_enough_for_p99),
	    cmocka_unit_test(test_compare_rounds),
	    cmocka_unit_test(test_compare_lost_events),
	    cmocka_unit_test(test_compare_below_resolution),
	    cmocka_unit_test(test_compare_json_for_the_sweep),
	    cmocka_unit_test(test_compare_errors_one_line),
	    cmocka_unit_test(test_compare_impossible_values_refused),
	    cmocka_unit_test(test_compare_failed_run_refused),
	    cmocka_unit_test(test_compare_same_report_twice_in_a_group),
	    cmocka_unit_test(test_compare_json_never_an_input),
	    cmocka_unit_test(test_compare_impossible_counts_refused),
	    cmocka_unit_test(test_compare_work_models_differ),
	    cmocka_unit_test(test_compare_group_against_itself),
	    cmocka_unit_test(test_compare_other_machine_warns),
	    cmocka_unit_test(test_compare_other_background_warns),
	};

	if (il_test_filters("test_compare", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
