#include "il_run_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "il_parse.h"
#include "il_role.h"
#include "il_thread.h"

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("inputlat run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static void print_help(void)
{
	printf(
	    "Usage: inputlat run [OPTION]...\n"
	    "Pass mouse-downs through the browser/render/viz hop chain and measure latency.\n\n"
	    "  --attribution MODE    why each hop took its time, from the kernel's scheduling "
	    "events\n"
	    "                        (BPF): auto (default: where root and BPF allow it), on, off\n"
	    "  --background CMD      run sh -c CMD (a load generator, e.g. \"stress-ng --cpu 2\")\n"
	    "                        for the length of the run, in its own process group\n"
	    "  --bound-ms MS         the watchdog's bound: a run still going then is killed and "
	    "its\n"
	    "                        knobs put back (default: 20 s + 1.1 x the events' time\n"
	    "                        + --timeout-ms + --duration-ms, and more per event for\n"
	    "                        --hog and --load threads when the policy has no RT)\n"
	    "  --duration-ms MS      keep the run going at least this long (default 0: until "
	    "--events are done)\n"
	    "  --events N            measured mouse-downs (default 100), after the warm-up ones\n"
	    "  --hist FILE           text histogram, cyclictest layout, 1 us buckets\n"
	    "  --hist-csv FILE       histogram as CSV (log-linear buckets)\n"
	    "  --hist-max-us US      1 us buckets of --hist; slower events are overflows (default "
	    "100000)\n"
	    "  --hog [N]             N JS-like hog threads in render-sim (default N = CPUs the "
	    "run\n"
	    "                        may use)\n"
	    "  --hog-gap-ms MS       bursty hog: sleep between long tasks (default 50)\n"
	    "  --hog-mode MODE       js (JavaScript that never blocks, default), js-bursty\n"
	    "                        (JavaScript in long tasks), busy or bursty (a register loop)\n"
	    "  --hog-script FILE     JavaScript for the js modes: defines tick(), one bounded\n"
	    "                        piece of work (default: the crypto miner, js/miner.js)\n"
	    "  --hog-task-ms MS      bursty hog: length of one long task (default 200)\n"
	    "  --input SRC           synthetic (default), uinput, evdev:/dev/input/eventN, "
	    "replay:FILE\n"
	    "  --interval-ms MS      mean time between mouse-downs, +-10%% jitter (default 20;\n"
	    "                        decimals down to 0.1)\n"
	    "  --json FILE           full run record (JSON)\n"
	    "  --load N              N background CFS threads (default 0)\n"
	    "  --no-dma-latency      do not hold /dev/cpu_dma_latency at 0 us during the run\n"
	    "  --lock KIND           hop-queue lock: pthread (default), adaptive-np, il-none, "
	    "il-bpf\n"
	    "  --policy NAME|PATH    scheduling policy (default cfs); see `inputlat policies`\n"
	    "  --present BACKEND     sim (60 Hz timerfd vblank, default) or drm[:/dev/dri/cardN]\n"
	    "  --quiet               no progress line (on a terminal, stderr shows events done,\n"
	    "                        elapsed time and the processing p50/p99 as the run goes)\n"
	    "  --records FILE        every event's stamps, threads and CPUs, one JSON object a "
	    "line\n"
	    "  --rttime-ms MS        RLIMIT_RTTIME of every RT thread (default: the run's time "
	    "bound)\n"
	    "  --seed N              seed of the interval jitter (default: from the clock)\n"
	    "  --timeout-ms MS       an event not presented by then is timed out (default 1000)\n"
	    "  --trace FILE          Chrome trace-event JSON (opens in Perfetto)\n"
	    "  --trace-events N      mouse-downs in the trace (default 200)\n"
	    "  --trace-marker        also write hop boundaries to tracefs trace_marker (trace-cmd, "
	    "perf)\n"
	    "  --warmup N            mouse-downs before the measured ones, left out of every\n"
	    "                        statistic and flagged in --records (default 10)\n"
	    "  --test-garbage CHILD  test hook: CHILD (e.g. render-sim) gets a garbage control "
	    "frame\n"
	    "  --test-work-scale F   test hook: every handler does F times its configured work\n"
	    "  --test-coarse-clock   test hook: the thread CPU clock is taken to move in 4 ms "
	    "ticks\n"
	    "  --test-runaway THREAD test hook: THREAD (e.g. render:main) spins forever\n"
	    "  --test-stall CHILD    test hook: the loop is held up 2 s once, CHILD (or none)\n"
	    "                        killed meanwhile; `stop`: held up right after the stop\n"
	    "  --work ROLE=US        CPU work per handler in us; ROLE is a role (ui, io, "
	    "compositor,\n"
	    "                        main, gpu, drm, evdev) or a thread (viz:comp); `--work none` "
	    "zeroes all\n"
	    "  --work-model MODEL    cpu-time (default): a handler runs until its thread's CPU\n"
	    "                        clock advanced by its work, whatever the CPU's speed;\n"
	    "                        loops: a loop count calibrated at the start (rt-app's\n"
	    "                        runtime and run), slower on a slower CPU\n"
	    "  --help                this text\n");
}

static int parse_work(struct il_run_opts *o, const char *v)
{
	const char *eq;
	char name[32];
	uint64_t us;
	int role, matched = 0;

	if (strcmp(v, "none") == 0) {
		memset(o->work_us, 0, sizeof(o->work_us));
		return 0;
	}
	eq = strchr(v, '=');
	if (!eq || eq == v || (size_t)(eq - v) >= sizeof(name))
		return usage_error("--work: expected ROLE=US or none, got '%s'", v);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - v), v);
	if (il_parse_u64(eq + 1, 0, 1000000, &us) < 0)
		return usage_error("--work: '%s' is not a number of microseconds (0..1000000)",
				   eq + 1);
	role = il_role_parse(name);
	for (int t = 0; t < IL_T_COUNT; t++) {
		const struct il_thread_desc *d = il_chain_thread(t);

		if (strcmp(name, d->name) == 0 || (role >= 0 && d->role == (enum il_role)role)) {
			o->work_us[t] = us;
			matched = 1;
		}
	}
	if (!matched)
		return usage_error("--work: unknown role '%s' (use evdev, ui, io, compositor, "
				   "main, gpu, drm or a thread such as viz:comp)",
				   name);
	return 0;
}

