#include "il_floor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <poll.h>
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
#include "il_msg.h"

/* A cross-process hop carries one EVENT frame: the floor sends as much. */
#define IL_FLOOR_FRAME_LEN IL_FRAME_EVENT_LEN

/* The receiver runs just below the priorities a watchdog would use. */
#define FLOOR_FIFO_PRIO 50

const char *il_floor_prim_name(enum il_floor_prim p)
{
	static const char *const names[] = {"uv_async", "eventfd", "unix_socket", "eventfd+uv_poll",
					    "unix_socket+uv"};

	return (unsigned)p < IL_FLOOR_PRIM_COUNT ? names[p] : "?";
}

static int place_self_prio(int policy, int cpu, int delta)
{
	struct sched_param sp = {.sched_priority =
				     policy == SCHED_FIFO ? FLOOR_FIFO_PRIO + delta : 0};
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

static int place_self(int policy, int cpu)
{
	return place_self_prio(policy, cpu, 0);
}

/* How long the sender waits for a sample's stamp before it gives up. */
#define ACK_TIMEOUT_MS 1000

static void pause_us(uint64_t us)
{
	struct timespec ts = il_ns_to_ts(il_us_to_ns(us));

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

struct thread_pair {
	const struct il_floor_cfg *cfg;
	struct il_hist *h;
	_Atomic uint64_t sent_ns;
	_Atomic int ready;
	_Atomic int stop; /* the sender gave up: the receiver ends at its next wake */
	int err;
	int efd;
	int ack_efd; /* the receiver's "stamped", which the sender blocks on */
	uv_loop_t loop;
	uv_async_t async;
	uv_poll_t poll;
	unsigned received;
};

/*
 * Tells the sender the sample is stamped. The sender blocks on it: it
 * polled with 5 us sleeps, and a SCHED_FIFO sender beside a receiver of
 * its priority on its CPU kept that CPU (the sleeps ended before it was
 * switched out), so the "floor" measured its loop: 3-5 ms, not the wake.
 */
static void ack(struct thread_pair *p)
{
	uint64_t one = 1;

	if (write(p->ack_efd, &one, sizeof(one)) != sizeof(one))
		p->err = -errno;
}

/* The chain's receiving side of an in-process hop: the eventfd is read in
 * the uv_poll callback, as il_queue's consumer does, then the stamp. */
static void floor_efd_cb(uv_poll_t *h, int status, int events)
{
	struct thread_pair *p = h->data;
	uint64_t v, now;

	if (read(p->efd, &v, sizeof(v)) != sizeof(v))
		return;
	now = il_now_ns();
	if (atomic_load(&p->stop)) {
		uv_close((uv_handle_t *)h, NULL);
		return;
	}
	il_hist_add(p->h, now - atomic_load(&p->sent_ns));
	if (++p->received >= p->cfg->samples)
		uv_close((uv_handle_t *)h, NULL);
	ack(p);
}

static void floor_async_cb(uv_async_t *a)
{
	struct thread_pair *p = a->data;
	uint64_t now = il_now_ns();

	if (atomic_load(&p->stop)) {
		uv_close((uv_handle_t *)a, NULL);
		return;
	}
	il_hist_add(p->h, now - atomic_load(&p->sent_ns));
	if (++p->received >= p->cfg->samples)
		uv_close((uv_handle_t *)a, NULL);
	ack(p);
}

static void *receiver_main(void *arg)
{
	struct thread_pair *p = arg;

	p->err = place_self_prio(p->cfg->policy, p->cfg->cpu_b, p->cfg->prio_delta);
	if (p->err) {
		atomic_store(&p->ready, -1);
		return NULL;
	}
	if (p->cfg->prim == IL_FLOOR_UV_ASYNC || p->cfg->prim == IL_FLOOR_EVENTFD_UV_POLL) {
		/* The loop is initialised here, on the thread that runs it. */
		if (p->cfg->prim == IL_FLOOR_EVENTFD_UV_POLL) {
			uv_poll_init(&p->loop, &p->poll, p->efd);
			p->poll.data = p;
			uv_poll_start(&p->poll, UV_READABLE, floor_efd_cb);
		}
		atomic_store(&p->ready, 1);
		uv_run(&p->loop, UV_RUN_DEFAULT);
		return NULL;
	}
	atomic_store(&p->ready, 1);
	for (unsigned i = 0; i < p->cfg->samples; i++) {
		uint64_t v;

		if (read(p->efd, &v, sizeof(v)) != sizeof(v) || atomic_load(&p->stop))
			break;
		il_hist_add(p->h, il_now_ns() - atomic_load(&p->sent_ns));
		ack(p);
	}
	return NULL;
}

static int measure_threads(const struct il_floor_cfg *c, struct il_hist *h, char *err,
			   size_t errlen)
{
	struct thread_pair p = {.cfg = c, .h = h, .efd = -1, .ack_efd = -1};
	pthread_t th;
	int rc;

	p.ack_efd = eventfd(0, EFD_CLOEXEC);
	if (p.ack_efd < 0)
		return -errno;

	if (c->prim == IL_FLOOR_UV_ASYNC) {
		uv_loop_init(&p.loop);
		uv_async_init(&p.loop, &p.async, floor_async_cb);
		p.async.data = &p;
	} else {
		/* Non-blocking where a loop polls it, as il_queue's. */
		p.efd = eventfd(0, EFD_CLOEXEC |
				       (c->prim == IL_FLOOR_EVENTFD_UV_POLL ? EFD_NONBLOCK : 0));
		if (p.efd < 0) {
			rc = -errno;
			close(p.ack_efd);
			return rc;
		}
		if (c->prim == IL_FLOOR_EVENTFD_UV_POLL)
			uv_loop_init(&p.loop);
	}
	rc = place_self(c->policy, c->cpu_a);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot set %s for the sender: %s",
			 il_floor_prim_name(c->prim),
			 c->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", strerror(-rc));
		goto out;
	}
	rc = -pthread_create(&th, NULL, receiver_main, &p);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot start the receiver: %s",
			 il_floor_prim_name(c->prim), strerror(-rc));
		goto out;
	}
	while (atomic_load(&p.ready) == 0)
		pause_us(100);
	if (atomic_load(&p.ready) < 0) {
		rc = p.err;
		snprintf(err, errlen, "%s: cannot place the receiver: %s",
			 il_floor_prim_name(c->prim), strerror(-rc));
		pthread_join(th, NULL);
		goto out;
	}
	for (unsigned i = 0; rc == 0 && i < c->samples; i++) {
		struct pollfd pf = {.fd = p.ack_efd, .events = POLLIN};
		uint64_t one = 1, v;

		/* The pause lets the receiver go back to sleep: we measure a wake-up. */
		pause_us(c->gap_us);
		atomic_store(&p.sent_ns, il_now_ns());
		if (c->prim == IL_FLOOR_UV_ASYNC)
			uv_async_send(&p.async);
		else if (write(p.efd, &one, sizeof(one)) != sizeof(one))
			rc = -errno;
		/* Blocked until it is stamped (ack): never a sender that holds
		 * the receiver's CPU. A receiver that stopped answering is a
		 * failure said, not a hang. */
		if (rc == 0 && (poll(&pf, 1, ACK_TIMEOUT_MS) != 1 ||
				read(p.ack_efd, &v, sizeof(v)) != sizeof(v)))
			rc = -ETIMEDOUT;
		if (rc < 0) {
			snprintf(err, errlen, "%s: sample %u: %s", il_floor_prim_name(c->prim),
				 i + 1,
				 rc == -ETIMEDOUT ? "the receiver did not stamp it within 1 s"
						  : strerror(-rc));
			/* The receiver waits for more: woken to see the stop. */
			atomic_store(&p.stop, 1);
			if (c->prim == IL_FLOOR_UV_ASYNC)
				uv_async_send(&p.async);
			else if (write(p.efd, &one, sizeof(one)) != sizeof(one))
				pthread_cancel(
				    th); /* cannot wake it: its read is a cancellation point */
		}
	}
	pthread_join(th, NULL);
