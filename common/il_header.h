/*
 * The header every machine-readable output of the project starts with
 * (STYLE.md): file_version, cmdline, start_time, kernel. One writer, so
 * the run report, `check --json`, `reproduce --json` and the benchmarks
 * cannot drift apart.
 */
#ifndef IL_HEADER_H
#define IL_HEADER_H

#include <cjson/cJSON.h>
#include <time.h>

/* prog and argv[0..argc) joined with spaces ("inputlat run --events 5").
 * Caller frees; NULL when out of memory. */
char *il_cmdline_join(const char *prog, int argc, char *const *argv);

/* start as ISO 8601 UTC ("2026-12-03T08:49:25Z") into buf (>= 21 bytes);
 * the current time when start is NULL. */
void il_time_iso(const struct timespec *start, char *buf, size_t len);

/* The tool's version with the commit it was built from, "0.1.0 (git
 * 6a57e1f)", or "0.1.0 (git unreadable: not built from a git checkout)". */
const char *il_version(void);

/*
 * A new object whose first keys are file_version, cmdline, start_time
 * (start, or now when NULL), tool_version (il_version) and kernel
 * {release, version, machine, nr_cpus}. Callers add their own keys, to it
 * and to "kernel" (policies/il_sysinfo adds the scheduler's facts). NULL
 * when out of memory; the caller owns the object.
 */
cJSON *il_header_new(int file_version, const char *cmdline, const struct timespec *start);

/* The file_version of `inputlat run --json` reports. */
#define IL_RUN_FILE_VERSION 1

/*
 * Whether root says it is a file of version want (file_version, a number):
 * 0, or -1 with why ("no file_version ...", "file_version 2: ...") for the
 * reader to refuse it in one line. A report of another version has other
 * meanings under the same keys; read as this one, it would be misread.
 */
int il_header_version_check(const cJSON *root, int want, char *why, size_t len);

#endif
