/*
 * inputlat check: what this machine lets a run do, one line each,
 * "name: yes|no (why)". Each probe tries the real thing where that is
 * cheap and harmless (a throwaway thread for scheduling classes, writing
 * a knob's own value back), because permissions, lockdown and cgroups
 * make reading configuration a poor predictor.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/bpf.h>

#include "il_attrib_run.h"
#include "il_tracefs.h"
#include <linux/capability.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "il_background.h"
#include "il_cmd.h"
#include "il_paths.h"
#include "il_policy.h"
#include "il_present.h"
#include "il_knobs.h"
#include "il_parse.h"
#include "il_sched.h"
#include "il_sched_refusal.h"
#include "il_sysinfo.h"
#include "il_header.h"
#include "il_cpustat.h"
#include "il_file.h"

#define RT_RUNTIME IL_SYSINFO_RT_RUNTIME
#define RT_PERIOD  IL_SYSINFO_RT_PERIOD
/* The highest RT priority a built-in policy uses (rt.policy, evdev). */
#define BUILTIN_MAX_RTPRIO 60

struct check {
	const char *name;
	bool ok;
	char why[512];
};

#define MAX_CHECKS 24

struct checks {
	size_t n;
	struct check c[MAX_CHECKS];
};

__attribute__((format(printf, 4, 5))) static void add(struct checks *cs, const char *name, bool ok,
						      const char *fmt, ...)
{
	if (cs->n == MAX_CHECKS)
		return;
	struct check *c = &cs->c[cs->n++];
	c->name = name;
	c->ok = ok;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

/* The kernel asks for the capability, not the user id: root in a
 * container without CAP_SYS_NICE is refused like anyone. */
static void check_privilege(struct checks *cs)
{
	bool nice_cap = il_sysinfo_cap_effective(CAP_SYS_NICE);

	if (nice_cap)
		add(cs, "root or CAP_SYS_NICE", true, "CAP_SYS_NICE effective (euid %d)",
		    (int)geteuid());
	else
		add(cs, "root or CAP_SYS_NICE", false,
		    "euid %d%s without CAP_SYS_NICE: fifo/rr/deadline and negative nice are "
		    "refused unless RLIMIT_RTPRIO/RLIMIT_NICE allow them",
		    (int)geteuid(), geteuid() == 0 ? " (root)" : "");
}

static void check_rtprio(struct checks *cs)
{
	struct rlimit rl;
	getrlimit(RLIMIT_RTPRIO, &rl);
	if (rl.rlim_cur == RLIM_INFINITY)
		add(cs, "RLIMIT_RTPRIO", true, "unlimited");
	else
		add(cs, "RLIMIT_RTPRIO", rl.rlim_cur >= BUILTIN_MAX_RTPRIO, "%llu%s",
		    (unsigned long long)rl.rlim_cur,
		    rl.rlim_cur >= BUILTIN_MAX_RTPRIO
			? ""
			: ", below 60, the highest built-in priority; CAP_SYS_NICE "
			  "bypasses it");
}

struct probe {
	struct il_role_attrs a;
	int r;
	char err[256];
	struct il_sched_state got;
};

/* Tries attributes on a thread that exits right after, so the probe can
 * never leave this process's own threads changed. */
static void *probe_main(void *arg)
{
	struct probe *p = arg;
	p->r = il_sched_apply_self(&p->a, NULL, p->err, sizeof(p->err));
	if (p->r == 0)
		il_sched_read(0, &p->got);
	struct il_role_attrs other = {.sched_class = SCHED_OTHER};
	char e[64];
	il_sched_apply_self(&other, NULL, e, sizeof(e));
	return NULL;
}

static int run_probe(struct probe *p)
{
	pthread_t t;
	int r = pthread_create(&t, NULL, probe_main, p);
	if (r) {
		snprintf(p->err, sizeof(p->err), "pthread_create: %s", strerror(r));
		return -r;
	}
	pthread_join(t, NULL);
	return p->r;
}

static void check_deadline(struct checks *cs)
{
	/* 100 us every 10 ms: 1% of one CPU, admissible anywhere it is allowed. */
	struct probe p = {.a = {.sched_class = SCHED_DEADLINE,
				.dl_runtime_ns = 100000,
				.dl_deadline_ns = 10000000,
				.dl_period_ns = 10000000}};
	if (run_probe(&p) == 0)
		add(cs, "SCHED_DEADLINE admission", true,
		    "admitted 100 us / 10 ms on a test thread");
	else
		add(cs, "SCHED_DEADLINE admission", false, "%s", p.err);
}

/* fifo as a run's threads get it (under RLIMIT_RTTIME, which the probe
 * needs): privilege is not the only gate, an RT group without runtime
 * refuses root too. */
static void check_fifo(struct checks *cs)
{
	struct probe p = {.a = {.sched_class = SCHED_FIFO, .priority = 1}};
	struct rlimit rl;

	if (getrlimit(RLIMIT_RTTIME, &rl) == 0 && rl.rlim_max == RLIM_INFINITY)
		il_rttime_limit_set(500000, 1000000);
	if (run_probe(&p) == 0)
		add(cs, "SCHED_FIFO on a test thread", true,
		    "fifo priority 1 applied and read back");
	else
		add(cs, "SCHED_FIFO on a test thread", false, "%s", p.err);
}

static void check_slice(struct checks *cs)
{
	struct probe p = {.a = {.sched_class = SCHED_OTHER, .slice_ns = 1000000}};
	if (run_probe(&p) == 0)
		add(cs, "EEVDF custom slice", true, "1000 us slice read back on a test thread");
	else
		add(cs, "EEVDF custom slice", false, "%s", p.err);
}

/* uclamp is the one feature a policy may mark optional: a missing one is
 * listed again under "optional features missing". */
static void check_uclamp(struct checks *cs)
{
	char why[160];
	int u = il_sysinfo_uclamp(why, sizeof(why));

	add(cs, "uclamp", u == 1, "%s%s", why,
	    u == 0 ? "; policies run without their optional uclamp_min/uclamp_max" : "");
}

/*
 * Writability is proved by writing the value in force back, which is
 * harmless only while no run can change it between our read and our
 * write: so only under the machine's knob lock. Without it the knob is
 * read, not written.
 */
static void check_rt_runtime(struct checks *cs, bool locked, const char *lock_why)
{
	char runtime[32], period[32] = "?";
	int r = il_sysinfo_read_value(RT_RUNTIME, runtime, sizeof(runtime));
	if (r) {
		add(cs, "sched_rt_runtime_us", false, RT_RUNTIME ": %s", strerror(-r));
		return;
	}
	if (il_sysinfo_read_value(RT_PERIOD, period, sizeof(period)) < 0)
		snprintf(period, sizeof(period), "?");
	if (!locked) {
		bool w = access(RT_RUNTIME, W_OK) == 0;

		add(cs, "sched_rt_runtime_us", w, "%s of %s us%s, %s (not written: %s)", runtime,
		    period, strcmp(runtime, "-1") == 0 ? " (no legacy RT throttling)" : "",
		    w ? "writable by its mode" : "not writable", lock_why);
		return;
	}
	int e = 0;
	int fd = open(RT_RUNTIME, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, runtime, strlen(runtime)) < 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	add(cs, "sched_rt_runtime_us", e == 0, "%s of %s us%s, %s%s", runtime, period,
	    strcmp(runtime, "-1") == 0 ? " (no legacy RT throttling)" : "",
	    e ? "not writable: " : "writable", e ? strerror(e) : "");
}

static void check_fair_server(struct checks *cs, struct il_fair_server *fs)
{
	il_fair_server_probe(fs);
	add(cs, "fair server present", fs->present, "%s", fs->why);
	if (fs->readable)
		add(cs, "fair server readable", true, "runtime %lld ns, period %lld ns (read)",
		    (long long)fs->runtime_ns, (long long)fs->period_ns);
	else
		add(cs, "fair server readable", false, "%s%s",
		    fs->present ? "runtime 50000000 ns, period 1000000000 ns assumed (kernel "
				  "defaults, unless someone changed them); "
				: "",
		    fs->why);
	add(cs, "fair server tunable", fs->tunable, "%s",
	    fs->tunable	  ? "debugfs writable"
	    : fs->present ? "runs with the values in force; rt-fair-server reports tunable: false"
			  : "no fair server");
}

/* RT group scheduling: the same probe the knobs use, so `check` and `run`
 * agree; the kernel config is the fallback witness. */
static void check_rt_group(struct checks *cs)
{
	char dir[256], v[32], cfg[8];

	if (il_sysinfo_rt_group_root(dir, sizeof(dir)) == 0) {
		char path[300];

		snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
		if (il_sysinfo_read_value(path, v, sizeof(v)) < 0)
			snprintf(v, sizeof(v), "unreadable");
		add(cs, "RT_GROUP_SCHED", true,
		    "%s = %s; inputlat lowers it along with sched_rt_runtime_us", path, v);
	} else if (il_sysinfo_kconfig("CONFIG_RT_GROUP_SCHED", cfg, sizeof(cfg)) == 0 &&
		   strcmp(cfg, "y") == 0) {
		add(cs, "RT_GROUP_SCHED", true,
		    "kernel config says y, but no cgroup-v1 cpu hierarchy exposes "
		    "cpu.rt_runtime_us");
	} else {
		add(cs, "RT_GROUP_SCHED", false,
		    "no cpu.rt_runtime_us in any mounted cgroup-v1 cpu hierarchy");
	}
}

static void check_uinput(struct checks *cs)
{
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		add(cs, "/dev/uinput", true, "opened for writing");
	} else if (errno == ENOENT) {
		add(cs, "/dev/uinput", false,
		    "/dev/uinput missing: kernel built without "
		    "CONFIG_INPUT_UINPUT (or module not loaded); input is synthetic");
	} else {
		add(cs, "/dev/uinput", false, "%s", strerror(errno));
	}
}

