/*
 * System knobs with crash safety. The invariants: no knob differs from its
 * original unless a complete, fsync'd state file naming the original
 * exists, and only the holder of the machine's knob lock changes a knob.
 * The state file is created under a temporary name and linked into place,
 * so it is either absent or whole. The lock is a flock, so the kernel
 * frees it with its holder: whoever takes it next knows every state file
 * it finds is a dead run's, and the lock file says where that run kept it.
 */
#include "il_knobs.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "il_file.h"
#include "il_parse.h"
#include "il_procfs.h"
#include "il_sysinfo.h"

#define RT_RUNTIME	IL_SYSINFO_RT_RUNTIME
#define RT_PERIOD	IL_SYSINFO_RT_PERIOD
#define FS_DIR		IL_SYSINFO_FAIR_SERVER
#define STATE_VERSION	1
#define LOCK_VERSION	1
#define STATE_MAX_BYTES 65536
#define LOCK_MAX_BYTES	4096
/* A state directory path fits il_knob_report.state_path with the file name. */
#define STATE_DIR_MAX 240

/* One run's saved originals, as read back from a state file. */
struct state {
	long pid;
	uint64_t start_ticks;
	size_t n;
	struct il_knob_change ch[IL_KNOBS_MAX_CHANGES];
};

struct il_knobs_lock {
	int fd;
	char state_dir[256];
};

const char *il_knobs_state_dir(void)
{
	const char *d = getenv("IL_STATE_DIR");
	return d && *d ? d : IL_KNOBS_STATE_DIR;
}

/* The one message for "another run holds the knobs": callers and scripts
 * tell it by the -EBUSY / exit code 75 it comes with, never by its text. */
static void busy_msg(char *err, size_t errlen, long pid)
{
	if (pid > 0)
		snprintf(err, errlen,
			 "system knobs are held by running inputlat pid %ld "
			 "(lock " IL_KNOBS_LOCK_PATH "); wait for it to end",
			 pid);
	else
		snprintf(err, errlen,
			 "system knobs are held by another running inputlat "
			 "(lock " IL_KNOBS_LOCK_PATH "); wait for it to end");
}

/* --- state file ----------------------------------------------------- */

/*
 * The kernel's start time of a process, in clock ticks since boot (with
 * the pid it names one process, even after the pid is reused), and its
 * state letter ('Z' for a zombie).
 */
static int pid_stat(long pid, uint64_t *ticks, char *state)
{
	struct il_procfs_stat st;
	int r;

	if (pid < 1 || pid > INT32_MAX)
		return -ESRCH;
	if ((r = il_procfs_stat((pid_t)pid, 0, IL_PROCFS_STARTTIME, &st)))
		return r;
	if (state)
		*state = st.state;
	*ticks = st.f[IL_PROCFS_STARTTIME];
	return 0;
}

static int pid_start_ticks(long pid, uint64_t *out)
{
	return pid_stat(pid, out, NULL);
}

/*
 * True when the process that wrote a state file or took the lock is still
 * running: its pid exists, is not a zombie (a killed run not reaped yet
 * holds nothing: its threads and children are gone), and started when it
 * said (not a reused pid, ours included).
 */
static bool owner_alive(long pid, uint64_t start_ticks)
{
	uint64_t ticks;
	char state = '?';
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
		return false;
	return pid_stat(pid, &ticks, &state) == 0 && ticks == start_ticks && state != 'Z' &&
	       state != 'X';
}

static bool state_owner_alive(const struct state *st)
{
	return owner_alive(st->pid, st->start_ticks);
}

/* True when st was written by this very process (pid and start time). */
static bool state_is_ours(const struct state *st)
{
	uint64_t ticks;
	return st->pid == getpid() && pid_start_ticks(st->pid, &ticks) == 0 &&
	       ticks == st->start_ticks;
}

/* Only these files may ever be written from a state file's contents. */
static bool knob_path_allowed(const char *p)
{
	if (strcmp(p, RT_RUNTIME) == 0 || strcmp(p, RT_PERIOD) == 0)
		return true;
	const char *cg = "/sys/fs/cgroup/", *rt = "/cpu.rt_runtime_us";
	size_t len = strlen(p);
	if (strncmp(p, cg, strlen(cg)) == 0 && len > strlen(rt) &&
	    strcmp(p + len - strlen(rt), rt) == 0 && !strstr(p, "/../") && !strstr(p, "/./"))
		return true;
	const char *pre = FS_DIR "/cpu";
	if (strncmp(p, pre, strlen(pre)) != 0)
		return false;
	p += strlen(pre);
	size_t digits = strspn(p, "0123456789");
	if (digits == 0 || digits > 5)
		return false;
	p += digits;
	return strcmp(p, "/runtime") == 0 || strcmp(p, "/period") == 0;
}

/* Opens (creating if asked) the state directory and checks that only we
 * or root can change it. */
