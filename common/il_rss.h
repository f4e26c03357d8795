/* Memory figures of the calling process, from /proc/self/status. */
#ifndef IL_RSS_H
#define IL_RSS_H

#include <stdint.h>

/* The KiB of a field of /proc/self/status ("VmHWM", "VmLck"), 0 when unreadable. */
uint64_t il_rss_status_kib(const char *field);

/* VmHWM (peak resident set size) from /proc/self/status in KiB, 0 when unreadable. */
uint64_t il_rss_peak_kib(void);

#endif
