/* The two things every hop handler does to the message it carries. */
#ifndef IL_HOP_H
#define IL_HOP_H

#include "il_clock.h"
#include "il_msg.h"
#include "il_thread.h"
#include "il_work.h"

/* First thing in the handler of hop k: its stamp and the thread that ran it. */
static inline void il_hop_begin(struct il_msg *m, int k)
{
	m->stamp_ns[k] = il_now_ns();
	m->tid[k] = (uint32_t)il_gettid();
}

/* The handler's CPU work, then the time it finished (before posting on). */
static inline void il_hop_end(struct il_msg *m, int k, uint64_t work_us)
{
	il_work_us(work_us);
	m->end_ns[k] = il_now_ns();
}

#endif
