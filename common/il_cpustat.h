/*
 * Per-CPU time from /proc/stat: two snapshots around a run tell how much
 * of each CPU's time was idle, which is how RT throttling's waste shows.
 */
#ifndef IL_CPUSTAT_H
#define IL_CPUSTAT_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One "cpuN" line of /proc/stat, in USER_HZ ticks (guest time is already
 * inside user and nice, so it is not kept). */
struct il_cpustat_cpu {
	bool present; /* false: no line for this CPU (offline or absent) */
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* A snapshot of every CPU, indexed by CPU number. */
struct il_cpustat;

/*
 * Reads /proc/stat now. On success *out owns a snapshot (free with
 * il_cpustat_free). Returns 0, -ENOMEM, -ENODATA when the read is empty,
 * -EINVAL when the file does not look like /proc/stat (no cpuN line, one
 * that is not N and 7 to 10 counters, two for one CPU, or a NUL byte), -ERANGE when a cpuN
 * line's CPU number (65536 and up) or a counter (2^64 and up, negative)
 * is out of range, or -errno from opening or reading it. A cpuN line that
 * cannot be read makes the whole snapshot unreadable: it is never taken
 * as a value, nor as a CPU without a line.
 */
int il_cpustat_read(struct il_cpustat **out);

/* As il_cpustat_read, from the text of a /proc/stat file (for tests).
 * -ENODATA when the text is empty. */
int il_cpustat_parse(const char *text, struct il_cpustat **out);

/* What an error of il_cpustat_read means, in words: "empty" (an empty
 * read, -ENODATA), "no cpuN line, or one not in /proc/stat's format"
 * (-EINVAL), "a cpuN line's CPU number or counter is out of range"
 * (-ERANGE), else strerror. Returns buf. */
const char *il_cpustat_why(int err, char *buf, size_t len);

/* NULL-safe. */
void il_cpustat_free(struct il_cpustat *s);

/* One more than the highest CPU number with a line. */
unsigned il_cpustat_ncpu(const struct il_cpustat *s);

/* The counters of one CPU; NULL when cpu >= il_cpustat_ncpu(). */
const struct il_cpustat_cpu *il_cpustat_cpu(const struct il_cpustat *s, unsigned cpu);

/* All eight counters of a CPU added up. */
uint64_t il_cpustat_total(const struct il_cpustat_cpu *c);

/*
 * Idle time (idle + iowait: a CPU waiting for I/O runs nothing) between
 * snapshots a and b, as a percentage of the total time of the CPUs in
 * `mask` (NULL: every CPU present in both). CPUs missing from either
 * snapshot are skipped. Returns a value in [0, 100], or -1 when the
 * selected CPUs accumulated no ticks at all (snapshots too close).
 */
double il_cpustat_idle_pct(const struct il_cpustat *a, const struct il_cpustat *b,
			   const cpu_set_t *mask);

/*
 * Steal time between snapshots a and b (time the hypervisor gave this
 * machine's virtual CPUs to someone else), as a percentage of the total
 * time of every CPU present in both. -1 when no ticks accumulated.
 */
double il_cpustat_steal_pct(const struct il_cpustat *a, const struct il_cpustat *b);

/* Whether any CPU of snapshot s has had steal time since boot. */
bool il_cpustat_steal_seen(const struct il_cpustat *s);

#endif
