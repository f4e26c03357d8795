#include "il_cpustat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_parse.h"

struct il_cpustat {
	unsigned ncpu;
	struct il_cpustat_cpu cpu[];
};

/* /proc/stat of a few thousand CPUs fits; it is read in one go. */
#define IL_CPUSTAT_READ_MAX (1u << 20)

/* CPU numbers from 0 up to this, exclusive (the kernel's NR_CPUS is 8192). */
#define IL_CPUSTAT_CPU_MAX 65536

/* The longest cpuN line taken: ten 20-digit counters and the name fit. */
#define IL_CPUSTAT_LINE_MAX 512

/*
 * One line of /proc/stat, up to its newline: 1 with *cpu and *c filled for
 * a "cpuN" line, 0 for any other line, -EINVAL for a cpuN line that is not
 * N (without leading zeros) and 7 to 10 counters, -ERANGE for one whose CPU number or a counter is
 * out of range. sscanf's %u and %llu would wrap "cpu4294967297" to CPU 1
 * and "-1" to 2^64-1, and read a line cut short on from the next one.
 */
static int parse_cpu_line(const char *line, unsigned *cpu, struct il_cpustat_cpu *c)
{
	char buf[IL_CPUSTAT_LINE_MAX], *save = NULL, *tok;
	size_t len = strcspn(line, "\n");
	uint64_t v[10] = {0}, n64;
	int n = 0, rc;

	/* "cpu " is the all-CPU sum, not a CPU: a digit must follow. */
	if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
		return 0;
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	tok = strtok_r(buf, " ", &save);
	/* The kernel writes %d: "cpu01" would be a second name for CPU 1. */
	if (tok[3] == '0' && tok[4] != '\0')
		return -EINVAL;
	if ((rc = il_parse_u64(tok + 3, 0, IL_CPUSTAT_CPU_MAX - 1, &n64)) < 0)
		return rc;
	while ((tok = strtok_r(NULL, " ", &save))) {
		uint64_t x;

		if ((rc = il_parse_u64(tok, 0, UINT64_MAX, &x)) < 0)
			return rc;
		if (n < 10)
			v[n] = x;
		n++;
	}
	/* Older kernels print fewer columns; seven (up to softirq) is the
	 * oldest format we accept, steal then stays 0. Guest time is inside
	 * user and nice already. */
	if (n < 7 || n > 10)
		return -EINVAL;
	*cpu = (unsigned)n64;
	*c = (struct il_cpustat_cpu){.present = true,
				     .user = v[0],
				     .nice = v[1],
				     .system = v[2],
				     .idle = v[3],
				     .iowait = v[4],
				     .irq = v[5],
				     .softirq = v[6],
				     .steal = v[7]};
	return 1;
}

int il_cpustat_parse(const char *text, struct il_cpustat **out)
{
	struct il_cpustat *s;
	unsigned max_cpu = 0, cpu;
	bool any = false;
	struct il_cpustat_cpu c;
	const char *p;
	int rc;

	if (!text || !*text)
		return -ENODATA;
	/* First pass: how many CPUs, so the snapshot is one allocation; a
	 * cpuN line that cannot be read makes the whole text unreadable
	 * rather than that CPU absent. */
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		rc = parse_cpu_line(p, &cpu, &c);
		if (rc < 0)
			return rc;
		if (rc) {
			if (!any || cpu > max_cpu)
				max_cpu = cpu;
			any = true;
		}
	}
	if (!any)
		return -EINVAL;
	s = calloc(1, sizeof(*s) + (max_cpu + 1) * sizeof(s->cpu[0]));
	if (!s)
		return -ENOMEM;
	s->ncpu = max_cpu + 1;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (parse_cpu_line(p, &cpu, &c) != 1)
			continue;
		/* Two lines for one CPU: which one is the CPU's is unknown. */
		if (s->cpu[cpu].present) {
			free(s);
			return -EINVAL;
		}
		s->cpu[cpu] = c;
	}
	*out = s;
	return 0;
}

int il_cpustat_read(struct il_cpustat **out)
{
	char *buf;
	size_t len = 0, cap = 16384;
	ssize_t n;
	int fd, ret;

	fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (len + 1 >= cap) {
			char *nb;

			if (cap >= IL_CPUSTAT_READ_MAX) {
				ret = -EINVAL;
				goto out;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	/* A NUL inside would end the text early and hide the CPUs after it. */
	ret = strlen(buf) == len ? il_cpustat_parse(buf, out) : -EINVAL;
out:
	free(buf);
	close(fd);
	return ret;
}

const char *il_cpustat_why(int err, char *buf, size_t len)
{
	if (err == -ENODATA)
		snprintf(buf, len, "empty");
	else if (err == -EINVAL)
		snprintf(buf, len, "no cpuN line, or one not in /proc/stat's format");
	else if (err == -ERANGE)
		snprintf(buf, len, "a cpuN line's CPU number or counter is out of range");
	else
		snprintf(buf, len, "%s", strerror(err < 0 ? -err : err));
	return buf;
}

void il_cpustat_free(struct il_cpustat *s)
{
	free(s);
}

unsigned il_cpustat_ncpu(const struct il_cpustat *s)
{
	return s->ncpu;
}

const struct il_cpustat_cpu *il_cpustat_cpu(const struct il_cpustat *s, unsigned cpu)
{
	return cpu < s->ncpu ? &s->cpu[cpu] : NULL;
}

uint64_t il_cpustat_total(const struct il_cpustat_cpu *c)
{
	return c->user + c->nice + c->system + c->idle + c->iowait + c->irq + c->softirq + c->steal;
}

/* Counters only grow; a CPU hot-unplugged and back may restart them,
 * which must not turn into a huge unsigned difference. */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

double il_cpustat_idle_pct(const struct il_cpustat *a, const struct il_cpustat *b,
			   const cpu_set_t *mask)
{
	uint64_t idle = 0, total = 0;
	unsigned n = a->ncpu < b->ncpu ? a->ncpu : b->ncpu;

	for (unsigned i = 0; i < n; i++) {
		const struct il_cpustat_cpu *x = &a->cpu[i], *y = &b->cpu[i];

		if (!x->present || !y->present)
			continue;
		if (mask && (i >= CPU_SETSIZE || !CPU_ISSET(i, mask)))
			continue;
		idle += delta(x->idle, y->idle) + delta(x->iowait, y->iowait);
		total += delta(il_cpustat_total(x), il_cpustat_total(y));
	}
	if (total == 0)
		return -1;
	return 100.0 * (double)idle / (double)total;
}

double il_cpustat_steal_pct(const struct il_cpustat *a, const struct il_cpustat *b)
{
	uint64_t steal = 0, total = 0;
	unsigned n = a->ncpu < b->ncpu ? a->ncpu : b->ncpu;

	for (unsigned i = 0; i < n; i++) {
		const struct il_cpustat_cpu *x = &a->cpu[i], *y = &b->cpu[i];

		if (!x->present || !y->present)
			continue;
		steal += delta(x->steal, y->steal);
		total += delta(il_cpustat_total(x), il_cpustat_total(y));
	}
	if (total == 0)
		return -1;
	return 100.0 * (double)steal / (double)total;
}

bool il_cpustat_steal_seen(const struct il_cpustat *s)
{
	for (unsigned i = 0; s && i < s->ncpu; i++)
		if (s->cpu[i].present && s->cpu[i].steal)
			return true;
	return false;
}
