/*
 * One round's latency statistic for a verdict, over every event the round
 * measured. A report's latency_us percentiles are of the completed events
 * only; an event that timed out (or was dropped in the chain, or was still
 * in flight at the stop) was slower than all of them, and leaving it out
 * flatters the round: a policy under which most clicks took over a second
 * was called lower. Here the events a round lost count as slower than any
 * it completed, so its pX is the completed events' quantile at the rank X
 * takes among all of them, or lies beyond the timeout (censored) when the
 * lost events reach that rank; the mean of a round that lost any is
 * unknown. compare and reproduce read rounds through this.
 */
#ifndef IL_ROUND_LATENCY_H
#define IL_ROUND_LATENCY_H

#include <cjson/cJSON.h>
#include <stddef.h>

enum il_round_status {
	IL_ROUND_VALUE,	   /* *value is the statistic over every event */
	IL_ROUND_CENSORED, /* beyond the timeout: lost events reach its rank */
	IL_ROUND_MISSING,  /* the report does not say (no such number, no samples) */
};

/*
 * latency "processing" or "presentation"; stat its key in the report
 * ("p50", "mean") and q its quantile in 0..1, or IL_STATS_MEAN for the
 * mean. A round that lost no event gives the report's own figure. One
 * that lost some needs its per-event samples (samples_us.<latency>) to
 * place the rank, and gives MISSING without them. *lost gets the events
 * the round lost (sent - completed: a completed event with its stamps out
 * of order is in no figure, but was not lost), when not NULL.
 */
enum il_round_status il_round_latency(const cJSON *report, const char *latency, const char *stat,
				      double q, double *value, double *lost);

/*
 * A report's per-event samples of latency (samples_us.<latency>), the
 * positive numbers in event order, malloc'd; NULL with *n 0 when it keeps
 * none (or out of memory).
 */
double *il_round_samples(const cJSON *report, const char *latency, size_t *n);

#endif
