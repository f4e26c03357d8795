/*
 * The BPF on-CPU source: records read back from the map, the publisher's
 * pins, and mutual exclusion with source bpf. Needs root (CAP_BPF,
 * CAP_PERFMON); every case skips with the reason otherwise.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_clock.h"
#include "il_oncpu.h"
#include "il_spin.h"
#include "il_spin_internal.h"
#include "il_test.h"
#include "il_test_proc.h"
#include "il_test_spin.h"

static struct il_oncpu *oncpu;
static int load_err;

static int group_setup(void **state)
{
	load_err = il_oncpu_load(&oncpu);
	return 0;
}

static int group_teardown(void **state)
{
	il_oncpu_free(oncpu);
	il_spin_close();
	return 0;
}

static void need_bpf(void)
{
	IL_TEST_NEED_BPF(oncpu		? 0
			 : load_err < 0 ? load_err
					: -ENOENT,
			 "loading the sched_switch program");
}

static void test_spin_bpf_self_oncpu(void **state)
{
	uint32_t tid = il_spin_tid();
	uint64_t rec;

	need_bpf();
	/*
	 * Switch out and in: the record is fresh. A few tries: a switch in
	 * the kernel never reports (on the test VM, in after its agent's
	 * threads) leaves a running thread reading off until its next one.
	 */
	for (int i = 0; i < IL_ONCPU_LIVE_TRIES && il_oncpu_state(oncpu, tid) != 1; i++)
		usleep(1000);
	rec = il_oncpu_record(oncpu, tid);
	assert_int_equal(il_oncpu_state(oncpu, tid), 1);
	assert_true(((rec >> IL_ONCPU_CPU_SHIFT) & IL_ONCPU_CPU_MASK) <
		    (uint64_t)sysconf(_SC_NPROCESSORS_CONF));
	assert_true((rec & IL_ONCPU_SEQ_MASK) >= 2);
	/* Beyond the map: unknown, not a guess. */
	assert_int_equal(il_oncpu_state(oncpu, oncpu->entries), -1);
}

struct reader {
	int fd;
	_Atomic uint32_t tid;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	char c;

	r->tid = il_spin_tid();
	if (read(r->fd, &c, 1) != 1)
		return (void *)1;
	return NULL;
}

/*
 * 1 when the kernel shows thread tid blocked in read() (its
 * /proc/self/task/TID/syscall starts with read's number): the record's
 * "off" alone may be a preemption on its way there, and under ASan a
 * thread may sleep on the sanitizer's own locks first.
 */
