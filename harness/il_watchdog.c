#include "il_watchdog.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "il_clock.h"

#define MAX_PIDS  8
#define MAX_TEMPS 8

static struct {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, stop;
	uint64_t deadline_ns;
	uint64_t kill_ns; /* 0, or when to SIGKILL the children and go on */
	pid_t loop_tid;	  /* the thread that started us: the run's loop */
	const struct il_knob_report *knobs;
	_Atomic pid_t pids[MAX_PIDS];
	_Atomic int pidfds[MAX_PIDS]; /* -1: none (old kernel): kill by pid */
	_Atomic int npids;
	/* Outputs' temporary files: our own copies, since the run renames
	 * and frees its own while an expiry may be running. */
	struct {
		int dirfd;
		char name[NAME_MAX + 1];
	} temps[MAX_TEMPS];
	int ntemps;		 /* under lock */
	int create_err;		 /* FIFO refused: pthread_create's error, else 0 */
	struct il_sched_ask ask; /* what the thread got (under lock) */
} wd = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void kill_children(void);

/*
 * The loop's thread back to SCHED_OTHER (a syscall: async-signal-safe). A
 * loop at FIFO 98 that reaps a child spins in the kernel while that
 * child's lower-priority threads finish exiting, forever when they share
 * its only CPU; once it is below them they finish, and it goes on.
 */
static void demote_loop(void)
{
	struct sched_param sp = {.sched_priority = 0};

	if (wd.loop_tid > 0)
		sched_setscheduler(wd.loop_tid, SCHED_OTHER, &sp);
}

static void expire(void)
{
	static const char msg[] =
	    "inputlat: watchdog: the run outlived its time bound; killing children\n";
	static const char knob_msg[] = "inputlat: watchdog: putting the system knobs back\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more we can do about stderr */
	}
	demote_loop();
	kill_children();
	if (wd.knobs && wd.knobs->n) {
		if (write(2, knob_msg, sizeof(knob_msg) - 1) < 0) {
			/* as above */
		}
		il_knobs_restore_signal_safe(wd.knobs);
	}
	/* A committed output was renamed already: its name is gone (ENOENT). */
	for (int i = 0; i < wd.ntemps; i++)
		unlinkat(wd.temps[i].dirfd, wd.temps[i].name, 0);
	_exit(1);
}

/* SIGKILL through the pidfd: the child, never a process that got its pid
 * after the loop reaped it. */
static void kill_children(void)
{
	int n = atomic_load(&wd.npids);

	for (int i = 0; i < n && i < MAX_PIDS; i++) {
		pid_t p = atomic_load(&wd.pids[i]);
		int fd = atomic_load(&wd.pidfds[i]);

		/* -pgid is a process group (--background), killed by its
		 * number; never 0 or -1, which would be our own group or
		 * every process. */
		if (fd >= 0)
			syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
		else if (p > 0 || p < -1)
			kill(p, SIGKILL);
	}
}

static void *watchdog_main(void *arg)
{
	pthread_setname_np(pthread_self(), "il:watchdog");
	pthread_mutex_lock(&wd.lock);
	il_sched_ask_record(&wd.ask, SCHED_FIFO, IL_WATCHDOG_PRIO, wd.create_err, 0);
	while (!wd.stop) {
		uint64_t now = il_now_ns();
		uint64_t until =
		    wd.kill_ns && wd.kill_ns < wd.deadline_ns ? wd.kill_ns : wd.deadline_ns;
		struct timespec ts = il_ns_to_ts(until);

		if (now >= wd.deadline_ns)
			expire();
		if (wd.kill_ns && now >= wd.kill_ns) {
			/* The stop's bound: children that have not exited go now,
			 * and the run goes on to collect their exits. */
			demote_loop();
			kill_children();
			wd.kill_ns = 0;
			continue;
		}
		pthread_cond_timedwait(&wd.cond, &wd.lock, &ts);
	}
	pthread_mutex_unlock(&wd.lock);
	return NULL;
}

void il_watchdog_ask(struct il_sched_ask *out)
{
	pthread_mutex_lock(&wd.lock);
	*out = wd.ask;
	pthread_mutex_unlock(&wd.lock);
}

void il_watchdog_kill_at(uint64_t when_ns)
{
	if (!wd.started)
		return;
	pthread_mutex_lock(&wd.lock);
	if (!wd.kill_ns || when_ns < wd.kill_ns)
		wd.kill_ns = when_ns;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
}

int il_watchdog_start(uint64_t bound_ns, const struct il_knob_report *knobs)
{
	pthread_condattr_t ca;
	pthread_attr_t attr;
	struct sched_param sp = {.sched_priority = IL_WATCHDOG_PRIO};
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cond, &ca);
	pthread_condattr_destroy(&ca);
	wd.deadline_ns = il_now_ns() + bound_ns;
	wd.knobs = knobs;
	wd.stop = false;
	wd.kill_ns = 0;
	wd.loop_tid = (pid_t)syscall(SYS_gettid);

	/* Try FIFO 99 first; without the privilege the watchdog still runs as
	 * CFS. RT work at the priorities RLIMIT_RTPRIO allows could then delay
	 * it (RLIMIT_RTTIME still bounds that work), so the report says what it
	 * got (hygiene.harness_threads). */
	wd.create_err = 0;
	snprintf(wd.ask.asked, sizeof(wd.ask.asked), "fifo %d", IL_WATCHDOG_PRIO);
	snprintf(wd.ask.got, sizeof(wd.ask.got), "unread: not started yet");
	wd.ask.why[0] = '\0';
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	rc = pthread_create(&wd.th, &attr, watchdog_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc == EPERM) {
		wd.create_err = rc;
		rc = pthread_create(&wd.th, NULL, watchdog_main, NULL);
	}
	if (rc)
		return -rc;
	wd.started = true;
	return 0;
}

void il_watchdog_knobs_done(void)
{
	/* expire() runs holding the lock and never returns: past this point
	 * it either has run already or will never touch the knobs. */
	pthread_mutex_lock(&wd.lock);
	wd.knobs = NULL;
	pthread_mutex_unlock(&wd.lock);
}

void il_watchdog_add_pid(pid_t pid)
{
	int i = atomic_fetch_add(&wd.npids, 1);

	if (i < MAX_PIDS) {
		atomic_store(&wd.pidfds[i], pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1);
		atomic_store(&wd.pids[i], pid);
	}
}

void il_watchdog_add_temp(int dirfd, const char *name)
{
	int fd;

	if (dirfd < 0 || !name || !name[0] || strlen(name) > NAME_MAX)
		return;
	pthread_mutex_lock(&wd.lock);
	if (wd.ntemps < MAX_TEMPS && (fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) >= 0) {
		wd.temps[wd.ntemps].dirfd = fd;
		strcpy(wd.temps[wd.ntemps].name, name);
		wd.ntemps++;
	}
	pthread_mutex_unlock(&wd.lock);
}

void il_watchdog_stop(void)
{
	pthread_mutex_lock(&wd.lock);
	for (int i = 0; i < wd.ntemps; i++)
		close(wd.temps[i].dirfd);
	wd.ntemps = 0;
	pthread_mutex_unlock(&wd.lock);
	if (!wd.started)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.stop = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.th, NULL);
	wd.started = false;
	for (int i = 0; i < atomic_load(&wd.npids) && i < MAX_PIDS; i++) {
		int fd = atomic_exchange(&wd.pidfds[i], -1);

		if (fd >= 0)
			close(fd);
	}
	atomic_store(&wd.npids, 0);
}
