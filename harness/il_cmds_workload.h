/* Subcommands that belong to the workload area (issue 4). */
#ifndef IL_CMDS_WORKLOAD_H
#define IL_CMDS_WORKLOAD_H

/*
 * `inputlat reproduce [--json FILE] [--quick] [--rounds R]`: runs the
 * scenarios behind DESIGN.md's four claims as `self_exe run ...` child
 * processes, policies interleaved A B A B for R rounds (default 3), and
 * prints one verdict line per claim with the measured figures and the
 * article's figure. argv[0] is the verb ("reproduce"); self_exe is the
 * path of the inputlat binary to run.
 * Returns the exit code: 0 when every run completed (whatever the
 * verdicts; a claim this machine cannot test is "not testable"), 1 when a
 * run failed or was interrupted, 2 for a usage error (one line on stderr).
 */
int il_cmd_reproduce(int argc, char **argv, const char *self_exe);

#endif