static int in_read(uint32_t tid)
{
	char path[64], buf[64], want[16];

	snprintf(path, sizeof(path), "/proc/self/task/%u/syscall", tid);
	if (il_test_read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	snprintf(want, sizeof(want), "%d ", (int)SYS_read);
	return strncmp(buf, want, strlen(want)) == 0;
}

/* Lets the reader of pipe p go, joins it and closes p: 1 when it went. */
static int release_reader(int p[2], pthread_t t)
{
	int wrote = write(p[1], "x", 1) == 1;

	if (wrote)
		pthread_join(t, NULL);
	close(p[0]);
	close(p[1]);
	return wrote;
}

/*
 * Starts a reader of pipe p (made here) and waits, up to a second, until
 * the kernel shows it blocked in read() and o's record says it left its
 * CPU by blocking. If it never does, the reader is let go and joined
 * before the test fails: it uses r.
 */
static void start_blocked_reader(const struct il_oncpu *o, struct reader *r, int p[2], pthread_t *t)
{
	int blocked = 0;

	assert_int_equal(pipe(p), 0);
	r->fd = p[0];
	r->tid = 0;
	assert_int_equal(pthread_create(t, NULL, reader_thread, r), 0);
	while (!r->tid)
		usleep(100);
	for (int i = 0; i < 1000 && !blocked; i++) {
		usleep(1000);
		blocked = in_read(r->tid) && il_oncpu_blocked(o, r->tid);
	}
	if (!blocked) {
		int kernel = in_read(r->tid), record = il_oncpu_blocked(o, r->tid);

		release_reader(p, *t);
		fail_msg("a reader in read() after 1 s: the kernel says %s, its record %s",
			 kernel ? "yes" : "no", record ? "blocked" : "not blocked");
	}
}

static void test_spin_bpf_blocked_reader_offcpu(void **state)
{
	struct reader r;
	uint64_t seq_blocked, seq_later, seq_after;
	int p[2], wrote;
	pthread_t t;

	need_bpf();
	start_blocked_reader(oncpu, &r, p, &t);
	seq_blocked = il_oncpu_record(oncpu, r.tid) & IL_ONCPU_SEQ_MASK;
	usleep(20000);
	seq_later = il_oncpu_record(oncpu, r.tid) & IL_ONCPU_SEQ_MASK;
	/* Let go and joined before anything is asserted: it uses r. */
	wrote = release_reader(p, t);
	seq_after = il_oncpu_record(oncpu, r.tid) & IL_ONCPU_SEQ_MASK;
	assert_true(wrote);
	/* Still blocked: no switch recorded meanwhile. */
	assert_int_equal(seq_later, seq_blocked);
	assert_true(seq_after > seq_blocked);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* A CFS thread that spins on CPU 0 until told to stop. */
struct busy {
	_Atomic uint32_t tid;
	_Atomic int stop;
};

static void *busy_thread(void *arg)
{
	struct busy *b = arg;

	pin_cpu0();
	b->tid = il_spin_tid();
	while (!b->stop)
		;
	return NULL;
}

/* A SCHED_FIFO thread on CPU 0 that spins 30 ms (under RLIMIT_RTTIME), then ends. */
struct intruder {
	_Atomic int spinning, done;
};

static void *intruder_thread(void *arg)
{
	struct intruder *x = arg;
	struct sched_param sp = {.sched_priority = 10};

	pin_cpu0();
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
		x->done = 1;
		return (void *)1;
	}
	x->spinning = 1;
	for (uint64_t t0 = il_now_ns(); il_now_ns() - t0 < 30000000;)
		;
	x->done = 1;
	return NULL;
}

/*
 * What blocked_or_preempted changes in this process, put back by its
 * teardown, which also runs when an assertion ends the case midway: the
 * cases after it must not run off CPU 0, under its RLIMIT_RTTIME, beside
 * its program.
 */
static struct {
	int saved;
	struct rlimit rt0;
	cpu_set_t all;
	struct il_oncpu *prog;
} bop;

static int bop_save(void **state)
{
	(void)state;
	bop.saved = getrlimit(RLIMIT_RTTIME, &bop.rt0) == 0 &&
		    pthread_getaffinity_np(pthread_self(), sizeof(bop.all), &bop.all) == 0;
	bop.prog = NULL;
	return bop.saved ? 0 : -1;
}

static int bop_restore(void **state)
{
	int ok = 1;

	(void)state;
	il_oncpu_free(bop.prog);
	bop.prog = NULL;
	if (bop.saved) {
		ok &= setrlimit(RLIMIT_RTTIME, &bop.rt0) == 0;
		ok &= pthread_setaffinity_np(pthread_self(), sizeof(bop.all), &bop.all) == 0;
	}
	return ok ? 0 : -1;
}

/*
 * The records say how a thread left its CPU, with each of the three
 * programs: blocked (in read()) sets IL_ONCPU_BLOCKED, preempted (by a
 * FIFO thread on its CPU) does not. The lock shortens its spins only
 * after an owner that blocked.
 */
static void test_spin_bpf_blocked_or_preempted(void **state)
{
	static const enum il_oncpu_prog progs[] = {IL_ONCPU_PROG_BTF, IL_ONCPU_PROG_RAW_TP,
						   IL_ONCPU_PROG_TRACEPOINT};
	static const char *const names[] = {"tp_btf", "raw_tp", "tracepoint"};
	struct rlimit rt;
	cpu_set_t off0;
	int loaded = 0;

	(void)state;
	need_bpf();
	/*
	 * This thread reads the busy thread's record from another CPU than
	 * its CPU 0: woken from its sleeps on CPU 0 (CPU 1 busy beside the
	 * ASan pass), it preempted the busy thread at every reading and
	 * never saw it on its CPU (CI, 2026-12-06).
	 */
	off0 = bop.all; /* bop_restore puts this and RLIMIT_RTTIME back */
	CPU_CLR(0, &off0);
	IL_TEST_NEED(CPU_COUNT(&off0) > 0, "needs a CPU besides CPU 0 to read from");
	assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof(off0), &off0), 0);
	/* 200 ms of RT CPU without blocking, soft only: the hard limit, once
	 * lowered, could not be raised back without CAP_SYS_RESOURCE. */
	rt = bop.rt0;
	rt.rlim_cur = bop.rt0.rlim_max < 200000 ? bop.rt0.rlim_max : 200000;
	assert_int_equal(setrlimit(RLIMIT_RTTIME, &rt), 0);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct reader r;
		struct busy b = {.tid = 0};
		struct intruder x = {0};
		struct il_oncpu *o;
		int p[2], on = 0, preempted = 0, blocked_seen = 0, busy, intruder;
		pthread_t tr, tb, tx;

		if (il_oncpu_load_prog(progs[i], &o) < 0) {
			print_message("%s: not loadable here\n", names[i]);
			continue;
		}
		bop.prog = o; /* the teardown's, should an assertion end the case */
		loaded++;
		/* Blocked in read(): start_blocked_reader saw its record say so. */
		start_blocked_reader(o, &r, p, &tr);
		assert_true(release_reader(p, tr));
		/*
		 * Preempted while it runs. Nothing is asserted until both
		 * threads are joined: they use this frame.
		 */
		busy = pthread_create(&tb, NULL, busy_thread, &b) == 0;
		while (busy && !b.tid)
			usleep(100);
		for (int k = 0; busy && k < 1000 && !on; k++) {
			usleep(1000);
			on = il_oncpu_state(o, b.tid) == 1;
		}
		intruder = on && pthread_create(&tx, NULL, intruder_thread, &x) == 0;
		while (intruder && !x.spinning && !x.done)
			usleep(100);
		while (intruder && !x.done) {
			if (il_oncpu_state(o, b.tid) == 0) {
				preempted++;
				blocked_seen += il_oncpu_blocked(o, b.tid);
			}
			usleep(500);
		}
		if (intruder)
			pthread_join(tx, NULL);
		b.stop = 1;
		if (busy)
			pthread_join(tb, NULL);
		assert_true(busy);
		assert_true(on);
		assert_true(intruder);
		print_message("%s: a reader in read() reads blocked; a preempted spinner read off "
			      "CPU %d times, blocked %d of them\n",
			      names[i], preempted, blocked_seen);
		assert_true(preempted > 0);
		assert_int_equal(blocked_seen, 0);
		il_oncpu_free(o);
		bop.prog = NULL;
	}
	assert_true(loaded > 0);
}

