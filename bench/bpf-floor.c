/*
 * bench/bpf-floor: the floor under attribution's BPF cost (issue 12).
 *
 *   bpf-floor [--json FILE] -- COMMAND [ARGS...]
 *
 * Attaches the step programs of bpf-floor.bpf.c to sched_switch, runs
 * COMMAND (typically `inputlat run --attribution on ...`, so that the
 * floor is measured under the same load and at the same time as the
 * programs it explains), and prints per step the runs and the kernel's
 * run time per run (bpf_prog_info run_time_ns / run_cnt, while this holds
 * a BPF_ENABLE_STATS fd; the sysctl is never written). Exits with
 * COMMAND's status, 2 on a usage error, 1 when the programs cannot be
 * loaded or attached (one line says why; needs root). COMMAND dies with
 * bpf-floor (SIGTERM, PR_SET_PDEATHSIG) and an inputlat run as COMMAND
 * gets IL_RUN_PARENT, so it stops in order. IL_RUN_PARENT names the run's
 * parent: a run that a COMMAND starts as its child (sh -c "inputlat run
 * ...") is not tied to bpf-floor, and says so in one line with the way
 * out (sh -c "exec inputlat run ..."); sh, which dies with bpf-floor, has
 * no say over its child.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cjson/cJSON.h>

#include "bpf-floor.skel.h"
#include "il_bench.h"
#include "il_file.h"
#include "il_bpf_attach.h"
#include "il_kring.h"
#include "il_stop_signals.h"
#include "il_tracefs.h"

struct step {
	char name[32]; /* copied: the object is gone when they are printed */
	unsigned long long runs, ns;
};

/*
 * Runs COMMAND and waits for it. A stop signal (SIGINT, SIGTERM, ...) stops the
 * command first (SIGTERM: inputlat's orderly stop, knobs back) and wait
 * for it, then end bpf-floor by the signal (il_bench's handlers): killed
 * by default, bpf-floor left its run going alone, and a caller that
 * waited for bpf-floor took the run for over while it still ran. The
 * signals are blocked across the fork, so the child is known before one
 * can come.
 */
static int run_command(char **argv)
{
	sigset_t stop, old;
	pid_t pid, self = getpid();
	int status;

	static const int sigs[] = {IL_RUN_STOP_SIGNALS};

	sigemptyset(&stop);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&stop, sigs[i]);
	if (il_bench_tmp_dir("bpf-floor", NULL) < 0)
		return -EINVAL;
	sigprocmask(SIG_BLOCK, &stop, &old);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		return -e;
	}
	if (pid == 0) {
		/* The command gets the actions it was started with and the
		 * mask back (nohup's ignored SIGHUP stays ignored), and dies
		 * with bpf-floor, even by SIGKILL: it kept running alone. */
		il_bench_child_signals();
		il_bench_child_tie(self);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "bpf-floor: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	il_bench_child(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* Waited for without reaping first: until il_bench_child(0) a stop's
	 * SIGTERM must find this child, not a pid reused after it. */
	{
		siginfo_t si;

		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
			if (errno != EINTR)
				return -errno;
	}
	il_bench_child(0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Attaches every step program to sched_switch through a perf event, as
 * attribution does (attrib/il_capture_bpf.c): libbpf's own attach needs a
 * mounted tracefs, which il_tracefs does without. Returns 0 or -errno.
 */
static int attach_steps(struct bpf_floor_bpf *skel)
{
	const char *ev = "sched/sched_switch";
	struct bpf_program *p;
	int id, rc = il_tracefs_event_ids(&ev, 1, &id);

	if (rc < 0)
		return rc;
	/* The links are not kept: the process ends right after, and with it
	 * the links and their perf events. */
	bpf_object__for_each_program(p, skel->obj)
	{
		if (!il_bpf_attach_tracepoint(p, id))
			return -errno;
	}
	return 0;
}

static size_t read_steps(struct bpf_floor_bpf *skel, struct step *s, size_t n)
{
	struct bpf_program *p;
	size_t k = 0;

	bpf_object__for_each_program(p, skel->obj)
	{
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (k >= n || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0)
			continue;
		snprintf(s[k].name, sizeof(s[k].name), "%s", bpf_program__name(p));
		s[k].runs = info.run_cnt;
		s[k++].ns = info.run_time_ns;
	}
	return k;
}

static void report(const struct step *s, size_t n, unsigned long long full, const char *json)
{
	double empty = 0;
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "steps");

	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, "floor_empty") == 0 && s[i].runs)
			empty = (double)s[i].ns / (double)s[i].runs;
	printf("%-14s %10s %9s %12s\n", "step", "runs", "ns/run", "above empty");
	for (size_t i = 0; i < n; i++) {
		double per = s[i].runs ? (double)s[i].ns / (double)s[i].runs : 0;
		cJSON *o = cJSON_CreateObject();

		printf("%-14s %10llu %9.1f %12.1f\n", s[i].name, s[i].runs, per, per - empty);
		cJSON_AddStringToObject(o, "name", s[i].name);
		cJSON_AddNumberToObject(o, "run_cnt", (double)s[i].runs);
		cJSON_AddNumberToObject(o, "run_time_ns", (double)s[i].ns);
		cJSON_AddNumberToObject(o, "ns_per_run", per);
		cJSON_AddItemToArray(arr, o);
	}
	if (full)
		printf(
		    "(%llu reserves failed: the ring buffer was full, those runs were cheaper)\n",
		    full);
	cJSON_AddNumberToObject(root, "reserves_failed", (double)full);
	if (json) {
		int w = il_json_write(json, root);

		if (w < 0)
			fprintf(stderr, "bpf-floor: cannot write %s: %s\n", json, strerror(-w));
	}
	cJSON_Delete(root);
}

