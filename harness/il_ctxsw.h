/*
 * Wake-ups per event: every pipeline thread's context switches (voluntary:
 * it went to sleep and was woken; involuntary: it was preempted), read by
 * the orchestrator from /proc/PID/task/TID/status when measuring starts
 * and when the run stops, so a report can say how many times the chain
 * slept and woke per mouse-down. A hop should cost its receiver one
 * wake-up; more is a defect to find.
 */
#ifndef IL_CTXSW_H
#define IL_CTXSW_H

#include <cjson/cJSON.h>
#include <stdint.h>

struct il_ctxsw;

/* Picks the chain's threads (by name, from il_chain) out of the ready
 * reports, plus the orchestrator's own thread. NULL on OOM. */
struct il_ctxsw *il_ctxsw_new(const cJSON *threads, int self_pid, int self_tid);
void il_ctxsw_free(struct il_ctxsw *c);

/* Reads every thread's counters: at = 0 when measuring starts, 1 at the stop. */
void il_ctxsw_sample(struct il_ctxsw *c, int at);

/*
 * {"chain_per_event": {"voluntary", "involuntary", "hops", "design"},
 * "events", "threads": [{"name", "voluntary", "involuntary",
 * "voluntary_per_event", "handlers_per_event", "design_per_event",
 * "other_wake"}], "seconds"} over `events` events through the
 * chain (every one the counts cover: the warm-up ones too) and `seconds`;
 * counts are null for a thread whose status could not be read ("why" says
 * so).
 */
cJSON *il_ctxsw_json(const struct il_ctxsw *c, uint64_t events, double seconds);

#endif
