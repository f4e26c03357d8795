/*
 * System scheduler knobs (RT throttling, the fair server) changed for a
 * run and always put back: the original values are saved in a state file
 * before anything changes, so a crashed run is repaired by the next start
 * (il_knobs_recover_stale) or by hand (inputlat restore).
 */
#ifndef IL_KNOBS_H
#define IL_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "il_policy.h"
#include "il_sysinfo.h"

/* Used when state_dir is NULL and IL_STATE_DIR is not set. */
#define IL_KNOBS_STATE_DIR "/run/inputlat"
#define IL_KNOBS_STATE_FILE "knobs.state"
#define IL_KNOBS_MAX_CHANGES 64

struct il_knob_change {
	char path[128];
	char original[32];	/* value before the run, as the kernel printed it */
	char applied[32];	/* value the run set */
};

struct il_knob_report {
	size_t n;		/* changes[] in the order they were written */
	struct il_knob_change changes[IL_KNOBS_MAX_CHANGES];
	int rt_runtime_us_before; /* INT32_MIN when unreadable */
	struct il_fair_server fs; /* as in force after apply */
	char state_path[256];	/* state file holding the originals, "" if none */
};

/* The state directory: $IL_STATE_DIR, else IL_KNOBS_STATE_DIR. */
const char *il_knobs_state_dir(void);

/*
 * Applies the knob settings k. Knobs already at the wanted value are left
 * alone. If anything is to change, the originals are first written to
 * state_dir/knobs.state (NULL: il_knobs_state_dir()), created 0600
 * without following symlinks, atomically and exclusively, and fsync'd.
 * A fair server that is present but not tunable is not an error: rep->fs
 * says tunable = false and what is in force. On failure everything already
 * written is put back, *rep is untouched, and err has one line:
 *   -EOPNOTSUPP "fair server not present: kernel older than 6.12"
 *   -EBUSY      another run holds the knobs (its state file exists)
 *   -EPERM/-EACCES/-EINVAL from writing a knob, naming the knob.
 */
int il_knobs_apply(const struct il_knob_settings *k, const char *state_dir,
		   struct il_knob_report *rep, char *err, size_t errlen);

/*
 * Writes back the originals from the state file, in reverse order, and
 * removes it. Returns 0 with restored->n == 0 when there is no state
 * file. -EBUSY when the file belongs to another live run; on a knob that
 * cannot be written the state file is kept for a retry. restored may be
 * NULL.
 */
int il_knobs_restore(const char *state_dir, struct il_knob_report *restored,
		     char *err, size_t errlen);

/*
 * Async-signal-safe restore from the in-memory report of il_knobs_apply:
 * open/write/close of each original in reverse order, then unlink of the
 * state file. For fatal-signal paths only; normal exits and
 * SIGINT/SIGTERM/SIGHUP handled on a loop use il_knobs_restore.
 * Returns 0 or the first -errno.
 */
int il_knobs_restore_signal_safe(const struct il_knob_report *rep);

/*
 * Call at every start. If a state file exists whose run is dead (its pid
 * gone, or reused by another process), restores it and says so in one
 * line on log (may be NULL). Returns 0 when there was nothing to do or
 * the knobs were restored, -EBUSY when another live run holds them, or
 * -errno for a state file that cannot be trusted or restored (also
 * explained on log).
 */
int il_knobs_recover_stale(const char *state_dir, FILE *log);

#endif
