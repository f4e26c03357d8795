/*
 * Chooses and reports where owner on-CPU information comes from, and
 * turns the spin budget into loop iterations.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "il_spin_internal.h"

struct il_spin_global il_spin_g;

/*
 * A spinner that has not got the lock after this long asks for a direct
 * handoff (see il_spin.c). With a ~100 ns critical section that is some
 * ten missed release windows: long enough not to tax the common case,
 * short enough to keep two threads on two CPUs near-fair.
 */
#ifndef IL_SPIN_FAIR_NS
#define IL_SPIN_FAIR_NS 2000u
#endif

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * Records taken out of use (il_oncpu_retire), kept reachable here: a lock
 * call in another thread may still read them through the pointer it
 * loaded, so they are never freed. About 100 bytes and an address range
 * without memory per close.
 */
static struct il_oncpu *retired;
static char reason[160] = "source none: il_spin_init() not called";
static pthread_once_t calibrate_once = PTHREAD_ONCE_INIT;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void set_budget_iters(uint64_t ns)
{
	uint64_t ps = atomic_load(&il_spin_g.iter_ps);
	/* A budget past 2^64 ps (213 days) saturates rather than wrapping to a short one. */
	uint64_t it = !ps ? ns / 10 : ns > UINT64_MAX / 1000 ? UINT64_MAX : ns * 1000 / ps;

	if (it > UINT32_MAX)
		it = UINT32_MAX;
	atomic_store(&il_spin_g.budget_ns, ns);
	atomic_store(&il_spin_g.budget_iters, (uint32_t)it);
	it = ps ? (uint64_t)IL_SPIN_FAIR_NS * 1000 / ps : IL_SPIN_FAIR_NS / 10;
	atomic_store(&il_spin_g.fair_iters, it > UINT32_MAX ? UINT32_MAX : (uint32_t)it);
}

/*
 * One spin iteration is a pause plus a relaxed load; its cost varies 20x
 * across x86 generations (pause is ~10 cycles on older cores, ~140 on
 * Skylake), so measure it rather than assume.
 */
static void calibrate(void)
{
	_Atomic uint64_t probe = 0;
	uint64_t t0, t1, sink = 0, best = UINT64_MAX;
	const int n = 2000;

	for (int round = 0; round < 5; round++) {
		t0 = mono_ns();
		for (int i = 0; i < n; i++) {
			sink += atomic_load_explicit(&probe, memory_order_relaxed);
			__builtin_ia32_pause();
		}
		t1 = mono_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	(void)sink;
	atomic_store(&il_spin_g.iter_ps, best * 1000 / n ? best * 1000 / n : 1);
	if (!atomic_load(&il_spin_g.budget_ns))
		set_budget_iters(IL_SPIN_DEFAULT_BUDGET_NS);
	else
		set_budget_iters(atomic_load(&il_spin_g.budget_ns));
}

void il_spin_calibrate(void)
{
	pthread_once(&calibrate_once, calibrate);
}

uint64_t il_spin_budget_get_ns(void)
{
	il_spin_calibrate();
	return atomic_load(&il_spin_g.budget_ns);
}

void il_spin_budget_set_ns(uint64_t ns)
{
	il_spin_calibrate();
	set_budget_iters(ns ? ns : IL_SPIN_DEFAULT_BUDGET_NS);
}

const char *il_spin_source_name(enum il_spin_source s)
{
	switch (s) {
	case IL_SPIN_SOURCE_NONE:
		return "none";
	case IL_SPIN_SOURCE_BPF:
		return "bpf";
	case IL_SPIN_SOURCE_AUTO:
		return "auto";
	}
	return "?";
}

int il_spin_source_parse(const char *s)
{
	if (!s)
		return -EINVAL;
	if (strcmp(s, "none") == 0)
		return IL_SPIN_SOURCE_NONE;
	if (strcmp(s, "bpf") == 0)
		return IL_SPIN_SOURCE_BPF;
	if (strcmp(s, "auto") == 0)
		return IL_SPIN_SOURCE_AUTO;
	return -EINVAL;
}

enum il_spin_source il_spin_source_get(void)
{
	return atomic_load(&il_spin_g.oncpu) ? IL_SPIN_SOURCE_BPF : IL_SPIN_SOURCE_NONE;
}

const char *il_spin_source_reason(void)
{
	return il_spin_source_get() == IL_SPIN_SOURCE_BPF ? "" : reason;
}

int il_spin_oncpu(uint32_t tid)
{
	return il_spin_owner_state(il_spin_source_get(), tid);
}

/* Takes the records in use out of use; the caller holds init_lock. */
static void retire_current(void)
{
	struct il_oncpu *o = atomic_exchange(&il_spin_g.oncpu, NULL);

	if (!o)
		return;
	il_oncpu_retire(o);
	o->next_retired = retired;
	retired = o;
}

/*
 * The records are global PIDs; a thread in a child PID namespace has a
 * different TID, so its lock words would name the wrong threads.
 */
static int in_child_pid_ns(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int nested = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "NSpid:", 6) == 0)
			nested = strchr(line + 7, '\t') != NULL || strchr(line + 7, ' ') != NULL;
	fclose(f);
	return nested;
}

