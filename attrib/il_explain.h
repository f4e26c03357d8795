/*
 * `inputlat explain`: a run's attribution in words, rtla-style, from its
 * JSON report (and its --records file for events the report did not keep).
 * Also the comparison of two runs: which component grew.
 */
#ifndef IL_EXPLAIN_H
#define IL_EXPLAIN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct il_explain_opts {
	uint64_t event;	     /* --event N (0: none) */
	unsigned worst;	     /* --worst K (0: none) */
	double percentile;   /* --percentile P (0: the default p50 and p99 summary) */
	bool json;	     /* --json: machine output of the same selection */
	const char *records; /* a --records file to look events up in, or NULL */
};

/*
 * Writes the explanation of run (a parsed run report) to out. Returns 0;
 * 2 with one line in err when the report cannot say (no attribution, or
 * the event asked for is in neither the report nor the records file).
 */
int il_explain_run(const cJSON *run, const char *path, const struct il_explain_opts *o, FILE *out,
		   char *err, size_t errlen);

/*
 * Compares two runs at percentile p (0: 50): latency and each component
 * of the band there, largest growth first. Returns 0, or 2 with err.
 */
int il_explain_compare(const cJSON *a, const char *path_a, const cJSON *b, const char *path_b,
		       const struct il_explain_opts *o, FILE *out, char *err, size_t errlen);

/*
 * A culprit object of a report ({thread, class, priority}) in words:
 * "render:js0 (SCHED_FIFO 10)", "an idle CPU (idle exit)", ... run is
 * the report it came from: what "throttled" was depends on what the run
 * had in force (NULL: every mechanism it could have been).
 */
void il_explain_culprit_words(const cJSON *run, const cJSON *c, char *buf, size_t n);

#endif
