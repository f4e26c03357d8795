/*
 * `inputlat compare A B [C ...]`: groups of run reports side by side, each
 * later group against the first, with a verdict per statistic from the
 * statistics engine (common/il_stats.h).
 *
 * A group is one report, a directory of reports (every *.json in it is a
 * round, as scripts/policy-sweep lays out a cell), or a comma-separated
 * list of reports. With several rounds a group, each statistic is
 * compared over the rounds (permutation test); with one run each, over
 * blocks of consecutive events of the two runs (blocked bootstrap), which
 * says nothing about run-to-run variation and is flagged as such.
 */
#include "il_cmd.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "il_comparable.h"
#include "il_file.h"
#include "il_round_latency.h"
#include "il_header.h"
#include "il_hist.h"
#include "il_parse.h"
#include "il_report_sane.h"
#include "il_printable.h"
#include "il_stats.h"
#include "il_work.h"

#define FILE_VERSION  1
#define MAX_GROUPS    16
#define MAX_ROUNDS    IL_STATS_MAX_ROUNDS /* a group's reports */
#define REQUIRED_NOTE "(is it an inputlat run --json report?)"
/*
 * The parsed reports compare holds at once, in bytes of cJSON nodes and
 * their strings. A 100,000-event run's report is a tree of about 13 MiB
 * here (its attribution dropped), a 100-event run's about 0.3 MiB: 1 GiB
 * holds 16 groups of 63 of these, or about 75 of the largest. Without it,
 * reports of many small values (each under il_json_load's bound) held as
 * much as the user handed in, until the OOM killer ended it.
 */
#define MAX_HELD_MIB 1024u

/* What every group's loading shares: the bytes held so far, the most it
 * may hold, and whether a --metric reads a key under attribution (else
 * it is dropped). */
struct held {
	size_t bytes, max_bytes;
	bool attribution;
};

/*
 * The bound in MiB: IL_COMPARE_MAX_MIB where set (a machine with the
 * memory for more, or a test that needs the refusal without writing a
 * GiB), else MAX_HELD_MIB. Returns 0, or -1 after one line on stderr.
 */
static int held_max_bytes(size_t *out)
{
	char err[256];

	if (il_json_held_max("IL_COMPARE_MAX_MIB", MAX_HELD_MIB, out, err, sizeof(err)) < 0) {
		fprintf(stderr, "compare: %s\n", err);
		return -1;
	}
	return 0;
}

struct group {
	const char *label; /* as given */
	char *paths[MAX_ROUNDS];
	cJSON *reports[MAX_ROUNDS];
	dev_t dev[MAX_ROUNDS]; /* which file each report is: a round counts once */
	ino_t ino[MAX_ROUNDS];
	size_t n;
	char policy[128];
	char work_model[16]; /* the reports' work_model, or "mixed" */
	struct held *held;
};

/*
 * What is compared: latency_us.<latency>.<stat>, quantile q (or the mean),
 * or with --metric any number in the reports (`key`) on its scale.
 */
struct stat_row {
	const char *latency, *stat;
	double q;
	const char *key; /* --metric: the dotted key; NULL for a latency row */
	enum il_stats_scale scale;
};

/* clang-format off */
static const struct stat_row latency_rows[] = {
	{ "processing", "p50", 0.50, NULL, IL_STATS_RATIO },
	{ "processing", "p90", 0.90, NULL, IL_STATS_RATIO },
	{ "processing", "p99", 0.99, NULL, IL_STATS_RATIO },
	{ "processing", "mean", IL_STATS_MEAN, NULL, IL_STATS_RATIO },
	{ "presentation", "p50", 0.50, NULL, IL_STATS_RATIO },
	{ "presentation", "p90", 0.90, NULL, IL_STATS_RATIO },
	{ "presentation", "p99", 0.99, NULL, IL_STATS_RATIO },
	{ "presentation", "mean", IL_STATS_MEAN, NULL, IL_STATS_RATIO },
};
/* clang-format on */
#define NLATENCY_ROWS (sizeof(latency_rows) / sizeof(latency_rows[0]))
#define MAX_ROWS      32

/* One statistic of group `b` against the reference group `a`. */
struct row_result {
	double a, b; /* each side's centre: what the ratio divides */
	struct il_stats_cmp cmp;
	double a_rounds[MAX_ROUNDS], b_rounds[MAX_ROUNDS];
	size_t na, nb;
};

enum unit { UNIT_AUTO, UNIT_ROUND, UNIT_EVENT };

struct opts {
	double alpha;
	uint64_t seed;
	unsigned resamples;
	bool resamples_set; /* given on the command line */
	const char *json_path;
	enum unit unit;
	struct stat_row rows[MAX_ROWS];
	size_t nrows;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: inputlat compare [options] A B [C ...]\n"
	    "Compares groups of `inputlat run --json` reports, each later group against A:\n"
	    "p50, p90, p99 and mean of processing and presentation latency, with a ratio, its\n"
	    "interval and a verdict (lower, higher, no clear difference, not enough data).\n"
	    "A group is a report, a directory of reports (each *.json a round) or a\n"
	    "comma-separated list of reports. Several rounds a group: permutation test over\n"
	    "the rounds (4 or more a side reach 5%%; unequal sides need enough partitions).\n"
	    "One run each: a ratio and its blocked-bootstrap interval over consecutive\n"
	    "events, which covers variation within a run only: no verdict.\n"
	    "A round that lost events (timed out, dropped) counts them as slower than any it\n"
	    "completed; where they reach a statistic, it has no verdict.\n"
	    "  -a, --alpha A        error rate of a verdict, two-sided (default 0.05); for\n"
	    "                       a family of verdicts, the level `inputlat stats fdr` gives\n"
	    "  -h, --help           this text\n"
	    "  -j, --json FILE      the comparison as JSON (- for stdout, then no table)\n"
	    "  -m, --metric S:KEY   compare the number at KEY of every report (a dotted path,\n"
	    "                       e.g. hog.idle_waste_pct) instead of the latencies, as\n"
	    "                       ratio:KEY (B/A, values above 0) or diff:KEY (B-A); again\n"
	    "                       for more keys, one scale per call\n"
	    "  -r, --resamples N    bootstrap resamples for one run each (default %u)\n"
	    "  -s, --seed N         seed of the random draws (default %u; recorded in the "
	    "output)\n"
	    "  -u, --unit U         round (every report a round, even one a side), event (one\n"
	    "                       run each, its events resampled) or auto (default: round\n"
	    "                       when any group has several reports, else event)\n",
	    IL_STATS_RESAMPLES, IL_STATS_SEED);
}

