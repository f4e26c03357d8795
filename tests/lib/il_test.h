/*
 * The one header every test includes (libuv's test/task.h is the model):
 * cmocka and what it needs, skipping with a reason, the checks for what a
 * machine may lack (root, BPF, a kernel version), the assertions the
 * tests share, temporary directories, reports read back as JSON and
 * subcommands run in-process with their output captured.
 *
 * Processes (running our programs, finding children, counting what is
 * left) are in il_test_proc.h; the system-knob fixture is il_test_knobs.h.
 */
#ifndef IL_TEST_H
#define IL_TEST_H

/* cmocka.h needs these first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/*
 * cmocka 1.1 formats print_message() and fail_msg() text into a 1024-byte
 * buffer: a child's stderr or a command's output printed for the log lost
 * all past its first 1023 bytes (test_reproduce's claim lines, a failed
 * run's warnings). These print it whole, to the same streams (stdout,
 * stderr); the tests keep cmocka's names.
 */
void il_test_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void il_test_print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define print_message(...) il_test_print(__VA_ARGS__)
#undef fail_msg
#define fail_msg(msg, ...)                                                                         \
	do {                                                                                       \
		il_test_print_error("ERROR: " msg "\n", ##__VA_ARGS__);                            \
		fail();                                                                            \
	} while (0)

#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* The kernel's account of a task (stat, schedstat): one reader for all. */
#include "il_procfs.h"

/*
 * The environment's case filters, for a test's main: IL_TEST_ONLY=glob runs
 * only the cases it matches, IL_TEST_SKIP=glob leaves out those it matches.
 * Returns -1 (after one line on stderr naming prog) when IL_TEST_ONLY
 * matches none of the n cases: cmocka would run none and pass.
 */
int il_test_filters(const char *prog, const struct CMUnitTest *tests, size_t n);

/* Prints "skipped: <why>"; the IL_TEST_SKIP macro then calls skip(). */
void il_test_skip_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Skips the running case and says why: cmocka 1.1's skip() takes no
 * reason, and a skip that does not say why reads like a pass.
 */
#define IL_TEST_SKIP(...)                                                                          \
	do {                                                                                       \
		il_test_skip_print(__VA_ARGS__);                                                   \
		skip();                                                                            \
	} while (0)

/* Skips unless cond holds; the rest is the reason, printf-style. */
#define IL_TEST_NEED(cond, ...)                                                                    \
	do {                                                                                       \
		if (!(cond))                                                                       \
			IL_TEST_SKIP(__VA_ARGS__);                                                 \
	} while (0)

/* Skips unless root; what says what needs it ("SCHED_FIFO"). */
#define IL_TEST_NEED_ROOT(what) IL_TEST_NEED(geteuid() == 0, "%s needs root", (what))

/*
 * Skips unless the BPF load that returned err (0 or -errno) worked; what
 * names the program. Loading needs CAP_BPF and CAP_PERFMON (root).
 */
#define IL_TEST_NEED_BPF(err, what)                                                                \
	IL_TEST_NEED((err) >= 0, "%s needs BPF (root with CAP_BPF and CAP_PERFMON): %s", (what),   \
		     strerror(-(err)))

/* Skips unless the running kernel is at least major.minor; what needs it. */
#define IL_TEST_NEED_KERNEL(major, minor, what)                                                    \
	IL_TEST_NEED(il_test_kernel_at_least((major), (minor)), "%s needs Linux %d.%d or later",   \
		     (what), (major), (minor))

/* True when uname's release is at least major.minor. */
bool il_test_kernel_at_least(int major, int minor);

/* CLOCK_MONOTONIC in seconds: what the tests' bounds and elapsed times use. */
double il_test_now_s(void);

/*
 * utime + stime of thread tid of this process, in ns, as the kernel
 * accounts it (/proc/self/task/TID/stat, at the tick's resolution).
 * Fails the test when it cannot be read.
 */
uint64_t il_test_task_cpu_ns(int tid);

/*
 * How busy CPU cpu (-1: all CPUs together) has been since boot, from
 * /proc/stat: the time it was neither idle nor waiting for I/O (steal
 * counts as busy: the hypervisor had it), in ns, at the tick's
 * resolution. Returns 0 or -errno.
 */
int il_test_cpu_busy_ns(int cpu, uint64_t *busy_ns);

/*
 * A bound on how long something that needs a CPU took (a stop, a start):
 * over limit_ns fails the test, unless tasks other than this process and
 * the children it reaped kept more than half of the machine's CPUs busy
 * meanwhile (others: il_test_others_since a mark taken just before it
 * began, read as soon as it ended); then the test skips, saying so. The
 * test's own work is never "the machine was busy": a stop that spins in
 * the test's own threads or children fails.
 */
void il_test_assert_prompt(const char *what, uint64_t took_ns, uint64_t limit_ns, double others);

/*
 * The same judgement, for a test that has more to check before it may
 * skip: true when in time; fails the test when late on a machine others
 * did not keep busy; false when late while they did, with the reason in
 * why (and printed).
 */
bool il_test_prompt_judge(const char *what, uint64_t took_ns, uint64_t limit_ns, double others,
			  char *why, size_t len);

/*
 * The judgement without its failure, for a test that may look again:
 * IL_TEST_PROMPT; IL_TEST_LATE_BUSY (others kept the machine busy: why
 * says so, printed); IL_TEST_LATE (late on a machine others did not keep
 * busy: why is the failure's line).
 */
enum il_test_prompt { IL_TEST_PROMPT, IL_TEST_LATE_BUSY, IL_TEST_LATE };
enum il_test_prompt il_test_prompt_verdict(const char *what, uint64_t took_ns, uint64_t limit_ns,
					   double others, char *why, size_t len);

/*
 * For a test of a physical bound on one CPU (a share, a stall): the
 * share, 0..1, of the window wall_ns that tasks other than the test's own
 * used on CPU cpu, from the CPU's busy time (il_test_cpu_busy_ns) before
 * and after and the test's own CPU time on it, own_ns. When the bound
 * fails and this is large, the machine was busy, not the code wrong: the
 * test says so and skips (never passes, never fails on that account).
 */
double il_test_others_share(uint64_t busy0_ns, uint64_t busy1_ns, uint64_t own_ns,
			    uint64_t wall_ns);

/*
 * The CPU time (user + system) of this process's children that were
 * waited for, and of the descendants they waited for, in ns
 * (RUSAGE_CHILDREN): what a run the test started and reaped used.
 */
uint64_t il_test_children_cpu_ns(void);

/*
 * The machine's CPUs (0..1 of all of them) that tasks other than this
 * process (all its threads) and the children it reaped kept busy since a
 * mark: what il_test_others_mark filled in, read just before the work
 * began.
 */
struct il_test_others_mark {
	uint64_t busy_ns, own_ns;
	double t_s;
};
void il_test_others_mark(struct il_test_others_mark *m);
double il_test_others_since(const struct il_test_others_mark *m);

/* Reads a whole small file into buf, NUL-terminated; returns length or -errno. */
ssize_t il_test_read_file(const char *path, char *buf, size_t len);

/* Writes text to path (created 0644, truncated); fails the test when it cannot. */
void il_test_write_file(const char *path, const char *text);

/*
 * Counts what cJSON allocates from now on, through its hooks (whatever
 * the sanitizer: RLIMIT_AS does not hold under ASan), until
 * il_test_json_count_end, which puts cJSON's allocator back and returns
 * the most it held at once, in bytes. Free what was parsed in between
 * before the end: the hooks' blocks carry a header.
 */
void il_test_json_count_begin(void);
size_t il_test_json_count_end(void);
/* The most cJSON held at once since il_test_json_count_begin, in bytes. */
size_t il_test_json_count_peak(void);

/*
 * Makes a fresh private directory il-test-<tag>.XXXXXX into dir, on a
 * tmpfs (/dev/shm) where there is one, else in /tmp. It and all in it are
 * removed when the process exits, if the test has not removed them (a
 * failed assertion skips the test's own clean-up). Returns 0 or -errno.
 */
int il_test_tmpdir_make(char *dir, size_t len, const char *tag);

/* The same for an empty file il-test-<tag>.XXXXXX (mode 0600) into path. */
int il_test_tmpfile_make(char *path, size_t len, const char *tag);

/* Removes dir and everything below it, without following symlinks. 0 or -errno. */
int il_test_tmpdir_remove(const char *dir);

/* Removes path (a file or a tree) when this process exits, as for the paths made above. */
void il_test_tmp_remember(const char *path);

/* --- assertions ---------------------------------------------------------- */

/* True when text is exactly one line (one '\n', at its end). */
bool il_test_one_line(const char *text);

/* True when text is exactly one line and starts with prefix. */
bool il_test_one_line_starting(const char *text, const char *prefix);

/*
 * A user's mistake: exit code 2, exactly one line on stderr holding each
 * of the non-NULL needles, nothing on stdout. Fails with what was seen.
 */
void il_test_assert_one_line_exit(int exit_code, const char *out, const char *err, int want_exit,
				  const char *needle1, const char *needle2);

/* wait(2) status status is a normal exit with want; fails with stderr text when not. */
void il_test_assert_exited(int status, int want, const char *err_text);

/*
 * A run stopped by a signal: exit 0, or 1 where the stop came before any
 * measured event completed (a warm-up not over), which the run says in
 * its one line (README: a run that measured nothing exits 1). err_text is
 * its stderr, read after it exited.
 */
void il_test_assert_stopped(int status, const char *err_text);

/* --- JSON reports -------------------------------------------------------- */

/* Reads and parses path; fails the test when it is missing or not JSON. */
cJSON *il_test_json_load(const char *path);

/* o[key] as a number; fails naming key when it is missing or not a number. */
double il_test_json_num(const cJSON *o, const char *key);

/* o[key] as a string; fails naming key when it is missing or not a string. */
const char *il_test_json_str(const cJSON *o, const char *key);

/* --- subcommands in-process ---------------------------------------------- */

/*
 * Runs fn(argc, argv) (an inputlat subcommand from il_cmd.h) with stdout
 * and stderr going to temporary files, then copies them, NUL-terminated,
 * into out and err (either may be NULL). Returns fn's exit code.
 */
int il_test_capture(int (*fn)(int, char **), int argc, char **argv, char *out, size_t outlen,
		    char *err, size_t errlen);

#endif
