/*
 * The kernel's account of one process or thread: /proc/PID/stat and
 * /proc/PID/schedstat (or /proc/PID/task/TID/...). One reader for every
 * module and test, so that the command name (which may hold spaces and
 * parentheses) is handled once, at the last ')'.
 */
#ifndef IL_PROCFS_H
#define IL_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

/* proc(5)'s numbering of /proc/PID/stat, for the fields we read. */
enum il_procfs_field {
	IL_PROCFS_PPID = 4,
	IL_PROCFS_PGRP = 5,
	IL_PROCFS_FLAGS = 9,
	IL_PROCFS_UTIME = 14,
	IL_PROCFS_STIME = 15,
	IL_PROCFS_CUTIME = 16,
	IL_PROCFS_CSTIME = 17,
	IL_PROCFS_NICE = 19,
	IL_PROCFS_STARTTIME = 22,
	IL_PROCFS_PROCESSOR = 39,
	IL_PROCFS_RT_PRIORITY = 40,
	IL_PROCFS_POLICY = 41,
	IL_PROCFS_NFIELDS = 64, /* room beyond the 52 of Linux 6 */
};

/* include/linux/sched.h: the task is in do_exit. */
#define IL_PROCFS_PF_EXITING 0x00000004u
/* include/linux/sched.h: a kernel thread (no user memory, no environment). */
#define IL_PROCFS_PF_KTHREAD 0x00200000u

struct il_procfs_stat {
	char comm[64];
	char state; /* 'R', 'S', 'D', 'Z', ... */
	int last;   /* the number of the last field read (52 on Linux 6) */
	/* f[N] is field N (4 and up; 1-3 are the pid, comm and state). A
	 * signed field (nice, priority) reads back through (long long). */
	unsigned long long f[IL_PROCFS_NFIELDS];
};

/*
 * Reads /proc/PID/stat (tid 0) or /proc/PID/task/TID/stat; pid 0 is the
 * calling process. Fails unless fields up to need were there. Returns 0,
 * or -errno: -ENOENT/-ESRCH when the task is gone, -EINVAL when the text
 * is not a stat line (or a field not a number) or is short of need,
 * -EFBIG when it is longer than any stat line.
 */
int il_procfs_stat(pid_t pid, pid_t tid, int need, struct il_procfs_stat *out);

/* The same, from a path (the way a test names another file). */
int il_procfs_stat_path(const char *path, int need, struct il_procfs_stat *out);

/* Clock ticks (utime, starttime, ...) in nanoseconds. */
uint64_t il_procfs_ticks_ns(unsigned long long ticks);

/*
 * /proc/PID[/task/TID]/schedstat: time on a CPU and waiting on a run
 * queue (ns), and how many times it ran. Any pointer may be NULL. Returns
 * 0 or -errno (-EINVAL for text that is not three numbers).
 */
int il_procfs_schedstat(pid_t pid, pid_t tid, uint64_t *on_cpu_ns, uint64_t *wait_ns,
			uint64_t *slices);

/*
 * /proc/PID[/task/TID]/status, whole, into buf (IL_PROCFS_STATUS_MAX is
 * room for any; pid 0 is the calling process). Returns 0 or -errno
 * (-EFBIG when it does not fit).
 */
#define IL_PROCFS_STATUS_MAX 8192
int il_procfs_status(pid_t pid, pid_t tid, char *buf, size_t len);

/*
 * The number of line "key:" of a status text, in base (16 for the masks:
 * SigPnd, CapEff; 10 for the counts and the "kB" sizes). Returns 0,
 * -ENODATA when no line has that key, -EINVAL when it is not a number.
 */
int il_procfs_status_field(const char *text, const char *key, int base, uint64_t *out);

#endif
