/* The reader of the capture's per-CPU event rings (attrib/il_kring_reader),
 * over plain memory written the way attrib/il_kring.bpf.h writes it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "il_test.h"

#include "il_kring_reader.h"

#define NCPU 2
#define CAP  64u

struct rings {
	struct il_kring_slot slots[NCPU * CAP];
	uint64_t pos[NCPU * IL_KRING_POS_STRIDE];
	struct il_kring_reader *r;
	uint64_t got[4 * CAP];
	int gotcpu[4 * CAP];
	size_t ngot;
};

/* A producer's claim: the next slot of cpu's ring, stamped ts. */
static uint64_t claim(struct rings *g, int cpu, uint64_t ts)
{
	uint64_t idx = g->pos[cpu * IL_KRING_POS_STRIDE]++;
	struct il_kring_slot *s = &g->slots[cpu * CAP + (idx & (CAP - 1))];

	memset(&s->ev, 0, sizeof(s->ev));
	s->ev.ts_ns = ts;
	s->ev.cpu = (uint16_t)cpu;
	return idx;
}

static void commit(struct rings *g, int cpu, uint64_t idx)
{
	g->slots[cpu * CAP + (idx & (CAP - 1))].seq = idx + 1;
}

static void put(struct rings *g, int cpu, uint64_t ts)
{
	commit(g, cpu, claim(g, cpu, ts));
}

static void got_cb(void *ctx, const struct il_kev *ev)
{
	struct rings *g = ctx;

	assert_true(g->ngot < sizeof(g->got) / sizeof(g->got[0]));
	g->gotcpu[g->ngot] = ev->cpu;
	g->got[g->ngot++] = ev->ts_ns;
}

static int setup(void **state)
{
	struct rings *g = calloc(1, sizeof(*g));

	if (!g || il_kring_reader_new(g->slots, g->pos, NCPU, CAP, &g->r) != 0)
		return -1;
	*state = g;
	return 0;
}

static int teardown(void **state)
{
	struct rings *g = *state;

	il_kring_reader_free(g->r);
	free(g);
	return 0;
}

static void assert_got(struct rings *g, const uint64_t *want, size_t n)
{
	assert_int_equal(g->ngot, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(g->got[i], want[i]);
	g->ngot = 0;
}

static void test_kring_bad_args(void **state)
{
	struct rings *g = *state;
	struct il_kring_reader *r = NULL;

	assert_int_equal(il_kring_reader_new(g->slots, g->pos, NCPU, 48, &r), -EINVAL);
	assert_int_equal(il_kring_reader_new(g->slots, g->pos, 0, CAP, &r), -EINVAL);
	assert_int_equal(il_kring_reader_new(NULL, g->pos, NCPU, CAP, &r), -EINVAL);
	/* No larger than the producer's slack: the ring could never hold one. */
	assert_int_equal(il_kring_reader_new(g->slots, g->pos, NCPU, IL_KRING_SLACK, &r), -EINVAL);
	assert_null(r);
	assert_int_equal(il_kring_reader_drain(NULL, false, got_cb, g), 0);
}

/* Empty rings: nothing handed on, whether or not anything was ever taken. */
static void test_kring_empty(void **state)
{
	struct rings *g = *state;

	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 0);
	assert_int_equal(il_kring_reader_drain(g->r, true, got_cb, g), 0);
	assert_int_equal(il_kring_reader_lost(g->r), 0);
	assert_int_equal(il_kring_reader_done_to(g->r), UINT64_MAX);
}

/* Each CPU's ring is in its own order; the reader hands on one time order. */
static void test_kring_merges_cpus_by_time(void **state)
{
	struct rings *g = *state;
	static const uint64_t want[] = {10, 20, 20, 30, 40, 50};

	put(g, 0, 10);
	put(g, 0, 20);
	put(g, 0, 50);
	put(g, 1, 20);
	put(g, 1, 30);
	put(g, 1, 40);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 6);
	assert_got(g, want, 6);
	/* Equal stamps keep the order they were taken in: CPU 0's first. */
	g->ngot = 0;
	/* The slots are the producer's again. */
	assert_int_equal(g->pos[IL_KRING_TAIL], 3);
	assert_int_equal(g->pos[IL_KRING_POS_STRIDE + IL_KRING_TAIL], 3);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 0);
	assert_int_equal(il_kring_reader_lost(g->r), 0);
}

/*
 * A slot claimed and not yet complete holds back every later record of
 * any CPU that could be stamped after the one being written, and nothing
 * is handed on out of order when it completes.
 */