out:
	place_self(SCHED_OTHER, -1);
	if (c->prim == IL_FLOOR_UV_ASYNC) {
		/* The receiver closes it after its last sample; a failed start
		 * (no receiver, or one that could not be placed) leaves it open. */
		if (!uv_is_closing((uv_handle_t *)&p.async))
			uv_close((uv_handle_t *)&p.async, NULL);
		uv_run(&p.loop, UV_RUN_NOWAIT);
		uv_loop_close(&p.loop);
	} else {
		if (c->prim == IL_FLOOR_EVENTFD_UV_POLL) {
			/* The receiver closed its handle; a failed start leaves it open. */
			if (!uv_is_closing((uv_handle_t *)&p.poll) && atomic_load(&p.ready) > 0)
				uv_close((uv_handle_t *)&p.poll, NULL);
			uv_run(&p.loop, UV_RUN_NOWAIT);
			uv_loop_close(&p.loop);
		}
		close(p.efd);
	}
	close(p.ack_efd);
	return rc;
}

/* The receiving process of unix_socket+uv: a uv loop polls the socket, as
 * a child's loop does, reads a whole frame-sized message and answers with
 * its one-way latency. */
struct sock_rx {
	int fd;
	unsigned left;
	size_t got;
	uint8_t buf[IL_FLOOR_FRAME_LEN];
};