static int open_state_dir(const char *dir, bool create, char *err, size_t errlen)
{
	if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "state directory %s: %s", dir, strerror(e));
		return -e;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;
		struct stat lst;
		/* ENOTDIR is also a plain file; only a link is "refused". */
		bool link =
		    e == ELOOP || (e == ENOTDIR && lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode));
		if (e != ENOENT || create)
			snprintf(err, errlen, "state directory %s: %s%s", dir,
				 link ? "a symlink" : strerror(e), link ? ", refused" : "");
		return -e;
	}
	struct stat st;
	if (fstat(dfd, &st) != 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		snprintf(err, errlen,
			 "state directory %s is writable by others or not "
			 "owned by root or us: refusing it",
			 dir);
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

/* One JSON object and nothing after it (il_json_parse_one): a file cut or
 * written over by something else is not ours to act on. */
static int parse_state(const char *text, size_t len, struct state *out)
{
	struct state st = {0};
	int r = -EINVAL;
	char why[160];
	cJSON *root;
	if (il_json_parse_one(text, len, &root, why, sizeof(why)) < 0)
		return -EINVAL;
	cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "file_version");
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	cJSON *ticks = cJSON_GetObjectItemCaseSensitive(root, "pid_start_ticks");
	cJSON *knobs = cJSON_GetObjectItemCaseSensitive(root, "knobs");
	/* Whole numbers only: a version 1.9 or a pid 12.5 is no file of ours
	 * (a cast would have read them as 1 and 12). */
	if (!il_json_whole_in(ver, STATE_VERSION, STATE_VERSION) ||
	    !il_json_whole_in(pid, 1, INT_MAX) || !cJSON_IsString(ticks) ||
	    il_parse_u64(ticks->valuestring, 0, UINT64_MAX, &st.start_ticks) ||
	    !cJSON_IsArray(knobs) || cJSON_GetArraySize(knobs) > IL_KNOBS_MAX_CHANGES)
		goto out;
	st.pid = (long)pid->valuedouble;
	cJSON *k;
	cJSON_ArrayForEach (k, knobs) {
		cJSON *path = cJSON_GetObjectItemCaseSensitive(k, "path");
		cJSON *orig = cJSON_GetObjectItemCaseSensitive(k, "original");
		cJSON *appl = cJSON_GetObjectItemCaseSensitive(k, "applied");
		int64_t v;
		struct il_knob_change *c = &st.ch[st.n];
		if (!cJSON_IsString(path) || !cJSON_IsString(orig) || !cJSON_IsString(appl) ||
		    !knob_path_allowed(path->valuestring) ||
		    strlen(path->valuestring) >= sizeof(c->path) ||
		    strlen(orig->valuestring) >= sizeof(c->original) ||
		    strlen(appl->valuestring) >= sizeof(c->applied) ||
		    il_parse_i64(orig->valuestring, INT64_MIN, INT64_MAX, &v))
			goto out;
		strcpy(c->path, path->valuestring);
		strcpy(c->original, orig->valuestring);
		strcpy(c->applied, appl->valuestring);
		st.n++;
	}
	*out = st;
	r = 0;
out:
	cJSON_Delete(root);
	return r;
}

int il_knobs_state_parse(const char *text, long *pid, uint64_t *start_ticks,
			 struct il_knob_change *ch, size_t *n)
{
	struct state *st = calloc(1, sizeof(*st));
	int r = st ? parse_state(text, strlen(text), st) : -ENOMEM;

	if (r == 0) {
		*pid = st->pid;
		*start_ticks = st->start_ticks;
		memcpy(ch, st->ch, st->n * sizeof(ch[0]));
		*n = st->n;
	}
	free(st);
	return r;
}

/* Reads dir/knobs.state: -ENOENT when there is none. */
static int load_state(int dfd, const char *dir, struct state *st, char *err, size_t errlen)
{
	int fd = openat(dfd, IL_KNOBS_STATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e != ENOENT)
			snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": %s%s", dir, strerror(e),
				 e == ELOOP ? " (refusing a symlink)" : "");
		return -e;
	}
	struct stat sb;
	char *text = NULL;
	int r = -EINVAL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (sb.st_uid != 0 && sb.st_uid != geteuid()) || (sb.st_mode & 022) || sb.st_size <= 0 ||
	    sb.st_size > STATE_MAX_BYTES) {
		snprintf(err, errlen,
			 "%s/" IL_KNOBS_STATE_FILE ": not a regular file owned "
			 "by root or us, or writable by others: refusing it",
			 dir);
		r = -EPERM;
		goto out;
	}
	text = calloc(1, (size_t)sb.st_size + 1);
	if (!text) {
		r = -ENOMEM;
		goto out;
	}
	ssize_t n = read(fd, text, (size_t)sb.st_size);
	if (n != sb.st_size || parse_state(text, (size_t)n, st) != 0) {
		snprintf(err, errlen,
			 "%s/" IL_KNOBS_STATE_FILE ": unreadable or not an "
			 "inputlat state file; check the knobs and remove it by hand",
			 dir);
		r = -EINVAL;
		goto out;
	}
	r = 0;
out:
	free(text);
	close(fd);
	return r;
}

static char *state_json(const struct il_knob_change *ch, size_t n)
{
	uint64_t ticks = 0;
	char when[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	char ticks_s[24];
	char *text = NULL;

	pid_start_ticks(getpid(), &ticks);
	snprintf(ticks_s, sizeof(ticks_s), "%" PRIu64, ticks);
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);

	cJSON *root = cJSON_CreateObject();
	cJSON *knobs = NULL;
	if (!root || !cJSON_AddNumberToObject(root, "file_version", STATE_VERSION) ||
	    !cJSON_AddNumberToObject(root, "pid", getpid()) ||
	    !cJSON_AddStringToObject(root, "pid_start_ticks", ticks_s) ||
	    !cJSON_AddStringToObject(root, "start_time", when) ||
	    !(knobs = cJSON_AddArrayToObject(root, "knobs")))
		goto out;
	for (size_t i = 0; i < n; i++) {
		cJSON *k = cJSON_CreateObject();
		if (!k)
			goto out;
		cJSON_AddItemToArray(knobs, k);
		if (!cJSON_AddStringToObject(k, "path", ch[i].path) ||
		    !cJSON_AddStringToObject(k, "original", ch[i].original) ||
		    !cJSON_AddStringToObject(k, "applied", ch[i].applied))
			goto out;
	}
	text = cJSON_Print(root);
out:
	cJSON_Delete(root);
	return text;
}

