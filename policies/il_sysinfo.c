#include "il_sysinfo.h"

#ifdef IL_HAVE_LIBBPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdarg.h>

#include "il_bpf_attach.h"
#endif

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "il_cpu_bandwidth.h"
#include "il_cpustat.h"
#include "il_file.h"
#include "il_mountfield.h"
#include "il_parse.h"
#include "il_printable.h"
#include "il_rt_throttle.h"
#include "il_sched.h"
#include "il_sched_attr.h"

int il_sysinfo_value_parse(const char *text, size_t n, char *buf, size_t len)
{
	const char *nl = memchr(text, '\n', n);
	size_t line = nl ? (size_t)(nl - text) : n;

	if (len == 0 || line >= len)
		return -EOVERFLOW;
	if (memchr(text, '\0', line))
		return -EINVAL;
	memmove(buf, text, line);
	buf[line] = '\0';
	return 0;
}

int il_sysinfo_read_value(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char next = '\n';
	int e;

	if (fd < 0)
		return -errno;
	if (len == 0) {
		close(fd);
		return -EOVERFLOW;
	}
	n = read(fd, buf, len - 1);
	e = errno;
	/* A full buffer without the newline: one byte more says whether the
	 * line goes on, and a value cut short is not the value. */
	if (n == (ssize_t)len - 1 && !memchr(buf, '\n', (size_t)n) && read(fd, &next, 1) != 1)
		next = '\n';
	close(fd);
	if (n < 0)
		return -e;
	e = next != '\n' ? -EOVERFLOW : il_sysinfo_value_parse(buf, (size_t)n, buf, len);
	/* What was read is no value: a caller that prints buf anyway prints "". */
	if (e)
		buf[0] = '\0';
	return e;
}

int il_sysinfo_write_value(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(val);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	e = errno;
	if (close(fd) != 0 && n >= 0)
		return -errno;
	if (n < 0)
		return -e;
	return (size_t)n == len ? 0 : -EIO;
}

int il_sysinfo_read_i64(const char *path, int64_t *out)
{
	char buf[32];
	int r = il_sysinfo_read_value(path, buf, sizeof(buf));

	if (r)
		return r;
	return il_parse_i64(buf, INT64_MIN, INT64_MAX, out);
}

int il_sysinfo_rt_runtime_us(int64_t *out)
{
	return il_sysinfo_read_i64(IL_SYSINFO_RT_RUNTIME, out);
}

int il_sysinfo_rt_period_us(int64_t *out)
{
	return il_sysinfo_read_i64(IL_SYSINFO_RT_PERIOD, out);
}

bool il_sysinfo_kernel_at_least(unsigned major, unsigned minor)
{
	struct utsname u;
	char part[2][16] = {"", ""};
	const char *s;
	uint64_t ma, mi;

	if (uname(&u) != 0)
		return false;
	s = u.release;
	for (int i = 0; i < 2; i++) {
		size_t n = strspn(s, "0123456789");

		if (n == 0 || n >= sizeof(part[i]))
			return false;
		memcpy(part[i], s, n);
		s += n + (s[n] == '.');
	}
	if (il_parse_u64(part[0], 0, 1000, &ma) || il_parse_u64(part[1], 0, 1000, &mi))
		return false;
	return ma > major || (ma == major && mi >= minor);
}

bool il_sysinfo_cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {0};

	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

int il_sysinfo_cpu_mount_next(const char *text, size_t n, size_t *pos, char *dir, size_t len)
{
	const char *end = text + n;

	while (*pos < n) {
		const char *p = text + *pos, *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *f[4];
		size_t fl[4];

		*pos = nl ? (size_t)(nl - text) + 1 : n;
		/* device mount-point type options dump pass */
		if (il_mountfield_split(p, eol, f, fl, 4) == 4 && fl[2] == 6 &&
		    memcmp(f[2], "cgroup", 6) == 0 && il_mountfield_has_word(f[3], fl[3], "cpu") &&
		    il_mountfield_unescape(f[1], fl[1], dir, len) && dir[0] == '/')
			return 1;
	}
	return 0;
}

int il_sysinfo_rt_group_root(char *dir, size_t len)
{
	size_t n = 0, pos = 0;
	char *text = il_file_read("/proc/self/mounts", 16u << 20, &n), mnt[PATH_MAX];
	int r = -ENOENT;

	if (!text)
		return -errno;
	while (r && il_sysinfo_cpu_mount_next(text, n, &pos, mnt, sizeof(mnt))) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", mnt);
		if (access(path, F_OK) == 0 && strlen(mnt) < len) {
			snprintf(dir, len, "%s", mnt);
			r = 0;
		}
	}
	free(text);
	return r;
}

/* The config files il_sysinfo_kconfig tries, in order. */
static void kconfig_paths(char boot[300])
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(boot, 300, "/boot/config-%s", u.release);
	else
		boot[0] = '\0';
}

#define PROC_CONFIG_GZ "/proc/config.gz"

/*
 * 0 when path reads as a kernel config: a CONFIG_ line near its top (an
 * empty file, /dev/null bound over it, or another file is none, and
 * reading "not set" from it would be a guess). Else -errno with why.
 */
