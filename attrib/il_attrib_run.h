/*
 * Attribution for one `inputlat run`: the capture (il_capture), the
 * decomposition (il_attrib) and the run-level facts around them (steal
 * time, schedstat cross-check, the BPF program's own cost), driven by the
 * orchestrator at its stages. No libuv: the harness calls these from its
 * loop.
 *
 *   il_attrib_run_new     before the children start: load and attach
 *   il_attrib_run_threads the children are ready: the run's threads
 *   il_attrib_run_tick    from a timer: drain the event rings
 *   il_attrib_run_event   each final event, in id order: explain it
 *   il_attrib_run_stop    the run stops (children still alive): detach
 *   il_attrib_run_report  the run JSON's "attribution" object
 */
#ifndef IL_ATTRIB_RUN_H
#define IL_ATTRIB_RUN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "il_attrib.h"

enum il_attrib_mode { IL_ATTRIB_AUTO, IL_ATTRIB_ON, IL_ATTRIB_OFF };

/* "auto", "on", "off" -> mode; -EINVAL otherwise. */
int il_attrib_mode_parse(const char *s);
const char *il_attrib_mode_name(enum il_attrib_mode m);

struct il_attrib_run;

/*
 * Sets up attribution for a run. With mode OFF, or AUTO where the capture
 * cannot run, *out is an unavailable run that says why (0 is returned);
 * with mode ON where it cannot run, returns a negative errno and puts the
 * reason in why. Returns -ENOMEM when out of memory.
 */
int il_attrib_run_new(enum il_attrib_mode mode, struct il_attrib_run **out, char *why,
		      size_t whylen);

bool il_attrib_run_available(const struct il_attrib_run *r);
/* Why not available ("" when it is). */
const char *il_attrib_run_why(const struct il_attrib_run *r);

/*
 * The children are ready: `threads` is the array of their ready reports'
 * threads ({process, role, name, pid, tid, sched{policy, priority, nice}}),
 * self_* the orchestrator (it injects, stamp 0). From now on their events
 * are captured; schedstat and steal are read as the baseline. Returns 0 or
 * a negative errno (attribution is then unavailable, with why).
 */
int il_attrib_run_threads(struct il_attrib_run *r, const cJSON *threads, int self_pid,
			  int self_tid);

/* Drains the event rings into the engine. Cheap when empty. */
void il_attrib_run_tick(struct il_attrib_run *r);

/*
 * Explains one final event (in id order; completed ones only). Fills *out
 * when not NULL. Returns 0, or -ENODATA when attribution is unavailable.
 */
int il_attrib_run_event(struct il_attrib_run *r, const struct il_msg *m,
			struct il_attrib_event *out);

/* An event that will not be explained (timed out, never completed): what
 * is older than its injection is no longer needed. */
void il_attrib_run_skip(struct il_attrib_run *r, const struct il_msg *m);

/* The run stops: reads schedstat while the children still live (cheap). */
void il_attrib_run_stop(struct il_attrib_run *r);

/* After the last event: detaches, drains, folds everything (what ran on
 * each CPU up to the stop goes to the slice callback). The report and
 * il_attrib_run_free do it when nobody did. */
void il_attrib_run_close(struct il_attrib_run *r);

/* Adds "attribution" to root (always, available or not). Returns 0 or -ENOMEM. */
int il_attrib_run_report(struct il_attrib_run *r, cJSON *root);

/* One event's breakdown for --records (NULL when unavailable or OOM). */
cJSON *il_attrib_run_event_json(const struct il_attrib_run *r, const struct il_attrib_event *e);

/* What ran on each CPU, as the engine lets go of it (for the trace). */
void il_attrib_run_on_slice(struct il_attrib_run *r, il_attrib_slice_cb cb, void *ctx);

/* The engine, for naming culprits of slices (NULL when unavailable). */
const struct il_attrib *il_attrib_run_engine(const struct il_attrib_run *r);

/* NULL-safe; stops first if needed. */
void il_attrib_run_free(struct il_attrib_run *r);

#endif
