/*
 * bench/overhead: the harness's own cost per hop against the floor of the
 * same primitive, measured interleaved in one run (floor, harness, floor,
 * harness, ...) so machine drift affects both alike. For each policy
 * (cfs, rt) and hop type it prints harness p50 / floor p50 and p99 / p99.
 *
 * Which hop is of which type comes from the chain's table (il_chain): an
 * in-process hop is a queue push plus an eventfd wake-up polled by the
 * receiver's loop; a cross-process hop is a framed write on a Unix stream
 * socket. The harness runs with `--work none`, so a hop is queueing +
 * wake-up only.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "il_chain.h"
#include "il_floor.h"
#include "il_parse.h"

#define MAX_ROUNDS 20

enum { HT_IN, HT_CROSS, HT_COUNT };
static const enum il_hop_kind hop_type_kind[HT_COUNT] = { IL_HOP_IN_PROCESS, IL_HOP_CROSS_PROCESS };
static const char *const hop_type_names[HT_COUNT] = { "in-process", "cross-process" };
static const char *const policies[] = { "cfs", "rt" };
#define NPOL 2

struct cell {
	double floor_p50[MAX_ROUNDS], floor_p99[MAX_ROUNDS];
	double xcpu_p50[MAX_ROUNDS]; /* the same primitive pinned cross-CPU */
	double harness_p50[MAX_ROUNDS], harness_p99[MAX_ROUNDS];
	int n_floor, n_harness;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = '\0';
	fclose(f);
	return buf;
}

