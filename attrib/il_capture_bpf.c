/* The BPF capture (see il_capture.h); il_capture_none.c stands in without BPF tools. */
#include "il_capture.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "il_bpf_attach.h"
#include "il_kring_reader.h"
#include "il_pidmax.h"
#include "il_tracefs.h"
#include "attrib.skel.h"

/* pid_max can be 4194304: a u32 per possible tid is 16 MiB of kernel memory
 * at most, for one array lookup (inlined by the verifier) per event. */
#define MAX_TIDS (1u << 22)

struct il_capture {
	struct il_attrib_bpf *skel;
	/* The per-CPU rings (il_kring.h), mmapped, and their reader. */
	const struct il_kring_slot *ring;
	uint64_t *pos;
	size_t ring_len, pos_len;
	uint32_t cap;
	struct il_kring_reader *reader;
	il_capture_event_cb cb;
	void *ctx;
	int stats_fd;
	int ncpus;
	uint32_t max_tid;
	unsigned slots; /* slots of `tstate` given out */
	int stopped;
	struct il_capture_prog progs[IL_CAPTURE_MAX_PROGS];
	size_t nprogs;
};

/* Maps a BPF_F_MMAPABLE array: its values at their 8-byte stride. */
static void *map_mmap(struct bpf_map *m, int prot, size_t *len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t stride = (bpf_map__value_size(m) + 7) & ~(size_t)7;
	void *p;

	*len = (stride * bpf_map__max_entries(m) + page - 1) & ~(page - 1);
	p = mmap(NULL, *len, prot, MAP_SHARED, bpf_map__fd(m), 0);
	return p == MAP_FAILED ? NULL : p;
}

static int open_rings(struct il_capture *c, char *why, size_t whylen)
{
	int rc;

	/* The records are only read here; the positions hold the tail we write. */
	c->ring = map_mmap(c->skel->maps.kring, PROT_READ, &c->ring_len);
	if (!c->ring) {
		rc = -errno;
		snprintf(why, whylen, "mapping the BPF event rings: %s", strerror(errno));
		return rc;
	}
	c->pos = map_mmap(c->skel->maps.kring_pos, PROT_READ | PROT_WRITE, &c->pos_len);
	if (!c->pos) {
		rc = -errno;
		snprintf(why, whylen, "mapping the BPF ring positions: %s", strerror(errno));
		return rc;
	}
	rc = il_kring_reader_new(c->ring, c->pos, c->ncpus, c->cap, &c->reader);
	if (rc < 0)
		snprintf(why, whylen, "reading the BPF event rings: %s", strerror(-rc));
	return rc;
}

/*
 * The tracepoints, the program on each, whether the run needs it, and
 * whether it is raw (attached by name, no perf event: see attrib.bpf.c).
 */
static const struct {
	const char *event;
	size_t prog_offset, link_offset;
	int optional, raw;
} tps[] = {
#define TP(ev, prog, opt, raw)                                                                     \
	{                                                                                          \
		ev, offsetof(struct il_attrib_bpf, progs.prog),                                    \
		    offsetof(struct il_attrib_bpf, links.prog), opt, raw                           \
	}
    TP("sched/sched_switch", il_attrib_switch, 0, 0),
    TP("sched/sched_waking", il_attrib_waking, 0, 0),
    TP("sched/sched_wakeup", il_attrib_wakeup, 0, 0),
    TP("sched/sched_migrate_task", il_attrib_migrate, 0, 0),
    TP("irq/irq_handler_entry", il_attrib_irq_entry, 0, 1),
    TP("irq/irq_handler_exit", il_attrib_irq_exit, 0, 1),
    TP("irq/softirq_entry", il_attrib_softirq_entry, 0, 1),
    TP("irq/softirq_exit", il_attrib_softirq_exit, 0, 1),
    /* x86 only: the tick and hrtimers are no device IRQ. */
    TP("irq_vectors/local_timer_entry", il_attrib_timer_entry, 1, 1),
    TP("irq_vectors/local_timer_exit", il_attrib_timer_exit, 1, 1),
#undef TP
};
#define NTPS (sizeof(tps) / sizeof(tps[0]))