static void usage_line(const char *what)
{
	fprintf(stderr,
		"compare: %s; usage: inputlat compare [--json FILE] A B [C ...] (see --help)\n",
		what);
}

/* --- loading ------------------------------------------------------------ */
/*
 * A run that failed (a child died or hung, the chain never came up) wrote
 * what it had when it failed, with the reason under `error`: figures cut
 * off by a fault, not a measurement of the policy. Refused with the reason;
 * never counted as a round. (An interrupted run is a measurement, shorter,
 * as cyclictest's Ctrl-C is; a run whose only failure was putting a knob
 * back measured normally and has no `error`.)
 */
static bool run_failed(const cJSON *root, const char *path)
{
	const cJSON *ej = il_json_get(root, "error");
	const char *e = cJSON_GetStringValue(ej);
	char why[300];

	/* Not a message a run wrote (an object, a number): not a valid round. */
	if (ej && !e && !cJSON_IsNull(ej)) {
		fprintf(stderr, "compare: %s: its error is not a message %s\n", path,
			REQUIRED_NOTE);
		return true;
	}
	if (!e)
		return false;
	fprintf(stderr, "compare: %s: that run failed (%s): its figures are not a measurement\n",
		path, il_printable_copy(e, why, sizeof(why)));
	return true;
}

/* Refuses root, at path, as g's report i again (what: "report" or "run"). */
static int twice(const struct group *g, size_t i, const char *path, const char *what,
		 const char *how, cJSON *root)
{
	fprintf(stderr,
		"compare: %s: the same %s as %s%s, twice in group %s (a round counts once)\n", path,
		what, g->paths[i], how, g->label);
	cJSON_Delete(root);
	return -1;
}

static int add_report(struct group *g, const char *path)
{
	static const char *const required[] = {"events.sent", "events.completed",
					       "events.timed_out", "latency_us.processing"};
	char err[512];
	struct stat st;
	cJSON *root;

	if (g->n >= MAX_ROUNDS) {
		fprintf(stderr, "compare: %s: more than %d reports in one group\n", g->label,
			MAX_ROUNDS);
		return -1;
	}
	if (il_json_load(path, &root, err, sizeof(err)) < 0) {
		fprintf(stderr, "compare: %s\n", err);
		return -1;
	}
	/* The attribution is most of a short run's tree and nothing compare
	 * reads, but for a --metric under it. */
	if (!g->held->attribution && cJSON_IsObject(root))
		cJSON_DeleteItemFromObjectCaseSensitive(root, "attribution");
	{
		size_t bytes = il_json_tree_bytes(root);

		if (bytes > g->held->max_bytes - g->held->bytes) {
			fprintf(stderr,
				"compare: %s: %.0f MiB parsed, %.0f MiB with the reports before "
				"it, more than the %zu MiB compare holds at once (compare fewer "
				"reports, or raise IL_COMPARE_MAX_MIB)\n",
				path, bytes / 1048576.0, (bytes + g->held->bytes) / 1048576.0,
				g->held->max_bytes >> 20);
			cJSON_Delete(root);
			return -1;
		}
		g->held->bytes += bytes;
	}
	if (!cJSON_IsObject(root)) {
		fprintf(stderr, "compare: %s: not a JSON object %s\n", path, REQUIRED_NOTE);
		cJSON_Delete(root);
		return -1;
	}
	if (il_header_version_check(root, IL_RUN_FILE_VERSION, err, sizeof(err)) < 0) {
		fprintf(stderr, "compare: %s: %s\n", path, err);
		cJSON_Delete(root);
		return -1;
	}
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!il_json_get(root, required[i])) {
			fprintf(stderr, "compare: %s: missing key %s %s\n", path, required[i],
				REQUIRED_NOTE);
			cJSON_Delete(root);
			return -1;
		}
	/* Values no run writes (explain refuses the same, il_report_sane). */
	if (il_report_sane(root, err, sizeof(err)) < 0) {
		fprintf(stderr, "compare: %s: %s\n", path, err);
		cJSON_Delete(root);
		return -1;
	}
	if (run_failed(root, path)) {
		cJSON_Delete(root);
		return -1;
	}
	/* One file named twice (a,a,a,a; a symlink to it) is one round, not
	 * four: the test would count it as four independent runs. */
	if (stat(path, &st) == 0) {
		for (size_t i = 0; i < g->n; i++)
			if (g->dev[i] == st.st_dev && g->ino[i] == st.st_ino)
				return twice(g, i, path, "report", "", root);
		g->dev[g->n] = st.st_dev;
		g->ino[g->n] = st.st_ino;
	}
	/* One run's report copied (cp a r1; cp a r2) is one round too: the
	 * copies have its seed, start time and start (milestones_ns.enter). */
	for (size_t i = 0; i < g->n; i++)
		if (il_comparable_same_run(g->reports[i], root))
			return twice(g, i, path, "run", " (its seed, start_time and start)", root);
	g->paths[g->n] = strdup(path);
	g->reports[g->n++] = root;
	{
		const cJSON *p = il_json_get(root, "policy");
		char pol[128];

		/* A report is a file anybody may have written: no escape
		 * sequence of it reaches the terminal. */
		il_printable_copy(cJSON_IsString(p) ? p->valuestring : "?", pol, sizeof(pol));
		/* A group is rounds of one policy: a report of another in it
		 * is not what its place says (its rounds were compared as
		 * the group's, under the group's policy). */
		if (g->n == 1)
			snprintf(g->policy, sizeof(g->policy), "%s", pol);
		else if (strcmp(g->policy, pol) != 0) {
			fprintf(stderr,
				"compare: %s: policy %s, not %s as %s before it in group %s (a "
				"group's rounds are runs of one policy)\n",
				path, pol, g->policy, g->paths[0], g->label);
			return -1;
		}
	}
	{
		/* A report from before work_model was written ran the loops
		 * model (the only one then). Any other value is not one of
		 * ours: "?", never echoed. */
		const cJSON *m = il_json_get(root, "work_model");
		enum il_work_model wm = IL_WORK_LOOPS;
		const char *model =
		    !m || (cJSON_IsString(m) && il_work_model_parse(m->valuestring, &wm) == 0)
			? il_work_model_name(wm)
			: "?";

		if (g->n == 1)
			snprintf(g->work_model, sizeof(g->work_model), "%s", model);
		else if (strcmp(g->work_model, model) != 0)
			snprintf(g->work_model, sizeof(g->work_model), "mixed");
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json of a directory, in name order (round-1, round-10, ... sorts
 * by name; the order of rounds does not matter to the tests). */
static int load_dir(struct group *g, const char *dir)
{
	char *names[MAX_ROUNDS * 4];
	size_t n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d) {
		fprintf(stderr, "compare: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && n < sizeof(names) / sizeof(names[0])) {
		size_t len = strlen(e->d_name);

		if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (rc == 0 && add_report(g, path) < 0)
			rc = -1;
		free(names[i]);
	}
	if (rc == 0 && g->n == 0) {
		fprintf(stderr, "compare: %s: no *.json run reports in this directory\n", dir);
		rc = -1;
	}
	return rc;
}

static int group_load(struct group *g, const char *arg)
{
	struct stat st;
	char *copy, *save = NULL, *tok;
	int rc = 0;

	g->label = arg;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		return load_dir(g, arg);
	/* "a.json," or "a,,b": a name left out, not a list of what is there. */
	if (arg[0] && il_parse_list_has_empty(arg)) {
		char what[300];

		snprintf(what, sizeof(what), "an empty name in the list '%.200s'", arg);
		usage_line(what);
		return -1;
	}
	copy = strdup(arg);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save))
		rc = add_report(g, tok);
	free(copy);
	if (rc == 0 && g->n == 0) {
		usage_line("an empty group");
		rc = -1;
	}
	return rc;
}

