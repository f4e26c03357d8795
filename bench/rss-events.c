/*
 * bench/rss-events: peak RSS of every process of a traced run against the
 * number of events (issue 17: memory must not grow with the run). For
 * each count (default 10^3, 10^4, 10^5, 10^6) it runs
 *
 *   inputlat run --events N --warmup 0 --interval-ms MS --work none
 *                --trace T --trace-events min(N, 100000) --records R --json J
 *                --bound-ms 3 * N * MS + 120000
 *
 * and prints, per count, the wall time, each process's peak RSS as the
 * run's report gives it (rss_kib: VmHWM per process) and the largest peak
 * in the process tree from wait4 (which covers the orchestrator writing
 * its report after it read its own VmHWM), and the growth per tenfold
 * step. The trace is capped at 100,000 mouse-downs by inputlat itself.
 * Memory is measured, not pace: the bound is three times the events' time
 * (the run's own bound allows 10%, which a million events with kernel
 * attribution on a busy 2-CPU machine outran at 83% done). Attribution is
 * as inputlat run decides (on as root); each row says which it was.
 *
 * A count whose outputs would not fit on the output file system (from the
 * bytes per event of the runs before it) is reported as not run, with why.
 * A benchmark: it prints figures, it is never a timed test.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "il_bench.h"
#include "il_chain.h"
#include "il_file.h"
#include "il_header.h"
#include "il_parse.h"

#define RSS_FILE_VERSION 1
#define MAX_COUNTS	 8
#define TRACE_CAP	 100000
/* The orchestrator, then the programs it starts (il_chain's table). */
#define NPROCS (IL_PROC_COUNT + 1)

static const char *proc_name(int i)
{
	return i == 0 ? "inputlat" : il_chain_proc((enum il_proc_id)(i - 1))->program;
}

struct row {
	uint64_t events;
	int ran;
	char why[4400];
	double elapsed_s, completed;
	double proc_kib[NPROCS];
	int attribution; /* the report's attribution.available: 1, 0, -1 unsaid */
	long tree_kib;
	unsigned long long out_bytes;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: rss-events [OPTION]...\n"
		   "  --counts LIST     event counts 1..10000000, comma-separated (default "
		   "1000,10000,100000,1000000)\n"
		   "  --dir DIR         where the run's outputs go (default a new /tmp directory)\n"
		   "  --interval-ms MS  event spacing, 0.1..1000 (default 0.3)\n"
		   "  --json FILE       results as JSON\n");
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static unsigned long long file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

/* list is not changed: it is argv's, which the JSON's cmdline reads later
 * (tokenised in place, "--counts 1000,10000" was recorded as "--counts 1000"). */
static int parse_counts(const char *list, uint64_t *counts, int *n)
{
	char copy[512], *save = NULL;

	*n = 0;
	if (il_parse_list_has_empty(list) || strlen(list) >= sizeof(copy))
		return -1;
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n >= MAX_COUNTS || il_parse_u64(t, 1, 10000000, &counts[*n]) < 0)
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

/* The files each run writes in --dir (run_one), by their names there. */
static const char *const run_files[] = {"run.json", "trace.json", "records.jsonl", "err.txt"};

/*
 * Whether --json FILE is one of the files the runs write in dir: each run
 * writes and then removes them, so the results would be written over by
 * the next run, or a FILE that was there removed. Said in one line.
 */
static bool json_is_run_file(const char *json_path, const char *dir)
{
	char p[4200];

	for (size_t i = 0; json_path && i < sizeof(run_files) / sizeof(run_files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, run_files[i]);
		if (il_out_path_same(json_path, p)) {
			fprintf(stderr,
				"rss-events: --json %s is %s, one of the files its runs write "
				"and remove in --dir %s; give another --json or --dir\n",
				json_path, run_files[i], dir);
			return true;
		}
	}
	return false;
}

/* One run of n events; fills r. Returns 0, or -1 with r->why set. */
static int run_one(const char *inputlat, const char *dir, const char *interval, double interval_ms,
		   struct row *r)
{
	char ev[32], tev[32], json[4200], trace[4200], records[4200], err[4200], jerr[256];
	char bound[32];
	double bound_ms = 3.0 * (double)r->events * interval_ms + 120000;
	struct rusage ru;
	cJSON *root = NULL, *rss, *events;
	double t0;
	int status;
	pid_t pid, got;

