#include "il_sysinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "il_parse.h"
#include "il_sched_attr.h"

int il_sysinfo_read_value(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
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
	char part[2][16] = { "", "" };
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
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

bool il_sysinfo_may_use_rt(int prio)
{
	struct rlimit rl;

	if (geteuid() == 0 || il_sysinfo_cap_effective(CAP_SYS_NICE))
		return true;
	return getrlimit(RLIMIT_RTPRIO, &rl) == 0 &&
	       (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)prio);
}

int il_sysinfo_rt_group_root(char *dir, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[512];
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (r && fgets(line, sizeof(line), f)) {
		char dev[128], mnt[256], type[32], opts[256], path[300];
		char *save = NULL;
		bool cpu = false;

		if (sscanf(line, "%127s %255s %31s %255s", dev, mnt, type, opts) != 4 ||
		    strcmp(type, "cgroup") != 0)
			continue;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			cpu |= strcmp(o, "cpu") == 0;
		snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", mnt);
		if (cpu && access(path, F_OK) == 0 && strlen(mnt) < len) {
			snprintf(dir, len, "%s", mnt);
			r = 0;
		}
	}
	fclose(f);
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

int il_sysinfo_kconfig_source(char *path, size_t len)
{
	char boot[300];

	kconfig_paths(boot);
	if (boot[0] && access(boot, R_OK) == 0) {
		snprintf(path, len, "%s", boot);
		return 0;
	}
	if (access(PROC_CONFIG_GZ, R_OK) == 0) {
		snprintf(path, len, "%s", PROC_CONFIG_GZ);
		return 0;
	}
	return -ENOENT;
}

int il_sysinfo_kconfig(const char *option, char *val, size_t len)
{
	char path[300], line[512], unset[300];
	size_t olen = strlen(option);
	gzFile f;
	int r = -ENOENT;

	/* zlib reads a plain file as it is, so one reader serves both. */
	if (il_sysinfo_kconfig_source(path, sizeof(path)) < 0)
		return -ENOENT;
	f = gzopen(path, "rb");
	if (!f)
		return errno ? -errno : -ENOMEM;
	snprintf(unset, sizeof(unset), "# %s is not set", option);
	while (r && gzgets(f, line, sizeof(line))) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, option, olen) == 0 && line[olen] == '=') {
			const char *v = line + olen + 1;
			size_t vlen = strlen(v);

			/* CONFIG_X="text": the text. */
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"')
				snprintf(val, len, "%.*s", (int)(vlen - 2), v + 1);
			else
				snprintf(val, len, "%s", v);
			r = 0;
		} else if (strcmp(line, unset) == 0) {
			snprintf(val, len, "n");
			r = 0;
		}
	}
	gzclose(f);
	return r;
}

static struct {
	pthread_once_t once;
	int supported;
	char why[160];
} uclamp = { .once = PTHREAD_ONCE_INIT };

static void uclamp_probe(void)
{
	/* KEEP_POLICY/KEEP_PARAMS leave the class alone; both came with
	 * uclamp in 5.3, and an older kernel would call them invalid (EINVAL,
	 * the answer that means "supported" below). */
	struct il_sched_attr a = {
		.size = sizeof(a),
		.sched_flags = SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS |
			       SCHED_FLAG_UTIL_CLAMP_MIN,
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

int il_fair_server_probe(struct il_fair_server *out)
{
	struct il_fair_server fs = { .runtime_ns = -1, .period_ns = -1 };
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
	} else if (il_sysinfo_kernel_at_least(6, 12)) {
		/* The fair server is built into every 6.12+ kernel; only its
		 * debugfs view is missing. We do not mount debugfs ourselves:
		 * that would change the machine behind the admin's back. */
		fs.present = true;
		if (errno == EPERM || errno == EACCES)
			snprintf(fs.why, sizeof(fs.why),
				 "debugfs locked (%s); kernel 6.12+ defaults assumed", strerror(errno));
		else if (!debugfs_mounted())
			snprintf(fs.why, sizeof(fs.why), "debugfs not mounted at " IL_SYSINFO_DEBUGFS
							 "; kernel 6.12+ defaults assumed");
		else
			snprintf(fs.why, sizeof(fs.why), IL_SYSINFO_FAIR_SERVER
				 " missing from debugfs (locked down?); kernel 6.12+ defaults assumed");
	} else {
		snprintf(fs.why, sizeof(fs.why), "kernel older than 6.12");
	}
	*out = fs;
	return 0;
}