static void group_free(struct group *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->paths[i]);
		cJSON_Delete(g->reports[i]);
	}
}

/* --- like with like -------------------------------------------------------- */
/* One warning: a line on stderr, and its text in the JSON's warnings. */
static void warn(cJSON *warnings, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(cJSON *warnings, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "compare: warning: %s\n", text);
	cJSON_AddItemToArray(warnings, cJSON_CreateString(text));
}

/*
 * Whether the groups compare like with like (il_comparable). A round in
 * two groups is refused: a group against itself (or sharing rounds with
 * another) gives "no clear difference" with an interval, a measurement of
 * nothing. Runs of other machines or scenarios, and of other work models,
 * are compared as asked (that may be the question) with one warning each
 * saying which fields differ. Returns -1 when refused (said).
 */
static int judge_groups(const struct group *groups, size_t ngroups, cJSON *warnings)
{
	char diff[768];

	for (size_t i = 0; i < ngroups; i++)
		for (size_t j = i + 1; j < ngroups; j++)
			for (size_t k = 0; k < groups[j].n; k++)
				for (size_t l = 0; l < groups[i].n; l++) {
					bool file = groups[i].ino[l] &&
						    groups[i].dev[l] == groups[j].dev[k] &&
						    groups[i].ino[l] == groups[j].ino[k];

					if (!file && !il_comparable_same_run(groups[i].reports[l],
									     groups[j].reports[k]))
						continue;
					fprintf(stderr,
						"compare: %s: the same %s as %s, in groups %s and "
						"%s (a run compared with itself says nothing: "
						"compare different runs)\n",
						groups[j].paths[k], file ? "report" : "run",
						groups[i].paths[l], groups[i].label,
						groups[j].label);
					return -1;
				}
	/* Runs whose handlers' work meant different things (CPU time, a loop
	 * count at a calibrated speed) differ for that reason alone: said,
	 * then compared as asked (comparing the models is a use too). */
	{
		bool same = strcmp(groups[0].work_model, "mixed") != 0;
		char text[768];
		size_t at = 0;

		for (size_t i = 1; i < ngroups; i++)
			same &= strcmp(groups[i].work_model, groups[0].work_model) == 0;
		for (size_t i = 0; !same && i < ngroups && at < sizeof(text); i++)
			at +=
			    (size_t)snprintf(text + at, sizeof(text) - at, "%s%s %s", i ? ", " : "",
					     groups[i].label, groups[i].work_model);
		if (!same)
			warn(warnings,
			     "the runs' work models differ (%s): their latencies differ by what a "
			     "handler's work is, not only by what is compared",
			     text);
	}
	/* A group's rounds are one machine and scenario: else its rounds vary
	 * by more than chance, and the test's error rate is not its own. */
	for (size_t g = 0; g < ngroups; g++)
		for (size_t k = 1; k < groups[g].n; k++)
			if (il_comparable_diff(groups[g].reports[0], groups[g].reports[k],
					       IL_COMPARABLE_MACHINE | IL_COMPARABLE_SCENARIO, diff,
					       sizeof(diff))) {
				warn(warnings,
				     "the rounds of %s are not of one machine and scenario: %s "
				     "against %s: %s",
				     groups[g].label, groups[g].paths[k], groups[g].paths[0], diff);
				break;
			}
	/* Each later group against the first: what else differs besides the
	 * policy. */
	for (size_t g = 1; g < ngroups; g++)
		if (il_comparable_diff(groups[0].reports[0], groups[g].reports[0],
				       IL_COMPARABLE_MACHINE | IL_COMPARABLE_SCENARIO, diff,
				       sizeof(diff)))
			warn(warnings,
			     "%s and %s are not runs of one machine and scenario (%s): their "
			     "figures differ by that too, not only by policy",
			     groups[0].label, groups[g].label, diff);
	return 0;
}

/* --- the statistics ------------------------------------------------------ */
/* Events behind latency_us.<lat> of one report: its count, else completed. */
static double events_of(const cJSON *r, const char *lat)
{
	char key[64];
	double n;

	snprintf(key, sizeof(key), "latency_us.%s.count", lat);
	n = il_json_num(r, key);
	return isnan(n) ? il_json_num(r, "events.completed") : n;
}

/*
 * Per-round values of one statistic. A latency counts every event the
 * round measured (il_round_latency): a round whose statistic lies beyond
 * the timeout is counted in *censored, not left out (leaving it out called
 * a policy whose clicks mostly timed out lower), and one that cannot say
 * in *missing. A --metric's rounds where it is null are left out, and on
 * the ratio scale those where it is not above 0.
 */
