/*
 * Text that came from a file somebody else wrote (a saved report, another
 * process's name), made safe to print on a terminal: an escape sequence in
 * it would act on the terminal of whoever reads the output later. Control
 * characters (C0 and DEL, newlines too: a report's string must not forge
 * lines of the output) become '?', as ps shows them. The terminal guard
 * (harness/il_term.h) escapes what a command prints on a terminal; this is
 * for strings that must stay on one line whatever stdout is.
 */
#ifndef IL_PRINTABLE_H
#define IL_PRINTABLE_H

#include <stddef.h>

/* s with every control character (newlines too) replaced, in place. */
char *il_printable(char *s);

/* The first n-1 bytes of t, replaced likewise, into buf; returns buf. */
const char *il_printable_copy(const char *t, char *buf, size_t n);

#endif