static void check_drm(struct checks *cs)
{
	/* The same probe `run --present drm` makes: a card with KMS resources
	 * and dumb buffers (render-only nodes such as vgem do not count). */
	struct il_present_spec spec = {.kind = IL_PRESENT_DRM};
	char err[256];

	if (il_present_check(&spec, err, sizeof(err)) == 0)
		add(cs, "DRM KMS devices", true,
		    "a KMS-capable card under /dev/dri (--present drm works)");
	else
		add(cs, "DRM KMS devices", false, "%s: page flips are simulated", err);
}

static void check_bpf(struct checks *cs)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	int fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd >= 0) {
		close(fd);
		add(cs, "BPF allowed", true, "created a 1-entry array map");
	} else {
		int e = errno;
		add(cs, "BPF allowed", false, "bpf(BPF_MAP_CREATE): %s%s", strerror(e),
		    e == EPERM ? " (needs CAP_BPF, or kernel.unprivileged_bpf_disabled=0)" : "");
	}
}

/* ", and tracing_on is 0: ..." when the kernel would drop the markers. */
static const char *tracing_off_note(void)
{
	return il_tracefs_tracing_on() == 0
		   ? "; but tracing_on is 0, so the markers are dropped until tracing is on"
		   : "";
}

static void check_tracefs(struct checks *cs)
{
	static const char *const paths[] = {"/sys/kernel/tracing/trace_marker",
					    "/sys/kernel/debug/tracing/trace_marker"};
	int fd;

	for (size_t i = 0; i < 2; i++)
		if (access(paths[i], W_OK) == 0) {
			add(cs, "tracefs", true, "%s writable%s", paths[i], tracing_off_note());
			return;
		}
	/* What run --trace-marker does: a private mount of tracefs. */
	fd = il_tracefs_open_marker();
	if (fd >= 0) {
		close(fd);
		add(cs, "tracefs", true,
		    "not mounted, but trace_marker opens in a private mount "
		    "namespace: run --trace-marker works%s",
		    tracing_off_note());
		return;
	}
	add(cs, "tracefs", false,
	    "no writable trace_marker under /sys/kernel/tracing "
	    "or /sys/kernel/debug/tracing, and mounting tracefs privately failed: %s",
	    strerror(-fd));
}

