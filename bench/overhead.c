/*
 * bench/overhead: the harness's own cost per hop against the floor of the
 * primitive that hop really uses, measured in the same run, interleaved
 * (floors, harness, floors, harness, ...) so machine drift affects both
 * alike.
 *
 * Which hop is of which type comes from the chain's table (il_chain): an
 * in-process hop is a queue push plus an eventfd write that the
 * receiver's uv loop polls (floor: eventfd + uv_poll between two loops); a
 * cross-process hop is a framed write on a Unix stream socket that the
 * receiving process's loop polls (floor: a frame-sized write on a Unix
 * socket polled by a uv loop in another process). Each floor is measured
 * with sender and receiver on the same CPU and on two CPUs (and, under
 * SCHED_FIFO, with the receiver above the sender, which preempts it at the
 * wake-up on a shared CPU). The harness runs with `--work none`, so a hop
 * is queueing plus wake-up only, and its report says per hop how often
 * sender and receiver ran on the same CPU (hops[].same_cpu_fraction) and
 * the threads' priorities, and its p50 on each placement
 * (hops[].same_cpu_p50_us, cross_cpu_p50_us): each hop is compared with
 * the floor of each placement, and its ratio weighs the two by how often
 * the chain had each.
 *
 * Per policy (cfs, rt) and hop type it prints the harness p50 and the
 * matching floor p50 (placement-weighted, median over the type's hops),
 * the ratio, the placement used, the same-CPU and cross-CPU ratios, p99s,
 * and the chain's context switches per event.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_bench.h"
#include "il_dma_latency.h"
#include "il_chain.h"
#include "il_file.h"
#include "il_floor.h"
#include "il_header.h"
#include "il_hist.h"
#include "il_parse.h"

#define MAX_ROUNDS	      20
#define OVERHEAD_FILE_VERSION 2

enum { HT_IN, HT_CROSS, HT_COUNT };
static const enum il_hop_kind hop_type_kind[HT_COUNT] = {IL_HOP_IN_PROCESS, IL_HOP_CROSS_PROCESS};
static const char *const hop_type_names[HT_COUNT] = {"in-process", "cross-process"};
static const enum il_floor_prim hop_type_prim[HT_COUNT] = {IL_FLOOR_EVENTFD_UV_POLL,
							   IL_FLOOR_UNIX_SOCKET_UV};
static const char *const policies[] = {"cfs", "rt"};
#define NPOL 2

/* Floor placements: same CPU (receiver not above the sender), same CPU with
 * the receiver above the sender (FIFO only), two CPUs. */
enum { FL_SAME, FL_SAME_HIGHER, FL_CROSS, FL_COUNT };
static const char *const floor_names[FL_COUNT] = {"same_cpu", "same_cpu_receiver_higher",
						  "cross_cpu"};

struct hop_acc {
	double p50[MAX_ROUNDS], p99[MAX_ROUNDS], same[MAX_ROUNDS];
	/* The hop's p50 when sender and receiver shared a CPU, and when not. */
	double same_p50[MAX_ROUNDS], cross_p50[MAX_ROUNDS];
	int n, nsame, ncross;
	bool receiver_higher;
};

struct pol_acc {
	struct il_hist *floor[HT_COUNT][FL_COUNT];
	struct hop_acc hop[IL_NSTAMPS];
	double vol[MAX_ROUNDS], invol[MAX_ROUNDS], fixed_ms[MAX_ROUNDS], first_ms[MAX_ROUNDS];
	int nruns;
	bool skipped;
	char why[256];
	cJSON *threads_ctxsw; /* the last run's per-thread counts */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *in, int n)
{
	double v[MAX_ROUNDS * IL_NSTAMPS];

	if (n <= 0)
		return NAN;
	memcpy(v, in, sizeof(double) * (size_t)n);
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double mean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : NAN;
}

/*
 * The p-th percentile (us) of the mixture f * A + (1 - f) * B of two
 * histograms with the same bucket layout: the first bucket where the
 * weighted cumulative share reaches p.
 */
