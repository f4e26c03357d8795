#include "il_explain.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_attrib.h"
#include "il_chain.h"
#include "il_file.h"
#include "il_printable.h"

/* Column heads of the hop table, in enum il_attrib_comp order. */
static const char *const heads[IL_NCOMP] = {"work", "preempt", "send", "wake",	 "runq",
					    "busy", "disp",    "irq",  "vblank", "resid"};

static double num(const cJSON *o, const char *path)
{
	return il_json_num(o, path);
}

static void fmt_time(char *buf, size_t n, double us)
{
	if (isnan(us))
		snprintf(buf, n, "?");
	else if (fabs(us) >= 1000)
		snprintf(buf, n, "%.2f ms", us / 1000);
	else
		snprintf(buf, n, "%.0f us", us);
}

/*
 * A string of the report at path, as text for the terminal, or "?": a
 * report is a file anybody may have written, and a newline or an escape
 * sequence in one of its strings would forge lines of this output or act
 * on the reader's terminal (control characters become '?').
 */
static const char *str_or(const cJSON *o, const char *path, char *buf, size_t n)
{
	const char *v = cJSON_GetStringValue(il_json_get(o, path));

	return v ? il_printable_copy(v, buf, n) : "?";
}

/*
 * What "throttled" was in this run: the CPU idled or ran CFS while an RT
 * or deadline thread waited. Named by what the run had in force, not by
 * every mechanism there is: under --policy rt (sched_rt_runtime_us -1) it
 * is the fair server, never RT throttling. A report that does not say
 * keeps a mechanism in the list.
 */
static void throttle_words(const cJSON *run, char *buf, size_t n)
{
	const cJSON *rt = il_json_get(run, "kernel.sched_rt_runtime_us");
	const cJSON *in_force = il_json_get(run, "kernel.rt_throttling.in_force");
	const cJSON *fs = il_json_get(run, "kernel.fair_server.present");
	const cJSON *fs_rt = il_json_get(run, "kernel.fair_server.runtime_ns");
	const cJSON *t;
	const cJSON *threads = cJSON_GetObjectItemCaseSensitive(run, "threads");
	const char *why[3];
	/* Without the run's threads, either kind may have waited. */
	int k = 0, dl = !cJSON_IsArray(threads), fifo = dl;
	size_t used;

	cJSON_ArrayForEach (t, threads) {
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "policy"));

		dl |= p && !strcmp(p, "deadline");
		fifo |= p && (!strcmp(p, "fifo") || !strcmp(p, "rr"));
	}
	/* RT throttling holds back SCHED_FIFO and SCHED_RR threads only. A
	 * report that says whether it was in force (kernel.rt_throttling: off
	 * without RT groups from 6.12, or at runtime = period) is taken at its
	 * word; an older one by sched_rt_runtime_us. */
	if (fifo && (cJSON_IsBool(in_force) ? cJSON_IsTrue(in_force)
					    : !cJSON_IsNumber(rt) || rt->valuedouble >= 0))
		why[k++] = "RT throttling";
	/* Present (or not said) and not tuned to 0. */
	if (!cJSON_IsFalse(fs) && (!cJSON_IsNumber(fs_rt) || fs_rt->valuedouble > 0))
		why[k++] = "the fair server";
	if (dl)
		why[k++] = "a deadline thread's own throttling (its runtime used up)";
	if (!k) {
		/* RT throttling off, no fair server, no deadline thread. */
		snprintf(buf, n,
			 "throttling (neither RT throttling nor a fair server was in "
			 "force: the CPU idled or ran CFS)");
		return;
	}
	used = (size_t)snprintf(buf, n, "throttling (");
	for (int i = 0; i < k && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s",
					 i == 0	      ? ""
					 : i == k - 1 ? " or "
						      : ", ",
					 why[i]);
	if (used < n)
		snprintf(buf + used, n - used, ": the CPU idled or ran CFS)");
}

void il_explain_culprit_words(const cJSON *run, const cJSON *c, char *buf, size_t n)
{
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "thread"));
	const char *cls = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "class"));
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(c, "priority");
	/* reproduce names culprits of reports explain's checks never saw:
	 * only a priority a run writes is made an int. */
	int p = cJSON_IsNumber(pr) && pr->valuedouble >= -20 && pr->valuedouble <= 99
		    ? (int)pr->valuedouble
		    : 0;
	/* A thread of no process of the run (process null): said so, or
	 * another program's thread called "inputlat" reads as the run's own. */
	bool foreign = cls && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "process"));
	char name[112], raw[96];

	/* Another process's name is any bytes it set: as ps shows it. */
	t = t ? il_printable_copy(t, raw, sizeof(raw)) : "?";
	if (foreign) {
		snprintf(name, sizeof(name), "%s of another program", t);
		t = name;
	}
	if (!cls) {
		if (!strcmp(t, "idle"))
			snprintf(buf, n, "an idle CPU (idle exit)");
		else if (!strcmp(t, "throttled"))
			throttle_words(run, buf, n);
		else
			snprintf(buf, n, "%s", t);
	} else if (!strcmp(cls, "fifo") || !strcmp(cls, "rr")) {
		snprintf(buf, n, "%s (SCHED_%s %d)", t, !strcmp(cls, "fifo") ? "FIFO" : "RR", p);
	} else if (!strcmp(cls, "rt")) {
		snprintf(buf, n, "%s (RT %d)", t, p);
	} else if (!strcmp(cls, "deadline")) {
		snprintf(buf, n, "%s (SCHED_DEADLINE)", t);
	} else if (!strcmp(cls, "fair")) {
		snprintf(buf, n, "%s (CFS nice %d)", t, p);
	} else if (!strcmp(cls, "batch")) {
		snprintf(buf, n, "%s (SCHED_BATCH nice %d)", t, p);
	} else if (!strcmp(cls, "idle")) {
		snprintf(buf, n, "%s (SCHED_IDLE)", t);
	} else {
		snprintf(buf, n, "%s (SCHED_OTHER nice %d)", t, p);
	}
}

/* The latency band holding percentile p of the explained events. */
static const cJSON *band_at(const cJSON *attr, double p)
{
	const cJSON *bands = cJSON_GetObjectItemCaseSensitive(attr, "bands"), *b, *last = NULL;
	double total = 0, cum = 0, target;

	cJSON_ArrayForEach (b, bands)
		total += num(b, "count");
	if (total <= 0)
		return NULL;
	target = ceil(p / 100.0 * total);
	if (target < 1)
		target = 1;
	cJSON_ArrayForEach (b, bands) {
		cum += num(b, "count");
		last = b;
		if (cum >= target)
			return b;
	}
	return last;
}

/* The run's own percentile when the report has it (p50, p90, p99, p999). */
static double run_percentile(const cJSON *run, double p)
{
	char key[64];

	if (p == 99.9)
		return num(run, "latency_us.processing.p999");
	if (p != floor(p))
		return NAN;
	snprintf(key, sizeof(key), "latency_us.processing.p%.0f", p);
	return num(run, key);
}

