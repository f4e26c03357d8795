/* inputlat restore: put back the system knobs a run saved, by hand. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "il_cmd.h"
#include "il_knobs.h"

int il_cmd_restore(int argc, char **argv)
{
	const char *dir = il_knobs_state_dir();
	bool help = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);

	/* Only alone: 'restore --help x' printed the help. */
	if (help && argc == 2) {
		printf("Usage: inputlat restore\n"
		       "Writes back the system knobs (sched_rt_runtime_us, fair server, ...)\n"
		       "saved by a run that did not finish (in the state file the machine's\n"
		       "knob lock " IL_KNOBS_LOCK_PATH " names, and in %s/" IL_KNOBS_STATE_FILE
		       "),\n"
		       "then removes that file. Refuses (exit 75) while a run holds the lock.\n",
		       dir);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr,
			"inputlat restore: unexpected '%s' (restore takes no "
			"arguments)\n",
			argv[help ? 2 : 1]);
		return 2;
	}
	struct il_knob_report rep;
	char err[512] = "";
	int r = il_knobs_restore(dir, &rep, err, sizeof(err));
	if (r) {
		fprintf(stderr, "inputlat restore: %s\n", err[0] ? err : strerror(-r));
		return r == -EBUSY ? IL_EXIT_KNOBS_BUSY : r == -EACCES ? 2 : 1;
	}
	if (rep.n == 0)
		printf("nothing to restore (no %s/" IL_KNOBS_STATE_FILE ")\n", dir);
	/* In the order they were written back: the reverse of applying. */
	for (size_t i = rep.n; i-- > 0;)
		if (rep.changes[i].left_as[0])
			printf("left %s = %s: changed by someone else since the run set %s (its "
			       "original was %s)\n",
			       rep.changes[i].path, rep.changes[i].left_as, rep.changes[i].applied,
			       rep.changes[i].original);
		else
			printf("restored %s = %s (was %s)\n", rep.changes[i].path,
			       rep.changes[i].original, rep.changes[i].applied);
	return 0;
}
