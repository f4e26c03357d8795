/* JS-like hog threads (render-sim/il_hog): accounting, names, modes, stop. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "il_clock.h"
#include "il_hog.h"
#include "il_js.h"
#include "il_test.h"
#include "il_test_proc.h"

static int init_calls;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* Stands in for the policy engine: only names the thread. */
static int name_only_init(void *ctx, enum il_role role, const char *name, char *err, size_t len)
{
	assert_int_equal(role, IL_ROLE_JS);
	pthread_mutex_lock(&init_lock);
	init_calls++;
	pthread_mutex_unlock(&init_lock);
	return -pthread_setname_np(pthread_self(), name);
}

static int failing_init(void *ctx, enum il_role role, const char *name, char *err, size_t len)
{
	snprintf(err, len, "%s: SCHED_FIFO priority 50 needs CAP_SYS_NICE", name);
	return -EPERM;
}

static const cJSON *thread_entry(const cJSON *stats, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(stats, "per_thread"), i);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_hog_share_matches_proc(void **state)
{
	struct il_hog_config c = {.threads = 1, .mode = IL_HOG_BUSY, .pin = true};
	struct il_hog *h = NULL;
	char err[256] = "", path[64], comm[32] = "";
	uint64_t proc0, proc1, t0, wall;
	cJSON *stats;
	FILE *f;
	int tid;

	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	stats = il_hog_stats_json(h, 0);
	tid = (int)num(thread_entry(stats, 0), "tid");
	cJSON_Delete(stats);

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	assert_string_equal(comm, "render:js0\n");

	proc0 = il_test_task_cpu_ns(tid);
	il_hog_mark_start(h);
	t0 = il_now_ns();
	usleep(1000000);
	proc1 = il_test_task_cpu_ns(tid);
	wall = il_now_ns() - t0;
	stats = il_hog_stats_json(h, wall);
	il_hog_stop(h);

	double share = num(stats, "cpu_share");
	double proc_share = (double)(proc1 - proc0) / (double)wall;

	/* A pinned hog on one CPU: "cpus" is 1, so the shares compare. */
	assert_int_equal((int)num(stats, "cpus"), 1);
	assert_true(num(thread_entry(stats, 0), "iterations") > 0);
	assert_true(num(thread_entry(stats, 0), "cpu") >= 0);
	print_message("hog cpu_share %.3f, /proc says %.3f\n", share, proc_share);
	assert_true(share > 0.0 && share <= 1.05);
	assert_true(share - proc_share < 0.10 && proc_share - share < 0.10);
	cJSON_Delete(stats);
}

/*
 * /proc/stat unreadable (/dev/null bound over it: an empty read): the
 * idle waste is null and idle_waste_why says why, in words ("empty", not
 * "Invalid argument"); both were null before. In a child, in its own
 * mount namespace.
 */
static void test_hog_idle_waste_why(void **state)
{
	struct il_hog_config c = {.threads = 1, .mode = IL_HOG_BUSY};
	int fds[2];
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		IL_TEST_SKIP("needs root to bind /dev/null over /proc/stat");
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct il_hog *h = NULL;
		const cJSON *pct, *why;
		char err[256] = "", out[400];
		cJSON *stats;
		int ok;

		close(fds[0]);
		if (unshare(CLONE_NEWNS) != 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("/dev/null", "/proc/stat", NULL, MS_BIND, NULL) != 0)
			_exit(77);
		if (il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)) < 0) {
			snprintf(out, sizeof(out), "il_hog_start: %s", err);
			ok = 0;
		} else {
			il_hog_mark_start(h);
			usleep(50000);
			stats = il_hog_stats_json(h, 0);
			il_hog_stop(h);
			pct = cJSON_GetObjectItem(stats, "idle_waste_pct");
			why = cJSON_GetObjectItem(stats, "idle_waste_why");
			ok = cJSON_IsNull(pct) && cJSON_IsString(why) &&
			     !strcmp(why->valuestring,
				     "unreadable: /proc/stat at the hogs' start: empty");
			snprintf(out, sizeof(out), "idle_waste_pct %s, idle_waste_why %s",
				 cJSON_IsNull(pct) ? "null" : "a number",
				 cJSON_IsString(why) ? why->valuestring : "(not a string)");
			cJSON_Delete(stats);
		}
		if (write(fds[1], out, strlen(out)) < 0)
			_exit(2);
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	il_test_child_judge(pid, fds[0], "no private mount namespace to bind /dev/null in");
}