struct comp_val {
	int c;
	double us;
};

static int comp_val_cmp(const void *x, const void *y)
{
	const struct comp_val *a = x, *b = y;

	return a->us < b->us ? 1 : a->us > b->us ? -1 : a->c - b->c;
}

/* "p99 4.12 ms: runqueue 2.30 ms (56%, behind ...), work 1.20 ms (29%), ..." */
static void band_line(FILE *out, const cJSON *run, const cJSON *band, double p)
{
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(band, "components_us");
	const cJSON *culprits = cJSON_GetObjectItemCaseSensitive(band, "culprits"), *cu;
	struct comp_val v[IL_NCOMP];
	double mean = num(band, "mean_us"), pv = run_percentile(run, p);
	char t1[32], t2[32], t3[32], words[160];
	const cJSON *top = NULL;
	int n = 0;

	cJSON_ArrayForEach (cu, culprits) {
		const char *t =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cu, "thread"));

		/* The first holder that is a thread names the wait; idle and
		 * throttling are named when they are all there is. */
		if (!top || (t && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(top, "class")) &&
			     !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cu, "class")) &&
			     num(cu, "total_ms") >= 0.2 * num(top, "total_ms")))
			top = cu;
	}
	for (int c = 0; c < IL_NCOMP; c++) {
		double us = num(comps, il_attrib_comp_name(c));

		if (!isnan(us) && c != IL_COMP_VBLANK)
			v[n++] = (struct comp_val){c, us};
	}
	qsort(v, (size_t)n, sizeof(v[0]), comp_val_cmp);
	fmt_time(t1, sizeof(t1), isnan(pv) ? mean : pv);
	fmt_time(t2, sizeof(t2), num(band, "lo_us"));
	fmt_time(t3, sizeof(t3), num(band, "hi_us"));
	fprintf(out, "  p%g %s (%g event%s between %s and %s, mean ", p, t1, num(band, "count"),
		num(band, "count") == 1 ? "" : "s", t2, t3);
	fmt_time(t1, sizeof(t1), mean);
	fprintf(out, "%s):", t1);
	for (int i = 0, shown = 0; i < n; i++) {
		double pct = mean > 0 ? 100 * v[i].us / mean : 0;

		if (shown >= 6 || (pct < 1 && v[i].c != IL_COMP_RESIDUAL))
			continue;
		fmt_time(t1, sizeof(t1), v[i].us);
		fprintf(out, "%s %s %s (%.0f%%", shown ? "," : "", il_attrib_comp_name(v[i].c), t1,
			pct);
		if (top && (v[i].c == IL_COMP_RUNQUEUE || v[i].c == IL_COMP_PREEMPTED) &&
		    v[i].us >= 0.2 * mean && num(top, "total_ms") * 1000 >= 0.3 * v[i].us) {
			il_explain_culprit_words(run, top, words, sizeof(words));
			fmt_time(t2, sizeof(t2), num(top, "total_ms") * 1000 / num(band, "count"));
			/* The holder's time counts both of its ways of delaying
			 * the pipeline, so the line says so. */
			fprintf(out, ", behind %s for %s of runqueue + preempted", words, t2);
			top = NULL;
		}
		fputc(')', out);
		shown++;
	}
	fputc('\n', out);
}

static const cJSON *find_stored(const cJSON *attr, uint64_t id)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(attr, "events"))
		if ((uint64_t)num(e, "id") == id)
			return e;
	return NULL;
}

/* The longest line of a --records file we read: an event with its
 * attribution is a few KiB; a file that is not one must not fill memory. */
#define RECORD_LINE_MAX (16u << 20)

/*
 * Whether a line's head (its first bytes, up to the first ',' or '}') is
 * event id's: `{"id":N,` as the run writes it, with any white space a
 * JSON writer puts between (`{"id": 35, ...`, as Python's json.dumps).
 */
static bool head_is(char *head, size_t hlen, uint64_t id)
{
	unsigned long long v;
	int n = -1;

	head[hlen] = '\0';
	if (sscanf(head, " { \"id\" : %n", &n) < 0 || n < 0 || !isdigit((unsigned char)head[n]))
		return false;
	n = -1;
	if (sscanf(head, " { \"id\" : %llu %n", &v, &n) != 1 || n < 0)
		return false;
	return v == id && (head[n] == ',' || head[n] == '}');
}

/* Appends c to the line being kept, within RECORD_LINE_MAX. */
static int keep_char(char **line, size_t *cap, size_t *len, int c)
{
	if (*len + 2 > RECORD_LINE_MAX)
		return -EFBIG;
	if (*len + 2 > *cap) {
		size_t ncap = *cap ? 2 * *cap : 4096;
		char *grown = realloc(*line, ncap);

		if (!grown)
			return -ENOMEM;
		*line = grown;
		*cap = ncap;
	}
	(*line)[(*len)++] = (char)c;
	return 0;
}

/*
 * Whether a --records line is of run (the report at run_path): its event
 * was injected between the run's first event and its stop, and its hops
 * ran on the run's threads. Another run's records printed their event
 * under this report's header. A report without milestones_ns or threads
 * (written before them) is not judged by what it lacks. 0, or -1 with err.
 */
static int record_of_run(const cJSON *line, uint64_t id, const char *path, const cJSON *run,
			 const char *run_path, char *err, size_t errlen)
{
	const cJSON *stamp0 =
	    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(line, "stamp_ns"), 0);
	double inject = cJSON_IsNumber(stamp0) ? stamp0->valuedouble : NAN;
	double first = num(run, "milestones_ns.first_event"), stop = num(run, "milestones_ns.stop");
	const cJSON *threads = cJSON_GetObjectItemCaseSensitive(run, "threads"), *t, *th;
	/* Judged only against a report that lists its threads. */
	const cJSON *judged =
	    cJSON_IsArray(threads) ? cJSON_GetObjectItemCaseSensitive(line, "tid") : NULL;
	const char *rec = cJSON_GetStringValue(il_json_get(run, "outputs.records"));
	char why[192], recp[512], own[600] = "";
	int k = 0;

	why[0] = '\0';
	if (!isnan(first) && !isnan(stop) && isnan(inject))
		snprintf(why, sizeof(why), "its line has no stamp_ns");
	else if (!isnan(first) && !isnan(stop) && !(inject >= first && inject <= stop))
		snprintf(why, sizeof(why),
			 "injected at %.0f ns, outside that run (%.0f to %.0f ns, CLOCK_MONOTONIC)",
			 inject, first, stop);
	cJSON_ArrayForEach (t, judged) {
		bool ours = false;

		/* tid[0] is the injector's, an inputlat thread threads[] does not list. */
		if (k++ == 0 || !cJSON_IsNumber(t) || why[0])
			continue;
		cJSON_ArrayForEach (th, threads)
			ours = ours || num(th, "tid") == t->valuedouble;
		if (!ours)
			snprintf(why, sizeof(why),
				 "its stamp %d was taken by thread %.0f, none of that run's", k - 1,
				 t->valuedouble);
	}
	if (!why[0])
		return 0;
	if (rec && rec[0] == '/')
		snprintf(own, sizeof(own), "; that run wrote its records to %s",
			 il_printable_copy(rec, recp, sizeof(recp)));
	snprintf(err, errlen, "event %llu in %s is not of the run %s reports: %s%s",
		 (unsigned long long)id, path, run_path, why, own);
	return -1;
}

