/*
 * The outputs written while the run goes, as event sinks
 * (il_event_sink.h): --records (one JSON object a line per event) and
 * --trace (Chrome trace-event JSON). Each takes an output the run opened
 * (il_out, checked before the run starts) and owns it from then on, writes
 * an event as soon as it is final, so memory does not grow with the run,
 * and puts the file in place only when it is complete.
 */
#ifndef IL_OUTPUTS_H
#define IL_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "il_attrib_run.h"
#include "il_event_sink.h"
#include "il_file.h"

/*
 * --records FILE: {"id","state","warmup","kernel_ns","stamp_ns"[13],"end_ns"[13],
 * "tid"[13],"cpu"[13] (null when unknown),"work_cpu_ns"[13]} per event, in
 * id order, every event the run sent (completed, timed out, or pending at
 * the end). kernel_ns is the kernel's timestamp of the press where the
 * reader reads a kernel device (kernel_stamps: uinput, evdev), else null.
 * Returns 0 or -errno after one line on stderr.
 */
int il_records_sink_new(struct il_out *o, bool kernel_stamps, struct il_event_sink *out);

/*
 * Adds fields to every --records line: fn writes `,"key":value...` for ev
 * (or nothing). s is the records sink, before it is added to the run.
 */
typedef void (*il_records_field_fn)(void *ctx, const struct il_event *ev, FILE *f);
void il_records_sink_field(struct il_event_sink *s, il_records_field_fn fn, void *ctx);

/*
 * --trace FILE: the first max_events completed mouse-downs after the
 * warm-up (warm-up ones are left out, as from every statistic, and
 * counted in otherData.warmup_left_out), time in
 * absolute CLOCK_MONOTONIC microseconds (so it lines up with kernel
 * traces on that clock), with the run's counter tracks. Returns 0 or
 * -errno after one line on stderr.
 */
int il_trace_sink_new(struct il_out *o, size_t max_events, struct il_event_sink *out);

/*
 * With attribution on, the trace also gets one track per CPU with what
 * ran there (the run's threads and whoever held a CPU they waited for)
 * over the time of the traced mouse-downs, inside the capture window
 * (attribution.capture_window_ns) as every per-thread figure. s is the
 * trace sink.
 */
void il_trace_sink_cpu_tracks(struct il_event_sink *s, struct il_attrib_run *a);

#endif