/* Writes the state file whole or not at all, and never over another's. */
static int write_state(int dfd, const char *dir, const struct il_knob_change *ch, size_t n,
		       char *err, size_t errlen)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), ".knobs.state.%ld", (long)getpid());
	char *text = state_json(ch, n);
	if (!text) {
		snprintf(err, errlen, "state file: out of memory");
		return -ENOMEM;
	}
	int r = 0;
	unlinkat(dfd, tmp, 0); /* a leftover of our own pid from a crash */
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s/%s: %s", dir, tmp, strerror(-r));
		goto out;
	}
	size_t len = strlen(text);
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) != 0) {
		r = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s/%s: %s", dir, tmp, strerror(-r));
	}
	close(fd);
	if (r == 0 && linkat(dfd, tmp, dfd, IL_KNOBS_STATE_FILE, 0) != 0) {
		r = -errno;
		if (r == -EEXIST) {
			/* The lock holder repaired any dead run's file: this one
			 * belongs to a run that does not take the lock. */
			snprintf(err, errlen,
				 "%s/" IL_KNOBS_STATE_FILE " is in the way (an inputlat "
				 "run without the machine lock?); check it with 'inputlat restore'",
				 dir);
			r = -EBUSY;
		} else {
			snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": %s", dir, strerror(-r));
		}
	}
	unlinkat(dfd, tmp, 0);
	if (r == 0)
		fsync(dfd); /* the new name must survive a power cut too */
out:
	free(text);
	return r;
}

/* --- apply and restore ---------------------------------------------- */

struct plan {
	size_t n;
	struct il_knob_change ch[IL_KNOBS_MAX_CHANGES];
};

static int plan_add(struct plan *p, const char *path, int64_t cur, int64_t want)
{
	if (cur == want)
		return 0;
	if (p->n == IL_KNOBS_MAX_CHANGES)
		return -E2BIG;
	struct il_knob_change *c = &p->ch[p->n++];
	snprintf(c->path, sizeof(c->path), "%s", path);
	snprintf(c->original, sizeof(c->original), "%" PRId64, cur);
	snprintf(c->applied, sizeof(c->applied), "%" PRId64, want);
	return 0;
}

/*
 * A runtime/period pair must satisfy runtime <= period after every single
 * write, so a growing period is written first and a shrinking one last.
 * Restoring in reverse order keeps the same property.
 */
static int plan_pair(struct plan *p, const char *rpath, const char *ppath, int64_t cur_r,
		     int64_t cur_p, int64_t want_r, int64_t want_p)
{
	int r;
	if (want_p > cur_p) {
		if ((r = plan_add(p, ppath, cur_p, want_p)) == 0)
			r = plan_add(p, rpath, cur_r, want_r);
	} else {
		if ((r = plan_add(p, rpath, cur_r, want_r)) == 0)
			r = plan_add(p, ppath, cur_p, want_p);
	}
	return r;
}

/* The group runtime giving the same ratio as runtime/period. */
static int64_t group_share(int64_t runtime, int64_t period, int64_t group_period)
{
	if (runtime < 0 || period <= 0)
		return INT64_MAX;
	return runtime * group_period / period;
}

static int plan_rt(const struct il_knob_settings *k, struct plan *p, char *err, size_t errlen)
{
	int64_t cur_r, cur_p;
	int r;
	if ((r = il_sysinfo_read_i64(RT_RUNTIME, &cur_r)) ||
	    (r = il_sysinfo_read_i64(RT_PERIOD, &cur_p))) {
		snprintf(err, errlen, "cannot read " RT_RUNTIME " or " RT_PERIOD ": %s",
			 strerror(-r));
		return r;
	}
	int64_t want_r = k->has_rt_runtime ? k->rt_runtime_us : cur_r;
	int64_t want_p = k->has_rt_period ? k->rt_period_us : cur_p;
	if (want_r > want_p) {
		snprintf(err, errlen,
			 "sched_rt_runtime_us %" PRId64 " > sched_rt_period_us %" PRId64
			 " (want -1 or at most the period)",
			 want_r, want_p);
		return -EINVAL;
	}

	/* The root RT group follows at the same ratio. Its ratio may never
	 * exceed the global one, including between the two global writes, so
	 * it first drops to the lowest ratio the sequence passes through and
	 * ends at the final ratio. Unlimited (-1) turns RT bandwidth control
	 * off altogether, groups included, and constrains nothing. */
	char dir[200], gpath[256], gper_path[256];
	int64_t g_cur = 0, g_per = 0;
	bool group = want_r >= 0 && il_sysinfo_rt_group_root(dir, sizeof(dir)) == 0;
	if (group) {
		snprintf(gpath, sizeof(gpath), "%s/cpu.rt_runtime_us", dir);
		snprintf(gper_path, sizeof(gper_path), "%s/cpu.rt_period_us", dir);
		group = il_sysinfo_read_i64(gpath, &g_cur) == 0 &&
			il_sysinfo_read_i64(gper_path, &g_per) == 0;
	}
	if (!group)
		return plan_pair(p, RT_RUNTIME, RT_PERIOD, cur_r, cur_p, want_r, want_p);

	int64_t mid_r = want_p > cur_p ? cur_r : want_r;
	int64_t mid_p = want_p > cur_p ? want_p : cur_p;
	int64_t g_final = group_share(want_r, want_p, g_per);
	int64_t g_min = group_share(mid_r, mid_p, g_per);
	if (g_final < g_min)
		g_min = g_final;
	if (g_cur < g_min)
		g_min = g_cur;
	if ((r = plan_add(p, gpath, g_cur, g_min)) ||
	    (r = plan_pair(p, RT_RUNTIME, RT_PERIOD, cur_r, cur_p, want_r, want_p)))
		return r;
	r = plan_add(p, gpath, g_min, g_final);
	return r;
}

int il_knobs_rt_writes(const struct il_knob_settings *k, size_t *n, char *err, size_t errlen)
{
	struct plan p = {0};
	int r = 0;

	if (k->has_rt_runtime || k->has_rt_period)
		r = plan_rt(k, &p, err, errlen);
	*n = p.n;
	return r;
}

/* Two knob values as the kernel prints them: equal as integers ("-1",
 * "950000"), else as text. */
