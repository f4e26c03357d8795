#include "il_test.h"

#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <sys/wait.h>
#include <time.h>

#include "il_cpustat.h"

void il_test_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

void il_test_print_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void il_test_skip_print(const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	print_message("skipped: %s\n", why);
}

bool il_test_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

double il_test_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t il_test_task_cpu_ns(int tid)
{
	struct il_procfs_stat st;

	assert_int_equal(il_procfs_stat(0, tid, IL_PROCFS_STIME, &st), 0);
	return il_procfs_ticks_ns(st.f[IL_PROCFS_UTIME] + st.f[IL_PROCFS_STIME]);
}

int il_test_cpu_busy_ns(int cpu, uint64_t *busy_ns)
{
	const struct il_cpustat_cpu *c;
	struct il_cpustat *snap;
	uint64_t busy = 0;
	bool seen = false;
	int r = il_cpustat_read(&snap);

	if (r)
		return r;
	for (unsigned i = 0; i < il_cpustat_ncpu(snap); i++)
		if ((cpu < 0 || (unsigned)cpu == i) && (c = il_cpustat_cpu(snap, i))->present) {
			/* Busy: everything but idle and iowait. */
			busy += il_cpustat_total(c) - c->idle - c->iowait;
			seen = true;
		}
	il_cpustat_free(snap);
	if (!seen)
		return -EINVAL;
	*busy_ns = il_procfs_ticks_ns(busy);
	return 0;
}

double il_test_others_share(uint64_t busy0_ns, uint64_t busy1_ns, uint64_t own_ns, uint64_t wall_ns)
{
	double others = (double)busy1_ns - (double)busy0_ns - (double)own_ns;

	return wall_ns && others > 0 ? others / (double)wall_ns : 0.0;
}

/* CPU time (user + system) of RUSAGE_SELF or RUSAGE_CHILDREN, in ns. */
static uint64_t rusage_ns(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

uint64_t il_test_children_cpu_ns(void)
{
	return rusage_ns(RUSAGE_CHILDREN);
}

/* This process's threads, and the children it reaped: the test's own CPU time. */
static uint64_t own_cpu_ns(void)
{
	return rusage_ns(RUSAGE_SELF) + rusage_ns(RUSAGE_CHILDREN);
}

void il_test_others_mark(struct il_test_others_mark *m)
{
	m->busy_ns = 0;
	il_test_cpu_busy_ns(-1, &m->busy_ns);
	m->own_ns = own_cpu_ns();
	m->t_s = il_test_now_s();
}

double il_test_others_since(const struct il_test_others_mark *m)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t busy1 = m->busy_ns;

	il_test_cpu_busy_ns(-1, &busy1);
	return ncpu > 0 ? il_test_others_share(m->busy_ns, busy1, own_cpu_ns() - m->own_ns,
					       (uint64_t)((il_test_now_s() - m->t_s) * 1e9)) /
			      (double)ncpu
			: 0;
}

enum il_test_prompt il_test_prompt_verdict(const char *what, uint64_t took_ns, uint64_t limit_ns,
					   double others, char *why, size_t len)
{
	if (took_ns < limit_ns)
		return IL_TEST_PROMPT;
	if (others <= 0.5) {
		snprintf(why, len,
			 "%s took %.1f ms, want < %.0f ms (other tasks kept %.0f%% of the CPUs "
			 "busy meanwhile)",
			 what, (double)took_ns / 1e6, (double)limit_ns / 1e6, others * 100);
		return IL_TEST_LATE;
	}
	snprintf(why, len,
		 "%s took %.1f ms (want < %.0f ms) while other tasks kept %.0f%% of the CPUs busy: "
		 "it cannot show here",
		 what, (double)took_ns / 1e6, (double)limit_ns / 1e6, others * 100);
	print_message("%s\n", why);
	return IL_TEST_LATE_BUSY;
}

bool il_test_prompt_judge(const char *what, uint64_t took_ns, uint64_t limit_ns, double others,
			  char *why, size_t len)
{
	enum il_test_prompt v = il_test_prompt_verdict(what, took_ns, limit_ns, others, why, len);

	if (v == IL_TEST_LATE)
		fail_msg("%s", why);
	return v == IL_TEST_PROMPT;
}

