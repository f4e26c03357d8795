#include "il_trace.h"

#include "il_file.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Distinct tids the writer remembers (pipeline threads and a few strangers). */
#define MAX_TIDS 256
/* Strangers (tids no thread report names) that get a name of their own. */
#define MAX_UNKNOWN 64
/* Output is written in large blocks: a record costs no system call. */
#define WRITE_BUFFER (256 * 1024)

struct seen_tid {
	int tid;
	int first_hop; /* smallest hop index it ran */
};

/*
 * Streaming: every event goes to the file as it is added; what the
 * metadata needs (which tids ran which hop first) is a small table, so
 * memory does not depend on the number of events.
 */
struct il_trace_writer {
	FILE *f;
	bool owns_f; /* il_trace_open made f; il_trace_open_file's caller owns it */
	char *buf;
	uint64_t t0_ns;
	bool t0_set, first;
	size_t max_events, nevents;
	size_t warmup_left_out; /* warm-up mouse-downs the caller kept out */
	size_t flows_left_out;	/* mouse-downs whose stamps are out of order */
	struct seen_tid seen[MAX_TIDS];
	size_t nseen;
	uint64_t cpus_seen; /* per-CPU tracks written (CPUs 0..63) */
	int err;
	bool interrupted; /* otherData says the run was stopped short */
};

/* Per-CPU tracks live in pseudo-processes far above any pid (pid_max <= 2^22). */
#define CPU_TRACK_PID 1000000000

/* A JSON number as cJSON prints it: shortest of %.15g / %.17g that round-trips. */
static void put_num(FILE *f, double v)
{
	char buf[32];

	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	if (v == (double)(long long)v && fabs(v) < 1e15) {
		fprintf(f, "%lld", (long long)v);
		return;
	}
	snprintf(buf, sizeof(buf), "%1.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%1.17g", v);
	fputs(buf, f);
}

/* A JSON string, valid UTF-8 whatever s holds: names of other processes
 * (the per-CPU tracks' culprits) are whatever bytes they set, and a byte
 * that starts no valid sequence becomes U+FFFD, as in il_json_sanitize. */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t len = il_utf8_len(p);

		if (!len)
			fputs("\xef\xbf\xbd", f);
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, len, f);
		p += len ? len : 1;
	}
	fputc('"', f);
}

/* Starts one trace event: {"ph":..,"name":..,"pid":..,"tid":.. (object left open). */
static void ev_begin(struct il_trace_writer *w, const char *ph, const char *name, int pid, int tid)
{
	if (!w->first)
		fputc(',', w->f);
	w->first = false;
	fputs("{\"ph\":", w->f);
	put_str(w->f, ph);
	fputs(",\"name\":", w->f);
	put_str(w->f, name);
	fprintf(w->f, ",\"pid\":%d,\"tid\":%d", pid, tid);
}

/*
 * A time or a duration in microseconds, from whole nanoseconds: the
 * integer part and exactly three decimals, so that what a reader adds up
 * is what was measured. A slice's ts + dur is then its end's ts to the
 * nanosecond, whatever the magnitude (a double's shortest form had 17
 * digits for an absolute ts past 11.6 days of uptime, off in its last).
 */
static void put_ns_as_us(FILE *f, bool negative, uint64_t ns)
{
	fprintf(f, "%s%llu.%03u", negative && ns ? "-" : "", (unsigned long long)(ns / 1000),
		(unsigned)(ns % 1000));
}

static void key_us(struct il_trace_writer *w, const char *key, uint64_t ns)
{
	fprintf(w->f, ",\"%s\":", key);
	put_ns_as_us(w->f, false, ns);
}

/* A stamp as a ts: since t0, in the units of key_us (before t0: negative). */
static void put_ts(struct il_trace_writer *w, uint64_t ns)
{
	if (ns >= w->t0_ns)
		put_ns_as_us(w->f, false, ns - w->t0_ns);
	else
		put_ns_as_us(w->f, true, w->t0_ns - ns);
}

static void key_ts(struct il_trace_writer *w, uint64_t ns)
{
	fputs(",\"ts\":", w->f);
	put_ts(w, ns);
}

static const char *hop_name(int k)
{
	const struct il_hop_desc *d;

	if (k == 0)
		return "inject";
	d = il_chain_hop(k);
	return d && d->name ? d->name : "hop";
}

int il_trace_open_file(FILE *f, size_t max_events, struct il_trace_writer **out)
{
	struct il_trace_writer *w;

	if (!f)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->f = f;
	w->max_events = max_events;
	w->first = true;
	fputs("{\"traceEvents\":[", w->f);
	*out = w;
	return 0;
}