static int num(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	int rc = il_parse_u64(v, min, max, out);

	if (rc == -EINVAL)
		return usage_error("--%s: '%s' is not a number", opt, v);
	if (rc < 0)
		return usage_error("--%s: %s is out of range (%llu..%llu)", opt, v,
				   (unsigned long long)min, (unsigned long long)max);
	return 0;
}

enum {
	OPT_BACKGROUND = 255,
	OPT_DURATION = 256,
	OPT_EVENTS,
	OPT_HIST,
	OPT_HIST_CSV,
	OPT_HIST_MAX,
	OPT_HOG,
	OPT_HOG_GAP,
	OPT_HOG_MODE,
	OPT_HOG_SCRIPT,
	OPT_HOG_TASK,
	OPT_INPUT,
	OPT_INTERVAL,
	OPT_JSON,
	OPT_LOAD,
	OPT_LOCK,
	OPT_POLICY,
	OPT_PRESENT,
	OPT_QUIET,
	OPT_RECORDS,
	OPT_RTTIME,
	OPT_RUNAWAY,
	OPT_GARBAGE,
	OPT_STALL,
	OPT_SEED,
	OPT_TIMEOUT,
	OPT_TRACE,
	OPT_TRACE_EVENTS,
	OPT_WORK,
	OPT_WORK_MODEL,
	OPT_HELP,
	OPT_NO_DMA,
	OPT_WARMUP,
	OPT_WORK_SCALE,
	OPT_COARSE_CLOCK,
	OPT_ATTRIBUTION,
	OPT_TRACE_MARKER,
	OPT_BOUND,
	OPT_END,
};

