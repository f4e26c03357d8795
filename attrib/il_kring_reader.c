/* The consumer of the per-CPU event rings (see il_kring_reader.h). */
#include "il_kring_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "il_clock.h"

/* bpf_ktime_get_ns (ktime_get_mono_fast_ns) may trail clock_gettime's
 * CLOCK_MONOTONIC by a few ns around a timekeeping update: the watermark
 * stays this far behind the moment a head was read. */
#define CLOCK_SLACK_NS 2000ull
/* After the programs are detached, one may still be finishing a record on
 * another CPU: wait this long at most for it, polling. */
#define FLUSH_WAIT_NS 1000000ull
#define FLUSH_POLL_NS 50000L

struct pending {
	struct il_kev ev;
	uint64_t order; /* the order taken off the rings: ties keep it */
};

struct cpu_state {
	uint64_t last_ts;   /* the last record taken, in slot order */
	uint64_t gap_idx;   /* the incomplete slot seen at the last drain */
	uint64_t gap_since; /* when it was first seen incomplete (0: none) */
};

struct il_kring_reader {
	const struct il_kring_slot *slots;
	uint64_t *pos;
	int ncpus;
	uint32_t cap;
	struct cpu_state *cpu;
	struct pending *pend;
	size_t npend, cappend;
	uint64_t order, done_to, lost;
};

int il_kring_reader_new(const struct il_kring_slot *slots, uint64_t *pos, int ncpus, uint32_t cap,
			struct il_kring_reader **out)
{
	struct il_kring_reader *r;

	if (!slots || !pos || ncpus <= 0 || cap <= IL_KRING_SLACK || (cap & (cap - 1)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->cpu = calloc((size_t)ncpus, sizeof(*r->cpu));
	if (!r->cpu) {
		free(r);
		return -ENOMEM;
	}
	r->slots = slots;
	r->pos = pos;
	r->ncpus = ncpus;
	r->cap = cap;
	*out = r;
	return 0;
}

static int push(struct il_kring_reader *r, const struct il_kev *ev)
{
	if (r->npend == r->cappend) {
		size_t n = r->cappend ? r->cappend * 2 : 4096;
		struct pending *p = realloc(r->pend, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->pend = p;
		r->cappend = n;
	}
	r->pend[r->npend].ev = *ev;
	r->pend[r->npend++].order = r->order++;
	return 0;
}

static void pause_ns(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

/*
 * Takes CPU c's complete records, in slot order, up to its first
 * incomplete slot, and returns the CPU's watermark: every record of this
 * CPU stamped at or before it has now been taken.
 */
static uint64_t take(struct il_kring_reader *r, int c, bool flush, uint64_t *flush_until)
{
	uint64_t *headp = &r->pos[(size_t)c * IL_KRING_POS_STRIDE];
	uint64_t *tailp = headp + IL_KRING_TAIL;
	uint64_t now = il_now_ns();
	/* Read after `now`: a record stamped before now claimed its slot
	 * before now (claim, then stamp), so the head below counts it. */
	uint64_t head = __atomic_load_n(headp, __ATOMIC_ACQUIRE);
	uint64_t i = *tailp, mark = now > CLOCK_SLACK_NS ? now - CLOCK_SLACK_NS : 0;
	struct cpu_state *st = &r->cpu[c];

	/* A head that ran more than a ring ahead is not ours to trust. */
	if (head - i > r->cap)
		head = i + r->cap;
	while (i < head) {
		const struct il_kring_slot *s = &r->slots[(size_t)c * r->cap + (i & (r->cap - 1))];

		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != i + 1) {
			uint64_t t = il_now_ns();

			if (st->gap_since == 0 || st->gap_idx != i) {
				st->gap_idx = i;
				st->gap_since = t;
			}
			/* Once per flush, not per slot: a head run wild must not
			 * make the last drain wait a millisecond a slot. */
			if (flush && *flush_until == 0)
				*flush_until = t + FLUSH_WAIT_NS;
			if (flush && t < *flush_until) {
				pause_ns(FLUSH_POLL_NS);
				continue;
			}
			if (flush || t - st->gap_since >= IL_KRING_STALL_NS) {
				/* Given up: the slot's record is lost, the rest flows. */
				r->lost++;
				st->gap_since = 0;
				i++;
				continue;
			}
			/* The record being written was claimed after the last one
			 * taken here was done: it is stamped later than that. */
			mark = st->last_ts;
			break;
		}
		if (push(r, &s->ev) < 0)
			r->lost++;
		st->last_ts = s->ev.ts_ns;
		st->gap_since = 0;
		i++;
	}
	/* The slots up to i are free for the producer again. */
	__atomic_store_n(tailp, i, __ATOMIC_RELEASE);
	return mark;
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ev.ts_ns != y->ev.ts_ns)
		return x->ev.ts_ns < y->ev.ts_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int il_kring_reader_drain(struct il_kring_reader *r, bool flush, il_kring_cb cb, void *ctx)
{
	uint64_t mark = UINT64_MAX, flush_until = 0;
	size_t n = 0;

	if (!r)
		return 0;
	for (int c = 0; c < r->ncpus; c++) {
		uint64_t m = take(r, c, flush, &flush_until);

		if (m < mark)
			mark = m;
	}
	if (flush)
		mark = UINT64_MAX;
	/* Nothing taken yet, nothing pending: no buffer (qsort and memmove
	 * must not see its NULL). */
	if (r->npend) {
		qsort(r->pend, r->npend, sizeof(r->pend[0]), pending_cmp);
		while (n < r->npend && r->pend[n].ev.ts_ns <= mark)
			cb(ctx, &r->pend[n++].ev);
		memmove(r->pend, r->pend + n, (r->npend - n) * sizeof(r->pend[0]));
		r->npend -= n;
	}
	if (mark > r->done_to)
		r->done_to = mark;
	return (int)n;
}

uint64_t il_kring_reader_done_to(const struct il_kring_reader *r)
{
	return r ? r->done_to : 0;
}

uint64_t il_kring_reader_lost(const struct il_kring_reader *r)
{
	return r ? r->lost : 0;
}

void il_kring_reader_free(struct il_kring_reader *r)
{
	if (!r)
		return;
	free(r->pend);
	free(r->cpu);
	free(r);
}
