/*
 * Why the kernel refuses a scheduling class, said from what the kernel
 * itself checks (kernel/sched/syscalls.c, __sched_setscheduler), never
 * guessed from the user id:
 *   - privilege: fifo/rr need CAP_SYS_NICE or RLIMIT_RTPRIO >= priority,
 *     deadline needs CAP_SYS_NICE, a negative nice CAP_SYS_NICE or
 *     RLIMIT_NICE >= 20 - nice. Root without CAP_SYS_NICE (a container,
 *     a dropped capability) is refused like anyone.
 *   - refusals privilege does not lift: fifo/rr in a cgroup-v1 cpu group
 *     without RT runtime while RT bandwidth is enforced (RT_GROUP_SCHED),
 *     deadline with an affinity narrower than its root domain, deadline
 *     with no bandwidth at all (sched_rt_runtime_us = 0).
 */
#ifndef IL_SCHED_REFUSAL_H
#define IL_SCHED_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>

#include "il_policy.h"

/*
 * Whether this process's privilege allows *a (class, priority, nice):
 * true, or false with one phrase in why ("fifo priority 52 needs
 * CAP_SYS_NICE or RLIMIT_RTPRIO >= 52 (RLIMIT_RTPRIO is 0; euid 0 but
 * CAP_SYS_NICE is not effective)"). Privilege only: a run may still be
 * refused for the reasons il_sched_refusal_explain names then.
 */
bool il_sched_refusal_privileged(const struct il_role_attrs *a, char *why, size_t len);

/*
 * Whether SCHED_DEADLINE cannot be had here whatever the privilege (this
 * process's affinity narrower than its root domain, no deadline
 * bandwidth): true with one phrase in why. For a run to refuse a deadline
 * policy before any child starts.
 */
bool il_sched_refusal_deadline_blocked(char *why, size_t len);

/*
 * One line for sched_setattr's error e on *a, for il_sched_apply_self's
 * callers: what was refused and what would make it work.
 */
void il_sched_refusal_explain(int e, const struct il_role_attrs *a, char *err, size_t len);

#endif
