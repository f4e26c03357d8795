/*
 * A first-in first-out store of mouse-down records that grows instead of
 * dropping: a power-of-two ring that doubles when full, up to max_cap,
 * and only past that refuses (counted). The hop queue keeps its ring in
 * one (under its lock) and viz-sim its requests waiting for a flip.
 *
 * Why grow: a browser's input path does not drop a click because a
 * thread was late; it delivers it late. A fixed ring of 64 pending flips
 * dropped every event past the 64th inside one 16.7 ms frame, which
 * happens at the allowed --interval-ms 0.1 (37% of 3000 events) and
 * under a stall at 0.3 ms (954 of 100000 beside a disk-heavy job), and
 * the run reported those events as timed out. Memory stays bounded: the
 * ring grows only with the backlog (a record is 380 bytes, so 65536 of
 * them are 25 MB), and untouched it costs its first allocation.
 *
 * Not thread-safe: the owner guards it (the queue's lock, or one thread).
 */
#ifndef IL_MSG_FIFO_H
#define IL_MSG_FIFO_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "il_msg.h"

/* The default bound: 65536 records, 25 MB, far past any timeout's backlog. */
#define IL_MSG_FIFO_MAX 65536u

struct il_msg_fifo {
	struct il_msg *ring;
	uint32_t head, tail; /* free-running; the slot is index & (cap - 1) */
	uint32_t cap, max_cap;
	uint32_t max_depth; /* the most records held at once */
	uint64_t dropped;   /* refused: full at max_cap, or no memory to grow */
};

/*
 * cap (the first ring) and max_cap are rounded up to powers of two,
 * max_cap at least cap and at most 2^31. Returns 0 or -ENOMEM.
 */
int il_msg_fifo_init(struct il_msg_fifo *f, unsigned cap, unsigned max_cap);

static inline uint32_t il_msg_fifo_depth(const struct il_msg_fifo *f)
{
	return f->head - f->tail;
}

/* Appends a copy of m, growing the ring if full. 0, or -ENOBUFS (counted in dropped). */
int il_msg_fifo_push(struct il_msg_fifo *f, const struct il_msg *m);

/* Copies the oldest record out and removes it: false when empty. */
bool il_msg_fifo_pop(struct il_msg_fifo *f, struct il_msg *out);

/*
 * For an owner that must not allocate while holding its lock: the size
 * the next growth wants (0 when the ring is not full or at max_cap), and
 * the step that moves the records into `ring` of `cap` slots (allocated
 * outside the lock). It returns the ring the caller must free: the old
 * one, or `ring` itself if another thread grew the fifo meanwhile.
 */
unsigned il_msg_fifo_wants(const struct il_msg_fifo *f);
struct il_msg *il_msg_fifo_grow_into(struct il_msg_fifo *f, struct il_msg *ring, unsigned cap);

/*
 * What the fifo went through, for a process's stats (once nothing can
 * push): {"capacity", "max_depth", "dropped"} added to `to` as `name`.
 */
void il_msg_fifo_stats_json(const struct il_msg_fifo *f, const char *name, cJSON *to);

/* Releases the ring; a second call does nothing. */
void il_msg_fifo_free(struct il_msg_fifo *f);

#endif
