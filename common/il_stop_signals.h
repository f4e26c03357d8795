/* What ends inputlat's commands and benchmarks in order rather than by a signal's default action.
 */
#ifndef IL_STOP_SIGNALS_H
#define IL_STOP_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/*
 * The signals that end a run in order (knobs back, outputs written; for
 * reproduce and the benchmarks, their run stopped and their temporary
 * files removed): every
 * one whose default action ends the process and that somebody sends on
 * purpose (Ctrl-C, Ctrl-backslash, Ctrl-Z, a closed terminal, kill, kill -USR1, a
 * timer's alarm). Killed by the default action instead, the run left the
 * knobs changed until the next start. The faults (SIGSEGV, SIGBUS, ...)
 * and SIGXCPU (a runaway RT thread) are left to the next start's repair;
 * SIGPIPE is ignored (a write says EPIPE).
 */
#define IL_RUN_STOP_SIGNALS                                                                        \
	SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,  \
	    SIGIO, SIGPWR, SIGSTKFLT
#define IL_RUN_NSTOP_SIGNALS 13

/*
 * Whether sig was ignored when we started (nohup's SIGHUP, the SIGINT and
 * SIGQUIT a shell's background job starts with): such a signal is left
 * ignored, not turned into a stop (nohup inputlat run ... was stopped by
 * the hang-up nohup was asked to keep from it).
 */
static inline bool il_stop_signal_ignored(int sig)
{
	struct sigaction sa;

	return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

#endif
