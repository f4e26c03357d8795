/*
 * cyclictest's /dev/cpu_dma_latency trick: while the file is held open
 * with 0 written to it, PM QoS keeps every CPU out of deep idle states,
 * whose exit latency would otherwise land in the first wake-up after an
 * idle gap. Closing it (or dying) ends the request. A run holds it; a
 * floor measured beside a run's figures holds it too, so that it is
 * measured under the same request. (On the 2-CPU bhyve VM, whose guest has
 * no polling idle state, holding it changed no floor measurably.)
 */
#ifndef IL_DMA_LATENCY_H
#define IL_DMA_LATENCY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Holds it at 0: returns the fd to keep open, with *value_us the limit the
 * kernel then holds the CPUs to (read back; -1 and why when unreadable),
 * or -1 with why (absent, not permitted, or not PM QoS's device: held
 * is claimed only for a character device 10:MINOR, MINOR being what
 * /proc/misc gives cpu_dma_latency, checked before anything is written).
 */
int il_dma_latency_hold(int32_t *value_us, char *why, size_t n);

#endif