static size_t round_values(const struct group *g, const struct stat_row *s, double *v,
			   double *fewest, size_t *censored, size_t *missing, size_t *zero)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++) {
		double x = NAN;

		/* A round left out is counted and said: 12 of 16 rounds at 0,
		 * dropped from a ratio, made the 4 others' 2.0 "lower" than B's 1.0. */
		if (s->key) {
			x = il_json_num(g->reports[i], s->key);
			if (isnan(x))
				(*missing)++;
			else if (s->scale == IL_STATS_RATIO && x <= 0)
				(*zero)++;
			else
				v[n++] = x;
			continue;
		}
		switch (il_round_latency(g->reports[i], s->latency, s->stat, s->q, &x, NULL)) {
		case IL_ROUND_CENSORED:
			(*censored)++;
			continue;
		case IL_ROUND_MISSING:
			(*missing)++;
			continue;
		case IL_ROUND_VALUE:
			break;
		}
		/* A latency of 0 is in the report: said as such, not as missing. */
		if (!(x > 0)) {
			(*zero)++;
			continue;
		}
		v[n++] = x;
		{
			double e = events_of(g->reports[i], s->latency);

			if (!isnan(e) && e < *fewest)
				*fewest = e;
		}
	}
	return n;
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

static double geomean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += log(v[i]);
	return n ? exp(s / (double)n) : NAN;
}

