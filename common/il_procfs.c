#include "il_procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a small /proc file in one read (the kernel builds it whole);
 * -EFBIG when it fills buf: what was cut off would be misread. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	if ((size_t)n >= len)
		return -EFBIG;
	buf[n] = '\0';
	return 0;
}

static void task_path(char *path, size_t len, pid_t pid, pid_t tid, const char *file)
{
	if (pid <= 0)
		pid = getpid();
	if (tid > 0)
		snprintf(path, len, "/proc/%d/task/%d/%s", (int)pid, (int)tid, file);
	else
		snprintf(path, len, "/proc/%d/%s", (int)pid, file);
}

/* One number of a stat line: decimal, a leading '-' for the signed ones. */
static int parse_field(const char *tok, unsigned long long *out)
{
	char *end;

	errno = 0;
	if (tok[0] == '-')
		*out = (unsigned long long)strtoll(tok, &end, 10);
	else
		*out = strtoull(tok, &end, 10);
	return errno || end == tok || (*end && *end != '\n') ? -EINVAL : 0;
}

int il_procfs_stat_path(const char *path, int need, struct il_procfs_stat *out)
{
	char buf[2048], *open_paren, *close_paren, *tok, *save = NULL;
	int r, field = 3;

	memset(out, 0, sizeof(*out));
	out->state = '?';
	if ((r = read_small(path, buf, sizeof(buf))))
		return r;
	/* The command name may hold spaces and ')': it ends at the last ')'. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return -EINVAL;
	snprintf(out->comm, sizeof(out->comm), "%.*s", (int)(close_paren - open_paren - 1),
		 open_paren + 1);
	for (tok = strtok_r(close_paren + 2, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 3) {
			out->state = tok[0];
		} else if (field < IL_PROCFS_NFIELDS) {
			if (parse_field(tok, &out->f[field]))
				return -EINVAL;
		}
		out->last = field;
	}
	return out->last >= 3 && out->last >= need ? 0 : -EINVAL;
}

int il_procfs_stat(pid_t pid, pid_t tid, int need, struct il_procfs_stat *out)
{
	char path[96];

	task_path(path, sizeof(path), pid, tid, "stat");
	return il_procfs_stat_path(path, need, out);
}

uint64_t il_procfs_ticks_ns(unsigned long long ticks)
{
	long hz = sysconf(_SC_CLK_TCK);

	return (uint64_t)ticks * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
}

int il_procfs_schedstat(pid_t pid, pid_t tid, uint64_t *on_cpu_ns, uint64_t *wait_ns,
			uint64_t *slices)
{
	char path[96], buf[128];
	unsigned long long v[3];
	int r;

	task_path(path, sizeof(path), pid, tid, "schedstat");
	if ((r = read_small(path, buf, sizeof(buf))))
		return r;
	if (sscanf(buf, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3)
		return -EINVAL;
	if (on_cpu_ns)
		*on_cpu_ns = v[0];
	if (wait_ns)
		*wait_ns = v[1];
	if (slices)
		*slices = v[2];
	return 0;
}

int il_procfs_status(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];

	task_path(path, sizeof(path), pid, tid, "status");
	return read_small(path, buf, len);
}

int il_procfs_status_field(const char *text, const char *key, int base, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *line = text;
	unsigned long long v;
	char *end;

	/* A key at the start of a line, followed by ':' (so "VmHWM" is not
	 * "VmHWMx", and "voluntary_ctxt_switches" is not the end of
	 * "nonvoluntary_ctxt_switches"). */
	while (line && *line) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			break;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line || !*line)
		return -ENODATA;
	line += klen + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '\n' || *line == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(line, &end, base);
	if (errno || end == line || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*out = v;
	return 0;
}