static double mixture_pct_us(const struct il_hist *a, const struct il_hist *b, double f, double p)
{
	double na = (double)il_hist_count(a), nb = (double)il_hist_count(b), acc = 0;

	if (na == 0)
		f = 0;
	if (nb == 0)
		f = 1;
	if (na == 0 && nb == 0)
		return NAN;
	for (size_t i = 0; i < il_hist_nbuckets(); i++) {
		if (na > 0)
			acc += f * (double)il_hist_bucket_count(a, i) / na;
		if (nb > 0)
			acc += (1 - f) * (double)il_hist_bucket_count(b, i) / nb;
		if (acc >= p / 100 - 1e-12)
			return (double)(il_hist_bucket_lower(i) + il_hist_bucket_upper(i)) / 2 /
			       1e3;
	}
	return NAN;
}

static double json_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The read-back priority of a thread by name in the run's threads[] (0: not RT). */
static double thread_prio(const cJSON *threads, const char *name)
{
	const cJSON *t;

	cJSON_ArrayForEach (t, threads) {
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"));

		if (n && strcmp(n, name) == 0)
			return json_num(t, "priority");
	}
	return NAN;
}

/* Runs the harness once and adds what its report says to a. */
static int run_harness(const char *inputlat, const char *policy, unsigned events,
		       const char *interval, const char *json, struct pol_acc *a, cJSON **rss_out)
{
	char ev[32], err[256];
	pid_t pid, got;
	int status, r = a->nruns;
	cJSON *root, *hops, *h, *cs;

	snprintf(ev, sizeof(ev), "%u", events);
	pid = fork();
	if (pid == 0) {
		/* The summary line is not ours to print. */
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(inputlat, inputlat, "run", "--work", "none", "--policy", policy, "--events",
		      ev, "--interval-ms", interval, "--quiet", "--json", json, (char *)NULL);
		_exit(127);
	}
	il_bench_child(pid);
	got = pid < 0 ? -1 : waitpid(pid, &status, 0);
	il_bench_child(0);
	if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	if (il_json_load(json, &root, err, sizeof(err)) < 0)
		return -1;
	hops = cJSON_GetObjectItemCaseSensitive(root, "hops");
	cJSON_ArrayForEach (h, hops) {
		int k = (int)json_num(h, "index");
		struct hop_acc *ha;

		if (k < 1 || k > IL_NHOPS)
			continue;
		ha = &a->hop[k];
		ha->p50[ha->n] = json_num(h, "p50_us");
		ha->p99[ha->n] = json_num(h, "p99_us");
		ha->same[ha->n] = json_num(h, "same_cpu_fraction");
		ha->n++;
		if (!isnan(json_num(h, "same_cpu_p50_us")))
			ha->same_p50[ha->nsame++] = json_num(h, "same_cpu_p50_us");
		if (!isnan(json_num(h, "cross_cpu_p50_us")))
			ha->cross_p50[ha->ncross++] = json_num(h, "cross_cpu_p50_us");
		ha->receiver_higher =
		    thread_prio(cJSON_GetObjectItemCaseSensitive(root, "threads"),
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "to"))) >
		    thread_prio(cJSON_GetObjectItemCaseSensitive(root, "threads"),
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(h, "from")));
	}
	cs = cJSON_GetObjectItemCaseSensitive(root, "context_switches");
	a->vol[r] = json_num(cJSON_GetObjectItemCaseSensitive(cs, "chain_per_event"), "voluntary");
	a->invol[r] =
	    json_num(cJSON_GetObjectItemCaseSensitive(cs, "chain_per_event"), "involuntary");
	cJSON_Delete(a->threads_ctxsw);
	a->threads_ctxsw = cJSON_DetachItemFromObjectCaseSensitive(cs, "threads");
	a->fixed_ms[r] = json_num(root, "fixed_cost_ms");
	a->first_ms[r] =
	    json_num(cJSON_GetObjectItemCaseSensitive(root, "startup_ms"), "to_first_event");
	a->nruns++;
	if (rss_out) {
		cJSON_Delete(*rss_out);
		*rss_out = cJSON_DetachItemFromObjectCaseSensitive(root, "rss_kib");
	}
	cJSON_Delete(root);
	return 0;
}