int il_trace_open(const char *path, size_t max_events, struct il_trace_writer **out)
{
	FILE *f;
	int rc;

	if (!path)
		return -EINVAL;
	/* The project's one safe way to create an output (no symlinks, 0644). */
	f = il_file_create(path);
	if (!f)
		return -errno;
	rc = il_trace_open_file(f, max_events, out);
	if (rc < 0) {
		fclose(f);
		return rc;
	}
	(*out)->owns_f = true;
	(*out)->buf = malloc(WRITE_BUFFER);
	if ((*out)->buf)
		setvbuf(f, (*out)->buf, _IOFBF, WRITE_BUFFER);
	return 0;
}

void il_trace_set_t0(struct il_trace_writer *w, uint64_t t0_ns)
{
	w->t0_ns = t0_ns;
	w->t0_set = true;
}

size_t il_trace_count(const struct il_trace_writer *w)
{
	return w->nevents;
}

void il_trace_set_warmup_left_out(struct il_trace_writer *w, size_t n)
{
	w->warmup_left_out = n;
}

static void note_tid(struct il_trace_writer *w, int tid, int hop)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].tid == tid) {
			if (hop < w->seen[i].first_hop)
				w->seen[i].first_hop = hop;
			return;
		}
	if (w->nseen < MAX_TIDS)
		w->seen[w->nseen++] = (struct seen_tid){tid, hop};
}

static int first_hop_of(const struct il_trace_writer *w, int tid)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].tid == tid)
			return w->seen[i].first_hop;
	return IL_NSTAMPS;
}

int il_trace_add(struct il_trace_writer *w, const struct il_msg *m,
		 const struct il_trace_thread *threads, size_t nthreads)
{
	int first = -1, last = -1;
	bool ordered = true;

	if (w->max_events && w->nevents >= w->max_events)
		return 0;
	for (int k = 0; k < IL_NSTAMPS; k++)
		if (m->stamp_ns[k]) {
			if (first >= 0 && m->stamp_ns[k] < m->stamp_ns[last])
				ordered = false;
			if (first < 0)
				first = k;
			last = k;
		}
	if (first < 0)
		return 0;
	/* Its flow would run backwards: the slices stay, the arrow goes. */
	if (!ordered && first != last)
		w->flows_left_out++;
	if (!w->t0_set)
		il_trace_set_t0(w, m->stamp_ns[first]);
	w->nevents++;

	for (int k = 0; k < IL_NSTAMPS; k++) {
		const struct il_trace_thread *t = NULL;
		int tid = (int)m->tid[k], pid;
		uint64_t work, queue, dur;

		if (!m->stamp_ns[k])
			continue;
		for (size_t i = 0; i < nthreads && !t; i++)
			if (threads[i].tid == tid)
				t = &threads[i];
		pid = t ? t->pid : tid;
		note_tid(w, tid, k);
		/* The handler's share of the next hop, as the report splits it:
		 * a sender preempted after its send ends past the next stamp,
		 * and its slice stops there (the rest is in no handler). */
		if (il_msg_hop_split(m, k + 1, &work, &queue) == 0)
			dur = work;
		else
			dur = m->end_ns[k] > m->stamp_ns[k] ? m->end_ns[k] - m->stamp_ns[k] : 0;
		/* The flip is an instant (end == stamp): its slice lasts 0 us,
		 * as measured, not a drawn 1 us (Chrome's format allows dur 0). */

		ev_begin(w, "X", hop_name(k), pid, tid);
		fputs(",\"cat\":\"hop\"", w->f);
		key_ts(w, m->stamp_ns[k]);
		key_us(w, "dur", dur);
		fputs(",\"args\":{", w->f);
		fprintf(w->f, "\"event_id\":%llu,\"hop\":%d", (unsigned long long)m->event_id, k);
		/* The report's split: never negative; none where the stamps are
		 * out of order (the report leaves such an event out). */
		if (k > 0 && il_msg_hop_split(m, k, &work, &queue) == 0)
			key_us(w, "queue_us", queue);
		fputs("}}", w->f);

		/*
		 * Flow v1: "s" on the first slice, "t" on the middle ones and "f"
		 * on the last, each at its slice's start (the stamp at which the
		 * hop's message was received: measured, and in hop order), so
		 * that it binds to that slice ("bp":"e" makes the end do the
		 * same) and never comes after the next point.
		 */
		if (first == last || !ordered)
			continue;
		ev_begin(w, k == first ? "s" : k == last ? "f" : "t", "mouse-down", pid, tid);
		fputs(",\"cat\":\"flow\"", w->f);
		fprintf(w->f, ",\"id\":%llu", (unsigned long long)m->event_id);
		key_ts(w, m->stamp_ns[k]);
		if (k == last)
			fputs(",\"bp\":\"e\"", w->f);
		fputc('}', w->f);
	}
	if (ferror(w->f)) {
		w->err = errno ? -errno : -EIO;
		return w->err;
	}
	return 0;
}

