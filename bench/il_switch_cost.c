/* What a sched_switch program costs a context switch; the futex round trip (il_switch_cost.h). */
#include "il_switch_cost.h"

#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "il_bench.h"
#include "il_bpf_attach.h"
#include "il_clock.h"
#include "il_stats.h"
#include "il_tracefs.h"
#include "switch-floor.skel.h"

/*
 * Closes every descriptor from 3 up but a and b (both 3 or more: pipe()
 * returns the lowest free ones, and 0-2 are open).
 */
static void close_all_but(int a, int b)
{
	unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a);

	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0u, 0);
}

/* Nanoseconds per context switch of a pipe ping-pong between two
 * processes on one CPU; NAN when it could not run to the end. */
static double pingpong_ns_per_switch(int rounds, int cpu)
{
	int ab[2], ba[2], st;
	cpu_set_t was;
	char b = 0;
	uint64_t t0, t1;
	pid_t pid, parent = getpid();
	int done = 0;

	if (pthread_getaffinity_np(pthread_self(), sizeof(was), &was) != 0 || pipe(ab) < 0)
		return NAN;
	if (pipe(ba) < 0) {
		close(ab[0]);
		close(ab[1]);
		return NAN;
	}
	pid = fork();
	if (pid < 0) {
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
		return NAN;
	}
	if (pid == 0) {
		/*
		 * Ends with lock-bench, however it ends (a test's timeout kills
		 * it): dies with it, and holds no write end of its own input,
		 * so a read sees end of file. Nor does it keep the BPF links
		 * it was forked with: a child left behind kept a sched_switch
		 * program attached for as long as it lived.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		close_all_but(ab[0], ba[1]);
		il_bench_pin(cpu);
		for (int i = 0; i < rounds; i++)
			if (read(ab[0], &b, 1) != 1 || write(ba[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	il_bench_pin(cpu);
	t0 = il_now_ns();
	for (; done < rounds; done++)
		if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
			break;
	t1 = il_now_ns();
	close(ab[1]); /* a child still reading sees end of file and ends */
	close(ba[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	/* Each round trip is two context switches, each running the program once. */
	return done == rounds ? (double)(t1 - t0) / rounds / 2 : NAN;
}

/*
 * An empty program at the hook of il_spin's variant prog (never AUTO):
 * loaded and attached, or NULL.
 */
static struct switch_floor_bpf *floor_attach(enum il_oncpu_prog prog)
{
	static const char *const ev[] = {"sched/sched_switch"};
	struct switch_floor_bpf *s = switch_floor_bpf__open();
	struct bpf_program *want;
	int id;

	if (!s)
		return NULL;
	want = prog == IL_ONCPU_PROG_BTF      ? s->progs.floor_switch_btf
	       : prog == IL_ONCPU_PROG_RAW_TP ? s->progs.floor_switch_raw
					      : s->progs.floor_switch_tp;
	bpf_program__set_autoload(s->progs.floor_switch_btf, want == s->progs.floor_switch_btf);
	bpf_program__set_autoload(s->progs.floor_switch_raw, want == s->progs.floor_switch_raw);
	bpf_program__set_autoload(s->progs.floor_switch_tp, want == s->progs.floor_switch_tp);
	if (switch_floor_bpf__load(s) < 0)
		goto fail;
	if (want == s->progs.floor_switch_tp) {
		/* Through a perf event, as il_oncpu attaches it (no tracefs needed). */
		if (il_tracefs_event_ids(ev, 1, &id) < 0)
			goto fail;
		s->links.floor_switch_tp = il_bpf_attach_tracepoint(want, id);
	} else if (want == s->progs.floor_switch_btf) {
		s->links.floor_switch_btf = bpf_program__attach(want);
	} else {
		s->links.floor_switch_raw = bpf_program__attach(want);
	}
	if (s->links.floor_switch_btf || s->links.floor_switch_raw || s->links.floor_switch_tp)
		return s;
fail:
	switch_floor_bpf__destroy(s);
	return NULL;
}

/* Round trips per ping-pong: many short rounds beat a few long ones here. */
#define SWITCH_PINGS 5000

const char *il_switch_ns_or_why(char buf[48], double ns)
{
	if (isnan(ns))
		return "not measured (not loadable here)";
	snprintf(buf, 48, "%+.0f ns", ns);
	return buf;
}

const char *il_switch_cost_verdict(const struct il_switch_cost *sc)
{
	if (sc->cost_hi_ns <= IL_SWITCH_TARGET_NS)
		return "met";
	if (sc->cost_lo_ns > IL_SWITCH_TARGET_NS)
		return "not met";
	return "inconclusive (the interval straddles it)";
}

/* The median of v[n] and its 95% interval (il_stats), NAN when there is none. */
static double median_of(const double *v, size_t n, double *lo, double *hi)
{
	double m = NAN, cov;

	*lo = *hi = NAN;
	if (il_stats_median_ci(v, n, IL_STATS_ALPHA, &m, lo, hi, &cov) < 0)
		return NAN;
	return m;
}

/* Measures into on[], fl[], own[] (rounds each); the caller frees them. */
static void measure_rounds(struct il_switch_cost *sc, enum il_oncpu_prog prog,
			   enum il_oncpu_prog hook, int cpu, double *on, double *fl, double *own)
{
	size_t nfl = 0;
	struct il_oncpu *o;

	for (int i = 0; i < sc->rounds; i++) {
		double v[3] = {NAN, NAN, NAN};

		for (int k = 0; k < 3; k++) {
			int which = (i + k) % 3;
			struct switch_floor_bpf *f = NULL;

			o = NULL;
			if (which == 1 && il_oncpu_load_prog(prog, &o) < 0) {
				sc->why = "cannot load the BPF program";
				return;
			}
			if (which == 2 && !(f = floor_attach(hook)))
				continue;
			v[which] = pingpong_ns_per_switch(SWITCH_PINGS, cpu);
			il_oncpu_free(o);
			switch_floor_bpf__destroy(f);
		}
		/* A figure is a measurement or nothing: the cost stays NAN. */
		if (isnan(v[0]) || isnan(v[1])) {
			sc->why = "the pipe ping-pong between two processes failed";
			return;
		}
		if (v[0] < sc->base_ns)
			sc->base_ns = v[0];
		on[i] = v[1] - v[0];
		if (!isnan(v[2])) {
			own[nfl] = v[1] - v[2];
			fl[nfl++] = v[2] - v[0];
		}
	}
	sc->cost_ns = median_of(on, (size_t)sc->rounds, &sc->cost_lo_ns, &sc->cost_hi_ns);
	/* An empty program that attached in some rounds only gives no floor. */
	if (nfl == (size_t)sc->rounds) {
		sc->floor_ns = median_of(fl, nfl, &sc->floor_lo_ns, &sc->floor_hi_ns);
		sc->own_ns = median_of(own, nfl, &sc->own_lo_ns, &sc->own_hi_ns);
	}
}

struct il_switch_cost il_switch_cost_measure(enum il_oncpu_prog prog, int cpu, int rounds)
{
	struct il_switch_cost sc = {.cost_ns = NAN,
				    .cost_lo_ns = NAN,
				    .cost_hi_ns = NAN,
				    .floor_ns = NAN,
				    .floor_lo_ns = NAN,
				    .floor_hi_ns = NAN,
				    .base_ns = INFINITY,
				    .own_ns = NAN,
				    .own_lo_ns = NAN,
				    .own_hi_ns = NAN,
				    .program = "?",
				    .rounds = rounds,
				    .why = ""};
	enum il_oncpu_prog hook = prog;
	double *on, *fl, *own;
	struct il_oncpu *o;

	if (rounds < IL_SWITCH_ROUNDS_MIN || rounds > IL_SWITCH_ROUNDS_MAX) {
		sc.why = "rounds out of range";
		return sc;
	}
	if (il_oncpu_open_pinned(NULL, &o) == 0) {
		il_oncpu_free(o);
		sc.why = "a pinned copy (ilspin-oncpu) is attached: no baseline";
		return sc;
	}
	/* The hook il_spin's loader takes (AUTO: the first that works here). */
	if (il_oncpu_load_prog(prog, &o) < 0) {
		sc.why = "cannot load the BPF program";
		return sc;
	}
	sc.program = il_oncpu_program(o);
	il_oncpu_free(o);
	if (hook == IL_ONCPU_PROG_AUTO)
		hook = !strcmp(sc.program, "raw_tp")	   ? IL_ONCPU_PROG_RAW_TP
		       : !strcmp(sc.program, "tracepoint") ? IL_ONCPU_PROG_TRACEPOINT
							   : IL_ONCPU_PROG_BTF;
	on = calloc((size_t)rounds, sizeof(*on));
	fl = calloc((size_t)rounds, sizeof(*fl));
	own = calloc((size_t)rounds, sizeof(*own));
	if (on && fl && own)
		measure_rounds(&sc, prog, hook, cpu, on, fl, own);
	else
		sc.why = "out of memory";
	free(on);
	free(fl);
	free(own);
	return sc;
}

struct futex_pp {
	_Atomic uint32_t turn;
	int rounds, cpu;
};

static void *futex_pp_peer(void *arg)
{
	struct futex_pp *p = arg;

	il_bench_pin(p->cpu);
	for (int i = 0; i < p->rounds; i++) {
		while (atomic_load(&p->turn) != 1)
			syscall(SYS_futex, &p->turn, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		atomic_store(&p->turn, 0);
		syscall(SYS_futex, &p->turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

double il_futex_wake_rtt_ns(int peer_cpu)
{
	struct futex_pp p = {.turn = 0, .rounds = 5000, .cpu = peer_cpu};
	uint64_t t0, t1;
	pthread_t t;

	/* No peer, no round trip: unmeasured (NAN), never a wait for ever. */
	if (pthread_create(&t, NULL, futex_pp_peer, &p) != 0)
		return NAN;
	t0 = il_now_ns();
	for (int i = 0; i < p.rounds; i++) {
		atomic_store(&p.turn, 1);
		syscall(SYS_futex, &p.turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		while (atomic_load(&p.turn) != 0)
			syscall(SYS_futex, &p.turn, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
	}
	t1 = il_now_ns();
	pthread_join(t, NULL);
	return (double)(t1 - t0) / p.rounds;
}
