#include "il_marks.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void il_marks_write(struct il_marks *m, int fd, const char *buf, size_t n)
{
	int zero = 0;

	/* Not an error of the run, but counted: the report says what the trace lacks. */
	if (write(fd, buf, n) == (ssize_t)n) {
		atomic_fetch_add_explicit(&m->written, 1, memory_order_relaxed);
		return;
	}
	atomic_compare_exchange_strong(&m->first_err, &zero, errno ? errno : EIO);
	atomic_fetch_add_explicit(&m->failed, 1, memory_order_relaxed);
}

static void add_errno(cJSON *o, const char *key, int err)
{
	if (err)
		cJSON_AddStringToObject(o, key, strerror(err));
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *il_marks_json(const struct il_marks *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "written", (double)atomic_load(&m->written));
	cJSON_AddNumberToObject(o, "failed", (double)atomic_load(&m->failed));
	add_errno(o, "first_error", atomic_load(&m->first_err));
	add_errno(o, "open_error", m->open_err);
	return o;
}
