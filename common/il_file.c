#include "il_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JSON_MAX_BYTES (256u << 20)

char *il_file_read(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *nb;

			if (cap >= max) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto fail;
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (ferror(f))
			goto fail;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	{
		int e = errno;

		free(buf);
		fclose(f);
		errno = e;
	}
	return NULL;
}

FILE *il_file_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	/* An existing file keeps its mode through O_TRUNC: make it 0644, and
	 * write only regular files (not a FIFO or device someone left there). */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fchmod(fd, 0644) < 0) {
		int e = S_ISREG(st.st_mode) ? errno : EINVAL;

		close(fd);
		errno = e;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

int il_json_write(const char *path, const cJSON *obj)
{
	char *text = cJSON_Print(obj);
	FILE *f;
	int ok;

	if (!text)
		return -ENOMEM;
	f = il_file_create(path);
	if (!f) {
		int e = errno;

		free(text);
		return -e;
	}
	ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
	ok = (fclose(f) == 0) && ok;
	free(text);
	return ok ? 0 : -EIO;
}

int il_json_load(const char *path, cJSON **out, char *err, size_t errlen)
{
	size_t len;
	char *text = il_file_read(path, JSON_MAX_BYTES, &len);
	cJSON *root;

	if (!text) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!root) {
		snprintf(err, errlen, "%s: not JSON", path);
		return -EINVAL;
	}
	*out = root;
	return 0;
}

const cJSON *il_json_get(const cJSON *root, const char *path)
{
	char key[64];
	const cJSON *o = root;

	while (o && *path) {
		size_t len = strcspn(path, ".");

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += len + (path[len] == '.');
	}
	return o;
}

double il_json_num(const cJSON *root, const char *path)
{
	const cJSON *o = il_json_get(root, path);

	return cJSON_IsNumber(o) ? o->valuedouble : NAN;
}
