/*
 * The wall-clock watchdog of a run: a thread at the highest FIFO priority
 * (when allowed) that, if the run outlives its bound, kills the children
 * it was told about, restores the system knobs, removes the outputs'
 * temporary files and exits 1. It is the last line of defence when RT
 * work holds every CPU.
 */
#ifndef IL_WATCHDOG_H
#define IL_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "il_knobs.h"
#include "il_sched.h"

#define IL_WATCHDOG_PRIO 99

/*
 * Starts the watchdog; the run must end within bound_ns from now. knobs
 * (may be NULL) must stay valid until il_watchdog_stop. Without the
 * privilege for FIFO it runs as SCHED_OTHER (il_watchdog_ask says so).
 * Returns 0 or -errno.
 */
int il_watchdog_start(uint64_t bound_ns, const struct il_knob_report *knobs);

/*
 * Ends the watchdog's knob duty: from now on an expiry still kills the
 * children and exits, but writes no knob and removes no state file. The
 * run calls it before it puts the knobs back itself, so that a run that
 * then blocks (writing an output, say) can never write its originals
 * over a later run's knobs, or remove that run's state file.
 */
void il_watchdog_knobs_done(void);

/*
 * Arms a second, earlier bound: at when_ns (CLOCK_MONOTONIC) the children
 * still registered are SIGKILLed and the run goes on, so a stop ends in
 * time even when the loop that leads it cannot get a CPU.
 */
void il_watchdog_kill_at(uint64_t when_ns);

/* Registers a child pid to kill on expiry (up to 8); -pgid registers a
 * whole process group (the --background load). */
void il_watchdog_add_pid(pid_t pid);

/*
 * Registers an output's temporary file (name in dirfd; both copied) to
 * remove on expiry (up to 8): a run that dies at its bound leaves the
 * previous outputs as they were and no partial ones beside them (a
 * million-event run left 5 GB of them).
 */
void il_watchdog_add_temp(int dirfd, const char *name);

/* What the watchdog thread asked for (fifo 99) and got. */
void il_watchdog_ask(struct il_sched_ask *out);

/* Stops and joins the watchdog. */
void il_watchdog_stop(void);

#endif
