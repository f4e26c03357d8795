/*
 * The wall-clock watchdog of a run: a thread at the highest FIFO priority
 * (when allowed) that, if the run outlives its bound, kills the children
 * it was told about, restores the system knobs and exits 1. It is the
 * last line of defence when RT work holds every CPU.
 */
#ifndef IL_WATCHDOG_H
#define IL_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "il_knobs.h"

#define IL_WATCHDOG_PRIO 99

/*
 * Starts the watchdog; the run must end within bound_ns from now. knobs
 * (may be NULL) must stay valid until il_watchdog_stop. Without the
 * privilege for FIFO it runs as SCHED_OTHER: then no RT work of ours can
 * exist to starve it either. Returns 0 or -errno.
 */
int il_watchdog_start(uint64_t bound_ns, const struct il_knob_report *knobs);

/* Registers a child pid to kill on expiry (up to 8); -pgid registers a
 * whole process group (the --background load). */
void il_watchdog_add_pid(pid_t pid);

/* Stops and joins the watchdog. */
void il_watchdog_stop(void);

#endif