int il_trace_add_cpu_slice(struct il_trace_writer *w, int cpu, uint64_t start_ns, uint64_t end_ns,
			   const char *name, int tid, const char *cls, int priority)
{
	if (cpu < 0 || cpu >= 64 || end_ns <= start_ns)
		return 0;
	w->cpus_seen |= 1ull << cpu;
	ev_begin(w, "X", name, CPU_TRACK_PID + cpu, CPU_TRACK_PID + cpu);
	fputs(",\"cat\":\"sched\"", w->f);
	key_ts(w, start_ns);
	key_us(w, "dur", end_ns - start_ns);
	fprintf(w->f, ",\"args\":{\"tid\":%d", tid);
	if (cls) {
		fputs(",\"class\":", w->f);
		put_str(w->f, cls);
		fprintf(w->f, ",\"priority\":%d", priority);
	}
	fputs("}}", w->f);
	if (ferror(w->f)) {
		w->err = errno ? -errno : -EIO;
		return w->err;
	}
	return 0;
}

static void meta_str(struct il_trace_writer *w, const char *what, int pid, int tid,
		     const char *name)
{
	ev_begin(w, "M", what, pid, tid);
	fputs(",\"args\":{\"name\":", w->f);
	put_str(w->f, name);
	fputs("}}", w->f);
}

static void meta_sort(struct il_trace_writer *w, const char *what, int pid, int tid, int index)
{
	ev_begin(w, "M", what, pid, tid);
	fprintf(w->f, ",\"args\":{\"sort_index\":%d}}", index);
}

/*
 * Names every thread and process, sorted so that Perfetto lists them in
 * the order a mouse-down visits them (smallest hop index each ran).
 */
static void write_metadata(struct il_trace_writer *w, const struct il_trace_thread *threads,
			   size_t nthreads, bool counters)
{
	int self = (int)getpid();
	size_t nunknown = 0;
	bool self_named = false;

	for (size_t i = 0; i < nthreads; i++) {
		const struct il_trace_thread *t = &threads[i];
		bool first_of_pid = true;

		for (size_t j = 0; j < i; j++)
			if (threads[j].pid == t->pid)
				first_of_pid = false;
		if (first_of_pid) {
			int phop = IL_NSTAMPS;

			for (size_t j = i; j < nthreads; j++) {
				int h = first_hop_of(w, threads[j].tid);

				if (threads[j].pid == t->pid && h < phop)
					phop = h;
			}
			meta_str(w, "process_name", t->pid, t->pid, t->process ? t->process : "?");
			meta_sort(w, "process_sort_index", t->pid, t->pid, phop);
		}
		if (t->pid == self)
			self_named = true;
		meta_str(w, "thread_name", t->pid, t->tid, t->thread ? t->thread : "?");
		meta_sort(w, "thread_sort_index", t->pid, t->tid, first_hop_of(w, t->tid));
	}

	/* A tid the table does not know still gets a name, in a process of its own. */
	for (size_t i = 0; i < w->nseen && nunknown < MAX_UNKNOWN; i++) {
		int tid = w->seen[i].tid;
		bool known = false;
		char name[32];

		for (size_t j = 0; j < nthreads && !known; j++)
			known = threads[j].tid == tid;
		if (known)
			continue;
		nunknown++;
		snprintf(name, sizeof(name), "tid %d", tid);
		meta_str(w, "process_name", tid, tid, name);
		meta_str(w, "thread_name", tid, tid, name);
	}
	if (counters && !self_named)
		meta_str(w, "process_name", self, self, "inputlat");
	/* The per-CPU scheduling tracks, after every pipeline process. */
	for (int c = 0; c < 64; c++) {
		char name[32];

		if (!(w->cpus_seen & (1ull << c)))
			continue;
		snprintf(name, sizeof(name), "CPU %d", c);
		meta_str(w, "process_name", CPU_TRACK_PID + c, CPU_TRACK_PID + c, name);
		meta_sort(w, "process_sort_index", CPU_TRACK_PID + c, CPU_TRACK_PID + c,
			  IL_NSTAMPS + 1 + c);
		meta_str(w, "thread_name", CPU_TRACK_PID + c, CPU_TRACK_PID + c, "what ran");
	}
}

/* Counter tracks whose end otherData gives (more are written, without). */
#define MAX_COUNTER_TRACKS 16

static void counter_sample(struct il_trace_writer *w, int self, const struct il_trace_counter *c)
{
	ev_begin(w, "C", c->name ? c->name : "counter", self, self);
	key_ts(w, c->ts_ns);
	fputs(",\"args\":{\"value\":", w->f);
	put_num(w->f, c->value);
	fputs("}}", w->f);
}

