/*
 * What this machine's scheduler is and lets a run do, read in one place:
 * procfs/sysfs values, the kernel version, the privilege RT needs, RT
 * group scheduling and the fair server. `run`, `check`, the knobs and the
 * per-thread scheduling code all ask here, so they cannot disagree.
 */
#ifndef IL_SYSINFO_H
#define IL_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IL_SYSINFO_RT_RUNTIME  "/proc/sys/kernel/sched_rt_runtime_us"
#define IL_SYSINFO_RT_PERIOD   "/proc/sys/kernel/sched_rt_period_us"
#define IL_SYSINFO_DEBUGFS     "/sys/kernel/debug"
#define IL_SYSINFO_FAIR_SERVER IL_SYSINFO_DEBUGFS "/sched/fair_server"
/* The running kernel's own type information (CONFIG_DEBUG_INFO_BTF). */
#define IL_SYSINFO_VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* The fair server defaults (kernel/sched/core.c, Linux 6.12+). */
#define IL_FAIR_SERVER_DEFAULT_RUNTIME_NS 50000000ll
#define IL_FAIR_SERVER_DEFAULT_PERIOD_NS  1000000000ll

/*
 * Reads a one-line procfs/sysfs value without its newline into buf (len
 * bytes). 0, -EOVERFLOW when the line does not fit (its first len - 1
 * bytes are another value), -EINVAL when it holds a NUL, or -errno;
 * after an error buf is untouched or "". Async-signal-safe: open, read
 * and close only.
 */
int il_sysinfo_read_value(const char *path, char *buf, size_t len);

/*
 * What il_sysinfo_read_value makes of a file's text (n bytes): its first
 * line, without the newline, into buf (len bytes; text may be buf). 0,
 * -EOVERFLOW when the line does not fit, -EINVAL when it holds a NUL.
 */
int il_sysinfo_value_parse(const char *text, size_t n, char *buf, size_t len);

/* Writes a value with open/write/close only (async-signal-safe). 0 or -errno. */
int il_sysinfo_write_value(const char *path, const char *val);

/* A value that must be a decimal integer. 0, -errno or -EINVAL. */
int il_sysinfo_read_i64(const char *path, int64_t *out);

/* sched_rt_runtime_us and sched_rt_period_us in force. 0 or -errno. */
int il_sysinfo_rt_runtime_us(int64_t *out);
int il_sysinfo_rt_period_us(int64_t *out);

/* True when the running kernel is at least major.minor (from uname). */
bool il_sysinfo_kernel_at_least(unsigned major, unsigned minor);

/* True when capability cap (CAP_SYS_NICE, ...) is effective. */
bool il_sysinfo_cap_effective(int cap);

/*
 * RT group scheduling: with CONFIG_RT_GROUP_SCHED on a cgroup-v1 cpu
 * hierarchy the root group has its own RT runtime (cpu.rt_runtime_us),
 * which must stay within the global ratio. Writes the root group's
 * directory into dir. 0, or -ENOENT when no hierarchy exposes one.
 */
int il_sysinfo_rt_group_root(char *dir, size_t len);

/* Whether the running kernel has RT group scheduling, by its own BTF
 * (struct task_group's rt_bandwidth), for where no kernel config can be
 * read: 1 yes, 0 no, -1 unknown (no BTF, or built without libbpf). */
int il_sysinfo_btf_rt_group_sched(void);

/*
 * The next cgroup-v1 mount with the cpu controller in /proc/self/mounts's
 * text (n bytes) from *pos on: 1 with its mount point, unescaped, in dir
 * and *pos past its line, or 0 when there is none. Every line is read
 * whole, however long; one whose mount point is not an absolute path that
 * fits in len is skipped.
 */
int il_sysinfo_cpu_mount_next(const char *text, size_t n, size_t *pos, char *dir, size_t len);

/*
 * A kernel config option as the running kernel's config says it: "y",
 * "m", "n" (for "is not set"), or the value as written, in val. Reads
 * /boot/config-RELEASE, else /proc/config.gz (CONFIG_IKCONFIG_PROC).
 * 0, -ENOENT when the option is absent, -EOVERFLOW when its value does
 * not fit in len, -EIO when the file is cut short, or -errno of opening
 * the files.
 */
int il_sysinfo_kconfig(const char *option, char *val, size_t len);

/*
 * il_sysinfo_kconfig on a config's text (n bytes): the first line that
 * sets option, or says it "is not set". Lines are read whole, however
 * long. 0, -ENOENT, -EOVERFLOW (the value does not fit), -EINVAL (a NUL
 * in the value).
 */
int il_sysinfo_kconfig_parse(const char *text, size_t n, const char *option, char *val, size_t len);

/* Which kernel config il_sysinfo_kconfig reads, into path: the first
 * that reads as one (a CONFIG_ line near its top). 0, or -errno (-ENOENT:
 * neither /boot/config-RELEASE nor /proc/config.gz; -ENODATA: one is
 * there and is no config, empty or another file). */
int il_sysinfo_kconfig_source(char *path, size_t len);

/* Why no kernel config can be read, as a report says it: "unreadable:
 * PATH: WHY" (a file that is there and is no config: empty, /dev/null
 * bound over it) or "unreadable: no /boot/config-RELEASE and no
 * /proc/config.gz"; "readable: PATH" when one can. */
