/* What the benchmark programs share. */
#ifndef IL_BENCH_H
#define IL_BENCH_H

#include <stddef.h>

/*
 * The inputlat program of the build tree a benchmark runs from: a bench
 * lives in build/bench/, the orchestrator in build/, so this is
 * <dir of /proc/self/exe>/../inputlat, into buf. Returns 0 when it is
 * executable; else says so on stderr, as prog ("prog: cannot find ..."),
 * and returns -errno.
 */
int il_bench_inputlat(const char *prog, char *buf, size_t len);

#endif