static struct bpf_program *tp_prog(struct il_attrib_bpf *skel, size_t i)
{
	return *(struct bpf_program **)((char *)skel + tps[i].prog_offset);
}

/*
 * Attaches every classic program through a perf event (il_bpf_attach.h), since
 * libbpf's own tracepoint attach reads the ids from a mounted tracefs. One
 * event on CPU 0 is enough: a tracepoint runs its BPF program on every CPU.
 * The raw ones attach by name; tracefs still says whether they exist.
 */
static int attach_all(struct il_capture *c, char *why, size_t whylen)
{
	const char *names[NTPS];
	int ids[NTPS], rc;

	for (size_t i = 0; i < NTPS; i++)
		names[i] = tps[i].event;
	rc = il_tracefs_event_ids(names, NTPS, ids);
	if (rc < 0 && rc != -ENOENT) {
		snprintf(why, whylen, "cannot read tracepoint ids from tracefs: %s", strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < NTPS; i++) {
		struct bpf_link *link;

		if (ids[i] < 0) {
			if (tps[i].optional)
				continue;
			snprintf(why, whylen, "kernel has no tracepoint %s", tps[i].event);
			return -ENOENT;
		}
		if (tps[i].raw) {
			link = bpf_program__attach_raw_tracepoint(tp_prog(c->skel, i),
								  strchr(tps[i].event, '/') + 1);
			if (!link) {
				rc = -errno;
				snprintf(why, whylen, "attaching to raw tracepoint %s: %s",
					 tps[i].event, strerror(-rc));
				return rc;
			}
			*(struct bpf_link **)((char *)c->skel + tps[i].link_offset) = link;
			continue;
		}
		link = il_bpf_attach_tracepoint(tp_prog(c->skel, i), ids[i]);
		if (!link) {
			rc = -errno;
			snprintf(why, whylen, "attaching to %s: %s", tps[i].event, strerror(-rc));
			return rc;
		}
		/* The skeleton destroys its links, and with each its perf event. */
		*(struct bpf_link **)((char *)c->skel + tps[i].link_offset) = link;
	}
	return 0;
}

int il_capture_built(void)
{
	return 1;
}

int il_capture_new(il_capture_event_cb cb, void *ctx, struct il_capture **out, char *why,
		   size_t whylen)
{
	struct il_capture *c;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	c->cb = cb;
	c->ctx = ctx;
	c->stats_fd = -1;
	libbpf_set_print(il_bpf_debug_print);
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0) {
		rc = c->ncpus ? c->ncpus : -EINVAL;
		snprintf(why, whylen, "cannot count the possible CPUs");
		goto fail;
	}
	c->skel = il_attrib_bpf__open();
	if (!c->skel) {
		rc = errno ? -errno : -EINVAL;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-rc));
		goto fail;
	}
	c->max_tid = il_pidmax_get(MAX_TIDS);
	c->cap = IL_KRING_CAP;
	c->skel->rodata->kring_cap = c->cap;
	if ((rc = bpf_map__set_max_entries(c->skel->maps.threads, c->max_tid)) < 0 ||
	    (rc = bpf_map__set_max_entries(c->skel->maps.waiters, (uint32_t)c->ncpus)) < 0 ||
	    (rc = bpf_map__set_max_entries(c->skel->maps.kring, (uint32_t)c->ncpus * c->cap)) < 0 ||
	    (rc = bpf_map__set_max_entries(c->skel->maps.kring_pos,
					   (uint32_t)c->ncpus * IL_KRING_POS_STRIDE)) < 0) {
		snprintf(why, whylen, "sizing the BPF maps: %s", strerror(-rc));
		goto fail;
	}
	rc = il_attrib_bpf__load(c->skel);
	if (rc < 0) {
		if (rc == -EPERM || rc == -EACCES)
			snprintf(why, whylen,
				 "BPF not allowed: loading the sched tracepoint program needs root "
				 "(CAP_BPF and CAP_PERFMON)");
		else
			snprintf(why, whylen, "loading the BPF program: %s", strerror(-rc));
		goto fail;
	}
	/* The rings are read before anything writes them. */
	rc = open_rings(c, why, whylen);
	if (rc < 0)
		goto fail;
	rc = attach_all(c, why, whylen);
	if (rc < 0)
		goto fail;
	/* Without statistics the run still works; it only cannot report the cost. */
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	*out = c;
	return 0;