/* What a run's --attribution auto will find: the BPF capture loads and attaches. */
static void check_attribution(struct checks *cs)
{
	struct il_attrib_run *r = NULL;
	char why[256] = "";

	if (il_attrib_run_new(IL_ATTRIB_ON, &r, why, sizeof(why)) == 0) {
		add(cs, "attribution", true,
		    "the sched tracepoint programs load and attach: "
		    "run --attribution works");
		il_attrib_run_free(r);
	} else {
		add(cs, "attribution", false, "%s", why[0] ? why : "out of memory");
	}
}

/*
 * Takes the machine's knob lock (kept in *lock for the probes that write),
 * which puts back what a dead run left. lock_why says why there is no
 * lock when there is none.
 */
static void check_stale(struct checks *cs, const char *state_dir, struct il_knobs_lock **lock,
			char *lock_why, size_t why_len)
{
	char *log = NULL, err[512] = "";
	size_t len = 0;
	FILE *mem = open_memstream(&log, &len);
	int r = il_knobs_lock(state_dir, mem, lock, err, sizeof(err));
	if (mem)
		fclose(mem);
	const char *text = log ? log : "";
	if (*text)
		fputs(text, stderr); /* the one line saying what was restored */
	char msg[256];
	snprintf(msg, sizeof(msg), "%s", strncmp(text, "inputlat: ", 10) == 0 ? text + 10 : text);
	msg[strcspn(msg, "\n")] = '\0';
	snprintf(lock_why, why_len, "%s", r == 0 ? "" : err[0] ? err : strerror(-r));
	if (r == 0 && *msg)
		add(cs, "stale knobs found", true, "%s", msg);
	else if (r == 0 || r == -EBUSY || r == -EACCES)
		add(cs, "stale knobs found", false, "%s",
		    r == 0	  ? "nothing left by a dead run"
		    : r == -EBUSY ? "not looked for: a live run holds the knobs"
				  : "not looked for: the knob lock needs root");
	else
		add(cs, "stale knobs found", false, "%s", err[0] ? err : strerror(-r));
	free(log);
}

