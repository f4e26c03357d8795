/*
 * The outputs written while the run goes, as event sinks
 * (il_event_sink.h): --records (one JSON object a line per event) and
 * --trace (Chrome trace-event JSON). Each constructor creates its file at
 * once, so a path that cannot be written is reported before the run
 * starts, and each writes an event as soon as it is final, so memory does
 * not grow with the run.
 */
#ifndef IL_OUTPUTS_H
#define IL_OUTPUTS_H

#include <stddef.h>

#include "il_event_sink.h"

/*
 * --records FILE: {"id","state","kernel_ns","stamp_ns"[13],"end_ns"[13],
 * "tid"[13],"cpu"[13] (null when unknown),"work_cpu_ns"[13]} per event, in
 * id order, every event the run sent (completed, timed out, or pending at
 * the end). Returns 0 or -errno after one line on stderr.
 */
int il_records_sink_new(const char *path, struct il_event_sink *out);

/*
 * --trace FILE: the first max_events completed mouse-downs, time since
 * the start of measurement, with the run's counter tracks. Returns 0 or
 * -errno after one line on stderr.
 */
int il_trace_sink_new(const char *path, size_t max_events, struct il_event_sink *out);

#endif
