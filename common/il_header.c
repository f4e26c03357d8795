#include "il_header.h"
#include "il_version.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

char *il_cmdline_join(const char *prog, int argc, char *const *argv)
{
	size_t len = strlen(prog) + 1, off;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	off = (size_t)snprintf(s, len, "%s", prog);
	for (int i = 0; i < argc; i++)
		off += (size_t)snprintf(s + off, len - off, " %s", argv[i]);
	return s;
}

void il_time_iso(const struct timespec *start, char *buf, size_t len)
{
	struct timespec now;
	struct tm tm;

	if (!start) {
		clock_gettime(CLOCK_REALTIME, &now);
		start = &now;
	}
	if (!gmtime_r(&start->tv_sec, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "unreadable");
}

const char *il_version(void)
{
	return IL_BUILD_VERSION;
}

cJSON *il_header_new(int file_version, const char *cmdline, const struct timespec *start)
{
	cJSON *root = cJSON_CreateObject(), *k;
	struct utsname u;
	char when[32];

	if (!root)
		return NULL;
	il_time_iso(start, when, sizeof(when));
	cJSON_AddNumberToObject(root, "file_version", file_version);
	cJSON_AddStringToObject(root, "cmdline", cmdline ? cmdline : "");
	cJSON_AddStringToObject(root, "start_time", when);
	cJSON_AddStringToObject(root, "tool_version", il_version());
	k = cJSON_AddObjectToObject(root, "kernel");
	if (uname(&u) == 0) {
		cJSON_AddStringToObject(k, "release", u.release);
		cJSON_AddStringToObject(k, "version", u.version);
		cJSON_AddStringToObject(k, "machine", u.machine);
	} else {
		cJSON_AddStringToObject(k, "release", "unreadable: uname failed");
	}
	cJSON_AddNumberToObject(k, "nr_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	return root;
}

int il_header_version_check(const cJSON *root, int want, char *why, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "file_version");

	if (!v) {
		snprintf(why, len, "no file_version (is it an inputlat run --json report?)");
		return -1;
	}
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)want) {
		if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
		    fabs(v->valuedouble) < 1e9)
			snprintf(why, len,
				 "file_version %.0f: not a version this inputlat reads (it reads "
				 "%d)",
				 v->valuedouble, want);
		else
			snprintf(why, len, "file_version is not a version number");
		return -1;
	}
	return 0;
}