/* A background load a SIGKILLed run left running is stopped here too. */
static void check_stale_background(struct checks *cs, const char *state_dir)
{
	char *log = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&log, &len);
	int n = il_background_recover_stale(state_dir, mem);

	if (mem)
		fclose(mem);
	if (log && *log)
		fputs(log, stderr); /* one line per group killed */
	if (n > 0)
		add(cs, "stale background load found", true,
		    "killed %d process group%s a dead run "
		    "left running",
		    n, n == 1 ? "" : "s");
	else if (n == 0 || n == -ENOENT)
		add(cs, "stale background load found", false, "nothing left by a dead run");
	else if (n == -EACCES || n == -EPERM)
		add(cs, "stale background load found", false, "not looked for: %s needs root (%s)",
		    state_dir, strerror(-n));
	else
		add(cs, "stale background load found", false, "not looked for: %s: %s", state_dir,
		    strerror(-n));
	free(log);
}

static bool answer(const struct checks *cs, const char *name)
{
	for (size_t i = 0; i < cs->n; i++)
		if (strcmp(cs->c[i].name, name) == 0)
			return cs->c[i].ok;
	return false;
}

/* Whether the policy's RT knobs differ from what is in force: a run
 * leaves values already in force alone, so only then must they be
 * writable (an unreadable knob counts as needing a write). */
static bool rt_writes_needed(const struct il_knob_settings *k)
{
	char err[256];
	size_t n = 0;

	return il_knobs_rt_writes(k, &n, err, sizeof(err)) < 0 || n > 0;
}

/*
 * Whether a policy can run here, from the checks above: what it needs
 * (an RT class, deadline, a custom slice, RT knobs, the fair server) against
 * what this machine said yes to. why names the first missing piece.
 */
