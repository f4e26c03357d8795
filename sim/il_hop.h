/* What every hop handler does to the message it carries, and how a
 * process's last handler sends it on to the next process. */
#ifndef IL_HOP_H
#define IL_HOP_H

#include <stdint.h>
#include <uv.h>

#include "il_clock.h"
#include "il_ctl.h"
#include "il_msg.h"
#include "il_thread.h"
#include "il_work.h"

/*
 * tracefs trace_marker when the run asked for --trace-marker (il_child.c
 * opens it), else -1. Each handler then writes an atrace-style "B|pid|hop
 * k NAME ev=ID" at its stamp and "E|pid" at its end, which trace-cmd,
 * perf and Perfetto show as slices next to the kernel's own events.
 */
extern int il_hop_marker_fd;
void il_hop_mark(const struct il_msg *m, enum il_stamp k, int begin);

/* First thing in the handler of hop k: its stamp, the thread that ran it
 * and the CPU it ran on (sched_getcpu reads it without a system call). */
static inline void il_hop_begin(struct il_msg *m, enum il_stamp k)
{
	m->stamp_ns[k] = il_now_ns();
	m->tid[k] = (uint32_t)il_gettid();
	m->cpu[k] = il_cpu_now();
	if (il_hop_marker_fd >= 0)
		il_hop_mark(m, k, 1);
}

/*
 * The handler's CPU work, then the time it finished (before posting on).
 * The work's own thread CPU time is measured (two clock reads, only when
 * there is work), so a report can say whether "400 us of work" was.
 */
static inline void il_hop_end(struct il_msg *m, enum il_stamp k, uint64_t work_us)
{
	if (work_us) {
		uint64_t t0 = il_thread_cpu_ns(), dt;

		il_work_us(work_us);
		dt = il_thread_cpu_ns() - t0;
		m->work_cpu_ns[k] = dt > UINT32_MAX ? UINT32_MAX : (uint32_t)dt;
	}
	m->end_ns[k] = il_now_ns();
	if (il_hop_marker_fd >= 0)
		il_hop_mark(m, k, 0);
}

/*
 * Sends m on to the next process (stream), counting a failure in *errors
 * (the process's stats `send_errors`, which the report warns of), but not
 * one because the next process is gone or this one was told to stop: at
 * the stop the processes end and close their ends, each on its own
 * message, and a frame still in flight then fails without losing
 * anything the run measured (a process that dies mid-run fails the run,
 * which says so itself).
 */
static inline void il_hop_send(uv_stream_t *stream, const struct il_msg *m, uint64_t *errors)
{
	int rc = il_frame_send_event(stream, m);

	if (rc < 0 && rc != UV_EPIPE && rc != UV_ECONNRESET && rc != UV_EOF && !il_work_stopping())
		(*errors)++;
}

#endif
