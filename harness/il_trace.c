#include "il_trace.h"

#include "il_file.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Building the tree checks allocations once per event, not per field. */
struct builder {
	cJSON *events;
	uint64_t t0_ns;
	bool oom;
};

static double rel_us(const struct builder *b, uint64_t ns)
{
	return ns >= b->t0_ns ? (double)(ns - b->t0_ns) / 1e3 : -(double)(b->t0_ns - ns) / 1e3;
}

static void num(struct builder *b, cJSON *o, const char *key, double v)
{
	if (!cJSON_AddNumberToObject(o, key, v))
		b->oom = true;
}

static void str(struct builder *b, cJSON *o, const char *key, const char *v)
{
	if (!cJSON_AddStringToObject(o, key, v))
		b->oom = true;
}

/* Appends {"ph", "name", "pid", "tid"} to the event list, NULL on OOM. */
static cJSON *event_add(struct builder *b, const char *ph, const char *name, int pid, int tid)
{
	cJSON *e = cJSON_CreateObject();

	if (!e || !cJSON_AddItemToArray(b->events, e)) {
		cJSON_Delete(e);
		b->oom = true;
		return NULL;
	}
	str(b, e, "ph", ph);
	str(b, e, "name", name);
	num(b, e, "pid", pid);
	num(b, e, "tid", tid);
	return e;
}

/* Metadata record: {"ph":"M", "name": what, "args": {key: value}}. */
static void meta_str(struct builder *b, const char *what, int pid, int tid, const char *name)
{
	cJSON *e = event_add(b, "M", what, pid, tid);
	cJSON *args = e ? cJSON_AddObjectToObject(e, "args") : NULL;

	if (!args)
		b->oom = true;
	else
		str(b, args, "name", name);
}

static void meta_sort(struct builder *b, const char *what, int pid, int tid, int index)
{
	cJSON *e = event_add(b, "M", what, pid, tid);
	cJSON *args = e ? cJSON_AddObjectToObject(e, "args") : NULL;

	if (!args)
		b->oom = true;
	else
		num(b, args, "sort_index", index);
}

static const struct il_trace_thread *thread_find(const struct il_trace_thread *t, size_t n,
						 int tid)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].tid == tid)
			return &t[i];
	return NULL;
}

static const char *hop_name(int k)
{
	const struct il_hop_desc *d;

	if (k == 0)
		return "inject";
	d = il_chain_hop(k);
	return d && d->name ? d->name : "hop";
}

/*
 * Smallest hop index each tid ran, so that Perfetto lists threads (and
 * processes) in the order a mouse-down visits them.
 */
static int first_hop_of(const struct il_msg *msgs, size_t n, int tid)
{
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < IL_NSTAMPS; k++)
			if (msgs[i].stamp_ns[k] && (int)msgs[i].tid[k] == tid)
				return k;
	return IL_NSTAMPS;
}

static void write_metadata(struct builder *b, const struct il_msg *msgs, size_t n,
			   const struct il_trace_thread *threads, size_t nthreads, bool counters)
{
	int self = (int)getpid(), unknown[64];
	size_t nunknown = 0;
	bool self_named = false;

	for (size_t i = 0; i < nthreads; i++) {
		const struct il_trace_thread *t = &threads[i];
		int hop = first_hop_of(msgs, n, t->tid);
		bool first_of_pid = true;

		for (size_t j = 0; j < i; j++)
			if (threads[j].pid == t->pid)
				first_of_pid = false;
		if (first_of_pid) {
			int phop = IL_NSTAMPS;

			for (size_t j = i; j < nthreads; j++) {
				int h = first_hop_of(msgs, n, threads[j].tid);

				if (threads[j].pid == t->pid && h < phop)
					phop = h;
			}
			meta_str(b, "process_name", t->pid, t->pid, t->process ? t->process : "?");
			meta_sort(b, "process_sort_index", t->pid, t->pid, phop);
		}
		if (t->pid == self)
			self_named = true;
		meta_str(b, "thread_name", t->pid, t->tid, t->thread ? t->thread : "?");
		meta_sort(b, "thread_sort_index", t->pid, t->tid, hop);
	}

	/* A tid the table does not know still gets a name, in a process of its own. */
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < IL_NSTAMPS; k++) {
			int tid = (int)msgs[i].tid[k];
			char name[32];
			bool seen = false;

			if (!msgs[i].stamp_ns[k] || thread_find(threads, nthreads, tid))
				continue;
			for (size_t j = 0; j < nunknown; j++)
				seen |= unknown[j] == tid;
			if (seen || nunknown == sizeof(unknown) / sizeof(unknown[0]))
				continue;
			unknown[nunknown++] = tid;
			snprintf(name, sizeof(name), "tid %d", tid);
			meta_str(b, "process_name", tid, tid, name);
			meta_str(b, "thread_name", tid, tid, name);
		}
	}
	if (counters && !self_named)
		meta_str(b, "process_name", self, self, "inputlat");
}