const char *il_hog_mode_name_of(enum il_hog_mode m)
{
	static const char *const names[] = {"busy", "bursty", "js", "js-bursty"};

	return (unsigned)m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

#define GIVEN(opt) given[(opt)-OPT_BACKGROUND]

/*
 * An option that shapes something the run does not have would be silently
 * ignored (a histogram bound without the histogram, a hog's tasks without
 * hogs): refused instead, naming what it needs.
 */
static int inert_options(const struct il_run_opts *o, const bool *given)
{
	static const struct {
		int opt;
		const char *name;
	} hog_opts[] = {{OPT_HOG_MODE, "hog-mode"},
			{OPT_HOG_SCRIPT, "hog-script"},
			{OPT_HOG_GAP, "hog-gap-ms"},
			{OPT_HOG_TASK, "hog-task-ms"}};
	bool bursty = o->hog_mode == IL_HOG_MODE_BURSTY || o->hog_mode == IL_HOG_MODE_JS_BURSTY;

	for (size_t i = 0; i < sizeof(hog_opts) / sizeof(hog_opts[0]); i++)
		if (GIVEN(hog_opts[i].opt) && !o->hog_threads)
			return usage_error("--%s shapes the hog threads: it needs --hog [N]",
					   hog_opts[i].name);
	if ((GIVEN(OPT_HOG_GAP) || GIVEN(OPT_HOG_TASK)) && !bursty)
		return usage_error("--%s shapes a bursty hog's long tasks: it needs --hog-mode "
				   "js-bursty or bursty (the mode is %s)",
				   GIVEN(OPT_HOG_GAP) ? "hog-gap-ms" : "hog-task-ms",
				   il_hog_mode_name_of(o->hog_mode));
	if (GIVEN(OPT_HIST_MAX) && !o->hist_path)
		return usage_error(
		    "--hist-max-us sizes the --hist histogram: it needs --hist FILE");
	if (GIVEN(OPT_TRACE_EVENTS) && !o->trace_path)
		return usage_error("--trace-events sizes the --trace file: it needs --trace FILE");
	return 0;
}

/* "3", "-1", "+2": what a user meant as --hog's value, not another option. */
static bool looks_like_count(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	return *s >= '0' && *s <= '9';
}

int il_run_opts_parse(int argc, char **argv, struct il_run_opts *o)
{
	bool given[OPT_END - OPT_BACKGROUND] = {false};
	static const struct option longopts[] = {
	    {"attribution", required_argument, NULL, OPT_ATTRIBUTION},
	    {"background", required_argument, NULL, OPT_BACKGROUND},
	    {"bound-ms", required_argument, NULL, OPT_BOUND},
	    {"duration-ms", required_argument, NULL, OPT_DURATION},
	    {"events", required_argument, NULL, OPT_EVENTS},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"hist", required_argument, NULL, OPT_HIST},
	    {"hist-csv", required_argument, NULL, OPT_HIST_CSV},
	    {"hist-max-us", required_argument, NULL, OPT_HIST_MAX},
	    {"hog", optional_argument, NULL, OPT_HOG},
	    {"hog-gap-ms", required_argument, NULL, OPT_HOG_GAP},
	    {"hog-mode", required_argument, NULL, OPT_HOG_MODE},
	    {"hog-script", required_argument, NULL, OPT_HOG_SCRIPT},
	    {"hog-task-ms", required_argument, NULL, OPT_HOG_TASK},
	    {"input", required_argument, NULL, OPT_INPUT},
	    {"interval-ms", required_argument, NULL, OPT_INTERVAL},
	    {"json", required_argument, NULL, OPT_JSON},
	    {"load", required_argument, NULL, OPT_LOAD},
	    {"lock", required_argument, NULL, OPT_LOCK},
	    {"no-dma-latency", no_argument, NULL, OPT_NO_DMA},
	    {"policy", required_argument, NULL, OPT_POLICY},
	    {"present", required_argument, NULL, OPT_PRESENT},
	    {"quiet", no_argument, NULL, OPT_QUIET},
	    {"records", required_argument, NULL, OPT_RECORDS},
	    {"rttime-ms", required_argument, NULL, OPT_RTTIME},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"test-garbage", required_argument, NULL, OPT_GARBAGE},
	    {"test-stall", required_argument, NULL, OPT_STALL},
	    {"test-runaway", required_argument, NULL, OPT_RUNAWAY},
	    {"test-work-scale", required_argument, NULL, OPT_WORK_SCALE},
	    {"test-coarse-clock", no_argument, NULL, OPT_COARSE_CLOCK},
	    {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
	    {"trace", required_argument, NULL, OPT_TRACE},
	    {"trace-events", required_argument, NULL, OPT_TRACE_EVENTS},
	    {"trace-marker", no_argument, NULL, OPT_TRACE_MARKER},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"work", required_argument, NULL, OPT_WORK},
	    {"work-model", required_argument, NULL, OPT_WORK_MODEL},
	    {NULL, 0, NULL, 0},
	};
	char err[512];
	bool help = false;
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->events = 100;
	o->interval_us = 20000;
	o->timeout_ms = 1000;
	o->warmup = 10;
	/* Presentation latency waits for the next vblank (up to 16.7 ms) after
	 * processing; under load it reaches 50 ms. */
	o->hist_max_us = 100000;
	o->trace_events = 200;
	o->hog_task_ms = 200;
	o->hog_gap_ms = 50;
	/* A page's script is the threat the story is about: JavaScript by default. */
	o->hog_mode = IL_HOG_MODE_JS;
	o->seed = 0;
	snprintf(o->policy, sizeof(o->policy), "cfs");
	o->lock = IL_LOCK_PTHREAD;
	o->test.runaway_thread = o->test.garbage_proc = o->test.stall_proc = -1;
	o->test.work_scale = 1.0;
	o->work_model = IL_WORK_CPU_TIME;
	for (int t = 0; t < IL_T_COUNT; t++)
		o->work_us[t] = il_chain_thread(t)->default_work_us;

	opterr = 0;
	/* 0, not 1: glibc then also forgets an unfinished short-option group of an
	 * earlier parse in this process (found by fuzzing). */
	optind = 0;
	char opt[300]; /* what was wrong with a refused option, for its message */

	while (rc == 0 && (c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		if (c >= OPT_BACKGROUND && c < OPT_END)
			given[c - OPT_BACKGROUND] = true;
		switch (c) {
		case OPT_ATTRIBUTION: {
			int m = il_attrib_mode_parse(optarg);

			if (m < 0)
				rc = usage_error(
				    "--attribution: unknown mode '%s' (use auto, on or off)",
				    optarg);
			else
				o->attribution = (enum il_attrib_mode)m;
			break;
		}
		case OPT_BACKGROUND:
			if (!*optarg)
				rc = usage_error(
				    "--background needs a command (e.g. \"stress-ng --cpu 2\")");
			o->background = optarg;
			break;
		case OPT_DURATION:
			rc = num("duration-ms", optarg, 0, 3600000, &o->duration_ms);
			break;
		case OPT_EVENTS:
			rc = num("events", optarg, 0, 10000000, &o->events);
			break;
		case OPT_HIST:
			o->hist_path = optarg;
			break;
		case OPT_HIST_CSV:
			o->hist_csv_path = optarg;
			break;
		case OPT_HIST_MAX:
			rc = num("hist-max-us", optarg, 1, 10000000, &o->hist_max_us);
			break;
		case OPT_HOG:
			/* `--hog`, `--hog=N` and `--hog N` all work. A separate
			 * signed number ("--hog -1") is the value too, refused
			 * for its range, not called an unknown option '-1'. */
			if (!optarg && optind < argc && looks_like_count(argv[optind]))
				optarg = argv[optind++];
			if (optarg)
				rc = num("hog", optarg, 1, 1024, &o->hog_threads);
			else
				/* One per CPU the run may use: under `taskset -c 1`
				 * a hog per online CPU put a second FIFO hog on
				 * CPU 1 that never ran, in a report counting it. */
				o->hog_threads = (uint64_t)il_cpus_allowed();
			break;
		case OPT_HOG_GAP:
			rc = num("hog-gap-ms", optarg, 0, 600000, &o->hog_gap_ms);
			break;
		case OPT_HOG_MODE: {
			int m = -1;

			for (int i = IL_HOG_MODE_BUSY; i <= IL_HOG_MODE_JS_BURSTY; i++)
				if (strcmp(optarg, il_hog_mode_name_of((enum il_hog_mode)i)) == 0)
					m = i;
			if (m < 0)
				rc = usage_error(
				    "--hog-mode: unknown mode '%s' (use js, js-bursty, busy "
				    "or bursty)",
				    optarg);
			else
				o->hog_mode = (enum il_hog_mode)m;
			break;
		}
		case OPT_HOG_SCRIPT:
			o->hog_script = optarg;
			break;
		case OPT_HOG_TASK:
			rc = num("hog-task-ms", optarg, 1, 600000, &o->hog_task_ms);
			break;
		case OPT_INPUT:
			if (il_input_spec_parse(optarg, &o->input, err, sizeof(err)) < 0)
				rc = usage_error("%s", err);
			break;
		case OPT_INTERVAL: {
			double ms;

			/* Sub-millisecond pacing lets long runs (10^6 events) fit in minutes. */
			rc = il_parse_double(optarg, 0.1, 600000, &ms);
			if (rc == -EINVAL)
				rc = usage_error("--interval-ms: '%s' is not a number", optarg);
			else if (rc < 0)
				rc = usage_error("--interval-ms: %s is out of range (0.1..600000)",
						 optarg);
			else
				o->interval_us = (uint64_t)(ms * 1000 + 0.5);
			break;
		}
		case OPT_JSON:
			o->json_path = optarg;
			break;
		case OPT_LOAD:
			rc = num("load", optarg, 0, 1024, &o->load_threads);
			break;
		case OPT_LOCK: {
			int k = il_lock_kind_parse(optarg);

			/* tas is lock-bench's baseline, not a lock for the chain's queues. */
			if (k < 0 || k == IL_LOCK_TAS)
				rc = usage_error("--lock: unknown lock '%s' (use pthread, "
						 "adaptive-np, il-none or il-bpf)",
						 optarg);
			else
				o->lock = (enum il_lock_kind)k;
			break;
		}
		case OPT_POLICY:
			if (!*optarg || strlen(optarg) >= sizeof(o->policy))
				rc = usage_error("--policy: expected a policy name or file path");
			else
				snprintf(o->policy, sizeof(o->policy), "%s", optarg);
			break;
		case OPT_PRESENT:
			if (il_present_spec_parse(optarg, &o->present, err, sizeof(err)) < 0)
				rc = usage_error("%s", err);
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_RECORDS:
			o->records_path = optarg;
			break;
		case OPT_BOUND:
			rc = num("bound-ms", optarg, 1000, 86400000, &o->bound_ms);
			break;
		case OPT_RTTIME:
			rc = num("rttime-ms", optarg, 10, 3600000, &o->rttime_ms);
			break;
		case OPT_RUNAWAY: {
			int t = il_chain_thread_parse(optarg);

			if (t < 0)
				rc = usage_error(
				    "--test-runaway: unknown thread '%s' (e.g. render:main)",
				    optarg);
			else
				o->test.runaway_thread = t;
			break;
		}
		case OPT_GARBAGE: {
			int p = il_chain_proc_parse(optarg);

			if (p < 0)
				rc = usage_error("--test-garbage: unknown child '%s' (browser-sim, "
						 "render-sim, viz-sim or il-workload)",
						 optarg);
			else
				o->test.garbage_proc = p;
			break;
		}
		case OPT_STALL: {
			bool at_stop = strcmp(optarg, "stop") == 0;
			int p = at_stop || strcmp(optarg, "none") == 0
				    ? -1
				    : il_chain_proc_parse(optarg);

			if (p < 0 && !at_stop && strcmp(optarg, "none") != 0)
				rc = usage_error(
				    "--test-stall: unknown child '%s' (none, stop, browser-sim, "
				    "render-sim, viz-sim or il-workload)",
				    optarg);
			o->test.stall = !at_stop;
			o->test.stall_at_stop = at_stop;
			o->test.stall_proc = p;
			break;
		}
		case OPT_SEED:
			rc = num("seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case OPT_TIMEOUT:
			rc = num("timeout-ms", optarg, 1, 600000, &o->timeout_ms);
			break;
		case OPT_TRACE:
			o->trace_path = optarg;
			break;
		case OPT_TRACE_MARKER:
			o->trace_marker = true;
			break;
		case OPT_TRACE_EVENTS:
			rc = num("trace-events", optarg, 1, 100000, &o->trace_events);
			break;
		case OPT_WORK:
			rc = parse_work(o, optarg);
			break;
		case OPT_WORK_MODEL:
			if (il_work_model_parse(optarg, &o->work_model) < 0)
				rc =
				    usage_error("--work-model: unknown model '%s' (use cpu-time or "
						"loops)",
						optarg);
			break;
		case OPT_NO_DMA:
			o->no_dma_latency = true;
			break;
		case OPT_WARMUP:
			rc = num("warmup", optarg, 0, 1000000, &o->warmup);
			break;
		case OPT_COARSE_CLOCK:
			o->test.coarse_clock = true;
			break;
		case OPT_WORK_SCALE:
			if (il_parse_double(optarg, 0.01, 100, &o->test.work_scale) < 0)
				rc = usage_error(
				    "--test-work-scale: '%s' is not a number from 0.01 to 100",
				    optarg);
			break;
		case OPT_HELP:
			help = true;
			break;
		case ':':
			rc = usage_error("%s needs a value", argv[optind - 1]);
			break;
		default:
			rc = usage_error("%s (see inputlat run --help)",
					 il_parse_option_error(argv, longopts, opt, sizeof(opt)));
			break;
		}
	}
	/* Before --help acts: 'run --help x' printed the help. */
	if (rc == 0 && optind < argc)
		rc = usage_error("unexpected argument '%s'", argv[optind]);
	if (rc == 0 && help) {
		print_help();
		return 1;
	}
	if (rc == 0 && o->events == 0 && o->duration_ms == 0)
		rc = usage_error("--events 0 needs --duration-ms");
	if (rc == 0 && o->hog_script && !il_hog_mode_is_js(o->hog_mode))
		rc = usage_error("--hog-script needs --hog-mode js or js-bursty (the mode is %s)",
				 il_hog_mode_name_of(o->hog_mode));
	if (rc == 0)
		rc = inert_options(o, given);
	return rc;
}
