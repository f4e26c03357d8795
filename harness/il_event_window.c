#include "il_event_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	struct il_msg msg; /* stamp 0 from injection, the rest from viz-sim */
	uint8_t state;	   /* enum il_event_state */
};

struct il_event_window {
	struct slot *ring; /* slot of id i: ring[i & mask] */
	uint64_t mask;
	uint64_t max_id;
	uint64_t base; /* oldest id not yet delivered (1-based) */
	uint64_t sent; /* highest id injected or opened */
	uint64_t pending, completed, timed_out, max_held; /* completed, timed_out: measured ids */
	uint64_t warmup, warmup_completed, warmup_timed_out; /* ids 1..warmup */
	struct il_event_sinks *sinks;
};

static struct slot *slot_of(const struct il_event_window *w, uint64_t id)
{
	return &w->ring[id & w->mask];
}

int il_event_window_new(uint64_t max_id, uint64_t hint, struct il_event_sinks *sinks,
			struct il_event_window **out)
{
	struct il_event_window *w = calloc(1, sizeof(*w));
	uint64_t cap = 16;

	if (!w)
		return -ENOMEM;
	/* No more slots than events: a short run stays small. */
	if (hint > max_id)
		hint = max_id;
	while (cap < hint)
		cap <<= 1;
	w->ring = calloc(cap, sizeof(*w->ring));
	if (!w->ring) {
		free(w);
		return -ENOMEM;
	}
	w->mask = cap - 1;
	w->max_id = max_id;
	w->base = 1;
	w->sinks = sinks;
	*out = w;
	return 0;
}

void il_event_window_free(struct il_event_window *w)
{
	if (!w)
		return;
	free(w->ring);
	free(w);
}

/* Makes room for ids base..id. Returns 0 or -ENOMEM. */
static int reserve(struct il_event_window *w, uint64_t id)
{
	uint64_t cap = w->mask + 1, ncap = cap;
	struct slot *n;

	if (id - w->base < cap)
		return 0;
	while (id - w->base >= ncap)
		ncap <<= 1;
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (uint64_t i = w->base; i <= w->sent; i++)
		n[i & (ncap - 1)] = *slot_of(w, i);
	free(w->ring);
	w->ring = n;
	w->mask = ncap - 1;
	return 0;
}

static void deliver(struct il_event_window *w, struct slot *s, uint64_t id)
{
	struct il_event ev = {.id = id,
			      .state = (enum il_event_state)s->state,
			      .msg = &s->msg,
			      .warmup = id <= w->warmup};

	il_event_sinks_event(w->sinks, &ev);
}

/* Delivers the final events at the front of the window, in id order. */
static void release(struct il_event_window *w)
{
	while (w->base <= w->sent) {
		struct slot *s = slot_of(w, w->base);

		if (s->state != IL_EV_COMPLETED && s->state != IL_EV_TIMED_OUT)
			break;
		deliver(w, s, w->base);
		w->base++;
	}
}

static void note_held(struct il_event_window *w)
{
	uint64_t held = w->sent - w->base + 1;

	if (held > w->max_held)
		w->max_held = held;
}

struct il_msg *il_event_window_next(struct il_event_window *w)
{
	uint64_t id = w->sent + 1;
	struct slot *s;

	if (id > w->max_id || reserve(w, id) < 0)
		return NULL;
	s = slot_of(w, id);
	memset(s, 0, sizeof(*s));
	s->msg.event_id = id;
	return &s->msg;
}

void il_event_window_commit(struct il_event_window *w)
{
	struct slot *s;

	if (w->sent >= w->max_id)
		return;
	w->sent++;
	s = slot_of(w, w->sent);
	s->state = IL_EV_PENDING;
	w->pending++;
	note_held(w);
}

int il_event_window_open(struct il_event_window *w, uint64_t id, const struct il_msg *stamp0)
{
	struct slot *s;

	if (id < 1 || id > w->max_id || id < w->base)
		return 0;
	if (id > w->sent) {
		if (reserve(w, id) < 0)
			return 0;
		/* Ids skipped on the way: unsent, expiring with this one's clock. */
		while (w->sent < id) {
			s = slot_of(w, ++w->sent);
			memset(s, 0, sizeof(*s));
			s->msg.event_id = w->sent;
			s->msg.stamp_ns[IL_STAMP_INJECT] = stamp0->stamp_ns[IL_STAMP_INJECT];
			s->state = IL_EV_UNSENT;
		}
		note_held(w);
	}
	s = slot_of(w, id);
	if (s->state != IL_EV_UNSENT)
		return 0;
	s->msg = *stamp0;
	s->msg.event_id = id;
	s->state = IL_EV_PENDING;
	w->pending++;
	return 1;
}

