/* inputlat: subcommands dispatched by name from one table. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "il_cmd.h"
#include "il_env.h"
#include "il_header.h"
#include "il_term.h"

const struct il_cmd il_cmds[] = {
    {"run", "pass mouse-downs through the chain and report latency (run --help)", il_cmd_run},
    {"policies", "list the built-in policies; `policies show NAME` prints one", il_cmd_policies},
    {"check", "what this machine can do (RT, deadline, fair server, uinput, DRM, BPF)",
     il_cmd_check},
    {"restore", "put back system knobs a crashed run left changed", il_cmd_restore},
    {"compare", "two run JSON files side by side with ratios and a verdict", il_cmd_compare},
    {"stats", "`stats fdr`: the level that holds a family of verdicts to one error rate",
     il_cmd_stats},
    {"explain", "why a run's hops took what they took (kernel attribution), rtla-style",
     il_cmd_explain},
    {"reproduce", "rerun the four claims of the ChromeOS RT experiment", il_cmd_reproduce},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: inputlat COMMAND [OPTION]...\n"
		   "Measure how scheduling policy changes the latency of a mouse click through a\n"
		   "browser -> renderer -> display-compositor hop chain.\n\n"
		   "Commands:\n");
	for (const struct il_cmd *c = il_cmds; c->name; c++)
		fprintf(f, "  %-11s %s\n", c->name, c->summary);
	fprintf(f, "  --version   print the version\n"
		   "  --help      this text\n");
}

/*
 * What went to stdout must have arrived: a full disk or a closed pipe is
 * a failed command, not exit 0 with the output lost (coreutils'
 * close_stdout does the same).
 */
static int finish_stdout(int rc)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout) || il_term_stdout_error()) {
		int e = il_term_stdout_error() ? il_term_stdout_error() : errno ? errno : EIO;

		/* A command that failed has said its one line already (often
		 * this very error, as "--json: writing stdout: ..."). */
		if (rc == 0) {
			fprintf(stderr, "inputlat: writing stdout: %s\n", strerror(e));
			rc = 1;
		}
	}
	return rc;
}

/*
 * Arguments are one line each: an error names the argument it refuses,
 * and a newline in one split that line in two (the terminal guard shows
 * other control characters escaped, il_term.h, but keeps line ends).
 * Refused here, for every command, with its position; only the shell
 * command of --background may span lines (a script, never echoed).
 */
static int args_one_line(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		bool script = (i > 1 && !strcmp(argv[i - 1], "--background")) ||
			      !strncmp(argv[i], "--background=", 13);
		const char *nl = script ? NULL : strpbrk(argv[i], "\n\r");

		if (nl) {
			fprintf(stderr,
				"inputlat: argument %d has a line break (at byte %zu): names and "
				"values are one line\n",
				i, (size_t)(nl - argv[i]));
			return -1;
		}
	}
	return 0;
}

/*
 * The directories a script or a test points inputlat at. Set but empty,
 * each counted as unset, and the command went on with the built-in
 * policies, the shipped scripts or the real state directory (where a
 * run's knobs are saved) as if asked: an empty value is a mistake in
 * whatever set it, said for every command (IL_REPRODUCE_REPORTS is
 * reproduce's own).
 */
static int env_dirs_set(void)
{
	static const char *const vars[] = {"IL_JS_DIR", "IL_POLICY_DIR", "IL_STATE_DIR"};
	static const char *const switches[] = {IL_ENV_SWITCHES};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && !*v) {
			fprintf(stderr,
				"inputlat: %s is set but empty: give a directory, or unset it\n",
				vars[i]);
			return -1;
		}
	}
	/* The switches likewise, said for every command (il_env.h): each was
	 * on whatever it held, IL_REPRODUCE_KEEP=0 too. */
	for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
		if (il_env_switch_check("inputlat", switches[i]) < 0)
			return -1;
	return 0;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (args_one_line(argc, argv) < 0)
		return 2;
	bool help = !strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help");

	/* Nothing after them means anything: said, not ignored. */
	if ((help || !strcmp(cmd, "--version")) && argc > 2) {
		fprintf(stderr, "inputlat: unexpected '%s' after %s (see inputlat --help)\n",
			argv[2], cmd);
		return 2;
	}
	if (help) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("inputlat %s\n", il_version());
		return 0;
	}
	for (const struct il_cmd *c = il_cmds; c->name; c++)
		if (strcmp(cmd, c->name) == 0)
			return env_dirs_set() < 0 ? 2 : c->run(argc - 1, argv + 1);
	fprintf(stderr, "inputlat: unknown command '%s' (see inputlat --help)\n", cmd);
	return 2;
}

/*
 * The stack every thread of ours may use. Each touches 64 KiB of its own
 * before a run, some hold readers' buffers, and glibc gives new threads a
 * stack of RLIMIT_STACK as it was at start-up: 'ulimit -s 128' made a run
 * die of SIGSEGV. A lower soft limit is raised (the children inherit it)
 * and so is the default thread stack; a hard limit below it is one line.
 */
#define STACK_MIN (1024 * 1024)

static int stack_limit(void)
{
	struct rlimit rl;
	pthread_attr_t a;

	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= STACK_MIN)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < STACK_MIN) {
		fprintf(stderr,
			"inputlat: the stack limit is %llu KiB and cannot be raised; inputlat "
			"needs %d KiB (raise it: ulimit -s %d)\n",
			(unsigned long long)rl.rlim_max / 1024, STACK_MIN / 1024, STACK_MIN / 1024);
		return -1;
	}
	rl.rlim_cur = STACK_MIN;
	if (setrlimit(RLIMIT_STACK, &rl) != 0 || pthread_attr_init(&a) != 0)
		return 0;
	pthread_attr_setstacksize(&a, STACK_MIN);
	pthread_setattr_default_np(&a);
	pthread_attr_destroy(&a);
	return 0;
}

/*
 * Standard streams started closed (`<&- >&- 2>&-`): the first files we
 * open would become them, and a warning meant for stderr was written into
 * the --json file. Each is held by /dev/null opened the other way round,
 * so it stays unusable as it was (a write to stdout fails with EBADF and
 * is said, as closed) while no file of ours can take its number.
 */
static void hold_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			/* Not close-on-exec: the children, who write to our
			 * stderr, inherit the hold as they would the stream. */
			int held = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);

			/* open takes the lowest free number: this one. */
			if (held >= 0 && held != fd)
				close(held);
		}
}

int main(int argc, char **argv)
{
	int rc;

	hold_closed_std_fds();
	if (stack_limit() < 0)
		return 2;
	/* A file past RLIMIT_FSIZE is a failed write said in one line (EFBIG),
	 * not a SIGXFSZ that kills us between applying and restoring knobs.
	 * The children inherit the ignored signal. */
	signal(SIGXFSZ, SIG_IGN);
	il_term_guard();
	rc = finish_stdout(dispatch(argc, argv));
	il_term_release();
	return rc;
}
