#include "il_js.h"

#include <errno.h>
#include <mujs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_file.h"

#define SCRIPT_MAX (4u << 20)
/* Every block carries its size in front, so frees can be counted. */
#define HDR 16

struct il_js {
	js_State *J;
	size_t used, peak, cap;
	uint64_t errors;
	char first_error[256];
};

static void *js_alloc_cb(void *ctx, void *ptr, int size)
{
	struct il_js *js = ctx;
	char *p = ptr ? (char *)ptr - HDR : NULL;
	size_t old = 0, want = size > 0 ? (size_t)size : 0;

	if (p)
		memcpy(&old, p, sizeof(old));
	if (want == 0) {
		free(p);
		js->used -= old;
		return NULL;
	}
	/* The cap: mujs turns a NULL into a catchable "out of memory" error. */
	if (js->used - old + want > js->cap)
		return NULL;
	p = realloc(p, want + HDR);
	if (!p)
		return NULL;
	memcpy(p, &want, sizeof(want));
	js->used = js->used - old + want;
	if (js->used > js->peak)
		js->peak = js->used;
	return p + HDR;
}

/*
 * mujs says "SyntaxError: miner.js:12: unexpected token"; we say
 * "miner.js:12: SyntaxError: unexpected token", FILE:LINE first like every
 * other error of ours. Anything else is kept as it is.
 */
static void error_line(const char *msg, const char *name, char *err, size_t errlen)
{
	const char *colon = strstr(msg, ": ");
	size_t nlen = strlen(name);

	if (colon && strncmp(colon + 2, name, nlen) == 0 && colon[2 + nlen] == ':') {
		const char *line = colon + 2 + nlen + 1;
		const char *rest = strstr(line, ": ");

		if (rest) {
			snprintf(err, errlen, "%s:%.*s: %.*s: %s", name, (int)(rest - line), line,
				 (int)(colon - msg), msg, rest + 2);
			return;
		}
	}
	snprintf(err, errlen, "%s: %s", name, msg);
}

int il_js_new(const char *src, const char *name, size_t heap_max, struct il_js **out, char *err,
	      size_t errlen)
{
	struct il_js *js = calloc(1, sizeof(*js));
	int r = -EINVAL;

	if (!js) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	js->cap = heap_max ? heap_max : IL_JS_HEAP_MAX;
	js->J = js_newstate(js_alloc_cb, js, JS_STRICT);
	if (!js->J) {
		free(js);
		snprintf(err, errlen, "out of memory starting the JavaScript engine");
		return -ENOMEM;
	}
	if (js_ploadstring(js->J, name, src)) {
		error_line(js_trystring(js->J, -1, "unknown error"), name, err, errlen);
		goto fail;
	}
	js_pushundefined(js->J);
	if (js_pcall(js->J, 0)) {
		char msg[256];

		error_line(js_trystring(js->J, -1, "unknown error"), name, msg, sizeof(msg));
		snprintf(err, errlen, "%s (running its top level)", msg);
		goto fail;
	}
	js_pop(js->J, 1);
	js_getglobal(js->J, "tick");
	if (!js_iscallable(js->J, -1)) {
		snprintf(err, errlen,
			 "%s: defines no function tick() (the hog calls tick() over "
			 "and over; see render-sim/js/miner.js)",
			 name);
		goto fail;
	}
	js_pop(js->J, 1);
	*out = js;
	return 0;
fail:
	il_js_free(js);
	return r;
}

int il_js_check(const char *src, const char *name, char *err, size_t errlen)
{
	struct il_js js = {.cap = IL_JS_HEAP_MAX};
	int r = 0;

	js.J = js_newstate(js_alloc_cb, &js, JS_STRICT);
	if (!js.J) {
		snprintf(err, errlen, "out of memory starting the JavaScript engine");
		return -ENOMEM;
	}
	if (js_ploadstring(js.J, name, src)) {
		error_line(js_trystring(js.J, -1, "unknown error"), name, err, errlen);
		r = -EINVAL;
	}
	js_freestate(js.J);
	return r;
}

void il_js_free(struct il_js *js)
{
	if (!js)
		return;
	if (js->J)
		js_freestate(js->J);
	free(js);
}

int il_js_tick(struct il_js *js)
{
	js_getglobal(js->J, "tick");
	js_pushundefined(js->J);
	if (js_pcall(js->J, 0)) {
		if (js->errors++ == 0)
			snprintf(js->first_error, sizeof(js->first_error), "%s",
				 js_trystring(js->J, -1, "unknown error"));
		js_pop(js->J, 1);
		return -1;
	}
	js_pop(js->J, 1);
	return 0;
}

uint64_t il_js_errors(const struct il_js *js)
{
	return js->errors;
}

const char *il_js_first_error(const struct il_js *js)
{
	return js->first_error;
}

size_t il_js_heap_bytes(const struct il_js *js)
{
	return js->used;
}

size_t il_js_heap_peak(const struct il_js *js)
{
	return js->peak;
}

int il_js_read_file(const char *path, char **out, char *err, size_t errlen)
{
	size_t n = 0;
	/* As every input: a FIFO (or a device) is refused at once, never
	 * waited on (a FIFO held `run` in open() with its stop signals
	 * blocked, forever). */
	char *buf = il_file_read(path, SCRIPT_MAX, &n);

	if (!buf) {
		int e = errno;

		if (e == EFBIG)
			snprintf(err, errlen, "%s: more than a script may have (%u bytes)", path,
				 SCRIPT_MAX);
		else
			il_file_read_why(path, e, err, errlen);
		return -e;
	}
	if (memchr(buf, '\0', n)) {
		free(buf);
		snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

#define IL_STR2(x) #x
#define IL_STR(x)  IL_STR2(x)

const char *il_js_engine(void)
{
	/* The headers it was built against. */
	return "mujs " IL_STR(JS_VERSION_MAJOR) "." IL_STR(JS_VERSION_MINOR) "." IL_STR(
	    JS_VERSION_PATCH);
}
