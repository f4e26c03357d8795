/* Checked number parsing: the only way text becomes a number here. */
#ifndef IL_PARSE_H
#define IL_PARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses a decimal unsigned integer in [min, max]. Leading/trailing space,
 * signs, empty strings and trailing junk are rejected.
 * Returns 0, -EINVAL (not a number) or -ERANGE (outside [min, max]).
 */
int il_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* As il_parse_u64 for hexadecimal digits without a prefix ("1a", as evemu
 * writes event codes). */
int il_parse_hex_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* As il_parse_u64 for signed values ("-1" allowed). */
int il_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);

/* Parses a finite decimal floating-point number in [min, max]. */
int il_parse_double(const char *s, double min, double max, double *out);

/*
 * A kernel file's one-line text (procfs, sysfs, cgroup and tracefs write
 * "%s\n"): *len is n without the newline at the end, which is the only
 * one. 0, or -EINVAL when a newline or a NUL is inside (a second line, or
 * a text that is not what the kernel writes).
 */
int il_parse_one_line(const char *text, size_t n, size_t *len);

/*
 * Whether a comma-separated list has an empty item: "", ",a", "a," or
 * "a,,b". strtok_r skips empty items, so such a list would be read as a
 * different one than was written; callers refuse it.
 */
int il_parse_list_has_empty(const char *s);

/*
 * The option getopt_long just refused as unknown ('?'), as it was written:
 * "-x" for a short one (even inside a cluster "-xyz", where optind has not
 * moved past it and argv[optind - 1] is the argument before), "--bogus"
 * for a long one. buf holds the short form; the result is buf or an argv
 * entry.
 */
const char *il_parse_bad_option(char *const *argv, char *buf, size_t len);

struct option;

/*
 * What was wrong with the option getopt_long just refused ('?'), for a
 * message: "ambiguous option '--w' (--warmup, --work, --work-model)" when
 * it is the prefix of more than one of longopts (getopt_long accepts a
 * unique prefix and refuses the others the same way as an unknown name),
 * else "unknown option '--bogus'". The result is in buf.
 */
const char *il_parse_option_error(char *const *argv, const struct option *longopts, char *buf,
				  size_t len);

#endif
