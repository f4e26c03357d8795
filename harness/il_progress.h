/*
 * Progress of long work on stderr (cyclictest and schbench do it): one
 * line redrawn in place, only when stderr is a terminal, so logs and
 * pipes get nothing. Written straight to fd 2, whole, without escape
 * sequences: a carriage return and spaces redraw it.
 */
#ifndef IL_PROGRESS_H
#define IL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IL_PROGRESS_PERIOD_MS 250

struct il_progress {
	bool on;
	size_t shown; /* characters of the line on screen, 0 when none */
	uint64_t last_ns;
};

/* On when stderr is a terminal and not quiet. */
void il_progress_init(struct il_progress *p, bool quiet);

/* True when a new line is due (on, and IL_PROGRESS_PERIOD_MS since the last). */
bool il_progress_due(struct il_progress *p, uint64_t now_ns);

/* Draws the line (printf-style) over the previous one. */
void il_progress_show(struct il_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Erases the line, so what follows on stderr starts on a clean one. */
void il_progress_clear(struct il_progress *p);

#endif
