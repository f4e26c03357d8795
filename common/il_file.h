/* Reading and writing the project's files: JSON reports, whole small files. */
#ifndef IL_FILE_H
#define IL_FILE_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Reads a whole file of at most max bytes into a NUL-terminated buffer the
 * caller frees. Returns NULL with errno set (EFBIG when larger than max).
 */
char *il_file_read(const char *path, size_t max, size_t *len);

/*
 * Creates (or truncates) an output file the way a root-run tool must:
 * never through a symlink (O_NOFOLLOW), mode 0644. NULL with errno set.
 */
FILE *il_file_create(const char *path);

/* Writes obj as indented JSON plus a newline to a file made by il_file_create. */
int il_json_write(const char *path, const cJSON *obj);

/*
 * Reads and parses a JSON file. Returns 0, or -errno / -EINVAL with one
 * line in err ("PATH: not JSON", "PATH: No such file or directory").
 */
int il_json_load(const char *path, cJSON **out, char *err, size_t errlen);

/* The item at a dotted path ("latency_us.processing.p50"), or NULL. */
const cJSON *il_json_get(const cJSON *root, const char *path);

/* The number at a dotted path, or NAN when absent or null. */
double il_json_num(const cJSON *root, const char *path);

#endif