/*
 * Looks event id up in a --records file (one JSON object a line, "id"
 * first; see head_is): 1 with *out (its attribution object, the caller's
 * to free), 0 when no line is that event's, -1 with err when the file
 * cannot be read as one (not a regular file, unreadable, a line longer
 * than RECORD_LINE_MAX) or the event's line has no attribution (a warm-up
 * event, a run without attribution, a line that is not JSON, an
 * attribution that is not an object).
 */
static int find_record(const char *path, uint64_t id, const cJSON *run, const char *run_path,
		       cJSON **out, char *err, size_t errlen)
{
	char why[64] = "", *line = NULL, head[64];
	size_t cap = 0, len = 0, hlen = 0, lineno = 1;
	int fd = il_file_open_input(path, false, why, sizeof(why)), c, rc = 0, k = 0;
	/* This line: 0 its head is being read, 1 it is the event's (kept), 2 not. */
	int state = 0;
	FILE *f;

	*out = NULL;
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		snprintf(err, errlen, "--records %s: %s", path,
			 why[0] ? why : strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* A character at a time: only the event's line is kept, up to the bound;
	 * the others are skipped as they are read. */
	while ((c = getc_unlocked(f)) != EOF) {
		if (c == '\n') {
			if (state == 0 && head_is(head, hlen, id)) {
				for (size_t i = 0; i < hlen && k == 0; i++)
					k = keep_char(&line, &cap, &len, head[i]);
				state = 1;
			}
			if (state == 1 || k)
				break;
			hlen = 0;
			state = 0;
			lineno++;
			continue;
		}
		if (state == 2)
			continue;
		if (state == 1) {
			if ((k = keep_char(&line, &cap, &len, c)) < 0)
				break;
			continue;
		}
		head[hlen++] = (char)c;
		if (c == ',' || c == '}' || hlen == sizeof(head) - 1) {
			state = head_is(head, hlen, id) ? 1 : 2;
			for (size_t i = 0; state == 1 && i < hlen && k == 0; i++)
				k = keep_char(&line, &cap, &len, head[i]);
			if (k < 0)
				break;
		}
	}
	/* The last line may lack its newline. */
	if (c == EOF && state == 0 && hlen && head_is(head, hlen, id)) {
		for (size_t i = 0; i < hlen && k == 0; i++)
			k = keep_char(&line, &cap, &len, head[i]);
		state = 1;
	}
	if (k == -EFBIG) {
		snprintf(err, errlen, "--records %s: line %zu is longer than %u MiB", path, lineno,
			 RECORD_LINE_MAX >> 20);
		rc = -1;
	} else if (k < 0) {
		snprintf(err, errlen, "--records %s: out of memory", path);
		rc = -1;
	} else if (ferror(f)) {
		snprintf(err, errlen, "--records %s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc == 0 && state == 1) {
		cJSON *o, *trailing = NULL;
		const char *dup;

		line[len] = '\0';
		/* Text after the value (two objects on a line) is not a record. */
		o = cJSON_ParseWithOpts(line, NULL, true);
		if (!o && (trailing = cJSON_Parse(line)) != NULL)
			cJSON_Delete(trailing);
		/* A key twice has no one meaning (as il_json_load refuses it). */
		dup = o ? il_json_duplicate_key(o) : NULL;
		*out = o && !dup ? cJSON_DetachItemFromObjectCaseSensitive(o, "attribution") : NULL;
		if (dup) {
			snprintf(err, errlen,
				 "event %llu is in %s, but its line is not JSON we can read (a key "
				 "appears twice in one object)",
				 (unsigned long long)id, path);
			rc = -1;
		} else if (o && record_of_run(o, id, path, run, run_path, err, errlen) < 0) {
			cJSON_Delete(*out);
			*out = NULL;
			rc = -1;
		} else if (!*out || !cJSON_IsObject(*out)) {
			snprintf(err, errlen, "event %llu is in %s, but %s", (unsigned long long)id,
				 path,
				 !o && trailing ? "its line is more than one JSON value"
				 : !o		? "its line is not JSON"
				 : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "warmup"))
				     ? "it is a warm-up event: warm-up events are not attributed"
				 : *out ? "its attribution is not an object"
					: "its record has no attribution");
			/* Detached, so no longer o's to free. */
			cJSON_Delete(*out);
			*out = NULL;
			rc = -1;
		} else {
			rc = 1;
		}
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return rc;
}

static void event_table(FILE *out, const cJSON *run, const cJSON *ev, const char *title)
{
	const cJSON *hops = cJSON_GetObjectItemCaseSensitive(ev, "hops"), *h, *largest = NULL;
	double tot[IL_NCOMP] = {0}, total = 0, proc = num(ev, "processing_us");
	char t1[32], t2[32], words[160];

	fmt_time(t1, sizeof(t1), proc);
	fprintf(out, "\n## event %.0f%s%s: processing %s\n", num(ev, "id"), title ? ", " : "",
		title ? title : "", t1);
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "explained"))) {
		fprintf(out, "  not explained: %s\n", str_or(ev, "why", words, sizeof(words)));
		return;
	}
	fprintf(out, "%-3s %-28s %7s", "hop", "from -> to (us)", "total");
	for (int c = 0; c < IL_NCOMP; c++)
		if (c != IL_COMP_VBLANK)
			fprintf(out, " %7s", heads[c]);
	fprintf(out, "  cpu    culprit\n");
	cJSON_ArrayForEach (h, hops) {
		int k = (int)num(h, "index");
		const struct il_hop_desc *d = il_chain_hop(k);
		const cJSON *comps = cJSON_GetObjectItemCaseSensitive(h, "components_us");
		const cJSON *cu =
		    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(h, "culprits"), 0);
		char path[64], cpu[16];
		double from = num(h, "cpu_from"), to = num(h, "cpu_to");

		if (!d)
			continue;
		snprintf(path, sizeof(path), "%s -> %s", il_chain_hop_from(d), il_chain_hop_to(d));
		if (k > IL_STAMP_PROCESSED) {
			fmt_time(t1, sizeof(t1), num(h, "total_us"));
			fmt_time(t2, sizeof(t2), num(comps, "vblank"));
			fprintf(
			    out,
			    "%3d %-28s %7.0f  (presentation, not in processing: vblank wait %s)\n",
			    k, path, num(h, "total_us"), t2);
			continue;
		}
		if (!isnan(from) && !isnan(to))
			snprintf(cpu, sizeof(cpu), "%d->%d", (int)from, (int)to);
		else if (!isnan(to))
			snprintf(cpu, sizeof(cpu), "?->%d", (int)to);
		else
			snprintf(cpu, sizeof(cpu), "?");
		fprintf(out, "%3d %-28s %7.0f", k, path, num(h, "total_us"));
		for (int c = 0; c < IL_NCOMP; c++) {
			double us = num(comps, il_attrib_comp_name(c));

			if (c == IL_COMP_VBLANK)
				continue;
			tot[c] += isnan(us) ? 0 : us;
			fprintf(out, " %7.0f", us);
		}
		total += num(h, "total_us");
		fprintf(out, "  %-6s", cpu);
		if (cu) {
			il_explain_culprit_words(run, cu, words, sizeof(words));
			fprintf(out, " %s %.0f us", words, num(cu, "us"));
		}
		fputc('\n', out);
		if (!largest || num(h, "total_us") > num(largest, "total_us"))
			largest = h;
	}
	fprintf(out, "%3s %-28s %7.0f", "", "total (hops 1-11)", total);
	for (int c = 0; c < IL_NCOMP; c++)
		if (c != IL_COMP_VBLANK)
			fprintf(out, " %7.0f", tot[c]);
	fprintf(out, "\n%3s %-28s %6.0f%%", "", "", total > 0 ? 100.0 : 0);
	for (int c = 0; c < IL_NCOMP; c++)
		if (c != IL_COMP_VBLANK)
			fprintf(out, " %6.0f%%", total > 0 ? 100 * tot[c] / total : 0);
	fputc('\n', out);
	if (largest && total > 0) {
		int k = (int)num(largest, "index");
		const cJSON *comps = cJSON_GetObjectItemCaseSensitive(largest, "components_us");
		const cJSON *cu =
		    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(largest, "culprits"), 0);
		int best = 0;

		for (int c = 1; c < IL_NCOMP; c++)
			if (num(comps, il_attrib_comp_name(c)) >
			    num(comps, il_attrib_comp_name(best)))
				best = c;
		fmt_time(t1, sizeof(t1), num(largest, "total_us"));
		fmt_time(t2, sizeof(t2), num(comps, il_attrib_comp_name(best)));
		fprintf(out, "  largest: hop %d %s, %s (%.0f%% of processing), mostly %s %s", k,
			il_chain_hop(k)->name, t1, 100 * num(largest, "total_us") / total,
			il_attrib_comp_name(best), t2);
		if (cu && (best == IL_COMP_RUNQUEUE || best == IL_COMP_PREEMPTED ||
			   best == IL_COMP_SEND)) {
			il_explain_culprit_words(run, cu, words, sizeof(words));
			fprintf(out, " behind %s", words);
			if (!isnan(num(largest, "cpu_to")) && best == IL_COMP_RUNQUEUE)
				fprintf(out, " on CPU %.0f", num(largest, "cpu_to"));
		}
		fprintf(out, "\n");
	}
}

