#include "il_term.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Length of the UTF-8 sequence a lead byte starts, 0 for a byte that cannot. */
static size_t seq_len(unsigned char c)
{
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

/* True when s[0, n) is a valid sequence that is not a C1 control. */
static bool seq_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return false;
	if (n == 2)
		return !(s[0] == 0xc2 && s[1] < 0xa0); /* U+0080..U+009F: C1 */
	if (n == 3)
		return !(s[0] == 0xe0 && s[1] < 0xa0) && !(s[0] == 0xed && s[1] >= 0xa0);
	return !(s[0] == 0xf0 && s[1] < 0x90) && !(s[0] == 0xf4 && s[1] >= 0x90);
}

static size_t put_escape(char *out, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

size_t il_term_escape(const char *in, size_t len, struct il_term_carry *carry, char *out)
{
	unsigned char buf[4096 + 3];
	const unsigned char *s;
	size_t n = 0, o = 0;

	/* The carried bytes first, then the new ones, as one string. */
	if (carry && carry->n) {
		size_t take = len < sizeof(buf) - carry->n ? len : sizeof(buf) - carry->n;

		memcpy(buf, carry->b, carry->n);
		memcpy(buf + carry->n, in, take);
		n = carry->n + take;
		carry->n = 0;
		o = il_term_escape((const char *)buf, n, carry, out);
		if (take < len)
			o += il_term_escape(in + take, len - take, carry, out + o);
		return o;
	}
	s = (const unsigned char *)in;
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t k;

		if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
			out[o++] = (char)c;
			i++;
			continue;
		}
		k = seq_len(c);
		if (k && i + k > len && carry) {
			/* May complete in the next write. */
			carry->n = len - i;
			memcpy(carry->b, s + i, carry->n);
			break;
		}
		if (k && i + k <= len && seq_ok(s + i, k)) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		o += put_escape(out + o, c);
		i++;
	}
	out[o] = '\0';
	return o;
}

struct guard {
	int fd;
	bool escape; /* a terminal: escape; else pass the bytes through */
	struct il_term_carry carry;
};

/* The first error writing stdout, kept for the exit status. */
static int stdout_errno;

/* Writes s[0, n); returns how much was written: n, or less after an error
 * (the first one on stdout kept for the exit status). */
static size_t guard_put(struct guard *g, const char *s, size_t n)
{
	size_t w = 0;

	while (w < n) {
		ssize_t r = write(g->fd, s + w, n - w);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (g->fd == STDOUT_FILENO && !stdout_errno)
				stdout_errno = r < 0 ? errno : EIO;
			break;
		}
		w += (size_t)r;
	}
	return w;
}

/*
 * The cookie's write: how many bytes of buf are done, never a negative
 * number (fopencookie(3) forbids it: glibc took -1 for a huge count and
 * read past the buffer, a crash of `run --json - > /dev/full`). An error
 * is a short count; stdio marks the stream failed.
 */
static ssize_t guard_write(void *cookie, const char *buf, size_t len)
{
	struct guard *g = cookie;
	char out[4 * (1024 + 3) + 1];
	size_t done = 0;

	if (!g->escape)
		return (ssize_t)guard_put(g, buf, len);
	while (done < len) {
		size_t chunk = len - done < 1024 ? len - done : 1024;
		size_t n = il_term_escape(buf + done, chunk, &g->carry, out);

		/* Escaped text cut short: the chunk counts as not written. */
		if (guard_put(g, out, n) < n)
			return (ssize_t)done;
		done += chunk;
	}
	return (ssize_t)len;
}

static int guard_close(void *cookie)
{
	struct guard *g = cookie;
	char out[16];
	size_t n = 0;

	/* An incomplete sequence at the very end is shown, not dropped. */
	for (size_t i = 0; i < g->carry.n; i++)
		n += put_escape(out + n, g->carry.b[i]);
	if (n)
		guard_put(g, out, n);
	free(g);
	return 0;
}

static FILE *guard(FILE *f, int fd, bool always)
{
	cookie_io_functions_t io = {.write = guard_write, .close = guard_close};
	bool tty = isatty(fd);
	struct guard *g;
	FILE *nf;

	if ((!tty && !always) || !(g = calloc(1, sizeof(*g))))
		return f;
	g->fd = fd;
	g->escape = tty;
	nf = fopencookie(g, "w", io);
	if (!nf) {
		free(g);
		return f;
	}
	/* As stdio would: stderr unbuffered, stdout by line on a terminal. */
	setvbuf(nf, NULL, fd == STDERR_FILENO ? _IONBF : tty ? _IOLBF : _IOFBF, BUFSIZ);
	return nf;
}

static FILE *plain_out, *plain_err;

void il_term_guard(void)
{
	fflush(stdout);
	fflush(stderr);
	plain_out = stdout;
	plain_err = stderr;
	/* stdout always: its first write error is kept for the exit status. */
	stdout = guard(stdout, STDOUT_FILENO, true);
	stderr = guard(stderr, STDERR_FILENO, false);
}

void il_term_release(void)
{
	/* Closing a guard writes what it still holds and frees it; the
	 * process's own streams are back for whatever runs at exit. */
	if (plain_out && stdout != plain_out) {
		fclose(stdout);
		stdout = plain_out;
	}
	if (plain_err && stderr != plain_err) {
		fclose(stderr);
		stderr = plain_err;
	}
}

int il_term_stdout_error(void)
{
	return stdout_errno;
}
