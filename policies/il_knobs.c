/*
 * System knobs with crash safety. The invariant: no knob differs from its
 * original unless a complete, fsync'd state file naming the original
 * exists. The state file is created under a temporary name and linked into
 * place, so it is either absent or whole, and link() failing with EEXIST
 * is also the lock that keeps two runs from stacking their changes.
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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "il_parse.h"
#include "il_sysinfo.h"

#define RT_RUNTIME IL_SYSINFO_RT_RUNTIME
#define RT_PERIOD IL_SYSINFO_RT_PERIOD
#define FS_DIR IL_SYSINFO_FAIR_SERVER
#define STATE_VERSION 1
#define STATE_MAX_BYTES 65536

/* One run's saved originals, as read back from a state file. */
struct state {
	long pid;
	uint64_t start_ticks;
	size_t n;
	struct il_knob_change ch[IL_KNOBS_MAX_CHANGES];
};

const char *il_knobs_state_dir(void)
{
	const char *d = getenv("IL_STATE_DIR");
	return d && *d ? d : IL_KNOBS_STATE_DIR;
}

/* The one message for "another run holds the knobs": callers and scripts
 * tell it by the -EBUSY / exit code 75 it comes with, never by its text. */
static void busy_msg(char *err, size_t errlen, long pid, const char *dir)
{
	snprintf(err, errlen,
		 "system knobs are held by running inputlat pid %ld (state in %s/" IL_KNOBS_STATE_FILE
		 "); wait for it to end, or run 'inputlat restore' if it is gone",
		 pid, dir);
}

/* --- state file ----------------------------------------------------- */

/* The kernel's start time of a process, in clock ticks since boot: with
 * the pid it names one process, even after the pid is reused. */
static int pid_start_ticks(long pid, uint64_t *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	int r = il_sysinfo_read_value(path, buf, sizeof(buf));
	if (r)
		return r;
	/* Field 22; fields after the last ')' never contain spaces. */
	char *s = strrchr(buf, ')');
	if (!s)
		return -EINVAL;
	char *save = NULL, *tok = strtok_r(s + 1, " ", &save);
	for (int field = 3; tok && field < 22; field++)
		tok = strtok_r(NULL, " ", &save);
	if (!tok)
		return -EINVAL;
	return il_parse_u64(tok, 0, UINT64_MAX, out);
}

