/* Subcommands that belong to the sweep and statistics area. */
#ifndef IL_CMDS_SWEEP_H
#define IL_CMDS_SWEEP_H

/*
 * `inputlat compare [--resamples N] A.json B.json`: two run reports side
 * by side with B/A ratios, and a 95% bootstrap interval for the ratio of
 * mean processing latency. argv[0] is the verb ("compare").
 * Returns the process exit code: 0, or 2 with one line on stderr for a
 * usage error, a missing or unreadable file, text that is not JSON, or a
 * report that lacks a key the comparison needs.
 */
int il_cmd_compare(int argc, char **argv);

#endif