static bool same_value(const char *a, const char *b)
{
	char *ea, *eb;
	long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);

	if (ea != a && eb != b && !*ea && !*eb)
		return x == y;
	return strcmp(a, b) == 0;
}

/*
 * Whether this kernel can lower a fair server's runtime, which putting a
 * raised one back needs. Debian's 6.12 cannot: its root domain never
 * accounted the fair servers' bandwidth, so a lower runtime underflows the
 * admission check (EBUSY), and lowering it while RT throttling is off
 * corrupts the accounting so that sched_rt_runtime_us cannot be put back
 * either. Probed by lowering CPU 0's runtime by two units of bandwidth
 * (about 2 us a second) and raising it back. The probe is a change like
 * any other: a state file naming the original is in place before the
 * first write and goes only once the original reads back, so a kill
 * between the two writes, or a raise the kernel refuses, leaves the next
 * start (or 'inputlat restore') what it needs to put it back.
 *
 * 0 with *lowerable set (why says why not), or -errno with err set: the
 * state file could not be written (nothing was), or the original could
 * not be put back (the state file stays).
 */
static int fair_server_lowerable(const char *dir, bool *lowerable, char *why, size_t whylen,
				 char *err, size_t errlen)
{
	struct il_knob_change ch = {0};
	char rpath[128], ppath[128], now[32];
	int64_t cur, period, step;
	int r, back, dfd;

	*lowerable = true;
	snprintf(rpath, sizeof(rpath), FS_DIR "/cpu0/runtime");
	snprintf(ppath, sizeof(ppath), FS_DIR "/cpu0/period");
	if (il_sysinfo_read_i64(rpath, &cur) < 0 || il_sysinfo_read_i64(ppath, &period) < 0)
		return 0; /* nothing to probe: the writes will say */
	/* Enough to lower the bandwidth the kernel computes (units of
	 * period / 2^20), so that its admission check really runs. */
	step = (period >> 19) + 1;
	if (cur <= step)
		return 0;
	snprintf(ch.path, sizeof(ch.path), "%s", rpath);
	snprintf(ch.original, sizeof(ch.original), "%" PRId64, cur);
	snprintf(ch.applied, sizeof(ch.applied), "%" PRId64, cur - step);
	if ((dfd = open_state_dir(dir, true, err, errlen)) < 0)
		return dfd;
	if ((r = write_state(dfd, dir, &ch, 1, err, errlen))) {
		close(dfd);
		return r;
	}
	r = il_sysinfo_write_value(rpath, ch.applied);
	if (r == 0) {
		back = il_sysinfo_write_value(rpath, ch.original);
		if (back == 0 && (back = il_sysinfo_read_value(rpath, now, sizeof(now))) == 0 &&
		    !same_value(now, ch.original))
			back = -EIO; /* the kernel took the write but holds another value */
		if (back) {
			snprintf(
			    err, errlen,
			    "%s: putting %s back after probing with %s: %s; %s/" IL_KNOBS_STATE_FILE
			    " names the original ('inputlat restore' puts it back)",
			    rpath, ch.original, ch.applied, strerror(-back), dir);
			close(dfd);
			return back;
		}
	}
	unlinkat(dfd, IL_KNOBS_STATE_FILE, 0);
	fsync(dfd);
	close(dfd);
	if (r) {
		*lowerable = false;
		snprintf(why, whylen,
			 "this kernel refuses to lower a fair server's runtime (%s), so a "
			 "change could not be put back",
			 strerror(-r));
	}
	return 0;
}

static int plan_fair_server(const struct il_knob_settings *k, struct plan *p, char *err,
			    size_t errlen)
{
	DIR *d = opendir(FS_DIR);
	if (!d) {
		int e = errno;
		snprintf(err, errlen, FS_DIR ": %s", strerror(e));
		return -e;
	}
	int r = 0;
	struct dirent *e;
	while (r == 0 && (e = readdir(d))) {
		uint64_t cpu;
		if (strncmp(e->d_name, "cpu", 3) != 0 ||
		    il_parse_u64(e->d_name + 3, 0, 99999, &cpu) != 0)
			continue;
		char rpath[128], ppath[128];
		int64_t cur_r, cur_p;
		snprintf(rpath, sizeof(rpath), FS_DIR "/cpu%" PRIu64 "/runtime", cpu);
		snprintf(ppath, sizeof(ppath), FS_DIR "/cpu%" PRIu64 "/period", cpu);
		if ((r = il_sysinfo_read_i64(rpath, &cur_r)) ||
		    (r = il_sysinfo_read_i64(ppath, &cur_p))) {
			snprintf(err, errlen, "%s: %s", rpath, strerror(-r));
			break;
		}
		r = plan_pair(p, rpath, ppath, cur_r, cur_p, (int64_t)k->fs_runtime_ns,
			      (int64_t)k->fs_period_ns);
		if (r == -E2BIG)
			snprintf(err, errlen, "too many fair-server CPUs to tune (limit %d knobs)",
				 IL_KNOBS_MAX_CHANGES);
	}
	closedir(d);
	return r;
}

/* Puts back changes [0, n) in reverse order; returns the first error. */
static int undo(const struct il_knob_change *ch, size_t n, size_t *failed)
{
	int first = 0;
	for (size_t i = n; i-- > 0;) {
		int r = il_sysinfo_write_value(ch[i].path, ch[i].original);
		if (r && !first) {
			first = r;
			if (failed)
				*failed = i;
		}
	}
	return first;
}

/*
 * Writes back ch[0, n) in the reverse order of application (a
 * runtime/period pair stays valid after every write, see plan_pair), reads
 * each back, and records in each whether it is back. Every knob is tried
 * even after one fails. *first gets the first error, 0 when all are back.
 *
 * Only our own change is undone. In reverse order the value of ch[i]
 * before its undo is ch[i].applied: a knob that holds its original
 * already (never written: a run that died between two writes) is back as
 * it is; one that holds neither was changed by someone else since (an
 * administrator after a crash, another tool during the run) and is left
 * as they set it (left_as), which is not an error.
 */
