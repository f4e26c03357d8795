#include "il_run_stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "il_report_sane.h"

/* What a run keeps, its readers take (il_report_sane refuses more). */
_Static_assert(IL_RUN_STATS_MAX_SAMPLES <= IL_REPORT_MAX_SAMPLES,
	       "a run keeps no more samples than a report may hold");

int il_run_stats_new(uint64_t hist_max_us, struct il_run_stats **out)
{
	struct il_run_stats *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (il_hist_new(&s->processing) < 0 || il_hist_new(&s->presentation) < 0)
		goto fail;
	for (int k = 1; k <= IL_NHOPS; k++)
		if (il_hist_new(&s->hop[k]) < 0 || il_hist_new(&s->hop_work[k]) < 0 ||
		    il_hist_new(&s->hop_queue[k]) < 0 || il_hist_new(&s->hop_same_cpu[k]) < 0 ||
		    il_hist_new(&s->hop_cross_cpu[k]) < 0)
			goto fail;
	for (int t = 0; t < IL_T_COUNT; t++)
		if (il_hist_new(&s->work[t]) < 0)
			goto fail;
	if (hist_max_us) {
		/* Pages are touched only where latencies fall: a wide --hist-max-us
		 * costs address space, not memory. */
		s->hist_count = calloc(2 * hist_max_us, sizeof(*s->hist_count));
		if (!s->hist_count)
			goto fail;
		s->hist_max_us = hist_max_us;
	}
	/* Fixed seed: the same events give the same sample. */
	s->rng = 0x696e7075746c6174ull;
	*out = s;
	return 0;
fail:
	il_run_stats_free(s);
	return -ENOMEM;
}

void il_run_stats_free(struct il_run_stats *s)
{
	if (!s)
		return;
	il_hist_free(s->processing);
	il_hist_free(s->presentation);
	for (int k = 0; k < IL_NSTAMPS; k++) {
		il_hist_free(s->hop[k]);
		il_hist_free(s->hop_work[k]);
		il_hist_free(s->hop_queue[k]);
		il_hist_free(s->hop_same_cpu[k]);
		il_hist_free(s->hop_cross_cpu[k]);
	}
	for (int t = 0; t < IL_T_COUNT; t++)
		il_hist_free(s->work[t]);
	free(s->hist_count);
	free(s->hist_over_id[0]);
	free(s->hist_over_id[1]);
	free(s->sample_id);
	free(s->sample_processing_ns);
	free(s->sample_presentation_ns);
	free(s);
}

