/* CLOCK_MONOTONIC nanoseconds, the one time base of the whole project. */
#ifndef IL_CLOCK_H
#define IL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t il_ts_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static inline struct timespec il_ns_to_ts(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
			      .tv_nsec = (long)(ns % 1000000000ull)};
	return ts;
}

/* Current CLOCK_MONOTONIC time in nanoseconds (vDSO, no system call). */
static inline uint64_t il_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return il_ts_to_ns(&ts);
}

/* CPU time consumed by the calling thread, in nanoseconds. */
static inline uint64_t il_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return il_ts_to_ns(&ts);
}

static inline uint64_t il_us_to_ns(uint64_t us)
{
	return us * 1000ull;
}
static inline uint64_t il_ms_to_ns(uint64_t ms)
{
	return ms * 1000000ull;
}
static inline double il_ns_to_us(uint64_t ns)
{
	return (double)ns / 1e3;
}
static inline double il_ns_to_ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

#endif
