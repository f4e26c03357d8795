/*
 * The thread records a child reports ready with ({"pid", "tid", "name",
 * "role", "sched": {"policy", "priority", "nice", "cpus", "slice_ns",
 * "dl_*_ns"}}), checked once as they arrive.
 */
#ifndef IL_THREAD_RECORD_H
#define IL_THREAD_RECORD_H

#include <cjson/cJSON.h>

/* Past these a record's numbers are refused: priorities and nice values
 * are small, a time in ns fits an int64. */
#define IL_THREAD_RECORD_PRIO_MAX 1000
#define IL_THREAD_RECORD_NS_MAX	  9.2e18

/*
 * What is wrong with a thread record a child reported ready with, or NULL.
 * Everything after casts its numbers to integers (the recheck, the
 * sampler, the context switch counts, the outputs): a pid or tid that is
 * not one, or a figure past its type, is refused here, once, rather than
 * cast (undefined) in each of them. The children are ours; this holds
 * against a bug in one, as the frame decoder does against a torn frame.
 */
const char *il_thread_record_bad(const cJSON *t);

#endif
