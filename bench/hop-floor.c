/*
 * bench/hop-floor: the physical floor of one hop on this machine. The bare
 * primitives — uv_async_send between two loops, a bare eventfd, a Unix
 * stream socket between processes — and the chain's own (eventfd polled by
 * a uv loop, a frame-sized socket write polled by a uv loop): one-way
 * wake-up latency, for SCHED_OTHER and SCHED_FIFO, pinned same-CPU and
 * cross-CPU, and unpinned.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "il_bench.h"
#include "il_dma_latency.h"
#include "il_floor.h"
#include "il_parse.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: hop-floor [--samples N] [--gap-us US] [--prim NAME]\n"
		   "  --gap-us US    pause between messages, 0..1000000 (default 200)\n"
		   "  --prim NAME    only this primitive (uv_async, eventfd, unix_socket,\n"
		   "                 eventfd+uv_poll, unix_socket+uv)\n"
		   "  --samples N    messages per cell, 10..10000000 (default 5000)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"gap-us", required_argument, NULL, 'g'},
	    {"help", no_argument, NULL, 'h'},
	    {"prim", required_argument, NULL, 'p'},
	    {"samples", required_argument, NULL, 's'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t samples = 5000, gap = 200;
	struct rlimit rl = {.rlim_cur = 2000000, .rlim_max = 3000000};
	int cpus[2], ncpu = il_bench_cpus(cpus, 2);
	int c, only = -1, dma_fd, help = 0;
	char dma_why[200] = "";
	int32_t dma_us;

	il_bench_stdout_checked("hop-floor");
	opterr = 0; /* one line of our own below, not getopt's too */
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (c == 's' && il_parse_u64(optarg, 10, 10000000, &samples) == 0)
			continue;
		if (c == 'g' && il_parse_u64(optarg, 0, 1000000, &gap) == 0)
			continue;
		if (c == 'p') {
			for (int p = 0; p < IL_FLOOR_PRIM_COUNT; p++)
				if (strcmp(optarg, il_floor_prim_name(p)) == 0)
					only = p;
			if (only >= 0)
				continue;
		}
		if (c == 'h') {
			help = 1;
			continue;
		}
		return il_bench_opt_error("hop-floor", c, argv, opts);
	}
	if (il_bench_no_operands("hop-floor", argc, argv))
		return 2;
	if (help) {
		usage(stdout);
		return 0;
	}
	/* Every FIFO thread here blocks once per message; the limit is a backstop. */
	setrlimit(RLIMIT_RTTIME, &rl);
	/* As a run measures: PM QoS held at 0 (il_dma_latency.h). */
	dma_fd = il_dma_latency_hold(&dma_us, dma_why, sizeof(dma_why));
	printf("# hop floor: one-way wake-up latency, %llu samples per cell, %llu us apart; "
	       "cpu_dma_latency ",
	       (unsigned long long)samples, (unsigned long long)gap);
	if (dma_fd >= 0 && dma_us >= 0)
		printf("held: the CPUs kept to %d us\n", (int)dma_us);
	else
		printf("%s\n", dma_why);
	printf("%-15s %-6s %-9s %10s %10s %10s\n", "primitive", "policy", "placement", "p50_us",
	       "p99_us", "max_us");
	for (int p = 0; p < IL_FLOOR_PRIM_COUNT; p++)
		for (int pol = 0; pol < 2 && (only < 0 || only == p); pol++)
			for (int pl = 0; pl < 3; pl++) {
				static const char *const placement[] = {"same-cpu", "cross-cpu",
									"unpinned"};
				struct il_floor_cfg cfg = {
				    .prim = p,
				    .policy = pol ? SCHED_FIFO : SCHED_OTHER,
				    .cpu_a = pl == 2 ? -1 : cpus[0],
				    .cpu_b = pl == 0 ? cpus[0] : (pl == 1 ? cpus[ncpu - 1] : -1),
				    .samples = (unsigned)samples,
				    .gap_us = gap,
				};
				struct il_floor_result r;
				char err[256] = "one CPU allowed: no other CPU to wake";

				/* Not a same-CPU figure under a cross-cpu label. */
				if ((pl == 1 && ncpu < 2) ||
				    il_floor_measure(&cfg, &r, err, sizeof(err)) < 0) {
					printf("%-15s %-6s %-9s  not measured: %s\n",
					       il_floor_prim_name(p), pol ? "fifo" : "other",
					       placement[pl], err);
					continue;
				}
				printf("%-15s %-6s %-9s %10.1f %10.1f %10.1f\n",
				       il_floor_prim_name(p), pol ? "fifo" : "other", placement[pl],
				       r.p50_ns / 1e3, r.p99_ns / 1e3, r.max_ns / 1e3);
				il_bench_stdout_flush();
			}
	return 0;
}