static bool policy_can_run(const struct checks *cs, const struct il_policy *p, char *why,
			   size_t len)
{
	const struct il_knob_settings *k = il_policy_knobs(p);
	const struct il_role_attrs *a;
	bool rt = false, dl = false, slice = false, clamp = false, clamp_required = false;

	for (size_t i = 0; (a = il_policy_attrs_at(p, i, NULL)); i++) {
		unsigned clamps = (a->has_uclamp_min ? IL_OPT_UCLAMP_MIN : 0u) |
				  (a->has_uclamp_max ? IL_OPT_UCLAMP_MAX : 0u);

		rt |= il_sched_class_is_rt(a->sched_class);
		dl |= a->sched_class == SCHED_DEADLINE;
		slice |= a->slice_ns != 0;
		clamp |= clamps != 0;
		clamp_required |= (clamps & ~a->optional) != 0;
	}
	snprintf(why, len, "everything it needs is here");
	if (clamp && !answer(cs, "uclamp"))
		snprintf(why, len, "without its optional uclamp: the kernel has none");
	for (size_t i = 0; (a = il_policy_attrs_at(p, i, NULL)); i++)
		if (!il_sched_refusal_privileged(a, why, len))
			return false;
	/* With RT throttling off the kernel does not look at RT groups. */
	if (rt && !answer(cs, "SCHED_FIFO on a test thread") &&
	    !(k->has_rt_runtime && k->rt_runtime_us < 0))
		snprintf(why, len, "SCHED_FIFO is refused here (see its check)");
	else if (dl && !answer(cs, "SCHED_DEADLINE admission"))
		snprintf(why, len, "SCHED_DEADLINE is not admitted here");
	else if (slice && !answer(cs, "EEVDF custom slice"))
		snprintf(why, len, "EEVDF custom slices need Linux 6.12+");
	else if ((k->has_rt_runtime || k->has_rt_period) && !answer(cs, "sched_rt_runtime_us") &&
		 rt_writes_needed(k))
		snprintf(why, len, "sched_rt_runtime_us is not writable");
	else if (k->has_fair_server && !answer(cs, "fair server present"))
		snprintf(why, len, "fair server not present (see its check)");
	else if (clamp_required && !answer(cs, "uclamp"))
		snprintf(why, len,
			 "uclamp_min/uclamp_max not marked optional, and the kernel "
			 "has no uclamp");
	else
		return true;
	return false;
}

/* The features a policy may mark optional that this kernel lacks. Text:
 * one line, "optional features missing: uclamp (why)" or "...: none";
 * JSON: optional_missing[{feature, why}]. */
static void optional_missing(const struct checks *cs, cJSON *arr)
{
	static const char *const optional[] = {"uclamp"};
	char line[512] = "";
	size_t off = 0;

	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		for (size_t j = 0; j < cs->n; j++) {
			if (strcmp(cs->c[j].name, optional[i]) != 0 || cs->c[j].ok)
				continue;
			if (arr) {
				cJSON *o = cJSON_CreateObject();

				cJSON_AddStringToObject(o, "feature", optional[i]);
				cJSON_AddStringToObject(o, "why", cs->c[j].why);
				cJSON_AddItemToArray(arr, o);
			} else if (off < sizeof(line)) {
				off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s (%s)",
							off ? ", " : "", optional[i], cs->c[j].why);
			}
		}
	if (!arr)
		printf("optional features missing: %s\n", off ? line : "none");
}

/*
 * A policy directory with no policy in it (IL_POLICY_DIR at an empty or a
 * wrong directory) listed no policy and exited 0, as if each had been
 * judged; 'policies' and 'run --policy' refuse it. Said as 'policies' says
 * it, after the checks: a wrong policy directory must not keep check from
 * restoring what a dead run left (its first duty). 0, or -1 with the line
 * said.
 */
static int policies_there(void)
{
	char dir[4096];
	char **names = NULL;
	size_t n = 0;
	int r;

	il_paths_policies(dir, sizeof(dir));
	r = il_policy_list(dir, &names, &n);
	if (r) {
		fprintf(stderr, "inputlat check: %s: %s\n", dir, strerror(-r));
		return -1;
	}
	il_policy_list_free(names, n);
	if (!n) {
		fprintf(stderr, "inputlat check: no *.policy files in %s\n", dir);
		return -1;
	}
	return 0;
}

/* Text: one line per built-in; JSON: policies[{name, can_run, why}]. */
static void check_policies(const struct checks *cs, cJSON *arr)
{
	char dir[4096], err[512], why[160];
	char **names = NULL;
	size_t n = 0;

	il_paths_policies(dir, sizeof(dir));
	if (il_policy_list(dir, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct il_policy *p = NULL;
		bool ok = false;

		if (il_policy_load(names[i], dir, &p, err, sizeof(err)) < 0)
			snprintf(why, sizeof(why), "does not load: %.100s", err);
		else
			ok = policy_can_run(cs, p, why, sizeof(why));
		il_policy_free(p);
		if (arr) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "name", names[i]);
			cJSON_AddBoolToObject(o, "can_run", ok);
			cJSON_AddStringToObject(o, "why", why);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("policy %s: %s (%s)\n", names[i], ok ? "yes" : "no", why);
		}
	}
	il_policy_list_free(names, n);
}

