#include "il_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "il_clock.h"

void il_progress_init(struct il_progress *p, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->on = !quiet && isatty(STDERR_FILENO);
}

bool il_progress_due(struct il_progress *p, uint64_t now_ns)
{
	if (!p->on || now_ns - p->last_ns < il_ms_to_ns(IL_PROGRESS_PERIOD_MS))
		return false;
	p->last_ns = now_ns;
	return true;
}

/* One write, so that the line never interleaves with another writer's. */
static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void il_progress_show(struct il_progress *p, const char *fmt, ...)
{
	char line[160], out[340];
	va_list ap;
	int n;

	if (!p->on)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	/* Spaces over what a longer previous line left. */
	n = snprintf(out, sizeof(out), "\r%s%*s", line,
		     p->shown > (size_t)n ? (int)(p->shown - (size_t)n) : 0, "");
	put(out, (size_t)n);
	p->shown = strlen(line);
}

void il_progress_clear(struct il_progress *p)
{
	char out[170];
	int n;

	if (!p->on || !p->shown)
		return;
	n = snprintf(out, sizeof(out), "\r%*s\r", (int)p->shown, "");
	put(out, (size_t)n);
	p->shown = 0;
}