/* True when the run that wrote st is still alive. */
static bool state_owner_alive(const struct state *st)
{
	uint64_t ticks;
	if (kill((pid_t)st->pid, 0) != 0 && errno != EPERM)
		return false;
	return pid_start_ticks(st->pid, &ticks) == 0 && ticks == st->start_ticks;
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
		if (e != ENOENT || create)
			snprintf(err, errlen, "state directory %s: %s%s", dir, strerror(e),
				 e == ELOOP || e == ENOTDIR ? " (refusing a symlink)" : "");
		return -e;
	}
	struct stat st;
	if (fstat(dfd, &st) != 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & 022)) {
		snprintf(err, errlen, "state directory %s is writable by others or not "
			 "owned by root or us: refusing it", dir);
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

static int parse_state(const char *text, struct state *out)
{
	struct state st = { 0 };
	int r = -EINVAL;
	cJSON *root = cJSON_Parse(text);
	if (!root)
		return -EINVAL;
	cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "file_version");
	cJSON *pid = cJSON_GetObjectItemCaseSensitive(root, "pid");
	cJSON *ticks = cJSON_GetObjectItemCaseSensitive(root, "pid_start_ticks");
	cJSON *knobs = cJSON_GetObjectItemCaseSensitive(root, "knobs");
	if (!cJSON_IsNumber(ver) || ver->valueint != STATE_VERSION || !cJSON_IsNumber(pid) ||
	    pid->valuedouble < 1 || pid->valuedouble > INT_MAX || !cJSON_IsString(ticks) ||
	    il_parse_u64(ticks->valuestring, 0, UINT64_MAX, &st.start_ticks) ||
	    !cJSON_IsArray(knobs) || cJSON_GetArraySize(knobs) > IL_KNOBS_MAX_CHANGES)
		goto out;
	st.pid = (long)pid->valuedouble;
	cJSON *k;
	cJSON_ArrayForEach(k, knobs) {
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

/* Reads dir/knobs.state: -ENOENT when there is none. */
static int load_state(int dfd, const char *dir, struct state *st, char *err, size_t errlen)
{
	int fd = openat(dfd, IL_KNOBS_STATE_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e != ENOENT)
			snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": %s%s", dir,
				 strerror(e), e == ELOOP ? " (refusing a symlink)" : "");
		return -e;
	}
	struct stat sb;
	char *text = NULL;
	int r = -EINVAL;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (sb.st_uid != 0 && sb.st_uid != geteuid()) || (sb.st_mode & 022) ||
	    sb.st_size <= 0 || sb.st_size > STATE_MAX_BYTES) {
		snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": not a regular file owned "
			 "by root or us, or writable by others: refusing it", dir);
		r = -EPERM;
		goto out;
	}
	text = calloc(1, (size_t)sb.st_size + 1);
	if (!text) {
		r = -ENOMEM;
		goto out;
	}
	ssize_t n = read(fd, text, (size_t)sb.st_size);
	if (n != sb.st_size || parse_state(text, st) != 0) {
		snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": unreadable or not an "
			 "inputlat state file; check the knobs and remove it by hand", dir);
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
static int write_state(int dfd, const char *dir, const struct il_knob_change *ch,
		       size_t n, char *err, size_t errlen)
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
			struct state other;
			char e2[8];
			long pid = load_state(dfd, dir, &other, e2, sizeof(e2)) == 0 ? other.pid : 0;
			busy_msg(err, errlen, pid, dir);
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
	if ((r = il_sysinfo_read_i64(RT_RUNTIME, &cur_r)) || (r = il_sysinfo_read_i64(RT_PERIOD, &cur_p))) {
		snprintf(err, errlen, "cannot read " RT_RUNTIME " or " RT_PERIOD ": %s",
			 strerror(-r));
		return r;
	}
	int64_t want_r = k->has_rt_runtime ? k->rt_runtime_us : cur_r;
	int64_t want_p = k->has_rt_period ? k->rt_period_us : cur_p;
	if (want_r > want_p) {
		snprintf(err, errlen, "sched_rt_runtime_us %" PRId64 " > sched_rt_period_us %"
			 PRId64 " (want -1 or at most the period)", want_r, want_p);
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
		group = il_sysinfo_read_i64(gpath, &g_cur) == 0 && il_sysinfo_read_i64(gper_path, &g_per) == 0;
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

static int plan_fair_server(const struct il_knob_settings *k, struct plan *p,
			    char *err, size_t errlen)
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
		if ((r = il_sysinfo_read_i64(rpath, &cur_r)) || (r = il_sysinfo_read_i64(ppath, &cur_p))) {
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

int il_knobs_apply(const struct il_knob_settings *k, const char *state_dir,
		   struct il_knob_report *rep, char *err, size_t errlen)
{
	const char *dir = state_dir ? state_dir : il_knobs_state_dir();
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
	il_fair_server_probe(&out->fs);

	if ((k->has_rt_runtime || k->has_rt_period) && (r = plan_rt(k, p, err, errlen)))
		goto out;
	if (k->has_fair_server) {
		if (!out->fs.present) {
			snprintf(err, errlen, "fair server not present: kernel older than 6.12");
			r = -EOPNOTSUPP;
			goto out;
		}
		/* Present but locked: the run goes on with what is in force
		 * and the report says tunable = false. */
		if (out->fs.tunable && (r = plan_fair_server(k, p, err, errlen)))
			goto out;
	}
	if (p->n == 0)
		goto done;

	if ((dfd = open_state_dir(dir, true, err, errlen)) < 0) {
		r = dfd;
		goto out;
	}
	if ((r = write_state(dfd, dir, p->ch, p->n, err, errlen)))
		goto out;
	snprintf(out->state_path, sizeof(out->state_path), "%s/" IL_KNOBS_STATE_FILE, dir);
	for (size_t i = 0; i < p->n; i++) {
		r = il_sysinfo_write_value(p->ch[i].path, p->ch[i].applied);
		if (r == 0)
			continue;
		int u = undo(p->ch, i, NULL);
		snprintf(err, errlen, "%s: writing %s: %s (%s)", p->ch[i].path,
			 p->ch[i].applied, strerror(-r),
			 u ? "could not put everything back: see 'inputlat restore'"
			   : "originals put back");
		if (u == 0)
			unlinkat(dfd, IL_KNOBS_STATE_FILE, 0);
		goto out;
	}
	out->n = p->n;
	memcpy(out->changes, p->ch, p->n * sizeof(p->ch[0]));
	if (k->has_fair_server)
		il_fair_server_probe(&out->fs); /* values now in force */
done:
	*rep = *out;
out:
	if (dfd >= 0)
		close(dfd);
	free(p);
	free(out);
	return r;
}

int il_knobs_restore_signal_safe(const struct il_knob_report *rep)
{
	int r = undo(rep->changes, rep->n, NULL);
	if (r == 0 && rep->state_path[0])
		unlink(rep->state_path);
	return r;
}

/* Restores st and removes the state file; keeps it if a write fails. */
static int restore_state(int dfd, const char *dir, const struct state *st,
			 struct il_knob_report *restored, char *err, size_t errlen)
{
	size_t failed = 0;
	int r = undo(st->ch, st->n, &failed);
	if (r) {
		snprintf(err, errlen, "%s: writing %s: %s (state file %s/" IL_KNOBS_STATE_FILE
			 " kept)", st->ch[failed].path, st->ch[failed].original, strerror(-r),
			 dir);
		return r;
	}
	if (unlinkat(dfd, IL_KNOBS_STATE_FILE, 0) != 0 && errno != ENOENT) {
		r = -errno;
		snprintf(err, errlen, "%s/" IL_KNOBS_STATE_FILE ": %s", dir, strerror(-r));
		return r;
	}
	fsync(dfd);
	if (restored) {
		memset(restored, 0, sizeof(*restored));
		restored->n = st->n;
		memcpy(restored->changes, st->ch, st->n * sizeof(st->ch[0]));
		restored->rt_runtime_us_before = INT32_MIN;
		restored->fs.runtime_ns = restored->fs.period_ns = -1;
	}
	return 0;
}

/* Opens the directory and reads its state: 0, 1 = nothing there, -errno. */
static int open_and_load(const char *dir, int *dfd_out, struct state *st, char *err,
			 size_t errlen)
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

int il_knobs_restore(const char *state_dir, struct il_knob_report *restored,
		     char *err, size_t errlen)
{
	const char *dir = state_dir ? state_dir : il_knobs_state_dir();
	struct state *st = calloc(1, sizeof(*st));
	int dfd = -1, r;
	if (!st)
		return -ENOMEM;
	r = open_and_load(dir, &dfd, st, err, errlen);
	if (r == 1) {
		if (restored) {
			memset(restored, 0, sizeof(*restored));
			restored->rt_runtime_us_before = INT32_MIN;
		}
		r = 0;
		goto out;
	}
	if (r)
		goto out;
	if (st->pid != getpid() && state_owner_alive(st)) {
		busy_msg(err, errlen, st->pid, dir);
		r = -EBUSY;
		goto out;
	}
	r = restore_state(dfd, dir, st, restored, err, errlen);
out:
	if (dfd >= 0)
		close(dfd);
	free(st);
	return r;
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
		uint64_t pid;

		if (strncmp(e->d_name, ".knobs.state.", 13) != 0 ||
		    il_parse_u64(e->d_name + 13, 1, INT32_MAX, &pid) < 0 ||
		    kill((pid_t)pid, 0) == 0 || errno == EPERM)
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
}

int il_knobs_recover_stale(const char *state_dir, FILE *log)
{
	const char *dir = state_dir ? state_dir : il_knobs_state_dir();
	struct state *st = calloc(1, sizeof(*st));
	char err[512] = "";
	int dfd = -1, r;
	if (!st)
		return -ENOMEM;
	remove_dead_temps(dir);
	r = open_and_load(dir, &dfd, st, err, sizeof(err));
	if (r == 1) {
		r = 0;
		goto out;
	}
	if (r)
		goto out;
	if (st->pid == getpid()) {
		r = 0; /* our own, restored at our exit */
		goto out;
	}
	if (state_owner_alive(st)) {
		busy_msg(err, sizeof(err), st->pid, dir);
		r = -EBUSY;
		goto out;
	}
	r = restore_state(dfd, dir, st, NULL, err, sizeof(err));
	if (r == 0 && log) {
		fprintf(log, "inputlat: restored %zu system knob%s left by dead run pid %ld:",
			st->n, st->n == 1 ? "" : "s", st->pid);
		for (size_t i = st->n; i-- > 0;) /* in the order written back */
			fprintf(log, " %s=%s", st->ch[i].path, st->ch[i].original);
		fprintf(log, "\n");
	}
out:
	if (r && log && err[0])
		fprintf(log, "inputlat: %s\n", err);
	if (dfd >= 0)
		close(dfd);
	free(st);
	return r;
}
