/*
 * The orchestrator's children: spawned with uv_spawn, each with a control
 * channel on fd 3 and its hop pipes on fds 4..6, tracked until they exit.
 */
#ifndef IL_SPAWN_H
#define IL_SPAWN_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "il_chain.h"
#include "il_ctl.h"

struct il_proc;

/* Events from a child, delivered on the orchestrator's loop. */
struct il_proc_events {
	void (*control)(struct il_proc *p, cJSON *msg);
	void (*exited)(struct il_proc *p);
	void (*control_eof)(struct il_proc *p);
	/* A malformed frame on the control channel (err: enum il_frame_err). */
	void (*invalid)(struct il_proc *p, int err);
};

struct il_proc {
	char name[32]; /* "browser-sim" */
	uv_process_t process;
	uv_pipe_t ctl;
	struct il_frame_reader *reader;
	const struct il_proc_events *ev;
	void *data;
	int pid;
	bool spawned, exited, ready;
	bool ctl_eof;	     /* its control channel read to the end */
	bool stop_late_said; /* named as killed at the stop's bound */
	bool started;	     /* answered the ping sent right after "start" */
	uint64_t start_seq;  /* that ping's seq */
	int64_t exit_status;
	int term_signal;
	cJSON *stats_msg; /* owned */
	uint64_t ping_sent_ns, pong_ns;
	uint64_t ping_seq;
};

/*
 * Spawns dir/name with args (NULL-terminated, without argv[0]). fds[i] is
 * the orchestrator's fd that becomes the child's fd i (i >= 3), or -1.
 * ctl_fd, the orchestrator's end of the control channel (the other end is
 * fds[3]), is opened as a libuv pipe on loop and owned by p from then on.
 * Returns 0 or a libuv error.
 */
int il_proc_spawn(uv_loop_t *loop, struct il_proc *p, const char *dir, const char *name,
		  char *const *args, const int *fds, int nfds, int ctl_fd,
		  const struct il_proc_events *ev, void *data);

/* Sends SIGKILL to a child still running (by its pid, which we started). */
void il_proc_kill(struct il_proc *p);

/*
 * True when the child has ended, whether or not its exit has reached the
 * loop yet (libuv reaps it, and calls .exited, in the loop's I/O phase,
 * after the timers of the same turn): a look that leaves it to be reaped.
 * Also while it is on its way out (in do_exit, or a SIGKILL pending): its
 * exit will come, and say "died".
 */
bool il_proc_is_ending(const struct il_proc *p);

/*
 * True while process pid is on its way out: a SIGKILL is pending for it, or
 * every one of its threads is in do_exit (PF_EXITING). A killed child under
 * ASan on a loaded CPU took more than a second releasing its memory before
 * it was a zombie, and a ping unanswered meanwhile had called it hung.
 */
bool il_pid_exiting(pid_t pid);

/* Closes the handles (after the child exited or was killed). */
void il_proc_close(struct il_proc *p);

/* Frees the stats message kept for the report. */
void il_proc_free_msgs(struct il_proc *p);

/* "exit status 1", "killed by signal 9 (Killed)" */
void il_proc_describe_exit(const struct il_proc *p, char *buf, size_t len);

#endif