static void not_enough(struct row_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void not_enough(struct row_result *r, const char *fmt, ...)
{
	va_list ap;

	r->cmp.verdict = IL_VERDICT_NOT_ENOUGH;
	r->cmp.lo = r->cmp.hi = r->cmp.p_value = NAN;
	va_start(ap, fmt);
	vsnprintf(r->cmp.why, sizeof(r->cmp.why), fmt, ap);
	va_end(ap);
}

static void compare_rounds(const struct group *a, const struct group *b, const struct stat_row *s,
			   const struct opts *o, struct row_result *r)
{
	double fewest = INFINITY;
	uint64_t need = il_stats_min_events(s->q);
	int rc;

	bool ratio = s->scale == IL_STATS_RATIO;

	size_t cens[2] = {0, 0}, miss[2] = {0, 0}, zero[2] = {0, 0};

	r->na = round_values(a, s, r->a_rounds, &fewest, &cens[0], &miss[0], &zero[0]);
	r->nb = round_values(b, s, r->b_rounds, &fewest, &cens[1], &miss[1], &zero[1]);
	/* Each side's centre, the one the estimate compares: the geometric
	 * mean over the rounds on the ratio scale, the mean on the other. */
	r->a = ratio ? geomean(r->a_rounds, r->na) : mean_of(r->a_rounds, r->na);
	r->b = ratio ? geomean(r->b_rounds, r->nb) : mean_of(r->b_rounds, r->nb);
	r->cmp =
	    (struct il_stats_cmp){.estimate = ratio ? r->b / r->a : r->b - r->a, .seed = o->seed};
	/*
	 * A round beyond the timeout, or one that cannot say, has no number a
	 * test can hold: the verdict would be about the rounds that did well.
	 */
	if (cens[0] || cens[1] || miss[0] || miss[1] || zero[0] || zero[1]) {
		int side = cens[0] || miss[0] || zero[0] ? 0 : 1;
		const struct group *g = side ? b : a;

		if (cens[side] && s->q < 0)
			not_enough(r,
				   "not enough data: %zu of %s's %zu rounds lost events (timed out "
				   "or dropped): a mean over them lies beyond any figure",
				   cens[side], side ? "B" : "A", g->n);
		else if (cens[side])
			not_enough(
			    r,
			    "not enough data: %zu of %s's %zu rounds lost about %g%% of their "
			    "events or more (timed out or dropped): their %s lies beyond the "
			    "timeout",
			    cens[side], side ? "B" : "A", g->n, 100 * (1 - s->q), s->stat);
		else if (miss[side] && s->key)
			not_enough(r,
				   "not enough data: %zu of %s's %zu rounds have no number at %s",
				   miss[side], side ? "B" : "A", g->n, s->key);
		else if (miss[side])
			not_enough(
			    r,
			    "not enough data: %zu of %s's %zu rounds give no %s (none in the "
			    "report, or lost events and no samples_us.%s to place them by)",
			    miss[side], side ? "B" : "A", g->n, s->stat, s->latency);
		else if (s->key)
			not_enough(r,
				   "not enough data: %zu of %s's %zu rounds have %s at 0 or below, "
				   "which a ratio cannot hold (compare them with diff:%s)",
				   zero[side], side ? "B" : "A", g->n, s->key, s->key);
		else
			not_enough(
			    r,
			    "not enough data: %zu of %s's %zu rounds give a %s of 0 us, which "
			    "no latency is (and a ratio over rounds cannot hold)",
			    zero[side], side ? "B" : "A", g->n, s->stat);
		r->cmp.estimate = NAN;
		/* A side's centre over the rounds that did well is the flattering
		 * figure this refuses: none (the sweep ranked such a side lowest). */
		if (cens[0] || miss[0] || zero[0])
			r->a = NAN;
		if (cens[1] || miss[1] || zero[1])
			r->b = NAN;
		return;
	}
	if (!r->na || !r->nb) {
		if (s->key)
			not_enough(r, "not enough data: no report of %s has a%s number at %s",
				   !r->na ? "A" : "B", ratio ? " positive" : "", s->key);
		else
			not_enough(r, "not enough data: no round of %s completed an event",
				   !r->na ? "A" : "B");
		r->cmp.estimate = NAN;
		return;
	}
	/* Its partitions are bit masks of the rounds. */
	if (r->na + r->nb > IL_STATS_MAX_ROUNDS) {
		not_enough(
		    r,
		    "no comparison: the permutation test takes at most %d rounds in all (has "
		    "%zu and %zu)",
		    IL_STATS_MAX_ROUNDS, r->na, r->nb);
		return;
	}
	/* A report's percentiles are histogram buckets' midpoints: two policies
	 * closer than a bucket are not told apart (its mean is exact). */
	rc = il_stats_rounds_within(r->a_rounds, r->na, r->b_rounds, r->nb, s->scale, o->alpha,
				    o->seed, !s->key && s->q >= 0 ? IL_HIST_PCT_RESOLUTION : 0,
				    &r->cmp);
	if (rc < 0) {
		not_enough(r, "no comparison: %s", strerror(-rc));
		return;
	}
	if (r->cmp.verdict != IL_VERDICT_NOT_ENOUGH && fewest < (double)need)
		not_enough(
		    r,
		    "not enough data: %s needs at least %llu events in every round (fewest: %.0f)",
		    s->q < 0 ? "the mean" : s->stat, (unsigned long long)need, fewest);
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double stat_of_events(const double *v, size_t n, double q)
{
	double *s, x = 0;

	if (q < 0) {
		for (size_t i = 0; i < n; i++)
			x += v[i];
		return x / (double)n;
	}
	s = malloc(sizeof(*s) * n);
	if (!s)
		return NAN;
	memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	x = il_stats_quantile_sorted(s, n, q);
	free(s);
	return x;
}

static void compare_runs(const struct group *a, const struct group *b, const struct stat_row *s,
			 const struct opts *o, struct row_result *r)
{
	size_t na, nb;
	double *va, *vb;
	int rc;

	r->cmp = (struct il_stats_cmp){.seed = o->seed};
	if (s->key) {
		/* One number per run: nothing to resample. */
		r->a = il_json_num(a->reports[0], s->key);
		r->b = il_json_num(b->reports[0], s->key);
		r->cmp.estimate = s->scale == IL_STATS_RATIO ? r->b / r->a : r->b - r->a;
		not_enough(r,
			   "not enough data: one value per run; needs at least %u rounds of each",
			   il_stats_min_rounds(o->alpha));
		return;
	}
	va = il_round_samples(a->reports[0], s->latency, &na);
	vb = il_round_samples(b->reports[0], s->latency, &nb);
	r->a = va ? stat_of_events(va, na, s->q) : NAN;
	r->b = vb ? stat_of_events(vb, nb, s->q) : NAN;
	r->cmp.estimate = r->b / r->a;
	if (!va || !vb) {
		not_enough(r, "not enough data: %s has no per-event samples (samples_us.%s)",
			   !va ? "A" : "B", s->latency);
	} else {
		rc = il_stats_runs_blocked(va, na, vb, nb, s->q, o->alpha, o->resamples, o->seed,
					   &r->cmp);
		if (rc < 0)
			not_enough(r, "no comparison: %s", strerror(-rc));
		else if (r->cmp.verdict != IL_VERDICT_NOT_ENOUGH) {
			/*
			 * The interval stays, as a description of these two
			 * runs' events; a verdict would not hold its error
			 * rate: two runs of one policy here differ by more
			 * than their events' scatter (A/A: "lower" or "higher"
			 * 74% of the time at the runs' measured spread).
			 */
			r->cmp.verdict = IL_VERDICT_NOT_ENOUGH;
			snprintf(r->cmp.why, sizeof(r->cmp.why),
				 "not enough data: one run a side (the interval is of its events, "
				 "not of runs); needs at least %u rounds of each",
				 il_stats_min_rounds(o->alpha));
		}
		/*
		 * Nor a p-value: the events' one (0 for two runs of one
		 * policy) is no test of the policies, and `stats fdr`, which
		 * takes compare's p-values, counted such zeros as discoveries
		 * and raised the level the family's real tests were held to.
		 */
		r->cmp.p_value = NAN;
	}
	free(va);
	free(vb);
}

/* --- output ------------------------------------------------------------- */
static void fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

static void print_info_row(const char *label, double a, double b, const char *fmt)
{
	char sa[32], sb[32], sr[32];

	fmt_num(sa, sizeof(sa), a, fmt);
	fmt_num(sb, sizeof(sb), b, fmt);
	fmt_num(sr, sizeof(sr), isnan(a) || a == 0 ? NAN : b / a, "%.2f");
	printf("%-40s %12s %12s %7s\n", label, sa, sb, sr);
}

static void print_verdict_row(const struct stat_row *s, const struct row_result *r)
{
	char label[64], sa[32], sb[32], sr[32], ci[48];

	if (s->key)
		snprintf(label, sizeof(label), "%s", s->key);
	else
		snprintf(label, sizeof(label), "%s %s (us)", s->latency, s->stat);
	fmt_num(sa, sizeof(sa), r->a, "%.1f");
	fmt_num(sb, sizeof(sb), r->b, "%.1f");
	fmt_num(sr, sizeof(sr), r->cmp.estimate, s->scale == IL_STATS_RATIO ? "%.3f" : "%+.3f");
	if (isnan(r->cmp.lo))
		snprintf(ci, sizeof(ci), "-");
	else
		snprintf(ci, sizeof(ci), "%.3f-%.3f", r->cmp.lo, r->cmp.hi);
	printf("%-40s %12s %12s %7s %13s  %s\n", label, sa, sb, sr, ci,
	       r->cmp.verdict == IL_VERDICT_NOT_ENOUGH ? r->cmp.why
						       : il_verdict_name(r->cmp.verdict));
}

/* Sum over a group's reports of a count; NAN when none has it. */
static double group_sum(const struct group *g, const char *key)
{
	double s = 0;
	bool any = false;

	for (size_t i = 0; i < g->n; i++) {
		double x = il_json_num(g->reports[i], key);

		if (!isnan(x)) {
			s += x;
			any = true;
		}
	}
	return any ? s : NAN;
}

static double group_extreme(const struct group *g, const char *key, bool max)
{
	double best = NAN;

	for (size_t i = 0; i < g->n; i++) {
		double x = il_json_num(g->reports[i], key);

		if (!isnan(x) && (isnan(best) || (max ? x > best : x < best)))
			best = x;
	}
	return best;
}

static void print_header(const struct group *a, const struct group *b, bool rounds,
			 const struct opts *o, const struct row_result *res, const char *head);
static void print_latencies(const struct group *a, const struct group *b, const struct opts *o,
			    const struct row_result *res);

static void print_text(const struct group *a, const struct group *b, bool rounds,
		       const struct opts *o, const struct row_result *res)
{
	const char *head =
	    o->nrows && o->rows[0].key && o->rows[0].scale == IL_STATS_DIFF ? "B-A" : "B/A";
	bool metrics = o->nrows && o->rows[0].key;

	print_header(a, b, rounds, o, res, head);
	if (metrics) {
		for (size_t i = 0; i < o->nrows; i++)
			print_verdict_row(&o->rows[i], &res[i]);
		return;
	}
	print_latencies(a, b, o, res);
}

static void print_header(const struct group *a, const struct group *b, bool rounds,
			 const struct opts *o, const struct row_result *res, const char *head)
{
	static const char *const ev[][2] = {{"events.sent", "events sent"},
					    {"events.completed", "completed"},
					    {"events.timed_out", "timed out"}};

	printf("# inputlat compare\n# A = %s (%zu run%s, policy %s, work %s)\n# B = %s (%zu run%s, "
	       "policy %s, work %s)\n",
	       a->label, a->n, a->n == 1 ? "" : "s", a->policy, a->work_model, b->label, b->n,
	       b->n == 1 ? "" : "s", b->policy, b->work_model);
	const char *method = NULL;

	/* The test the rows ran; the first row may have had too little data. */
	for (size_t i = 0; i < o->nrows && !method; i++)
		if (res[i].cmp.method[0])
			method = res[i].cmp.method;
	printf("# %s; %.0f%% intervals; seed %llu\n",
	       method ? method : "no test ran (no row had the data for one)", 100 * (1 - o->alpha),
	       (unsigned long long)o->seed);
	if (rounds)
		printf("# A and B columns: %s over the rounds of each round's value\n",
		       strcmp(head, "B/A") == 0 ? "geometric mean" : "mean");
	else
		printf(
		    "# one run each: the intervals cover the variation within a run only (blocked\n"
		    "# bootstrap over consecutive events), not from run to run, so no verdict:\n"
		    "# compare 4 or more rounds a side (a directory or a comma-separated list) "
		    "for\n"
		    "# verdicts that hold their error rate\n");
	printf("%-40s %12s %12s %7s %13s  %s\n", "#", "A", "B", head, "interval", "verdict");
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		print_info_row(ev[i][1], group_sum(a, ev[i][0]), group_sum(b, ev[i][0]), "%.0f");
}

static void print_latencies(const struct group *a, const struct group *b, const struct opts *o,
			    const struct row_result *res)
{
	char key[64], label[64];

	for (size_t i = 0; i < o->nrows; i++)
		print_verdict_row(&o->rows[i], &res[i]);
	for (int lat = 0; lat < 2; lat++) {
		const char *what = lat ? "presentation" : "processing";

		snprintf(key, sizeof(key), "latency_us.%s.min", what);
		snprintf(label, sizeof(label), "%s min (us, lowest round)", what);
		print_info_row(label, group_extreme(a, key, false), group_extreme(b, key, false),
			       "%.1f");
		snprintf(key, sizeof(key), "latency_us.%s.max", what);
		snprintf(label, sizeof(label), "%s max (us, highest round)", what);
		print_info_row(label, group_extreme(a, key, true), group_extreme(b, key, true),
			       "%.1f");
	}
	for (int k = 1; k <= 12; k++) {
		double va[MAX_ROUNDS], vb[MAX_ROUNDS];
		size_t na = 0, nb = 0;
		const char *name = NULL;

		for (int side = 0; side < 2; side++) {
			const struct group *g = side ? b : a;

			for (size_t i = 0; i < g->n; i++) {
				const cJSON *h;

				cJSON_ArrayForEach (h, il_json_get(g->reports[i], "hops")) {
					const cJSON *idx =
					    cJSON_GetObjectItemCaseSensitive(h, "index");
					double p50 = il_json_num(h, "p50_us");

					if (!cJSON_IsNumber(idx) || idx->valueint != k ||
					    isnan(p50) || p50 <= 0)
						continue;
					if (!name)
						name = cJSON_GetStringValue(
						    cJSON_GetObjectItemCaseSensitive(h, "name"));
					if (side)
						vb[nb++] = p50;
					else
						va[na++] = p50;
				}
			}
		}
		if (!na && !nb)
			continue;
		snprintf(label, sizeof(label), "hop %2d %s p50 (us)", k, name ? name : "");
		il_printable(label);
		print_info_row(label, geomean(va, na), geomean(vb, nb), "%.1f");
	}
}

static cJSON *num_or_null(double v)
{
	return isnan(v) || isinf(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

static cJSON *group_json(const struct group *g)
{
	cJSON *o = cJSON_CreateObject(), *paths = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "label", g->label);
	cJSON_AddStringToObject(o, "policy", g->policy);
	cJSON_AddStringToObject(o, "work_model", g->work_model);
	cJSON_AddNumberToObject(o, "runs", (double)g->n);
	for (size_t i = 0; i < g->n; i++)
		cJSON_AddItemToArray(paths, cJSON_CreateString(g->paths[i]));
	cJSON_AddItemToObject(o, "reports", paths);
	cJSON_AddItemToObject(o, "events_sent", num_or_null(group_sum(g, "events.sent")));
	cJSON_AddItemToObject(o, "events_completed", num_or_null(group_sum(g, "events.completed")));
	cJSON_AddItemToObject(o, "events_timed_out", num_or_null(group_sum(g, "events.timed_out")));
	return o;
}

static cJSON *row_json(const struct stat_row *s, const struct row_result *r, size_t group)
{
	cJSON *o = cJSON_CreateObject(), *ra = cJSON_CreateArray(), *rb = cJSON_CreateArray();

	cJSON_AddNumberToObject(o, "group", (double)group);
	if (s->key) {
		cJSON_AddNullToObject(o, "latency");
		cJSON_AddStringToObject(o, "stat", s->key);
	} else {
		cJSON_AddStringToObject(o, "latency", s->latency);
		cJSON_AddStringToObject(o, "stat", s->stat);
	}
	cJSON_AddStringToObject(o, "scale", s->scale == IL_STATS_RATIO ? "ratio" : "diff");
	/* The events a round needs for this statistic (the engine's rule): the
	 * sweep ranks no figure from shorter rounds. */
	cJSON_AddItemToObject(o, "min_events",
			      s->key ? cJSON_CreateNull()
				     : cJSON_CreateNumber((double)il_stats_min_events(s->q)));
	cJSON_AddItemToObject(o, "a", num_or_null(r->a));
	cJSON_AddItemToObject(o, "b", num_or_null(r->b));
	cJSON_AddItemToObject(o, "estimate", num_or_null(r->cmp.estimate));
	/* B/A on the ratio scale; null for a difference. */
	cJSON_AddItemToObject(o, "ratio",
			      num_or_null(s->scale == IL_STATS_RATIO ? r->cmp.estimate : NAN));
	cJSON_AddItemToObject(o, "lo", num_or_null(r->cmp.lo));
	cJSON_AddItemToObject(o, "hi", num_or_null(r->cmp.hi));
	cJSON_AddStringToObject(o, "verdict", il_verdict_name(r->cmp.verdict));
	if (r->cmp.why[0])
		cJSON_AddStringToObject(o, "why", r->cmp.why);
	else
		cJSON_AddNullToObject(o, "why");
	cJSON_AddItemToObject(o, "p_value", num_or_null(r->cmp.p_value));
	cJSON_AddStringToObject(o, "method", r->cmp.method);
	/* How close to its true value each round's figure is (relative): the
	 * interval and the verdict allow for it. */
	cJSON_AddNumberToObject(o, "resolution", r->cmp.resolution);
	cJSON_AddBoolToObject(o, "exact", r->cmp.exact);
	cJSON_AddNumberToObject(o, "resamples", (double)r->cmp.resamples);
	cJSON_AddItemToObject(o, "seed", il_json_u64(r->cmp.seed));
	for (size_t i = 0; i < r->na; i++)
		cJSON_AddItemToArray(ra, cJSON_CreateNumber(r->a_rounds[i]));
	for (size_t i = 0; i < r->nb; i++)
		cJSON_AddItemToArray(rb, cJSON_CreateNumber(r->b_rounds[i]));
	cJSON_AddItemToObject(o, "a_rounds", ra);
	cJSON_AddItemToObject(o, "b_rounds", rb);
	return o;
}

/* --- the verb ------------------------------------------------------------ */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"alpha", required_argument, NULL, 'a'},	 {"help", no_argument, NULL, 'h'},
	    {"json", required_argument, NULL, 'j'},	 {"metric", required_argument, NULL, 'm'},
	    {"resamples", required_argument, NULL, 'r'}, {"seed", required_argument, NULL, 's'},
	    {"unit", required_argument, NULL, 'u'},	 {NULL, 0, NULL, 0},
	};
	uint64_t v;
	char what[300];
	bool help = false;
	int c;

	optind = 0; /* glibc: rescan from argv[1] whatever main parsed before. */
	opterr = 0;
	char opt[300]; /* what was wrong with a refused option, for its message */

	while ((c = getopt_long(argc, argv, ":a:hj:m:r:s:u:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (il_parse_double(optarg, 1e-6, 0.5, &o->alpha) < 0) {
				snprintf(what, sizeof(what),
					 "--alpha '%s': expected a number from 0.000001 to 0.5",
					 optarg);
				usage_line(what);
				return 2;
			}
			break;
		case 'h':
			help = true;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'm': {
			struct stat_row *m = &o->rows[o->nrows];
			const char *key = strchr(optarg, ':');

			if (o->nrows >= MAX_ROWS || !key || !key[1] ||
			    (strncmp(optarg, "ratio:", 6) && strncmp(optarg, "diff:", 5))) {
				snprintf(
				    what, sizeof(what),
				    "--metric '%s': expected ratio:KEY or diff:KEY (at most %d)",
				    optarg, MAX_ROWS);
				usage_line(what);
				return 2;
			}
			*m = (struct stat_row){.key = key + 1,
					       .q = IL_STATS_MEAN,
					       .scale = optarg[0] == 'r' ? IL_STATS_RATIO
									 : IL_STATS_DIFF};
			if (o->nrows && o->rows[0].scale != m->scale) {
				usage_line(
				    "--metric: use one scale (all ratio: or all diff:) per call");
				return 2;
			}
			o->nrows++;
			break;
		}
		case 'r':
			if (il_parse_u64(optarg, 1, 1000000, &v) < 0) {
				snprintf(
				    what, sizeof(what),
				    "--resamples '%s': expected a whole number from 1 to 1000000",
				    optarg);
				usage_line(what);
				return 2;
			}
			o->resamples = (unsigned)v;
			o->resamples_set = true;
			break;
		case 's':
			if (il_parse_u64(optarg, 0, UINT64_MAX, &o->seed) < 0) {
				snprintf(what, sizeof(what), "--seed '%s': expected a whole number",
					 optarg);
				usage_line(what);
				return 2;
			}
			break;
		case 'u':
			if (strcmp(optarg, "auto") == 0)
				o->unit = UNIT_AUTO;
			else if (strcmp(optarg, "round") == 0)
				o->unit = UNIT_ROUND;
			else if (strcmp(optarg, "event") == 0)
				o->unit = UNIT_EVENT;
			else {
				snprintf(what, sizeof(what),
					 "--unit '%s': expected round, event or auto", optarg);
				usage_line(what);
				return 2;
			}
			break;
		case ':':
			snprintf(what, sizeof(what), "%s needs a value", argv[optind - 1]);
			usage_line(what);
			return 2;
		default:
			snprintf(what, sizeof(what), "%s",
				 il_parse_option_error(argv, longopts, opt, sizeof(opt)));
			usage_line(what);
			return 2;
		}
	}
	/* Alone: 'compare --help A B' printed the help and compared nothing. */
	if (help && optind < argc) {
		snprintf(what, sizeof(what), "unexpected argument '%s' with --help", argv[optind]);
		usage_line(what);
		return 2;
	}
	if (help) {
		usage(stdout);
		return 0;
	}
	return -1;
}

