/*
 * The in-flight window of a run's events (harness/il_event_window.c) and
 * its sinks: every event reaches the sinks exactly once, in id order,
 * completed, timed out or (at the end) pending; late and stray records
 * are told apart; the window stays small however many events pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <stdlib.h>
#include <string.h>

#include "il_event_sink.h"
#include "il_event_window.h"
#include "il_run_stats.h"

#define MAX_SEEN 4096

struct seen {
	uint64_t id[MAX_SEEN];
	int state[MAX_SEEN];
	uint64_t stamp0[MAX_SEEN];
	size_t n;
	int started, finished, freed;
};

static int seen_event(void *ctx, const struct il_event *ev)
{
	struct seen *s = ctx;

	assert_true(s->n < MAX_SEEN);
	assert_int_equal(ev->msg->event_id, ev->id);
	s->id[s->n] = ev->id;
	s->state[s->n] = ev->state;
	s->stamp0[s->n] = ev->msg->stamp_ns[IL_STAMP_INJECT];
	s->n++;
	return 0;
}

static int seen_finish(void *ctx, const struct il_result *r)
{
	((struct seen *)ctx)->finished++;
	return 0;
}

static void seen_free(void *ctx)
{
	((struct seen *)ctx)->freed++;
}

static struct il_event_sink seen_sink(struct seen *s)
{
	return (struct il_event_sink){.name = "seen",
				      .ctx = s,
				      .event = seen_event,
				      .finish = seen_finish,
				      .free = seen_free};
}

/* Injects the next event at t_ns. */
static uint64_t inject(struct il_event_window *w, uint64_t t_ns)
{
	struct il_msg *m = il_event_window_next(w);

	assert_non_null(m);
	m->stamp_ns[IL_STAMP_INJECT] = t_ns;
	m->end_ns[IL_STAMP_INJECT] = t_ns + 1000;
	m->tid[IL_STAMP_INJECT] = 7;
	il_event_window_commit(w);
	return m->event_id;
}

/* viz-sim's record of event id: stamps every 10 us from t_ns, stamp 0 left out. */
static struct il_msg record(uint64_t id, uint64_t t_ns)
{
	struct il_msg m;

	memset(&m, 0, sizeof(m));
	m.event_id = id;
	for (int k = 1; k < IL_NSTAMPS; k++) {
		m.stamp_ns[k] = t_ns + (uint64_t)k * 10000;
		m.cpu[k] = (uint32_t)(k % 2);
	}
	return m;
}

static void test_event_window_in_order_once(void **state)
{
	struct il_event_sinks sinks;
	struct il_event_window *w;
	struct seen *s = calloc(1, sizeof(*s));
	struct il_event_sink k;
	const uint64_t timeout = 1000000000ull;
	struct il_msg m;

	memset(&sinks, 0, sizeof(sinks));
	k = seen_sink(s);
	assert_int_equal(il_event_sinks_add(&sinks, &k), 0);
	assert_int_equal(il_event_window_new(10, 4, &sinks, &w), 0);
	for (int i = 0; i < 5; i++)
		inject(w, 1000000ull * (uint64_t)(i + 1));
	/* 3 comes back first: nothing leaves until 1 and 2 are final. */
	m = record(3, 3000000);
	assert_int_equal(il_event_window_record(w, &m, timeout), IL_RECORD_COMPLETED);
	assert_int_equal(s->n, 0);
	m = record(1, 1000000);
	assert_int_equal(il_event_window_record(w, &m, timeout), IL_RECORD_COMPLETED);
	assert_int_equal(s->n, 1);
	/* 2 was presented later than the timeout after its injection. */
	m = record(2, 2000000 + timeout);
	assert_int_equal(il_event_window_record(w, &m, timeout), IL_RECORD_TIMED_OUT);
	assert_int_equal(s->n, 3);
	/* A duplicate is late, an id never sent is stray. */
	m = record(2, 2000000);
	assert_int_equal(il_event_window_record(w, &m, timeout), IL_RECORD_LATE);
	m = record(9, 2000000);
	assert_int_equal(il_event_window_record(w, &m, timeout), IL_RECORD_STRAY);
	/* 4 expires; 5 is still in time, and left pending at the end. */
	il_event_window_expire(w, 4000000 + timeout + 1, timeout);
	assert_int_equal(s->n, 4);
	/* Judged as of a time before 5 was injected (the loop's last read): still pending. */
	il_event_window_expire(w, 4500000, timeout);
	assert_int_equal(il_event_window_pending(w), 1);
	m = record(4, 4000000);
	assert_int_equal(il_event_window_record(w, &m, timeout), IL_RECORD_LATE);
	assert_int_equal(il_event_window_pending(w), 1);
	il_event_window_flush(w);
	assert_int_equal(s->n, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(s->id[i], i + 1);
		/* Stamp 0 is always the injector's. */
		assert_int_equal(s->stamp0[i], 1000000ull * (i + 1));
	}
	assert_int_equal(s->state[0], IL_EV_COMPLETED);
	assert_int_equal(s->state[1], IL_EV_TIMED_OUT);
	assert_int_equal(s->state[2], IL_EV_COMPLETED);
	assert_int_equal(s->state[3], IL_EV_TIMED_OUT);
	assert_int_equal(s->state[4], IL_EV_PENDING);
	assert_int_equal(il_event_window_completed(w), 2);
	assert_int_equal(il_event_window_timed_out(w), 2);
	assert_int_equal(il_event_sinks_finish(&sinks, NULL), 0);
	assert_int_equal(s->finished, 1);
	il_event_window_free(w);
	il_event_sinks_free(&sinks);
	assert_int_equal(s->freed, 1);
	free(s);
}