/*
 * Every number a run writes under attribution is finite and at most 1e18
 * (nanosecond stamps of a machine up for 30 years); its counts are whole
 * and not negative; its bands and events are objects. A report that says
 * otherwise (-1e308 printed as a 300-digit count, a band that is a number)
 * was not written by a run: refused, its first such value named in where.
 */
static bool attribution_sane(const cJSON *o, int depth, char *where, size_t n)
{
	const cJSON *c;

	if (cJSON_IsNumber(o) && !(isfinite(o->valuedouble) && fabs(o->valuedouble) <= 1e18)) {
		snprintf(where, n, "%s = %g", o->string ? o->string : "a value", o->valuedouble);
		return false;
	}
	if (depth > 16) {
		snprintf(where, n, "%s nested deeper than a run writes",
			 o->string ? o->string : "a value");
		return false;
	}
	cJSON_ArrayForEach (c, o)
		if (!attribution_sane(c, depth + 1, where, n))
			return false;
	return true;
}

static bool has_suffix(const char *k, const char *suf)
{
	size_t a = strlen(k), b = strlen(suf);

	return a > b && !strcmp(k + a - b, suf);
}

/* Numbers or null all the way down (an object or list of figures). */
static bool figures_only(const cJSON *o)
{
	const cJSON *c;

	if (cJSON_IsNumber(o) || cJSON_IsNull(o))
		return true;
	if (!cJSON_IsObject(o) && !cJSON_IsArray(o))
		return false;
	cJSON_ArrayForEach (c, o)
		if (!figures_only(c))
			return false;
	return true;
}

/* A list of hops: objects, at most one per hop of the chain. */
static bool hops_once(const cJSON *hops, char *where, size_t n)
{
	bool seen[IL_NHOPS + 1] = {false};
	const cJSON *h;

	cJSON_ArrayForEach (h, hops) {
		const cJSON *i = cJSON_GetObjectItemCaseSensitive(h, "index");
		int k = cJSON_IsNumber(i) && i->valuedouble >= 1 && i->valuedouble <= IL_NHOPS
			    ? (int)i->valuedouble
			    : 0;

		if (!cJSON_IsObject(h)) {
			snprintf(where, n, "hops: an entry that is not an object");
			return false;
		}
		if (k && seen[k]) {
			snprintf(where, n, "hops: hop %d twice", k);
			return false;
		}
		seen[k] = true;
	}
	return true;
}

/*
 * The type of the value c at key k, as explain prints it: a figure (a key
 * ending _us, _ms, _ns or _pct) is a number or null, and what a hop, an
 * event or a culprit took a number (a hop total "abc" was printed as nan);
 * the groups of figures are objects or lists of them (a components_us of
 * -5 was a row of nan), components_us with all its parts; a hop's index is
 * one of the chain's hops, its CPUs CPU numbers or null.
 */
