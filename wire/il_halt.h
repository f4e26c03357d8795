/*
 * The halt word: one 64-bit word in a shared memory file, written by the
 * orchestrator at the run's stop and read by the busy members (load and
 * hog threads) of the children, so that they end without the child's own
 * control thread having to run first.
 *
 * Why: 1024 busy nice-0 threads on 2 CPUs make every wake-up of another
 * nice-0 thread wait about 0.8 s (EEVDF runs every eligible thread with an
 * earlier deadline first), and a stop passed on by messages takes several
 * such wake-ups in each process: 3 to 7 s here, past the stop's bound under
 * a sanitizer. The members are running anyway; they read the word between
 * chunks of work, so the load is gone after one pass of the CPUs, and the
 * messages that follow are answered at once.
 *
 * The word holds 0 while the run goes on, then the CLOCK_MONOTONIC time of
 * the stop in ns: the members' stats count up to that moment.
 */
#ifndef IL_HALT_H
#define IL_HALT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct il_halt {
	_Atomic uint64_t *word; /* the mapping; NULL when there is none */
	int fd;			/* the shared memory file, -1 once handed over */
};

/* A struct il_halt with nothing in it: what il_halt_free accepts before
 * create or map (a zeroed one would name fd 0). */
#define IL_HALT_NONE ((struct il_halt){.word = NULL, .fd = -1})

/* The orchestrator's side: a new word, 0. Returns 0 or -errno, with one
 * phrase in err. */
int il_halt_create(struct il_halt *h, char *err, size_t errlen);

/* Sets the word to now_ns (1 when now_ns is 0): every member reading it ends. */
void il_halt_set(struct il_halt *h, uint64_t now_ns);

/*
 * A child's side: maps the word of fd, received from the orchestrator,
 * read-only, and closes fd. Returns 0 or -errno, with one phrase in err
 * (a file that is not one word's size is refused).
 */
int il_halt_map(struct il_halt *h, int fd, char *err, size_t errlen);

/* The stop time written, 0 while the run goes on (or with no word). */
static inline uint64_t il_halt_read(const _Atomic uint64_t *word)
{
	return word ? atomic_load_explicit(word, memory_order_relaxed) : 0;
}

/* Unmaps and closes what is left; h may be IL_HALT_NONE or already freed. */
void il_halt_free(struct il_halt *h);

#endif
