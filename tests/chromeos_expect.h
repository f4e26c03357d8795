/*
 * What `chromeos` and `chromeos-rt` must give each thread, written out
 * independently of the policy files (DESIGN.md "Chrome's own policies",
 * issue 15): the tests check the files, the live threads and the reports
 * against this table.
 */
#ifndef CHROMEOS_EXPECT_H
#define CHROMEOS_EXPECT_H

#include <sched.h>

#include "il_role.h"

struct chromeos_attrs {
	int sched_class;
	int priority;			    /* rr only */
	int nice;			    /* other only */
	int uclamp_min_pct, uclamp_max_pct; /* -1: not asked; asked ones are optional */
};

struct chromeos_thread {
	const char *name; /* the thread's name; NULL for role-only threads */
	enum il_role role;
	struct chromeos_attrs shipped, rt; /* chromeos, chromeos-rt */
};

#define CROS_URGENT_CFS                                                                            \
	{                                                                                          \
		SCHED_OTHER, 0, -8, 20, 100                                                        \
	}
#define CROS_DEFAULT                                                                               \
	{                                                                                          \
		SCHED_OTHER, 0, 0, -1, -1                                                          \
	}
#define CROS_RR6                                                                                   \
	{                                                                                          \
		SCHED_RR, 6, 0, 20, 100                                                            \
	}

/* kDisplayCritical: evdev, renderer compositor, GPU IO, CrGpuMain, DrmThread;
 * kCompositing: browser UI, VizCompositorThread; the rest kDefault. */
static const struct chromeos_thread chromeos_threads[] = {
    {"browser:evdev", IL_ROLE_EVDEV, CROS_URGENT_CFS, CROS_RR6},
    {"browser:ui", IL_ROLE_UI, CROS_URGENT_CFS, CROS_URGENT_CFS},
    {"browser:io", IL_ROLE_IO, CROS_DEFAULT, CROS_DEFAULT},
    {"render:io", IL_ROLE_IO, CROS_DEFAULT, CROS_DEFAULT},
    {"render:comp", IL_ROLE_COMPOSITOR, CROS_URGENT_CFS, CROS_RR6},
    {"render:main", IL_ROLE_MAIN, CROS_DEFAULT, CROS_DEFAULT},
    {"viz:io", IL_ROLE_IO, CROS_URGENT_CFS, CROS_RR6},
    {"viz:comp", IL_ROLE_COMPOSITOR, CROS_URGENT_CFS, CROS_URGENT_CFS},
    {"viz:gpu", IL_ROLE_GPU, CROS_URGENT_CFS, CROS_RR6},
    {"viz:drm", IL_ROLE_DRM, CROS_URGENT_CFS, CROS_RR6},
    {NULL, IL_ROLE_JS, CROS_DEFAULT, CROS_DEFAULT},
    {NULL, IL_ROLE_LOAD, CROS_DEFAULT, CROS_DEFAULT},
    {NULL, IL_ROLE_CANARY, CROS_DEFAULT, CROS_DEFAULT},
};

#define N_CHROMEOS_THREADS (sizeof(chromeos_threads) / sizeof(chromeos_threads[0]))

#endif