static bool value_typed(const char *k, const cJSON *c, char *where, size_t n)
{
	static const char *const taken[] = {"total_us", "processing_us", "us", "total_ms"};
	bool group = !strcmp(k, "components_us") || !strcmp(k, "residual_pct");

	if (group && !(cJSON_IsObject(c) && figures_only(c))) {
		snprintf(where, n, "%s: not an object of figures", k);
		return false;
	}
	if (!strcmp(k, "components_us"))
		for (int i = 0; i < IL_NCOMP; i++)
			if (!cJSON_IsNumber(
				cJSON_GetObjectItemCaseSensitive(c, il_attrib_comp_name(i)))) {
				snprintf(where, n, "components_us.%s: not a number",
					 il_attrib_comp_name(i));
				return false;
			}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(k, taken[i]) && !cJSON_IsNumber(c)) {
			snprintf(where, n, "%s: not a number", k);
			return false;
		}
	if (!strcmp(k, "hops_us")) {
		if (cJSON_IsArray(c) && figures_only(c))
			return true;
		snprintf(where, n, "hops_us: not a list of figures");
		return false;
	}
	/* A chain's hops, each once: hop 1 5000 times was summed. */
	if (!strcmp(k, "hops") && cJSON_IsArray(c) && !hops_once(c, where, n))
		return false;
	if (!strcmp(k, "capture_window_ns")) { /* its from, to and the clock's name */
		if (cJSON_IsObject(c))
			return true;
		snprintf(where, n, "%s: not an object", k);
		return false;
	}
	if (!group &&
	    (has_suffix(k, "_us") || has_suffix(k, "_ms") || has_suffix(k, "_ns") ||
	     has_suffix(k, "_pct")) &&
	    !cJSON_IsNumber(c) && !cJSON_IsNull(c)) {
		snprintf(where, n, "%s: not a number", k);
		return false;
	}
	if (!strcmp(k, "index") && !il_json_whole_in(c, 1, IL_NHOPS)) {
		snprintf(where, n, "index: not a hop of the chain (1..%d)", IL_NHOPS);
		return false;
	}
	if ((!strcmp(k, "cpu_from") || !strcmp(k, "cpu_to")) && !cJSON_IsNull(c) &&
	    !il_json_whole_in(c, 0, 65535)) {
		snprintf(where, n, "%s: not a CPU number", k);
		return false;
	}
	/* A culprit's nice (-20..19) or RT priority (0..99), as il_attrib
	 * writes it: 1e18 was made an int to print. */
	if (!strcmp(k, "priority") && !cJSON_IsNull(c) && !il_json_whole_in(c, -20, 99)) {
		snprintf(where, n, "priority: not a scheduling priority (-20 to 99)");
		return false;
	}
	/* A band's example event is an event's id: -5 was made a uint64_t. */
	if (!strcmp(k, "event") && !cJSON_IsNull(c) &&
	    !il_json_whole_in(c, 0, 9007199254740992.0)) {
		snprintf(where, n, "event: not an event's id");
		return false;
	}
	return true;
}

static bool attribution_types(const cJSON *o, int depth, char *where, size_t n)
{
	const cJSON *c;

	if (depth > 16)
		return true; /* attribution_sane says so */
	cJSON_ArrayForEach (c, o) {
		if (c->string && !value_typed(c->string, c, where, n))
			return false;
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) &&
		    !attribution_types(c, depth + 1, where, n))
			return false;
	}
	return true;
}

/* Every value of an attribution (a report's, or a --records line's) one a run writes. */
static bool attribution_values(const cJSON *o, char *where, size_t n)
{
	return attribution_sane(o, 0, where, n) && attribution_types(o, 0, where, n);
}

/*
 * One event's attribution as a run writes it (il_attrib_event_json): its
 * id a whole number, explained true or false (false with its why); an
 * explained one has its processing latency and hops 1..IL_STAMP_PROCESSED,
 * every total and component a duration, each hop's components adding up
 * to its total and the hops' totals to the processing latency, within the
 * 10 ns rounding of each figure. A hop of -500 us, a 16-digit runqueue
 * beside a total it no longer made, an empty table beside "processing
 * 2.04 ms" and "## event nan" were printed.
 */
static bool event_sane(const cJSON *ev, char *where, size_t n)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(ev, "id");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(ev, "explained");
	const cJSON *hops = cJSON_GetObjectItemCaseSensitive(ev, "hops"), *h;
	bool seen[IL_NHOPS + 1] = {false};
	double proc = num(ev, "processing_us"), sum = 0;
	int parts = 0;

	if (!il_json_whole_in(id, 0, 9007199254740992.0)) {
		snprintf(where, n, "id: not an event's id");
		return false;
	}
	if (!cJSON_IsBool(ex)) {
		snprintf(where, n, "event %.0f: explained: not true or false", id->valuedouble);
		return false;
	}
	if (cJSON_IsFalse(ex)) {
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(ev, "why")))
			return true;
		snprintf(where, n, "event %.0f: not explained, and no why", id->valuedouble);
		return false;
	}
	if (!(proc >= 0)) {
		snprintf(where, n, "event %.0f: processing_us = %g is not a duration (0 or more)",
			 id->valuedouble, proc);
		return false;
	}
	if (!cJSON_IsArray(hops)) {
		snprintf(where, n, "event %.0f: hops: not a list", id->valuedouble);
		return false;
	}
	cJSON_ArrayForEach (h, hops) {
		const cJSON *comps = cJSON_GetObjectItemCaseSensitive(h, "components_us");
		double total = num(h, "total_us"), csum = 0;
		int k;

		/* Made an int only once it is a hop's index: (int) of a NaN is UB. */
		if (!il_json_whole_in(cJSON_GetObjectItemCaseSensitive(h, "index"), 1, IL_NHOPS)) {
			snprintf(where, n, "event %.0f: a hop without its index", id->valuedouble);
			return false;
		}
		k = (int)num(h, "index");
		if (!(total >= 0)) {
			snprintf(where, n,
				 "event %.0f: hop %d: total_us = %g is not a duration (0 or more)",
				 id->valuedouble, k, total);
			return false;
		}
		for (int c = 0; c < IL_NCOMP; c++) {
			double us = num(comps, il_attrib_comp_name(c));

			if (!(us >= 0)) {
				snprintf(where, n,
					 "event %.0f: hop %d: components_us.%s = %g is not a "
					 "duration (0 or more)",
					 id->valuedouble, k, il_attrib_comp_name(c), us);
				return false;
			}
			csum += us;
		}
		if (fabs(csum - total) > 0.01 * (IL_NCOMP + 1)) {
			snprintf(where, n,
				 "event %.0f: hop %d: components_us add up to %.2f, not its "
				 "total_us %.2f",
				 id->valuedouble, k, csum, total);
			return false;
		}
		seen[k] = true;
		if (k <= IL_STAMP_PROCESSED) {
			sum += total;
			parts++;
		}
	}
	for (int k = 1; k <= IL_STAMP_PROCESSED; k++)
		if (!seen[k]) {
			snprintf(where, n, "event %.0f: hops: no hop %d", id->valuedouble, k);
			return false;
		}
	if (fabs(sum - proc) > 0.01 * (parts + 1)) {
		snprintf(where, n,
			 "event %.0f: hops 1-%d add up to %.2f us, not its processing_us %.2f",
			 id->valuedouble, IL_STAMP_PROCESSED, sum, proc);
		return false;
	}
	return true;
}

/*
 * The latency bands as a run writes them (il_attrib.c bands_report): in
 * rising order, none overlapping the one before; each holds a whole
 * number of events, at least one (empty bands are left out), and its
 * mean lies in its range (band 0, from 0 to 1 us, included: it was
 * written as 0 to 0 us and went unjudged; the last band's top says
 * nothing, as the last band a run keeps holds everything above it); its
 * components add up to its mean; and the bands hold every explained
 * event, each once. explain picks a percentile's band by these counts
 * and prints its mean as that percentile's time: a band of -3 events,
 * or one whose mean lies outside its range, was printed as the p99.
 */