/*
 * One round of floors for policy p: every hop type and placement. The
 * floor's messages are as far apart as the harness's events: how long a
 * thread and its CPU slept before a hop changes what the hop costs (an
 * idle vCPU wakes slowly; on this VM a same-CPU eventfd hop takes ~4 us
 * 200 us after the last one and ~15 us 5 ms after it), so the floor sleeps
 * as the chain's threads do.
 */
static int measure_floors(struct pol_acc *a, int p, unsigned samples, uint64_t gap_us,
			  const int *cpus, int ncpu)
{
	for (int t = 0; t < HT_COUNT; t++)
		for (int fl = 0; fl < FL_COUNT; fl++) {
			struct il_floor_cfg cfg = {
			    .prim = hop_type_prim[t],
			    .policy = p ? SCHED_FIFO : SCHED_OTHER,
			    .cpu_a = cpus[0],
			    .cpu_b = fl == FL_CROSS ? cpus[1] : cpus[0],
			    .prio_delta = fl == FL_SAME_HIGHER ? 2 : 0,
			    .samples = samples,
			    .gap_us = gap_us,
			};

			/* Under CFS every pipeline thread is nice 0: no "higher".
			 * With one CPU allowed no hop crosses CPUs, and a
			 * "cross" floor would be a same-CPU one: left empty. */
			if ((fl == FL_SAME_HIGHER && !p) || (fl == FL_CROSS && ncpu < 2))
				continue;
			if (il_floor_measure_into(&cfg, a->floor[t][fl], a->why, sizeof(a->why)) <
			    0)
				return -1;
		}
	return 0;
}

struct type_row {
	double harness_p50, floor_p50, ratio;			     /* placement-weighted */
	double harness_same, floor_same, harness_cross, floor_cross; /* per placement */
	double harness_p99, floor_p99, mix_floor_p50, harness_all_p50;
	double same_fraction;
	int nhops, nhigher;
};

/* f * a + (1 - f) * b, with a side that never happened left out. */
static double weigh(double f, double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return f * a + (1 - f) * b;
}

/*
 * Aggregates policy p, hop type t; adds per-hop detail to hops_json. A
 * same-CPU hop and a cross-CPU hop are different primitives (the second
 * wakes another CPU), so each is compared with its own floor, and the
 * hop's ratio weighs the two by how often the chain had each placement.
 * (The p50 of the whole hop is also given against the p50 of the mixed
 * floors, but a mixture of two modes has a fragile median.)
 */
static struct type_row type_row(const struct pol_acc *a, int t, bool fifo, cJSON *hops_json)
{
	double hw[IL_NSTAMPS], fw[IL_NSTAMPS], hs[IL_NSTAMPS], fs[IL_NSTAMPS], hc[IL_NSTAMPS],
	    fc[IL_NSTAMPS], h99[IL_NSTAMPS], f99[IL_NSTAMPS], same[IL_NSTAMPS], fmix[IL_NSTAMPS],
	    hall[IL_NSTAMPS];
	int ns = 0, nc = 0;
	struct type_row row = {0};
	int n = 0;

