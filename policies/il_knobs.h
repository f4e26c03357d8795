/*
 * System scheduler knobs (RT throttling, the fair server) changed for a
 * run and always put back: from what the run holds in memory at its end,
 * by the watchdog if the run outlives its bound, and, if the run dies, by
 * the next start (the originals are in a state file written before
 * anything changes) or by hand (inputlat restore). One lock per machine
 * keeps two runs from stacking their changes.
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
#define IL_KNOBS_STATE_DIR   "/run/inputlat"
#define IL_KNOBS_STATE_FILE  "knobs.state"
#define IL_KNOBS_MAX_CHANGES 64

/*
 * The knobs are global, so their lock is one per machine whatever
 * IL_STATE_DIR says: a flock on this root-only file, held for the life of
 * the run that changes knobs. The kernel drops it when that process dies
 * (SIGKILL, a crash, a zombie not yet reaped), so "held" always means a
 * live holder. Its contents name the holder and the state file holding
 * its originals, so the next holder finds and repairs a dead run's knobs
 * whatever its own state directory.
 */
#ifndef IL_KNOBS_LOCK_PATH
#define IL_KNOBS_LOCK_PATH "/run/inputlat.lock"
#endif

struct il_knob_change {
	char path[128];
	char original[32]; /* value before the run, as the kernel printed it */
	char applied[32];  /* value the run set */
	/* What il_knobs_release found (false and 0 before it ran): */
	bool restored;	 /* written back and read back equal to original */
	int restore_err; /* 0, or -errno of the write (-EIO: reads back otherwise) */
	/* "" unless someone else changed the knob after the run set it: the
	 * value found then, left as it is (theirs, not ours to undo). */
	char left_as[32];
};

struct il_knob_report {
	size_t n; /* changes[] in the order they were written */
	struct il_knob_change changes[IL_KNOBS_MAX_CHANGES];
	int rt_runtime_us_before; /* INT32_MIN when unreadable */
	struct il_fair_server fs; /* as in force after apply, when fs_probed */
	/* Probed only for a policy that sets the fair server: where debugfs
	 * is locked that reads the kernel's BTF (~15 ms), which other runs
	 * pay after they measured (il_fair_server_probe), not at the start. */
	bool fs_probed;
	char state_path[256]; /* state file holding the originals, "" if none */
};

/* The machine's knob lock, held by this process (see IL_KNOBS_LOCK_PATH). */
struct il_knobs_lock;

/*
 * The readers of what a dead run left, exposed for the fuzz target
 * (tests/fuzz/fuzz_state.c); text is NUL-terminated. A state file's text:
 * 0 with its writer (pid and start time) and the n knobs to restore in ch
 * (room for IL_KNOBS_MAX_CHANGES; each path one a state file may name,
 * each original a number), or -EINVAL (-ENOMEM). A lock file's text: 0
 * with its holder and the state file it names, or -EINVAL.
 */
int il_knobs_state_parse(const char *text, long *pid, uint64_t *start_ticks,
			 struct il_knob_change *ch, size_t *n);
int il_knobs_lock_parse(const char *text, long *pid, uint64_t *start_ticks, char *state_file,
			size_t state_file_len);

/* The state directory: $IL_STATE_DIR, else IL_KNOBS_STATE_DIR. */
const char *il_knobs_state_dir(void);

/*
 * Takes the machine's knob lock without waiting, then repairs what a dead
 * run left: the state file the lock names (whatever its directory) and
 * state_dir's (NULL: il_knobs_state_dir()), saying so in one line each on
 * log (may be NULL). On success *out holds the lock until
 * il_knobs_unlock, and later state files go to state_dir. Errors, with
 * one line in err:
 *   -EBUSY   a live run holds the lock ("system knobs are held by running
 *            inputlat pid N ...")
 *   -EACCES  the lock cannot be opened (not root)
 *   -EPERM   the lock file or a state file is not root's alone
 *   -EINVAL  a state file that is not an inputlat state file
 *   -errno   a dead run's knob could not be written back (its state file
 *            is kept for `inputlat restore`)
 */