static int kconfig_valid(const char *path, char *why, size_t wlen)
{
	char line[512];
	gzFile f;
	int r = -ENODATA, ge = Z_OK;

	if (access(path, R_OK) != 0) {
		r = -errno;
		snprintf(why, wlen, "%s: %s", path, strerror(-r));
		return r;
	}
	errno = 0;
	f = gzopen(path, "rb");
	if (!f) {
		r = errno ? -errno : -ENOMEM;
		snprintf(why, wlen, "%s: %s", path, strerror(-r));
		return r;
	}
	for (int i = 0; i < 64 && gzgets(f, line, sizeof(line)); i++)
		if (strncmp(line, "CONFIG_", 7) == 0) {
			r = 0;
			break;
		}
	if (r) {
		const char *msg = gzerror(f, &ge);

		if (ge != Z_OK && ge != Z_STREAM_END) {
			snprintf(why, wlen, "%s: %s", path, ge == Z_ERRNO ? strerror(errno) : msg);
			r = -EIO;
		} else {
			snprintf(why, wlen, "%s: no CONFIG_ line (empty, or not a kernel config)",
				 path);
		}
	}
	gzclose(f);
	return r;
}

/* The first config file that reads as one, or -errno with why: none
 * there, or the first one there and why it does not read. */
static int kconfig_find(char *path, size_t len, char *why, size_t wlen)
{
	char boot[300], w[360] = "", scratch[360];
	const char *cand[2];
	int first = -ENOENT, n = 0;

	kconfig_paths(boot);
	if (boot[0])
		cand[n++] = boot;
	cand[n++] = PROC_CONFIG_GZ;
	for (int i = 0; i < n; i++) {
		int r;

		if (access(cand[i], F_OK) != 0)
			continue;
		r = kconfig_valid(cand[i], first == -ENOENT ? w : scratch, sizeof(w));
		if (r == 0) {
			snprintf(path, len, "%s", cand[i]);
			return 0;
		}
		if (first == -ENOENT)
			first = r;
	}
	if (first == -ENOENT)
		snprintf(w, sizeof(w), "no /boot/config-RELEASE and no " PROC_CONFIG_GZ);
	snprintf(why, wlen, "%s", w);
	return first;
}

int il_sysinfo_kconfig_source(char *path, size_t len)
{
	char why[360];

	return kconfig_find(path, len, why, sizeof(why));
}

void il_sysinfo_kconfig_unreadable(char *why, size_t len)
{
	char path[300], w[360];

	if (kconfig_find(path, sizeof(path), w, sizeof(w)) == 0)
		snprintf(why, len, "readable: %s", path);
	else
		snprintf(why, len, "unreadable: %s", w);
}

int il_sysinfo_kconfig_parse(const char *text, size_t n, const char *option, char *val, size_t len)
{
	size_t olen = strlen(option);
	const char *p = text, *end = text + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		size_t line = (size_t)(eol - p);

		if (line > olen && memcmp(p, option, olen) == 0 && p[olen] == '=') {
			const char *v = p + olen + 1;
			size_t vlen = (size_t)(eol - v);

			/* CONFIG_X="text": the text. */
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
				v++;
				vlen -= 2;
			}
			if (memchr(v, '\0', vlen))
				return -EINVAL;
			if (vlen >= len)
				return -EOVERFLOW; /* cut short, it would be another value */
			memcpy(val, v, vlen);
			val[vlen] = '\0';
			return 0;
		}
		if (line == olen + 13 && memcmp(p, "# ", 2) == 0 &&
		    memcmp(p + 2, option, olen) == 0 &&
		    memcmp(p + 2 + olen, " is not set", 11) == 0) {
			if (len < 2)
				return -EOVERFLOW;
			snprintf(val, len, "n");
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}

/* The largest config read: a distribution's is about 300 KiB. */
#define KCONFIG_MAX (16u << 20)