static void restore_changes(struct il_knob_change *ch, size_t n, int *first)
{
	*first = 0;
	for (size_t i = n; i-- > 0;) {
		char now[32];
		int r = il_sysinfo_read_value(ch[i].path, now, sizeof(now));

		ch[i].left_as[0] = '\0';
		if (r == 0 && same_value(now, ch[i].original)) {
			ch[i].restored = true;
			ch[i].restore_err = 0;
			continue;
		}
		if (r == 0 && !same_value(now, ch[i].applied)) {
			snprintf(ch[i].left_as, sizeof(ch[i].left_as), "%s", now);
			ch[i].restored = false;
			ch[i].restore_err = 0;
			continue;
		}
		r = il_sysinfo_write_value(ch[i].path, ch[i].original);
		if (r == 0 && (r = il_sysinfo_read_value(ch[i].path, now, sizeof(now))) == 0 &&
		    !same_value(now, ch[i].original))
			r = -EIO; /* the kernel took the write but holds another value */
		ch[i].restored = r == 0;
		ch[i].restore_err = r;
		if (r && !*first)
			*first = r;
	}
}

int il_knobs_apply(const struct il_knob_settings *k, struct il_knobs_lock *lock,
		   struct il_knob_report *rep, char *err, size_t errlen)
{
	struct il_knob_report *out = calloc(1, sizeof(*out));
	struct plan *p = calloc(1, sizeof(*p));
	int r = 0, dfd = -1;
	int64_t v;

	if (!out || !p) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	out->rt_runtime_us_before = il_sysinfo_read_i64(RT_RUNTIME, &v) == 0 ? (int)v : INT32_MIN;
	out->fs.runtime_ns = out->fs.period_ns = -1;
	if (k->has_fair_server) {
		il_fair_server_probe(&out->fs);
		out->fs_probed = true;
	}

	if ((k->has_rt_runtime || k->has_rt_period) && (r = plan_rt(k, p, err, errlen)))
		goto out;
	if (k->has_fair_server) {
		if (!out->fs.present) {
			snprintf(err, errlen, "fair server not present: %s", out->fs.why);
			r = -EOPNOTSUPP;
			goto out;
		}
		/* Present but locked, or tunable only one way: the run goes on
		 * with what is in force and the report says tunable = false
		 * and why. Probing writes, so only under the lock. */
		if (out->fs.tunable && lock && lock->fd >= 0) {
			bool lowerable;

			r = fair_server_lowerable(lock->state_dir, &lowerable, out->fs.why,
						  sizeof(out->fs.why), err, errlen);
			if (r)
				goto out;
			out->fs.tunable = lowerable;
		}
		if (out->fs.tunable && (r = plan_fair_server(k, p, err, errlen)))
			goto out;
	}
	if (p->n == 0)
		goto done;
	if (!lock || lock->fd < 0) {
		/* Nobody changes a knob without the machine's lock. */
		snprintf(err, errlen, "changing system knobs without the lock " IL_KNOBS_LOCK_PATH);
		r = -ENOLCK;
		goto out;
	}

	const char *dir = lock->state_dir;
	if ((dfd = open_state_dir(dir, true, err, errlen)) < 0) {
		r = dfd;
		goto out;
	}
	if ((r = write_state(dfd, dir, p->ch, p->n, err, errlen)))
		goto out;
	snprintf(out->state_path, sizeof(out->state_path), "%.240s/" IL_KNOBS_STATE_FILE, dir);
	for (size_t i = 0; i < p->n; i++) {
		r = il_sysinfo_write_value(p->ch[i].path, p->ch[i].applied);
		if (r == 0)
			continue;
		int u = undo(p->ch, i, NULL);
		snprintf(err, errlen, "%s: writing %s: %s (%s)", p->ch[i].path, p->ch[i].applied,
			 strerror(-r),
			 u ? "could not put everything back: see 'inputlat restore'"
			   : "originals put back");
		if (u == 0)
			unlinkat(dfd, IL_KNOBS_STATE_FILE, 0);
		goto out;
	}
	out->n = p->n;
	memcpy(out->changes, p->ch, p->n * sizeof(p->ch[0]));
	if (k->has_fair_server) {
		bool tunable = out->fs.tunable;
		char why[sizeof(out->fs.why)];

		snprintf(why, sizeof(why), "%s", out->fs.why);
		il_fair_server_probe(&out->fs); /* values now in force */
		if (!tunable) {
			out->fs.tunable = false;
			snprintf(out->fs.why, sizeof(out->fs.why), "%s", why);
		}
	}
done:
	*rep = *out;
out:
	if (dfd >= 0)
		close(dfd);
	free(p);
	free(out);
	return r;
}

/* A decimal integer's value without strtoll (not async-signal-safe);
 * false when s is not one (then values are compared as text). */
static bool decimal_safe(const char *s, long long *out)
{
	bool neg = *s == '-';
	unsigned long long v = 0;

	s += neg;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (unsigned long long)LLONG_MAX / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	if (*s || v > (unsigned long long)LLONG_MAX)
		return false;
	*out = neg ? -(long long)v : (long long)v;
	return true;
}