static int app_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static void test_spin_bpf_exclusion(void **state)
{
	libbpf_print_fn_t before;
	int r;

	need_bpf();
	/* A library loads its program without taking libbpf's print function
	 * from the application (il_spin once left its own installed). */
	before = libbpf_set_print(app_print);
	r = il_spin_init(IL_SPIN_SOURCE_BPF, NULL);
	assert_ptr_equal(libbpf_set_print(before), app_print);
	if (r < 0)
		IL_TEST_SKIP("%s", il_spin_source_reason());
	assert_int_equal(il_spin_source_get(), IL_SPIN_SOURCE_BPF);
	assert_int_equal(il_spin_oncpu(il_spin_tid()), 1);
	il_test_spin_stress(IL_TEST_SPIN_PROCESS_WIDE, 8, 200000, 40);
	il_spin_close();
	assert_int_equal(il_spin_source_get(), IL_SPIN_SOURCE_NONE);
}

/* Lockers for test_spin_bpf_close_while_locking: 5 us sections, so waiters spin. */
struct churn {
	struct il_spin_mutex m;
	_Atomic int stop;
	unsigned long counter; /* the lock protects it */
	_Atomic unsigned long ops;
};

static void *churn_locker(void *arg)
{
	struct churn *c = arg;

	while (!c->stop) {
		il_spin_mutex_lock(&c->m);
		c->counter++;
		for (uint64_t t0 = il_now_ns(); il_now_ns() - t0 < 5000;)
			;
		il_spin_mutex_unlock(&c->m);
		c->ops++;
	}
	return NULL;
}

/*
 * il_spin_close() and a new il_spin_init_map_fd() while other threads are
 * inside lock calls: a spinner reads the records through the pointer it
 * loaded a moment before, so the old records must stay readable (they
 * read "off CPU" once retired) instead of being unmapped under it.
 */