int il_sysinfo_kconfig(const char *option, char *val, size_t len)
{
	char path[300], *text = NULL;
	size_t n = 0, cap = 0;
	gzFile f;
	int r, ge, got;

	/* zlib reads a plain file as it is, so one reader serves both. */
	if (il_sysinfo_kconfig_source(path, sizeof(path)) < 0)
		return -ENOENT;
	f = gzopen(path, "rb");
	if (!f)
		return errno ? -errno : -ENOMEM;
	/* The whole text first: a line read in pieces (gzgets into a fixed
	 * buffer) made the rest of a long CONFIG_CMDLINE="..." a line of its
	 * own, which may begin with any option. */
	for (;;) {
		if (cap - n < 65536) {
			char *nb;

			if (cap >= KCONFIG_MAX) {
				r = -EFBIG;
				goto out;
			}
			cap = cap ? cap * 2 : 262144;
			nb = realloc(text, cap);
			if (!nb) {
				r = -ENOMEM;
				goto out;
			}
			text = nb;
		}
		got = gzread(f, text + n, (unsigned)(cap - n));
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	/* Cut short (a truncated or corrupt file) is not "absent". */
	gzerror(f, &ge);
	r = il_sysinfo_kconfig_parse(text ? text : "", n, option, val, len);
	if (r == -ENOENT && ge != Z_OK && ge != Z_STREAM_END)
		r = -EIO;
out:
	free(text);
	gzclose(f);
	return r;
}

static struct {
	pthread_once_t once;
	int supported;
	char why[160];
} uclamp = {.once = PTHREAD_ONCE_INIT};

static void uclamp_probe(void)
{
	/* KEEP_POLICY/KEEP_PARAMS leave the class alone; both came with
	 * uclamp in 5.3, and an older kernel would call them invalid (EINVAL,
	 * the answer that means "supported" below). */
	struct il_sched_attr a = {
	    .size = sizeof(a),
	    .sched_flags =
		SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS | SCHED_FLAG_UTIL_CLAMP_MIN,
	    .sched_util_min = 1025,
	};
	int e;

	if (!il_sysinfo_kernel_at_least(5, 3)) {
		uclamp.supported = 0;
		snprintf(uclamp.why, sizeof(uclamp.why), "kernel older than 5.3 (no uclamp)");
		return;
	}
	e = il_sys_sched_setattr(0, &a) == 0 ? 0 : errno;
	if (e == EINVAL) {
		uclamp.supported = 1;
		snprintf(uclamp.why, sizeof(uclamp.why),
			 "sched_setattr checks utilization clamps (CONFIG_UCLAMP_TASK)");
	} else if (e == EOPNOTSUPP) {
		uclamp.supported = 0;
		snprintf(uclamp.why, sizeof(uclamp.why), "kernel built without CONFIG_UCLAMP_TASK");
	} else {
		/* 0 cannot happen for an out-of-range value; anything else is
		 * a filter between us and the scheduler. */
		uclamp.supported = e ? -e : -EIO;
		snprintf(uclamp.why, sizeof(uclamp.why), "uclamp probe: sched_setattr: %s",
			 e ? strerror(e) : "accepted util_min 1025");
	}
}

int il_sysinfo_uclamp(char *why, size_t len)
{
	pthread_once(&uclamp.once, uclamp_probe);
	if (why && len)
		snprintf(why, len, "%s", uclamp.why);
	return uclamp.supported;
}

static bool debugfs_mounted(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char dev[128], dir[256], type[64];

		if (sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
		    strcmp(dir, IL_SYSINFO_DEBUGFS) == 0 && strcmp(type, "debugfs") == 0)
			found = true;
	}
	fclose(f);
	return found;
}

/*
 * Whether the running kernel has a fair server, an ext server and RT
 * group scheduling, from its own type information: Linux 6.12 added
 * `struct sched_dl_entity
 * fair_server` to struct rq, and the sched_ext deadline server adds
 * `ext_server` beside it. 1 yes, 0 no, -1 unknown (no BTF, or built
 * without libbpf). Parsing vmlinux's BTF takes 13-18 ms here: done once
 * per process.
 */
static void add_lockdown(char *why, size_t len);

static int btf_fair_server = -1, btf_ext_server = -1, btf_rt_group = -1;

#ifdef IL_HAVE_LIBBPF
/* 1 when BTF type name (a struct) has member, 0 when not or no such type. */
static int btf_struct_has(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (unsigned)id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (unsigned i = 0; t && i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);

		if (name && !strcmp(name, member))
			return 1;
	}
	return 0;
}
#endif

static void btf_servers_read(void)
{
#ifdef IL_HAVE_LIBBPF
	struct btf *btf = NULL;

	/* The kernel's own BTF only: libbpf's fallback to vmlinux files
	 * under /boot could describe another kernel. */
	if (access(IL_SYSINFO_VMLINUX_BTF, R_OK) == 0) {
		/* A kernel without BTF is an answer ("unknown"), not a message. */
		libbpf_print_fn_t old = libbpf_set_print(il_bpf_debug_print);

		btf = btf__parse(IL_SYSINFO_VMLINUX_BTF, NULL);
		libbpf_set_print(old);
	}
	if (!btf)
		return;
	if (btf__find_by_name_kind(btf, "rq", BTF_KIND_STRUCT) > 0) {
		btf_fair_server = btf_struct_has(btf, "rq", "fair_server");
		btf_ext_server = btf_struct_has(btf, "rq", "ext_server");
	}
	/* struct task_group has rt_bandwidth only with CONFIG_RT_GROUP_SCHED
	 * (and exists only with CONFIG_CGROUP_SCHED, which that needs). */
	btf_rt_group = btf_struct_has(btf, "task_group", "rt_bandwidth");
	btf__free(btf);
#endif
}

static pthread_once_t btf_once = PTHREAD_ONCE_INIT;

/*
 * The parse on a thread of its own, started early by a run: it takes
 * 15-75 ms of CPU here, beside the BPF attach and the calibration on the
 * other CPU (which then took 5-10 ms longer; the start-up to the first
 * event went from 150 to 105 ms). Whoever asks first waits in
 * pthread_once for the answer.
 */
static pthread_t prefetch_thread;
static bool prefetch_started;

