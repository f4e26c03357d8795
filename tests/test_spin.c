/* The il_spin mutex: exclusion, wake-ups, timeouts, handoff, il_lock. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_lock.h"
#include "il_oncpu_state.h"
#include "il_spin.h"
#include "il_spin_internal.h"
#include "il_test.h"
#include "il_test_spin.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
	return ts;
}

static void test_spin_exclusion_none(void **state)
{
	assert_int_equal(il_spin_init(IL_SPIN_SOURCE_NONE, NULL), 0);
	assert_int_equal(il_spin_source_get(), IL_SPIN_SOURCE_NONE);
	il_test_spin_stress(IL_SPIN_SOURCE_NONE, 8, 200000, 50);
}

/* The lying sources: the lock must not care what they say. */
static int lie_on(uint32_t tid, void *data)
{
	return 1;
}

static int lie_off(uint32_t tid, void *data)
{
	return 0;
}

static int lie_random(uint32_t tid, void *data)
{
	static _Atomic uint32_t x = 2463534242u;
	uint32_t v = x;

	/* xorshift; races between threads only make it more random */
	v ^= v << 13;
	v ^= v >> 17;
	v ^= v << 5;
	x = v;
	return v & 1;
}

/* Owners run for 30 us, then are off their CPU for 10 us, over and over:
 * long enough on that spinners ask for handoffs, and off at any moment of
 * a grant. */
static int lie_in_windows(uint32_t tid, void *data)
{
	return now_ns() / 10000 % 4 != 0;
}

static void test_spin_exclusion_lying_on(void **state)
{
	il_spin_test_set_oncpu(lie_on, NULL);
	/* A small budget keeps "always on" from spinning on a preempted owner for long. */
	il_spin_budget_set_ns(5000);
	il_test_spin_stress(IL_SPIN_SOURCE_BPF, 8, 20000, 20);
	il_spin_budget_set_ns(0);
	il_spin_test_set_oncpu(NULL, NULL);
}

static void test_spin_exclusion_lying_off(void **state)
{
	il_spin_test_set_oncpu(lie_off, NULL);
	il_test_spin_stress(IL_SPIN_SOURCE_BPF, 8, 20000, 20);
	il_spin_test_set_oncpu(NULL, NULL);
}

static void test_spin_exclusion_lying_random(void **state)
{
	il_spin_test_set_oncpu(lie_random, NULL);
	il_test_spin_stress(IL_SPIN_SOURCE_BPF, 8, 20000, 20);
	il_spin_test_set_oncpu(NULL, NULL);
}

/*
 * The handoff's races: 3 us sections, so spinners ask for the lock; an
 * owner state that flips every few sections, so a grantee goes to sleep
 * at any moment, also while its unlocker hands the lock over; a 5 us
 * budget, so grant spins end soon. A lost wake-up shows as threads not
 * done in time.
 */
static void test_spin_exclusion_handoff_races(void **state)
{
	uint64_t handoffs = il_spin_handoffs(), withdrawals = il_spin_g.withdrawals;

	il_spin_test_set_oncpu(lie_in_windows, NULL);
	il_spin_budget_set_ns(5000);
	il_test_spin_stress_cs(IL_SPIN_SOURCE_BPF, 8, 20000, 3000, 60);
	il_spin_budget_set_ns(0);
	il_spin_test_set_oncpu(NULL, NULL);
	print_message("handoffs %llu, withdrawn requests %llu\n",
		      (unsigned long long)(il_spin_handoffs() - handoffs),
		      (unsigned long long)(il_spin_g.withdrawals - withdrawals));
	/* The handoff path ran, or the test proved nothing about it. */
	assert_true(il_spin_handoffs() > handoffs);
}

/* Owners leave their CPU the moment a spinner asks for the lock (H set). */
static int off_once_asked(uint32_t tid, void *data)
{
	const struct il_spin_mutex *m = data;

	return !(atomic_load_explicit(&m->word, memory_order_relaxed) & IL_SPIN_HANDOFF);
}