/* same_value() for a signal handler. */
static bool same_value_safe(const char *a, const char *b)
{
	long long x, y;

	if (decimal_safe(a, &x) && decimal_safe(b, &y))
		return x == y;
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int il_knobs_restore_signal_safe(const struct il_knob_report *rep)
{
	int r = 0;

	/*
	 * Reverse order of application, as undo(); no stdio, no malloc. As
	 * restore_changes(), only our own change is undone: a knob back at
	 * its original needs nothing, and one holding neither the original
	 * nor what we applied was set by someone else during the run and is
	 * theirs. Unreadable: written back, as before.
	 */
	for (size_t i = rep->n; i-- > 0;) {
		const struct il_knob_change *c = &rep->changes[i];
		char now[sizeof(c->left_as)];
		int w;

		if (il_sysinfo_read_value(c->path, now, sizeof(now)) == 0 &&
		    (same_value_safe(now, c->original) || !same_value_safe(now, c->applied)))
			continue;
		w = il_sysinfo_write_value(c->path, c->original);
		if (w && !r)
			r = w;
	}
	if (r == 0 && rep->state_path[0])
		unlink(rep->state_path);
	return r;
}

/* "PATH back to VALUE: why" for the first knob not restored, and how many more. */
static void release_msg(const struct il_knob_report *rep, const char *state_path, char *err,
			size_t errlen)
{
	const struct il_knob_change *first = NULL;
	size_t more = 0;

	for (size_t i = rep->n; i-- > 0;) {
		if (rep->changes[i].restored || rep->changes[i].left_as[0])
			continue;
		if (!first)
			first = &rep->changes[i];
		else
			more++;
	}
	if (!first)
		return;
	char more_s[48] = "";
	if (more)
		snprintf(more_s, sizeof(more_s), " (and %zu more)", more);
	snprintf(err, errlen,
		 "%s not put back to %s: %s%s; originals kept in %s for "
		 "'inputlat restore'",
		 first->path, first->original, strerror(-first->restore_err), more_s,
		 state_path[0] ? state_path : "(no state file)");
}

int il_knobs_release(struct il_knob_report *rep, struct il_knobs_lock *lock, char *err,
		     size_t errlen)
{
	int first = 0;

	if (rep->n == 0)
		return 0;
	restore_changes(rep->changes, rep->n, &first);
	if (!first) {
		/* Every knob is back: the insurance is no longer needed. Removing
		 * a symlink or stranger put in its place is fine too: unlink
		 * never follows it, and only the lock holder writes there. */
		if (rep->state_path[0] && unlink(rep->state_path) != 0 && errno != ENOENT) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", rep->state_path, strerror(e));
			return -e;
		}
		return 0;
	}
	/* Keep the originals on disk for `inputlat restore`, whatever became of
	 * the state file during the run (deleted, replaced). */
	if (lock && lock->fd >= 0) {
		char e2[256];
		int dfd = open_state_dir(lock->state_dir, true, e2, sizeof(e2));
		struct state *st = calloc(1, sizeof(*st));

		if (dfd >= 0 && st) {
			bool keep = load_state(dfd, lock->state_dir, st, e2, sizeof(e2)) == 0 &&
				    state_is_ours(st);
			if (!keep) {
				unlinkat(dfd, IL_KNOBS_STATE_FILE, 0);
				if (write_state(dfd, lock->state_dir, rep->changes, rep->n, e2,
						sizeof(e2)) == 0)
					snprintf(rep->state_path, sizeof(rep->state_path),
						 "%.240s/" IL_KNOBS_STATE_FILE, lock->state_dir);
				else
					rep->state_path[0] = '\0';
			}
		}
		free(st);
		if (dfd >= 0)
			close(dfd);
	}
	release_msg(rep, rep->state_path, err, errlen);
	return first;
}

/* Restores st and removes the state file; keeps it if a write fails. */
static int restore_state(int dfd, const char *dir, struct state *st,
			 struct il_knob_report *restored, char *err, size_t errlen)
{
	struct il_knob_change *ch = st->ch;
	int r;

	/* In place: the caller says what became of each (left_as). */
	restore_changes(ch, st->n, &r);
	if (r) {
		for (size_t i = st->n; i-- > 0;)
			if (!ch[i].restored && !ch[i].left_as[0]) {
				snprintf(err, errlen,
					 "%s: writing %s: %s (state file %s/" IL_KNOBS_STATE_FILE
					 " kept)",
					 ch[i].path, ch[i].original, strerror(-ch[i].restore_err),
					 dir);
				break;
			}
		return r;
	}
	if (unlinkat(dfd, IL_KNOBS_STATE_FILE, 0) != 0 && errno != ENOENT) {
		r = -errno;
		snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": %s", dir, strerror(-r));
		return r;
	}
	fsync(dfd);
	if (restored) {
		size_t n = restored->n;
		/* Appended: a restore may repair two state files. */
		for (size_t i = 0; i < st->n && n < IL_KNOBS_MAX_CHANGES; i++)
			restored->changes[n++] = ch[i];
		restored->n = n;
	}
	return 0;
}

/* Opens the directory and reads its state: 0, 1 = nothing there, -errno. */
static int open_and_load(const char *dir, int *dfd_out, struct state *st, char *err, size_t errlen)
{
	int dfd = open_state_dir(dir, false, err, errlen);
	if (dfd == -ENOENT)
		return 1;
	if (dfd < 0)
		return dfd;
	int r = load_state(dfd, dir, st, err, errlen);
	if (r) {
		close(dfd);
		return r == -ENOENT ? 1 : r;
	}
	*dfd_out = dfd;
	return 0;
}

/*
 * A run killed while writing its state file leaves ".knobs.state.PID"
 * (nothing was changed yet then: the originals are written before any
 * knob). Remove those whose writer is dead.
 */
static void remove_dead_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		uint64_t pid, ticks;
		char state = '?';

		if (strncmp(e->d_name, ".knobs.state.", 13) != 0 ||
		    il_parse_u64(e->d_name + 13, 1, INT32_MAX, &pid) < 0 ||
		    (pid_t)pid == getpid() ||
		    (pid_stat((long)pid, &ticks, &state) == 0 && state != 'Z' && state != 'X'))
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
}

/*
 * Repairs dir's state file, if any, under the lock: its writer is dead
 * (or was an inputlat without the lock: then it is left alone while it
 * lives). named: dir is the one the lock file names, not the caller's.
 * Returns 0 (nothing there, or restored, said on log), -EBUSY or -errno
 * with one line in err.
 */
