/*
 * The project's programs from tests: run bounded with output captured,
 * started in the background with their chain of children followed, and
 * what /proc says about them (alive, children, threads, RT threads left).
 *
 * The test process becomes the subreaper of everything it starts, so
 * orphans of a killed run come to it and "nothing left" is checked among
 * its own descendants, whatever else runs on the machine. Every process
 * started here is remembered until it is reaped; il_test_kill_started()
 * (a teardown) ends those and only those.
 */
#ifndef IL_TEST_PROC_H
#define IL_TEST_PROC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "il_chain.h"

/* The children of `inputlat run`, in il_chain's order (the three of the
 * chain, then il-workload). */
#define IL_TEST_NCHAIN 3
#define IL_TEST_NKIDS  IL_PROC_COUNT

struct il_test_result {
	int exit_code;	 /* -1 when killed by a signal */
	int term_signal; /* 0 unless killed */
	int timed_out;	 /* the test's bound expired and we killed it */
	double elapsed_s;
	char out[1 << 20]; /* a report on stdout: with attribution, hundreds of KiB */
	char err[65536];
};

/* build/NAME (from IL_BUILD_DIR, set by CTest). Returns a static buffer. */
const char *il_test_build_path(const char *name);

/* The program name of child p ("browser-sim"), from il_chain. */
const char *il_test_kid_name(int p);

/*
 * Runs argv (argv[0] a path) with a bound of timeout_ms; SIGKILLs it (and
 * only it) at the bound. Captures stdout and stderr. Returns 0 or -errno.
 */
int il_test_run(char *const argv[], int timeout_ms, struct il_test_result *res);

/*
 * il_test_run, with pre(ctx) called in the child right before exec, its
 * stdout and stderr already in place: limits, affinity, a user, stdin.
 * pre must only make system calls (it runs between fork and exec).
 */
int il_test_run_with(char *const argv[], int timeout_ms, void (*pre)(void *ctx), void *ctx,
		     struct il_test_result *res);

/* Starts argv in the background with stdout/stderr to files; returns the pid. */
pid_t il_test_spawn(char *const argv[], const char *out_path, const char *err_path);

/*
 * Waits for pid (one il_test_spawn started) at most timeout_ms; SIGKILLs
 * it at the bound. Returns its wait status, or -1 when it was killed at
 * the bound.
 */
int il_test_wait(pid_t pid, int timeout_ms, double *elapsed_s);

/* The first pid whose parent is ppid and whose comm equals comm (0 if none). */
pid_t il_test_find_child(pid_t ppid, const char *comm);

/* The tid of the thread named name in process pid, 0 if none (yet). */
pid_t il_test_find_thread(pid_t pid, const char *name);

/*
 * Judges a forked check: reads its message from fd (then closes it),
 * waits for pid; exit 77 skips with skip_why, any other status but 0
 * fails with the message ("the child died" without one).
 */
void il_test_child_judge(pid_t pid, int fd, const char *skip_why);

/* True while pid runs the program comm (not gone, not a zombie, not reused). */
bool il_test_proc_alive(pid_t pid, const char *comm);

/* Waits up to timeout_ms for every listed process to be gone (0 pids are skipped). */
bool il_test_procs_gone(const pid_t *pids, const char *const *comms, int n, int timeout_ms);

/* Reaps the orphans handed to us (we are their subreaper); never waits. */
void il_test_reap_orphans(void);

/*
 * Live processes of the project's programs among this test's descendants
 * (the test is their subreaper once it has started one). Zombies are not
 * counted: they hold nothing.
 */
int il_test_count_project_procs(void);

/* True when any live process on the machine, ours or not, runs comm. */
bool il_test_program_running(const char *comm);

/*
 * Live threads named like the project's threads ("browser:ui",
 * "il:load0", ...) in an RT or deadline class, among our descendants and
 * the pids in seen[]. what gets the first one found. Returns the count.
 */
int il_test_rt_threads_left(const pid_t *seen, int nseen, char *what, size_t len);

/*
 * Waits up to timeout_ms until no project process of ours and no RT
 * thread (il_test_rt_threads_left) is left, reaping orphans meanwhile.
 * took_ms gets the wait; why says what is left when it returns false.
 */
bool il_test_nothing_left(const pid_t *seen, int nseen, int timeout_ms, double *took_ms, char *why,
			  size_t len);

/*
 * Ends what this test started and has not reaped, and the children of
 * theirs it saw (SIGKILL, and SIGCONT for a stopped one), then waits for
 * them to be gone. For teardowns: a failed case leaves nothing behind.
 */
void il_test_kill_started(void);

/* A cmocka teardown: il_test_kill_started(). */
int il_test_proc_teardown(void **state);

