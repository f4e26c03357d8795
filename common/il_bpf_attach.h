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
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	attr.wakeup_events = 1;
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(p, pfd);
	if (!link) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return link;
}

#endif