static int repair_dir(const char *dir, bool named, FILE *log, struct il_knob_report *restored,
		      char *err, size_t errlen)
{
	struct state *st = calloc(1, sizeof(*st));
	int dfd = -1, r;

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	remove_dead_temps(dir);
	r = open_and_load(dir, &dfd, st, err, errlen);
	/* A directory the lock names that is no longer root's (a /tmp directory
	 * removed and made again by a user) cannot hold the state file we
	 * wrote there: nothing of ours to repair, and no one else's to trust. */
	if (r == 1 || (named && (r == -EPERM || r == -ELOOP || r == -ENOTDIR))) {
		r = 0;
		goto out;
	}
	if (r)
		goto out;
	/* A pid can be reused, ours included: the start time tells them apart. */
	if (!state_is_ours(st) && state_owner_alive(st)) {
		busy_msg(err, errlen, st->pid);
		r = -EBUSY;
		goto out;
	}
	r = restore_state(dfd, dir, st, restored, err, errlen);
	if (r == 0 && log) {
		fprintf(log,
			"inputlat: restored %zu system knob%s left by dead run pid %ld:", st->n,
			st->n == 1 ? "" : "s", st->pid);
		for (size_t i = st->n; i-- > 0;) /* in the order written back */
			if (st->ch[i].left_as[0])
				fprintf(log,
					" %s left at %s (changed by someone else since it set %s)",
					st->ch[i].path, st->ch[i].left_as, st->ch[i].applied);
			else
				fprintf(log, " %s=%s", st->ch[i].path, st->ch[i].original);
		fprintf(log, "\n");
	}
out:
	if (dfd >= 0)
		close(dfd);
	free(st);
	return r;
}

/* --- the machine's lock --------------------------------------------- */

/* What the lock file says: the holder and where its state file is. */
struct lock_info {
	long pid;
	uint64_t start_ticks;
	char state_file[256];
};

static int lock_parse(const char *buf, size_t len, struct lock_info *li)
{
	int r = -EINVAL;
	char why[160];
	cJSON *root = NULL;
	cJSON *pid, *ver, *ticks, *sf;

	if (il_json_parse_one(buf, len, &root, why, sizeof(why)) < 0)
		return -EINVAL;
	ver = cJSON_GetObjectItemCaseSensitive(root, "file_version");
	pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	ticks = cJSON_GetObjectItemCaseSensitive(root, "pid_start_ticks");
	sf = cJSON_GetObjectItemCaseSensitive(root, "state_file");
	if (il_json_whole_in(ver, LOCK_VERSION, LOCK_VERSION) &&
	    il_json_whole_in(pid, 1, INT_MAX) && cJSON_IsString(ticks) &&
	    il_parse_u64(ticks->valuestring, 0, UINT64_MAX, &li->start_ticks) == 0 &&
	    cJSON_IsString(sf) && strlen(sf->valuestring) < sizeof(li->state_file)) {
		li->pid = (long)pid->valuedouble;
		strcpy(li->state_file, sf->valuestring);
		r = 0;
	}
	cJSON_Delete(root);
	return r;
}

static int lock_read(int fd, struct lock_info *li)
{
	char buf[LOCK_MAX_BYTES + 1];
	ssize_t n = pread(fd, buf, LOCK_MAX_BYTES, 0);

	memset(li, 0, sizeof(*li));
	if (n <= 0)
		return n == 0 ? -ENOENT : -errno;
	buf[n] = '\0';
	return lock_parse(buf, (size_t)n, li);
}

int il_knobs_lock_parse(const char *text, long *pid, uint64_t *start_ticks, char *state_file,
			size_t state_file_len)
{
	struct lock_info li = {0};
	int r = lock_parse(text, strlen(text), &li);

	if (r == 0) {
		*pid = li.pid;
		*start_ticks = li.start_ticks;
		snprintf(state_file, state_file_len, "%s", li.state_file);
	}
	return r;
}

static int lock_write(int fd, const char *state_dir)
{
	uint64_t ticks = 0;
	char ticks_s[24], path[300];
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;
	int r = -ENOMEM;

	pid_start_ticks(getpid(), &ticks);
	snprintf(ticks_s, sizeof(ticks_s), "%" PRIu64, ticks);
	snprintf(path, sizeof(path), "%s/" IL_KNOBS_STATE_FILE, state_dir);
	if (!root || !cJSON_AddNumberToObject(root, "file_version", LOCK_VERSION) ||
	    !cJSON_AddNumberToObject(root, "pid", getpid()) ||
	    !cJSON_AddStringToObject(root, "pid_start_ticks", ticks_s) ||
	    !cJSON_AddStringToObject(root, "state_file", path) ||
	    !(text = cJSON_PrintUnformatted(root)))
		goto out;
	size_t len = strlen(text);
	errno = 0;
	if (len > LOCK_MAX_BYTES)
		r = -ENAMETOOLONG;
	else if (ftruncate(fd, 0) != 0 || pwrite(fd, text, len, 0) != (ssize_t)len ||
		 fsync(fd) != 0)
		r = errno ? -errno : -EIO;
	else
		r = 0;
out:
	cJSON_free(text);
	cJSON_Delete(root);
	return r;
}

/* The state directory a lock file names, if its file name is ours. */
static bool lock_state_dir(const struct lock_info *li, char *dir, size_t len)
{
	const char *slash = strrchr(li->state_file, '/');

	if (!slash || slash == li->state_file || strcmp(slash + 1, IL_KNOBS_STATE_FILE) != 0 ||
	    (size_t)(slash - li->state_file) >= len)
		return false;
	snprintf(dir, len, "%.*s", (int)(slash - li->state_file), li->state_file);
	return true;
}

/* The state directory as one canonical string, so that two spellings of it
 * are repaired once. */