	for (int k = 1; k <= IL_NHOPS; k++) {
		const struct hop_acc *ha = &a->hop[k];
		const struct il_hist *same_h, *cross_h = a->floor[t][FL_CROSS];
		double h_same, h_cross, f_same, f_cross;
		cJSON *o;

		if (il_chain_hop(k)->kind != hop_type_kind[t] || !ha->n)
			continue;
		same_h = a->floor[t][fifo && ha->receiver_higher ? FL_SAME_HIGHER : FL_SAME];
		same[n] = mean(ha->same, ha->n);
		h_same = median(ha->same_p50, ha->nsame);
		h_cross = median(ha->cross_p50, ha->ncross);
		f_same = il_hist_percentile(same_h, 50) / 1e3;
		f_cross = il_hist_count(cross_h) ? il_hist_percentile(cross_h, 50) / 1e3 : NAN;
		hw[n] = weigh(same[n], h_same, h_cross);
		fw[n] =
		    weigh(same[n], isnan(h_same) ? NAN : f_same, isnan(h_cross) ? NAN : f_cross);
		if (!isnan(h_same))
			hs[ns] = h_same, fs[ns++] = f_same;
		if (!isnan(h_cross))
			hc[nc] = h_cross, fc[nc++] = f_cross;
		hall[n] = median(ha->p50, ha->n);
		h99[n] = median(ha->p99, ha->n);
		fmix[n] = mixture_pct_us(same_h, cross_h, same[n], 50);
		f99[n] = mixture_pct_us(same_h, cross_h, same[n], 99);
		row.nhigher += fifo && ha->receiver_higher;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "index", k);
		cJSON_AddStringToObject(o, "name", il_chain_hop(k)->name);
		cJSON_AddNumberToObject(o, "same_cpu_fraction", same[n]);
		cJSON_AddBoolToObject(o, "receiver_higher_priority", fifo && ha->receiver_higher);
		cJSON_AddNumberToObject(o, "harness_p50_us", hw[n]);
		cJSON_AddNumberToObject(o, "floor_p50_us", fw[n]);
		cJSON_AddNumberToObject(o, "ratio", hw[n] / fw[n]);
		cJSON_AddNumberToObject(o, "harness_same_cpu_p50_us", h_same);
		cJSON_AddNumberToObject(o, "floor_same_cpu_p50_us", f_same);
		cJSON_AddNumberToObject(o, "harness_cross_cpu_p50_us", h_cross);
		cJSON_AddNumberToObject(o, "floor_cross_cpu_p50_us", f_cross);
		cJSON_AddNumberToObject(o, "harness_all_p50_us", hall[n]);
		cJSON_AddNumberToObject(o, "floor_mixture_p50_us", fmix[n]);
		cJSON_AddItemToArray(hops_json, o);
		n++;
	}
	row.nhops = n;
	/* The typical hop of the type: medians across its hops. */
	row.harness_p50 = median(hw, n);
	row.floor_p50 = median(fw, n);
	row.ratio = row.harness_p50 / row.floor_p50;
	row.harness_same = median(hs, ns);
	row.floor_same = median(fs, ns);
	row.harness_cross = median(hc, nc);
	row.floor_cross = median(fc, nc);
	row.harness_p99 = median(h99, n);
	row.floor_p99 = median(f99, n);
	row.mix_floor_p50 = median(fmix, n);
	row.harness_all_p50 = median(hall, n);
	row.same_fraction = mean(same, n);
	return row;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: overhead [OPTION]...\n"
	    "  --events N        harness events per run, 10..1000000 (default 1000)\n"
	    "  --interval-ms MS  harness event spacing, and the floor's, 0.1..1000 (default 2)\n"
	    "  --json FILE       results as JSON\n"
	    "  --quick           3 rounds, 500 floor samples, 400 events\n"
	    "  --rounds N        interleaved rounds, 1..%d (default 5)\n"
	    "  --samples N       floor samples per placement and round, 10..1000000 (default\n"
	    "                    1000)\n",
	    MAX_ROUNDS);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"events", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},
	    {"interval-ms", required_argument, NULL, 'i'},
	    {"json", required_argument, NULL, 'j'},
	    {"quick", no_argument, NULL, 'q'},
	    {"rounds", required_argument, NULL, 'r'},
	    {"samples", required_argument, NULL, 's'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t rounds = 5, samples = 1000, events = 1000;
	const char *json_path = NULL, *interval = "2";
	static struct pol_acc acc[NPOL];
	struct rlimit rl = {.rlim_cur = 2000000, .rlim_max = 3000000};
	char inputlat[4200], tmpdir[] = "/tmp/il-overhead.XXXXXX", tmpjson[4200];
	struct timespec start_wall;
	int cpus[2] = {0, 0}, ncpu = il_bench_cpus(cpus, 2), c, rc = 0, help = 0;
	double interval_ms = 2;
	char dma_why[200] = "";
	int32_t dma_us = -1;
	int dma_fd = -1;
	cJSON *rss = NULL, *root, *results, *cs;
	char *cmdline;

	il_bench_stdout_checked("overhead");
	opterr = 0; /* one line of our own below, not getopt's too */
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'e':
			bad = il_parse_u64(optarg, 10, 1000000, &events) < 0;
			break;
		case 'i':
			interval = optarg;
			bad = il_parse_double(optarg, 0.1, 1000, &interval_ms) < 0;
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			rounds = 3, samples = 500, events = 400;
			break;
		case 'r':
			bad = il_parse_u64(optarg, 1, MAX_ROUNDS, &rounds) < 0;
			break;
		case 's':
			bad = il_parse_u64(optarg, 10, 1000000, &samples) < 0;
			break;
		case 'h':
			help = 1;
			break;
		default:
			bad = 1;
		}
		if (bad || c == ':' || c == '?')
			return il_bench_opt_error("overhead", c, argv, opts);
	}
	if (il_bench_no_operands("overhead", argc, argv))
		return 2;
	if (help) {
		usage(stdout);
		return 0;
	}
	if (il_bench_out_check("overhead", json_path) < 0)
		return 2;
	clock_gettime(CLOCK_REALTIME, &start_wall);
	cmdline = il_cmdline_join("overhead", argc - 1, argv + 1);
	if (il_bench_inputlat("overhead", inputlat, sizeof(inputlat)) < 0)
		return 1;
	/* A stop signal ends the run under way and removes the directory. */
	if (il_bench_tmp_dir("overhead", tmpdir) < 0)
		return 1;
	snprintf(tmpjson, sizeof(tmpjson), "%s/run.json", tmpdir);
	il_bench_tmp_file(tmpjson);
	/* Every FIFO thread here blocks once per message; the limit is a backstop. */
	setrlimit(RLIMIT_RTTIME, &rl);
	/* The floors under the runs' PM QoS request: each run holds it at 0. */
	dma_fd = il_dma_latency_hold(&dma_us, dma_why, sizeof(dma_why));
	for (int p = 0; p < NPOL; p++)
		for (int t = 0; t < HT_COUNT; t++)
			for (int fl = 0; fl < FL_COUNT; fl++)
				if (il_hist_new(&acc[p].floor[t][fl]) < 0) {
					il_bench_tmp_done();
					return 1;
				}

	for (unsigned r = 0; r < rounds; r++) {
		for (int p = 0; p < NPOL; p++) {
			struct pol_acc *a = &acc[p];

			if (a->skipped)
				continue;
			if (measure_floors(a, p, (unsigned)samples, (uint64_t)(interval_ms * 1000),
					   cpus, ncpu) < 0) {
				fprintf(stderr, "overhead: %s; skipping %s\n", a->why, policies[p]);
				a->skipped = true;
				continue;
			}
			if (run_harness(inputlat, policies[p], (unsigned)events, interval, tmpjson,
					a, p == 0 ? &rss : NULL) < 0) {
				fprintf(stderr, "overhead: inputlat run --policy %s failed\n",
					policies[p]);
				continue;
			}
			fprintf(stderr, "overhead: round %u/%llu %s done\n", r + 1,
				(unsigned long long)rounds, policies[p]);
		}
	}

	root = il_header_new(OVERHEAD_FILE_VERSION, cmdline, &start_wall);
	cJSON_AddNumberToObject(root, "rounds", (double)rounds);
	cJSON_AddNumberToObject(root, "floor_samples_per_round", (double)samples);
	cJSON_AddNumberToObject(root, "harness_events_per_run", (double)events);
	cJSON_AddNumberToObject(root, "harness_interval_ms", interval_ms);
	cJSON_AddNumberToObject(root, "floor_gap_us", interval_ms * 1000);
	{
		cJSON *d = cJSON_AddObjectToObject(root, "floor_cpu_dma_latency");

		cJSON_AddBoolToObject(d, "held", dma_fd >= 0);
		if (dma_us >= 0)
			cJSON_AddNumberToObject(d, "value_us", dma_us);
		else
			cJSON_AddNullToObject(d, "value_us");
		if (dma_fd >= 0 && dma_us >= 0)
			cJSON_AddNullToObject(d, "why");
		else
			cJSON_AddStringToObject(d, "why", dma_why);
	}
	results = cJSON_AddArrayToObject(root, "ratios");
	cs = cJSON_AddObjectToObject(root, "context_switches");
	printf("# harness per-hop p50 vs the floor of the same primitive, placed as the chain's "
	       "threads"
	       " were; medians of %llu interleaved rounds\n",
	       (unsigned long long)rounds);
	if (dma_fd >= 0 && dma_us >= 0)
		printf("# floors under cpu_dma_latency as the runs: the CPUs kept to %d us\n",
		       (int)dma_us);
	else
		printf("# floors without cpu_dma_latency (%s), which the runs hold\n", dma_why);
	printf("%-14s %-4s %4s %8s %7s %7s %6s | %6s %6s %6s | %6s %6s %6s | %7s %7s\n", "hop_type",
	       "pol", "hops", "harness", "floor", "ratio", "same", "h_same", "f_same", "ratio",
	       "h_xcpu", "f_xcpu", "ratio", "h_p99", "f_p99");
	for (int p = 0; p < NPOL; p++) {
		struct pol_acc *a = &acc[p];
		cJSON *pc;

		if (a->skipped || !a->nruns) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "policy", policies[p]);
			cJSON_AddStringToObject(o, "skipped",
						a->skipped ? a->why : "every harness run failed");
			/* The table says so too: a missing row is not a measurement. */
			printf("# %s: not measured: %s\n", policies[p],
			       a->skipped ? a->why : "every harness run failed");
			cJSON_AddItemToArray(results, o);
			rc = 1;
			continue;
		}
		for (int t = 0; t < HT_COUNT; t++) {
			cJSON *o = cJSON_CreateObject(), *hops = cJSON_CreateArray(), *pl;
			struct type_row row = type_row(a, t, p == 1, hops);

			printf("%-14s %-4s %4d %8.1f %7.1f %7.2f %6.2f | %6.1f %6.1f %6.2f | %6.1f "
			       "%6.1f "
			       "%6.2f | %7.1f %7.1f\n",
			       hop_type_names[t], policies[p], row.nhops, row.harness_p50,
			       row.floor_p50, row.ratio, row.same_fraction, row.harness_same,
			       row.floor_same, row.harness_same / row.floor_same, row.harness_cross,
			       row.floor_cross, row.harness_cross / row.floor_cross,
			       row.harness_p99, row.floor_p99);
			cJSON_AddStringToObject(o, "policy", policies[p]);
			cJSON_AddStringToObject(o, "hop_type", hop_type_names[t]);
			cJSON_AddStringToObject(o, "floor_primitive",
						il_floor_prim_name(hop_type_prim[t]));
			cJSON_AddNumberToObject(o, "harness_p50_us", row.harness_p50);
			cJSON_AddNumberToObject(o, "floor_p50_us", row.floor_p50);
			cJSON_AddNumberToObject(o, "ratio", row.ratio);
			pl = cJSON_AddObjectToObject(o, "placement");
			cJSON_AddNumberToObject(pl, "same_cpu_fraction", row.same_fraction);
			cJSON_AddNumberToObject(pl, "hops_receiver_higher_priority", row.nhigher);
			cJSON_AddNumberToObject(pl, "harness_same_cpu_p50_us", row.harness_same);
			cJSON_AddNumberToObject(pl, "floor_same_cpu_p50_us", row.floor_same);
			cJSON_AddNumberToObject(pl, "same_cpu_ratio",
						row.harness_same / row.floor_same);
			cJSON_AddNumberToObject(pl, "harness_cross_cpu_p50_us", row.harness_cross);
			cJSON_AddNumberToObject(pl, "floor_cross_cpu_p50_us", row.floor_cross);
			cJSON_AddNumberToObject(pl, "cross_cpu_ratio",
						row.harness_cross / row.floor_cross);
			cJSON_AddNumberToObject(o, "harness_all_p50_us", row.harness_all_p50);
			cJSON_AddNumberToObject(o, "floor_mixture_p50_us", row.mix_floor_p50);
			cJSON_AddNumberToObject(o, "mixture_ratio",
						row.harness_all_p50 / row.mix_floor_p50);
			cJSON_AddNumberToObject(o, "harness_p99_us", row.harness_p99);
			cJSON_AddNumberToObject(o, "floor_p99_us", row.floor_p99);
			cJSON_AddNumberToObject(o, "p99_ratio", row.harness_p99 / row.floor_p99);
			for (int fl = 0; fl < FL_COUNT; fl++)
				if (il_hist_count(a->floor[t][fl])) {
					char key[64];

					snprintf(key, sizeof(key), "floor_%s_p50_us",
						 floor_names[fl]);
					cJSON_AddNumberToObject(
					    pl, key, il_hist_percentile(a->floor[t][fl], 50) / 1e3);
				}
			cJSON_AddItemToObject(o, "hops", hops);
			cJSON_AddItemToArray(results, o);
		}
		pc = cJSON_AddObjectToObject(cs, policies[p]);
		cJSON_AddNumberToObject(pc, "chain_voluntary_per_event", median(a->vol, a->nruns));
		cJSON_AddNumberToObject(pc, "chain_involuntary_per_event",
					median(a->invol, a->nruns));
		cJSON_AddNumberToObject(pc, "hops_per_event", IL_NHOPS);
		if (a->threads_ctxsw)
			cJSON_AddItemToObject(pc, "threads_last_run", a->threads_ctxsw);
		a->threads_ctxsw = NULL;
		cJSON_AddNumberToObject(pc, "startup_to_first_event_ms",
					median(a->first_ms, a->nruns));
		cJSON_AddNumberToObject(pc, "fixed_cost_ms", median(a->fixed_ms, a->nruns));
		printf("# %s: chain context switches per event: %.2f voluntary, %.2f involuntary "
		       "(%d hops);"
		       " start-up to first event %.1f ms, fixed cost %.1f ms per run\n",
		       policies[p], median(a->vol, a->nruns), median(a->invol, a->nruns), IL_NHOPS,
		       median(a->first_ms, a->nruns), median(a->fixed_ms, a->nruns));
	}
	if (rss) {
		cJSON *e;

		printf("# peak RSS (KiB):");
		cJSON_ArrayForEach (e, rss)
			printf(" %s %.0f", e->string, e->valuedouble);
		printf("\n");
		cJSON_AddItemToObject(root, "rss_kib", rss);
	}
	if (json_path && il_json_write(json_path, root) < 0) {
		fprintf(stderr, "overhead: cannot write %s: %s\n", json_path, strerror(errno));
		rc = 1;
	}
	cJSON_Delete(root);
	for (int p = 0; p < NPOL; p++)
		for (int t = 0; t < HT_COUNT; t++)
			for (int fl = 0; fl < FL_COUNT; fl++)
				il_hist_free(acc[p].floor[t][fl]);
	free(cmdline);
	il_bench_tmp_done();
	return rc;
}