/* Steal time since boot over every CPU, from one /proc/stat snapshot. */
static void steal_since_boot(cJSON *sys)
{
	struct il_cpustat *s = NULL;
	uint64_t steal = 0, total = 0;
	int r = il_cpustat_read(&s);
	char why[200];

	if (r < 0) {
		char what[64];

		snprintf(why, sizeof(why), "unreadable: /proc/stat: %s",
			 il_cpustat_why(r, what, sizeof(what)));
		cJSON_AddStringToObject(sys, "steal_since_boot_pct", why);
		return;
	}
	for (unsigned i = 0; i < il_cpustat_ncpu(s); i++) {
		const struct il_cpustat_cpu *c = il_cpustat_cpu(s, i);

		if (c->present) {
			steal += c->steal;
			total += il_cpustat_total(c);
		}
	}
	r = il_sysinfo_steal_told(s, why, sizeof(why));
	il_cpustat_free(s);
	if (!r)
		cJSON_AddStringToObject(sys, "steal_since_boot_pct", why);
	else if (total)
		cJSON_AddNumberToObject(sys, "steal_since_boot_pct",
					100.0 * (double)steal / (double)total);
	else
		cJSON_AddStringToObject(sys, "steal_since_boot_pct",
					"unreadable: no CPU time in /proc/stat");
}

/* What this kernel and machine are (the facts every report carries), into
 * root's kernel and a new system object. */
static void add_facts(cJSON *root)
{
	cJSON *sys = cJSON_AddObjectToObject(root, "system");

	il_sysinfo_kernel_facts(cJSON_GetObjectItemCaseSensitive(root, "kernel"));
	il_sysinfo_system_facts(sys);
	steal_since_boot(sys);
}

/* One "name: value" line per fact, nested keys joined with dots. */
static void print_fact(const char *prefix, const cJSON *v)
{
	char name[128];
	const cJSON *c;

	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach (c, v) {
			snprintf(name, sizeof(name), "%s.%s", prefix, c->string);
			print_fact(name, c);
		}
		return;
	}
	printf("%s: ", prefix);
	if (cJSON_IsString(v)) {
		printf("%s\n", v->valuestring);
	} else if (cJSON_IsBool(v)) {
		printf("%s\n", cJSON_IsTrue(v) ? "yes" : "no");
	} else if (cJSON_IsArray(v)) {
		/* [{cpu, runtime_ns, period_ns}]: "cpu0 50000000/1000000000 ns, ..." */
		cJSON_ArrayForEach (c, v)
			printf("%scpu%g %g/%g ns", c == v->child ? "" : ", ",
			       cJSON_GetNumberValue(cJSON_GetObjectItem(c, "cpu")),
			       cJSON_GetNumberValue(cJSON_GetObjectItem(c, "runtime_ns")),
			       cJSON_GetNumberValue(cJSON_GetObjectItem(c, "period_ns")));
		printf("\n");
	} else {
		char *t = cJSON_PrintUnformatted(v);

		printf("%s\n", t ? t : "?");
		cJSON_free(t);
	}
}

/* Text: the facts of the header and add_facts, "# kernel and machine" first. */
static void print_facts(void)
{
	cJSON *root = il_header_new(1, "", NULL), *c;

	if (!root)
		return;
	add_facts(root);
	printf("# kernel and machine (what a report records)\n");
	printf("tool_version: %s\n", il_version());
	cJSON_ArrayForEach (c, cJSON_GetObjectItemCaseSensitive(root, "kernel"))
		print_fact(c->string, c);
	cJSON_ArrayForEach (c, cJSON_GetObjectItemCaseSensitive(root, "system"))
		print_fact(c->string, c);
	cJSON_Delete(root);
}

