#include "il_cpustat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct il_cpustat {
	unsigned ncpu;
	struct il_cpustat_cpu cpu[];
};

/* /proc/stat of a few thousand CPUs fits; it is read in one go. */
#define IL_CPUSTAT_READ_MAX (1u << 20)

static bool parse_cpu_line(const char *line, unsigned *cpu, struct il_cpustat_cpu *c)
{
	unsigned long long v[8] = {0};
	int n;

	/* "cpu " is the all-CPU sum; %u would skip its blanks and read the
	 * first counter as a CPU number, so insist on a digit right away. */
	if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
		return false;
	/* Older kernels print fewer columns; seven (up to softirq) is the
	 * oldest format we accept, steal then stays 0. */
	n = sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", cpu, &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 8)
		return false;
	*c = (struct il_cpustat_cpu){.present = true,
				     .user = v[0],
				     .nice = v[1],
				     .system = v[2],
				     .idle = v[3],
				     .iowait = v[4],
				     .irq = v[5],
				     .softirq = v[6],
				     .steal = v[7]};
	return true;
}

int il_cpustat_parse(const char *text, struct il_cpustat **out)
{
	struct il_cpustat *s;
	unsigned max_cpu = 0, cpu;
	bool any = false;
	struct il_cpustat_cpu c;
	const char *p;

	if (!text || !*text)
		return -ENODATA;
	/* First pass: how many CPUs, so the snapshot is one allocation. */
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (parse_cpu_line(p, &cpu, &c)) {
			if (cpu >= 65536)
				return -EINVAL;
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
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (parse_cpu_line(p, &cpu, &c))
			s->cpu[cpu] = c;
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
	ret = il_cpustat_parse(buf, out);
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
		snprintf(buf, len, "no cpuN line, not /proc/stat's format");
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
