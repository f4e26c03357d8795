/*
 * The fair server's lowerability probe writes CPU 0's runtime (lowers it,
 * raises it back): il_knobs.c's rule holds for it too, no knob differs
 * from its original unless a state file names the original. debugfs is
 * locked on most machines, so each case fakes the fair-server directory:
 * a child in its own mount namespace mounts tmpfs over /sys/kernel/debug
 * (files with the kernel's values) and over /run (the knob lock and state
 * file), and this executable is linked with
 * --wrap=il_sysinfo_write_value to make one write fail or die. A
 * grandchild applies a fair-server policy; the child then checks what it
 * left, takes the knob lock as the next start would and checks the
 * original is back. Needs root (mounts).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_knobs.h"
#include "il_sysinfo.h"
#include "il_test.h"
#include "il_test_proc.h"

#define RUNTIME	     IL_SYSINFO_FAIR_SERVER "/cpu0/runtime"
#define ORIGINAL     "50000000"
#define STATE	     IL_KNOBS_STATE_DIR "/" IL_KNOBS_STATE_FILE
#define WANT_RUNTIME 40000000ll

int __real_il_sysinfo_write_value(const char *path, const char *val);
int __wrap_il_sysinfo_write_value(const char *path, const char *val);

enum fault { FAULT_RAISE_FAILS, FAULT_KILLED_BETWEEN };

static enum fault fault;
static int armed; /* only in the grandchild */

/* The probe's raise-back refused (EBUSY), or the process killed right
 * after the probe's lowering write. */
int __wrap_il_sysinfo_write_value(const char *path, const char *val)
{
	int r;

	if (!armed || strcmp(path, RUNTIME) != 0)
		return __real_il_sysinfo_write_value(path, val);
	if (fault == FAULT_RAISE_FAILS && strcmp(val, ORIGINAL) == 0)
		return -EBUSY;
	r = __real_il_sysinfo_write_value(path, val);
	if (fault == FAULT_KILLED_BETWEEN && strcmp(val, ORIGINAL) != 0)
		raise(SIGKILL);
	return r;
}

static int fd_msg = -1;

/* The child's verdict, one line to the parent, and its exit. */
static void child_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void child_fail(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(fd_msg, buf, strlen(buf)) < 0) {
		/* the parent sees the exit status */
	}
	_exit(1);
}

static void fake_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) != 0)
		child_fail("%s: %s", path, strerror(errno));
}

static void fake_fair_server(void)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		_exit(77);
	if (mount("none", IL_SYSINFO_DEBUGFS, "tmpfs", 0, "mode=0755") != 0 ||
	    mount("none", "/run", "tmpfs", 0, "mode=0755") != 0)
		_exit(77);
	if (mkdir(IL_SYSINFO_DEBUGFS "/sched", 0755) != 0 ||
	    mkdir(IL_SYSINFO_FAIR_SERVER, 0755) != 0 ||
	    mkdir(IL_SYSINFO_FAIR_SERVER "/cpu0", 0755) != 0)
		child_fail("fake fair server: %s", strerror(errno));
	fake_write(RUNTIME, ORIGINAL "\n");
	fake_write(IL_SYSINFO_FAIR_SERVER "/cpu0/period", "1000000000\n");
	unsetenv("IL_STATE_DIR");
}

/* What a run does up to its knobs, under the fault; its exit status is
 * the verdict on what il_knobs_apply said. */
static void grandchild(void)
{
	struct il_knob_settings k = {.has_fair_server = true,
				     .fs_runtime_ns = WANT_RUNTIME,
				     .fs_period_ns = IL_FAIR_SERVER_DEFAULT_PERIOD_NS};
	struct il_knob_report rep;
	struct il_knobs_lock *l = NULL;
	char err[512] = "";
	int r;

	if (il_knobs_lock(NULL, NULL, &l, err, sizeof(err)) != 0)
		child_fail("il_knobs_lock: %s", err);
	armed = 1;
	r = il_knobs_apply(&k, l, &rep, err, sizeof(err));
	armed = 0;
	if (fault == FAULT_KILLED_BETWEEN)
		child_fail("not killed: apply returned %d (%s)", r, err);
	if (r != -EBUSY || !strstr(err, "putting " ORIGINAL " back after probing") ||
	    !strstr(err, "names the original"))
		child_fail("apply returned %d, want -EBUSY saying the state file has the "
			   "original: %s",
			   r, err);
	_exit(0); /* as a run that failed: the lock goes with it */
}

static void child(void)
{
	char text[4096], now[32], err[512] = "";
	struct il_knobs_lock *l = NULL;
	pid_t pid;
	int st;

	fake_fair_server();
	pid = fork();
	if (pid < 0)
		child_fail("fork: %s", strerror(errno));
	if (pid == 0)
		grandchild();
	if (waitpid(pid, &st, 0) != pid)
		child_fail("waitpid: %s", strerror(errno));
	if (fault == FAULT_KILLED_BETWEEN ? !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL
					  : !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		_exit(1); /* the grandchild said why */
	/* The knob is left lowered, and the state file names its original. */
	if (il_sysinfo_read_value(RUNTIME, now, sizeof(now)) != 0 || !strcmp(now, ORIGINAL))
		child_fail("after the probe the runtime reads %s: the fault did not happen", now);
	if (il_test_read_file(STATE, text, sizeof(text)) <= 0)
		child_fail("runtime left at %s and no state file names the original", now);
	if (!strstr(text, "\"path\":\t\"" RUNTIME "\"") ||
	    !strstr(text, "\"original\":\t\"" ORIGINAL "\""))
		child_fail("the state file does not name %s's original %s:\n%s", RUNTIME, ORIGINAL,
			   text);
	/* The next start puts it back. */
	if (il_knobs_lock(NULL, NULL, &l, err, sizeof(err)) != 0)
		child_fail("the next start's il_knobs_lock: %s", err);
	il_knobs_unlock(l);
	if (il_sysinfo_read_value(RUNTIME, now, sizeof(now)) != 0 || strcmp(now, ORIGINAL) != 0)
		child_fail("after the next start the runtime reads %s, want " ORIGINAL, now);
	if (access(STATE, F_OK) == 0)
		child_fail("the state file is still there after the restore");
	_exit(0);
}

static void run_case(enum fault f)
{
	int fds[2];
	pid_t pid;

	if (geteuid() != 0)
		IL_TEST_SKIP("needs root to mount the fake fair-server directory");
	assert_int_equal(pipe(fds), 0);
	fault = f;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		fd_msg = fds[1];
		child();
	}
	close(fds[1]);
	il_test_child_judge(pid, fds[0],
			    "no private mount namespace with tmpfs over debugfs and /run");
}

static void test_knobs_probe_raise_fails(void **state)
{
	(void)state;
	run_case(FAULT_RAISE_FAILS);
}

static void test_knobs_probe_killed_between(void **state)
{
	(void)state;
	run_case(FAULT_KILLED_BETWEEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_knobs_probe_raise_fails),
	    cmocka_unit_test(test_knobs_probe_killed_between),
	};

	if (il_test_filters("test_knobs_probe", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