struct withdraw_run {
	struct il_spin_mutex m;
	unsigned long counter, iters;
	_Atomic unsigned long bad_owner;
};

static void *withdraw_thread(void *arg)
{
	struct withdraw_run *r = arg;
	uint32_t me = il_spin_tid();

	for (unsigned long i = 0; i < r->iters; i++) {
		uint64_t t0;

		il_spin_mutex_lock_source(&r->m, IL_SPIN_SOURCE_BPF);
		if (il_spin_mutex_owner(&r->m) != me)
			r->bad_owner++;
		r->counter++;
		for (t0 = now_ns(); now_ns() - t0 < 3000;)
			; /* past IL_SPIN_FAIR_NS: spinners ask */
		il_spin_mutex_unlock(&r->m);
	}
	return NULL;
}

/*
 * Every request is withdrawn: the source says the owner runs until a
 * spinner asks, then that it left its CPU, so the asker takes its request
 * back and sleeps on the word, keeping its slot, and asks again later on
 * the same slot. Exclusion holds, nobody is lost, the slots end free.
 */
static void test_spin_exclusion_withdrawn_requests(void **state)
{
	/*
	 * Static: threads that never end (the deadlock this looks for) go on
	 * using it after the test has failed and left.
	 */
	static struct withdraw_run r = {.m = IL_SPIN_MUTEX_INITIALIZER, .iters = 3000};
	uint64_t withdrawals = il_spin_g.withdrawals;
	struct timespec dl;
	pthread_t t[4];
	int started = 0, cerr = 0;

	il_spin_test_set_oncpu(off_once_asked, &r.m);
	while (started < 4 && !(cerr = pthread_create(&t[started], NULL, withdraw_thread, &r)))
		started++;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 60;
	for (int i = 0; i < started; i++)
		if (pthread_timedjoin_np(t[i], NULL, &dl) != 0)
			fail_msg("threads not done after 60 s: lost wake-up or deadlock");
	il_spin_test_set_oncpu(NULL, NULL);
	if (cerr)
		fail_msg("pthread_create of thread %d: %s", started, strerror(cerr));
	print_message("withdrawn requests %llu\n",
		      (unsigned long long)(il_spin_g.withdrawals - withdrawals));
	assert_int_equal(r.counter, 4 * r.iters);
	assert_int_equal(r.bad_owner, 0);
	assert_int_equal(r.m.word, 0);
	assert_true(il_spin_g.withdrawals > withdrawals);
	/* A slot kept across a withdrawal is given back with the lock: a new
	 * request on the same mutex can claim it (a handoff still happens). */
	il_spin_test_set_oncpu(lie_in_windows, NULL);
	il_spin_budget_set_ns(5000);
	uint64_t handoffs = il_spin_handoffs();
	il_test_spin_stress_cs(IL_SPIN_SOURCE_BPF, 4, 5000, 3000, 60);
	il_spin_budget_set_ns(0);
	il_spin_test_set_oncpu(NULL, NULL);
	assert_true(il_spin_handoffs() > handoffs);
}

/*
 * The withdrawal's ABA window, made wide. Z sleeps on the word (W set), S
 * spins and asks (H). The owner unlocks: it reads the slot's TID (S) and
 * pauses there; S sees the owner "leave", withdraws and sleeps; R starts
 * and spins, and asks after IL_SPIN_FAIR_NS if it can. Had S given its
 * slot back on withdrawing, R would claim it and set H: the word would be
 * what the paused unlock read, its CAS would hand the lock to S (asleep)
 * and the slot's grant to R: two owners, and S never woken. S keeps its
 * slot, so R cannot ask, H stays clear and the paused CAS fails.
 */
static _Atomic int aba_on;     /* what the owner state hook answers */
static _Atomic int aba_paused; /* the unlock reached the pause */
static struct il_spin_mutex aba_m = IL_SPIN_MUTEX_INITIALIZER;
static _Atomic unsigned long aba_bad;
static pthread_t aba_r;
static _Atomic int aba_r_started;

