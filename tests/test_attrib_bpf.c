/*
 * The BPF capture and the decomposition on real kernel events (issue 12's
 * tests): two threads of this process play a hop chain (thread A takes
 * the even stamps, B the odd ones, each a handler of calibrated CPU work,
 * handing the record over with an eventfd write, as the in-process hops
 * do), the capture follows them, and interference with a known duration
 * is injected:
 *   - a SCHED_FIFO busy thread pinned to the receiver's CPU holds it for
 *     a known time when the sender posts: `runqueue` of that hop matches
 *     within 10% and the culprit is that thread;
 *   - a SCHED_FIFO thread preempts the sender of hop 7 ("render:main")
 *     mid-handler for a known time: `preempted` on hop 7, that culprit;
 *   - with no interference, send + wake + runqueue + dispatch equals
 *     stamp k - end k-1 within 2 us for every asleep receiver;
 *   - each thread's run-queue total from the capture agrees with
 *     /proc/self/task/TID/schedstat within 10%.
 * Needs root (BPF, SCHED_FIFO); every case skips with the reason otherwise.
 * Run under the machine lock (tests/attrib.cmake). The RT threads are
 * bounded (RLIMIT_RTTIME, a spin deadline) and joined before each case ends.
 */
#include "il_test.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "il_attrib.h"
#include "il_capture.h"
#include "il_clock.h"
#include "il_procfs.h"
#include "il_thread.h"
#include "il_tracefs.h"

#define US     1000ull
#define MS     1000000ull
#define NCHAIN (IL_STAMP_PROCESSED + 1) /* stamps 0..11 */

static char skip_why[256];

static void need(void)
{
	IL_TEST_NEED(!skip_why[0], "%s", skip_why);
}

/* --- the chain ------------------------------------------------------------ */
struct chain;
typedef void (*hook_fn)(struct chain *c, int k, int phase);
enum { PH_BEGIN, PH_MID, PH_END };

struct chain {
	struct il_attrib *eng;
	struct il_capture *cap;
	int efd[3]; /* wake A, wake B, wake main */
	int cpu[2];
	uint64_t work_ns[NCHAIN];
	struct il_msg m;
	hook_fn hook;
	_Atomic int stop;
	pthread_t th[2];
	int started; /* players to join */
	int tid[2];
	_Atomic int ready;
};

static void efd_post(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		abort();
}