int il_knobs_lock(const char *state_dir, FILE *log, struct il_knobs_lock **out, char *err,
		  size_t errlen);

/*
 * How long a command that needs the knobs (a run whose policy sets them,
 * `restore`) waits for a lock held for a moment: by a run that sets none
 * (it checks for a dead run's knobs, in milliseconds) or by `check`.
 */
#define IL_KNOBS_LOCK_WAIT_MS 1500u

/* il_knobs_lock, waiting up to wait_ms while another holds the lock
 * before -EBUSY. */
int il_knobs_lock_wait(const char *state_dir, FILE *log, unsigned wait_ms,
		       struct il_knobs_lock **out, char *err, size_t errlen);

/* Releases the lock (the kernel would at exit anyway). NULL-safe. */
void il_knobs_unlock(struct il_knobs_lock *l);

/*
 * Applies the knob settings k under lock. Knobs already at the wanted
 * value are left alone. If anything is to change, the originals are first
 * written to the lock's state directory (knobs.state), created 0600
 * without following symlinks, atomically and exclusively, and fsync'd.
 * A fair server that is present but not tunable is not an error: rep->fs
 * says tunable = false and what is in force. On failure everything already
 * written is put back, *rep is untouched, and err has one line:
 *   -EOPNOTSUPP "fair server not present: kernel older than 6.12"
 *   -EBUSY      a state file is in the way (another inputlat version)
 *   -EPERM/-EACCES/-EINVAL from writing a knob, naming the knob.
 */
int il_knobs_apply(const struct il_knob_settings *k, struct il_knobs_lock *lock,
		   struct il_knob_report *rep, char *err, size_t errlen);

/*
 * How many RT bandwidth knobs (sched_rt_runtime_us, sched_rt_period_us,
 * the root RT group's runtime) applying k would write now: 0 when the
 * values are in force already, which a run then leaves alone (so `check`
 * need not ask for writable knobs). Writes nothing. 0 with *n, or -errno
 * with one line in err.
 */
int il_knobs_rt_writes(const struct il_knob_settings *k, size_t *n, char *err, size_t errlen);

/*
 * The end of a run: writes back every original the run holds in memory
 * (rep, from il_knobs_apply; the state file is crash insurance only), in
 * the reverse order of application, reads each back, and records in
 * rep->changes[] what happened. When all are back the state file is
 * removed; otherwise it is kept (written again if it went missing) for
 * `inputlat restore`. Returns 0, or the first -errno with one line in err
 * naming the knob that could not be put back.
 */
int il_knobs_release(struct il_knob_report *rep, struct il_knobs_lock *lock, char *err,
		     size_t errlen);

/*
 * By hand (`inputlat restore`): takes the lock, writes back the originals
 * left by a dead run (in the state file the lock names and in state_dir's),
 * in reverse order, and removes the state file(s). restored (may be NULL)
 * gets what was written back; restored->n == 0 when there was nothing.
 * -EBUSY while a live run holds the lock; on a knob that cannot be
 * written the state file is kept for a retry.
 */
int il_knobs_restore(const char *state_dir, struct il_knob_report *restored, char *err,
		     size_t errlen);

/*
 * Async-signal-safe restore from the in-memory report of il_knobs_apply:
 * each knob read, and its original written back (open/write/close) in
 * reverse order where it still holds what we applied (or cannot be read),
 * then unlink of the state file. For the watchdog's last resort only; the
 * lock goes with the process. Returns 0 or the first -errno.
 */
int il_knobs_restore_signal_safe(const struct il_knob_report *rep);

/*
 * Takes the lock for a moment to repair what a dead run left (see
 * il_knobs_lock), then lets it go. Returns 0 when there was nothing to do
 * or the knobs were restored, -EBUSY when a live run holds the lock, or
 * another -errno; every outcome but "nothing to do" is one line on log
 * (may be NULL).
 */
int il_knobs_recover_stale(const char *state_dir, FILE *log);

#endif