/* The repository's miner, as the harness hands it to render-sim. */
static char *miner(void)
{
	const char *src_dir = getenv("IL_SOURCE_DIR");
	char path[4096], err[256];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/render-sim/js/miner.js", src_dir ? src_dir : "..");
	if (il_js_read_file(path, &text, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return text;
}

/* The JavaScript hog runs the miner, one tick() per iteration, and its CPU
 * share is what the kernel accounted, within 10 points. */
/*
 * Waits (30 s at most) until the hog's stats say key > above, key from
 * hog thread 0's entry when thread is true; returns those stats. Progress
 * a test then asserts on is waited for, not assumed after a fixed time.
 */
static cJSON *wait_stat(struct il_hog *h, const char *key, bool thread, double above)
{
	for (uint64_t t0 = il_now_ns();; usleep(10000)) {
		cJSON *stats = il_hog_stats_json(h, 0);
		double v = num(thread ? thread_entry(stats, 0) : stats, key);

		if (v > above)
			return stats;
		cJSON_Delete(stats);
		if (il_now_ns() - t0 > il_ms_to_ns(30000))
			fail_msg("hog %s still %.0f after 30 s, want more than %.0f", key, v,
				 above);
	}
}

static void test_hog_js_share_matches_proc(void **state)
{
	char *src = miner();
	struct il_hog_config c = {.threads = 1,
				  .mode = IL_HOG_BUSY,
				  .pin = true,
				  .script = src,
				  .script_name = "miner.js"};
	struct il_hog *h = NULL;
	char err[256] = "";
	uint64_t proc0, proc1, t0, wall;
	cJSON *stats;
	int tid;

	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	stats = il_hog_stats_json(h, 0);
	tid = (int)num(thread_entry(stats, 0), "tid");
	cJSON_Delete(stats);
	proc0 = il_test_task_cpu_ns(tid);
	il_hog_mark_start(h);
	t0 = il_now_ns();
	/* A second at least, and a hundred ticks: a tick is about 0.4 ms of
	 * SHA-256, so a second holds hundreds, fewer under a sanitizer on a
	 * busy machine. */
	usleep(1000000);
	cJSON_Delete(wait_stat(h, "iterations", true, 100));
	proc1 = il_test_task_cpu_ns(tid);
	wall = il_now_ns() - t0;
	stats = il_hog_stats_json(h, wall);
	il_hog_stop(h);
	free(src);

	double share = num(stats, "cpu_share");
	double proc_share = (double)(proc1 - proc0) / (double)wall;

	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(stats, "mode")), "js");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(stats, "engine")),
			    il_js_engine());
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(stats, "script")), "miner.js");
	/* A tick is about 0.4 ms of SHA-256: a second holds hundreds. */
	assert_true(num(thread_entry(stats, 0), "iterations") > 100);
	assert_int_equal(num(stats, "js_errors"), 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(stats, "js_first_error")));
	assert_true(num(stats, "js_heap_peak_bytes") > 0);
	assert_true(num(stats, "js_heap_peak_bytes") < 1 << 20);
	print_message("js hog cpu_share %.3f, /proc says %.3f, %.0f ticks, heap peak %.0f KiB\n",
		      share, proc_share, num(thread_entry(stats, 0), "iterations"),
		      num(stats, "js_heap_peak_bytes") / 1024);
	assert_true(share > 0.0 && share <= 1.05);
	assert_true(share - proc_share < 0.10 && proc_share - share < 0.10);
	cJSON_Delete(stats);
}