static bool bands_sane(const cJSON *attr, char *where, size_t n)
{
	const cJSON *bands = cJSON_GetObjectItemCaseSensitive(attr, "bands"), *b;
	const cJSON *explained = cJSON_GetObjectItemCaseSensitive(attr, "events_explained");
	const double r = 0.01; /* the report's rounding of a time, us */
	double prev_hi = 0, held = 0;
	int i = 0;

	cJSON_ArrayForEach (b, bands) {
		const cJSON *comps = cJSON_GetObjectItemCaseSensitive(b, "components_us");
		double lo = num(b, "lo_us"), hi = num(b, "hi_us"), mean = num(b, "mean_us");
		double csum = 0;

		if (!il_json_whole_in(cJSON_GetObjectItemCaseSensitive(b, "count"), 1,
				      9007199254740992.0)) {
			snprintf(where, n, "bands[%d].count: not a count of events (1 or more)", i);
			return false;
		}
		if (!(lo >= 0 && hi >= lo)) {
			snprintf(where, n, "bands[%d]: lo_us %g to hi_us %g is not a range", i, lo,
				 hi);
			return false;
		}
		if (lo < prev_hi - r) {
			snprintf(where, n,
				 "bands[%d]: from %g us, below the band before (to %g us)", i, lo,
				 prev_hi);
			return false;
		}
		if (!(mean >= lo - r) || ((lo == 0 || b->next) && mean > hi + r)) {
			snprintf(where, n, "bands[%d]: mean_us %g outside its range %g to %g us", i,
				 mean, lo, hi);
			return false;
		}
		if (comps) {
			for (int c = 0; c < IL_NCOMP; c++)
				csum += num(comps, il_attrib_comp_name(c));
			if (!(fabs(csum - mean) <= r * (IL_NCOMP + 1))) {
				snprintf(where, n,
					 "bands[%d]: components_us add up to %.2f, not its mean_us "
					 "%.2f",
					 i, csum, mean);
				return false;
			}
		}
		held += num(b, "count");
		prev_hi = hi;
		i++;
	}
	if (cJSON_IsNumber(explained) && held != explained->valuedouble) {
		snprintf(where, n, "bands hold %.0f events, events_explained says %.0f", held,
			 explained->valuedouble);
		return false;
	}
	return true;
}

static bool attribution_shape(const cJSON *attr, char *where, size_t n)
{
	static const char *const counts[] = {"events_explained", "events_unexplained"};
	static const char *const lists[] = {"bands", "events"};
	const cJSON *e;

	for (size_t i = 0; i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(attr, counts[i]);

		if (v && !(cJSON_IsNumber(v) && v->valuedouble >= 0 &&
			   v->valuedouble <= 9007199254740992.0 &&
			   v->valuedouble == floor(v->valuedouble))) {
			snprintf(where, n, "%s: not a count of events", counts[i]);
			return false;
		}
		v = cJSON_GetObjectItemCaseSensitive(attr, lists[i]);
		if (v && !cJSON_IsArray(v)) {
			snprintf(where, n, "%s: not a list", lists[i]);
			return false;
		}
		/* --worst K ranks them K times over. */
		if (i == 1 && cJSON_GetArraySize(v) > IL_ATTRIB_MAX_STORED) {
			snprintf(where, n, "events: %d kept, more than the %d a run keeps",
				 cJSON_GetArraySize(v), IL_ATTRIB_MAX_STORED);
			return false;
		}
		cJSON_ArrayForEach (e, v)
			if (!cJSON_IsObject(e)) {
				snprintf(where, n, "%s: an entry that is not an object", lists[i]);
				return false;
			}
	}
	if (!attribution_values(attr, where, n) || !bands_sane(attr, where, n))
		return false;
	/* The events kept are printed as a --records line's are. */
	cJSON_ArrayForEach (e, cJSON_GetObjectItemCaseSensitive(attr, "events"))
		if (!event_sane(e, where, n))
			return false;
	return true;
}

static const cJSON *attribution_of(const cJSON *run, const char *path, char *err, size_t errlen)
{
	const cJSON *attr = cJSON_GetObjectItemCaseSensitive(run, "attribution");
	char where[160];

	if (!attr) {
		snprintf(err, errlen, "%s has no attribution (made by an inputlat without it?)",
			 path);
		return NULL;
	}
	if (!cJSON_IsObject(attr)) {
		snprintf(err, errlen, "%s: its attribution is not an object (not a run's report?)",
			 path);
		return NULL;
	}
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(attr, "available"))) {
		const char *why =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(attr, "why"));

		snprintf(err, errlen, "%s: attribution was not available in that run: %s", path,
			 why && why[0] ? why : "the report gives no reason");
		return NULL;
	}
	if (!attribution_shape(attr, where, sizeof(where))) {
		snprintf(err, errlen, "%s: attribution: %s: not a report a run wrote", path, where);
		return NULL;
	}
	/* Nothing explained: no table, no percentile, no "residual 0%" to
	 * print. A run that failed says why it measured nothing. */
	if (!(num(attr, "events_explained") > 0)) {
		const char *e =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "error"));

		if (e)
			snprintf(err, errlen, "%s: that run failed (%s): nothing to explain", path,
				 e);
		else
			snprintf(err, errlen,
				 "%s: no event of that run was explained (%.0f completed): nothing "
				 "to explain",
				 path, num(run, "events.completed"));
		return NULL;
	}
	return attr;
}

