/* Running the project's programs from tests: bounded, output captured. */
#ifndef IL_TEST_PROC_H
#define IL_TEST_PROC_H

#include <stddef.h>
#include <sys/types.h>

struct il_test_result {
	int exit_code;	  /* -1 when killed by a signal */
	int term_signal;  /* 0 unless killed */
	int timed_out;	  /* the test's bound expired and we killed it */
	double elapsed_s;
	char out[65536];
	char err[65536];
};

/* build/NAME (from IL_BUILD_DIR, set by CTest). Returns a static buffer. */
const char *il_test_build_path(const char *name);

/*
 * Runs argv (argv[0] a path) with a bound of timeout_ms; SIGKILLs it (and
 * only it) at the bound. Captures stdout and stderr. Returns 0 or -errno.
 */
int il_test_run(char *const argv[], int timeout_ms, struct il_test_result *res);

/* Starts argv in the background with stdout/stderr to files; returns the pid. */
pid_t il_test_spawn(char *const argv[], const char *out_path, const char *err_path);

/* Waits for pid at most timeout_ms; kills it after. Returns its wait status or -1. */
int il_test_wait(pid_t pid, int timeout_ms, double *elapsed_s);

/* The pids whose parent is ppid and whose comm equals comm (0 if none). */
pid_t il_test_find_child(pid_t ppid, const char *comm);

/*
 * Live processes of the project's programs among this test's descendants
 * (the test is their subreaper once it has started one).
 */
int il_test_count_project_procs(void);

/* Reads a whole small file into buf; returns length or -errno. */
ssize_t il_test_read_file(const char *path, char *buf, size_t len);

#endif
