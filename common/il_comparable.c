/*
 * Which differences between run reports make them not like with like
 * (il_comparable.h). One list of fields, read the same way by compare,
 * explain and reproduce.
 */
#include "il_comparable.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "il_file.h"
#include "il_printable.h"

/* clang-format off */
static const struct {
	const char *key;
	unsigned what;
} fields[] = {
	{ "kernel.release", IL_COMPARABLE_MACHINE },
	{ "kernel.nr_cpus", IL_COMPARABLE_MACHINE },
	{ "system.cpu_model", IL_COMPARABLE_MACHINE },
	{ "scenario.events", IL_COMPARABLE_SCENARIO },
	{ "scenario.interval_ms", IL_COMPARABLE_SCENARIO },
	{ "scenario.load_threads", IL_COMPARABLE_SCENARIO },
	{ "scenario.hog_threads", IL_COMPARABLE_SCENARIO },
	{ "scenario.hog_mode", IL_COMPARABLE_SCENARIO },
	{ "scenario.background", IL_COMPARABLE_SCENARIO },
	{ "work_model", IL_COMPARABLE_WORK },
};
/* clang-format on */

/* A report's value as said in a line: numbers as %g, strings printable. */
static const char *value_text(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsNumber(v))
		snprintf(buf, len, "%.15g", v->valuedouble);
	else if (cJSON_IsString(v))
		il_printable_copy(v->valuestring, buf, len);
	else if (cJSON_IsNull(v))
		snprintf(buf, len, "null");
	else
		snprintf(buf, len, "?");
	return buf;
}

static bool same_value(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return cJSON_Compare(a, b, true);
}

static void append(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*at >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at = *at + (size_t)n < len ? *at + (size_t)n : len;
}

int il_comparable_diff(const cJSON *a, const cJSON *b, unsigned what, char *buf, size_t len)
{
	/* A report without work_model ran loops, the only model then. */
	cJSON *loops = cJSON_CreateString("loops");
	size_t at = 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const cJSON *x, *y;
		char tx[64], ty[64];

		if (!(fields[i].what & what))
			continue;
		x = il_json_get(a, fields[i].key);
		y = il_json_get(b, fields[i].key);
		if (fields[i].what == IL_COMPARABLE_WORK) {
			x = x ? x : loops;
			y = y ? y : loops;
		}
		if (!x || !y || same_value(x, y))
			continue;
		append(buf, len, &at, "%s%s %s vs %s", n ? ", " : "", fields[i].key,
		       value_text(x, tx, sizeof(tx)), value_text(y, ty, sizeof(ty)));
		n++;
	}
	cJSON_Delete(loops);
	return n;
}

/* A string field of report against what its place says (NULL: not
 * judged; "": a null, as a report writes for none). */
static void place_string(const cJSON *report, const char *key, const char *want, char *buf,
			 size_t len, size_t *at, int *n)
{
	const cJSON *v = il_json_get(report, key);
	char t[64];

	if (!want ||
	    (want[0] ? cJSON_IsString(v) && strcmp(v->valuestring, want) == 0 : cJSON_IsNull(v)))
		return;
	append(buf, len, at, "%s%s %s, its place's %s", *n ? "; " : "", key,
	       v ? value_text(v, t, sizeof(t)) : "missing", want[0] ? want : "null");
	(*n)++;
}

int il_comparable_place_diff(const cJSON *report, const struct il_comparable_place *want, char *buf,
			     size_t len)
{
	const struct {
		const char *key;
		int64_t v;
	} counts[] = {
	    {"scenario.events", want->events},
	    {"scenario.interval_ms", want->interval_ms},
	    {"scenario.load_threads", want->load_threads},
	    {"scenario.hog_threads", want->hog_threads},
	};
	size_t at = 0;
	int n = 0;
	char t[64];

	if (len)
		buf[0] = '\0';
	place_string(report, "policy", want->policy, buf, len, &at, &n);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const cJSON *v = il_json_get(report, counts[i].key);

		if (counts[i].v < 0 || (cJSON_IsNumber(v) && v->valuedouble == (double)counts[i].v))
			continue;
		append(buf, len, &at, "%s%s %s, its place's %lld", n ? "; " : "", counts[i].key,
		       v ? value_text(v, t, sizeof(t)) : "missing", (long long)counts[i].v);
		n++;
	}
	/* As many hogs of another kind are another scenario: a register loop
	 * never sleeps, a bursty hog leaves the CPU idle between its tasks. */
	place_string(report, "scenario.hog_mode", want->hog_mode, buf, len, &at, &n);
	/* A --background load (stress-ng beside the run) is load its place
	 * did not run, as load_threads of another count are. */
	place_string(report, "scenario.background", want->background, buf, len, &at, &n);
	return n;
}

bool il_comparable_same_run(const cJSON *x, const cJSON *y)
{
	static const char *const keys[] = {"seed", "start_time", "milestones_ns.enter"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const cJSON *a = il_json_get(x, keys[i]), *b = il_json_get(y, keys[i]);

		/* enter may be missing from both: a report from before it. */
		if (i == 2 && !a && !b)
			continue;
		if (!a || !b || !cJSON_Compare(a, b, true))
			return false;
	}
	return true;
}
