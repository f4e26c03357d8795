#include "il_bench.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_file.h"
#include "il_parse.h"
#include "il_stop_signals.h"

int il_bench_inputlat(const char *prog, char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int rc = n < 0 ? -errno : 0;

	if (rc == 0) {
		self[n] = '\0';
		snprintf(buf, len, "%s/../inputlat", dirname(self));
		if (access(buf, X_OK) < 0)
			rc = -errno;
	} else {
		snprintf(buf, len, "inputlat next to /proc/self/exe (%s)", strerror(-rc));
	}
	if (rc < 0)
		fprintf(stderr, "%s: cannot find %s (build the inputlat target)\n", prog, buf);
	else {
		char me[32];

		/* The runs this bench starts stop, as by SIGTERM, if it dies
		 * (IL_RUN_PARENT, harness/il_cmd.h): a bench SIGKILLed mid-run
		 * left its run going on alone. Set before any fork, while the
		 * bench has one thread. */
		snprintf(me, sizeof(me), "%d", (int)getpid());
		setenv("IL_RUN_PARENT", me, 1);
	}
	return rc;
}

int il_bench_out_check(const char *prog, const char *path)
{
	char err[600];
	int rc = il_out_check("--json", path, err, sizeof(err));

	if (rc < 0)
		fprintf(stderr, "%s: %s\n", prog, err);
	return rc;
}

int il_bench_opt_error(const char *prog, int c, char **argv, const struct option *longopts)
{
	char opt[300];

	if (c == ':')
		fprintf(stderr, "%s: %s needs a value (see --help)\n", prog, argv[optind - 1]);
	else if (c == '?')
		fprintf(stderr, "%s: %s (see --help)\n", prog,
			il_parse_option_error(argv, longopts, opt, sizeof(opt)));
	else if (strchr(argv[optind - 1], '=') && !strncmp(argv[optind - 1], "--", 2))
		fprintf(stderr, "%s: bad value in '%s' (see --help)\n", prog, argv[optind - 1]);
	else if (optind >= 2)
		/* "--rounds abc": the option, then its value. */
		fprintf(stderr, "%s: %s: bad value '%s' (see --help)\n", prog, argv[optind - 2],
			argv[optind - 1]);
	else
		fprintf(stderr, "%s: bad value '%s' (see --help)\n", prog, argv[optind - 1]);
	return 2;
}

int il_bench_no_operands(const char *prog, int argc, char **argv)
{
	if (optind >= argc)
		return 0;
	fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, argv[optind]);
	return 2;
}

/* --- cleanup on a signal ---------------------------------------------- */

#define TMP_FILES 8

/* Read by the handler: plain storage, each written before it is counted. */
static char tmp_dir[4200];
static char tmp_files[TMP_FILES][4200];
static volatile sig_atomic_t tmp_nfiles, tmp_have_dir, child_pid;

/* Only async-signal-safe calls: kill, waitpid, unlink, rmdir, signal, raise. */
static void tmp_remove(void)
{
	for (sig_atomic_t i = 0; i < tmp_nfiles; i++)
		unlink(tmp_files[i]);
	if (tmp_have_dir)
		rmdir(tmp_dir);
}

static void on_stop_signal(int sig)
{
	pid_t pid = (pid_t)child_pid;
	int st;

	if (pid > 0 && kill(pid, SIGTERM) == 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	tmp_remove();
	/* Ctrl-Z ends a benchmark as SIGTERM does: stopped by it after the
	 * cleanup, it would carry on after `fg` with its run gone. */
	if (sig == SIGTSTP)
		sig = SIGTERM;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* What each stop signal did when il_bench_tmp_dir took it over. */
static struct sigaction saved[IL_RUN_NSTOP_SIGNALS];
static const int stop_sigs[] = {IL_RUN_STOP_SIGNALS};

void il_bench_child_signals(void)
{
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaction(stop_sigs[i], &saved[i], NULL);
}

void il_bench_child_tie(int bench)
{
	char me[32];

	snprintf(me, sizeof(me), "%d", bench);
	setenv("IL_RUN_PARENT", me, 1);
	/* A bench gone before the request held has left us to init (or a
	 * subreaper): no signal would come, so go now. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != (pid_t)bench)
		_exit(1);
}

int il_bench_tmp_dir(const char *prog, char *tmpl)
{
	struct sigaction sa;

	if (tmpl) {
		if (!mkdtemp(tmpl)) {
			int e = errno;

			fprintf(stderr, "%s: cannot make %s: %s\n", prog, tmpl, strerror(e));
			return -e;
		}
		snprintf(tmp_dir, sizeof(tmp_dir), "%s", tmpl);
		tmp_have_dir = 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaddset(&sa.sa_mask, stop_sigs[i]);
	for (size_t i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		if (il_stop_signal_ignored(stop_sigs[i]))
			sigaction(stop_sigs[i], NULL, &saved[i]); /* nohup's stays ignored */
		else
			sigaction(stop_sigs[i], &sa, &saved[i]);
	return 0;
}

void il_bench_tmp_file(const char *path)
{
	for (sig_atomic_t i = 0; i < tmp_nfiles; i++)
		if (!strcmp(tmp_files[i], path))
			return;
	if (tmp_nfiles >= TMP_FILES)
		return;
	snprintf(tmp_files[tmp_nfiles], sizeof(tmp_files[0]), "%s", path);
	tmp_nfiles = tmp_nfiles + 1;
}

void il_bench_child(int pid)
{
	child_pid = pid;
}

void il_bench_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int il_bench_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int i = 0; i < CPU_SETSIZE && n < max; i++)
			if (CPU_ISSET(i, &set))
				cpus[n++] = i;
	if (n == 0 && max > 0)
		cpus[n++] = 0;
	return n;
}

void il_bench_tmp_done(void)
{
	tmp_remove();
	tmp_nfiles = 0;
	tmp_have_dir = 0;
}

static const char *stdout_prog;
static int stdout_errno; /* the first failed flush's, for the line at exit */

void il_bench_stdout_flush(void)
{
	errno = 0;
	if (fflush(stdout) != 0 && !stdout_errno)
		stdout_errno = errno ? errno : EIO;
}

/* An atexit handler, as coreutils' close_stdout: the status main chose is
 * no longer ours to read, so a failed stdout ends the program with 1. */
static void stdout_check(void)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return;
	e = stdout_errno ? stdout_errno : errno ? errno : EIO;
	fprintf(stderr, "%s: writing stdout: %s\n", stdout_prog, strerror(e));
	_exit(1);
}

void il_bench_stdout_checked(const char *prog)
{
	stdout_prog = prog;
	atexit(stdout_check);
}