static int aba_oncpu(uint32_t tid, void *data)
{
	return aba_on;
}

static void *aba_waiter(void *arg)
{
	uint32_t me = il_spin_tid();

	il_spin_mutex_lock_source(&aba_m, IL_SPIN_SOURCE_BPF);
	if (il_spin_mutex_owner(&aba_m) != me)
		aba_bad++;
	usleep(1000);
	if (il_spin_mutex_owner(&aba_m) != me)
		aba_bad++;
	if (il_spin_mutex_unlock(&aba_m) != 0)
		aba_bad++;
	return NULL;
}

static void aba_pause(void)
{
	uint64_t w0 = il_spin_g.withdrawals, t0 = now_ns();

	if (aba_paused++)
		return; /* once */
	aba_on = 0;	/* the owner "left": S withdraws */
	while (il_spin_g.withdrawals == w0 && now_ns() - t0 < 5000000000ull)
		usleep(100);
	aba_on = 1;
	aba_r_started = pthread_create(&aba_r, NULL, aba_waiter, NULL) == 0;
	/* Time for R to ask, were the slot free. */
	for (t0 = now_ns();
	     now_ns() - t0 < 200000000ull && !(atomic_load(&aba_m.word) & IL_SPIN_HANDOFF);)
		usleep(100);
}

static void test_spin_withdrawal_no_aba(void **state)
{
	uint64_t w0 = il_spin_g.withdrawals;
	struct timespec dl;
	pthread_t z, s;

	il_spin_test_set_oncpu(aba_oncpu, NULL);
	il_spin_budget_set_ns(1000000000); /* spinners spin while the owner "runs" */
	il_spin_mutex_lock(&aba_m);
	aba_on = 0; /* Z sleeps on the word at once */
	assert_int_equal(pthread_create(&z, NULL, aba_waiter, NULL), 0);
	while (!(atomic_load(&aba_m.word) & IL_SPIN_WAITERS))
		usleep(100);
	aba_on = 1; /* S spins, then asks */
	assert_int_equal(pthread_create(&s, NULL, aba_waiter, NULL), 0);
	while (!(atomic_load(&aba_m.word) & IL_SPIN_HANDOFF))
		usleep(100);
	atomic_store(&il_spin_g.test_handoff_pause, aba_pause);
	assert_int_equal(il_spin_mutex_unlock(&aba_m), 0);
	atomic_store(&il_spin_g.test_handoff_pause, NULL);
	assert_int_equal(aba_paused, 1);
	assert_true(il_spin_g.withdrawals > w0);
	assert_true(aba_r_started);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 20;
	if (pthread_timedjoin_np(z, NULL, &dl) != 0 || pthread_timedjoin_np(s, NULL, &dl) != 0 ||
	    pthread_timedjoin_np(aba_r, NULL, &dl) != 0)
		fail_msg("waiters not done after 20 s: the lock went to a thread that left");
	il_spin_budget_set_ns(0);
	il_spin_test_set_oncpu(NULL, NULL);
	assert_int_equal(aba_bad, 0);
	assert_int_equal(aba_m.word, 0);
}

/*
 * The same races with timed waiters among the others: half the threads
 * take the lock by timedlock with deadlines 0 to 4 sections away, so they
 * leave with the waiters bit set, beside spinners that ask for handoffs.
 */
static void test_spin_exclusion_timed_waiters(void **state)
{
	uint64_t handoffs = il_spin_handoffs();
	unsigned long timeouts;

	il_spin_test_set_oncpu(lie_in_windows, NULL);
	il_spin_budget_set_ns(5000);
	timeouts = il_test_spin_stress_timed(IL_SPIN_SOURCE_BPF, 8, 10000, 3000, 60);
	il_spin_budget_set_ns(0);
	il_spin_test_set_oncpu(NULL, NULL);
	print_message("timeouts %lu, handoffs %llu\n", timeouts,
		      (unsigned long long)(il_spin_handoffs() - handoffs));
	/* Both paths ran, or the test proved nothing about them together. */
	assert_true(timeouts > 0);
	assert_true(il_spin_handoffs() > handoffs);
}

