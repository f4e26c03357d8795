/*
 * The JavaScript engine of the JS hog: one libmujs state per hog thread,
 * running a script that defines tick() (render-sim/js/miner.js is the
 * default, a SHA-256 "crypto miner"). libmujs over duktape: on the miner
 * it ran 5-15% faster here (390-410 us a tick against 420-460 us), loads
 * in 0.4 ms against 1 ms, its syntax errors come as FILE:LINE (our
 * one-line error form) and a failed allocation is an ordinary JS error,
 * where duktape needs a fatal handler that must not return
 * (bench/js-engines.c has the figures).
 *
 * The engine's memory is bounded: every state allocates through a counter
 * with a cap (IL_JS_HEAP_MAX by default); past it an allocation fails,
 * which the script sees as an out-of-memory error in tick(), counted, and
 * the hog goes on. A state is used by one thread at a time.
 */
#ifndef IL_JS_H
#define IL_JS_H

#include <stddef.h>
#include <stdint.h>

/* 64 MiB per hog thread: a page's script, not the machine's memory. */
#define IL_JS_HEAP_MAX (64u << 20)

struct il_js;

/*
 * Compiles src (named name in messages), runs its top level and checks
 * that it defines a function tick(). heap_max 0 means IL_JS_HEAP_MAX.
 * On success *out owns the state (il_js_free). On failure *out is
 * untouched and err holds one line:
 *   -EINVAL "miner.js:12: SyntaxError: unexpected token in expression: ';'"
 *           "miner.js: Error: ... (running its top level)"
 *           "miner.js: defines no function tick() (the hog calls tick() over and over)"
 *   -ENOMEM
 */
int il_js_new(const char *src, const char *name, size_t heap_max, struct il_js **out, char *err,
	      size_t errlen);

/*
 * Compiles src without running any of it: the syntax check the
 * orchestrator makes before anything starts (a top level that loops
 * forever cannot hang it). 0, or -EINVAL with one line in err
 * ("miner.js:12: SyntaxError: ..."), or -ENOMEM.
 */
int il_js_check(const char *src, const char *name, char *err, size_t errlen);

/* NULL-safe. */
void il_js_free(struct il_js *js);

/*
 * Calls tick() once. 0, or -1 when it threw: the first such message is
 * kept (il_js_first_error) and il_js_errors counts them.
 */
int il_js_tick(struct il_js *js);

uint64_t il_js_errors(const struct il_js *js);
const char *il_js_first_error(const struct il_js *js); /* "" when none */

/* Bytes the engine holds now, and the most it held at once. */
size_t il_js_heap_bytes(const struct il_js *js);
size_t il_js_heap_peak(const struct il_js *js);

/* Reads a whole script file (at most 4 MiB) into a malloc'd string. 0 or
 * -errno (-EFBIG past the limit), with one line in err. */
int il_js_read_file(const char *path, char **out, char *err, size_t errlen);

/* "mujs 1.3.2": the engine and the version of its headers, for reports. */
const char *il_js_engine(void);

#endif