/*
 * What a --metric KEY is in report r: 0 when a number, or null (a figure
 * the run could not have, or a part not run: "hog": null), -1 with why
 * when the key is missing or holds no number. A misspelt key, a string
 * (policy) or an object (latency_us) read as "no number" and gave "not
 * enough data", exit 0.
 */
static int metric_key_check(const cJSON *r, const char *key, char *why, size_t n)
{
	char part[128];
	const char *p = key;

	while (*p) {
		size_t len = strcspn(p, ".");

		if (cJSON_IsNull(r))
			return 0;
		snprintf(part, sizeof(part), "%.*s", (int)len, p);
		if (!cJSON_IsObject(r) || !(r = cJSON_GetObjectItemCaseSensitive(r, part))) {
			snprintf(why, n, "has no key %s", key);
			return -1;
		}
		p += len + (p[len] == '.');
	}
	if (cJSON_IsNumber(r) || cJSON_IsNull(r))
		return 0;
	snprintf(why, n, "has %s at %s, not a number",
		 cJSON_IsString(r)   ? "a string"
		 : cJSON_IsObject(r) ? "an object"
		 : cJSON_IsArray(r)  ? "a list"
				     : "true or false",
		 key);
	return -1;
}

int il_cmd_compare(int argc, char **argv)
{
	struct opts o = {
	    .alpha = IL_STATS_ALPHA, .seed = IL_STATS_SEED, .resamples = IL_STATS_RESAMPLES};
	struct group *groups = NULL;
	struct held held = {0};
	struct row_result *res = NULL;
	size_t ngroups;
	cJSON *root = NULL, *arr, *warnings = NULL;
	bool rounds = false;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (!o.nrows) {
		memcpy(o.rows, latency_rows, sizeof(latency_rows));
		o.nrows = NLATENCY_ROWS;
	}
	ngroups = (size_t)(argc - optind);
	if (ngroups < 2 || ngroups > MAX_GROUPS) {
		char what[96];

		snprintf(what, sizeof(what), "expected 2 to %d groups of reports, got %zu",
			 MAX_GROUPS, ngroups);
		usage_line(what);
		return 2;
	}
	groups = calloc(ngroups, sizeof(*groups));
	res = calloc(o.nrows * ngroups, sizeof(*res));
	if (!groups || !res) {
		fprintf(stderr, "compare: out of memory\n");
		rc = 1;
		goto out;
	}
	/* The output is checked before any work, and is never one of the
	 * reports compared (`-j a.json a.json b.json` overwrote a.json). */
	if (o.json_path && strcmp(o.json_path, "-") != 0) {
		char err[600];

		if (il_out_check("--json", o.json_path, err, sizeof(err)) < 0) {
			fprintf(stderr, "compare: %s\n", err);
			rc = 2;
			goto out;
		}
	}
	if (held_max_bytes(&held.max_bytes) < 0) {
		rc = 2;
		goto out;
	}
	rc = 0;
	for (size_t m = 0; m < o.nrows; m++)
		if (o.rows[m].key && !strncmp(o.rows[m].key, "attribution", 11))
			held.attribution = true;
	for (size_t i = 0; i < ngroups; i++)
		groups[i].held = &held;
	for (size_t i = 0; i < ngroups && rc == 0; i++)
		if (group_load(&groups[i], argv[optind + (int)i]) < 0)
			rc = 2;
	if (rc)
		goto out;
	for (size_t i = 0; i < ngroups && rc == 0; i++)
		for (size_t k = 0; k < groups[i].n; k++)
			if (il_out_path_is_file(o.json_path, groups[i].paths[k])) {
				fprintf(stderr,
					"compare: --json %s is the report %s; refusing to "
					"overwrite an input\n",
					o.json_path, groups[i].paths[k]);
				rc = 2;
				break;
			}
	/* A --metric's key is in every report, a number or null. */
	for (size_t i = 0; i < ngroups && rc == 0; i++)
		for (size_t k = 0; k < groups[i].n && rc == 0; k++)
			for (size_t m = 0; m < o.nrows && rc == 0 && o.rows[m].key; m++) {
				char why[256];

				if (metric_key_check(groups[i].reports[k], o.rows[m].key, why,
						     sizeof(why)) < 0) {
					fprintf(stderr, "compare: --metric: %s %s\n",
						groups[i].paths[k], why);
					rc = 2;
				}
			}
	if (rc)
		goto out;
	warnings = cJSON_CreateArray();
	if (!warnings || judge_groups(groups, ngroups, warnings) < 0) {
		rc = warnings ? 2 : 1;
		goto out;
	}
	/* The unit of replication is the round unless every group is one run. */
	for (size_t i = 0; i < ngroups; i++)
		rounds |= groups[i].n > 1;
	if (o.unit != UNIT_AUTO)
		rounds = o.unit == UNIT_ROUND;
	/* Rounds are compared by a permutation test: no bootstrap to size. */
	if (rounds && o.resamples_set) {
		fprintf(stderr,
			"compare: --resamples sizes the bootstrap of one run a group; these groups "
			"have rounds (a permutation test), drop it\n");
		rc = 2;
		goto out;
	}
	/*
	 * A percentile interval at level alpha reads the bootstrap's alpha/2
	 * and 1 - alpha/2 quantiles: fewer than 2/alpha resamples have no
	 * value below the first (`-r 1` printed a "95% interval" of one
	 * point, which missed the estimate itself).
	 */
	if (!rounds && (double)o.resamples < ceil(2.0 / o.alpha)) {
		fprintf(stderr,
			"compare: %u resamples cannot give a %g%% interval: it takes at least %.0f "
			"(2 / alpha)\n",
			o.resamples, 100.0 * (1.0 - o.alpha), ceil(2.0 / o.alpha));
		rc = 2;
		goto out;
	}
	if (!rounds)
		for (size_t i = 0; i < ngroups; i++)
			if (groups[i].n > 1) {
				fprintf(stderr,
					"compare: --unit event compares one run a group; "
					"%s has %zu\n",
					groups[i].label, groups[i].n);
				rc = 2;
				goto out;
			}

	for (size_t g = 1; g < ngroups; g++)
		for (size_t i = 0; i < o.nrows; i++) {
			if (rounds)
				compare_rounds(&groups[0], &groups[g], &o.rows[i], &o,
					       &res[g * o.nrows + i]);
			else
				compare_runs(&groups[0], &groups[g], &o.rows[i], &o,
					     &res[g * o.nrows + i]);
		}

	if (!o.json_path || strcmp(o.json_path, "-") != 0)
		for (size_t g = 1; g < ngroups; g++) {
			if (g > 1)
				printf("\n");
			print_text(&groups[0], &groups[g], rounds, &o, &res[g * o.nrows]);
		}
	if (o.json_path) {
		char *cmdline = il_cmdline_join("inputlat", argc, argv);

		root = il_header_new(FILE_VERSION, cmdline, NULL);
		free(cmdline);
		if (!root) {
			fprintf(stderr, "compare: out of memory\n");
			rc = 1;
			goto out;
		}
		cJSON_AddStringToObject(root, "unit", rounds ? "round" : "event");
		cJSON_AddNumberToObject(root, "alpha", o.alpha);
		cJSON_AddItemToObject(root, "seed", il_json_u64(o.seed));
		cJSON_AddNumberToObject(root, "resamples", (double)o.resamples);
		/* What the warnings said on stderr: figures of unlike runs. */
		cJSON_AddItemToObject(root, "warnings", warnings);
		warnings = NULL;
		arr = cJSON_AddArrayToObject(root, "groups");
		for (size_t g = 0; g < ngroups; g++)
			cJSON_AddItemToArray(arr, group_json(&groups[g]));
		arr = cJSON_AddArrayToObject(root, "comparisons");
		for (size_t g = 1; g < ngroups; g++)
			for (size_t i = 0; i < o.nrows; i++)
				cJSON_AddItemToArray(
				    arr, row_json(&o.rows[i], &res[g * o.nrows + i], g));
		/* "-" is stdout: il_json_write goes through il_out, which knows it. */
		int w = il_json_write(o.json_path, root);

		if (w < 0) {
			fprintf(stderr, "compare: cannot write %s: %s\n", o.json_path,
				strerror(-w));
			rc = 1;
		}
	}
out:
	cJSON_Delete(root);
	cJSON_Delete(warnings);
	for (size_t g = 0; groups && g < ngroups; g++)
		group_free(&groups[g]);
	free(groups);
	free(res);
	return rc;
}
