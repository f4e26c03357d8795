/*
 * Text that came from a file somebody else wrote (a saved report, another
 * process's name), made safe to print on a terminal: an escape sequence in
 * it would act on the terminal of whoever reads the output later. Control
 * characters (C0 and DEL) become '?', as ps shows them; newline and tab
 * are kept only where whole output texts are filtered.
 */
#ifndef IL_PRINTABLE_H
#define IL_PRINTABLE_H

#include <stddef.h>
#include <stdio.h>

/* s with every control character (newlines too) replaced, in place. */
char *il_printable(char *s);

/* The first n-1 bytes of t, replaced likewise, into buf; returns buf. */
const char *il_printable_copy(const char *t, char *buf, size_t n);

/* Writes len bytes of text to f, controls replaced except newline and
 * tab; returns 0, or -1 when the write failed. */
int il_printable_write(const char *text, size_t len, FILE *f);

#endif
