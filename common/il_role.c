#include "il_role.h"

#include <errno.h>
#include <string.h>

static const char *const role_names[IL_ROLE_COUNT] = {
    [IL_ROLE_EVDEV] = "evdev", [IL_ROLE_UI] = "ui",
    [IL_ROLE_IO] = "io",       [IL_ROLE_COMPOSITOR] = "compositor",
    [IL_ROLE_MAIN] = "main",   [IL_ROLE_GPU] = "gpu",
    [IL_ROLE_DRM] = "drm",     [IL_ROLE_JS] = "js",
    [IL_ROLE_LOAD] = "load",   [IL_ROLE_CANARY] = "canary",
};

const char *il_role_name(enum il_role role)
{
	if ((unsigned)role >= IL_ROLE_COUNT)
		return NULL;
	return role_names[role];
}

int il_role_parse(const char *name)
{
	for (int i = 0; i < IL_ROLE_COUNT; i++)
		if (name && strcmp(name, role_names[i]) == 0)
			return i;
	return -EINVAL;
}