static void *prefetch_main(void *arg)
{
	(void)arg;
	pthread_once(&btf_once, btf_servers_read);
	return NULL;
}

void il_sysinfo_prefetch(void)
{
	if (!prefetch_started)
		prefetch_started = pthread_create(&prefetch_thread, NULL, prefetch_main, NULL) == 0;
}

void il_sysinfo_prefetch_join(void)
{
	if (prefetch_started)
		pthread_join(prefetch_thread, NULL);
	prefetch_started = false;
}

static int btf_has_fair_server(void)
{
	pthread_once(&btf_once, btf_servers_read);
	return btf_fair_server;
}

static int btf_has_ext_server(void)
{
	pthread_once(&btf_once, btf_servers_read);
	return btf_ext_server;
}

int il_sysinfo_btf_rt_group_sched(void)
{
	pthread_once(&btf_once, btf_servers_read);
	return btf_rt_group;
}

int il_fair_server_probe(struct il_fair_server *out)
{
	struct il_fair_server fs = {.runtime_ns = -1, .period_ns = -1};
	struct stat st;

	if (stat(IL_SYSINFO_FAIR_SERVER, &st) == 0) {
		int64_t rt, per;
		int r = il_sysinfo_read_i64(IL_SYSINFO_FAIR_SERVER "/cpu0/runtime", &rt);

		fs.present = true;
		if (r == 0)
			r = il_sysinfo_read_i64(IL_SYSINFO_FAIR_SERVER "/cpu0/period", &per);
		if (r == 0) {
			int fd;

			fs.readable = true;
			fs.runtime_ns = rt;
			fs.period_ns = per;
			/* Opening for write without writing tells whether lockdown
			 * or permissions would let us tune it. */
			fd = open(IL_SYSINFO_FAIR_SERVER "/cpu0/runtime", O_WRONLY | O_CLOEXEC);
			fs.tunable = fd >= 0;
			if (fd >= 0)
				close(fd);
			snprintf(fs.why, sizeof(fs.why), "%s " IL_SYSINFO_FAIR_SERVER,
				 fs.tunable ? "read and writable:" : "read, not writable:");
		} else {
			snprintf(fs.why, sizeof(fs.why), IL_SYSINFO_FAIR_SERVER "/cpu0: %s",
				 strerror(-r));
		}
	} else {
		int err = errno, btf = btf_has_fair_server();
		const char *how = btf > 0    ? "struct rq has fair_server in the kernel's BTF"
				  : btf == 0 ? "struct rq has no fair_server in the kernel's BTF"
					     : "kernel 6.12+ (no BTF to read)";

		/* Only the debugfs view is missing: the kernel's own types say
		 * whether a fair server exists, else its version. We do not mount
		 * debugfs ourselves: that would change the machine behind the
		 * admin's back. */
		fs.present = btf > 0 || (btf < 0 && il_sysinfo_kernel_at_least(6, 12));
		if (!fs.present)
			snprintf(fs.why, sizeof(fs.why), "%s",
				 btf == 0 ? how : "kernel older than 6.12 (no BTF to read)");
		else if (err == EPERM || err == EACCES)
			snprintf(fs.why, sizeof(fs.why),
				 "debugfs locked (%s); %s; defaults assumed", strerror(err), how);
		else if (!debugfs_mounted()) {
			char dbg[200] = "debugfs not mounted at " IL_SYSINFO_DEBUGFS;

			add_lockdown(dbg, sizeof(dbg));
			snprintf(fs.why, sizeof(fs.why), "%s; %s; defaults assumed", dbg, how);
		} else
			snprintf(fs.why, sizeof(fs.why),
				 IL_SYSINFO_FAIR_SERVER
				 " missing from debugfs (locked down?); %s; defaults assumed",
				 how);
	}
	*out = fs;
	return 0;
}

/* --- facts for reports (issue 15) ---------------------------------------- */

/* syslog(2)'s actions (the kernel's linux/syslog.h is not exported). */
#define SYSLOG_ACTION_READ_ALL	  3
#define SYSLOG_ACTION_SIZE_BUFFER 10

/*
 * The kernel log, read once per process (the facts ask it a few things,
 * each run: a read per question read the whole ring each time), or NULL
 * with why. Kept for the process's life.
 */
static char *klog_buf;
static char klog_err[120];

static void klog_read(void)
{
	char *text = NULL;
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), n;

	if (size <= 0) {
		snprintf(klog_err, sizeof(klog_err), "the kernel log's size: %s",
			 size < 0 ? strerror(errno) : "0");
	} else if (!(text = malloc((size_t)size + 1))) {
		snprintf(klog_err, sizeof(klog_err), "out of memory for the kernel log");
	} else if ((n = klogctl(SYSLOG_ACTION_READ_ALL, text, size)) < 0) {
		snprintf(klog_err, sizeof(klog_err), "the kernel log: %s", strerror(errno));
		free(text);
		text = NULL;
	} else {
		text[n] = '\0';
	}
	klog_buf = text;
}