static void efd_wait(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* CPU work, measured in thread CPU time: preemption lengthens it in wall time. */
static void cpu_work(struct chain *c, int k, uint64_t ns)
{
	uint64_t c0 = il_thread_cpu_ns();
	bool mid = false;

	while (il_thread_cpu_ns() - c0 < ns)
		if (!mid && il_thread_cpu_ns() - c0 >= ns / 2) {
			mid = true;
			if (c->hook)
				c->hook(c, k, PH_MID);
		}
}

struct player {
	struct chain *c;
	int who; /* 0: A (even stamps), 1: B (odd) */
};

static void *player_main(void *arg)
{
	struct player *p = arg;
	struct chain *c = p->c;

	pthread_setname_np(pthread_self(), p->who ? "render:comp" : "render:main");
	pin(c->cpu[p->who]);
	c->tid[p->who] = il_gettid();
	c->ready++;
	for (;;) {
		int k;

		efd_wait(c->efd[p->who]);
		if (c->stop)
			break;
		/* Stamp 0 starts a record; this handler's stamp is the first missing. */
		for (k = 0; k < NCHAIN && c->m.stamp_ns[k]; k++)
			;
		if (k == NCHAIN)
			continue;
		c->m.stamp_ns[k] = il_now_ns();
		c->m.tid[k] = (uint32_t)il_gettid();
		c->m.cpu[k] = il_cpu_now();
		if (c->hook)
			c->hook(c, k, PH_BEGIN);
		cpu_work(c, k, c->work_ns[k]);
		if (c->hook)
			c->hook(c, k, PH_END);
		c->m.end_ns[k] = il_now_ns();
		efd_post(k == NCHAIN - 1 ? c->efd[2] : c->efd[!p->who]);
	}
	return NULL;
}

static struct player players[2];

/*
 * The chain a case runs: static, not on the case's stack, because its
 * players use it until joined, and a failed assertion leaves the case
 * before chain_stop; the case's teardown (case_teardown) stops it then.
 */
static struct chain C;

static struct chain *chain_start(int cpu_a, int cpu_b)
{
	struct chain *c = &C;
	int cerr = 0;

	memset(c, 0, sizeof(*c));
	c->cpu[0] = cpu_a;
	c->cpu[1] = cpu_b;
	for (int i = 0; i < 3; i++)
		c->efd[i] = eventfd(0, EFD_CLOEXEC);
	for (int k = 0; k < NCHAIN; k++)
		c->work_ns[k] = 50 * US;
	while (c->started < 2) {
		players[c->started] = (struct player){c, c->started};
		cerr = pthread_create(&c->th[c->started], NULL, player_main, &players[c->started]);
		if (cerr)
			fail_msg("pthread_create of player %d: %s", c->started, strerror(cerr));
		c->started++;
	}
	while (c->ready < 2)
		usleep(1000);
	return c;
}

static void feed_cb(void *ctx, const struct il_kev *ev)
{
	il_attrib_feed(ctx, ev);
}

/* Engine and capture following the two players (and this thread). */
static void capture_start(struct chain *c)
{
	char why[256];
	const char *names[2] = {"render:main", "render:comp"};

	assert_int_equal(il_attrib_new(NULL, &c->eng), 0);
	assert_int_equal(il_capture_new(feed_cb, c->eng, &c->cap, why, sizeof(why)), 0);
	for (int i = 0; i < 2; i++) {
		struct il_attrib_thread t = {.pid = getpid(),
					     .tid = c->tid[i],
					     .name = names[i],
					     .process = "test",
					     .role = "main",
					     .policy = "other"};

		assert_int_equal(il_attrib_thread_add(c->eng, &t), 0);
		assert_int_equal(il_capture_track(c->cap, c->tid[i]), 0);
	}
	il_attrib_start(c->eng, il_now_ns());
	usleep(2000);
}

/* One record through the chain; returns its breakdown. */
static void chain_event(struct chain *c, uint64_t id, struct il_attrib_event *ev)
{
	memset(&c->m, 0, sizeof(c->m));
	c->m.event_id = id;
	efd_post(c->efd[0]);
	efd_wait(c->efd[2]);
	usleep(500); /* the threads' switch-outs after their last stamps */
	il_capture_drain(c->cap);
	assert_int_equal(il_attrib_explain(c->eng, &c->m, ev), 0);
	il_attrib_advance(c->eng, c->m.stamp_ns[0]);
}

static void chain_stop(struct chain *c)
{
	c->stop = 1;
	efd_post(c->efd[0]);
	efd_post(c->efd[1]);
	for (int i = 0; i < c->started; i++)
		pthread_join(c->th[i], NULL);
	c->started = 0;
	il_capture_free(c->cap);
	c->cap = NULL;
	il_attrib_free(c->eng);
	c->eng = NULL;
	for (int i = 0; i < 3; i++)
		close(c->efd[i]);
}

/* --- a SCHED_FIFO intruder -------------------------------------------------- */
struct intruder {
	int cpu, efd, park;	     /* park: where it waits, off the CPU, once done */
	uint64_t spin_ns;	     /* after its trigger */
	_Atomic uint64_t trigger_ns; /* set by whoever lets it loose */
	_Atomic int spinning, done;
	/*
	 * Its CPU time (CLOCK_THREAD_CPUTIME_ID) when its spin began (its wait
	 * returned), when it first saw the trigger, and when it ended: what it
	 * held a CPU for, which is what the capture must give it. A late
	 * wake-up shortens the spin, and a higher-priority thread (another
	 * test's FIFO thread in the suite's lanes) takes part of it.
	 */
	_Atomic uint64_t cpu_from, cpu_at_trigger, cpu_to;
	_Atomic int receiver_awake; /* the receiver never went to sleep (runqueue_hook) */
	int tid;
	int running; /* started, not joined yet */
	pthread_t th;
};

static void *intruder_main(void *arg)
{
	struct intruder *x = arg;
	struct sched_param sp = {.sched_priority = 10};

	pthread_setname_np(pthread_self(), "il-intruder");
	pin(x->cpu);
	x->tid = il_gettid();
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		return (void *)1;
	efd_wait(x->efd);
	x->cpu_from = il_thread_cpu_ns();
	x->spinning = 1;
	/* Spin until trigger + spin_ns; never longer than 100 ms in all. */
	for (uint64_t t0 = il_now_ns(), now = t0; now - t0 < 100 * MS; now = il_now_ns()) {
		uint64_t tr = x->trigger_ns;

		if (tr && !x->cpu_at_trigger)
			x->cpu_at_trigger = il_thread_cpu_ns();
		if (tr && now >= tr + x->spin_ns)
			break;
	}
	x->cpu_to = il_thread_cpu_ns();
	x->done = 1;
	/* Leave the CPU by blocking, not by exiting: thread exit would hold it
	 * longer than the spin the test measures. */
	efd_wait(x->park);
	return NULL;
}

static void intruder_start(struct intruder *x, int cpu, uint64_t spin_ns)
{
	memset(x, 0, sizeof(*x));
	x->cpu = cpu;
	x->spin_ns = spin_ns;
	x->efd = eventfd(0, EFD_CLOEXEC);
	x->park = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(pthread_create(&x->th, NULL, intruder_main, x), 0);
	x->running = 1;
	while (!x->tid)
		usleep(100);
}

/* Ends and joins the intruder; what its thread returned. */
static void *intruder_end(struct intruder *x)
{
	void *rc;

	/* Already let loose by a hook, or not: either way it ends now. */
	if (!x->trigger_ns)
		x->trigger_ns = il_now_ns();
	efd_post(x->efd);
	efd_post(x->park);
	pthread_join(x->th, &rc);
	x->running = 0;
	close(x->efd);
	close(x->park);
	return rc;
}

static void intruder_join(struct intruder *x)
{
	assert_null(intruder_end(x));
}

/* --- cases ---------------------------------------------------------------- */
static struct intruder X;
static int hop_of_interest;

/*
 * Waits (up to 1 s) until our thread tid sleeps: 1, or 0 if it never did.
 * A receiver still on its way back to its wait after its last send (slow
 * under ASan beside other tests) would be preempted by the intruder before
 * the post and queue longer than the spin the test planted (3.68 ms for a
 * 3 ms spin, once).
 */
static int wait_asleep(int tid)
{
	for (uint64_t t0 = il_now_ns(); il_now_ns() - t0 < 1000 * MS;) {
		struct il_procfs_stat st;

		if (il_procfs_stat(0, tid, 0, &st) == 0 && st.state == 'S')
			return 1;
		usleep(20);
	}
	return 0;
}

/* Hop H's sender lets the intruder loose on the receiver's CPU once the
 * receiver sleeps, waits until it spins there, then posts: the receiver
 * queues behind it. */
static void runqueue_hook(struct chain *c, int k, int phase)
{
	if (k != hop_of_interest - 1 || phase != PH_END)
		return;
	if (!wait_asleep(c->tid[hop_of_interest % 2]))
		X.receiver_awake = 1;
	efd_post(X.efd);
	while (!X.spinning)
		;
	X.trigger_ns = il_now_ns();
}

/*
 * The time hop h lost to thread tid, as one of its culprits (0: not one),
 * and that culprit's name. Not "the top culprit": on a busy host another
 * task (a compiler, stress-ng) may take more of the hop than the intruder
 * the test planted; the intruder's own share is what must match.
 */
static uint64_t culprit_ns(const struct il_attrib *a, const struct il_attrib_hop *h, int tid,
			   const char **name)
{
	for (int i = 0; i < IL_ATTRIB_HOP_CULPRITS && h->culprit[i].ns; i++) {
		const struct il_attrib_culprit *cu = il_attrib_culprit(a, h->culprit[i].id);

		if (cu && cu->tid == tid) {
			if (name)
				*name = cu->thread;
			return h->culprit[i].ns;
		}
	}
	return 0;
}

/*
 * Event id through the chain with the intruder on CPU 1 (spin_ns) and hook
 * planting it; the event must be explained. Its hop k.
 */
static const struct il_attrib_hop *intruded_event(struct chain *c, hook_fn hook, uint64_t id,
						  uint64_t spin_ns, struct il_attrib_event *ev,
						  int k)
{
	intruder_start(&X, 1, spin_ns);
	c->hook = hook;
	chain_event(c, id, ev);
	c->hook = NULL;
	intruder_join(&X);
	assert_true(ev->explained);
	return &ev->hop[k];
}

static void test_attrib_bpf_fifo_runqueue(void **state)
{
	struct chain *c;
	struct il_attrib_event ev;
	const struct il_attrib_hop *h;
	uint64_t spin = 3 * MS, ns = 0;
	const char *who = NULL;
	double rq, spun;

	need();
	hop_of_interest = 5; /* receiver: B (odd stamps), on CPU 1 */
	c = chain_start(0, 1);
	capture_start(c);
	chain_event(c, 1, &ev); /* warm */
	/* Up to five tries, as in fifo_preempts_main: a hop over a switch the
	 * kernel did not report is inconsistent, its split unknown by design. */
	for (uint64_t id = 2; id <= 6; id++) {
		h = intruded_event(c, runqueue_hook, id, spin, &ev, hop_of_interest);
		assert_false(X.receiver_awake);
		if (h->consistent)
			break;
		print_message("hop %d of event %llu inconsistent: tried again\n", hop_of_interest,
			      (unsigned long long)id);
	}
	assert_true(h->consistent);
	rq = (double)h->comp_ns[IL_COMP_RUNQUEUE];
	/* Its CPU time after the post (the plan: spin). */
	spun = (double)(X.cpu_to - X.cpu_at_trigger);
	print_message("hop %d: runqueue %.0f us for an intruder on its CPU %.0f us after the post "
		      "(%.0f planned); total %.0f us\n",
		      hop_of_interest, rq / 1e3, spun / 1e3, (double)spin / 1e3,
		      (double)h->total_ns / 1e3);
	/* The VM's other tasks may add their own wait: the intruder's share is
	 * what must match, and the component holds at least that. */
	assert_true(rq >= 0.9 * spun);
	ns = culprit_ns(c->eng, h, X.tid, &who);
	assert_true(ns > 0);
	assert_string_equal(who, "il-intruder");
	if (fabs((double)ns - spun) > 0.1 * spun)
		fail_msg("the intruder's share of the wait %.0f us, for a spin of %.0f us",
			 (double)ns / 1e3, spun / 1e3);
	chain_stop(c);
}

/* The sender of hop 7 wakes the intruder on its own CPU halfway through
 * its handler; the intruder spins, then sleeps. */
static void preempt_hook(struct chain *c, int k, int phase)
{
	if (k != 6 || phase != PH_MID)
		return;
	X.trigger_ns = il_now_ns();
	efd_post(X.efd);
}

static void test_attrib_bpf_fifo_preempts_main(void **state)
{
	struct chain *c;
	struct il_attrib_event ev;
	const struct il_attrib_hop *h;
	uint64_t spin = 2 * MS, ns = 0;
	double pre, spun;

	need();
	c = chain_start(1, 0); /* A ("render:main", stamp 6) on CPU 1 */
	c->work_ns[6] = 2 * MS;
	capture_start(c);
	chain_event(c, 1, &ev);
	/* Up to five tries: where the kernel did not report the switch back
	 * to A (a thread whose switch-out is never traced ran in between), the
	 * hop is inconsistent and its split unknown, by design; and where the
	 * host took the vCPU from A (the guest counts that as running: work of
	 * 6989 us for 2000 us of A's CPU clock in one CI run), its work is
	 * not 2 ms. A consistent, unstolen one must be right. */
	for (uint64_t id = 2; id <= 6; id++) {
		h = intruded_event(c, preempt_hook, id, spin, &ev, 7);
		if (h->consistent && (double)h->comp_ns[IL_COMP_WORK] <= 1.1 * 2e6)
			break;
		print_message("hop 7 of event %llu %s: tried again\n", (unsigned long long)id,
			      h->consistent ? "worked longer than its CPU time" : "inconsistent");
	}
	assert_true(h->consistent);
	pre = (double)h->comp_ns[IL_COMP_PREEMPTED];
	/*
	 * The intruder's CPU time from its wake-up to the trigger's + 2 ms,
	 * not the plan: in one run beside stress-ng and the suite's lanes (18
	 * ms of preemption, most of it by the load) its share was not the
	 * planned 2 ms, which it gets only if it wakes at once and nothing of
	 * a higher priority takes its CPU meanwhile.
	 */
	spun = (double)(X.cpu_to - X.cpu_from);
	ns = culprit_ns(c->eng, h, X.tid, NULL);
	print_message("hop 7: preempted %.0f us (intruder %.0f us of it, %.0f us of its CPU "
		      "time, %.0f planned), work %.0f us, total %.0f us\n",
		      pre / 1e3, (double)ns / 1e3, spun / 1e3, (double)spin / 1e3,
		      (double)h->comp_ns[IL_COMP_WORK] / 1e3, (double)h->total_ns / 1e3);
	/* As above: other tasks may preempt it too; the intruder's share must match. */
	assert_true(pre >= 0.9 * spun);
	assert_true(ns > 0);
	assert_true(fabs((double)ns - spun) <= 0.1 * spun);
	assert_true(fabs((double)h->comp_ns[IL_COMP_WORK] - 2e6) <= 0.1 * 2e6);
	chain_stop(c);
}

static void test_attrib_bpf_asleep_identity(void **state)
{
	struct chain *c;
	struct il_attrib_event ev;
	unsigned asleep = 0, ok = 0, consistent = 0, hops = 0, sums = 0, upset = 0;
	double worst = 0;

	need();
	setenv("IL_ATTRIB_DEBUG_HOP", "1", 1); /* an inconsistent hop's details on stderr */
	c = chain_start(0, 1);
	capture_start(c);
	for (uint64_t id = 1; id <= 50; id++) {
		unsigned consistent0 = consistent;

		chain_event(c, id, &ev);
		assert_true(ev.explained);
		for (int k = 1; k <= IL_STAMP_PROCESSED; k++) {
			const struct il_attrib_hop *h = &ev.hop[k];
			double gap = (double)(c->m.stamp_ns[k] - c->m.end_ns[k - 1]);
			double parts =
			    (double)(h->comp_ns[IL_COMP_SEND] + h->comp_ns[IL_COMP_WAKE] +
				     h->comp_ns[IL_COMP_RUNQUEUE] + h->comp_ns[IL_COMP_DISPATCH]);
			double all = 0;

			hops++;
			consistent += h->consistent;
			/* Every hop's components add up to it, whatever the timeline
			 * lacked: what the engine cannot place is residual. */
			for (int i = 0; i < IL_NCOMP; i++)
				all += (double)h->comp_ns[i];
			sums += fabs(all - (double)h->total_ns) <= 1000;
			/* Where the kernel's timeline does not show the hop's threads
			 * running at their stamps (inconsistent: a switch-in the
			 * kernel never reported), the receiver's split is not known; those hops are
			 * bounded below. */
			if (!h->consistent || !h->asleep || h->comp_ns[IL_COMP_BUSY])
				continue;
			asleep++;
			ok += fabs(parts - gap) <= 2000 && h->comp_ns[IL_COMP_RESIDUAL] <= 2000;
			if (fabs(parts - gap) > worst)
				worst = fabs(parts - gap);
			/* The wake chain is ordered: end <= waking <= wakeup <= switch-in <= stamp.
			 */
			if (!(h->waking_ns >= c->m.end_ns[k - 1] && h->wakeup_ns >= h->waking_ns &&
			      h->switch_in_ns >= h->wakeup_ns &&
			      h->switch_in_ns <= c->m.stamp_ns[k]))
				print_message("event %llu hop %d: end %llu waking %llu wakeup %llu "
					      "switch-in %llu stamp %llu\n",
					      (unsigned long long)id, k,
					      (unsigned long long)c->m.end_ns[k - 1],
					      (unsigned long long)h->waking_ns,
					      (unsigned long long)h->wakeup_ns,
					      (unsigned long long)h->switch_in_ns,
					      (unsigned long long)c->m.stamp_ns[k]);
			assert_true(h->waking_ns >= c->m.end_ns[k - 1]);
			assert_true(h->wakeup_ns >= h->waking_ns);
			assert_true(h->switch_in_ns >= h->wakeup_ns);
			assert_true(h->switch_in_ns <= c->m.stamp_ns[k]);
		}
		upset += consistent - consistent0 < IL_STAMP_PROCESSED;
	}
	{
		struct il_attrib_counts n;

		il_attrib_counts(c->eng, &n);
		print_message("%u of %u hops add up; %u consistent; of those %u had an asleep "
			      "receiver, %u of them split within 2 us (worst %.0f ns); %llu kernel "
			      "events dropped; %llu switch-ins not reported\n",
			      sums, hops, consistent, asleep, ok, worst,
			      (unsigned long long)il_capture_drops(c->cap),
			      (unsigned long long)n.unseen_switch_ins);
	}
	assert_int_equal(sums, hops);
	assert_true(asleep >= hops / 2);
	assert_int_equal(ok, asleep);
	/* A hop is inconsistent when the kernel's timeline does not show its
	 * threads running on their CPUs at their stamps. On this pinned chain
	 * that is rare, not never (2 hops in 550 in about 1 run in 15 here, no
	 * event dropped: the kernel reports no switch-out of a thread of PID 1
	 * that wakes every second, so the switch to whoever follows it is not
	 * reported either, in tracefs as in BPF; the engine says which,
	 * IL_ATTRIB_DEBUG_HOP is set above). The unit is the event: one such
	 * gap upsets the hops of the event it falls in (once, all six hops of
	 * one event, 3 switch-ins not reported, under the VM image build of an
	 * empty-cache CI). Two events in fifty are allowed; an engine that
	 * reads the timeline wrong misses most. */
	print_message("%u of 50 events with an inconsistent hop\n", upset);
	assert_true(upset <= 2);
	unsetenv("IL_ATTRIB_DEBUG_HOP");
	chain_stop(c);
}

/* The thread's run-queue wait so far, as the kernel's schedstat counts it. */
static uint64_t run_delay(int tid)
{
	uint64_t cpu = 0, wait = 0;

	assert_int_equal(il_procfs_schedstat(tid, 0, &cpu, &wait, NULL), 0);
	return wait;
}

/* A CFS busy thread shares the players' CPU so they wait in run queues.
 * Static, as the chain, for case_teardown to stop it after a failure. */
static _Atomic int hog_stop;
static int hog_cpu = 1, hog_running;
static pthread_t hog;

static void *cfs_hog(void *arg)
{
	pthread_setname_np(pthread_self(), "il-cfshog");
	pin(*(int *)arg);
	while (!hog_stop)
		;
	return NULL;
}

static void test_attrib_bpf_schedstat(void **state)
{
	struct chain *c;
	struct il_attrib_event ev;
	struct il_attrib_thread_total t[4];
	uint64_t d0[2], d1[2], from, to;
	size_t n;

	need();
	c = chain_start(1, 1);
	for (int k = 0; k < NCHAIN; k++)
		c->work_ns[k] = 200 * US;
	hog_stop = 0;
	assert_int_equal(pthread_create(&hog, NULL, cfs_hog, &hog_cpu), 0);
	hog_running = 1;
	capture_start(c);
	/* One event first: each thread's state is then known from its own
	 * switches, so the readings below can be matched (as the run's). */
	chain_event(c, 1, &ev);
	from = il_now_ns();
	il_attrib_start(c->eng, from);
	/*
	 * run_delay grows when a wait ends, by the whole wait: one in
	 * progress at a reading is counted by the kernel on the side where
	 * it ends. Comparing with the captured waits clipped to the window
	 * was off by up to a slice of the hog at each end (40.4 ms against
	 * 35.6 ms in a CI run). The engine counts the waits that end between
	 * the readings, whole (schedstat_rule_ns); each reading is stamped
	 * before it is taken, as the run stamps its own.
	 */
	for (int i = 0; i < 2; i++) {
		assert_true(il_attrib_thread_known(c->eng, c->tid[i]));
		assert_int_equal(il_attrib_thread_readings(c->eng, c->tid[i], il_now_ns(), 0), 0);
		d0[i] = run_delay(c->tid[i]);
	}
	for (uint64_t id = 2; id <= 41; id++)
		chain_event(c, id, &ev);
	for (int i = 0; i < 2; i++) {
		d1[i] = run_delay(c->tid[i]);
		assert_int_equal(il_attrib_thread_readings(c->eng, c->tid[i], 0, il_now_ns()), 0);
	}
	to = il_now_ns();
	il_capture_stop(c->cap);
	il_attrib_finish(c->eng, to);
	hog_stop = 1;
	pthread_join(hog, NULL);
	hog_running = 0;
	n = il_attrib_threads(c->eng, t, 4);
	assert_int_equal(n, 2);
	for (int i = 0; i < 2; i++) {
		double ss = (double)(d1[i] - d0[i]), cap = (double)t[i].schedstat_rule_ns,
		       slack = (double)t[i].schedstat_rule_slack_ns;

		print_message("%s: schedstat run_delay %.0f us; captured waits ending between the "
			      "readings %.0f us (+%.0f us open), in the window %.0f us\n",
			      t[i].name, ss / 1e3, cap / 1e3, slack / 1e3, t[i].runqueue_ns / 1e3);
		assert_true(ss > 1e6); /* the hog made them wait */
		assert_int_equal(t[i].schedstat_rule_unknown, 0);
		/* Within 5%, beyond what unseen switch-ins leave open (the
		 * run's own check allows 10%): 0.0-0.8% in 10 runs here, 4
		 * of them under stress-ng. */
		assert_true(cap - 0.05 * ss <= ss && ss <= cap + slack + 0.05 * ss);
	}
	chain_stop(c);
}

/*
 * The capture leaves the scheduler's events to perf: a tracepoint's BPF
 * program that returns 0 makes the kernel drop the event for every perf
 * user of it (`perf sched record` beside a run saw no sched_switch). A
 * counting perf event on sched_switch and sched_waking, on every CPU, must
 * keep counting while the capture follows this thread through sleeps.
 */
static void test_attrib_bpf_perf_still_sees_events(void **state)
{
	const char *evs[2] = {"sched/sched_switch", "sched/sched_waking"};
	int ids[2], ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), fd[2][64];
	struct il_attrib *eng;
	struct il_capture *cap;
	char why[256];

	need();
	assert_int_equal(il_tracefs_event_ids(evs, 2, ids), 0);
	if (ncpu > 64)
		ncpu = 64;
	for (int e = 0; e < 2; e++)
		for (int cpu = 0; cpu < ncpu; cpu++) {
			struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT,
						       .size = sizeof(attr),
						       .config = (uint64_t)ids[e]};

			fd[e][cpu] = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
						  PERF_FLAG_FD_CLOEXEC);
			assert_true(fd[e][cpu] >= 0);
		}
	assert_int_equal(il_attrib_new(NULL, &eng), 0);
	assert_int_equal(il_capture_new(feed_cb, eng, &cap, why, sizeof(why)), 0);
	assert_int_equal(il_capture_track(cap, (int)syscall(SYS_gettid)), 0);
	/* Counted from here: the capture is attached and follows us. */
	for (int e = 0; e < 2; e++)
		for (int cpu = 0; cpu < ncpu; cpu++)
			assert_int_equal(ioctl(fd[e][cpu], PERF_EVENT_IOC_RESET, 0), 0);
	for (int i = 0; i < 200; i++)
		usleep(200);
	for (int e = 0; e < 2; e++) {
		uint64_t total = 0;

		for (int cpu = 0; cpu < ncpu; cpu++) {
			uint64_t v = 0;

			assert_int_equal(read(fd[e][cpu], &v, sizeof(v)), (ssize_t)sizeof(v));
			total += v;
			close(fd[e][cpu]);
		}
		print_message("%s: perf counted %llu events beside the capture\n", evs[e],
			      (unsigned long long)total);
		/* 200 sleeps: at least a switch out and a waking each. */
		assert_true(total >= 200);
	}
	il_capture_free(cap);
	il_attrib_free(eng);
}

