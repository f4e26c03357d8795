/*
 * Diagnostic for runs inside the VM: every INTERVAL seconds, print each
 * thread that has used CPU or is runnable, with its class, RT priority
 * and wait channel. It runs at SCHED_FIFO 99 so that it still gets to
 * print while RT threads of a run starve everything else, which is when
 * it is needed:  vm_threads 2 3 & inputlat run --policy rt ...
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_parse.h"

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

static void print_thread(const char *pid, const char *tid)
{
	char path[600], stat[1024], wchan[64], *comm, *rest, *tok, *save = NULL;
	unsigned long utime = 0, stime = 0;
	long rtprio = 0, policy = 0;
	char state = '?';

	snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, tid);
	read_line(path, stat, sizeof(stat));
	comm = strchr(stat, '(');
	rest = strrchr(stat, ')');
	if (!comm || !rest)
		return;
	*rest = '\0';
	/* Fields after the comm: 3 state, 14 utime, 15 stime, 40 rtprio, 41 policy. */
	tok = strtok_r(rest + 2, " ", &save);
	for (int field = 3; tok; field++, tok = strtok_r(NULL, " ", &save)) {
		if (field == 3)
			state = tok[0];
		else if (field == 14)
			utime = strtoul(tok, NULL, 10);
		else if (field == 15)
			stime = strtoul(tok, NULL, 10);
		else if (field == 40)
			rtprio = strtol(tok, NULL, 10);
		else if (field == 41)
			policy = strtol(tok, NULL, 10);
	}
	if (utime + stime < 5 && state != 'R')
		return;
	snprintf(path, sizeof(path), "/proc/%s/task/%s/wchan", pid, tid);
	read_line(path, wchan, sizeof(wchan));
	printf("  %-16s tid %-6s %c cpu %5lu+%-5lu ticks policy %ld rtprio %-2ld %s\n", comm + 1,
	       tid, state, utime, stime, policy, rtprio, wchan);
}

static void snapshot(void)
{
	DIR *procs = opendir("/proc");
	struct dirent *p;

	if (!procs)
		return;
	while ((p = readdir(procs))) {
		char path[300];
		DIR *tasks;
		struct dirent *t;

		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks)))
			if (t->d_name[0] != '.')
				print_thread(p->d_name, t->d_name);
		closedir(tasks);
	}
	closedir(procs);
}

int main(int argc, char **argv)
{
	struct sched_param sp = {.sched_priority = 99};
	uint64_t interval = 2, count = 1;

	if ((argc > 1 && il_parse_u64(argv[1], 1, 3600, &interval) < 0) ||
	    (argc > 2 && il_parse_u64(argv[2], 1, 1000, &count) < 0)) {
		fprintf(stderr, "usage: vm_threads [INTERVAL_S (default 2) [COUNT (default 1)]]\n");
		return 2;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		perror("vm_threads: SCHED_FIFO 99 (printing may be starved)");
	for (uint64_t i = 1; i <= count; i++) {
		sleep((unsigned)interval);
		printf("## vm_threads at %llu s\n", (unsigned long long)(i * interval));
		snapshot();
		fflush(stdout);
	}
	return 0;
}
