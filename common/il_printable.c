#include "il_printable.h"

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

char *il_printable(char *s)
{
	for (char *p = s; *p; p++)
		if (is_control((unsigned char)*p))
			*p = '?';
	return s;
}

const char *il_printable_copy(const char *t, char *buf, size_t n)
{
	size_t i = 0;

	if (!n)
		return buf;
	for (; t[i] && i + 1 < n; i++)
		buf[i] = is_control((unsigned char)t[i]) ? '?' : t[i];
	buf[i] = '\0';
	return buf;
}