	snprintf(ev, sizeof(ev), "%llu", (unsigned long long)r->events);
	snprintf(tev, sizeof(tev), "%llu",
		 (unsigned long long)(r->events < TRACE_CAP ? r->events : TRACE_CAP));
	snprintf(bound, sizeof(bound), "%.0f", bound_ms < 86400000 ? bound_ms : 86400000);
	snprintf(json, sizeof(json), "%s/%s", dir, run_files[0]);
	snprintf(trace, sizeof(trace), "%s/%s", dir, run_files[1]);
	snprintf(records, sizeof(records), "%s/%s", dir, run_files[2]);
	snprintf(err, sizeof(err), "%s/%s", dir, run_files[3]);
	il_bench_tmp_file(json);
	il_bench_tmp_file(trace);
	il_bench_tmp_file(records);
	il_bench_tmp_file(err);
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen(err, "w", stderr))
			_exit(127);
		execl(inputlat, inputlat, "run", "--events", ev, "--warmup", "0", "--interval-ms",
		      interval, "--work", "none", "--quiet", "--json", json, "--trace", trace,
		      "--trace-events", tev, "--records", records, "--bound-ms", bound,
		      (char *)NULL);
		_exit(127);
	}
	il_bench_child(pid);
	got = pid < 0 ? -1 : wait4(pid, &status, 0, &ru);
	il_bench_child(0);
	if (got != pid || pid < 0) {
		snprintf(r->why, sizeof(r->why), "cannot run inputlat: %s", strerror(errno));
		return -1;
	}
	r->elapsed_s = now_s() - t0;
	r->tree_kib = ru.ru_maxrss;
	r->out_bytes = file_bytes(json) + file_bytes(trace) + file_bytes(records);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(r->why, sizeof(r->why), "inputlat run failed (wait status 0x%x, see %s)",
			 status, err);
		return -1;
	}
	if (il_json_load(json, &root, jerr, sizeof(jerr)) < 0) {
		snprintf(r->why, sizeof(r->why), "report unreadable: %s", jerr);
		return -1;
	}
	rss = cJSON_GetObjectItemCaseSensitive(root, "rss_kib");
	for (int i = 0; i < NPROCS; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(rss, proc_name(i));

		r->proc_kib[i] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	}
	{
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(root, "attribution"), "available");

		r->attribution = cJSON_IsBool(a) ? cJSON_IsTrue(a) : -1;
	}
	events = cJSON_GetObjectItemCaseSensitive(root, "events");
	r->completed = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(events, "completed"));
	cJSON_Delete(root);
	unlink(json);
	unlink(trace);
	unlink(records);
	unlink(err);
	r->ran = 1;
	return 0;
}

