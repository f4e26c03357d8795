/* Loading the on-CPU clock program and handing threads their records. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "il_bpf_attach.h"
#include "il_tclock.h"
#include "il_tracefs.h"
#include "thread-clock.skel.h"

/* A registered thread waits this many short sleeps for its first switch-in. */
#define REGISTER_TRIES 8

struct il_tclock {
	struct thread_clock_bpf *skel;
	struct il_tclock_rec *recs; /* IL_TCLOCK_SLOTS, mapped read-only */
	size_t len;
};

struct il_tclock *il_tclock_open(char *why, size_t len)
{
	static const char *const ev[] = {"sched/sched_switch"};
	struct il_tclock *c = calloc(1, sizeof(*c));
	libbpf_print_fn_t old = libbpf_set_print(il_bpf_debug_print);
	int id, e;
	void *p;

	if (!c) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	c->skel = thread_clock_bpf__open_and_load();
	if (!c->skel) {
		e = errno;
		snprintf(why, len, "loading the sched_switch program: %s", strerror(e));
		goto fail;
	}
	if (il_tracefs_event_ids(ev, 1, &id) < 0) {
		snprintf(why, len, "no id for sched/sched_switch (tracefs)");
		goto fail;
	}
	c->skel->links.il_tclock_switch =
	    il_bpf_attach_tracepoint(c->skel->progs.il_tclock_switch, id);
	if (!c->skel->links.il_tclock_switch) {
		e = errno;
		snprintf(why, len, "attaching to sched/sched_switch: %s", strerror(e));
		goto fail;
	}
	c->len = IL_TCLOCK_SLOTS * sizeof(struct il_tclock_rec);
	/* Read-only: records change by the program or by bpf_map_update_elem. */
	p = mmap(NULL, c->len, PROT_READ, MAP_SHARED, bpf_map__fd(c->skel->maps.tclock), 0);
	if (p == MAP_FAILED) {
		e = errno;
		snprintf(why, len, "mapping the records: %s", strerror(e));
		goto fail;
	}
	c->recs = p;
	goto out;
fail:
	il_tclock_close(c);
	c = NULL;
out:
	libbpf_set_print(old);
	return c;
}

void il_tclock_close(struct il_tclock *c)
{
	if (!c)
		return;
	if (c->recs)
		munmap(c->recs, c->len);
	thread_clock_bpf__destroy(c->skel);
	free(c);
}

static int set_slot(struct il_tclock *c, uint32_t tid, uint32_t owner)
{
	uint32_t k = tid & (IL_TCLOCK_SLOTS - 1);
	struct il_tclock_rec v = {.tid = owner};

	return bpf_map_update_elem(bpf_map__fd(c->skel->maps.tclock), &k, &v, BPF_ANY);
}

const struct il_tclock_rec *il_tclock_register(struct il_tclock *c, uint32_t tid)
{
	const volatile struct il_tclock_rec *r = &c->recs[tid & (IL_TCLOCK_SLOTS - 1)];
	struct timespec ts = {0, 100000};

	if (!tid || r->tid || set_slot(c, tid, tid) < 0)
		return NULL;
	for (int i = 0; i < REGISTER_TRIES; i++) {
		/* The program fills in_ns when it next sees us switched in. */
		nanosleep(&ts, NULL);
		if (r->tid != tid)
			return NULL; /* a rival took the slot at the same time */
		if (r->in_ns)
			return (const struct il_tclock_rec *)r;
	}
	set_slot(c, tid, 0);
	return NULL;
}

void il_tclock_unregister(struct il_tclock *c, const struct il_tclock_rec *rec, uint32_t tid)
{
	if (c && rec && ((const volatile struct il_tclock_rec *)rec)->tid == tid)
		set_slot(c, tid, 0);
}
