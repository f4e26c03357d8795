/* What the subcommands say about an option getopt_long refused. */
#include <getopt.h>
#include <stdio.h>

#include "il_cmd.h"

const char *il_cmd_bad_option(char *const *argv, char *buf, size_t len)
{
	/*
	 * An unknown short option sets optopt to its letter, and may sit
	 * inside a cluster ("-xyz"), where optind has not moved past it yet
	 * and argv[optind - 1] is the argument before. An unknown long one
	 * sets optopt to 0 and is argv[optind - 1] itself.
	 */
	if (optopt > 0 && optopt < 128) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	return argv[optind - 1];
}
