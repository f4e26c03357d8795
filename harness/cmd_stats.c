/*
 * `inputlat stats fdr [--alpha A] [--json FILE] P [P ...]`: the level at
 * which each comparison of a family is judged so that the family's
 * verdicts hold one error rate (Benjamini-Hochberg, il_stats_fdr_level in
 * common/il_stats.h). scripts/policy-sweep collects the p-values of its
 * table from `inputlat compare --json`, asks this for the level, and
 * judges the table again with `inputlat compare --alpha LEVEL`: the
 * verdicts and intervals it prints are then the family's.
 */
#include "il_cmd.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_file.h"
#include "il_header.h"
#include "il_parse.h"
#include "il_stats.h"

#define FILE_VERSION 1
#define MAX_FAMILY   4096

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: inputlat stats fdr [options] P [P ...]\n"
		"The level at which to judge each of a family of comparisons (their two-sided\n"
		"p-values P, from `inputlat compare --json`) so that the family holds a false\n"
		"discovery rate of A (Benjamini-Hochberg): where nothing differs, the chance of\n"
		"any verdict at all is at most A. Judge each comparison at that level\n"
		"(`inputlat compare --alpha LEVEL`); its intervals then agree with the verdicts.\n"
		"  -a, --alpha A        the family's error rate (default 0.05)\n"
		"  -h, --help           this text\n"
		"  -j, --json FILE      the result as JSON (- for stdout, then no text)\n");
}

static int usage_line(const char *what)
{
	fprintf(stderr, "inputlat stats: %s (see inputlat stats fdr --help)\n", what);
	return 2;
}

static int write_json(const char *path, int argc, char **argv, double alpha, size_t m,
		      size_t rejected, double level)
{
	char *cmdline = il_cmdline_join("inputlat stats", argc, argv);
	cJSON *root = il_header_new(FILE_VERSION, cmdline, NULL);
	int rc = 0, w;

	free(cmdline);
	if (!root) {
		fprintf(stderr, "inputlat stats: out of memory\n");
		return 1;
	}
	cJSON_AddStringToObject(root, "method", "Benjamini-Hochberg");
	cJSON_AddNumberToObject(root, "alpha", alpha);
	cJSON_AddNumberToObject(root, "m", (double)m);
	cJSON_AddNumberToObject(root, "rejected", (double)rejected);
	cJSON_AddNumberToObject(root, "level", level);
	/* "-" is stdout: il_json_write goes through il_out, which knows it. */
	w = il_json_write(path, root);
	if (w < 0) {
		fprintf(stderr, "inputlat stats: cannot write %s: %s\n", path, strerror(-w));
		rc = 1;
	}
	cJSON_Delete(root);
	return rc;
}

static int cmd_fdr(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"alpha", required_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {"json", required_argument, NULL, 'j'},
	    {NULL, 0, NULL, 0},
	};
	double alpha = IL_STATS_ALPHA, level, *p;
	const char *json_path = NULL;
	char what[300];
	size_t m, rejected;
	bool help = false;
	int c, rc;

	optind = 0; /* glibc: rescan from argv[1] whatever main parsed before. */
	opterr = 0;
	char opt[300]; /* what was wrong with a refused option, for its message */

	while ((c = getopt_long(argc, argv, ":a:hj:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (il_parse_double(optarg, 1e-6, 0.5, &alpha) < 0) {
				snprintf(what, sizeof(what),
					 "--alpha '%s': expected a number from 0.000001 to 0.5",
					 optarg);
				return usage_line(what);
			}
			break;
		case 'h':
			help = true;
			break;
		case 'j':
			json_path = optarg;
			break;
		case ':':
			snprintf(what, sizeof(what), "%s needs a value", argv[optind - 1]);
			return usage_line(what);
		default:
			/* "-0.1" is a p-value out of range, not an option "-0". */
			for (int k = optind; k >= optind - 1 && k >= 1; k--)
				if (k < argc && argv[k][0] == '-' && argv[k][1] == optopt &&
				    (isdigit((unsigned char)optopt) || optopt == '.')) {
					snprintf(what, sizeof(what),
						 "fdr: p-value '%.40s': expected a number from 0 "
						 "to 1",
						 argv[k]);
					return usage_line(what);
				}
			snprintf(what, sizeof(what), "%s",
				 il_parse_option_error(argv, longopts, opt, sizeof(opt)));
			return usage_line(what);
		}
	}
	/* Alone: 'fdr --help 0.01' printed the help and judged nothing. */
	if (help && optind < argc) {
		snprintf(what, sizeof(what), "fdr: unexpected argument '%.40s' with --help",
			 argv[optind]);
		return usage_line(what);
	}
	if (help) {
		usage(stdout);
		return 0;
	}
	m = (size_t)(argc - optind);
	if (m == 0)
		return usage_line("fdr: no p-values given");
	if (m > MAX_FAMILY) {
		snprintf(what, sizeof(what), "fdr: %zu p-values, at most %d", m, MAX_FAMILY);
		return usage_line(what);
	}
	p = malloc(sizeof(*p) * m);
	if (!p) {
		fprintf(stderr, "inputlat stats: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < m; i++)
		if (il_parse_double(argv[optind + (int)i], 0, 1, &p[i]) < 0) {
			snprintf(what, sizeof(what),
				 "fdr: p-value '%.40s': expected a number from 0 to 1",
				 argv[optind + (int)i]);
			free(p);
			return usage_line(what);
		}
	/* The output checked before any work, as every command's --json. */
	if (json_path && strcmp(json_path, "-") != 0) {
		char err[600];

		if (il_out_check("--json", json_path, err, sizeof(err)) < 0) {
			fprintf(stderr, "inputlat stats: %s\n", err);
			free(p);
			return 2;
		}
	}
	level = il_stats_fdr_level(p, m, alpha, &rejected);
	free(p);
	if (isnan(level)) {
		fprintf(stderr, "inputlat stats: fdr: out of memory\n");
		return 1;
	}
	if (json_path) {
		rc = write_json(json_path, argc, argv, alpha, m, rejected, level);
		if (rc || strcmp(json_path, "-") == 0)
			return rc;
	}
	printf("level %.6g: %zu of %zu comparisons differ at a %g%% false discovery rate "
	       "(Benjamini-Hochberg); judge each at alpha %.6g, intervals at %.4g%%\n",
	       level, rejected, m, 100 * alpha, level, 100 * (1 - level));
	return 0;
}

int il_cmd_stats(int argc, char **argv)
{
	if (argc < 2)
		return usage_line("no verb given (the one verb is fdr)");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		char what[300];

		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		snprintf(what, sizeof(what), "unexpected argument '%.40s' after %s", argv[2],
			 argv[1]);
		return usage_line(what);
	}
	if (strcmp(argv[1], "fdr") == 0)
		return cmd_fdr(argc - 1, argv + 1);
	{
		char what[300];

		snprintf(what, sizeof(what), "unknown verb '%.40s' (the one verb is fdr)", argv[1]);
		return usage_line(what);
	}
}