static uint64_t rng_next(struct il_run_stats *s)
{
	/* splitmix64 */
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Grows the sample arrays by doubling up to the maximum; 0 or -ENOMEM. */
static int samples_grow(struct il_run_stats *s)
{
	size_t ncap = s->samples_cap ? 2 * s->samples_cap : 1024;
	uint64_t *a, *b, *c;

	if (ncap > IL_RUN_STATS_MAX_SAMPLES)
		ncap = IL_RUN_STATS_MAX_SAMPLES;
	a = realloc(s->sample_id, ncap * sizeof(*a));
	if (a)
		s->sample_id = a;
	b = realloc(s->sample_processing_ns, ncap * sizeof(*b));
	if (b)
		s->sample_processing_ns = b;
	c = realloc(s->sample_presentation_ns, ncap * sizeof(*c));
	if (c)
		s->sample_presentation_ns = c;
	if (!a || !b || !c)
		return -ENOMEM;
	s->samples_cap = ncap;
	return 0;
}

static void sample_add(struct il_run_stats *s, uint64_t id, uint64_t proc_ns, uint64_t pres_ns)
{
	size_t at;

	s->samples_seen++;
	if (s->nsamples < IL_RUN_STATS_MAX_SAMPLES) {
		if (s->nsamples == s->samples_cap && samples_grow(s) < 0)
			return;
		at = s->nsamples++;
	} else {
		/* Algorithm R: the i-th event replaces a kept one with probability max/i. */
		uint64_t j = rng_next(s) % s->samples_seen;

		if (j >= IL_RUN_STATS_MAX_SAMPLES)
			return;
		at = (size_t)j;
	}
	s->sample_id[at] = id;
	s->sample_processing_ns[at] = proc_ns;
	s->sample_presentation_ns[at] = pres_ns;
}

/* cyclictest keeps the cycle numbers of up to --histogram overflows: so do we, ids. */
static void hist_overflow(struct il_run_stats *s, int c, uint64_t id)
{
	s->hist_over[c]++;
	if (s->hist_over_listed[c] >= s->hist_max_us)
		return;
	if (s->hist_over_listed[c] == s->hist_over_cap[c]) {
		size_t ncap = s->hist_over_cap[c] ? 2 * s->hist_over_cap[c] : 64;
		uint64_t *n = realloc(s->hist_over_id[c], ncap * sizeof(*n));

		if (!n)
			return;
		s->hist_over_id[c] = n;
		s->hist_over_cap[c] = ncap;
	}
	s->hist_over_id[c][s->hist_over_listed[c]++] = id;
}

void il_run_stats_add(struct il_run_stats *s, const struct il_event *ev)
{
	const struct il_msg *m = ev->msg;
	uint64_t proc, pres, inj = m->stamp_ns[IL_STAMP_INJECT];

	if (!ev->warmup && inj) {
		/* Events end out of order: the span is the first and last start. */
		if (!s->injected || inj < s->inject_first_ns)
			s->inject_first_ns = inj;
		if (inj > s->inject_last_ns)
			s->inject_last_ns = inj;
		s->injected++;
	}
	if (ev->state != IL_EV_COMPLETED || ev->warmup)
		return;
	for (int k = 1; k <= IL_NHOPS; k++)
		if (m->stamp_ns[k] < m->stamp_ns[k - 1]) {
			s->out_of_order++;
			s->out_of_order_hop[k]++;
			return;
		}
	proc = m->stamp_ns[IL_STAMP_PROCESSED] - m->stamp_ns[IL_STAMP_INJECT];
	pres = m->stamp_ns[IL_STAMP_PRESENTED] - m->stamp_ns[IL_STAMP_INJECT];
	il_hist_add(s->processing, proc);
	il_hist_add(s->presentation, pres);
	for (int k = 1; k <= IL_NHOPS; k++) {
		uint32_t a = m->cpu[k - 1], b = m->cpu[k];
		uint64_t d = m->stamp_ns[k] - m->stamp_ns[k - 1], work = 0, queue = 0;
		int t = il_chain_hop(k)->to;

		il_hist_add(s->hop[k], d);
		/* In order (checked above): the split exists. */
		il_msg_hop_split(m, k, &work, &queue);
		il_hist_add(s->hop_work[k], work);
		il_hist_add(s->hop_queue[k], queue);
		/* Threads without work measure none (il_hop_end): nothing to add. */
		if (t >= 0 && t < IL_T_COUNT && m->work_cpu_ns[k])
			il_hist_add(s->work[t], m->work_cpu_ns[k]);
		if (a == UINT32_MAX || b == UINT32_MAX) {
			s->cpu_unknown[k]++;
		} else if (a == b) {
			s->same_cpu[k]++;
			il_hist_add(s->hop_same_cpu[k], d);
		} else {
			s->cross_cpu[k]++;
			il_hist_add(s->hop_cross_cpu[k], d);
		}
	}
	if (s->hist_count) {
		uint64_t v[2] = {proc / 1000, pres / 1000};

		for (int c = 0; c < 2; c++) {
			if (v[c] < s->hist_max_us) {
				s->hist_count[2 * v[c] + (uint64_t)c]++;
				s->hist_total[c]++;
			} else {
				hist_overflow(s, c, ev->id);
			}
		}
	}
	sample_add(s, ev->id, proc, pres);
}

/* Sorts the three parallel arrays by id (heap sort: no extra memory). */
static void swap_at(struct il_run_stats *s, size_t i, size_t j)
{
	uint64_t t;

	t = s->sample_id[i], s->sample_id[i] = s->sample_id[j], s->sample_id[j] = t;
	t = s->sample_processing_ns[i], s->sample_processing_ns[i] = s->sample_processing_ns[j],
	s->sample_processing_ns[j] = t;
	t = s->sample_presentation_ns[i],
	s->sample_presentation_ns[i] = s->sample_presentation_ns[j],
	s->sample_presentation_ns[j] = t;
}

static void sift_down(struct il_run_stats *s, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && s->sample_id[c + 1] > s->sample_id[c])
			c++;
		if (s->sample_id[root] >= s->sample_id[c])
			return;
		swap_at(s, root, c);
		root = c;
	}
}

void il_run_stats_samples_sort(struct il_run_stats *s)
{
	size_t n = s->nsamples;
	bool sorted = true;

	/* Until the reservoir is full, events arrive in id order already. */
	for (size_t i = 1; i < n && sorted; i++)
		sorted = s->sample_id[i - 1] < s->sample_id[i];
	if (sorted)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(s, i, n);
	for (size_t end = n; end-- > 1;) {
		swap_at(s, 0, end);
		sift_down(s, 0, end);
	}
}

static int stats_event(void *ctx, const struct il_event *ev)
{
	il_run_stats_add(ctx, ev);
	return 0;
}

static int stats_finish(void *ctx, const struct il_result *r)
{
	il_run_stats_samples_sort(ctx);
	return 0;
}

struct il_event_sink il_run_stats_sink(struct il_run_stats *s)
{
	return (struct il_event_sink){
	    .name = "statistics",
	    .ctx = s,
	    .event = stats_event,
	    .finish = stats_finish,
	};
}
