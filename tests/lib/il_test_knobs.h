/*
 * The system-knob fixture: for tests that change sched_rt_runtime_us,
 * sched_rt_period_us or the root RT group, directly or through
 * `inputlat run`, on a machine other people's runs share.
 *
 * il_test_knobs_setup() (a group setup) takes the test suites' knob lock,
 * waits while another live run holds the knobs, puts a dead run's knobs
 * back, reads the originals and registers il_test_knobs_put_back() with
 * atexit. il_test_knobs_put_back() (every teardown) never leaves a knob
 * changed: it restores a dead run's state file with `inputlat restore`
 * and then, unless another live run holds the knobs (it restores them
 * itself), writes the originals back directly.
 *
 * "Holds the knobs" means: the machine's state file names a process that
 * is alive and is the process that wrote it. A run we killed and have not
 * reaped yet is a zombie and holds nothing.
 */
#ifndef IL_TEST_KNOBS_H
#define IL_TEST_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "il_test_proc.h"

#define IL_TEST_RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define IL_TEST_RT_PERIOD  "/proc/sys/kernel/sched_rt_period_us"
#define IL_TEST_RT_GROUP   "/sys/fs/cgroup/cpu/cpu.rt_runtime_us"

/* How long a test waits for another run, or another test suite, to let
 * go of the knobs before it fails naming the holder. */
#define IL_TEST_KNOBS_WAIT_MS 120000

/*
 * The group setup. Returns 0, or -1 after one line on stderr (the knob
 * lock or the knobs held past IL_TEST_KNOBS_WAIT_MS, naming the holder
 * pid; a state file that stays in place).
 */
int il_test_knobs_setup(void);

/* Puts the originals back (see above). Safe to call any time, also at exit. */
void il_test_knobs_put_back(void);

/* A cmocka teardown: ends what the case started (il_test_kill_started)
 * and puts the knobs back. */
int il_test_knobs_teardown(void **state);

/* il_test_suite_setup/teardown (il_test_proc.h) with the knob fixture's. */
int il_test_knobs_suite_setup(void **state);
int il_test_knobs_suite_teardown(void **state);

/* The machine's state file: $IL_STATE_DIR (when set at setup)/knobs.state. */
const char *il_test_knobs_state_file(void);

/* path's value when the setup ran, "" when it was unreadable or absent. */
const char *il_test_knob_orig(const char *path);

/* path's value now, without its newline, "" when unreadable. Static buffer. */
const char *il_test_knob(const char *path);

/* Writes val to path. Returns 0 or -errno. */
int il_test_knob_write(const char *path, const char *val);

/* The pid the state file names, 0 when there is none. */
pid_t il_test_knobs_state_pid(void);

/* The original of path saved in the state file, "" if it has none. Static buffer. */
const char *il_test_knobs_state_original(const char *path);

/* The pid of the live run holding the knobs, 0 when there is none. */
pid_t il_test_knobs_holder(void);

/*
 * Waits up to timeout_ms while a live run holds the knobs, saying once
 * which pid it waits for. True when none holds them.
 */
bool il_test_knobs_wait_free(int timeout_ms);

/* il_test_knobs_wait_free(IL_TEST_KNOBS_WAIT_MS), failing the test naming the holder. */
void il_test_knobs_need_free(void);

/*
 * Skips unless this test may change sched_rt_runtime_us to value: root,
 * the knob writable and readable, and not at value already.
 */
void il_test_knobs_need_change(const char *value);

/*
 * True when the knobs are back at the originals after run ours: the state
 * file no longer names it, and each knob is at its original, or, if
 * another run has taken the knobs since, the originals that run saved are
 * ours (so they were back before it started). why says what differs.
 */
bool il_test_knobs_back(pid_t ours, char *why, size_t len);

/* True when the wait status (or exit code, for exited) is inputlat's
 * "another run holds the system knobs" (IL_EXIT_KNOBS_BUSY). */
bool il_test_knobs_busy_status(int status);
bool il_test_knobs_busy_exit(int exit_code);

/*
 * il_test_chain_start for a run that may need the knobs: waits while
 * another run holds them and starts again when it exits
 * IL_EXIT_KNOBS_BUSY, bounded by IL_TEST_KNOBS_WAIT_MS. Returns what
 * il_test_chain_start returned last.
 */
int il_test_knobs_chain_start(struct il_test_chain *c, char *const argv[], const char *out,
			      const char *err, int timeout_ms);

/* The knobs[] entry for path in a run report, NULL if the run did not change it. */
const cJSON *il_test_knobs_report_entry(const cJSON *report, const char *path);

/*
 * Writes to path a copy of the built-in rt-throttled policy (from
 * policy_dir) with sched_rt_runtime_us = rt_runtime_us and the name
 * rt-throttled-<value>, and checks that it loads asking for that value.
 */
void il_test_knobs_write_policy(const char *path, const char *policy_dir,
				const char *rt_runtime_us);

#endif
