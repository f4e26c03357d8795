#include "il_floor.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "il_clock.h"
#include "il_hist.h"

/* The receiver runs just below the priorities a watchdog would use. */
#define FLOOR_FIFO_PRIO 50

const char *il_floor_prim_name(enum il_floor_prim p)
{
	static const char *const names[] = { "uv_async", "eventfd", "unix_socket" };

	return (unsigned)p < IL_FLOOR_PRIM_COUNT ? names[p] : "?";
}

static int place_self(int policy, int cpu)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO ? FLOOR_FIFO_PRIO : 0 };
	int rc;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return -errno;
	}
	rc = pthread_setschedparam(pthread_self(), policy, &sp);
	return -rc;
}

static void pause_us(uint64_t us)
{
	struct timespec ts = il_ns_to_ts(il_us_to_ns(us));

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

struct thread_pair {
	const struct il_floor_cfg *cfg;
	struct il_hist *h;
	_Atomic uint64_t sent_ns;
	_Atomic int acked;
	_Atomic int ready;
	int err;
	int efd;
	uv_loop_t loop;
	uv_async_t async;
	unsigned received;
};

static void floor_async_cb(uv_async_t *a)
{
	struct thread_pair *p = a->data;
	uint64_t now = il_now_ns();

	il_hist_add(p->h, now - atomic_load(&p->sent_ns));
	if (++p->received >= p->cfg->samples)
		uv_close((uv_handle_t *)a, NULL);
	atomic_store(&p->acked, 1);
}

static void *receiver_main(void *arg)
{
	struct thread_pair *p = arg;

	p->err = place_self(p->cfg->policy, p->cfg->cpu_b);
	if (p->err) {
		atomic_store(&p->ready, -1);
		return NULL;
	}
	if (p->cfg->prim == IL_FLOOR_UV_ASYNC) {
		atomic_store(&p->ready, 1);
		uv_run(&p->loop, UV_RUN_DEFAULT);
		return NULL;
	}
	atomic_store(&p->ready, 1);
	for (unsigned i = 0; i < p->cfg->samples; i++) {
		uint64_t v;

		if (read(p->efd, &v, sizeof(v)) != sizeof(v))
			break;
		il_hist_add(p->h, il_now_ns() - atomic_load(&p->sent_ns));
		atomic_store(&p->acked, 1);
	}
	return NULL;
}

static int measure_threads(const struct il_floor_cfg *c, struct il_hist *h, char *err, size_t errlen)
{
	struct thread_pair p = { .cfg = c, .h = h, .efd = -1 };
	pthread_t th;
	int rc;

	if (c->prim == IL_FLOOR_UV_ASYNC) {
		uv_loop_init(&p.loop);
		uv_async_init(&p.loop, &p.async, floor_async_cb);
		p.async.data = &p;
	} else {
		p.efd = eventfd(0, EFD_CLOEXEC);
		if (p.efd < 0)
			return -errno;
	}
	rc = place_self(c->policy, c->cpu_a);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot set %s for the sender: %s", il_floor_prim_name(c->prim),
			 c->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", strerror(-rc));
		goto out;
	}
	pthread_create(&th, NULL, receiver_main, &p);
	while (atomic_load(&p.ready) == 0)
		pause_us(100);
	if (atomic_load(&p.ready) < 0) {
		rc = p.err;
		snprintf(err, errlen, "%s: cannot place the receiver: %s", il_floor_prim_name(c->prim),
			 strerror(-rc));
		pthread_join(th, NULL);
		goto out;
	}
	for (unsigned i = 0; i < c->samples; i++) {
		uint64_t one = 1;

		/* The pause lets the receiver go back to sleep: we measure a wake-up. */
		pause_us(c->gap_us);
		atomic_store(&p.acked, 0);
		atomic_store(&p.sent_ns, il_now_ns());
		if (c->prim == IL_FLOOR_UV_ASYNC)
			uv_async_send(&p.async);
		else if (write(p.efd, &one, sizeof(one)) != sizeof(one))
			break;
		/* Sleep, never spin: a spinning sender would hold a shared CPU. */
		while (!atomic_load(&p.acked))
			pause_us(5);
	}
	pthread_join(th, NULL);
	rc = 0;
out:
	place_self(SCHED_OTHER, -1);
	if (c->prim == IL_FLOOR_UV_ASYNC) {
		uv_run(&p.loop, UV_RUN_NOWAIT);
		uv_loop_close(&p.loop);
	} else {
		close(p.efd);
	}
	return rc;
}

static int measure_socket(const struct il_floor_cfg *c, struct il_hist *h, char *err, size_t errlen)
{
	int sv[2], res[2];
	pid_t pid;
	int rc, status;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe(res) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Receiver process: reads stamps, reports latencies back one by one. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(sv[0]);
		close(res[0]);
		rc = place_self(c->policy, c->cpu_b);
		if (write(res[1], &rc, sizeof(rc)) != sizeof(rc) || rc)
			_exit(1);
		for (unsigned i = 0; i < c->samples; i++) {
			uint64_t sent, lat;

			if (read(sv[1], &sent, sizeof(sent)) != sizeof(sent))
				_exit(1);
			lat = il_now_ns() - sent;
			if (write(sv[1], &lat, sizeof(lat)) != sizeof(lat))
				_exit(1);
		}
		_exit(0);
	}
	close(sv[1]);
	close(res[1]);
	if (read(res[0], &rc, sizeof(rc)) != sizeof(rc))
		rc = -EIO;
	close(res[0]);
	if (rc == 0)
		rc = place_self(c->policy, c->cpu_a);
	if (rc < 0) {
		snprintf(err, errlen, "unix_socket: cannot set %s: %s",
			 c->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", strerror(-rc));
		kill(pid, SIGKILL);
	}
	for (unsigned i = 0; rc == 0 && i < c->samples; i++) {
		uint64_t now, lat;

		pause_us(c->gap_us);
		now = il_now_ns();
		if (write(sv[0], &now, sizeof(now)) != sizeof(now) ||
		    read(sv[0], &lat, sizeof(lat)) != sizeof(lat)) {
			rc = -EIO;
			snprintf(err, errlen, "unix_socket: receiver went away");
			break;
		}
		il_hist_add(h, lat);
	}
	place_self(SCHED_OTHER, -1);
	close(sv[0]);
	waitpid(pid, &status, 0);
	return rc;
}

int il_floor_measure(const struct il_floor_cfg *c, struct il_floor_result *out, char *err,
		     size_t errlen)
{
	struct il_hist *h;
	int rc;

	if (il_hist_new(&h) < 0)
		return -ENOMEM;
	if (c->prim == IL_FLOOR_UNIX_SOCKET)
		rc = measure_socket(c, h, err, errlen);
	else
		rc = measure_threads(c, h, err, errlen);
	if (rc == 0) {
		out->n = il_hist_count(h);
		out->p50_ns = il_hist_percentile(h, 50);
		out->p99_ns = il_hist_percentile(h, 99);
		out->max_ns = il_hist_max(h);
	}
	il_hist_free(h);
	return rc;
}