static int open_bpf(const struct il_spin_opts *opts, struct il_oncpu **out)
{
	struct il_oncpu *o = NULL;
	int r;

	if (in_child_pid_ns()) {
		snprintf(reason, sizeof(reason),
			 "source none: in a child PID namespace, BPF TIDs would not match");
		return -EXDEV;
	}
	r = il_oncpu_open_pinned(opts ? opts->pin_dir : NULL, &o);
	if (r < 0 && r != -ENOENT) {
		snprintf(reason, sizeof(reason),
			 "source none: cannot open the pinned map under %s (%s)",
			 opts && opts->pin_dir ? opts->pin_dir : IL_ONCPU_PIN_DIR, strerror(-r));
		return r;
	}
	if (r == -ENOENT && opts && opts->no_load) {
		snprintf(reason, sizeof(reason),
			 "source none: nothing pinned (run ilspin-oncpu as root) and loading is "
			 "disabled");
		return r;
	}
	if (r == -ENOENT)
		r = il_oncpu_load(&o);
	if (r < 0) {
		snprintf(reason, sizeof(reason),
			 "source none: nothing pinned and cannot load the BPF program (%s); run "
			 "ilspin-oncpu as root",
			 strerror(-r));
		return r;
	}
	r = il_oncpu_check_live(o, il_spin_tid());
	if (r < 0) {
		snprintf(reason, sizeof(reason), "source none: BPF records are %s",
			 r == -ERANGE ? "smaller than this TID" : "stale (program not attached?)");
		il_oncpu_free(o);
		return r;
	}
	*out = o;
	return 0;
}

int il_spin_init(enum il_spin_source want, const struct il_spin_opts *opts)
{
	struct il_oncpu *o = NULL;
	int r = 0;

	if (want != IL_SPIN_SOURCE_NONE && want != IL_SPIN_SOURCE_BPF &&
	    want != IL_SPIN_SOURCE_AUTO)
		return -EINVAL;
	il_spin_calibrate();
	if (opts && opts->spin_budget_ns)
		il_spin_budget_set_ns(opts->spin_budget_ns);
	pthread_mutex_lock(&init_lock);
	if (atomic_load(&il_spin_g.oncpu) && want != IL_SPIN_SOURCE_NONE)
		goto out; /* already open: keep it */
	retire_current();
	if (want == IL_SPIN_SOURCE_NONE) {
		snprintf(reason, sizeof(reason), "source none: requested");
		goto out;
	}
	r = open_bpf(opts, &o);
	if (r == 0)
		atomic_store_explicit(&il_spin_g.oncpu, o, memory_order_release);
	else if (want == IL_SPIN_SOURCE_AUTO)
		r = 0;
out:
	pthread_mutex_unlock(&init_lock);
	return r;
}

int il_spin_init_map_fd(int map_fd, const struct il_spin_opts *opts)
{
	struct il_oncpu *o = NULL;
	int r;

	il_spin_calibrate();
	if (opts && opts->spin_budget_ns)
		il_spin_budget_set_ns(opts->spin_budget_ns);
	pthread_mutex_lock(&init_lock);
	retire_current();
	if (in_child_pid_ns()) {
		snprintf(reason, sizeof(reason),
			 "source none: in a child PID namespace, BPF TIDs would not match");
		r = -EXDEV;
		goto out;
	}
	r = il_oncpu_open_fd(map_fd, &o);
	if (r < 0) {
		snprintf(reason, sizeof(reason),
			 "source none: the handed-over map cannot be mapped (%s)", strerror(-r));
		goto out;
	}
	r = il_oncpu_check_live(o, il_spin_tid());
	if (r < 0) {
		snprintf(reason, sizeof(reason), "source none: handed-over BPF records are %s",
			 r == -ERANGE ? "smaller than this TID" : "stale (program not attached?)");
		il_oncpu_free(o);
		goto out;
	}
	atomic_store_explicit(&il_spin_g.oncpu, o, memory_order_release);
out:
	pthread_mutex_unlock(&init_lock);
	return r;
}

int il_spin_map_fd(void)
{
	struct il_oncpu *o = atomic_load(&il_spin_g.oncpu);

	return o ? o->map_fd : -1;
}

const char *il_spin_source_program(void)
{
	struct il_oncpu *o = atomic_load(&il_spin_g.oncpu);

	return o ? il_oncpu_program(o) : "none";
}

/*
 * Safe while other threads are inside lock calls: spinners read the
 * records without a reference count, by design (one load, no system
 * call), so the records are retired, not freed (retire_current).
 */
void il_spin_close(void)
{
	pthread_mutex_lock(&init_lock);
	retire_current();
	snprintf(reason, sizeof(reason), "source none: closed");
	pthread_mutex_unlock(&init_lock);
}

void il_spin_test_set_oncpu(int (*oncpu_cb)(uint32_t tid, void *data), void *data)
{
	atomic_store_explicit(&il_spin_g.test_data, data, memory_order_relaxed);
	atomic_store_explicit(&il_spin_g.test_cb, oncpu_cb, memory_order_release);
}
