/*
 * --trace-marker's account, one per process: the markers written to
 * tracefs's trace_marker, those the kernel refused (and the first errno),
 * or why the file never opened. Every process of a run keeps one and the
 * report shows them all (trace_marker.processes), so that a trace lacking
 * markers says why. Writers may be several threads: the counts are atomic.
 */
#ifndef IL_MARKS_H
#define IL_MARKS_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct il_marks {
	bool asked;   /* --trace-marker was given to this process */
	int open_err; /* errno of the open, 0 when it opened */
	_Atomic uint64_t written, failed;
	_Atomic int first_err;
};

/* Writes buf (n bytes) to fd, the opened trace_marker, and counts the outcome. */
void il_marks_write(struct il_marks *m, int fd, const char *buf, size_t n);

/* {"written": N, "failed": M, "first_error": "..."|null, "open_error": "..."|null}. */
cJSON *il_marks_json(const struct il_marks *m);

#endif
