#include "il_watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "il_clock.h"

#define MAX_PIDS 8

static struct {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started, stop;
	uint64_t deadline_ns;
	const struct il_knob_report *knobs;
	_Atomic pid_t pids[MAX_PIDS];
	_Atomic int npids;
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void expire(void)
{
	static const char msg[] = "inputlat: watchdog: the run outlived its time bound; killing children, restoring knobs\n";
	int n = atomic_load(&wd.npids);

	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more we can do about stderr */
	}
	for (int i = 0; i < n && i < MAX_PIDS; i++) {
		pid_t p = atomic_load(&wd.pids[i]);

		/* -pgid is a process group (--background); never 0 or -1,
		 * which would be our own group or every process. */
		if (p > 0 || p < -1)
			kill(p, SIGKILL);
	}
	if (wd.knobs)
		il_knobs_restore_signal_safe(wd.knobs);
	_exit(1);
}

static void *watchdog_main(void *arg)
{
	struct timespec ts = il_ns_to_ts(wd.deadline_ns);
	int rc = 0;

	pthread_setname_np(pthread_self(), "il:watchdog");
	pthread_mutex_lock(&wd.lock);
	while (!wd.stop && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&wd.cond, &wd.lock, &ts);
	if (!wd.stop)
		expire();
	pthread_mutex_unlock(&wd.lock);
	return NULL;
}

int il_watchdog_start(uint64_t bound_ns, const struct il_knob_report *knobs)
{
	pthread_condattr_t ca;
	pthread_attr_t attr;
	struct sched_param sp = { .sched_priority = IL_WATCHDOG_PRIO };
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cond, &ca);
	pthread_condattr_destroy(&ca);
	wd.deadline_ns = il_now_ns() + bound_ns;
	wd.knobs = knobs;
	wd.stop = false;

	/* Try FIFO 99 first; without the privilege the watchdog still runs as CFS
	 * (then no RT work of ours can exist to starve it either). */
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	rc = pthread_create(&wd.th, &attr, watchdog_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc == EPERM)
		rc = pthread_create(&wd.th, NULL, watchdog_main, NULL);
	if (rc)
		return -rc;
	wd.started = true;
	return 0;
}

void il_watchdog_add_pid(pid_t pid)
{
	int i = atomic_fetch_add(&wd.npids, 1);

	if (i < MAX_PIDS)
		atomic_store(&wd.pids[i], pid);
}

void il_watchdog_stop(void)
{
	if (!wd.started)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.stop = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.th, NULL);
	wd.started = false;
	atomic_store(&wd.npids, 0);
}