/* A record stamped before its injection (a clock gone back) is no time-out:
 * it completes, and the run's statistics count it out of order. */
static void test_event_window_flip_before_injection(void **state)
{
	struct il_event_sinks sinks;
	struct il_event_window *w;
	struct il_msg m;

	(void)state;
	memset(&sinks, 0, sizeof(sinks));
	assert_int_equal(il_event_window_new(4, 4, &sinks, &w), 0);
	inject(w, 1000000);
	m = record(1, 500000);
	assert_true(m.stamp_ns[IL_STAMP_PRESENTED] < 1000000);
	assert_int_equal(il_event_window_record(w, &m, 1000000000ull), IL_RECORD_COMPLETED);
	assert_int_equal(il_event_window_timed_out(w), 0);
	il_event_window_free(w);
	il_event_sinks_free(&sinks);
}

/* Many events, up to a timeout's worth in flight: the window stays at its hint. */
static void test_event_window_bounded(void **state)
{
	struct il_event_sinks sinks;
	struct il_event_window *w;
	struct il_run_stats *st;
	struct il_event_sink k;
	const uint64_t n = 200000, timeout = 1000000000ull;

	memset(&sinks, 0, sizeof(sinks));
	assert_int_equal(il_run_stats_new(0, &st), 0);
	k = il_run_stats_sink(st);
	assert_int_equal(il_event_sinks_add(&sinks, &k), 0);
	/* As il_run.c sizes it: timeout / interval plus slack. */
	assert_int_equal(il_event_window_new(n, 1100, &sinks, &w), 0);
	for (uint64_t i = 1; i <= n; i++) {
		struct il_msg m;

		inject(w, i * 1000000ull);
		/* Records come back three events behind, every 1000th never. */
		if (i > 3 && (i - 3) % 1000) {
			m = record(i - 3, (i - 3) * 1000000ull);
			assert_int_equal(il_event_window_record(w, &m, timeout),
					 IL_RECORD_COMPLETED);
		}
		il_event_window_expire(w, i * 1000000ull, timeout);
	}
	il_event_window_flush(w);
	assert_int_equal(il_event_window_slots(w), 2048);
	assert_true(il_event_window_max_held(w) <= 1002);
	assert_int_equal(il_event_sinks_finish(&sinks, NULL), 0);
	/* The sample is bounded, a uniform reservoir, in id order. */
	assert_int_equal(st->nsamples, IL_RUN_STATS_MAX_SAMPLES);
	assert_true(st->samples_seen > IL_RUN_STATS_MAX_SAMPLES);
	for (size_t i = 1; i < st->nsamples; i++)
		assert_true(st->sample_id[i - 1] < st->sample_id[i]);
	assert_true(st->sample_id[st->nsamples - 1] > n / 2);
	assert_int_equal(il_hist_count(st->processing), st->samples_seen);
	/* Hop k's sender and receiver: CPUs k-1 and k, alternating here. */
	assert_int_equal(st->same_cpu[3], 0);
	assert_int_equal(st->cross_cpu[3], st->samples_seen);
	il_event_window_free(w);
	il_event_sinks_free(&sinks);
	il_run_stats_free(st);
}

/* More in flight than the hint (a burst): the window grows and keeps order. */
static void test_event_window_grows(void **state)
{
	struct il_event_sinks sinks;
	struct il_event_window *w;
	struct seen *s = calloc(1, sizeof(*s));
	struct il_event_sink k;

	memset(&sinks, 0, sizeof(sinks));
	k = seen_sink(s);
	assert_int_equal(il_event_sinks_add(&sinks, &k), 0);
	assert_int_equal(il_event_window_new(1000, 16, &sinks, &w), 0);
	for (int i = 1; i <= 100; i++)
		inject(w, (uint64_t)i * 1000);
	assert_true(il_event_window_slots(w) >= 100);
	for (int i = 100; i >= 1; i--) {
		struct il_msg m = record((uint64_t)i, (uint64_t)i * 1000);

		assert_int_equal(il_event_window_record(w, &m, 1000000000ull), IL_RECORD_COMPLETED);
	}
	assert_int_equal(s->n, 100);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(s->id[i], i + 1);
	/* An evdev id announces itself; the skipped ones expire as unsent. */
	{
		struct il_msg s0;

		memset(&s0, 0, sizeof(s0));
		s0.stamp_ns[IL_STAMP_INJECT] = 500000;
		assert_int_equal(il_event_window_open(w, 103, &s0), 1);
		assert_int_equal(il_event_window_open(w, 103, &s0), 0);
		assert_int_equal(il_event_window_sent(w), 103);
		il_event_window_expire(w, 500000 + 2000000000ull, 1000000000ull);
		assert_int_equal(s->n, 103);
		assert_int_equal(s->state[100], IL_EV_UNSENT);
		assert_int_equal(s->state[102], IL_EV_TIMED_OUT);
	}
	il_event_window_free(w);
	il_event_sinks_free(&sinks);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_event_window_in_order_once),
	    cmocka_unit_test(test_event_window_flip_before_injection),
	    cmocka_unit_test(test_event_window_bounded),
	    cmocka_unit_test(test_event_window_grows),
	};

	if (il_test_filters("test_event_window", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