static void write_message(struct builder *b, const struct il_msg *m,
			  const struct il_trace_thread *threads, size_t nthreads)
{
	int first = -1, last = -1;

	for (int k = 0; k < IL_NSTAMPS; k++)
		if (m->stamp_ns[k]) {
			if (first < 0)
				first = k;
			last = k;
		}

	for (int k = 0; k < IL_NSTAMPS; k++) {
		const struct il_trace_thread *t;
		cJSON *e, *args;
		int tid = (int)m->tid[k], pid;
		double ts, dur;

		if (!m->stamp_ns[k])
			continue;
		t = thread_find(threads, nthreads, tid);
		pid = t ? t->pid : tid;
		ts = rel_us(b, m->stamp_ns[k]);
		dur = m->end_ns[k] > m->stamp_ns[k] ? (double)(m->end_ns[k] - m->stamp_ns[k]) / 1e3 : 0;
		/* The flip is an instant; a tiny slice keeps it visible and flow-bindable. */
		if (k == IL_STAMP_PRESENTED && dur == 0)
			dur = 1;

		e = event_add(b, "X", hop_name(k), pid, tid);
		if (!e)
			return;
		str(b, e, "cat", "hop");
		num(b, e, "ts", ts);
		num(b, e, "dur", dur);
		args = cJSON_AddObjectToObject(e, "args");
		if (!args) {
			b->oom = true;
			return;
		}
		num(b, args, "event_id", (double)m->event_id);
		num(b, args, "hop", k);
		if (k > 0 && m->stamp_ns[k - 1] && m->end_ns[k - 1])
			num(b, args, "queue_us",
			    ((double)m->stamp_ns[k] - (double)m->end_ns[k - 1]) / 1e3);

		/*
		 * Flow v1: "s" on the first slice, "t" on the middle ones and "f"
		 * on the last, each placed inside its slice so that it binds to
		 * the enclosing slice ("bp":"e" makes the end do the same).
		 */
		if (first == last)
			continue;
		e = event_add(b, k == first ? "s" : k == last ? "f" : "t", "mouse-down", pid, tid);
		if (!e)
			return;
		str(b, e, "cat", "flow");
		num(b, e, "id", (double)m->event_id);
		num(b, e, "ts", ts + dur / 2);
		if (k == last)
			str(b, e, "bp", "e");
	}
}

static void write_counters(struct builder *b, const struct il_trace_counter *ctr, size_t nctr)
{
	int self = (int)getpid();

	for (size_t i = 0; i < nctr; i++) {
		cJSON *e = event_add(b, "C", ctr[i].name ? ctr[i].name : "counter", self, self);
		cJSON *args;

		if (!e)
			return;
		num(b, e, "ts", rel_us(b, ctr[i].ts_ns));
		args = cJSON_AddObjectToObject(e, "args");
		if (!args) {
			b->oom = true;
			return;
		}
		num(b, args, "value", ctr[i].value);
	}
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

int il_trace_write(const char *path, const struct il_msg *msgs, size_t n,
		   const struct il_trace_thread *threads, size_t nthreads,
		   const struct il_trace_counter *ctr, size_t nctr, size_t max_events)
{
	struct builder b = { .t0_ns = UINT64_MAX };
	cJSON *root = NULL, *other;
	char *text = NULL;
	int fd = -1, r;

	if (!path || (n && !msgs) || (nthreads && !threads) || (nctr && !ctr))
		return -EINVAL;
	if (max_events && n > max_events)
		n = max_events;

	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < IL_NSTAMPS; k++)
			if (msgs[i].stamp_ns[k] && msgs[i].stamp_ns[k] < b.t0_ns)
				b.t0_ns = msgs[i].stamp_ns[k];
	for (size_t i = 0; i < nctr; i++)
		if (ctr[i].ts_ns < b.t0_ns)
			b.t0_ns = ctr[i].ts_ns;
	if (b.t0_ns == UINT64_MAX)
		b.t0_ns = 0;

	r = -ENOMEM;
	root = cJSON_CreateObject();
	if (!root)
		goto out;
	b.events = cJSON_AddArrayToObject(root, "traceEvents");
	other = cJSON_AddObjectToObject(root, "otherData");
	if (!b.events || !other)
		goto out;
	str(&b, root, "displayTimeUnit", "ms");
	str(&b, other, "generator", "inputlat");
	num(&b, other, "mouse_downs", (double)n);
	num(&b, other, "t0_monotonic_ns", (double)b.t0_ns);

	write_metadata(&b, msgs, n, threads, nthreads, nctr > 0);
	for (size_t i = 0; i < n && !b.oom; i++)
		write_message(&b, &msgs[i], threads, nthreads);
	write_counters(&b, ctr, nctr);
	if (b.oom)
		goto out;
	text = cJSON_PrintUnformatted(root);
	if (!text)
		goto out;

	{
		/* The project's one safe way to create an output (no symlinks, 0644). */
		FILE *f = il_file_create(path);

		if (!f) {
			r = -errno;
			goto out;
		}
		fd = fileno(f);
		r = write_all(fd, text, strlen(text));
		if (r == 0)
			r = write_all(fd, "\n", 1);
		if (fclose(f) != 0 && r == 0)
			r = -errno;
	}
out:
	cJSON_free(text);
	cJSON_Delete(root);
	return r;
}
