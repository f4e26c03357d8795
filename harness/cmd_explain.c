/*
 * `inputlat explain RUN.json [B.json]`: why the run's mouse-downs took
 * what they took, from the attribution in its report (attrib/il_explain).
 * With two reports: which component grew from the first to the second.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "il_cmd.h"
#include "il_comparable.h"
#include "il_explain.h"
#include "il_header.h"
#include "il_report_sane.h"
#include "il_file.h"
#include "il_parse.h"
#include "il_printable.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: inputlat explain [options] RUN.json [B.json]\n"
	    "Says where each hop's time went in a run made with attribution (run --attribution),\n"
	    "rtla-style: work, preempted, send, wake, runqueue (and who held the CPU), busy,\n"
	    "dispatch, irq, residual. With a second report: which component grew from RUN to B.\n"
	    "  --event N         the hop table of event N (kept in the report, or in --records)\n"
	    "  -h, --help        this text\n"
	    "  --json            the same selection as JSON\n"
	    "  --percentile P    where the latency went at percentile P, 0 < P <= 100\n"
	    "                    (default: p50 and p99; with B.json: 50)\n"
	    "  --records FILE    the run's --records file, to explain any event\n"
	    "  --worst K         the hop tables of the K worst events the report kept\n");
}

int il_cmd_explain(int argc, char **argv)
{
	enum { OPT_EVENT = 256, OPT_JSON, OPT_PCT, OPT_RECORDS, OPT_WORST };
	static const struct option opts[] = {
	    {"event", required_argument, NULL, OPT_EVENT},
	    {"help", no_argument, NULL, 'h'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"percentile", required_argument, NULL, OPT_PCT},
	    {"records", required_argument, NULL, OPT_RECORDS},
	    {"worst", required_argument, NULL, OPT_WORST},
	    {NULL, 0, NULL, 0},
	};
	struct il_explain_opts o = {0};
	cJSON *a = NULL, *b = NULL;
	char err[1024];
	bool help = false;
	uint64_t v;
	int c, rc = 2;

	optind = 0; /* glibc: rescan from argv[1] whatever main parsed before. */
	opterr = 0;
	char opt[300]; /* what was wrong with a refused option, for its message */

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help = true;
			break;
		case OPT_EVENT:
			if (il_parse_u64(optarg, 1, UINT64_MAX, &o.event) < 0) {
				fprintf(stderr,
					"explain: --event '%s': expected an event id (1, 2, ...)\n",
					optarg);
				return 2;
			}
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_PCT:
			if (il_parse_double(optarg, 1e-9, 100, &o.percentile) < 0) {
				fprintf(stderr,
					"explain: --percentile '%s': expected a number above 0, at "
					"most 100\n",
					optarg);
				return 2;
			}
			break;
		case OPT_RECORDS:
			o.records = optarg;
			break;
		case OPT_WORST:
			if (il_parse_u64(optarg, 1, 10000, &v) < 0) {
				fprintf(stderr,
					"explain: --worst '%s': expected a count from 1 to 10000\n",
					optarg);
				return 2;
			}
			o.worst = (unsigned)v;
			break;
		case ':':
			fprintf(stderr, "explain: %s needs a value (see inputlat explain --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "explain: %s (see inputlat explain --help)\n",
				il_parse_option_error(argv, opts, opt, sizeof(opt)));
			return 2;
		}
	}
	/* Alone: 'explain --help RUN.json' printed the help and explained nothing. */
	if (help && optind < argc) {
		fprintf(
		    stderr,
		    "explain: unexpected argument '%s' with --help (see inputlat explain --help)\n",
		    argv[optind]);
		return 2;
	}
	if (help) {
		usage(stdout);
		return 0;
	}
	if (argc - optind < 1 || argc - optind > 2) {
		fprintf(stderr,
			"explain: expected RUN.json [B.json], got %d files (see inputlat explain "
			"--help)\n",
			argc - optind);
		return 2;
	}
	if (o.event && o.worst) {
		fprintf(stderr, "explain: --event and --worst select different events; give one\n");
		return 2;
	}
	/* Options that would be silently ignored are refused. */
	if (o.records && !o.event) {
		fprintf(stderr, "explain: --records is where --event N looks for an event the "
				"report did not keep; give --event too\n");
		return 2;
	}
	if (argc - optind == 2 && (o.event || o.worst || o.records || o.json)) {
		fprintf(stderr, "explain: two reports are compared at --percentile P; --event, "
				"--worst, --records and --json apply to one report\n");
		return 2;
	}
	if (il_json_load(argv[optind], &a, err, sizeof(err)) < 0 ||
	    (argc - optind == 2 && il_json_load(argv[optind + 1], &b, err, sizeof(err)) < 0)) {
		fprintf(stderr, "explain: %s\n", err);
		goto out;
	}
	/* Another version's keys mean other things: refused, not misread. */
	for (int i = 0; i < 2; i++) {
		const cJSON *r = i ? b : a;
		char why[160];

		if (r && il_header_version_check(r, IL_RUN_FILE_VERSION, why, sizeof(why)) < 0) {
			fprintf(stderr, "explain: %s: %s\n",
				il_printable_copy(argv[optind + i], err, sizeof(err)), why);
			goto out;
		}
		/* Values no run writes: "p50 inf ms", "-5 events" were printed
		 * (compare refuses the same, il_report_sane). */
		if (r && cJSON_IsObject(r) && il_report_sane(r, why, sizeof(why)) < 0) {
			fprintf(stderr, "explain: %s: %s\n",
				il_printable_copy(argv[optind + i], err, sizeof(err)), why);
			goto out;
		}
	}
	/* A run against itself: "slower by 0 us" is a measurement of nothing.
	 * Runs of two machines or scenarios are compared as asked, said. */
	if (b) {
		char pa[300], pb[300], diff[768];
		bool file = il_out_path_same(argv[optind], argv[optind + 1]);

		il_printable_copy(argv[optind], pa, sizeof(pa));
		il_printable_copy(argv[optind + 1], pb, sizeof(pb));
		if (file || il_comparable_same_run(a, b)) {
			fprintf(stderr,
				"explain: %s: the same %s as %s (a run compared with itself says "
				"nothing: give two runs)\n",
				pb, file ? "report" : "run", pa);
			goto out;
		}
		if (il_comparable_diff(a, b, IL_COMPARABLE_ALL, diff, sizeof(diff)))
			fprintf(stderr,
				"explain: warning: %s and %s are not runs of one machine and "
				"scenario (%s): what changed is that too, not only the policy\n",
				pa, pb, diff);
	}
	/* Report strings in the output are made printable where they are
	 * printed (il_explain.c); the one line on stderr may quote them too. */
	if (b)
		rc = il_explain_compare(a, argv[optind], b, argv[optind + 1], &o, stdout, err,
					sizeof(err));
	else
		rc = il_explain_run(a, argv[optind], &o, stdout, err, sizeof(err));
	if (rc == 2)
		fprintf(stderr, "explain: %s\n", il_printable(err));
	/* A failed write to stdout is main's to say (finish_stdout): flushed
	 * here, it made explain exit 1 with nothing said. */
out:
	cJSON_Delete(a);
	cJSON_Delete(b);
	return rc;
}