void il_sysinfo_kconfig_unreadable(char *why, size_t len);

/*
 * Whether the kernel clamps utilization (uclamp, CONFIG_UCLAMP_TASK):
 * 1 yes, 0 no, or -errno when the probe itself was refused (seccomp, an
 * LSM). why gets how we know, one phrase: for 0 "kernel built without
 * CONFIG_UCLAMP_TASK" or "kernel older than 5.3". The probe is a
 * sched_setattr that the kernel refuses either way and that changes
 * nothing: util_min 1025 is out of range, so a kernel with uclamp answers
 * EINVAL, one without EOPNOTSUPP. The answer is cached for the process.
 */
int il_sysinfo_uclamp(char *why, size_t len);

struct il_fair_server {
	bool present;	    /* the kernel has one (6.12+): debugfs, BTF or version */
	bool readable;	    /* debugfs sched/fair_server can be read */
	bool tunable;	    /* ... and opened for writing */
	int64_t runtime_ns; /* CPU 0's values; -1 when unreadable */
	int64_t period_ns;
	char why[320]; /* how we know, or why not: one phrase */
};

/*
 * Looks at the fair server. present: sched/fair_server exists in debugfs,
 * or, where debugfs is not mounted or locked down, the kernel's BTF has
 * struct rq.fair_server (without BTF: the kernel is 6.12+); then readable
 * = tunable = false and the values are -1 (the defaults
 * IL_FAIR_SERVER_DEFAULT_* are assumed in force). why says which. Always
 * returns 0.
 */
int il_fair_server_probe(struct il_fair_server *out);

struct cJSON;

/*
 * What scheduler configuration a measurement was taken under (issue 15),
 * read now and added to a report's "kernel" object:
 *   preempt {model, source}     none | voluntary | full | lazy | rt, and how we
 *                               know: debugfs sched/preempt, else the boot
 *                               command line, the kernel config, uname -v
 *   sched_features              debugfs sched/features
 *   fair_server_per_cpu         [{cpu, runtime_ns, period_ns}] (6.12+)
 *   ext_server_per_cpu          the same for the sched_ext server (7.0+)
 *   rt_group_sched {config, root_rt_runtime_us}
 *   rt_throttling {in_force, runtime_us, period_us, source, why}
 *                               which of those holds RT threads back
 *                               (il_rt_throttle.h)
 *   uclamp {supported, why}
 *   sched_ext {state, scheduler}
 *   config                      the kernel config file that was read
 * A value that cannot be read is the string "unreadable: why", one that
 * this kernel cannot have "absent: why"; nothing is inferred and presented
 * as read.
 */
void il_sysinfo_kernel_facts(struct cJSON *kernel);

/*
 * Starts reading what il_sysinfo_kernel_facts and il_fair_server_probe
 * need from the kernel's BTF (the slow part, a 5-6 MB parse) on a thread,
 * so that it overlaps what a run does before it asks. Optional; the
 * caller (one thread) joins it with il_sysinfo_prefetch_join before it
 * returns. Both are no-ops when repeated.
 */
void il_sysinfo_prefetch(void);
void il_sysinfo_prefetch_join(void);

/*
 * Whether this machine is a guest: 1 (vendor gets the hypervisor's name,
 * "KVMKVMKVM", "bhyve bhyve"), 0 on bare metal, -1 unknown (vendor says
 * why).
 */
int il_sysinfo_hypervisor(char *vendor, size_t len);

/*
 * What the kernel itself detected at boot: the rest of its log line
 * "Hypervisor detected: PVM" into out. 1 found, 0 no such line (out
 * "none: ...": bare metal, or the boot lines rotated out of the log
 * ring), -1 the log is unreadable (out "unreadable: why").
 */
int il_sysinfo_hypervisor_kernel(char *out, size_t len);

struct il_cpustat;
/*
 * Whether /proc/stat's steal column (snapshot s) says anything here. A
 * guest whose hypervisor gives the kernel no steal clock (bhyve; KVM
 * without its steal-time feature) reads 0 on every CPU forever, and a 0
 * would claim nothing was stolen. Told when the machine is no guest
 * (nothing to steal) or some CPU has had steal since boot; else (a guest,
 * or a machine not known to be none) 0, with why ("unreadable: ...") for
 * the report.
 */
int il_sysinfo_steal_told(const struct il_cpustat *s, char *why, size_t len);

/* The machine, added to a report's "system" object: cpu_model,
 * hypervisor {present, vendor, vendor_from, kernel}, and cpus_allowed (the CPU list this
 * process may run on: taskset, a cpuset) with cpus_allowed_count, each
 * read or "unreadable: why". */
void il_sysinfo_system_facts(struct cJSON *system);

/* The preemption model in force and how we know it (see above): model is
 * "none", "voluntary", "full", "lazy", "rt" or "unreadable: why". */
void il_sysinfo_preempt(char *model, size_t mlen, char *source, size_t slen);

/* The mode in parentheses of debugfs sched/preempt ("none (voluntary) full
 * lazy" -> "voluntary"). 0, or -EINVAL when the text has none. */
int il_sysinfo_preempt_parse(const char *text, char *model, size_t len);

#endif