#define USAGE "bpf-floor [--json FILE] -- COMMAND [ARGS...]"

/*
 * The options before "--" ([--json FILE] [--help], by getopt_long, "+" so
 * that COMMAND's own options are left alone), then "--" and COMMAND. Each
 * refusal names the argument and why, in one line. *cmd is the index of
 * COMMAND. -1 to go on, else the exit status (0 after --help).
 */
static int parse_args(int argc, char **argv, const char **json, int *cmd)
{
	static const struct option opts[] = {
	    {"json", required_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0}};
	bool help = false;
	int c;

	opterr = 0; /* one line of our own, not getopt's too */
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		if (c == 'h') {
			help = true;
			continue;
		}
		/* "--json -- CMD": getopt took the "--" for the FILE. */
		if (c == 'j' && !strcmp(optarg, "--")) {
			optind--;
			c = ':';
		} else if (c == 'j' && !*json) {
			*json = optarg;
			continue;
		} else if (c == 'j') {
			fprintf(stderr, "bpf-floor: --json given twice ('%s' and '%s')\n", *json,
				optarg);
			return 2;
		}
		return il_bench_opt_error("bpf-floor", c, argv, opts);
	}
	if (help) {
		printf(
		    "usage: " USAGE "\n"
		    "  --json FILE  also write the steps as JSON to FILE\n"
		    "Runs COMMAND with the step programs on sched_switch and prints each step's\n"
		    "kernel run time per run; needs root. Exits with COMMAND's status.\n");
		return 0;
	}
	/* getopt stops at "--" (and steps over it) or at the first operand. */
	if (optind < 2 || strcmp(argv[optind - 1], "--") != 0) {
		if (optind < argc)
			fprintf(stderr,
				"bpf-floor: unexpected argument '%s' before '--' (usage: " USAGE
				")\n",
				argv[optind]);
		else
			fprintf(stderr,
				"bpf-floor: no '--' before the command (usage: " USAGE ")\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "bpf-floor: no COMMAND after '--' (usage: " USAGE ")\n");
		return 2;
	}
	*cmd = optind;
	return -1;
}

int main(int argc, char **argv)
{
	struct bpf_floor_bpf *skel;
	const char *json = NULL;
	struct step steps[8];
	unsigned long long full = 0;
	int i = 0, rc, stats_fd, ncpus;
	uint32_t zero = 0;
	size_t n;

	il_bench_stdout_checked("bpf-floor");
	if ((rc = parse_args(argc, argv, &json, &i)) >= 0)
		return rc;
	if (il_env_switch_check("bpf-floor", "IL_BPF_DEBUG") < 0)
		return 2;
	if (il_bench_out_check("bpf-floor", json) < 0)
		return 2;
	libbpf_set_print(il_bpf_debug_print); /* the one line on failure says what went wrong */
	skel = bpf_floor_bpf__open();
	ncpus = libbpf_num_possible_cpus();
	if (skel && ncpus > 0) {
		/* The kring sized as attribution sizes it (il_kring.h). */
		skel->rodata->kring_cap = IL_KRING_CAP;
		if (bpf_map__set_max_entries(skel->maps.kring, (uint32_t)ncpus * IL_KRING_CAP) ||
		    bpf_map__set_max_entries(skel->maps.kring_pos,
					     (uint32_t)ncpus * IL_KRING_POS_STRIDE) ||
		    bpf_floor_bpf__load(skel)) {
			bpf_floor_bpf__destroy(skel);
			skel = NULL;
		}
	}
	if (!skel) {
		fprintf(stderr, "bpf-floor: cannot load the BPF programs: %s (needs root)\n",
			strerror(errno));
		return 1;
	}
	rc = attach_steps(skel);
	if (rc) {
		fprintf(stderr, "bpf-floor: cannot attach to sched_switch: %s\n", strerror(-rc));
		bpf_floor_bpf__destroy(skel);
		return 1;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bpf-floor: cannot enable BPF run-time statistics: %s\n",
			strerror(-stats_fd));
		bpf_floor_bpf__destroy(skel);
		return 1;
	}
	rc = run_command(argv + i);
	n = read_steps(skel, steps, sizeof(steps) / sizeof(steps[0]));
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.full), &zero, &full);
	close(stats_fd);
	bpf_floor_bpf__destroy(skel);
	if (rc < 0) {
		fprintf(stderr, "bpf-floor: cannot run the command: %s\n", strerror(-rc));
		return 1;
	}
	report(steps, n, full, json);
	return rc;
}