/*
 * A thread that takes the lock and holds it for hold_ns, or, with hold_ns
 * 0, until release is set: a test that needs the lock held while it
 * looks must not depend on looking within a fixed time.
 */
struct holder {
	struct il_spin_mutex *m;
	uint64_t hold_ns;
	_Atomic int locked;
	_Atomic int release;
};

static void *hold_thread(void *arg)
{
	struct holder *h = arg;
	struct timespec ts = ns_to_ts(h->hold_ns ? h->hold_ns : 1000000);

	il_spin_mutex_lock(h->m);
	h->locked = 1;
	do
		nanosleep(&ts, NULL);
	while (!h->hold_ns && !h->release);
	il_spin_mutex_unlock(h->m);
	return NULL;
}

static void start_holder(struct holder *h, pthread_t *t)
{
	assert_int_equal(pthread_create(t, NULL, hold_thread, h), 0);
	while (!h->locked)
		usleep(100);
}

static void release_holder(struct holder *h, pthread_t t)
{
	h->release = 1;
	assert_int_equal(pthread_join(t, NULL), 0);
}

/*
 * The cases with a holder assert what they saw only once it is joined: it
 * uses m and h, on the test's stack, and a failed assertion leaves the test.
 */
static void test_spin_trylock_busy_and_eperm(void **state)
{
	struct il_spin_mutex m = IL_SPIN_MUTEX_INITIALIZER;
	struct holder h = {.m = &m};
	pthread_t t;
	int busy, eperm;

	assert_int_equal(il_spin_mutex_unlock(&m), -EPERM);
	start_holder(&h, &t);
	busy = il_spin_mutex_trylock(&m);
	eperm = il_spin_mutex_unlock(&m);
	release_holder(&h, t);
	assert_int_equal(busy, -EBUSY);
	assert_int_equal(eperm, -EPERM);
	assert_int_equal(il_spin_mutex_trylock(&m), 0);
	assert_int_equal(il_spin_mutex_owner(&m), il_spin_tid());
	assert_int_equal(il_spin_mutex_unlock(&m), 0);
	assert_int_equal(m.word, 0);
}

static void test_spin_timedlock_times_out(void **state)
{
	struct il_spin_mutex m = IL_SPIN_MUTEX_INITIALIZER;
	struct holder h = {.m = &m};
	struct timespec dl, bad = {0, 1000000000L};
	uint64_t t0, el;
	pthread_t t;
	int einval, past, timed;

	/* Held until the checks are done, however long they take here. */
	start_holder(&h, &t);
	einval = il_spin_mutex_timedlock(&m, &bad);
	/* A deadline in the past fails at once. */
	dl = ns_to_ts(now_ns() - 1000000);
	past = il_spin_mutex_timedlock(&m, &dl);
	t0 = now_ns();
	dl = ns_to_ts(t0 + 50000000);
	timed = il_spin_mutex_timedlock(&m, &dl);
	el = now_ns() - t0;
	release_holder(&h, t);
	assert_int_equal(einval, -EINVAL);
	assert_int_equal(past, -ETIMEDOUT);
	assert_int_equal(timed, -ETIMEDOUT);
	assert_true(el >= 50000000);
	/*
	 * On time: the wait ends at the deadline, not when the holder lets
	 * go (it never does until told). The slack is for a loaded shared
	 * 2-CPU machine and the sanitizers.
	 */
	if (el > 50000000 + 20000000)
		print_message("timedlock returned %.1f ms after its deadline\n",
			      (el - 50000000) / 1e6);
	assert_true(el < 50000000 + 500000000);
	assert_int_equal(m.word, 0);
}

/*
 * With an owner on its CPU (the hook says so), a timed waiter spins, and a
 * spinner that keeps spinning asks for a handoff; a grant has no deadline,
 * so a timed waiter that asked used to wait for the holder (3 s here)
 * however near its own deadline was.
 */