fail:
	il_capture_free(c);
	return rc;
}

int il_capture_track(struct il_capture *c, int tid)
{
	/* TRACKED and the thread's slot of `tstate` (attrib.bpf.c). */
	uint32_t key = (uint32_t)tid, v = 0x80000000u;

	if (tid <= 0 || (uint32_t)tid >= c->max_tid)
		return -ERANGE;
	if (c->slots >= IL_KEV_MAX_TRACKED)
		return -ENOSPC;
	v |= ++c->slots;
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.threads), &key, &v, BPF_ANY) < 0)
		return -errno;
	return 0;
}

static void reader_cb(void *ctx, const struct il_kev *ev)
{
	struct il_capture *c = ctx;

	c->cb(c->ctx, ev);
}

int il_capture_drain(struct il_capture *c)
{
	if (!c->reader)
		return 0;
	/* Once detached, no program writes any more: everything complete goes. */
	return il_kring_reader_drain(c->reader, c->stopped, reader_cb, c);
}

uint64_t il_capture_done_to(struct il_capture *c)
{
	return il_kring_reader_done_to(c->reader);
}

uint32_t il_capture_ring_slots(const struct il_capture *c)
{
	return c->skel ? c->cap : 0;
}

uint64_t il_capture_drops(struct il_capture *c)
{
	uint64_t *v, sum = 0;
	uint32_t zero = 0;

	if (!c->skel)
		return 0;
	sum = il_kring_reader_lost(c->reader);
	v = calloc((size_t)c->ncpus, sizeof(*v));
	if (!v)
		return sum;
	if (bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.kring_drops), &zero, v) == 0)
		for (int i = 0; i < c->ncpus; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Reads each program's statistics while its descriptor is still open. */
static void read_progs(struct il_capture *c)
{
	struct bpf_program *p;

	c->nprogs = 0;
	bpf_object__for_each_program(p, c->skel->obj)
	{
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);

		if (c->nprogs >= IL_CAPTURE_MAX_PROGS)
			break;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0)
			continue;
		snprintf(c->progs[c->nprogs].name, sizeof(c->progs[0].name), "%s",
			 bpf_program__name(p));
		c->progs[c->nprogs].run_cnt = info.run_cnt;
		c->progs[c->nprogs].run_time_ns = info.run_time_ns;
		c->nprogs++;
	}
}

/* Every link at once (il_bpf_links_destroy): the skeleton's own detach
 * releases them one after the other. */
static void detach_all(struct il_capture *c)
{
	struct bpf_link *links[NTPS];

	for (size_t i = 0; i < NTPS; i++)
		links[i] = *(struct bpf_link **)((char *)c->skel + tps[i].link_offset);
	il_bpf_links_destroy(links, NTPS);
	for (size_t i = 0; i < NTPS; i++)
		*(struct bpf_link **)((char *)c->skel + tps[i].link_offset) = NULL;
}

void il_capture_stop(struct il_capture *c)
{
	if (!c || c->stopped || !c->skel)
		return;
	c->stopped = 1;
	read_progs(c);
	detach_all(c);
	il_capture_drain(c);
}

size_t il_capture_progs(struct il_capture *c, struct il_capture_prog *out, size_t n)
{
	if (!c->stopped)
		read_progs(c);
	if (n > c->nprogs)
		n = c->nprogs;
	memcpy(out, c->progs, n * sizeof(*out));
	return n;
}

void il_capture_free(struct il_capture *c)
{
	if (!c)
		return;
	if (c->skel)
		il_capture_stop(c);
	il_kring_reader_free(c->reader);
	if (c->ring)
		munmap((void *)c->ring, c->ring_len);
	if (c->pos)
		munmap(c->pos, c->pos_len);
	il_attrib_bpf__destroy(c->skel);
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	free(c);
}