/*
 * What a test that runs the programs needs: a private directory for its
 * files and the build's paths (il_test_build_path returns one static
 * buffer, these are copies).
 */
struct il_test_paths {
	char tmpdir[256];	   /* /tmp/il-test-<tag>.XXXXXX, made by init */
	char inputlat[PATH_MAX];   /* build/inputlat */
	char policy_dir[PATH_MAX]; /* build/policies */
};

/* Fills p and makes p->tmpdir. Returns 0 or -errno. */
int il_test_paths_init(struct il_test_paths *p, const char *tag);

/* Removes p->tmpdir and all in it. Returns 0 or -errno. */
int il_test_paths_close(struct il_test_paths *p);

/* The paths of this test program's suite, once il_test_suite_setup ran. */
extern struct il_test_paths il_test_suite;

/*
 * cmocka group fixtures for a suite that runs the programs: the setup
 * fills il_test_suite (its directory named after the test program), the
 * teardown ends what was started and removes the directory.
 */
int il_test_suite_setup(void **state);
int il_test_suite_teardown(void **state);

/*
 * il_test_suite.tmpdir/name. The result is one of 64 static buffers used
 * in turn, so a call's arguments (an argv) may hold up to 64 at once.
 */
const char *il_test_suite_file(const char *name);

/* --- a background `inputlat run` and its chain ---------------------------- */

struct il_test_chain {
	pid_t pid;		   /* inputlat; 0 when it could not be started */
	bool reaped;		   /* inputlat ended and was waited for */
	pid_t kids[IL_TEST_NKIDS]; /* as seen, in il_chain order; 0: not seen */
	int status;		   /* its wait status once it ended; -1 before */
	double t0;		   /* il_test_now_s() when it was started */
	char err_path[PATH_MAX];   /* where its stderr goes */
};

/* Starts argv with stdout and stderr to files; c->pid is 0 when fork failed. */
void il_test_chain_spawn(struct il_test_chain *c, char *const argv[], const char *out,
			 const char *err);

/* One look in /proc for the children of c->pid not seen yet. Returns how many are seen. */
int il_test_chain_look(struct il_test_chain *c);

/*
 * il_test_chain_spawn, then waits up to timeout_ms until all its children
 * are up. Returns 0 when they are, -ECHILD when inputlat ended first
 * (c->status is its wait status, c->kids what was seen). Fails the test
 * at the bound.
 */
int il_test_chain_start(struct il_test_chain *c, char *const argv[], const char *out,
			const char *err, int timeout_ms);

/*
 * rc is what il_test_chain_start (or il_test_knobs_chain_start) returned:
 * fails the test, with inputlat's status and stderr, when it ended before
 * its chain was up.
 */
void il_test_chain_assert_up(const struct il_test_chain *c, int rc);

/*
 * Waits up to timeout_ms until at least `events` events have gone through
 * the chain of a run with the default --work, before a test signals it
 * "mid-run" and then counts on completed events in its report. Completions
 * cannot be watched from outside (the outputs are written at the end or
 * in large blocks), but the work each event costs on its way can: this
 * waits until viz:gpu (hop 10, the last one with much work) has used
 * `events` events' worth of CPU time. Pick events to span several vblanks
 * (16.7 ms), so that the first of them has been presented. Returns false
 * when inputlat ended first; fails the test at the bound, saying how far
 * the run got. `events` are measured ones: the run's default warm-up
 * (IL_TEST_RUN_WARMUP mouse-downs, left out of the report's counts) is
 * waited for on top of them.
 */
#define IL_TEST_RUN_WARMUP 10 /* inputlat run's default --warmup */
bool il_test_chain_wait_events(struct il_test_chain *c, int events, int timeout_ms);

/* True once c's inputlat has ended: reaps it (c->status, c->reaped) without waiting. */
bool il_test_chain_ended(struct il_test_chain *c);

/* il_test_wait for c's inputlat; the status is returned and kept in c->status. */
int il_test_chain_wait(struct il_test_chain *c, int timeout_ms);

/*
 * The bound of a wait for an exit that must come: past it the process is
 * hung, a failure. Far beyond any promptness bound, which a test judges
 * apart with il_test_assert_prompt (excused when other tasks held the
 * CPUs): a run that ends in 5.3 s on a machine under ASan, stress-ng and a
 * VM (test_chain_kill_render once did) is late, not hung.
 */
#define IL_TEST_HANG_MS 30000

/* Waits up to timeout_ms for every child seen to be gone; false while inputlat is not reaped. */
bool il_test_chain_gone(const struct il_test_chain *c, int timeout_ms);

/* Reads the run's stderr into buf ("" when there is none). */
const char *il_test_chain_stderr(const struct il_test_chain *c, char *buf, size_t len);

#endif