static void test_spin_timedlock_times_out_owner_on_cpu(void **state)
{
	struct il_spin_mutex m = IL_SPIN_MUTEX_INITIALIZER;
	struct holder h = {.m = &m, .hold_ns = 3000000000ull};
	uint64_t handoffs = il_spin_handoffs(), t0, el;
	struct timespec dl;
	pthread_t t;
	int r;

	il_spin_test_set_oncpu(lie_on, NULL);
	start_holder(&h, &t);
	t0 = now_ns();
	dl = ns_to_ts(t0 + 50000000);
	r = il_spin_mutex_timedlock(&m, &dl);
	el = now_ns() - t0;
	il_spin_test_set_oncpu(NULL, NULL);
	pthread_join(t, NULL);
	assert_int_equal(r, -ETIMEDOUT);
	print_message("timedlock returned after %.1f ms (deadline 50 ms)\n", el / 1e6);
	assert_true(el >= 50000000);
	assert_true(el < 50000000 + 500000000);
	assert_int_equal(il_spin_handoffs(), handoffs);
	assert_int_equal(m.word, 0);
}

static void test_spin_timedlock_acquires(void **state)
{
	/* Far deadlines, the last ones past 2^64 ns: none is in the past. */
	const time_t far[] = {0, 18446744073, 18446744074, INT64_MAX};
	struct il_spin_mutex m = IL_SPIN_MUTEX_INITIALIZER;
	struct timespec dl;
	pthread_t t;

	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		struct holder h = {.m = &m, .hold_ns = 20000000};
		uint32_t owner = 0;
		int r, unlocked = -1;

		start_holder(&h, &t);
		/* The holder lets go after 20 ms; the deadline only bounds a hang. */
		dl = far[i] ? (struct timespec){far[i], 999999999}
			    : ns_to_ts(now_ns() + 10000000000ull);
		r = il_spin_mutex_timedlock(&m, &dl);
		if (r == 0) {
			owner = il_spin_mutex_owner(&m);
			unlocked = il_spin_mutex_unlock(&m);
		}
		pthread_join(t, NULL);
		if (r)
			fail_msg("deadline %zu: timedlock: %s", i, strerror(-r));
		assert_int_equal(owner, il_spin_tid());
		assert_int_equal(unlocked, 0);
	}
}

struct greedy {
	struct il_spin_mutex m;
	_Atomic int stop;
	_Atomic int started;
};

/* Re-takes the lock right after releasing it: the classic starver. */
static void *greedy_thread(void *arg)
{
	struct greedy *g = arg;

	while (!g->stop) {
		il_spin_mutex_lock_source(&g->m, IL_SPIN_SOURCE_BPF);
		g->started = 1;
		for (uint64_t t0 = now_ns(); now_ns() - t0 < 20000;)
			;
		il_spin_mutex_unlock(&g->m);
	}
	return NULL;
}

/*
 * Two greedy threads keep the lock busy on both CPUs while the main thread
 * takes it 50 times, told by oncpu whether owners run; every wait must end
 * well within 1 s. must_hand_off: the waits are long enough that some
 * must be handoffs.
 */
static void handoff_bounds_wait(int (*oncpu)(uint32_t, void *), int must_hand_off)
{
	struct greedy g = {.stop = 0};
	uint64_t before = il_spin_handoffs(), worst = 0;
	pthread_t t[2];
	int started = 0, cerr = 0;

	il_spin_test_set_oncpu(oncpu, NULL);
	/* One that cannot start stops the other before the test fails: it uses g. */
	while (started < 2 && !(cerr = pthread_create(&t[started], NULL, greedy_thread, &g)))
		started++;
	if (cerr) {
		g.stop = 1;
		for (int i = 0; i < started; i++)
			pthread_join(t[i], NULL);
		il_spin_test_set_oncpu(NULL, NULL);
		fail_msg("pthread_create of greedy thread %d: %s", started, strerror(cerr));
	}
	while (!g.started)
		usleep(100);
	for (int i = 0; i < 50; i++) {
		uint64_t t0 = now_ns(), w;

		il_spin_mutex_lock_source(&g.m, IL_SPIN_SOURCE_BPF);
		w = now_ns() - t0;
		il_spin_mutex_unlock(&g.m);
		if (w > worst)
			worst = w;
		usleep(200);
	}
	g.stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	il_spin_test_set_oncpu(NULL, NULL);
	print_message("worst wait %.2f ms, handoffs %llu\n", worst / 1e6,
		      (unsigned long long)(il_spin_handoffs() - before));
	assert_true(worst < 1000000000ull);
	if (must_hand_off)
		assert_true(il_spin_handoffs() > before);
	assert_int_equal(g.m.word, 0);
}

