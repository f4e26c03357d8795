/* Reading and writing the project's files: JSON reports, whole small files. */
#ifndef IL_FILE_H
#define IL_FILE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Reads a whole file of at most max bytes into a NUL-terminated buffer the
 * caller frees. Only a regular file is read (opened without blocking, so a
 * FIFO or a device is refused at once, never waited on or read forever).
 * Returns NULL with errno set: EFBIG when larger than max, EISDIR for a
 * directory, EINVAL for another kind of file that is not regular.
 */
char *il_file_read(const char *path, size_t max, size_t *len);

/* The one line for il_file_read's failure with errno e (EFBIG aside, whose
 * words are the caller's limit): what the file is instead of a regular
 * one ("PATH: a FIFO, not a regular file"), else the error. */
void il_file_read_why(const char *path, int e, char *err, size_t errlen);

/*
 * Opens an input the way every input of ours is opened: read-only, without
 * blocking on a FIFO, without becoming a controlling terminal, and only a
 * regular file (or, with want_chr, a character device: an evdev or DRM
 * node). Returns the fd (O_CLOEXEC, blocking again) or -errno: -EISDIR for
 * a directory, -EINVAL for another wrong kind of file. why (may be NULL)
 * gets, for those two, what it is instead ("a FIFO", "a directory", ...).
 */
int il_file_open_input(const char *path, bool want_chr, char *why, size_t whylen);

/* "a FIFO", "a directory", "a socket", ... for a st_mode (the kind of file). */
const char *il_file_kind(unsigned mode);

/*
 * An output file of a root-run tool. il_out_open checks and prepares it
 * before the run starts; the contents go to a new file beside it, which
 * replaces the path only when il_out_commit finds it complete, so a run
 * that fails, or a full disk, leaves the previous file as it was. The path
 * must be a regular file or not exist yet; a symlink, a FIFO, a device or
 * a directory is refused (never followed, opened or written into), and so
 * is a file that belongs to another user (in /tmp, say: that user could
 * rewrite the report later). "-" is stdout.
 */
struct il_out;

/*
 * Prepares the output path (what for messages: "--json"). Returns 0, or
 * -errno with one line in err naming the option, the path and the reason.
 */
int il_out_open(const char *what, const char *path, struct il_out **out, char *err, size_t errlen);

/* Where to write: the temporary file, or stdout for "-". */
FILE *il_out_file(struct il_out *o);

/* The path as given, for messages. */
const char *il_out_path(const struct il_out *o);

/*
 * Flushes and syncs the contents, checks every write succeeded, and puts
 * the file in place. Frees o. Returns 0, or -errno with one line in err;
 * then the temporary file is removed and the previous file left alone.
 */
int il_out_commit(struct il_out *o, char *err, size_t errlen);

/*
 * The temporary file being written: its directory's descriptor, and its
 * name there in *name; -1 for stdout or once committed. For a last-resort
 * remover (the run's watchdog) that cannot wait for il_out_free.
 */
int il_out_temp(const struct il_out *o, const char **name);

/* Abandons an output: the temporary file is removed. NULL-safe. */
void il_out_free(struct il_out *o);

/*
 * Whether path could be written as an output, found now rather than after
 * a long measurement: opened as il_out_open does and abandoned. 0 (also
 * for a NULL path), or -errno with one line in err as il_out_open's.
 */
int il_out_check(const char *what, const char *path, char *err, size_t errlen);

/* True when a and b would write the same file (or both stdout). */
bool il_out_same(const struct il_out *a, const struct il_out *b);

/* True when writing o would overwrite the existing file at path (an input). */
bool il_out_is_file(const struct il_out *o, const char *path);

/*
 * The same before an output is opened: true when writing the output path
 * (as given to il_out_open) would overwrite the existing file input, by
 * device and inode, whatever either is called (another spelling, a hard
 * link, a symlink to it). False for NULL, "-" and a path not there.
 */
bool il_out_path_is_file(const char *out_path, const char *input);

/*
 * True when paths a and b name one file, whether or not it exists yet:
 * both there, by device and inode (another spelling, a hard link, a
 * symlink to it); neither there, when their directories are one (by
 * device and inode) and their last names the same. For two files a
 * command writes, or creates and writes ("--lock X --json X"), checked
 * before either is. False for NULL and "-" (stdout is no file).
 */
bool il_out_path_same(const char *a, const char *b);

