#include "il_mountfield.h"

#include <string.h>

bool il_mountfield_unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t w = 0;

	for (size_t r = 0; r < n; r++) {
		char c = s[r];

		if (c == '\\') {
			if (r + 3 >= n || s[r + 1] < '0' || s[r + 1] > '3' || s[r + 2] < '0' ||
			    s[r + 2] > '7' || s[r + 3] < '0' || s[r + 3] > '7')
				return false;
			c = (char)((s[r + 1] - '0') * 64 + (s[r + 2] - '0') * 8 + (s[r + 3] - '0'));
			if (c != ' ' && c != '\t' && c != '\n' && c != '\\')
				return false;
			r += 3;
		} else if (c == '\t' || c == '\0') {
			return false; /* the kernel escapes a tab, and writes no NUL */
		}
		if (w + 1 >= len)
			return false;
		out[w++] = c;
	}
	if (len == 0)
		return false;
	out[w] = '\0';
	return true;
}

bool il_mountfield_has_word(const char *list, size_t n, const char *word)
{
	size_t wn = strlen(word);

	for (size_t i = 0; i < n;) {
		size_t item = 0;

		while (i + item < n && list[i + item] != ',')
			item++;
		if (item == wn && memcmp(list + i, word, wn) == 0)
			return true;
		i += item + 1;
	}
	return false;
}

size_t il_mountfield_split(const char *p, const char *end, const char **f, size_t *flen, size_t max)
{
	size_t n = 0;

	while (p < end && n < max) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));

		f[n] = p;
		flen[n++] = (size_t)((sp ? sp : end) - p);
		p = sp ? sp + 1 : end;
	}
	return n;
}