/* Runs the harness once; fills per-hop-type p50/p99 (us) and peak RSS. */
static int run_harness(const char *inputlat, const char *policy, unsigned events, const char *json,
		       double p50[HT_COUNT], double p99[HT_COUNT], cJSON **rss_out)
{
	char ev[32];
	pid_t pid;
	int status;
	char *text;
	cJSON *root, *hops;

	snprintf(ev, sizeof(ev), "%u", events);
	pid = fork();
	if (pid == 0) {
		execl(inputlat, inputlat, "run", "--work", "none", "--policy", policy, "--events", ev,
		      "--interval-ms", "5", "--quiet", "--json", json, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	text = slurp(json);
	root = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!root)
		return -1;
	hops = cJSON_GetObjectItem(root, "hops");
	for (int t = 0; t < HT_COUNT; t++) {
		double a[IL_NHOPS], b[IL_NHOPS];
		int n = 0;

		for (int k = 1; k <= IL_NHOPS; k++) {
			cJSON *h = cJSON_GetArrayItem(hops, k - 1);

			if (il_chain_hop(k)->kind != hop_type_kind[t])
				continue;
			a[n] = cJSON_GetNumberValue(cJSON_GetObjectItem(h, "p50_us"));
			b[n++] = cJSON_GetNumberValue(cJSON_GetObjectItem(h, "p99_us"));
		}
		/* The typical hop of the type: median across its hops. */
		p50[t] = median(a, n);
		p99[t] = median(b, n);
	}
	if (rss_out) {
		cJSON_Delete(*rss_out);
		*rss_out = cJSON_DetachItemFromObject(root, "rss_kib");
	}
	cJSON_Delete(root);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", required_argument, NULL, 'j' },
		{ "quick", no_argument, NULL, 'q' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "samples", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t rounds = 5, samples = 3000, events = 1000;
	const char *json_path = NULL;
	struct cell cells[NPOL][HT_COUNT];
	struct rlimit rl = { .rlim_cur = 2000000, .rlim_max = 3000000 };
	char self[4096], inputlat[4200], tmpdir[] = "/tmp/il-overhead.XXXXXX", tmpjson[4200];
	cJSON *rss = NULL;
	bool rt_ok = true;
	int c;
	ssize_t n;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'e':
			rc = il_parse_u64(optarg, 10, 1000000, &events);
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			rounds = 3, samples = 1500, events = 400;
			break;
		case 'r':
			rc = il_parse_u64(optarg, 1, MAX_ROUNDS, &rounds);
			break;
		case 's':
			rc = il_parse_u64(optarg, 10, 1000000, &samples);
			break;
		case 'h':
			printf("Usage: overhead [--quick] [--rounds N] [--samples N] [--events N] [--json FILE]\n");
			return 0;
		default:
			rc = -EINVAL;
		}
		if (rc < 0) {
			fprintf(stderr, "overhead: bad option or value '%s' (see --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return 1;
	self[n] = '\0';
	/* build/bench/overhead -> build/inputlat */
	snprintf(inputlat, sizeof(inputlat), "%s/../inputlat", dirname(self));
	if (access(inputlat, X_OK) < 0 || !mkdtemp(tmpdir)) {
		fprintf(stderr, "overhead: cannot find %s (build the inputlat target)\n", inputlat);
		return 1;
	}
	snprintf(tmpjson, sizeof(tmpjson), "%s/run.json", tmpdir);
	setrlimit(RLIMIT_RTTIME, &rl);
	memset(cells, 0, sizeof(cells));

	for (unsigned r = 0; r < rounds; r++) {
		for (int p = 0; p < NPOL; p++) {
			int pol = p ? SCHED_FIFO : SCHED_OTHER;
			double hp50[HT_COUNT], hp99[HT_COUNT];

			if (p && !rt_ok)
				continue;
			for (int t = 0; t < HT_COUNT; t++) {
				struct il_floor_cfg cfg = {
					.prim = t == HT_IN ? IL_FLOOR_UV_ASYNC : IL_FLOOR_UNIX_SOCKET,
					.policy = pol, .cpu_a = -1, .cpu_b = -1,
					.samples = (unsigned)samples, .gap_us = 200,
				};
				struct il_floor_result fr;
				char err[256];
				struct cell *cl = &cells[p][t];

				if (il_floor_measure(&cfg, &fr, err, sizeof(err)) < 0) {
					fprintf(stderr, "overhead: %s; skipping %s\n", err, policies[p]);
					if (p)
						rt_ok = false;
					break;
				}
				cl->floor_p50[cl->n_floor] = fr.p50_ns / 1e3;
				cl->floor_p99[cl->n_floor] = fr.p99_ns / 1e3;
				/* Unpinned, the scheduler may co-locate sender and receiver;
				 * the chain's threads mostly wake across CPUs. Both are shown. */
				cfg.cpu_a = 0;
				cfg.cpu_b = 1;
				cl->xcpu_p50[cl->n_floor++] =
					il_floor_measure(&cfg, &fr, err, sizeof(err)) == 0 ? fr.p50_ns / 1e3 : 0;
			}
			if (p && !rt_ok)
				continue;
			if (run_harness(inputlat, policies[p], (unsigned)events, tmpjson, hp50, hp99,
					p == 0 ? &rss : NULL) < 0) {
				fprintf(stderr, "overhead: inputlat run --policy %s failed\n", policies[p]);
				continue;
			}
			for (int t = 0; t < HT_COUNT; t++) {
				struct cell *cl = &cells[p][t];

				cl->harness_p50[cl->n_harness] = hp50[t];
				cl->harness_p99[cl->n_harness++] = hp99[t];
			}
			fprintf(stderr, "overhead: round %u/%llu %s done\n", r + 1, (unsigned long long)rounds,
				policies[p]);
		}
	}

	cJSON *root = cJSON_CreateObject(), *ratios = cJSON_AddArrayToObject(root, "ratios");

	cJSON_AddNumberToObject(root, "rounds", (double)rounds);
	printf("# harness per-hop cost vs the bare primitive, medians of %llu interleaved rounds\n",
	       (unsigned long long)rounds);
	printf("%-14s %-6s %12s %14s %9s %12s %14s %9s %12s %10s\n", "hop_type", "policy",
	       "floor_p50_us", "harness_p50_us", "p50_ratio", "floor_p99_us", "harness_p99_us",
	       "p99_ratio", "xcpu_p50_us", "xcpu_ratio");
	for (int p = 0; p < NPOL; p++)
		for (int t = 0; t < HT_COUNT; t++) {
			struct cell *cl = &cells[p][t];
			double f50, f99, h50, h99, x50;
			cJSON *o;

			if (!cl->n_floor || !cl->n_harness)
				continue;
			f50 = median(cl->floor_p50, cl->n_floor);
			f99 = median(cl->floor_p99, cl->n_floor);
			h50 = median(cl->harness_p50, cl->n_harness);
			h99 = median(cl->harness_p99, cl->n_harness);
			x50 = median(cl->xcpu_p50, cl->n_floor);
			printf("%-14s %-6s %12.1f %14.1f %9.2f %12.1f %14.1f %9.2f %12.1f %10.2f\n",
			       hop_type_names[t], policies[p], f50, h50, h50 / f50, f99, h99, h99 / f99, x50,
			       x50 > 0 ? h50 / x50 : 0);
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "hop_type", hop_type_names[t]);
			cJSON_AddStringToObject(o, "policy", policies[p]);
			cJSON_AddNumberToObject(o, "floor_p50_us", f50);
			cJSON_AddNumberToObject(o, "harness_p50_us", h50);
			cJSON_AddNumberToObject(o, "p50_ratio", h50 / f50);
			cJSON_AddNumberToObject(o, "floor_p99_us", f99);
			cJSON_AddNumberToObject(o, "harness_p99_us", h99);
			cJSON_AddNumberToObject(o, "p99_ratio", h99 / f99);
			cJSON_AddNumberToObject(o, "floor_cross_cpu_p50_us", x50);
			cJSON_AddItemToArray(ratios, o);
		}
	if (rss) {
		cJSON *e;

		printf("# peak RSS (KiB):");
		cJSON_ArrayForEach(e, rss)
			printf(" %s %.0f", e->string, e->valuedouble);
		printf("\n");
		cJSON_AddItemToObject(root, "rss_kib", rss);
	}
	if (json_path) {
		char *text = cJSON_Print(root);
		FILE *f = fopen(json_path, "w");

		if (!f || !text || fputs(text, f) < 0) {
			fprintf(stderr, "overhead: cannot write %s\n", json_path);
			return 1;
		}
		fclose(f);
		free(text);
	}
	cJSON_Delete(root);
	unlink(tmpjson);
	rmdir(tmpdir);
	return 0;
}
