/*
 * The policy-related inputlat subcommands. Each takes the subcommand's own
 * argv (argv[0] is the verb, e.g. "policies") and returns the process exit
 * code: 0 success, 1 run failure, 2 user mistake (one line on stderr).
 */
#ifndef IL_CMDS_POLICY_H
#define IL_CMDS_POLICY_H

/* inputlat policies [show NAME|PATH]: list the built-ins from builtin_dir,
 * one line each, or print one policy's resolved table and knobs. */
int il_cmd_policies(int argc, char **argv, const char *builtin_dir);

/* inputlat check [--json]: first repairs knobs left by a dead run, then one
 * line per capability, "name: yes|no (why)". Exit 0 whatever is missing.
 * state_dir NULL means il_knobs_state_dir(). */
int il_cmd_check(int argc, char **argv, const char *state_dir);

/* inputlat restore: put back system knobs saved in the state file. */
int il_cmd_restore(int argc, char **argv, const char *state_dir);

#endif