static void floor_sock_cb(uv_poll_t *h, int status, int events)
{
	struct sock_rx *rx = h->data;

	for (;;) {
		ssize_t n = read(rx->fd, rx->buf + rx->got, sizeof(rx->buf) - rx->got);
		uint64_t sent, lat;

		if (n <= 0) {
			if (n == 0 || errno != EAGAIN)
				uv_close((uv_handle_t *)h, NULL);
			return;
		}
		rx->got += (size_t)n;
		if (rx->got < sizeof(rx->buf))
			continue;
		lat = il_now_ns();
		memcpy(&sent, rx->buf, sizeof(sent));
		lat -= sent;
		rx->got = 0;
		if (write(rx->fd, &lat, sizeof(lat)) != sizeof(lat) || --rx->left == 0) {
			uv_close((uv_handle_t *)h, NULL);
			return;
		}
	}
}

static void socket_uv_receiver(int fd, unsigned samples)
{
	struct sock_rx rx = {.fd = fd, .left = samples};
	uv_loop_t loop;
	uv_poll_t poll;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	uv_loop_init(&loop);
	uv_poll_init(&loop, &poll, fd);
	poll.data = &rx;
	uv_poll_start(&poll, UV_READABLE, floor_sock_cb);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
}

static int measure_socket(const struct il_floor_cfg *c, struct il_hist *h, char *err, size_t errlen)
{
	bool uv = c->prim == IL_FLOOR_UNIX_SOCKET_UV;
	size_t msg_len = uv ? IL_FLOOR_FRAME_LEN : sizeof(uint64_t);
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
		rc = place_self_prio(c->policy, c->cpu_b, c->prio_delta);
		if (write(res[1], &rc, sizeof(rc)) != sizeof(rc) || rc)
			_exit(1);
		if (uv) {
			socket_uv_receiver(sv[1], c->samples);
			_exit(0);
		}
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
		uint8_t msg[IL_FLOOR_FRAME_LEN] = {0};
		uint64_t now, lat;

		pause_us(c->gap_us);
		now = il_now_ns();
		memcpy(msg, &now, sizeof(now));
		if (write(sv[0], msg, msg_len) != (ssize_t)msg_len ||
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

int il_floor_measure_into(const struct il_floor_cfg *c, struct il_hist *h, char *err, size_t errlen)
{
	cpu_set_t saved;
	int have = sched_getaffinity(0, sizeof(saved), &saved) == 0, rc;

	if (c->prim == IL_FLOOR_UNIX_SOCKET || c->prim == IL_FLOOR_UNIX_SOCKET_UV)
		rc = measure_socket(c, h, err, errlen);
	else
		rc = measure_threads(c, h, err, errlen);
	/*
	 * The sender is the calling thread: give it back the CPUs it had, or
	 * whatever it starts next (bench/overhead's harness runs) inherits the
	 * pinning and runs on one CPU.
	 */
	if (have)
		sched_setaffinity(0, sizeof(saved), &saved);
	return rc;
}

int il_floor_measure(const struct il_floor_cfg *c, struct il_floor_result *out, char *err,
		     size_t errlen)
{
	struct il_hist *h;
	int rc;

	if (il_hist_new(&h) < 0)
		return -ENOMEM;
	rc = il_floor_measure_into(c, h, err, errlen);
	if (rc == 0) {
		out->n = il_hist_count(h);
		out->p50_ns = il_hist_percentile(h, 50);
		out->p99_ns = il_hist_percentile(h, 99);
		out->max_ns = il_hist_max(h);
	}
	il_hist_free(h);
	return rc;
}