static int print_json(const struct checks *cs, const struct il_fair_server *fs, int argc,
		      char **argv)
{
	char *cmdline = il_cmdline_join("inputlat", argc, argv);
	cJSON *root = il_header_new(1, cmdline, NULL);
	free(cmdline);
	if (!root)
		return 1;
	cJSON *kernel = cJSON_GetObjectItemCaseSensitive(root, "kernel");
	cJSON *jfs = cJSON_AddObjectToObject(kernel, "fair_server");
	cJSON_AddBoolToObject(jfs, "present", fs->present);
	cJSON_AddBoolToObject(jfs, "readable", fs->readable);
	cJSON_AddBoolToObject(jfs, "tunable", fs->tunable);
	if (fs->readable) {
		cJSON_AddNumberToObject(jfs, "runtime_ns", (double)fs->runtime_ns);
		cJSON_AddNumberToObject(jfs, "period_ns", (double)fs->period_ns);
	} else {
		cJSON_AddNullToObject(jfs, "runtime_ns");
		cJSON_AddNullToObject(jfs, "period_ns");
	}
	{
		int64_t v;

		/* The value in force, plain, for scripts (the checks say it in words). */
		if (il_sysinfo_rt_runtime_us(&v) == 0)
			cJSON_AddNumberToObject(kernel, "sched_rt_runtime_us", (double)v);
		else
			cJSON_AddNullToObject(kernel, "sched_rt_runtime_us");
	}
	add_facts(root);
	check_policies(cs, cJSON_AddArrayToObject(root, "policies"));
	optional_missing(cs, cJSON_AddArrayToObject(root, "optional_missing"));
	cJSON *arr = cJSON_AddArrayToObject(root, "checks");
	for (size_t i = 0; i < cs->n; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", cs->c[i].name);
		cJSON_AddBoolToObject(c, "ok", cs->c[i].ok);
		cJSON_AddStringToObject(c, "why", cs->c[i].why);
		cJSON_AddItemToArray(arr, c);
	}
	/* Kernel facts and paths are bytes, not UTF-8: made valid like every JSON written. */
	char *text = il_json_sanitize(root) == 0 ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	if (!text) {
		fprintf(stderr, "inputlat check: out of memory\n");
		return 1;
	}
	printf("%s\n", text);
	cJSON_free(text);
	return 0;
}

int il_cmd_check(int argc, char **argv)
{
	bool json = false, help = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			help = true; /* after the rest: 'check --help x' printed it */
		} else {
			fprintf(stderr,
				"inputlat check: unknown option '%s' (want --json or "
				"--help)\n",
				argv[i]);
			return 2;
		}
	}
	if (help) {
		printf("Usage: inputlat check [--json]\n"
		       "  --json   print the checks as a JSON object instead of lines\n"
		       "Restores system knobs left by a dead run, then prints one line per\n"
		       "capability: \"name: yes|no (why)\", then one per built-in policy: can "
		       "it\n"
		       "run here. Exits 0, or 1 when the policy directory holds no policy.\n");
		return 0;
	}
	struct checks *cs = calloc(1, sizeof(*cs));
	struct il_fair_server fs;
	if (!cs) {
		fprintf(stderr, "inputlat check: out of memory\n");
		return 1;
	}
	/* The lock first: no run may change a knob while we probe it. */
	struct il_knobs_lock *lock = NULL;
	char lock_why[512];
	check_stale(cs, il_knobs_state_dir(), &lock, lock_why, sizeof(lock_why));
	check_stale_background(cs, il_knobs_state_dir());
	check_privilege(cs);
	check_rtprio(cs);
	check_fifo(cs);
	check_deadline(cs);
	check_rt_runtime(cs, lock != NULL, lock_why);
	check_fair_server(cs, &fs);
	check_slice(cs);
	check_uclamp(cs);
	check_rt_group(cs);
	check_uinput(cs);
	check_drm(cs);
	check_bpf(cs);
	check_attribution(cs);
	check_tracefs(cs);
	il_knobs_unlock(lock);

	int rc = 0;
	if (json)
		rc = print_json(cs, &fs, argc, argv);
	else {
		for (size_t i = 0; i < cs->n; i++)
			printf("%s: %s (%s)\n", cs->c[i].name, cs->c[i].ok ? "yes" : "no",
			       cs->c[i].why);
		optional_missing(cs, NULL);
		check_policies(cs, NULL);
		print_facts();
	}
	free(cs);
	if (policies_there() < 0)
		return 1;
	return rc;
}
