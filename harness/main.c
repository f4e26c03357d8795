/* inputlat: subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "il_knobs.h"
#include "il_paths.h"
#include "il_run.h"
#ifdef IL_HAVE_CMD_POLICIES
#include "il_cmds_policy.h"
#endif
#ifdef IL_HAVE_CMD_COMPARE
#include "il_cmds_sweep.h"
#endif
#ifdef IL_HAVE_CMD_REPRODUCE
#include "il_cmds_workload.h"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: inputlat COMMAND [OPTION]...\n"
		"Measure how scheduling policy changes the latency of a mouse click through a\n"
		"browser -> renderer -> display-compositor hop chain.\n\n"
		"Commands:\n"
		"  run         pass mouse-downs through the chain and report latency (run --help)\n"
		"  policies    list the built-in policies; `policies show NAME` prints one\n"
		"  check       what this machine can do (RT, deadline, fair server, uinput, DRM, BPF)\n"
		"  restore     put back system knobs a crashed run left changed\n"
		"  compare     two run JSON files side by side with ratios\n"
		"  reproduce   rerun the four claims of the ChromeOS RT experiment\n"
		"  --version   print the version\n"
		"  --help      this text\n");
}

int main(int argc, char **argv)
{
	char policy_dir[4096];
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("inputlat %s\n", IL_VERSION);
		return 0;
	}
	il_paths_policies(policy_dir, sizeof(policy_dir));
	if (strcmp(cmd, "run") == 0)
		return il_cmd_run(argc - 1, argv + 1);
#ifdef IL_HAVE_CMD_POLICIES
	if (strcmp(cmd, "policies") == 0)
		return il_cmd_policies(argc - 1, argv + 1, policy_dir);
#endif
#ifdef IL_HAVE_CMD_CHECK
	if (strcmp(cmd, "check") == 0)
		return il_cmd_check(argc - 1, argv + 1, il_knobs_state_dir());
#endif
#ifdef IL_HAVE_CMD_RESTORE
	if (strcmp(cmd, "restore") == 0)
		return il_cmd_restore(argc - 1, argv + 1, il_knobs_state_dir());
#endif
#ifdef IL_HAVE_CMD_COMPARE
	if (strcmp(cmd, "compare") == 0)
		return il_cmd_compare(argc - 1, argv + 1);
#endif
#ifdef IL_HAVE_CMD_REPRODUCE
	if (strcmp(cmd, "reproduce") == 0) {
		char self[4096];

		if (il_paths_self(self, sizeof(self)) < 0) {
			fprintf(stderr, "inputlat reproduce: cannot find my own executable\n");
			return 1;
		}
		return il_cmd_reproduce(argc - 1, argv + 1, self);
	}
#endif
	fprintf(stderr, "inputlat: unknown command '%s' (see inputlat --help)\n", cmd);
	return 2;
}