static void canonical_dir(const char *dir, char *out, size_t len)
{
	char real[PATH_MAX];

	snprintf(out, len, "%s", realpath(dir, real) ? real : dir);
}

/* Takes the flock; prev gets what the last holder wrote (pid 0: nothing). */
static int lock_take(const char *dir, unsigned wait_ms, struct il_knobs_lock **out,
		     struct lock_info *prev, char *err, size_t errlen)
{
	struct il_knobs_lock *l;
	struct stat sb;
	int fd, r, e;
	struct timespec t0, now, tick = {0, 10 * 1000000L};

	if (strlen(dir) > STATE_DIR_MAX) {
		snprintf(err, errlen, "state directory %.100s...: path too long", dir);
		return -ENAMETOOLONG;
	}
	fd = open(IL_KNOBS_LOCK_PATH,
		  O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, IL_KNOBS_LOCK_PATH ": %s%s", strerror(-r),
			 r == -EACCES || r == -EPERM || r == -EROFS
			     ? " (changing system knobs needs root)"
			 : r == -ELOOP ? " (refusing a symlink)"
				       : "");
		return r == -EPERM ? -EACCES : r;
	}
	/* Its contents decide which state file a later root run repairs:
	 * nobody but root (or us) may be able to write it. */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (sb.st_uid != 0 && sb.st_uid != geteuid()) || (sb.st_mode & 022)) {
		snprintf(err, errlen,
			 IL_KNOBS_LOCK_PATH ": not a regular file owned by root, or "
					    "writable by others: refusing it");
		close(fd);
		return -EPERM;
	}
	/*
	 * Held for a moment by a run that sets no knobs (it only checks for a
	 * dead run's), `check` or `restore`: wait_ms covers those, so that a
	 * run started beside them is not refused; a run that holds the lock
	 * for its whole length is then still said in one line.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		e = flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
		if (e != EWOULDBLOCK)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >=
		    (long)wait_ms)
			break;
		nanosleep(&tick, NULL);
	}
	if (e != 0) {
		r = -e;
		if (r == -EWOULDBLOCK) {
			busy_msg(err, errlen, lock_read(fd, prev) == 0 ? prev->pid : 0);
			r = -EBUSY;
		} else {
			snprintf(err, errlen, IL_KNOBS_LOCK_PATH ": %s", strerror(-r));
		}
		close(fd);
		return r;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return -ENOMEM;
	}
	l->fd = fd;
	snprintf(l->state_dir, sizeof(l->state_dir), "%s", dir);
	if (lock_read(fd, prev) < 0)
		memset(prev, 0, sizeof(*prev));
	*out = l;
	return 0;
}

/*
 * Whoever held the lock before is gone: its knobs are put back, wherever
 * it kept them, then those in our own state directory (an inputlat older
 * than the lock may have left one there).
 */
static int lock_repair(struct il_knobs_lock *l, const struct lock_info *prev, FILE *log,
		       struct il_knob_report *restored, char *err, size_t errlen)
{
	char a[PATH_MAX], b[PATH_MAX], named[256];
	int r = 0;

	canonical_dir(l->state_dir, b, sizeof(b));
	if (prev->pid && lock_state_dir(prev, named, sizeof(named))) {
		canonical_dir(named, a, sizeof(a));
		if (strcmp(a, b) != 0)
			r = repair_dir(named, true, log, restored, err, errlen);
	}
	if (r == 0)
		r = repair_dir(l->state_dir, false, log, restored, err, errlen);
	return r;
}

int il_knobs_lock(const char *state_dir, FILE *log, struct il_knobs_lock **out, char *err,
		  size_t errlen)
{
	return il_knobs_lock_wait(state_dir, log, 0, out, err, errlen);
}

int il_knobs_lock_wait(const char *state_dir, FILE *log, unsigned wait_ms,
		       struct il_knobs_lock **out, char *err, size_t errlen)
{
	struct il_knobs_lock *l = NULL;
	struct lock_info prev;
	int r;

	r = lock_take(state_dir ? state_dir : il_knobs_state_dir(), wait_ms, &l, &prev, err,
		      errlen);
	if (r)
		return r;
	r = lock_repair(l, &prev, log, NULL, err, errlen);
	if (r == 0 && (r = lock_write(l->fd, l->state_dir)) < 0)
		snprintf(err, errlen, IL_KNOBS_LOCK_PATH ": %s", strerror(-r));
	if (r < 0) {
		il_knobs_unlock(l);
		return r;
	}
	*out = l;
	return 0;
}

void il_knobs_unlock(struct il_knobs_lock *l)
{
	if (!l)
		return;
	/* Closing the last descriptor drops the flock. */
	close(l->fd);
	free(l);
}

int il_knobs_restore(const char *state_dir, struct il_knob_report *restored, char *err,
		     size_t errlen)
{
	struct il_knob_report *rep = calloc(1, sizeof(*rep));
	struct il_knobs_lock *l = NULL;
	struct lock_info prev;
	int r;

	if (!rep)
		return -ENOMEM;
	rep->rt_runtime_us_before = INT32_MIN;
	rep->fs.runtime_ns = rep->fs.period_ns = -1;
	r = lock_take(state_dir ? state_dir : il_knobs_state_dir(), IL_KNOBS_LOCK_WAIT_MS, &l,
		      &prev, err, errlen);
	if (r == 0)
		r = lock_repair(l, &prev, NULL, rep, err, errlen);
	if (r == 0 && restored)
		*restored = *rep;
	il_knobs_unlock(l);
	free(rep);
	return r;
}

int il_knobs_recover_stale(const char *state_dir, FILE *log)
{
	struct il_knobs_lock *l = NULL;
	char err[512] = "";
	int r = il_knobs_lock(state_dir, log, &l, err, sizeof(err));

	if (r && log && err[0])
		fprintf(log, "inputlat: %s\n", err);
	il_knobs_unlock(l);
	return r;
}
