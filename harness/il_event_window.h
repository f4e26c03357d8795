/*
 * The events of a run that are still in flight, and nothing more: a ring
 * of slots from the oldest event not yet final to the newest injected.
 * An event is final when its record came back (completed, or timed out
 * when presented too late) or when --timeout-ms passed without it; final
 * events leave the window in id order and go to the run's sinks
 * (il_event_sink.h), so the window spans about timeout / interval events
 * whatever the length of the run. It grows (doubling) only when more are
 * in flight than that, e.g. a replayed burst.
 */
#ifndef IL_EVENT_WINDOW_H
#define IL_EVENT_WINDOW_H

#include <stdint.h>

#include "il_event_sink.h"
#include "il_msg.h"

struct il_event_window;

/*
 * A window for ids 1..max_id with room for about `hint` events in flight
 * (rounded up to a power of two), delivering to sinks (not owned).
 * Returns 0 or -ENOMEM.
 */
int il_event_window_new(uint64_t max_id, uint64_t hint, struct il_event_sinks *sinks,
			struct il_event_window **out);
void il_event_window_free(struct il_event_window *w);

/*
 * The record of the next event to inject (id = sent + 1), zeroed except
 * event_id, for the caller to fill stamp 0 into; NULL once max_id events
 * were sent or when growing failed. Nothing counts as sent until
 * il_event_window_commit.
 */
struct il_msg *il_event_window_next(struct il_event_window *w);
void il_event_window_commit(struct il_event_window *w);

/*
 * An event the orchestrator did not inject (a physical mouse: the evdev
 * reader numbers them) announces itself: when id is within 1..max_id and
 * not seen yet, it becomes pending with stamp0 as its stamp 0 (ids skipped
 * on the way stay unsent and expire like pending ones). Returns 1 when
 * the id was opened, 0 otherwise.
 */
int il_event_window_open(struct il_event_window *w, uint64_t id, const struct il_msg *stamp0);

enum il_record_verdict {
	IL_RECORD_COMPLETED, /* presented within the timeout */
	IL_RECORD_TIMED_OUT, /* presented, but later than the timeout */
	IL_RECORD_LATE,	     /* the event was already final (timed out, or a duplicate) */
	IL_RECORD_STRAY,     /* an id never sent */
};

/*
 * A finished record came back from viz-sim: stamps 1..12 are taken from
 * m, stamp 0 stays the injector's. Final events are delivered at once when
 * every older one is final too.
 */
enum il_record_verdict il_event_window_record(struct il_event_window *w, const struct il_msg *m,
					      uint64_t timeout_ns);

/* Times out every pending event injected more than timeout_ns before now_ns;
 * one injected after now_ns (a "now" that is the loop's last read) stays. */
void il_event_window_expire(struct il_event_window *w, uint64_t now_ns, uint64_t timeout_ns);

/* End of the run: delivers every event left, pending or not, in id order. */
void il_event_window_flush(struct il_event_window *w);

uint64_t il_event_window_sent(const struct il_event_window *w);
/* Events neither completed nor timed out yet. */
uint64_t il_event_window_pending(const struct il_event_window *w);
uint64_t il_event_window_completed(const struct il_event_window *w);
uint64_t il_event_window_timed_out(const struct il_event_window *w);

/*
 * Ids 1..n are warm-up events (--warmup): delivered with ev.warmup set,
 * and counted apart: il_event_window_completed and _timed_out count the
 * measured ids only, these two the warm-up ones.
 */
void il_event_window_set_warmup(struct il_event_window *w, uint64_t n);
uint64_t il_event_window_warmup_completed(const struct il_event_window *w);
uint64_t il_event_window_warmup_timed_out(const struct il_event_window *w);
/* Slots allocated now, and the most events ever held at once. */
uint64_t il_event_window_slots(const struct il_event_window *w);
uint64_t il_event_window_max_held(const struct il_event_window *w);

#endif
