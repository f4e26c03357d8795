/*
 * The inputlat subcommands. Each takes its own argv (argv[0] is the verb,
 * e.g. "check") and returns the process exit code: 0 success, 1 a run
 * failed, 2 a user mistake (one line on stderr), IL_EXIT_KNOBS_BUSY when
 * another run holds the system knobs. main.c dispatches them by name from
 * one table.
 */
#ifndef IL_CMD_H
#define IL_CMD_H

/* EX_TEMPFAIL: another inputlat run holds the machine's knobs; try later.
 * Scripts (reproduce, the sweep, the tests) check this code, not text. */
#define IL_EXIT_KNOBS_BUSY 75

/*
 * The environment entry a program that starts `inputlat run` sets to its
 * own pid ("IL_RUN_PARENT=1234") to have the run stop, as by SIGTERM
 * (knobs back, the interrupted report written), when that process dies:
 * the run asks for PR_SET_PDEATHSIG itself, once its stop signals wait
 * for its handlers, and checks that the pid is still its parent to close
 * the race with a parent that died first. reproduce and the sweep set it;
 * a parent SIGKILLed mid-run left its run going on alone, knobs changed,
 * until the run's own end. The entry is removed from the run's
 * environment, so its children and --background never see it.
 */
#define IL_RUN_PARENT_ENV "IL_RUN_PARENT"

struct il_cmd {
	const char *name;
	const char *summary; /* one line for `inputlat --help` */
	int (*run)(int argc, char **argv);
};

/* The table, ending with a NULL name. */
extern const struct il_cmd il_cmds[];

/* `inputlat run`: pass mouse-downs through the chain (il_run.c). */
int il_cmd_run(int argc, char **argv);

/* `inputlat policies [show NAME|PATH]`: list the built-ins or print one. */
int il_cmd_policies(int argc, char **argv);

/* `inputlat check [--json]`: repairs knobs a dead run left, then one line
 * per capability, "name: yes|no (why)". Exit 0 whatever is missing. */
int il_cmd_check(int argc, char **argv);

/* `inputlat restore`: puts back system knobs saved in the state file. */
int il_cmd_restore(int argc, char **argv);

/*
 * `inputlat compare [--resamples N] A.json B.json`: two run reports side
 * by side with B/A ratios and intervals. 2 with one line on stderr for a
 * usage error, a missing or unreadable file, text that is not JSON, or a
 * report that lacks a key the comparison needs.
 */
int il_cmd_compare(int argc, char **argv);

/*
 * `inputlat stats fdr [--alpha A] [--json FILE] P...`: the level at which
 * to judge each of a family of comparisons so that the family holds a
 * false discovery rate (Benjamini-Hochberg). 2 with one line on stderr for
 * a usage error or a p-value outside [0, 1].
 */
int il_cmd_stats(int argc, char **argv);

/*
 * `inputlat explain [--event N|--worst K] [--percentile P] [--json]
 * [--records FILE] RUN.json [B.json]`: the run's attribution in words; with
 * B.json, which component grew from RUN to B. 2 with one line on stderr
 * for a usage error, an unreadable report or one without attribution.
 */
int il_cmd_explain(int argc, char **argv);

/*
 * `inputlat reproduce [--json FILE] [--quick] [--rounds R]`: runs the
 * scenarios behind DESIGN.md's four claims as `inputlat run` child
 * processes, policies interleaved, and prints one verdict line per claim.
 * 0 when every run completed (whatever the verdicts), 1 when a run failed
 * or was interrupted, 2 for a usage error.
 */
int il_cmd_reproduce(int argc, char **argv);

#endif
