#include "il_paths.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef IL_LIBEXECDIR
#define IL_LIBEXECDIR "/usr/local/libexec/inputlat"
#endif
#ifndef IL_JSDIR
#define IL_JSDIR "/usr/local/share/inputlat/js"
#endif
#ifndef IL_POLICYDIR
#define IL_POLICYDIR "/usr/local/share/inputlat/policies"
#endif

int il_paths_self(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int self_dir(char *buf, size_t len)
{
	char self[4096];
	int rc = il_paths_self(self, sizeof(self));

	if (rc < 0)
		return rc;
	snprintf(buf, len, "%s", dirname(self));
	return 0;
}

static int has_children(const char *dir)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/browser-sim", dir);
	return access(p, X_OK) == 0;
}

int il_paths_children(char *buf, size_t len, char *err, size_t errlen)
{
	char dir[4096];

	if (self_dir(dir, sizeof(dir)) == 0 && has_children(dir)) {
		snprintf(buf, len, "%s", dir);
		return 0;
	}
	if (has_children(IL_LIBEXECDIR)) {
		snprintf(buf, len, "%s", IL_LIBEXECDIR);
		return 0;
	}
	snprintf(err, errlen,
		 "cannot find browser-sim next to inputlat or in %s: build or install all targets",
		 IL_LIBEXECDIR);
	return -ENOENT;
}

void il_paths_js(char *buf, size_t len)
{
	const char *env = getenv("IL_JS_DIR");
	char dir[4096], p[4200];

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	if (self_dir(dir, sizeof(dir)) == 0) {
		snprintf(p, sizeof(p), "%s/js", dir);
		if (access(p, R_OK | X_OK) == 0) {
			snprintf(buf, len, "%s", p);
			return;
		}
	}
	snprintf(buf, len, "%s", IL_JSDIR);
}

void il_paths_policies(char *buf, size_t len)
{
	const char *env = getenv("IL_POLICY_DIR");
	char dir[4096], p[4200];

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	if (self_dir(dir, sizeof(dir)) == 0) {
		snprintf(p, sizeof(p), "%s/policies", dir);
		if (access(p, R_OK | X_OK) == 0) {
			snprintf(buf, len, "%s", p);
			return;
		}
	}
	snprintf(buf, len, "%s", IL_POLICYDIR);
}