/* A script that keeps every object it makes meets the cap: its ticks throw
 * (counted, the first message kept), the heap never passes the cap, and
 * the hog goes on burning CPU and stops promptly. */
static void test_hog_js_memory_bounded(void **state)
{
	static const char hoarder[] = "var keep = [];\n"
				      "function tick() { for (var i = 0; i < 200; i++) "
				      "keep.push({ i: i, s: 'x' + i }); }\n";
	struct il_hog_config c = {.threads = 1,
				  .mode = IL_HOG_BUSY,
				  .script = hoarder,
				  .script_name = "hoarder.js",
				  .js_heap_max = 2u << 20};
	struct il_hog *h = NULL;
	char err[256] = "";
	cJSON *stats;
	double ticks;

	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	il_hog_mark_start(h);
	/* Ticks until the heap meets the cap and they throw, however long
	 * this machine takes for them. */
	stats = wait_stat(h, "js_errors", false, 0);
	ticks = num(thread_entry(stats, 0), "iterations");
	uint64_t t0 = il_now_ns();
	struct il_test_others_mark mark;

	il_test_others_mark(&mark);
	il_hog_stop(h);
	il_test_assert_prompt("the hoarder's stop", il_now_ns() - t0, il_ms_to_ns(500),
			      il_test_others_since(&mark));

	print_message("hoarder: %.0f ticks, %.0f threw, first: %s, peak %.0f KiB of %.0f\n", ticks,
		      num(stats, "js_errors"),
		      cJSON_GetStringValue(cJSON_GetObjectItem(stats, "js_first_error")),
		      num(stats, "js_heap_peak_bytes") / 1024,
		      num(stats, "js_heap_max_bytes") / 1024);
	assert_int_equal(num(stats, "js_heap_max_bytes"), 2u << 20);
	assert_true(num(stats, "js_heap_peak_bytes") <= 2u << 20);
	assert_true(num(stats, "js_errors") > 0);
	assert_true(ticks > num(stats, "js_errors") / 2);
	assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(stats, "js_first_error")),
			       "out of memory"));
	cJSON_Delete(stats);
}

/* A script that does not compile fails the start with FILE:LINE before
 * any hog thread exists; one without tick() likewise. */
static void test_hog_js_bad_script(void **state)
{
	struct il_hog_config c = {.threads = 2,
				  .mode = IL_HOG_BUSY,
				  .script = "function tick() {\n  return 1 +;\n}\n",
				  .script_name = "bad.js"};
	struct il_hog *h = (struct il_hog *)0x1;
	char err[256] = "";
	int calls;

	pthread_mutex_lock(&init_lock);
	calls = init_calls;
	pthread_mutex_unlock(&init_lock);
	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad.js:2: SyntaxError: unexpected token in expression: ';'");
	assert_ptr_equal(h, (struct il_hog *)0x1);
	c.script = "var x = 1;\n";
	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "bad.js: defines no function tick() (the hog calls tick() over and "
			    "over; see render-sim/js/miner.js)");
	c.script = "throw new Error('no');\nfunction tick() {}\n";
	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad.js: Error: no (running its top level)");
	pthread_mutex_lock(&init_lock);
	assert_int_equal(init_calls, calls);
	pthread_mutex_unlock(&init_lock);
	assert_int_equal(il_js_check("x = (;\n", "a.js", err, sizeof(err)), -EINVAL);
	assert_int_equal(il_js_check("while (true) {}\n", "loop.js", err, sizeof(err)), 0);
}

static void test_hog_js_modes(void **state)
{
	enum il_hog_pattern p;
	bool js;

	assert_int_equal(il_hog_mode_split("js", &p, &js), 0);
	assert_true(js && p == IL_HOG_BUSY);
	assert_int_equal(il_hog_mode_split("js-bursty", &p, &js), 0);
	assert_true(js && p == IL_HOG_BURSTY);
	assert_int_equal(il_hog_mode_split("bursty", &p, &js), 0);
	assert_true(!js && p == IL_HOG_BURSTY);
	assert_int_equal(il_hog_mode_split("busy", &p, &js), 0);
	assert_true(!js && p == IL_HOG_BUSY);
	assert_int_equal(il_hog_mode_split("jsx", &p, &js), -EINVAL);
	assert_int_equal(il_hog_mode_split(NULL, &p, &js), -EINVAL);
}