/*
 * Owners always off-CPU: the waiter sleeps at once and then keeps losing
 * the race after each wake-up; the handoff gets it in.
 */
static void test_spin_handoff_bounds_wait(void **state)
{
	handoff_bounds_wait(lie_off, 0);
}

/*
 * Owners always on a CPU: the waiters spin past IL_SPIN_FAIR_NS on a
 * 20 us holder and ask for the lock, so some waits are handoffs; they
 * mostly take it spinning for the grant (the unlocker does not wake them),
 * or sleep for it once the budget is spent: both ways must end every wait.
 */
static void test_spin_handoff_to_spinner(void **state)
{
	handoff_bounds_wait(lie_on, 1);
}

static void test_spin_fork_child_tid(void **state)
{
	struct il_spin_mutex m = IL_SPIN_MUTEX_INITIALIZER;
	int st;
	pid_t pid;

	(void)il_spin_tid(); /* cache the parent's TID first */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		il_spin_mutex_lock(&m);
		_exit(il_spin_mutex_owner(&m) == (uint32_t)getpid() && il_spin_mutex_unlock(&m) == 0
			  ? 0
			  : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

struct kind_stress {
	struct il_lock l;
	unsigned long counter;
};

static void *kind_thread(void *arg)
{
	struct kind_stress *k = arg;

	for (int i = 0; i < 20000; i++) {
		il_lock_lock(&k->l);
		k->counter++;
		il_lock_unlock(&k->l);
	}
	return NULL;
}

static void test_spin_lock_kinds(void **state)
{
	static const char *const names[] = {"pthread", "adaptive-np", "tas", "il-none", "il-bpf"};

	assert_int_equal(il_lock_kind_parse("mutex"), -EINVAL);
	assert_int_equal(il_lock_kind_parse(NULL), -EINVAL);
	assert_string_equal(il_lock_kind_name((enum il_lock_kind)42), "?");
	for (int k = 0; k < IL_LOCK_KIND_COUNT; k++) {
		struct kind_stress ks = {.counter = 0};
		pthread_t t[4];
		int started = 0, cerr = 0;

		assert_int_equal(il_lock_kind_parse(names[k]), k);
		assert_string_equal(il_lock_kind_name((enum il_lock_kind)k), names[k]);
		assert_int_equal(il_lock_init(&ks.l, (enum il_lock_kind)k), 0);
		/* Those started use ks until joined, whatever became of the others. */
		while (started < 4 && !(cerr = pthread_create(&t[started], NULL, kind_thread, &ks)))
			started++;
		for (int i = 0; i < started; i++)
			pthread_join(t[i], NULL);
		il_lock_destroy(&ks.l);
		if (cerr)
			fail_msg("%s: pthread_create of thread %d: %s", names[k], started,
				 strerror(cerr));
		assert_int_equal(ks.counter, 4 * 20000);
	}
}

/*
 * What the live checks (the loader's, il_spin's) accept: the flag, or a
 * sequence that moved. On the test VM the kernel reports no switch out of
 * its agent's threads, so the thread switched in after one reads off
 * while it runs (a check once called a live program stale on that).
 */
static void test_spin_record_live(void **state)
{
	const unsigned long long cpu1 = 1ull << IL_ONCPU_CPU_SHIFT;

	(void)state;
	/* Never seen, and still never seen: nothing records. */
	assert_false(il_oncpu_record_live(0, 0));
	/* Off, and nothing moved: a dead program's frozen record. */
	assert_false(
	    il_oncpu_record_live(IL_ONCPU_BLOCKED | cpu1 | 41, IL_ONCPU_BLOCKED | cpu1 | 41));
	/* Seen switching out, its switch in not reported: live. */
	assert_true(il_oncpu_record_live(IL_ONCPU_FLAG | cpu1 | 40, IL_ONCPU_BLOCKED | cpu1 | 41));
	/* First record after attaching. */
	assert_true(il_oncpu_record_live(0, IL_ONCPU_FLAG | 1));
	/* On, with no switch in between. */
	assert_true(il_oncpu_record_live(IL_ONCPU_FLAG | 7, IL_ONCPU_FLAG | 7));
	/* Only the CPU changed: no switch was counted. */
	assert_false(il_oncpu_record_live(cpu1 | 9, 9));
	/* The sequence wrapped at 48 bits. */
	assert_true(il_oncpu_record_live(IL_ONCPU_SEQ_MASK, 0 | cpu1));
}

static void test_spin_source_names(void **state)
{
	assert_int_equal(il_spin_source_parse("none"), IL_SPIN_SOURCE_NONE);
	assert_int_equal(il_spin_source_parse("bpf"), IL_SPIN_SOURCE_BPF);
	assert_int_equal(il_spin_source_parse("auto"), IL_SPIN_SOURCE_AUTO);
	assert_int_equal(il_spin_source_parse("ebpf"), -EINVAL);
	assert_string_equal(il_spin_source_name(IL_SPIN_SOURCE_BPF), "bpf");
	assert_int_equal(il_spin_init((enum il_spin_source)7, NULL), -EINVAL);
	il_spin_budget_set_ns(12345);
	assert_int_equal(il_spin_budget_get_ns(), 12345);
	/* A budget of 2^62 ns is not a short one (x1000 in ps used to wrap to 0). */
	il_spin_budget_set_ns(1000000000);
	uint32_t one_s = il_spin_g.budget_iters;
	il_spin_budget_set_ns(1ull << 62);
	assert_true(il_spin_g.budget_iters >= one_s);
	il_spin_budget_set_ns(0);
	assert_int_equal(il_spin_budget_get_ns(), IL_SPIN_DEFAULT_BUDGET_NS);
	/* Source none knows nothing about owners. */
	assert_int_equal(il_spin_init(IL_SPIN_SOURCE_NONE, NULL), 0);
	assert_int_equal(il_spin_oncpu(il_spin_tid()), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spin_source_names),
	    cmocka_unit_test(test_spin_record_live),
	    cmocka_unit_test(test_spin_trylock_busy_and_eperm),
	    cmocka_unit_test(test_spin_timedlock_times_out),
	    cmocka_unit_test(test_spin_timedlock_times_out_owner_on_cpu),
	    cmocka_unit_test(test_spin_exclusion_timed_waiters),
	    cmocka_unit_test(test_spin_exclusion_withdrawn_requests),
	    cmocka_unit_test(test_spin_withdrawal_no_aba),
	    cmocka_unit_test(test_spin_timedlock_acquires),
	    cmocka_unit_test(test_spin_fork_child_tid),
	    cmocka_unit_test(test_spin_lock_kinds),
	    cmocka_unit_test(test_spin_exclusion_none),
	    cmocka_unit_test(test_spin_exclusion_lying_on),
	    cmocka_unit_test(test_spin_exclusion_lying_off),
	    cmocka_unit_test(test_spin_exclusion_lying_random),
	    cmocka_unit_test(test_spin_handoff_bounds_wait),
	    cmocka_unit_test(test_spin_handoff_to_spinner),
	    cmocka_unit_test(test_spin_exclusion_handoff_races),
	};

	if (il_test_filters("test_spin", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
