/* Peak resident set size of the calling process. */
#ifndef IL_RSS_H
#define IL_RSS_H

#include <stdint.h>

/* VmHWM from /proc/self/status in KiB, 0 when unreadable. */
uint64_t il_rss_peak_kib(void);

#endif