/* One busy hog pinned on each allowed CPU, started (must succeed). */
static struct il_hog *start_one_per_cpu(struct il_hog_config *c, cpu_set_t *allowed,
					const _Atomic uint64_t *halt_word)
{
	struct il_hog *h = NULL;
	char err[256] = "";

	*c = (struct il_hog_config){.mode = IL_HOG_BUSY, .pin = true, .halt_word = halt_word};
	assert_int_equal(sched_getaffinity(0, sizeof(*allowed), allowed), 0);
	c->threads = (unsigned)CPU_COUNT(allowed);
	assert_int_equal(il_hog_start(c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	return h;
}

static void test_hog_one_per_cpu(void **state)
{
	cpu_set_t allowed;
	struct il_hog_config c;
	struct il_hog *h;
	cJSON *stats;

	init_calls = 0;
	h = start_one_per_cpu(&c, &allowed, NULL);
	assert_int_equal(init_calls, (int)c.threads);
	assert_int_equal(CPU_COUNT(il_hog_cpus(h)), CPU_COUNT(&allowed));
	usleep(200000);
	stats = il_hog_stats_json(h, 0);
	il_hog_stop(h);
	/* Every hog sits on its own allowed CPU. */
	for (unsigned i = 0; i < c.threads; i++) {
		int cpu = (int)num(thread_entry(stats, (int)i), "cpu");

		assert_true(CPU_ISSET(cpu, &allowed));
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(cpu, (int)num(thread_entry(stats, (int)j), "cpu"));
	}
	assert_int_equal((int)num(stats, "threads"), (int)c.threads);
	/* Busy hogs on every CPU leave next to nothing idle. */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(stats, "cpu_set")), (int)c.threads);
	assert_true(num(stats, "idle_waste_pct") >= 0.0 && num(stats, "idle_waste_pct") < 50.0);
	assert_string_equal(cJSON_GetObjectItem(stats, "mode")->valuestring, "busy");
	cJSON_Delete(stats);
}

/*
 * The idle-waste window ends at the halt, while the hogs still run: the
 * CPUs left idle once they have ended are not theirs to waste (600 ms of
 * them after 200 ms of hogs read 75% before).
 */
static void test_hog_halt_ends_the_idle_window(void **state)
{
	cpu_set_t allowed;
	struct il_hog_config c;
	struct il_hog *h = start_one_per_cpu(&c, &allowed, NULL);
	cJSON *stats;
	double idle;

	il_hog_mark_start(h);
	usleep(200000);
	il_hog_halt(h);
	usleep(600000);
	stats = il_hog_stats_json(h, 0);
	il_hog_stop(h);
	idle = num(stats, "idle_waste_pct");
	print_message("idle_waste_pct %.1f with the hogs ended 600 ms before the stats\n", idle);
	/* The wall time ends at the halt too. */
	assert_true(num(stats, "wall_ns") < 450e6);
	cJSON_Delete(stats);
	assert_true(idle >= 0.0 && idle < 50.0);
}

/*
 * The same when the orchestrator's halt word ends the hogs: the window
 * ends when the first hog reads it, while they still run, though this
 * thread calls il_hog_halt only 600 ms later.
 */
