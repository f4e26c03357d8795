/*
 * Attaching a classic tracepoint BPF program without a mounted tracefs,
 * the one way spin/, attrib/ and bench/ do it. libbpf's own attach reads
 * the tracepoint's id from tracefs; il_tracefs_event_ids() finds it
 * whether or not tracefs is mounted, and the program then attaches
 * through a perf event opened here. Header only, for the targets that
 * link libbpf (common/ itself does not).
 */
#ifndef IL_BPF_ATTACH_H
#define IL_BPF_ATTACH_H

#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "il_env.h"

/*
 * The libbpf print function of every loader here: libbpf's warnings are a
 * developer's, printed only with IL_BPF_DEBUG=1 in the environment; the
 * user's answer is the loader's one-line error, which says what failed.
 * A library (il_spin) sets it only around its own libbpf calls and puts
 * the application's back.
 */
static inline int il_bpf_debug_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (il_env_switch("IL_BPF_DEBUG") != 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Attaches p to the tracepoint whose perf event id is id. One event on
 * CPU 0 is enough: a tracepoint runs its BPF program on every CPU.
 * Returns the link, which owns the perf event (destroying the link closes
 * it), or NULL with errno set.
 */
static inline struct bpf_link *il_bpf_attach_tracepoint(struct bpf_program *p, int id)
{
	struct perf_event_attr attr;
	struct bpf_link *link;
	int pfd, err;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(p, pfd);
	if (!link) {
		err = errno;
		close(pfd);
		errno = err;
		return NULL;
	}
	/*
	 * The programs return 1 so that the kernel still hands each event to
	 * perf (a tracepoint's BPF program that returns 0 drops it for every
	 * perf user: `perf sched record` beside a run saw no sched_switch).
	 * This event would be one of those users, on CPU 0, at ~200 ns a
	 * context switch here for nothing: disabled, it leaves the CPU's perf
	 * list, while the program stays attached to the tracepoint (it runs
	 * whenever the tracepoint has a program, listeners or not).
	 */
	if (ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0) != 0) {
		err = errno;
		bpf_link__destroy(link);
		errno = err;
		return NULL;
	}
	return link;
}

static inline void *il_bpf_link_destroy_thread(void *link)
{
	bpf_link__destroy(link);
	return NULL;
}

/*
 * Destroys links[0..n) (NULL entries skipped) at the same time, one thread
 * each, and sets them NULL. Releasing a classic tracepoint's perf event
 * with a program waits for RCU grace periods (about 70 ms each here, 290
 * ms for four one after the other, in every run's teardown); the waits of
 * separate links can overlap. A link past IL_BPF_LINKS_MAX, or whose
 * thread cannot start, is destroyed here instead.
 */
#define IL_BPF_LINKS_MAX 32

static inline void il_bpf_links_destroy(struct bpf_link **links, size_t n)
{
	pthread_t th[IL_BPF_LINKS_MAX];
	int started[IL_BPF_LINKS_MAX] = {0};

	for (size_t i = 0; i < n; i++) {
		if (i < IL_BPF_LINKS_MAX && links[i])
			started[i] =
			    pthread_create(&th[i], NULL, il_bpf_link_destroy_thread, links[i]) == 0;
		if (links[i] && (i >= IL_BPF_LINKS_MAX || !started[i]))
			bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
	for (size_t i = 0; i < n && i < IL_BPF_LINKS_MAX; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

#endif
