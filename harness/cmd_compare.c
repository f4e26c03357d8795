/* `inputlat compare A.json B.json`: a quick A/B check of two run reports. */
#include "il_cmd.h"

#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_bootstrap.h"
#include "il_file.h"
#include "il_parse.h"

#define IL_COMPARE_MAX_FILE (256u << 20)
/* Enough samples for a tight interval; more only costs time. */
#define IL_COMPARE_MAX_SAMPLES 20000u
#define IL_COMPARE_SEED 1u

static const char *const stat_keys[] = { "min", "p50", "p90", "p99", "p999", "max", "mean" };
#define NSTATS (sizeof(stat_keys) / sizeof(stat_keys[0]))

struct report {
	const char *path;
	cJSON *root;
	double *samples;
	size_t nsamples;
	const char *sample_source;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: inputlat compare [options] A.json B.json\n"
		   "Prints two `inputlat run --json` reports side by side with B/A ratios.\n"
		   "  -h, --help           this text\n"
		   "  -r, --resamples N    bootstrap resamples for the 95%% interval (default 2000)\n");
}

static bool sample_pair(const cJSON *it, bool per_event, double *value, double *count)
{
	const cJSON *v = per_event ? it : cJSON_GetArrayItem(it, 0);
	const cJSON *c = per_event ? NULL : cJSON_GetArrayItem(it, 1);

	if (!cJSON_IsNumber(v) || (!per_event && !cJSON_IsNumber(c)))
		return false;
	*value = v->valuedouble;
	*count = per_event ? 1 : floor(fmax(0, c->valuedouble));
	return true;
}

/*
 * Per-event processing latencies: the report's own samples when it has
 * them, otherwise the histogram expanded (each bucket's upper bound
 * repeated count times), thinned evenly to at most IL_COMPARE_MAX_SAMPLES.
 */
static int load_samples(struct report *r)
{
	const cJSON *arr = il_json_get(r->root, "samples_us.processing"), *it;
	bool per_event = cJSON_IsArray(arr) && cJSON_GetArraySize(arr) > 0;
	double total = 0, seen = 0, value, count, keep;

	if (!per_event)
		arr = il_json_get(r->root, "histogram.buckets");
	if (!cJSON_IsArray(arr))
		return 0;
	r->sample_source = per_event ? "per-event samples" : "histogram buckets";
	cJSON_ArrayForEach(it, arr)
		if (sample_pair(it, per_event, &value, &count))
			total += count;
	if (total < 1)
		return 0;
	keep = fmin(total, IL_COMPARE_MAX_SAMPLES);
	r->samples = malloc(sizeof(double) * (size_t)keep);
	if (!r->samples)
		return -ENOMEM;

	/* Expanded positions [seen, seen + count) map onto kept slots in proportion. */
	cJSON_ArrayForEach(it, arr) {
		size_t from, to;

		if (!sample_pair(it, per_event, &value, &count))
			continue;
		from = (size_t)floor(seen * keep / total);
		seen += count;
		to = (size_t)floor(seen * keep / total);
		while (from < to && r->nsamples < (size_t)keep) {
			r->samples[r->nsamples++] = value;
			from++;
		}
	}
	return 0;
}