static void test_spin_bpf_close_while_locking(void **state)
{
	struct churn c = {.m = IL_SPIN_MUTEX_INITIALIZER};
	pthread_t t[4];
	unsigned long cycles = 0, ops0;
	struct il_oncpu *held;
	int r = 0, started = 0;

	need_bpf();
	/* What a spinner holds across a close, made certain: the pointer it loaded. */
	assert_int_equal(il_spin_init_map_fd(oncpu->map_fd, NULL), 0);
	held = atomic_load(&il_spin_g.oncpu);
	assert_int_equal(il_oncpu_state(held, il_spin_tid()), 1);
	il_spin_close();
	assert_int_equal(il_oncpu_state(held, il_spin_tid()), 0);
	assert_int_equal(il_oncpu_record(held, il_spin_tid()), 0);
	/*
	 * And the race itself, many times over. Nothing is asserted while
	 * the lockers run: a failed assertion leaves the test function, and
	 * they would go on writing to its stack.
	 */
	assert_int_equal(il_spin_init_map_fd(oncpu->map_fd, NULL), 0);
	while (started < 4 && pthread_create(&t[started], NULL, churn_locker, &c) == 0)
		started++;
	for (int ms = 0; started == 4 && c.ops < 1000 && ms < 10000; ms++)
		usleep(1000);
	ops0 = c.ops;
	for (; started == 4 && cycles < 300 && r == 0; cycles++) {
		il_spin_close();
		r = il_spin_init_map_fd(oncpu->map_fd, NULL);
	}
	c.stop = 1;
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(started, 4);
	if (r < 0)
		fail_msg("cycle %lu: il_spin_init_map_fd: %s (%s)", cycles, strerror(-r),
			 il_spin_source_reason());
	print_message("%lu close/open cycles beside %lu lock calls\n", cycles, c.ops - ops0);
	assert_true(ops0 >= 1000);
	assert_int_equal(c.counter, c.ops);
	assert_true(c.ops > ops0);
	assert_int_equal(c.m.word, 0);
	il_spin_close();
}

/* Writes tid's record as a switch out, one more each 100 us, until told to stop. */
struct mover {
	int fd;
	uint32_t tid;
	_Atomic int stop;
	_Atomic unsigned long writes;
};

static void *record_mover(void *arg)
{
	struct mover *m = arg;
	struct sched_param sp = {.sched_priority = 10};

	/*
	 * FIFO, so it writes while the CPUs are busy (the check gives it
	 * 1.6 ms; under stress-ng a CFS writer missed them all). It sleeps
	 * between writes: never an RT busy loop. Without RT, it tries as CFS.
	 */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	for (uint64_t seq = 100; !m->stop; seq++) {
		uint64_t v = IL_ONCPU_BLOCKED | seq;

		m->writes += bpf_map_update_elem(m->fd, &m->tid, &v, 0) == 0;
		usleep(100);
	}
	return NULL;
}

/*
 * A handed-over map no program writes is refused as stale: the check
 * needs this thread's switches seen. One whose record moves is taken,
 * even if it never reads on.
 */
static void test_spin_bpf_live_check(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	uint32_t tid = il_spin_tid();
	uint64_t off = IL_ONCPU_BLOCKED | 41;
	struct mover mover = {0};
	pthread_t th;
	int fd, r;

	need_bpf();
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "il_test_dead", 4, 8, oncpu->entries, &opts);
	assert_true(fd >= 0);
	r = il_spin_init_map_fd(fd, NULL);
	assert_int_equal(r, -ESTALE);
	assert_non_null(strstr(il_spin_source_reason(), "stale"));
	assert_int_equal(il_spin_source_get(), IL_SPIN_SOURCE_NONE);
	/* A frozen record that reads off: still nothing moves. */
	assert_int_equal(bpf_map_update_elem(fd, &tid, &off, 0), 0);
	assert_int_equal(il_spin_init_map_fd(fd, NULL), -ESTALE);
	/*
	 * A record that moves and never reads on, as the VM's kernel leaves
	 * a thread whose switches in go unreported: live. (Not asserted
	 * while the writer runs: it writes to this frame.)
	 */
	mover.fd = fd;
	mover.tid = tid;
	assert_int_equal(pthread_create(&th, NULL, record_mover, &mover), 0);
	/* Once it writes (as FIFO): a new thread starts as CFS, late under load. */
	for (int ms = 0; !mover.writes && ms < 5000; ms++)
		usleep(1000);
	r = il_spin_init_map_fd(fd, NULL);
	mover.stop = 1;
	pthread_join(th, NULL);
	if (r < 0)
		fail_msg("a record that moves: %s (%s), %lu writes", strerror(-r),
			 il_spin_source_reason(), (unsigned long)mover.writes);
	il_spin_close();
	close(fd);
	/* The live map is taken. */
	assert_int_equal(il_spin_init_map_fd(oncpu->map_fd, NULL), 0);
	il_spin_close();
}

/* The first line `ilspin-oncpu --status` prints into line; its exit code, or -1. */
static int status_line(char *line, size_t len)
{
	char cmd[PATH_MAX + 16];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s --status", il_test_build_path("ilspin-oncpu"));
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(line, (int)len, p))
		line[0] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Child of test_spin_bpf_publish: returns the exit code. */