static void test_kring_incomplete_slot_holds_back(void **state)
{
	struct rings *g = *state;
	static const uint64_t first[] = {100};
	static const uint64_t rest[] = {150, 200, 250, 300, 350};
	uint64_t late;

	put(g, 0, 100);
	late = claim(g, 0, 200); /* being written */
	put(g, 0, 300);		 /* nested inside it (an interrupt), done first */
	put(g, 1, 150);
	put(g, 1, 250);
	put(g, 1, 350);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 1);
	assert_got(g, first, 1);
	assert_int_equal(il_kring_reader_done_to(g->r), 100);
	/* The producer may not reuse the incomplete slot. */
	assert_int_equal(g->pos[IL_KRING_TAIL], 1);
	commit(g, 0, late);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 5);
	assert_got(g, rest, 5);
	assert_true(il_kring_reader_done_to(g->r) > 350);
	assert_int_equal(il_kring_reader_lost(g->r), 0);
}

/* A CPU whose first slot is incomplete holds everything: nothing taken
 * there yet says how early its record may be stamped. */
static void test_kring_first_slot_incomplete(void **state)
{
	struct rings *g = *state;
	uint64_t idx = claim(g, 1, 5);
	static const uint64_t want[] = {5, 7};

	put(g, 0, 7);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 0);
	commit(g, 1, idx);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 2);
	assert_got(g, want, 2);
}

/* A slot that stays incomplete is given up and counted; the rest flows. */
static void test_kring_stalled_slot_given_up(void **state)
{
	struct rings *g = *state;
	struct timespec ts = {0, (long)(IL_KRING_STALL_NS + 5000000ull)};
	static const uint64_t want[] = {1, 3, 4};

	put(g, 0, 1);
	(void)claim(g, 0, 2); /* never completed */
	put(g, 0, 3);
	put(g, 1, 4);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 1);
	assert_got(g, want, 1);
	assert_int_equal(il_kring_reader_lost(g->r), 0);
	nanosleep(&ts, NULL);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 2);
	assert_got(g, want + 1, 2);
	assert_int_equal(il_kring_reader_lost(g->r), 1);
	assert_int_equal(g->pos[IL_KRING_TAIL], 3);
}

/* After the programs are detached (flush), an incomplete slot is waited
 * for briefly and then given up, and everything complete goes. */
static void test_kring_flush(void **state)
{
	struct rings *g = *state;
	static const uint64_t want[] = {1, 3, 4};

	put(g, 0, 1);
	(void)claim(g, 0, 2);
	put(g, 0, 3);
	put(g, 1, 4);
	assert_int_equal(il_kring_reader_drain(g->r, true, got_cb, g), 3);
	assert_got(g, want, 3);
	assert_int_equal(il_kring_reader_lost(g->r), 1);
}

/* Laps: a slot's word from the lap before is not taken for this lap's. */
static void test_kring_laps(void **state)
{
	struct rings *g = *state;
	uint64_t ts = 1, idx;

	for (int lap = 0; lap < 5; lap++) {
		for (unsigned i = 0; i < CAP - IL_KRING_SLACK; i++)
			put(g, lap & 1, ts++);
		assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g),
				 CAP - IL_KRING_SLACK);
		for (size_t i = 1; i < g->ngot; i++)
			assert_true(g->got[i] > g->got[i - 1]);
		g->ngot = 0;
	}
	/* CPU 0 is on its third lap: slot 0 still holds its last lap's record. */
	idx = claim(g, 0, ts);
	assert_true(idx >= CAP);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 0);
	commit(g, 0, idx);
	assert_int_equal(il_kring_reader_drain(g->r, false, got_cb, g), 1);
	assert_int_equal(il_kring_reader_lost(g->r), 0);
}

/* A head that claims more than a ring (corrupt, or a producer gone wrong)
 * is read no further than one ring. */
static void test_kring_head_past_a_ring(void **state)
{
	struct rings *g = *state;

	struct timespec t0, t1;

	put(g, 0, 1);
	g->pos[0] += 10 * CAP;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(il_kring_reader_drain(g->r, true, got_cb, g), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(g->pos[IL_KRING_TAIL] <= CAP + 1);
	/* The slots it gives up are not each waited for. */
	assert_true((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 500000000L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_kring_bad_args, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_empty, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_merges_cpus_by_time, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_incomplete_slot_holds_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_first_slot_incomplete, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_stalled_slot_given_up, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_flush, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_laps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kring_head_past_a_ring, setup, teardown),
	};

	if (il_test_filters("test_kring", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