static void add_num_or_null(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"counts", required_argument, NULL, 'c'}, {"dir", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},	      {"interval-ms", required_argument, NULL, 'i'},
	    {"json", required_argument, NULL, 'j'},   {NULL, 0, NULL, 0},
	};
	char default_counts[] = "1000,10000,100000,1000000";
	char inputlat[4200], tmpdir[] = "/tmp/il-rss-events.XXXXXX";
	const char *json_path = NULL, *interval = "0.3", *dir = NULL;
	uint64_t counts[MAX_COUNTS];
	struct row rows[MAX_COUNTS] = {0};
	double bytes_per_event = 0, interval_ms = 0.3;
	struct timespec start_wall;
	int n = 0, c, rc = 0, help = 0;
	cJSON *root, *arr;
	char *cmdline;

	il_bench_stdout_checked("rss-events");
	parse_counts(default_counts, counts, &n);
	opterr = 0; /* one line of our own below, not getopt's too */
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'c':
			bad = parse_counts(optarg, counts, &n) < 0;
			break;
		case 'd':
			dir = optarg;
			break;
		case 'i':
			interval = optarg;
			bad = il_parse_double(optarg, 0.1, 1000, &interval_ms) < 0;
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'h':
			help = 1;
			break;
		default:
			bad = 1;
		}
		if (bad || c == ':' || c == '?')
			return il_bench_opt_error("rss-events", c, argv, opts);
	}
	if (il_bench_no_operands("rss-events", argc, argv))
		return 2;
	if (help) {
		usage(stdout);
		return 0;
	}
	if (il_bench_out_check("rss-events", json_path) < 0)
		return 2;
	/* A --dir of the user's; the default is a directory mkdtemp makes
	 * new, which no --json given before it can name. */
	if (dir && json_is_run_file(json_path, dir))
		return 2;
	clock_gettime(CLOCK_REALTIME, &start_wall);
	cmdline = il_cmdline_join("rss-events", argc - 1, argv + 1);
	if (il_bench_inputlat("rss-events", inputlat, sizeof(inputlat)) < 0)
		return 1;
	/* A stop signal ends the run under way and removes what is ours. */
	if (il_bench_tmp_dir("rss-events", dir ? NULL : tmpdir) < 0)
		return 1;
	if (!dir)
		dir = tmpdir;

	for (int i = 0; i < n; i++) {
		struct row *r = &rows[i];
		struct statvfs vfs;

		r->events = counts[i];
		/* Room for the outputs, from what the runs before wrote per event
		 * (the trace's share stops growing at its cap: an overestimate). */
		if (bytes_per_event > 0 && statvfs(dir, &vfs) == 0 &&
		    (double)vfs.f_bavail * (double)vfs.f_frsize <
			1.5 * bytes_per_event * (double)r->events) {
			snprintf(r->why, sizeof(r->why),
				 "not run: its outputs need about %.1f GiB, %s has %.1f GiB free",
				 bytes_per_event * (double)r->events / (1 << 30), dir,
				 (double)vfs.f_bavail * (double)vfs.f_frsize / (1 << 30));
			continue;
		}
		fprintf(stderr, "rss-events: %llu events...\n", (unsigned long long)r->events);
		if (run_one(inputlat, dir, interval, interval_ms, r) < 0) {
			fprintf(stderr, "rss-events: %llu events: %s\n",
				(unsigned long long)r->events, r->why);
			rc = 1;
			continue;
		}
		bytes_per_event = (double)r->out_bytes / (double)r->events;
	}
	il_bench_tmp_done(); /* the files of the last run, and the directory if ours */

	printf(
	    "# rss-events: traced runs (--trace, --records, --work none, --interval-ms %s); peak "
	    "RSS in KiB per process (the report's VmHWM) and in the process tree (wait4)\n",
	    interval);
	printf("%10s %9s %10s", "events", "wall_s", "completed");
	for (int p = 0; p < NPROCS; p++)
		printf(" %12s", proc_name(p));
	printf(" %9s %9s %11s\n", "tree_max", "growth", "attribution");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		printf("%10llu", (unsigned long long)r->events);
		if (!r->ran) {
			printf("  %s\n", r->why);
			continue;
		}
		printf(" %9.1f %10.0f", r->elapsed_s, r->completed);
		for (int p = 0; p < NPROCS; p++)
			printf(" %12.0f", r->proc_kib[p]);
		printf(" %9ld", r->tree_kib);
		/* Growth of the largest peak against the previous count that ran. */
		if (i > 0 && rows[i - 1].ran && rows[i - 1].tree_kib > 0)
			printf(" %8.2fx", (double)r->tree_kib / (double)rows[i - 1].tree_kib);
		else
			printf(" %9s", "-");
		printf(" %11s\n", r->attribution < 0 ? "unsaid" : r->attribution ? "on" : "off");
	}

	root = il_header_new(RSS_FILE_VERSION, cmdline, &start_wall);
	cJSON_AddStringToObject(root, "interval_ms", interval);
	arr = cJSON_AddArrayToObject(root, "results");
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		cJSON *o = cJSON_CreateObject(), *pk;

		cJSON_AddNumberToObject(o, "events", (double)r->events);
		cJSON_AddItemToArray(arr, o);
		if (!r->ran) {
			cJSON_AddStringToObject(o, "not_run", r->why);
			continue;
		}
		cJSON_AddNumberToObject(o, "trace_events",
					(double)(r->events < TRACE_CAP ? r->events : TRACE_CAP));
		cJSON_AddNumberToObject(o, "completed", r->completed);
		cJSON_AddNumberToObject(o, "wall_s", round(r->elapsed_s * 100) / 100);
		pk = cJSON_AddObjectToObject(o, "peak_rss_kib");
		for (int p = 0; p < NPROCS; p++)
			add_num_or_null(pk, proc_name(p), r->proc_kib[p]);
		cJSON_AddNumberToObject(o, "tree_max_rss_kib", (double)r->tree_kib);
		if (r->attribution < 0)
			cJSON_AddNullToObject(o, "attribution_available");
		else
			cJSON_AddBoolToObject(o, "attribution_available", r->attribution);
		cJSON_AddNumberToObject(o, "output_bytes", (double)r->out_bytes);
	}
	if (json_path && il_json_write(json_path, root) < 0) {
		fprintf(stderr, "rss-events: cannot write %s\n", json_path);
		rc = 1;
	}
	cJSON_Delete(root);
	free(cmdline);
	return rc;
}
