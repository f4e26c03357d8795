/*
 * Kernel attribution as one of the run's event sinks (il_event_sink.h):
 * it follows the run's threads from the start, explains every completed
 * event in id order, hands each event's breakdown to --records, and adds
 * "attribution" to the run's JSON. The capture itself (attrib/il_attrib_run)
 * is owned by the run; the orchestrator drains it on its tick.
 */
#ifndef IL_ATTRIB_SINK_H
#define IL_ATTRIB_SINK_H

#include <stdio.h>

#include "il_attrib_run.h"
#include "il_event_sink.h"

/* A sink over a (not owned). Returns 0 or -ENOMEM. */
int il_attrib_sink_new(struct il_attrib_run *a, struct il_event_sink *out);

/*
 * Writes `,"attribution":{...}` for event ev into a --records line when
 * the sink explained it (see il_records_sink_field). ctx is the sink's ctx.
 */
void il_attrib_sink_records_field(void *ctx, const struct il_event *ev, FILE *f);

#endif