/* A count or "?" when the report lacks it. */
static const char *count(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

/*
 * What the reader must know of the run before its figures: it failed, or
 * was interrupted, and its events are those before the cut. Into buf
 * (one line, the report's strings printable); false when there is none.
 * The text's header says it as a # line, --json in "warnings".
 */
static bool run_caveat(const cJSON *run, char *buf, size_t n)
{
	char s1[320], c1[24];

	if (cJSON_GetStringValue(il_json_get(run, "error")))
		snprintf(buf, n, "that run failed (%.300s) after %s completed events",
			 str_or(run, "error", s1, sizeof(s1)),
			 count(c1, sizeof(c1), num(run, "events.completed")));
	else if (cJSON_IsTrue(il_json_get(run, "interrupted")))
		snprintf(buf, n, "that run was interrupted (a signal) after %s completed events",
			 count(c1, sizeof(c1), num(run, "events.completed")));
	else
		return false;
	return true;
}

static void header(FILE *out, const cJSON *run, const cJSON *attr, const char *path)
{
	char t1[32], c1[24], c2[24], c3[24], c4[24], s1[320], s2[64], s3[128], s4[32], cav[400];
	double explained = num(attr, "events_explained"), un = num(attr, "events_unexplained");

	fprintf(out, "# inputlat explain: %s\n", path);
	/* What a handler's work was (--work-model); a report from before the
	 * field ran the loops model, the only one then. */
	fprintf(
	    out, "# policy %s, %s events, hog %s %s, load %s, work %s; kernel %s, %s CPUs\n",
	    str_or(run, "policy", s1, sizeof(s1)), count(c1, sizeof(c1), num(run, "events.sent")),
	    count(c2, sizeof(c2), num(run, "scenario.hog_threads")),
	    str_or(run, "scenario.hog_mode", s2, sizeof(s2)),
	    count(c3, sizeof(c3), num(run, "scenario.load_threads")),
	    il_json_get(run, "work_model") ? str_or(run, "work_model", s4, sizeof(s4)) : "loops",
	    str_or(run, "kernel.release", s3, sizeof(s3)),
	    count(c4, sizeof(c4), num(run, "kernel.nr_cpus")));
	/* A run cut short says so: its events are those before the cut. */
	if (run_caveat(run, cav, sizeof(cav)))
		fprintf(out, "# %s\n", cav);
	fprintf(out, "# %s of %s events explained", count(c1, sizeof(c1), explained),
		count(c2, sizeof(c2), explained + un));
	if (!isnan(num(attr, "residual_pct.p50")))
		fprintf(out, "; residual p50 %.2f%%, p95 %.2f%% of processing latency",
			num(attr, "residual_pct.p50"), num(attr, "residual_pct.p95"));
	if (!isnan(num(attr, "steal.ms"))) {
		fmt_time(t1, sizeof(t1), num(attr, "steal.ms") * 1000);
		fprintf(out, "; steal %s (%.2f%%)", t1, num(attr, "steal.pct"));
	} else if (cJSON_IsString(il_json_get(attr, "steal.why"))) {
		fprintf(out, "; steal %s", str_or(attr, "steal.why", s1, sizeof(s1)));
	}
	fputc('\n', out);
}

int il_explain_run(const cJSON *run, const char *path, const struct il_explain_opts *o, FILE *out,
		   char *err, size_t errlen)
{
	const cJSON *attr = attribution_of(run, path, err, errlen), *ev = NULL;
	cJSON *jout = NULL, *jp = NULL, *je = NULL, *owned = NULL;
	double ps[2] = {50, 99};
	char where[160];
	int np = 2, rc = 0;

	if (!attr)
		return 2;
	if (o->percentile > 0) {
		ps[0] = o->percentile;
		np = 1;
	}
	if (o->event) {
		ev = find_stored(attr, o->event);
		if (!ev && o->records &&
		    find_record(o->records, o->event, run, path, &owned, err, errlen) < 0)
			return 2;
		if (owned && (!attribution_values(owned, where, sizeof(where)) ||
			      !event_sane(owned, where, sizeof(where)))) {
			snprintf(err, errlen,
				 "event %llu in %s: attribution: %s: not a record a run wrote",
				 (unsigned long long)o->event, o->records, where);
			cJSON_Delete(owned);
			return 2;
		}
		/* Its line's id was asked for; an attribution of another event is
		 * not this one's. */
		if (owned && num(owned, "id") != (double)o->event) {
			snprintf(err, errlen,
				 "event %llu in %s: attribution: id %.0f is another event's: not a "
				 "record a run wrote",
				 (unsigned long long)o->event, o->records, num(owned, "id"));
			cJSON_Delete(owned);
			return 2;
		}
		if (!ev)
			ev = owned;
		if (!ev) {
			int kept =
			    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(attr, "events"));
			const char *rec = cJSON_GetStringValue(il_json_get(run, "outputs.records"));
			char recp[512];

			/* A saved report's text: one line, whatever it holds. */
			if (rec)
				rec = il_printable_copy(rec, recp, sizeof(recp));

			if (o->records)
				snprintf(err, errlen,
					 "event %llu is not among the %d events %s keeps nor in %s",
					 (unsigned long long)o->event, kept, path, o->records);
			else if (rec && rec[0] == '/')
				/* Its run kept every event: say where. */
				snprintf(err, errlen,
					 "event %llu is not among the %d events %s keeps; its run "
					 "wrote every event to %s: add --records %s",
					 (unsigned long long)o->event, kept, path, rec, rec);
			else
				snprintf(err, errlen,
					 "event %llu is not among the %d events %s keeps (run with "
					 "--records FILE to explain any event)",
					 (unsigned long long)o->event, kept, path);
			return 2;
		}
	}
	if (o->json) {
		/* What the text's header warns of, for a reader of the file: it
		 * read figures of a failed run as a whole run's. */
		cJSON *warnings;
		char w[400];

		jout = cJSON_CreateObject();
		cJSON_AddStringToObject(jout, "file", path);
		warnings = cJSON_AddArrayToObject(jout, "warnings");
		if (run_caveat(run, w, sizeof(w)))
			cJSON_AddItemToArray(warnings, cJSON_CreateString(w));
		jp = cJSON_AddArrayToObject(jout, "percentiles");
		je = cJSON_AddArrayToObject(jout, "events");
	} else {
		header(out, run, attr, path);
		fprintf(out, "\n## where the processing latency went (mean of the events around "
			     "each percentile)\n");
	}
	for (int i = 0; i < np; i++) {
		const cJSON *b = band_at(attr, ps[i]);

		if (!b)
			continue;
		if (jout) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddNumberToObject(x, "p", ps[i]);
			cJSON_AddNumberToObject(x, "latency_us", run_percentile(run, ps[i]));
			cJSON_AddItemToObject(x, "band", cJSON_Duplicate(b, 1));
			cJSON_AddItemToArray(jp, x);
		} else {
			band_line(out, run, b, ps[i]);
		}
	}
	if (o->event) {
		if (jout)
			cJSON_AddItemToArray(je, cJSON_Duplicate(ev, 1));
		else
			event_table(out, run, ev, NULL);
	} else if (o->worst) {
		/* The worst stored events, by processing latency. */
		const cJSON *events = cJSON_GetObjectItemCaseSensitive(attr, "events"), *e;
		int n = cJSON_GetArraySize(events), k = 0;
		/* The list once into an array: cJSON_GetArrayItem walks it
		 * from the start each time. */
		const cJSON **evs = calloc((size_t)n + 1, sizeof(*evs));
		bool *used = calloc((size_t)n + 1, 1);

		cJSON_ArrayForEach (e, events)
			if (evs && k < n)
				evs[k++] = e;
		for (unsigned w = 0; evs && used && w < o->worst && w < (unsigned)k; w++) {
			int best = -1;

			for (int i = 0; i < k; i++)
				if (!used[i] && (best < 0 || num(evs[i], "processing_us") >
								 num(evs[best], "processing_us")))
					best = i;
			if (best < 0)
				break;
			used[best] = true;
			if (jout)
				cJSON_AddItemToArray(je, cJSON_Duplicate(evs[best], 1));
			else
				event_table(out, run, evs[best], w == 0 ? "the worst" : NULL);
		}
		free(used);
		free(evs);
	} else {
		/* The example event of the last percentile's band. */
		const cJSON *b = band_at(attr, ps[np - 1]);
		char title[64];

		const cJSON *id = b ? cJSON_GetObjectItemCaseSensitive(b, "event") : NULL;

		/* A band without its example event (attribution_types checked a
		 * present one) has none to show. */
		ev = il_json_whole_in(id, 0, 9007199254740992.0)
			 ? find_stored(attr, (uint64_t)id->valuedouble)
			 : NULL;
		snprintf(title, sizeof(title), "an event of the p%g band", ps[np - 1]);
		if (ev) {
			if (jout)
				cJSON_AddItemToArray(je, cJSON_Duplicate(ev, 1));
			else
				event_table(out, run, ev, title);
		}
	}
	if (jout) {
		/* Names came from a report, but a hand-edited one need not be UTF-8. */
		char *text = il_json_sanitize(jout) == 0 ? cJSON_Print(jout) : NULL;

		if (text) {
			fprintf(out, "%s\n", text);
			free(text);
		} else {
			rc = 1;
		}
		cJSON_Delete(jout);
	}
	cJSON_Delete(owned);
	return rc;
}

