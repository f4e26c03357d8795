/* What the benchmark programs share. */
#ifndef IL_BENCH_H
#define IL_BENCH_H

#include <stddef.h>

/*
 * The inputlat program of the build tree a benchmark runs from: a bench
 * lives in build/bench/, the orchestrator in build/, so this is
 * <dir of /proc/self/exe>/../inputlat. Fills buf (the path, also when it
 * is missing, for the caller's message) and returns 0 when it is
 * executable, else -errno.
 */
int il_bench_inputlat(char *buf, size_t len);

#endif