static const char *klog_text(char *why, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, klog_read);
	snprintf(why, len, "%s", klog_err);
	return klog_buf;
}

/*
 * The rest of the kernel log's first line that holds key, printable: 1;
 * 0 when no line holds it; -1 with "unreadable: why" when the log cannot
 * be read.
 */
static int klog_line(const char *key, char *out, size_t len)
{
	char why[120];
	const char *log = klog_text(why, sizeof(why)), *at, *end;

	if (!log) {
		snprintf(out, len, "unreadable: %s", why);
		return -1;
	}
	at = strstr(log, key);
	if (!at)
		return 0;
	at += strlen(key);
	end = strchr(at, '\n');
	snprintf(out, len, "%.*s", (int)(end ? end - at : (ptrdiff_t)strlen(at)), at);
	il_printable(out);
	return 1;
}

/*
 * Whether the kernel is locked down, from its log ("Kernel is locked down
 * from ...", once at boot): a locked-down kernel refuses debugfs reads
 * even to root, mounted or not (this project's VM: EPERM in a private
 * mount), so "not mounted" alone would send a reader to mount it in vain.
 * Appends ", and the kernel is locked down (...)" to why when it is.
 */
static void add_lockdown(char *why, size_t len)
{
	char from[120];
	size_t n = strlen(why);

	if (n < len && klog_line("Kernel is locked down from ", from, sizeof(from)) == 1) {
		from[strcspn(from, ";")] = '\0'; /* "...; see man kernel_lockdown.7" */
		snprintf(why + n, len - n,
			 ", and the kernel is locked down (from %s), which refuses debugfs "
			 "reads mounted or not",
			 from);
	}
}

/* Why a debugfs file could not be read, in words a reader can act on. */
static void debugfs_why(int err, char *why, size_t len)
{
	if (err == -ENOENT && !debugfs_mounted()) {
		snprintf(why, len, "debugfs not mounted at " IL_SYSINFO_DEBUGFS);
		add_lockdown(why, len);
	} else if (err == -EPERM || err == -EACCES)
		snprintf(why, len, "debugfs refused (%s: locked down, or not root)",
			 strerror(-err));
	else
		snprintf(why, len, "%s", strerror(-err));
}

/* "unreadable: debugfs not mounted at ..." for path. */
static void add_unreadable_debugfs(cJSON *o, const char *key, const char *path, int err)
{
	char why[256], text[512];

	debugfs_why(err, why, sizeof(why));
	snprintf(text, sizeof(text), "unreadable: %s: %s", path, why);
	cJSON_AddStringToObject(o, key, text);
}

/* A kernel config option, or NULL with why when the config is unreadable. */
static const char *kconfig_or_why(const char *option, char *val, size_t len)
{
	int r = il_sysinfo_kconfig(option, val, len);

	if (r == 0)
		return val;
	if (r == -ENOENT && il_sysinfo_kconfig_source(val, len) == 0)
		snprintf(val, len, "n"); /* the config was read: the option is not in it */
	else
		return NULL;
	return val;
}