enum il_record_verdict il_event_window_record(struct il_event_window *w, const struct il_msg *m,
					      uint64_t timeout_ns)
{
	uint64_t id = m->event_id;
	struct slot *s;
	struct il_msg keep;

	if (id < 1 || id > w->sent)
		return IL_RECORD_STRAY;
	if (id < w->base)
		return IL_RECORD_LATE;
	s = slot_of(w, id);
	if (s->state != IL_EV_PENDING)
		return s->state == IL_EV_UNSENT ? IL_RECORD_STRAY : IL_RECORD_LATE;
	/* Stamp 0 is the injector's own; viz-sim's copy never had it. */
	keep = s->msg;
	s->msg = *m;
	s->msg.stamp_ns[IL_STAMP_INJECT] = keep.stamp_ns[IL_STAMP_INJECT];
	s->msg.end_ns[IL_STAMP_INJECT] = keep.end_ns[IL_STAMP_INJECT];
	s->msg.tid[IL_STAMP_INJECT] = keep.tid[IL_STAMP_INJECT];
	s->msg.cpu[IL_STAMP_INJECT] = keep.cpu[IL_STAMP_INJECT];
	s->msg.work_cpu_ns[IL_STAMP_INJECT] = keep.work_cpu_ns[IL_STAMP_INJECT];
	w->pending--;
	/* A flip stamped before the injection is no time-out: the run's
	 * statistics count it as out of order. */
	if (m->stamp_ns[IL_STAMP_PRESENTED] > keep.stamp_ns[IL_STAMP_INJECT] &&
	    m->stamp_ns[IL_STAMP_PRESENTED] - keep.stamp_ns[IL_STAMP_INJECT] > timeout_ns) {
		s->state = IL_EV_TIMED_OUT;
		(*(id <= w->warmup ? &w->warmup_timed_out : &w->timed_out))++;
	} else {
		s->state = IL_EV_COMPLETED;
		(*(id <= w->warmup ? &w->warmup_completed : &w->completed))++;
	}
	release(w);
	return s->state == IL_EV_COMPLETED ? IL_RECORD_COMPLETED : IL_RECORD_TIMED_OUT;
}

void il_event_window_expire(struct il_event_window *w, uint64_t now_ns, uint64_t timeout_ns)
{
	/* Stamps 0 rise with the id, so the first event still in time ends the walk. */
	for (uint64_t id = w->base; id <= w->sent; id++) {
		struct slot *s = slot_of(w, id);

		if (s->state == IL_EV_COMPLETED || s->state == IL_EV_TIMED_OUT)
			continue;
		/* Injected after now_ns (the caller's "now" may be the last read). */
		if (s->msg.stamp_ns[IL_STAMP_INJECT] >= now_ns ||
		    now_ns - s->msg.stamp_ns[IL_STAMP_INJECT] <= timeout_ns)
			break;
		if (s->state == IL_EV_PENDING) {
			s->state = IL_EV_TIMED_OUT;
			w->pending--;
			(*(id <= w->warmup ? &w->warmup_timed_out : &w->timed_out))++;
		} else if (id == w->base) {
			/* An evdev id that never came: it leaves as unsent. */
			deliver(w, s, id);
			w->base++;
		}
		release(w);
	}
	release(w);
}

void il_event_window_flush(struct il_event_window *w)
{
	for (; w->base <= w->sent; w->base++)
		deliver(w, slot_of(w, w->base), w->base);
}

uint64_t il_event_window_sent(const struct il_event_window *w)
{
	return w->sent;
}

uint64_t il_event_window_pending(const struct il_event_window *w)
{
	return w->pending;
}

uint64_t il_event_window_completed(const struct il_event_window *w)
{
	return w->completed;
}

uint64_t il_event_window_timed_out(const struct il_event_window *w)
{
	return w->timed_out;
}

void il_event_window_set_warmup(struct il_event_window *w, uint64_t n)
{
	w->warmup = n;
}

uint64_t il_event_window_warmup_completed(const struct il_event_window *w)
{
	return w->warmup_completed;
}

uint64_t il_event_window_warmup_timed_out(const struct il_event_window *w)
{
	return w->warmup_timed_out;
}

uint64_t il_event_window_slots(const struct il_event_window *w)
{
	return w->mask + 1;
}

uint64_t il_event_window_max_held(const struct il_event_window *w)
{
	return w->max_held;
}
