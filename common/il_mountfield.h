/*
 * The fields of the kernel's mount tables (/proc/self/mounts and
 * mountinfo), read the way the kernel writes them: a path escapes space,
 * tab, newline and backslash as \ooo, and nothing else; options are a
 * comma-separated list. Lengths are explicit, so a field is read in the
 * line it came from and never past it.
 */
#ifndef IL_MOUNTFIELD_H
#define IL_MOUNTFIELD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The path field [s, s + n) unescaped into out (size len). false when it
 * does not fit, or is not the kernel's escaping (a backslash of its own,
 * a raw tab, "\000" or "\101"): a path cut short, or read two ways, is
 * another path.
 */
bool il_mountfield_unescape(const char *s, size_t n, char *out, size_t len);

/* Whether the comma-separated list [list, list + n) holds word. */
bool il_mountfield_has_word(const char *list, size_t n, const char *word);

/* Splits the line [p, end) at single spaces into at most max fields
 * (f[i] of flen[i] bytes); returns how many. */
size_t il_mountfield_split(const char *p, const char *end, const char **f, size_t *flen,
			   size_t max);

#endif
