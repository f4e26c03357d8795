/*
 * The kernel's pid_max, which sizes the BPF maps indexed by thread id.
 * No libbpf and nothing else of ours: spin/ and attrib/ share it, the way
 * they share il_tracefs.
 */
#ifndef IL_PIDMAX_H
#define IL_PIDMAX_H

#include <stdint.h>

/*
 * /proc/sys/kernel/pid_max (32768, the kernel's default, when it cannot
 * be read), at most cap: the number of thread ids a map indexed by tid
 * needs.
 */
uint32_t il_pidmax_get(uint32_t cap);

#endif