static int publish_child(void)
{
	struct il_spin_opts o = {.no_load = 1};
	LIBBPF_OPTS(bpf_map_create_opts, dead_opts, .map_flags = BPF_F_MMAPABLE);
	char path[256], line[512];
	int dead;
	struct stat st;

	/*
	 * A private mount namespace with its own bpffs: the pins die with it
	 * even if this child crashes, so nothing is ever left pinned.
	 */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") < 0)
		return 77;
	if (il_spin_init(IL_SPIN_SOURCE_BPF, &o) != -ENOENT)
		return 10; /* nothing pinned yet, and loading was forbidden */
	if (il_oncpu_publish(NULL) < 0)
		return 11;
	if (il_oncpu_publish(NULL) != -EEXIST)
		return 12;
	snprintf(path, sizeof(path), "%s/%s", IL_ONCPU_PIN_DIR, IL_ONCPU_PIN_MAP);
	if (stat(path, &st) < 0 || (st.st_mode & 0777) != 0600)
		return 13;
	snprintf(path, sizeof(path), "%s/%s", IL_ONCPU_PIN_DIR, IL_ONCPU_PIN_LINK);
	if (stat(path, &st) < 0 || (st.st_mode & 0777) != 0600)
		return 14;
	if (il_spin_init(IL_SPIN_SOURCE_BPF, &o) != 0 || il_spin_source_get() != IL_SPIN_SOURCE_BPF)
		return 15;
	/* A few tries: a switch in the kernel never reports reads off once. */
	for (int i = 0; i < IL_ONCPU_LIVE_TRIES && il_spin_oncpu(il_spin_tid()) != 1; i++)
		usleep(1000);
	if (il_spin_oncpu(il_spin_tid()) != 1)
		return 16;
	il_spin_close();
	/* What the publisher's --status says of records a program writes. */
	if (status_line(line, sizeof(line)) != 0 || !strstr(line, "switches are recorded (live)") ||
	    strncmp(line, "published: ", 11))
		return 19;
	if (il_oncpu_unpublish(NULL) != 0)
		return 17;
	if (access(path, F_OK) == 0 || il_oncpu_unpublish(NULL) != -ENOENT)
		return 18;
	if (status_line(line, sizeof(line)) != 1 || strncmp(line, "not published (", 15))
		return 20;
	/* A map pinned where the records go that no program writes: stale, exit 1. */
	snprintf(path, sizeof(path), "%s/%s", IL_ONCPU_PIN_DIR, IL_ONCPU_PIN_MAP);
	dead = bpf_map_create(BPF_MAP_TYPE_ARRAY, "il_test_dead", 4, 8, IL_ONCPU_MAX_ENTRIES,
			      &dead_opts);
	if (dead < 0 || (mkdir(IL_ONCPU_PIN_DIR, 0700) < 0 && errno != EEXIST) ||
	    bpf_obj_pin(dead, path) < 0)
		return 21;
	if (status_line(line, sizeof(line)) != 1 || !strstr(line, "not recorded (stale"))
		return 22;
	unlink(path);
	close(dead);
	/* Something else pinned there: said unreadable, not "not published". */
	dead = bpf_map_create(BPF_MAP_TYPE_HASH, "il_test_other", 4, 8, 16, NULL);
	if (dead < 0 || bpf_obj_pin(dead, path) < 0)
		return 23;
	if (status_line(line, sizeof(line)) != 1 || !strstr(line, "unreadable: ") ||
	    !strstr(line, "not an on-CPU records map"))
		return 24;
	unlink(path);
	close(dead);
	return 0;
}

static void test_spin_bpf_publish(void **state)
{
	pid_t pid;
	int st;

	need_bpf();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(publish_child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		IL_TEST_SKIP("cannot create a private mount namespace with bpffs");
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spin_bpf_self_oncpu),
	    cmocka_unit_test(test_spin_bpf_blocked_reader_offcpu),
	    cmocka_unit_test_setup_teardown(test_spin_bpf_blocked_or_preempted, bop_save,
					    bop_restore),
	    cmocka_unit_test(test_spin_bpf_exclusion),
	    cmocka_unit_test(test_spin_bpf_close_while_locking),
	    cmocka_unit_test(test_spin_bpf_live_check),
	    cmocka_unit_test(test_spin_bpf_publish),
	};

	if (il_test_filters("test_spin_bpf", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