static void test_hog_halt_word_ends_the_idle_window(void **state)
{
	static _Atomic uint64_t word;
	cpu_set_t allowed;
	struct il_hog_config c;
	struct il_hog *h;
	cJSON *stats;
	double idle;

	atomic_store(&word, 0);
	h = start_one_per_cpu(&c, &allowed, &word);
	il_hog_mark_start(h);
	usleep(200000);
	atomic_store(&word, il_now_ns());
	usleep(600000);
	il_hog_halt(h);
	stats = il_hog_stats_json(h, 0);
	il_hog_stop(h);
	idle = num(stats, "idle_waste_pct");
	print_message("idle_waste_pct %.1f with the hogs ended by the word 600 ms before the "
		      "halt\n",
		      idle);
	assert_true(num(stats, "wall_ns") < 450e6);
	cJSON_Delete(stats);
	assert_true(idle >= 0.0 && idle < 50.0);
}

static void test_hog_bursty_duty_cycle(void **state)
{
	struct il_hog_config c = {.threads = 1,
				  .mode = IL_HOG_BURSTY,
				  .pin = true,
				  .task_ns = il_ms_to_ns(20),
				  .gap_ns = il_ms_to_ns(20)};
	struct il_hog *h = NULL;
	char err[256] = "";
	uint64_t busy0, busy1, t0, wall;
	double share, others;
	cJSON *stats;
	int cpu;

	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	stats = il_hog_stats_json(h, 0);
	cpu = (int)num(thread_entry(stats, 0), "cpu");
	cJSON_Delete(stats);
	assert_int_equal(il_test_cpu_busy_ns(cpu, &busy0), 0);
	il_hog_mark_start(h);
	t0 = il_now_ns();
	usleep(800000);
	wall = il_now_ns() - t0;
	share = il_hog_cpu_share(h, wall);
	assert_int_equal(il_test_cpu_busy_ns(cpu, &busy1), 0);
	il_hog_stop(h);
	others = il_test_others_share(busy0, busy1, (uint64_t)(share * (double)wall), wall);
	/* 20 ms of work per 40 ms: about half; less when other tasks share
	 * the CPU (the task then takes longer), never much more. */
	print_message("bursty cpu_share %.3f; other tasks used %.0f%% of its CPU %d\n", share,
		      others * 100, cpu);
	assert_true(share < 0.6);
	if (share <= 0.1 && others > 0.2)
		IL_TEST_SKIP("other tasks used %.0f%% of CPU %d meanwhile, leaving the hog a share "
			     "of %.3f: its duty cycle cannot show here",
			     others * 100, cpu, share);
	assert_true(share > 0.1);
}

/* The state letter of one of our threads ('R', 'S', ...), '?' when it is gone. */
static char task_state(int tid)
{
	struct il_procfs_stat st;

	return il_procfs_stat(0, tid, 0, &st) ? '?' : st.state;
}

/* The CPU time hog thread i used since the mark (since its start before one). */
static double thread_cpu_ns(struct il_hog *h, int i)
{
	cJSON *stats = il_hog_stats_json(h, 0);
	double ns = num(thread_entry(stats, i), "cpu_ns");

	cJSON_Delete(stats);
	return ns;
}

/* Waits (10 s at most) until hog thread i has used cpu_ns of CPU since the mark. */
static void wait_thread_cpu(struct il_hog *h, int i, double cpu_ns, const char *what)
{
	for (uint64_t t0 = il_now_ns(); thread_cpu_ns(h, i) < cpu_ns; usleep(1000))
		if (il_now_ns() - t0 > il_ms_to_ns(10000))
			fail_msg("%s: hog %d used %.1f ms of CPU in 10 s, want %.1f ms", what, i,
				 thread_cpu_ns(h, i) / 1e6, cpu_ns / 1e6);
}

static void test_hog_hold_until_mark(void **state)
{
	struct il_hog_config c = {.threads = 1, .mode = IL_HOG_BUSY, .pin = true, .hold = true};
	struct il_hog *h = NULL;
	char err[256] = "";

	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	usleep(300000);
	/* Held: set up but not spinning. */
	assert_true(il_hog_cpu_share(h, 0) < 0.05);
	il_hog_mark_start(h);
	/* Released: it spins, however slowly this machine lets it. */
	wait_thread_cpu(h, 0, 30e6, "after the mark");
	il_hog_stop(h);
}

