/*
 * The environment's on/off switches: IL_ATTRIB_DEBUG_HOP (an inconsistent
 * hop's details on stderr), IL_BPF_DEBUG (libbpf's own messages) and
 * IL_REPRODUCE_KEEP (a reproduce's run reports kept). Each was on when set
 * to anything, so IL_REPRODUCE_KEEP=0, =no or = kept the reports. Now
 * unset or "0" is off and "1" on, and a program that reads one refuses
 * any other value in one line before it starts (il_env_switch_check).
 * Header only: spin/'s library links nothing of common/.
 */
#ifndef IL_ENV_H
#define IL_ENV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every switch, for a program that reads them all (inputlat). */
#define IL_ENV_SWITCHES "IL_ATTRIB_DEBUG_HOP", "IL_BPF_DEBUG", "IL_REPRODUCE_KEEP"

/* 1 when the switch name is on ("1"), 0 when off (unset or "0"), -1 for
 * any other value (refused by il_env_switch_check; never taken as on). */
static inline int il_env_switch(const char *name)
{
	const char *v = getenv(name);

	if (!v || strcmp(v, "0") == 0)
		return 0;
	return strcmp(v, "1") == 0 ? 1 : -1;
}

/*
 * 0 when the switch name is unset, "0" or "1"; else -1 with one line on
 * stderr: "PROG: IL_BPF_DEBUG='yes': want 1 (on) or 0 (off), or unset it".
 */
static inline int il_env_switch_check(const char *prog, const char *name)
{
	if (il_env_switch(name) >= 0)
		return 0;
	fprintf(stderr, "%s: %s='%s': want 1 (on) or 0 (off), or unset it\n", prog, name,
		getenv(name));
	return -1;
}

#endif
