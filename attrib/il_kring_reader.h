/*
 * The consumer side of the per-CPU event rings (layout: il_kring.h): takes
 * the complete records off every CPU's ring and hands them on in time
 * order, which one CPU's ring alone does not give across CPUs.
 *
 * A record is handed on only once nothing earlier can still arrive: up to
 * a watermark, per CPU the moment its head was read when every claimed
 * slot was complete, or else the time of the last record before the first
 * incomplete one (the program still writing claimed its slot after that
 * record was done, and stamps its record after claiming). Later records
 * wait in the reader for the next drain. A slot left incomplete for
 * longer than IL_KRING_STALL_NS (a program that can never finish it) is
 * given up and counted lost, so that one CPU cannot hold the rest back.
 *
 * The memory is the caller's (the BPF maps, mmapped; or plain memory in
 * the tests): ncpus * cap slots and ncpus * IL_KRING_POS_STRIDE positions.
 */
#ifndef IL_KRING_READER_H
#define IL_KRING_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "il_kring.h"

/* How long a claimed slot may stay incomplete before it is given up. */
#define IL_KRING_STALL_NS 50000000ull

struct il_kring_reader;

typedef void (*il_kring_cb)(void *ctx, const struct il_kev *ev);

/* A reader of the rings at slots and pos; cap must be a power of two.
 * Returns 0 or -EINVAL / -ENOMEM. */
int il_kring_reader_new(const struct il_kring_slot *slots, uint64_t *pos, int ncpus, uint32_t cap,
			struct il_kring_reader **out);

/*
 * Hands on, in time order, every record up to the watermark. With flush
 * (the producers are gone: the programs are detached), hands on all that
 * is complete and gives up at once on what is not. Returns how many
 * records were handed on.
 */
int il_kring_reader_drain(struct il_kring_reader *r, bool flush, il_kring_cb cb, void *ctx);

/* Every record stamped at or before this time has been handed on. */
uint64_t il_kring_reader_done_to(const struct il_kring_reader *r);

/* Slots given up incomplete, and records the reader had no memory for. */
uint64_t il_kring_reader_lost(const struct il_kring_reader *r);

/* NULL-safe; the rings' memory stays the caller's. */
void il_kring_reader_free(struct il_kring_reader *r);

#endif