static void test_hog_stop_is_prompt(void **state)
{
	struct il_hog_config c = {.threads = 2,
				  .mode = IL_HOG_BURSTY,
				  .pin = true,
				  .task_ns = il_ms_to_ns(5),
				  .gap_ns = il_ms_to_ns(5000)};
	struct il_hog *h = NULL;
	char err[256] = "";
	struct il_test_others_mark mark;
	uint64_t t0;
	cJSON *stats;
	int tid[2];

	assert_int_equal(il_hog_start(&c, name_only_init, NULL, &h, err, sizeof(err)), 0);
	stats = il_hog_stats_json(h, 0);
	for (int i = 0; i < 2; i++)
		tid[i] = (int)num(thread_entry(stats, i), "tid");
	cJSON_Delete(stats);
	/* Both hogs in their 5 s gap: the first task's CPU spent, and asleep. */
	for (int i = 0; i < 2; i++) {
		wait_thread_cpu(h, i, 5e6, "the first task");
		for (t0 = il_now_ns(); task_state(tid[i]) != 'S'; usleep(1000))
			if (il_now_ns() - t0 > il_ms_to_ns(10000))
				fail_msg(
				    "hog %d (tid %d) not asleep in its gap after 10 s: state %c", i,
				    tid[i], task_state(tid[i]));
	}
	/* Stop must not wait for the gap. */
	il_test_others_mark(&mark);
	t0 = il_now_ns();
	il_hog_stop(h);
	print_message("stop took %.2f ms\n", il_ns_to_ms(il_now_ns() - t0));
	il_test_assert_prompt("the stop", il_now_ns() - t0, il_ms_to_ns(200),
			      il_test_others_since(&mark));
}

static void test_hog_init_error_reported(void **state)
{
	struct il_hog_config c = {.threads = 2, .mode = IL_HOG_BUSY, .pin = true};
	struct il_hog *h = NULL;
	char err[256] = "";

	assert_int_equal(il_hog_start(&c, failing_init, NULL, &h, err, sizeof(err)), -EPERM);
	assert_null(h);
	assert_non_null(strstr(err, "render:js"));
	assert_non_null(strstr(err, "needs CAP_SYS_NICE"));
}

static void test_hog_bad_config(void **state)
{
	struct il_hog_config zero = {.threads = 0};
	struct il_hog_config bursty = {.threads = 1, .mode = IL_HOG_BURSTY, .task_ns = 0};
	struct il_hog *h = NULL;
	char err[256] = "";

	assert_int_equal(il_hog_start(&zero, name_only_init, NULL, &h, err, sizeof(err)), -EINVAL);
	assert_int_equal(il_hog_start(&bursty, name_only_init, NULL, &h, err, sizeof(err)),
			 -EINVAL);
	assert_null(h);
	assert_int_equal(il_hog_mode_parse("busy"), IL_HOG_BUSY);
	assert_int_equal(il_hog_mode_parse("bursty"), IL_HOG_BURSTY);
	assert_int_equal(il_hog_mode_parse("lazy"), -EINVAL);
	il_hog_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hog_share_matches_proc),
	    cmocka_unit_test(test_hog_idle_waste_why),
	    cmocka_unit_test(test_hog_js_share_matches_proc),
	    cmocka_unit_test(test_hog_js_memory_bounded),
	    cmocka_unit_test(test_hog_js_bad_script),
	    cmocka_unit_test(test_hog_js_modes),
	    cmocka_unit_test(test_hog_one_per_cpu),
	    cmocka_unit_test(test_hog_halt_ends_the_idle_window),
	    cmocka_unit_test(test_hog_halt_word_ends_the_idle_window),
	    cmocka_unit_test(test_hog_bursty_duty_cycle),
	    cmocka_unit_test(test_hog_hold_until_mark),
	    cmocka_unit_test(test_hog_stop_is_prompt),
	    cmocka_unit_test(test_hog_init_error_reported),
	    cmocka_unit_test(test_hog_bad_config),
	};
	if (il_test_filters("test_hog", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
