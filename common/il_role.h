/* The scheduling roles of DESIGN.md: what a policy assigns attributes to. */
#ifndef IL_ROLE_H
#define IL_ROLE_H

enum il_role {
	IL_ROLE_EVDEV,
	IL_ROLE_UI,
	IL_ROLE_IO,
	IL_ROLE_COMPOSITOR,
	IL_ROLE_MAIN,
	IL_ROLE_GPU,
	IL_ROLE_DRM,
	IL_ROLE_JS,
	IL_ROLE_LOAD,
	IL_ROLE_CANARY,
	IL_ROLE_COUNT
};

/* "evdev", "ui", ... ; NULL for an out-of-range value. */
const char *il_role_name(enum il_role role);

/* Returns the role for a name, or -EINVAL for an unknown name. */
int il_role_parse(const char *name);

#endif