/* One sample per interval measured: nothing else is a sample. */
static void write_counters(struct il_trace_writer *w, const struct il_trace_counter *ctr,
			   size_t nctr)
{
	int self = (int)getpid();

	for (size_t i = 0; i < nctr; i++)
		counter_sample(w, self, &ctr[i]);
}

/*
 * otherData.counters_end_ts: where each track's last interval ends (a
 * ts), for a counter's last value is drawn to the end of the trace. It
 * was a last sample repeated at that end, which every reader counts as a
 * sample (one more than were measured, its value twice); Chrome's format
 * has no way to end a counter track. The tracks are few: a look back from
 * the end finds each one's last.
 */
static void write_counters_end(struct il_trace_writer *w, const struct il_trace_counter *ctr,
			       size_t nctr)
{
	const char *names[MAX_COUNTER_TRACKS];
	size_t nnames = 0;

	fputs(",\"counters_end_ts\":{", w->f);
	for (size_t i = nctr; i-- > 0 && nnames < MAX_COUNTER_TRACKS;) {
		const char *name = ctr[i].name ? ctr[i].name : "counter";
		bool seen = false;

		for (size_t j = 0; j < nnames && !seen; j++)
			seen = strcmp(names[j], name) == 0;
		if (seen)
			continue;
		if (nnames)
			fputc(',', w->f);
		names[nnames++] = name;
		put_str(w->f, name);
		fputc(':', w->f);
		if (ctr[i].end_ns > ctr[i].ts_ns)
			put_ts(w, ctr[i].end_ns);
		else
			fputs("null", w->f);
	}
	fputc('}', w->f);
}

void il_trace_set_interrupted(struct il_trace_writer *w, bool interrupted)
{
	if (w)
		w->interrupted = interrupted;
}

int il_trace_close(struct il_trace_writer *w, const struct il_trace_thread *threads,
		   size_t nthreads, const struct il_trace_counter *ctr, size_t nctr)
{
	int rc;

	if (!w)
		return 0;
	if (!w->t0_set) {
		uint64_t t0 = UINT64_MAX;

		for (size_t i = 0; i < nctr; i++)
			if (ctr[i].ts_ns < t0)
				t0 = ctr[i].ts_ns;
		il_trace_set_t0(w, t0 == UINT64_MAX ? 0 : t0);
	}
	write_metadata(w, threads, nthreads, nctr > 0);
	write_counters(w, ctr, nctr);
	fputs("],\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"inputlat\",\"mouse_"
	      "downs\":",
	      w->f);
	fprintf(w->f, "%zu,\"warmup_left_out\":%zu,\"flows_left_out\":%zu,\"interrupted\":%s",
		w->nevents, w->warmup_left_out, w->flows_left_out,
		w->interrupted ? "true" : "false");
	if (nctr)
		write_counters_end(w, ctr, nctr);
	fprintf(w->f, ",\"clock\":\"CLOCK_MONOTONIC\",\"t0_monotonic_ns\":%llu}}\n",
		(unsigned long long)w->t0_ns);
	rc = w->err;
	if (ferror(w->f) && !rc)
		rc = errno ? -errno : -EIO;
	if (w->owns_f) {
		if (fclose(w->f) != 0 && !rc)
			rc = -errno;
	} else if (fflush(w->f) != 0 && !rc) {
		rc = errno ? -errno : -EIO;
	}
	free(w->buf);
	free(w);
	return rc;
}

int il_trace_write(const char *path, const struct il_msg *msgs, size_t n,
		   const struct il_trace_thread *threads, size_t nthreads,
		   const struct il_trace_counter *ctr, size_t nctr, size_t max_events)
{
	struct il_trace_writer *w;
	uint64_t t0 = UINT64_MAX;
	int r;

	if (!path || (n && !msgs) || (nthreads && !threads) || (nctr && !ctr))
		return -EINVAL;
	if (max_events && n > max_events)
		n = max_events;
	/* With every event at hand, time starts at the earliest thing written. */
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < IL_NSTAMPS; k++)
			if (msgs[i].stamp_ns[k] && msgs[i].stamp_ns[k] < t0)
				t0 = msgs[i].stamp_ns[k];
	for (size_t i = 0; i < nctr; i++)
		if (ctr[i].ts_ns < t0)
			t0 = ctr[i].ts_ns;
	r = il_trace_open(path, max_events, &w);
	if (r < 0)
		return r;
	il_trace_set_t0(w, t0 == UINT64_MAX ? 0 : t0);
	for (size_t i = 0; i < n && r == 0; i++)
		r = il_trace_add(w, &msgs[i], threads, nthreads);
	if (r < 0) {
		il_trace_close(w, threads, nthreads, ctr, nctr);
		return r;
	}
	return il_trace_close(w, threads, nthreads, ctr, nctr);
}
