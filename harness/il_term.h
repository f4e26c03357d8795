/*
 * What reaches a terminal from inputlat is text: names and paths come from
 * files anyone may have written (a policy's name, a report's fields), and
 * a terminal acts on control sequences in them (colours, a new window
 * title, in some terminals worse). When stdout or stderr is a terminal,
 * il_term_guard puts a filter in front of it that shows control
 * characters, invalid UTF-8 and the C1 controls as visible \xNN escapes,
 * leaving newlines and tabs alone. Pipes and files get the bytes as they
 * are.
 */
#ifndef IL_TERM_H
#define IL_TERM_H

#include <stddef.h>

/* Guards stdout and stderr (the stdio streams) where they are terminals,
 * and keeps the first error writing stdout, terminal or not. */
void il_term_guard(void);

/* The errno of the first failed write to stdout since il_term_guard, or 0. */
int il_term_stdout_error(void);

/*
 * The filter itself: copies in[0, len) to out as text safe for a terminal,
 * NUL-terminated. carry (3 bytes plus a count) holds an incomplete UTF-8
 * sequence at the end of in for the next call (NULL: escape it now).
 * Returns the length written to out, which needs 4 * (len + 3) + 1 bytes.
 */
struct il_term_carry {
	unsigned char b[3];
	size_t n;
};
size_t il_term_escape(const char *in, size_t len, struct il_term_carry *carry, char *out);

/* Undoes il_term_guard at the end of main (after the last write). */
void il_term_release(void);

#endif
