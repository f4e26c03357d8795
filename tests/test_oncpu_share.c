/*
 * One BPF program per run (issue 17): the on-CPU records loaded in one
 * process reach another over a Unix socket (SCM_RIGHTS, il_ctl_send_fd /
 * il_ctl_recv_fd), which maps them without loading a program of its own;
 * and `inputlat run --lock il-bpf` attaches exactly one program for the
 * whole run, not one per child. Needs root and BPF; skips with the reason.
 */
#include "il_test.h"
#include "il_test_proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "il_ctl.h"
#include "il_lock.h"
#include "il_oncpu.h"
#include "il_spin.h"

/* The child maps the handed-over records and checks its own. */
static int child_main(int sock)
{
	int fd = -1;

	if (il_ctl_recv_fd(sock, 5000, &fd) < 0)
		return 10;
	if (il_lock_kind_prepare_from(IL_LOCK_IL_BPF, fd, (char[256]){0}, 256) < 0)
		return 11;
	close(fd);
	/* Mapped, not loaded: the records are the parent's program's. */
	if (strcmp(il_spin_source_program(), "shared") != 0)
		return 12;
	if (il_spin_oncpu(il_spin_tid()) != 1)
		return 13;
	il_spin_close();
	return 0;
}

static void test_oncpu_share_over_socket(void **state)
{
	struct il_oncpu *o = NULL;
	int sv[2], status, rc;
	pid_t pid;

	IL_TEST_NEED_ROOT("loading the on-CPU BPF program");
	rc = il_oncpu_load(&o);
	IL_TEST_NEED_BPF(rc, "the on-CPU program");
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(child_main(sv[1]));
	}
	close(sv[1]);
	assert_int_equal(il_ctl_send_fd(sv[0], o->map_fd), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(sv[0]);
	il_oncpu_free(o);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_oncpu_share_refuses_garbage(void **state)
{
	int sv[2], fd = -1;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	/* A frame where the descriptor should be is a protocol error, not a hang. */
	assert_int_equal(write(sv[0], "\x10\0\0\0", 4), 4);
	assert_int_equal(il_ctl_recv_fd(sv[1], 1000, &fd), -EPROTO);
	assert_int_equal(fd, -1);
	close(sv[0]);
	close(sv[1]);
	/* Nothing sent: a bounded wait, not a hang. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(il_ctl_recv_fd(sv[1], 50, &fd), -ETIMEDOUT);
	close(sv[0]);
	close(sv[1]);
}

/* The programs named il_oncpu_* attached now, per bpftool (-1: cannot tell). */
static int attached_programs(void)
{
	FILE *p = popen("bpftool prog show 2>/dev/null", "r");
	char line[512];
	int n = 0;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		n += strstr(line, " name il_oncpu_switc") != NULL;
	return pclose(p) == 0 ? n : -1;
}

/*
 * The count once it has stopped moving: a program whose last reference
 * went (the previous case's, another run's) leaves the list a little
 * later (its release is deferred).
 */
static int settled_programs(void)
{
	int last = attached_programs(), n;

	for (int i = 0; i < 40; i++) {
		usleep(50000);
		n = attached_programs();
		if (n == last)
			return n;
		last = n;
	}
	return last;
}

/* True once pid has exited (not reaped: il_test_wait does that). */
static int exited(pid_t pid)
{
	siginfo_t si = {0};

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

static void test_oncpu_share_one_program_per_run(void **state)
{
	char *argv[] = {(char *)il_test_build_path("inputlat"),
			"run",
			"--lock",
			"il-bpf",
			"--events",
			"60",
			"--interval-ms",
			"10",
			"--quiet",
			NULL};
	char out[300], err[300], dir[128];
	double elapsed;
	int before, most = -1, after, st, n;
	pid_t pid;

	IL_TEST_NEED_ROOT("--lock il-bpf");
	before = settled_programs();
	IL_TEST_NEED(before >= 0, "bpftool cannot list programs here");
	assert_int_equal(il_test_tmpdir_make(dir, sizeof(dir), "oncpu-share"), 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	pid = il_test_spawn(argv, out, err);
	assert_true(pid > 0);
	/* The most attached at once while the run lasts (bounded: 30 s). */
	for (int i = 0; i < 1500 && !exited(pid); i++) {
		n = attached_programs();
		most = n > most ? n : most;
		usleep(20000);
	}
	st = il_test_wait(pid, 30000, &elapsed);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		static char text[4096];

		il_test_read_file(err, text, sizeof(text));
		unlink(out);
		unlink(err);
		rmdir(dir);
		if (strstr(text, "BPF on-CPU source unavailable"))
			IL_TEST_SKIP("%s", text);
		fail_msg("inputlat run --lock il-bpf: status 0x%x: %s", st, text);
	}
	unlink(out);
	unlink(err);
	rmdir(dir);
	after = settled_programs();
	print_message(
	    "il_oncpu programs attached: %d before, at most %d during the run, %d after\n", before,
	    most, after);
	/* One for the whole run (orchestrator and children share it), none left. */
	assert_int_equal(most - before, 1);
	assert_int_equal(after, before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_oncpu_share_over_socket),
	    cmocka_unit_test(test_oncpu_share_refuses_garbage),
	    cmocka_unit_test_teardown(test_oncpu_share_one_program_per_run, il_test_proc_teardown),
	};

	if (il_test_filters("test_oncpu_share", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
