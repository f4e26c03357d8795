/*
 * Run hygiene as cyclictest does it: every process of a run locks its
 * memory (no page is paged out or faulted in lazily from disk while
 * mouse-downs are measured) and every thread touches the top of its
 * stack before the run starts, so a deep call in a handler never takes a
 * page fault.
 */
#ifndef IL_MEMLOCK_H
#define IL_MEMLOCK_H

#include <stddef.h>
#include <stdint.h>

/* How much of each thread's stack il_memlock_prefault_stack touches. */
#define IL_STACK_PREFAULT_KIB 64

/*
 * mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT): what is resident
 * stays resident, and every page faulted in later is locked too. On
 * fault, not at map time: otherwise each thread's 8 MiB default stack
 * would be populated in full. Kernels without MCL_ONFAULT (before 4.4)
 * get MCL_CURRENT | MCL_FUTURE. Returns 0, or -errno with one line in why
 * (e.g. RLIMIT_MEMLOCK too small without CAP_IPC_LOCK).
 */
int il_memlock_all(char *why, size_t whylen);

/* Touches IL_STACK_PREFAULT_KIB of the calling thread's stack (below
 * the caller's frame), so those pages are present and, after
 * il_memlock_all, locked. */
void il_memlock_prefault_stack(void);

/* VmLck of the calling process from /proc/self/status in KiB (with MCL_ONFAULT
 * the size of the locked mappings, not of the pages present); 0 when unreadable. */
uint64_t il_memlock_locked_kib(void);

#endif