void il_test_assert_prompt(const char *what, uint64_t took_ns, uint64_t limit_ns, double others)
{
	char why[512];

	if (!il_test_prompt_judge(what, took_ns, limit_ns, others, why, sizeof(why)))
		IL_TEST_SKIP("%s", why);
}

ssize_t il_test_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1 && (n = read(fd, buf + total, len - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

void il_test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	fputs(text, f);
	if (fclose(f) != 0)
		fail_msg("cannot write %s: %s", path, strerror(errno));
}

static size_t json_live, json_peak;

static void *json_count_malloc(size_t n)
{
	size_t *p = malloc(n + sizeof(max_align_t));

	if (!p)
		return NULL;
	*p = n;
	json_live += n;
	if (json_live > json_peak)
		json_peak = json_live;
	return (char *)p + sizeof(max_align_t);
}

static void json_count_free(void *q)
{
	size_t *p;

	if (!q)
		return;
	p = (size_t *)(void *)((char *)q - sizeof(max_align_t));
	json_live -= *p;
	free(p);
}

void il_test_json_count_begin(void)
{
	cJSON_Hooks hooks = {json_count_malloc, json_count_free};

	json_live = json_peak = 0;
	cJSON_InitHooks(&hooks);
}

size_t il_test_json_count_end(void)
{
	cJSON_InitHooks(NULL);
	return json_peak;
}

size_t il_test_json_count_peak(void)
{
	return json_peak;
}

/*
 * Where the tests' outputs go: a tmpfs when the machine has one. A run
 * commits its report with fsync, and on the disk that fsync waits for
 * whatever else is being written there: beside test_rss's 350 MB, one
 * took 0.7 s here, and a SIGKILL test once saw its run end 4.3 s after
 * the fault. The tests time the harness, not the disk; on tmpfs fsync
 * returns at once. /tmp when /dev/shm is no writable tmpfs.
 */
static const char *tmp_base(void)
{
	struct statfs fs;

	if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
	    access("/dev/shm", W_OK | X_OK) == 0)
		return "/dev/shm";
	return "/tmp";
}