int il_explain_compare(const cJSON *a, const char *path_a, const cJSON *b, const char *path_b,
		       const struct il_explain_opts *o, FILE *out, char *err, size_t errlen)
{
	const cJSON *aa = attribution_of(a, path_a, err, errlen), *ab, *ba, *bb;
	const char *pa, *pb;
	double p = o->percentile > 0 ? o->percentile : 50, la, lb;
	struct comp_val d[IL_NCOMP];
	char t1[32], t2[32], t3[32], pbuf[2][128];
	int n = 0;

	if (!aa)
		return 2;
	ab = attribution_of(b, path_b, err, errlen);
	if (!ab)
		return 2;
	ba = band_at(aa, p);
	bb = band_at(ab, p);
	if (!ba || !bb) {
		snprintf(err, errlen, "%s has no explained events", ba ? path_b : path_a);
		return 2;
	}
	pa = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "policy"))
		 ? str_or(a, "policy", pbuf[0], sizeof(pbuf[0]))
		 : NULL;
	pb = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "policy"))
		 ? str_or(b, "policy", pbuf[1], sizeof(pbuf[1]))
		 : NULL;
	if (!pa || !pb || !strcmp(pa, pb)) {
		pa = path_a;
		pb = path_b;
	}
	la = run_percentile(a, p);
	lb = run_percentile(b, p);
	if (isnan(la))
		la = num(ba, "mean_us");
	if (isnan(lb))
		lb = num(bb, "mean_us");
	fprintf(out, "# inputlat explain: %s (B) against %s (A), at p%g\n", path_b, path_a, p);
	fmt_time(t1, sizeof(t1), la);
	fmt_time(t2, sizeof(t2), lb);
	fmt_time(t3, sizeof(t3), lb - la);
	fprintf(out, "processing p%g: %s %s, %s %s (%s%s, x%.2f)\n", p, pa, t1, pb, t2,
		lb >= la ? "+" : "", t3, la > 0 ? lb / la : NAN);
	fprintf(out, "%-10s %12s %12s %12s  %s\n", "component", pa, pb, "change",
		"hop where it changed most");
	for (int c = 0; c < IL_NCOMP; c++) {
		const char *name = il_attrib_comp_name(c);

		if (c == IL_COMP_VBLANK)
			continue;
		d[n++] = (struct comp_val){
		    c, num(cJSON_GetObjectItemCaseSensitive(bb, "components_us"), name) -
			   num(cJSON_GetObjectItemCaseSensitive(ba, "components_us"), name)};
	}
	/* Largest change (either way) first. */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (fabs(d[j].us) > fabs(d[i].us)) {
				struct comp_val t = d[i];

				d[i] = d[j];
				d[j] = t;
			}
	for (int i = 0; i < n; i++) {
		const char *name = il_attrib_comp_name(d[i].c);
		const cJSON *ha = cJSON_GetObjectItemCaseSensitive(ba, "hops_us");
		const cJSON *hb = cJSON_GetObjectItemCaseSensitive(bb, "hops_us");
		int best = -1;
		double bestd = 0;

		for (int k = 0; k < cJSON_GetArraySize(hb) && k < cJSON_GetArraySize(ha); k++) {
			double x = cJSON_GetNumberValue(
				       cJSON_GetArrayItem(cJSON_GetArrayItem(hb, k), d[i].c)) -
				   cJSON_GetNumberValue(
				       cJSON_GetArrayItem(cJSON_GetArrayItem(ha, k), d[i].c));

			if (fabs(x) > fabs(bestd)) {
				bestd = x;
				best = k + 1;
			}
		}
		fmt_time(t1, sizeof(t1),
			 num(cJSON_GetObjectItemCaseSensitive(ba, "components_us"), name));
		fmt_time(t2, sizeof(t2),
			 num(cJSON_GetObjectItemCaseSensitive(bb, "components_us"), name));
		{
			char t4[40];

			fmt_time(t3, sizeof(t3), d[i].us);
			snprintf(t4, sizeof(t4), "%s%s", d[i].us >= 0 ? "+" : "", t3);
			fprintf(out, "%-10s %12s %12s %12s", name, t1, t2, t4);
		}
		if (best > 0 && fabs(bestd) >= 1) {
			fmt_time(t1, sizeof(t1), bestd);
			fprintf(out, "  hop %d %s (%s%s)", best, il_chain_hop(best)->name,
				bestd >= 0 ? "+" : "", t1);
		}
		fputc('\n', out);
	}
	{
		/* Where a wake-up lands says much of the wake path's cost: one
		 * to another CPU is an IPI (about 40 us in this project's VM,
		 * 2-8 us on the same CPU). */
		double xa = num(aa, "check.cross_cpu_pct"), xb = num(ab, "check.cross_cpu_pct");

		if (isnan(xa) || isnan(xb) || xa < 0 || xa > 100 || xb < 0 || xb > 100)
			fprintf(out,
				"cross-CPU hops: unreadable: %s has no attribution.check."
				"cross_cpu_pct\n",
				isnan(xa) || xa < 0 || xa > 100 ? path_a : path_b);
		else
			fprintf(
			    out,
			    "cross-CPU hops (receiver on another CPU than its sender): %s %.0f%%, "
			    "%s %.0f%%\n",
			    pa, xa, pb, xb);
	}
	fmt_time(t1, sizeof(t1), fabs(lb - la));
	fmt_time(t2, sizeof(t2), fabs(d[0].us));
	fprintf(out, "=> %s is %s %s at p%g; %s %s most (%s%s)\n", pb,
		lb >= la ? "slower by" : "faster by", t1, p, il_attrib_comp_name(d[0].c),
		d[0].us >= 0 ? "grew" : "shrank", d[0].us >= 0 ? "+" : "-", t2);
	return 0;
}
