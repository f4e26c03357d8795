#include "il_parse.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int il_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* strtoull accepts "-1" and leading blanks; we accept digits only.
	 * A negative whole number is a number, below every unsigned range:
	 * "-1 is out of range (1..1024)", not "'-1' is not a number". */
	if (s && s[0] == '-' && isdigit((unsigned char)s[1]) &&
	    s[1 + strspn(s + 1, "0123456789")] == '\0') {
		bool zero = s[1 + strspn(s + 1, "0")] == '\0'; /* "-0" is 0 */

		return zero ? il_parse_u64(s + 1, min, max, out) : -ERANGE;
	}
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int il_parse_hex_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* Digits only: strtoull alone would take a "0x" prefix, a sign or
	 * leading space. */
	if (!s || !s[0] || s[strspn(s, "0123456789abcdefABCDEF")] != '\0')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int il_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;
	const char *d = s;

	if (!s)
		return -EINVAL;
	if (*d == '-')
		d++;
	if (!isdigit((unsigned char)*d))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int il_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;
	const char *d = s;

	if (!s)
		return -EINVAL;
	if (*d == '-')
		d++;
	if (!isdigit((unsigned char)*d) && *d != '.')
		return -EINVAL;
	/* strtod also reads hexadecimal ("0x1p3"): numbers here are decimal. */
	if (d[strspn(d, "0123456789.eE+-")] != '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s)
		return -EINVAL;
	/*
	 * A decimal number too large for a double is out of range, not "not a
	 * number"; one too small (1e-400) is as near to zero as a double
	 * gets, which strtod returned, and is judged as that value.
	 */
	if (!isfinite(v))
		return errno == ERANGE ? -ERANGE : -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int il_parse_list_has_empty(const char *s)
{
	size_t n = strlen(s);

	return n == 0 || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,") != NULL;
}

const char *il_parse_option_error(char *const *argv, const struct option *longopts, char *buf,
				  size_t len)
{
	char shrt[8];
	const char *a = il_parse_bad_option(argv, shrt, sizeof(shrt));
	size_t n = 0, used;
	int k = 0;

	if (longopts && a[0] == '-' && a[1] == '-' && a[2] != '\0' && a[2] != '=') {
		n = strcspn(a + 2, "=");
		for (const struct option *o = longopts; o->name; o++)
			k += strncmp(o->name, a + 2, n) == 0;
	}
	if (k < 2) {
		snprintf(buf, len, "unknown option '%s'", a);
		return buf;
	}
	/* Each step stops at a full buffer: snprintf cuts, used stays < len. */
	used = (size_t)snprintf(buf, len, "ambiguous option '%.*s' (", (int)n + 2, a);
	k = 0;
	for (const struct option *o = longopts; o->name && used < len; o++)
		if (strncmp(o->name, a + 2, n) == 0)
			used += (size_t)snprintf(buf + used, len - used, "%s--%s", k++ ? ", " : "",
						 o->name);
	if (used < len)
		snprintf(buf + used, len - used, ")");
	return buf;
}

const char *il_parse_bad_option(char *const *argv, char *buf, size_t len)
{
	/* An unknown short option sets optopt to its letter; a long one, 0. */
	if (optopt > 0 && optopt < 128) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	return argv[optind - 1];
}

int il_parse_one_line(const char *text, size_t n, size_t *len)
{
	if (n && text[n - 1] == '\n')
		n--;
	if (memchr(text, '\n', n) || memchr(text, '\0', n))
		return -EINVAL;
	*len = n;
	return 0;
}