static int remove_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int il_test_tmpdir_remove(const char *dir)
{
	/* FTW_PHYS: a symlink a test made is removed, never followed. */
	if (nftw(dir, remove_cb, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * The temporary files and directories this test process made, removed
 * again when it exits: a failed assertion leaves its test at once, past
 * the test's own unlink or rmdir, and the suite must leave nothing behind
 * whichever way a test ends. Only the process that made a path removes
 * it: a forked child that calls exit() must not take its parent's files.
 */
#define MADE_MAX 64
static struct {
	char path[256];
	pid_t owner;
} made[MADE_MAX];
static int nmade;

static void remove_made(void)
{
	for (int i = 0; i < nmade; i++)
		if (made[i].owner == getpid())
			il_test_tmpdir_remove(made[i].path); /* a file too; gone already is fine */
}

void il_test_tmp_remember(const char *path)
{
	if (nmade == 0 && atexit(remove_made) != 0)
		fail_msg("atexit: cannot register the removal of %s", path);
	if (nmade >= MADE_MAX || strlen(path) >= sizeof(made[0].path))
		fail_msg("il_test: %s would not be removed at exit (%d paths kept, at most %d)",
			 path, nmade, MADE_MAX);
	strcpy(made[nmade].path, path);
	made[nmade++].owner = getpid();
}

/* The template mkdtemp and mkstemp fill in: il-test-<tag>.XXXXXX. */
static int tmp_template(char *path, size_t len, const char *tag)
{
	return (size_t)snprintf(path, len, "%s/il-test-%s.XXXXXX", tmp_base(), tag) >= len
		   ? -ENAMETOOLONG
		   : 0;
}

int il_test_tmpdir_make(char *dir, size_t len, const char *tag)
{
	if (tmp_template(dir, len, tag) < 0)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	il_test_tmp_remember(dir);
	return 0;
}

int il_test_tmpfile_make(char *path, size_t len, const char *tag)
{
	int fd;

	if (tmp_template(path, len, tag) < 0)
		return -ENAMETOOLONG;
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	close(fd);
	il_test_tmp_remember(path);
	return 0;
}

/* --- assertions ---------------------------------------------------------- */

bool il_test_one_line(const char *text)
{
	const char *nl = strchr(text, '\n');

	return nl && nl != text && nl[1] == '\0';
}

bool il_test_one_line_starting(const char *text, const char *prefix)
{
	return il_test_one_line(text) && strncmp(text, prefix, strlen(prefix)) == 0;
}

void il_test_assert_one_line_exit(int exit_code, const char *out, const char *err, int want_exit,
				  const char *needle1, const char *needle2)
{
	if (exit_code != want_exit || !il_test_one_line(err) ||
	    (needle1 && !strstr(err, needle1)) || (needle2 && !strstr(err, needle2)))
		fail_msg("want exit %d and one line naming '%s'%s%s%s; got exit %d, stderr:\n%s",
			 want_exit, needle1 ? needle1 : "", needle2 ? " and '" : "",
			 needle2 ? needle2 : "", needle2 ? "'" : "", exit_code, err);
	if (out[0])
		fail_msg("want nothing on stdout, got:\n%s", out);
}

void il_test_assert_exited(int status, int want, const char *err_text)
{
	if (status == -1)
		fail_msg("still running at its bound (killed), want exit %d: %s", want,
			 err_text ? err_text : "");
	if (!WIFEXITED(status))
		fail_msg("killed by signal %d, want exit %d: %s",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0, want,
			 err_text ? err_text : "");
	if (WEXITSTATUS(status) != want)
		fail_msg("exit %d, want %d: %s", WEXITSTATUS(status), want,
			 err_text ? err_text : "");
}

void il_test_assert_stopped(int status, const char *err_text)
{
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 1 && err_text &&
	    strstr(err_text, "inputlat: interrupted before any event completed: the run measured "
			     "nothing\n"))
		return;
	il_test_assert_exited(status, 0, err_text);
}

/* --- JSON reports -------------------------------------------------------- */

cJSON *il_test_json_load(const char *path)
{
	static char buf[1 << 22];
	ssize_t n = il_test_read_file(path, buf, sizeof(buf));
	cJSON *root;

	if (n <= 0)
		fail_msg("%s: %s", path, n < 0 ? strerror((int)-n) : "empty");
	root = cJSON_Parse(buf);
	if (!root)
		fail_msg("%s does not parse as JSON", path);
	return root;
}

double il_test_json_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("'%s' is missing or not a number", key);
	return v->valuedouble;
}

const char *il_test_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v))
		fail_msg("'%s' is missing or not a string", key);
	return v->valuestring;
}

/* --- subcommands in-process ---------------------------------------------- */

/* Copies what fd holds from its start into buf (may be NULL). */
static void slurp_fd(int fd, char *buf, size_t len)
{
	ssize_t n;

	if (!buf || !len)
		return;
	n = fd >= 0 ? pread(fd, buf, len - 1, 0) : -1;
	buf[n > 0 ? n : 0] = '\0';
}

int il_test_capture(int (*fn)(int, char **), int argc, char **argv, char *out, size_t outlen,
		    char *err, size_t errlen)
{
	int so, se, fo, fe, rc;

	fflush(stdout);
	fflush(stderr);
	/* Unnamed files: nothing to clean up, nothing another test can see. */
	fo = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	fe = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	so = dup(1);
	se = dup(2);
	if (fo < 0 || fe < 0 || so < 0 || se < 0)
		fail_msg("cannot capture output: %s", strerror(errno));
	dup2(fo, 1);
	dup2(fe, 2);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp_fd(fo, out, outlen);
	slurp_fd(fe, err, errlen);
	close(fo);
	close(fe);
	return rc;
}

int il_test_filters(const char *prog, const struct CMUnitTest *tests, size_t n)
{
	const char *only = getenv("IL_TEST_ONLY");
	size_t k = 0;

	if (only) {
		while (k < n && fnmatch(only, tests[k].name, 0) != 0)
			k++;
		if (k == n) {
			fprintf(stderr, "%s: IL_TEST_ONLY=%s matches no case\n", prog, only);
			return -1;
		}
		cmocka_set_test_filter(only);
	}
	if (getenv("IL_TEST_SKIP"))
		cmocka_set_skip_filter(getenv("IL_TEST_SKIP"));
	return 0;
}
