/*
 * il_pid_exiting (harness/il_spawn.h): what the liveness check asks before
 * it calls an unanswering child hung. A live process, one whose main
 * thread alone has ended (pthread_exit), and a stopped one are not on
 * their way out; a zombie is. (A SIGKILL still pending, the other sign,
 * lasts too short a moment to be caught here.)
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_spawn.h"
#include "il_test.h"

/* A child that sleeps until killed; its pid. */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void *sleep_forever(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_spawn_live_is_not_exiting(void **state)
{
	pid_t pid = sleeper();

	usleep(20000);
	assert_false(il_pid_exiting(pid));
	/* Stopped is not ending either: SIGCONT brings it back. */
	kill(pid, SIGSTOP);
	usleep(20000);
	assert_false(il_pid_exiting(pid));
	kill(pid, SIGCONT);
	reap(pid);
}

/* The main thread ended by pthread_exit, another runs on: not the group's end. */
static void test_spawn_main_thread_gone_is_not_exiting(void **state)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, sleep_forever, NULL) != 0)
			_exit(1);
		pthread_exit(NULL);
	}
	usleep(50000);
	assert_false(il_pid_exiting(pid));
	reap(pid);
}

static void test_spawn_zombie_is_exiting(void **state)
{
	pid_t pid = sleeper();
	siginfo_t si;

	kill(pid, SIGKILL);
	/* Zombie, not reaped: WNOWAIT. */
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	assert_true(il_pid_exiting(pid));
	waitpid(pid, NULL, 0);
	/* Reaped: no such process, nothing ending. */
	assert_false(il_pid_exiting(pid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spawn_live_is_not_exiting),
	    cmocka_unit_test(test_spawn_main_thread_gone_is_not_exiting),
	    cmocka_unit_test(test_spawn_zombie_is_exiting),
	};

	if (il_test_filters("test_spawn", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
