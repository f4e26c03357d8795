/*
 * --background "CMD": a load generator a user would recognise (stress-ng
 * --cpu 2, a buffered-write loop) running for the length of a run, as
 * /bin/sh -c CMD in a process group of its own, SCHED_OTHER at nice 0
 * whatever the orchestrator's class. It is stopped on every exit path:
 * by the run's last stage, by the watchdog (which kills the group), and,
 * when the orchestrator itself was SIGKILLed, by its reaper (a process
 * it forks, il:bg-reaper, that stops the group within about a second
 * once a pipe only the orchestrator holds is closed) and then by the next
 * `inputlat run` or `inputlat check`, which find its state file.
 *
 * The state file, STATE_DIR/background.PID.state (PID: the orchestrator),
 * names the group and its leader's start time, and is on disk before the
 * command runs: the leader waits on a pipe until the file is written. A
 * group is only ever killed while its leader has the recorded start time,
 * or, the leader gone, while members of the group started after it, so a
 * reused pid is never hit.
 *
 * A process that leaves the group (setsid, a daemon) is found by the
 * environment entry IL_BACKGROUND=<random> the command was started with
 * (also in the state file), and counted and stopped with the group.
 */
#ifndef IL_BACKGROUND_H
#define IL_BACKGROUND_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct il_background;

/*
 * Starts cmd. On success *out owns it (il_background_stop). Returns 0,
 * or -errno with one line in err: the state file could not be written,
 * fork failed, or the command exited within its first 200 ms (-ECHILD:
 * "--background 'stress-ng --cpu 2': exited with status 127 before the run
 * started (command not found?)").
 */
int il_background_start(const char *cmd, const char *state_dir, struct il_background **out,
			char *err, size_t errlen);

/* The group's id, for the watchdog (kill(-pgid, SIGKILL)). */
pid_t il_background_pgid(const struct il_background *b);

/*
 * {"command", "pgid", "wall_ns", "cpu_ns", "cpu_share", "cpus", "exited_early",
 * "outside_group"} (outside_group: processes found by the cookie, not the
 * group):
 * the group's CPU time (its members' and their reaped children's, from
 * /proc) from the start until now, and that as a share of the CPUs its
 * processes may run on (cpus: the union of their affinities now) over the
 * same wall time. Take it before il_background_stop. NULL when out of
 * memory.
 */
cJSON *il_background_stats_json(const struct il_background *b);

/*
 * Stops the group (SIGTERM, then SIGKILL after 1 s), reaps the leader,
 * removes the state file and frees b. NULL-safe.
 */
void il_background_stop(struct il_background *b);

/* What a state file says (il_background_state_parse). */
struct il_background_state {
	pid_t pid;		       /* the orchestrator that wrote it */
	unsigned long long pid_start;  /* its start, clock ticks since boot */
	pid_t pgid;		       /* the load's process group */
	unsigned long long pgid_start; /* its leader's start */
	char command[256];	       /* for the log line, cut; "?" when none */
	char cookie[40];	       /* IL_BACKGROUND=<16 hex>, "" when none or not ours */
};

/*
 * Parses a state file's text (NUL-terminated): 0, or -EINVAL when it is
 * not one this version wrote (a pid or pgid outside 1..INT32_MAX, a start
 * time missing or not a whole number below 2^64). Exposed for the fuzz
 * target (tests/fuzz/fuzz_state.c).
 */
int il_background_state_parse(const char *text, struct il_background_state *out);

/*
 * Kills the groups of background.*.state files in state_dir whose
 * orchestrator is gone (after a SIGKILL), and removes the files. One line
 * on log per group killed. Returns the number killed, or -errno when the
 * directory cannot be read (-ENOENT: nothing there, not an error).
 */
int il_background_recover_stale(const char *state_dir, FILE *log);

#endif