static const char *const preempt_options[][2] = {
    {"CONFIG_PREEMPT_RT", "rt"},     {"CONFIG_PREEMPT_LAZY", "lazy"},
    {"CONFIG_PREEMPT", "full"},	     {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"},
    {"CONFIG_PREEMPT_NONE", "none"},
};

int il_sysinfo_preempt_parse(const char *text, char *model, size_t len)
{
	const char *open = strchr(text, '('), *close = open ? strchr(open, ')') : NULL;

	if (!close || close == open + 1)
		return -EINVAL;
	snprintf(model, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

void il_sysinfo_preempt(char *model, size_t mlen, char *source, size_t slen)
{
	char buf[256], cmdline[4096], cfg[300], v[32], dbg[256];
	int r;

	/* 1. The mode in force, where debugfs shows it. */
	r = il_sysinfo_read_value(IL_SYSINFO_DEBUGFS "/sched/preempt", buf, sizeof(buf));
	if (r == 0 && il_sysinfo_preempt_parse(buf, model, mlen) == 0) {
		snprintf(source, slen, IL_SYSINFO_DEBUGFS "/sched/preempt: %s", buf);
		return;
	}
	debugfs_why(r ? r : -EINVAL, dbg, sizeof(dbg));

	/* 2. A dynamic kernel's boot-time choice. */
	bool dynamic =
	    kconfig_or_why("CONFIG_PREEMPT_DYNAMIC", v, sizeof(v)) && strcmp(v, "y") == 0;
	if (il_sysinfo_read_value("/proc/cmdline", cmdline, sizeof(cmdline)) == 0 && dynamic) {
		char *save = NULL;

		for (char *t = strtok_r(cmdline, " ", &save); t; t = strtok_r(NULL, " ", &save))
			if (strncmp(t, "preempt=", 8) == 0) {
				snprintf(model, mlen, "%s", t + 8);
				snprintf(source, slen,
					 "boot command line %s (PREEMPT_DYNAMIC "
					 "kernel); " IL_SYSINFO_DEBUGFS
					 "/sched/preempt unreadable: %s",
					 t, dbg);
				return;
			}
	}

	/* 3. The config's choice: the model, or a dynamic kernel's boot default. */
	if (il_sysinfo_kconfig_source(cfg, sizeof(cfg)) == 0) {
		for (size_t i = 0; i < sizeof(preempt_options) / sizeof(preempt_options[0]); i++)
			if (il_sysinfo_kconfig(preempt_options[i][0], v, sizeof(v)) == 0 &&
			    strcmp(v, "y") == 0) {
				snprintf(model, mlen, "%s", preempt_options[i][1]);
				if (dynamic)
					snprintf(
					    source, slen,
					    "%s: %s=y, the boot default of a "
					    "PREEMPT_DYNAMIC kernel, no preempt= on the command "
					    "line; a change at run time would show only "
					    "in " IL_SYSINFO_DEBUGFS
					    "/sched/preempt, unreadable: %s",
					    cfg, preempt_options[i][0], dbg);
				else
					snprintf(source, slen, "%s: %s=y", cfg,
						 preempt_options[i][0]);
				return;
			}
	}

	/* 4. The build's flavour as uname -v prints it. */
	struct utsname u;
	if (uname(&u) == 0 && strstr(u.version, "PREEMPT_RT")) {
		snprintf(model, mlen, "rt");
		snprintf(source, slen, "uname -v: %s", u.version);
	} else if (uname(&u) == 0 && strstr(u.version, "PREEMPT_DYNAMIC")) {
		snprintf(
		    model, mlen,
		    "unreadable: a PREEMPT_DYNAMIC kernel (uname -v); neither "
		    "debugfs (%s) nor the boot command line nor a kernel config says which mode",
		    dbg);
		snprintf(source, slen, "uname -v: %s", u.version);
	} else if (uname(&u) == 0 && strstr(u.version, "PREEMPT_LAZY")) {
		snprintf(model, mlen, "lazy");
		snprintf(source, slen, "uname -v: %s", u.version);
	} else if (uname(&u) == 0 && strstr(u.version, "PREEMPT ")) {
		snprintf(model, mlen, "full");
		snprintf(source, slen, "uname -v: %s", u.version);
	} else {
		snprintf(model, mlen,
			 "unreadable: no debugfs (%s), no kernel config, and uname -v "
			 "does not tell none from voluntary",
			 dbg);
		snprintf(source, slen, "uname -v: %s", uname(&u) == 0 ? u.version : "?");
	}
}

/*
 * [{cpu, runtime_ns, period_ns}] from debugfs dir/cpuN, or a reason.
 * Absent only on evidence: a kernel older than the first that had it, a
 * config without it, or, where debugfs cannot say, struct rq without
 * `member` in the kernel's BTF (btf(): 1, 0, -1 unknown; parsed only
 * then). A version is no evidence that a later kernel has it: backports
 * and configs differ.
 */
static void add_server_per_cpu(cJSON *k, const char *key, const char *dir, const char *member,
			       int (*btf)(void), unsigned major, unsigned minor, const char *config)
{
	char path[300], v[32], text[300];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int64_t rt, per;
	cJSON *a;
	int r;

	if (!il_sysinfo_kernel_at_least(major, minor)) {
		snprintf(text, sizeof(text), "absent: kernel older than %u.%u", major, minor);
		cJSON_AddStringToObject(k, key, text);
		return;
	}
	if (config && kconfig_or_why(config, v, sizeof(v)) && strcmp(v, "n") == 0) {
		snprintf(text, sizeof(text), "absent: kernel built without %s", config);
		cJSON_AddStringToObject(k, key, text);
		return;
	}
	a = cJSON_CreateArray();
	for (long cpu = 0; cpu < ncpu; cpu++) {
		cJSON *o;

		snprintf(path, sizeof(path), "%s/cpu%ld/runtime", dir, cpu);
		r = il_sysinfo_read_i64(path, &rt);
		if (r == -ENOENT && cpu > 0)
			continue; /* a CPU that is not possible here */
		if (r == 0) {
			snprintf(path, sizeof(path), "%s/cpu%ld/period", dir, cpu);
			r = il_sysinfo_read_i64(path, &per);
		}
		if (r) {
			cJSON_Delete(a);
			if (btf() == 0) {
				snprintf(text, sizeof(text),
					 "absent: struct rq has no %s in the kernel's BTF", member);
				cJSON_AddStringToObject(k, key, text);
			} else {
				add_unreadable_debugfs(k, key, dir, r);
			}
			return;
		}
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cpu", (double)cpu);
		cJSON_AddNumberToObject(o, "runtime_ns", (double)rt);
		cJSON_AddNumberToObject(o, "period_ns", (double)per);
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddItemToObject(k, key, a);
}

void il_sysinfo_kernel_facts(cJSON *k)
{
	char model[400], source[800], buf[4096], v[64], dir[256], text[400];
	int64_t i64;
	int r, u;
	cJSON *o;

	il_sysinfo_preempt(model, sizeof(model), source, sizeof(source));
	o = cJSON_AddObjectToObject(k, "preempt");
	cJSON_AddStringToObject(o, "model", model);
	cJSON_AddStringToObject(o, "source", source);

	r = il_sysinfo_read_value(IL_SYSINFO_DEBUGFS "/sched/features", buf, sizeof(buf));
	if (r == 0)
		cJSON_AddStringToObject(k, "sched_features", buf);
	else
		add_unreadable_debugfs(k, "sched_features", IL_SYSINFO_DEBUGFS "/sched/features",
				       r);

	/* Both servers came with or after 6.12 (the fair server in it,
	 * sched_ext too); which kernel has the ext server, its BTF says. */
	add_server_per_cpu(k, "fair_server_per_cpu", IL_SYSINFO_FAIR_SERVER, "fair_server",
			   btf_has_fair_server, 6, 12, NULL);
	add_server_per_cpu(k, "ext_server_per_cpu", IL_SYSINFO_DEBUGFS "/sched/ext_server",
			   "ext_server", btf_has_ext_server, 6, 12, "CONFIG_SCHED_CLASS_EXT");

	o = cJSON_AddObjectToObject(k, "rt_group_sched");
	if (kconfig_or_why("CONFIG_RT_GROUP_SCHED", v, sizeof(v))) {
		cJSON_AddStringToObject(o, "config", v);
	} else {
		il_sysinfo_kconfig_unreadable(text, sizeof(text));
		cJSON_AddStringToObject(o, "config", text);
	}
	if (il_sysinfo_rt_group_root(dir, sizeof(dir)) == 0) {
		char path[300];

		snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
		if ((r = il_sysinfo_read_i64(path, &i64)) == 0) {
			cJSON_AddNumberToObject(o, "root_rt_runtime_us", (double)i64);
		} else {
			snprintf(text, sizeof(text), "unreadable: %s: %s", path, strerror(-r));
			cJSON_AddStringToObject(o, "root_rt_runtime_us", text);
		}
	} else {
		cJSON_AddStringToObject(o, "root_rt_runtime_us",
					"absent: no cgroup-v1 cpu hierarchy "
					"exposes cpu.rt_runtime_us");
	}

	/* Which of sched_rt_runtime_us and the group's value holds the run's
	 * RT threads back: the two above, side by side, do not say. */
	{
		struct il_fair_server fs;

		il_fair_server_probe(&fs);
		il_rt_throttle_json(k, fs.present);
	}

	o = cJSON_AddObjectToObject(k, "uclamp");
	u = il_sysinfo_uclamp(text, sizeof(text));
	if (u >= 0) {
		cJSON_AddBoolToObject(o, "supported", u == 1);
	} else {
		char t2[420];

		snprintf(t2, sizeof(t2), "unreadable: %s", text);
		cJSON_AddStringToObject(o, "supported", t2);
	}
	cJSON_AddStringToObject(o, "why", text);

	o = cJSON_AddObjectToObject(k, "sched_ext");
	r = il_sysinfo_read_value("/sys/kernel/sched_ext/state", buf, sizeof(buf));
	if (r == 0) {
		cJSON_AddStringToObject(o, "state", buf);
		/* root/ops names the loaded BPF scheduler, and exists only then. */
		r = il_sysinfo_read_value("/sys/kernel/sched_ext/root/ops", buf, sizeof(buf));
		if (r == 0)
			cJSON_AddStringToObject(o, "scheduler", buf);
		else if (r == -ENOENT)
			cJSON_AddStringToObject(o, "scheduler", "none: no BPF scheduler loaded");
		else {
			snprintf(text, sizeof(text),
				 "unreadable: /sys/kernel/sched_ext/root/ops: %s", strerror(-r));
			cJSON_AddStringToObject(o, "scheduler", text);
		}
	} else {
		if (r == -ENOENT && kconfig_or_why("CONFIG_SCHED_CLASS_EXT", v, sizeof(v)) &&
		    strcmp(v, "n") == 0)
			snprintf(text, sizeof(text),
				 "absent: kernel built without "
				 "CONFIG_SCHED_CLASS_EXT");
		else
			snprintf(text, sizeof(text), "unreadable: /sys/kernel/sched_ext/state: %s",
				 strerror(-r));
		cJSON_AddStringToObject(o, "state", text);
		cJSON_AddStringToObject(o, "scheduler", text);
	}

	if (il_sysinfo_kconfig_source(buf, sizeof(buf)) == 0) {
		cJSON_AddStringToObject(k, "config", buf);
	} else {
		il_sysinfo_kconfig_unreadable(text, sizeof(text));
		cJSON_AddStringToObject(k, "config", text);
	}
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

#define IL_SYSINFO_VENDOR_FROM "cpuid signature"

/* CPUID: the hypervisor bit (leaf 1, ECX bit 31) and the vendor signature
 * of leaf 0x40000000 ("KVMKVMKVM", "Microsoft Hv", "VMwareVMware", ...). */
int il_sysinfo_hypervisor(char *vendor, size_t len)
{
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d)) {
		snprintf(vendor, len, "unreadable: cpuid leaf 1 unavailable");
		return -1;
	}
	if (!(c & (1u << 31))) {
		snprintf(vendor, len, "none: cpuid hypervisor bit clear");
		return 0;
	}
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (int i = 0; i < 12; i++)
		if (sig[i] && (sig[i] < 0x20 || sig[i] > 0x7e))
			sig[i] = '?';
	/* Signatures are padded to 12 bytes ("bhyve bhyve "): the name is without the pad. */
	for (int i = (int)strlen(sig) - 1; i >= 0 && sig[i] == ' '; i--)
		sig[i] = '\0';
	snprintf(vendor, len, "%s", sig[0] ? sig : "unreadable: empty cpuid signature");
	return 1;
}
#else
#define IL_SYSINFO_VENDOR_FROM "/sys/hypervisor/type"

int il_sysinfo_hypervisor(char *vendor, size_t len)
{
	char buf[64];

	if (il_sysinfo_read_value("/sys/hypervisor/type", buf, sizeof(buf)) == 0) {
		snprintf(vendor, len, "%s", buf);
		return 1;
	}
	snprintf(vendor, len, "unreadable: not x86 (no cpuid) and no /sys/hypervisor/type");
	return -1;
}
#endif

int il_sysinfo_hypervisor_kernel(char *out, size_t len)
{
	static const char key[] = "Hypervisor detected: ";
	int r = klog_line(key, out, len);

	/* Logged once at boot: a ring that has wrapped lost it. */
	if (r == 0)
		snprintf(out, len,
			 "none: no \"%s\" line in the kernel log (bare metal, "
			 "or the boot lines rotated out)",
			 key);
	return r;
}

static void hypervisor_json(cJSON *o)
{
	char vendor[96], kernel[200];
	int guest = il_sysinfo_hypervisor(vendor, sizeof(vendor));

	if (guest < 0) {
		cJSON_AddStringToObject(o, "present", vendor);
		cJSON_AddStringToObject(o, "vendor", "unreadable: see present");
	} else {
		cJSON_AddBoolToObject(o, "present", guest);
		cJSON_AddStringToObject(o, "vendor", vendor);
	}
	/*
	 * Where the vendor was read, and what the kernel itself detected: the
	 * two can differ (this project's VM signs "bhyve bhyve" in CPUID and
	 * the kernel logs "Hypervisor detected: PVM", a paravirtual host).
	 */
	cJSON_AddStringToObject(o, "vendor_from", IL_SYSINFO_VENDOR_FROM);
	il_sysinfo_hypervisor_kernel(kernel, sizeof(kernel));
	cJSON_AddStringToObject(o, "kernel", kernel);
}

int il_sysinfo_steal_told(const struct il_cpustat *s, char *why, size_t len)
{
	char vendor[96];
	int guest;

	if (il_cpustat_steal_seen(s))
		return 1;
	guest = il_sysinfo_hypervisor(vendor, sizeof(vendor));
	if (guest == 0)
		return 1; /* bare metal: nothing to steal */
	if (guest < 0)
		snprintf(why, len,
			 "unreadable: 0 on every CPU since boot, and whether this is a guest "
			 "whose hypervisor tells none is unknown (%s)",
			 vendor);
	else
		snprintf(why, len,
			 "unreadable: 0 on every CPU since boot of this guest (%s %s): its "
			 "hypervisor gives the kernel no steal time, or took none",
			 IL_SYSINFO_VENDOR_FROM, vendor);
	return 0;
}

/*
 * The CPUs the run could use: the affinity inputlat started with (taskset,
 * a cpuset), which every child inherits, beside the online count. A run
 * confined to one CPU of two measures something else than the machine's
 * CPU count suggests; the report says which.
 */
static void cpus_allowed_json(cJSON *sys)
{
	char list[IL_CPULIST_MAX];
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		char why[96];

		snprintf(why, sizeof(why), "unreadable: sched_getaffinity: %s", strerror(errno));
		cJSON_AddStringToObject(sys, "cpus_allowed", why);
		cJSON_AddNullToObject(sys, "cpus_allowed_count");
		return;
	}
	il_cpuset_format(&set, list, sizeof(list));
	cJSON_AddStringToObject(sys, "cpus_allowed", list);
	cJSON_AddNumberToObject(sys, "cpus_allowed_count", CPU_COUNT(&set));
}

void il_sysinfo_system_facts(cJSON *sys)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512], model[256] = "";

	while (f && !model[0] && fgets(line, sizeof(line), f)) {
		/* x86 "model name", arm64 has none but "CPU part"; take the first. */
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
			const char *v = strchr(line, ':') + 1;

			v += strspn(v, " \t");
			snprintf(model, sizeof(model), "%.*s", (int)strcspn(v, "\n"), v);
		}
	}
	if (f)
		fclose(f);
	if (model[0])
		cJSON_AddStringToObject(sys, "cpu_model", model);
	else
		cJSON_AddStringToObject(sys, "cpu_model",
					"unreadable: no 'model name' in "
					"/proc/cpuinfo");
	hypervisor_json(cJSON_AddObjectToObject(sys, "hypervisor"));
	cpus_allowed_json(sys);
	il_cpu_bandwidth_json(sys);
}
