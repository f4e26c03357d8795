/* What the benchmark programs share. */
#ifndef IL_BENCH_H
#define IL_BENCH_H

#include <stddef.h>

/*
 * The inputlat program of the build tree a benchmark runs from: a bench
 * lives in build/bench/, the orchestrator in build/, so this is
 * <dir of /proc/self/exe>/../inputlat, into buf. Returns 0 when it is
 * executable, and sets IL_RUN_PARENT to this process (the runs it starts
 * stop if it dies; call it before any thread); else says so on stderr, as
 * prog ("prog: cannot find ..."), and returns -errno.
 */
int il_bench_inputlat(const char *prog, char *buf, size_t len);

/*
 * Checks a --json FILE before the benchmark spends minutes measuring:
 * il_out_open's rules (a regular file or a new one, no symlink, ours), and
 * its directory writable. Returns 0, or says why on stderr, as prog, and
 * returns -errno. NULL (no --json) is fine.
 */
int il_bench_out_check(const char *prog, const char *path);

/*
 * What a benchmark leaves in /tmp and the run it waits for, undone when
 * a stop signal (IL_RUN_STOP_SIGNALS: SIGINT, SIGTERM, SIGHUP, SIGQUIT, ...)
 * ends it: the child (an inputlat run) gets
 * SIGTERM, its orderly stop (knobs back) is waited for, the files are
 * removed, then the directory, and the signal ends the benchmark as it
 * would have (exit status by the signal; Ctrl-Z by SIGTERM). A signal
 * ignored at start (nohup) stays ignored. il_bench_tmp_dir makes the
 * directory from tmpl (mkdtemp) and installs the handlers; a tmpl of NULL
 * registers files in a directory that is not ours (kept). Registered
 * paths are copied (at most 8). il_bench_tmp_done removes them at a
 * normal end. Returns 0 or -errno (said on stderr as prog).
 */
int il_bench_tmp_dir(const char *prog, char *tmpl);
void il_bench_tmp_file(const char *path);
void il_bench_child(int pid);
void il_bench_tmp_done(void);

/* In a forked child before exec: the stop signals back as they were
 * before il_bench_tmp_dir (nohup's ignored SIGHUP stays ignored). */
void il_bench_child_signals(void);

/*
 * In a forked child before exec: the command dies with the bench, bench
 * being the pid that forked it. The child asks for SIGTERM at the bench's
 * death (PR_SET_PDEATHSIG, kept across exec) and exits at once if the
 * bench was gone before that took hold; an inputlat run it execs
 * gets IL_RUN_PARENT=bench and stops in order (knobs back). A bench
 * SIGKILLed mid-run left its command going on alone.
 */
void il_bench_child_tie(int bench);

/*
 * One line for what getopt_long (optstring ":...", opterr 0) refused or an
 * option's bad value: c ':' a missing value, '?' an unknown option, else a
 * value the caller refused; an ambiguous prefix of longopts is named so.
 * Returns 2, the exit code of a usage error.
 */
struct option;
int il_bench_opt_error(const char *prog, int c, char **argv, const struct option *longopts);

/*
 * After getopt_long: these benchmarks take options only, so an operand
 * left in argv (from optind) is a mistake, said rather than ignored, and
 * before --help or --version act ('--version x' printed the version).
 * Returns 0, or says "prog: unexpected argument 'x' (see --help)" and
 * returns 2.
 */
int il_bench_no_operands(const char *prog, int argc, char **argv);

/*
 * What went to stdout must have arrived (a full disk, a closed pipe): at
 * exit, however the program ends (return from main or exit()), a failed
 * stdout is one line, "prog: writing stdout: ...", and exit status 1, as
 * inputlat does. Call first thing in main; prog is kept, not copied.
 */
void il_bench_stdout_checked(const char *prog);
/* fflush(stdout) mid-run (a row as it is measured), its error kept for
 * the line at exit. */
void il_bench_stdout_flush(void);

/* Pins the calling thread to cpu (a measurement's placement). */
void il_bench_pin(int cpu);

/*
 * The CPUs this process may run on (sched_getaffinity), lowest first, at
 * most max of them, into cpus; returns how many (at least 1: CPU 0 when
 * the mask is unreadable). A placement names these, never CPU 0 and 1 by
 * number: under `taskset -c 2,3` those are not ours.
 */
int il_bench_cpus(int *cpus, int max);

#endif