/*
 * What a case left running when an assertion or a skip left it: the
 * intruder, the hog and the chain's players are stopped and joined
 * before the next case starts.
 */
static int case_teardown(void **state)
{
	if (X.running)
		intruder_end(&X);
	if (hog_running) {
		hog_stop = 1;
		pthread_join(hog, NULL);
		hog_running = 0;
	}
	if (C.started)
		chain_stop(&C);
	return 0;
}

static int group_setup(void **state)
{
	struct il_attrib *eng;
	struct il_capture *cap;
	struct rlimit rl = {500000, 1000000}; /* RT threads: 0.5 s of CPU without blocking */
	char why[200];
	int rc;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		snprintf(skip_why, sizeof(skip_why), "needs 2 CPUs");
		return 0;
	}
	if (il_attrib_new(NULL, &eng) < 0)
		return -1;
	rc = il_capture_new(feed_cb, eng, &cap, why, sizeof(why));
	if (rc < 0)
		snprintf(skip_why, sizeof(skip_why), "no BPF capture here: %s", why);
	else
		il_capture_free(cap);
	il_attrib_free(eng);
	if (!skip_why[0] && geteuid() != 0)
		snprintf(skip_why, sizeof(skip_why), "SCHED_FIFO needs root");
	setrlimit(RLIMIT_RTTIME, &rl);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_attrib_bpf_fifo_runqueue, case_teardown),
	    cmocka_unit_test_teardown(test_attrib_bpf_fifo_preempts_main, case_teardown),
	    cmocka_unit_test_teardown(test_attrib_bpf_asleep_identity, case_teardown),
	    cmocka_unit_test_teardown(test_attrib_bpf_schedstat, case_teardown),
	    cmocka_unit_test(test_attrib_bpf_perf_still_sees_events),
	};

	if (il_test_filters("test_attrib_bpf", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, NULL);
}