static int load_report(struct report *r, const char *path)
{
	static const char *const required[] = { "events.sent", "events.completed",
						 "events.timed_out" };
	const char *end = NULL;
	char key[64];
	size_t len;
	char *text;

	r->path = path;
	text = il_file_read(path, IL_COMPARE_MAX_FILE, &len);
	if (!text) {
		fprintf(stderr, "compare: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* len + 1: cJSON wants the terminating NUL inside the buffer it is given. */
	r->root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
	if (!r->root || !cJSON_IsObject(r->root)) {
		fprintf(stderr, "compare: %s: not a JSON object (error near byte %zu)\n", path,
			end ? (size_t)(end - text) : (size_t)0);
		free(text);
		return -1;
	}
	free(text);

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!cJSON_IsNumber(il_json_get(r->root, required[i]))) {
			fprintf(stderr, "compare: %s: missing key %s (is it an inputlat run --json report?)\n",
				path, required[i]);
			return -1;
		}
	for (int lat = 0; lat < 2; lat++)
		for (size_t i = 0; i < NSTATS; i++) {
			const cJSON *o;

			snprintf(key, sizeof(key), "latency_us.%s.%s",
				 lat ? "presentation" : "processing", stat_keys[i]);
			o = il_json_get(r->root, key);
			if (!cJSON_IsNumber(o) && !cJSON_IsNull(o)) {
				fprintf(stderr, "compare: %s: missing key %s (is it an inputlat run --json report?)\n",
					path, key);
				return -1;
			}
		}
	if (load_samples(r) < 0) {
		fprintf(stderr, "compare: %s: out of memory\n", path);
		return -1;
	}
	return 0;
}

static void print_row(const char *label, double a, double b, const char *fmt)
{
	char sa[32] = "-", sb[32] = "-", sr[32] = "-";

	if (!isnan(a))
		snprintf(sa, sizeof(sa), fmt, a);
	if (!isnan(b))
		snprintf(sb, sizeof(sb), fmt, b);
	if (!isnan(a) && !isnan(b) && a != 0)
		snprintf(sr, sizeof(sr), "%.2f", b / a);
	printf("%-38s %12s %12s %8s\n", label, sa, sb, sr);
}

static const char *policy_of(const cJSON *root)
{
	const cJSON *p = il_json_get(root, "policy");

	return cJSON_IsString(p) ? p->valuestring : "?";
}

/* Hop k's entry in hops[], matched by its index key, or NULL. */
static const cJSON *hop_of(const cJSON *root, int k)
{
	const cJSON *hops = il_json_get(root, "hops"), *h;

	cJSON_ArrayForEach(h, hops) {
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(h, "index");

		if (cJSON_IsNumber(idx) && idx->valueint == k)
			return h;
	}
	return NULL;
}

static void print_comparison(const struct report *a, const struct report *b, unsigned resamples)
{
	static const char *const ev[][2] = { { "events.sent", "events sent" },
					     { "events.completed", "completed" },
					     { "events.timed_out", "timed out" } };
	char key[64], label[64];
	double ratio, lo, hi;
	int r;

	printf("# inputlat compare\n# A = %s (policy %s)\n# B = %s (policy %s)\n", a->path,
	       policy_of(a->root), b->path, policy_of(b->root));
	printf("%-38s %12s %12s %8s\n", "#", "A", "B", "B/A");
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		print_row(ev[i][1], il_json_num(a->root, ev[i][0]), il_json_num(b->root, ev[i][0]), "%.0f");
	for (int lat = 0; lat < 2; lat++)
		for (size_t i = 0; i < NSTATS; i++) {
			const char *what = lat ? "presentation" : "processing";

			snprintf(key, sizeof(key), "latency_us.%s.%s", what, stat_keys[i]);
			snprintf(label, sizeof(label), "%s %s (us)", what, stat_keys[i]);
			print_row(label, il_json_num(a->root, key), il_json_num(b->root, key), "%.1f");
		}
	for (int k = 1; k <= 12; k++) {
		const cJSON *ha = hop_of(a->root, k), *hb = hop_of(b->root, k);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(ha ? ha : hb, "name");

		if (!ha && !hb)
			continue;
		snprintf(label, sizeof(label), "hop %2d %s p50 (us)", k,
			 cJSON_IsString(name) ? name->valuestring : "");
		print_row(label, il_json_num(ha, "p50_us"), il_json_num(hb, "p50_us"), "%.1f");
	}

	if (!a->nsamples || !b->nsamples) {
		printf("# no per-event samples or histogram in %s: no confidence interval\n",
		       !a->nsamples ? a->path : b->path);
		return;
	}
	r = il_bootstrap_ratio_ci(a->samples, a->nsamples, b->samples, b->nsamples, resamples,
				  IL_COMPARE_SEED, &ratio, &lo, &hi);
	if (r < 0) {
		printf("# no confidence interval: %s\n", strerror(-r));
		return;
	}
	printf("# processing mean B/A %.3f, 95%% CI %.3f-%.3f (bootstrap, %u resamples of %zu and "
	       "%zu values from %s%s%s): %s\n",
	       ratio, lo, hi, resamples, a->nsamples, b->nsamples, a->sample_source,
	       strcmp(a->sample_source, b->sample_source) ? " and " : "",
	       strcmp(a->sample_source, b->sample_source) ? b->sample_source : "",
	       hi < 1 ? "B is lower" : lo > 1 ? "B is higher" : "no clear difference");
}

int il_cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' },
					      { "resamples", required_argument, NULL, 'r' },
					      { NULL, 0, NULL, 0 } };
	struct report a = { 0 }, b = { 0 };
	uint64_t resamples = 2000;
	int c, rc = 2;

	optind = 0; /* glibc: rescan from argv[1] whatever main parsed before. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hr:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'r':
			if (il_parse_u64(optarg, 1, 1000000, &resamples) < 0) {
				fprintf(stderr, "compare: --resamples '%s': expected a whole number from 1 to 1000000\n",
					optarg);
				return 2;
			}
			break;
		case ':':
			fprintf(stderr, "compare: %s needs a value; usage: inputlat compare [--resamples N] A.json B.json\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "compare: unknown option '%s'; usage: inputlat compare [--resamples N] A.json B.json\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "compare: expected two report files, got %d; usage: inputlat compare [--resamples N] A.json B.json\n",
			argc - optind);
		return 2;
	}
	if (load_report(&a, argv[optind]) == 0 && load_report(&b, argv[optind + 1]) == 0) {
		print_comparison(&a, &b, (unsigned)resamples);
		rc = 0;
	}
	free(a.samples);
	free(b.samples);
	cJSON_Delete(a.root);
	cJSON_Delete(b.root);
	return rc;
}