/*
 * Creates (or truncates) an output file the way a root-run tool must:
 * never through a symlink (O_NOFOLLOW), mode 0644. NULL with errno set.
 */
FILE *il_file_create(const char *path);

/* Writes obj as indented JSON plus a newline to path through il_out (so
 * "-" is stdout, and a failure leaves the previous file as it was), its
 * strings made valid UTF-8 first. Returns 0 or -errno. */
int il_json_write(const char *path, const cJSON *obj);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the byte at s
 * does not start one (overlong forms and surrogates included); s is
 * NUL-terminated. */
size_t il_utf8_len(const unsigned char *s);

/*
 * Makes every string value under root valid UTF-8, so that a path or a
 * name with arbitrary bytes still yields valid JSON: each byte that is not
 * part of a valid sequence becomes U+FFFD. Returns 0 or -ENOMEM.
 */
int il_json_sanitize(cJSON *root);

/*
 * Reads and parses a JSON file of at most IL_JSON_MAX_BYTES. Returns 0, or
 * -errno / -EINVAL with one line in err ("PATH: not JSON", "PATH: No such
 * file or directory", "PATH: 300 MiB, more than the 32 MiB a report may
 * have", "PATH: not a regular file (a FIFO)", "PATH: not JSON we can read (key
 * "x" appears twice in one object)", "PATH: 16777216 JSON values, more than
 * the 2000000 a run report may have").
 */
#define IL_JSON_MAX_BYTES (32u << 20)
/*
 * The values (cJSON nodes) one report may hold, counted before it is
 * parsed: the largest run writes 239,004 (two 100,000-sample arrays,
 * --attribution on), a tree of 20 MiB; 2,000,000 bound a tree at about
 * 200 MiB whatever the text. Refused "PATH: N JSON values, more than the
 * 2000000 a run report may have".
 */
#define IL_JSON_MAX_VALUES 2000000u
int il_json_load(const char *path, cJSON **out, char *err, size_t errlen);

/*
 * Parses len bytes of text as one JSON value and nothing else but
 * whitespace: no NUL byte, no second value or garbage after it, no key
 * twice in one object, at most IL_JSON_MAX_VALUES values. What every file
 * or message the project reads back goes through. Returns 0 with *out the
 * tree (the caller deletes it), or -EINVAL / -E2BIG with why (one line,
 * "not JSON (more text after the value, at byte 12)").
 */
int il_json_parse_one(const char *text, size_t len, cJSON **out, char *why, size_t whylen);

/* The values in JSON text of len bytes (what il_json_load bounds by
 * IL_JSON_MAX_VALUES), counted without parsing. */
size_t il_json_count_values(const char *text, size_t len);

/* The first key that appears twice in one object anywhere under root, or
 * NULL: such a text has no one meaning (cJSON reads the first, Python the
 * last), so readers refuse it. The name points into root. */
const char *il_json_duplicate_key(const cJSON *root);

/* The bytes the tree at root holds in nodes and their strings (what a
 * reader that keeps many trees adds up). */
size_t il_json_tree_bytes(const cJSON *root);

/*
 * The bytes of parsed reports a command that keeps many may hold at once
 * (il_json_tree_bytes of each, added up): $env, in MiB (1..1048576), where
 * set, else default_mib. Each report is bounded (IL_JSON_MAX_VALUES), but
 * as many as the user hands in are not. Returns 0, or -EINVAL with one
 * line in err ("ENV 'x' is not a size in MiB: expected 1..1048576").
 */
int il_json_held_max(const char *env, unsigned default_mib, size_t *out, char *err, size_t errlen);

/* The item at a dotted path ("latency_us.processing.p50"), or NULL. */
const cJSON *il_json_get(const cJSON *root, const char *path);

/*
 * c is a whole number in lo..hi: what may be cast to an integer type
 * whose range holds lo..hi (a cast of NaN, or of a value out of the
 * type's range, is undefined).
 */
bool il_json_whole_in(const cJSON *c, double lo, double hi);

/* The number at a dotted path, or NAN when absent or null. */
double il_json_num(const cJSON *root, const char *path);

/*
 * A 64-bit value as JSON: a number up to 2^53 (what a double holds
 * exactly), its decimal string beyond, so that a seed written out reads
 * back as itself (--seed 123456789012345678 was written 1.2345678901234568e+17).
 */
cJSON *il_json_u64(uint64_t v);

#endif
