#include "il_msg_fifo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned pow2_at_least(unsigned n)
{
	unsigned c = 1;

	while (c < n && c < (1u << 31))
		c <<= 1;
	return c;
}

int il_msg_fifo_init(struct il_msg_fifo *f, unsigned cap, unsigned max_cap)
{
	memset(f, 0, sizeof(*f));
	f->cap = pow2_at_least(cap ? cap : 1);
	f->max_cap = pow2_at_least(max_cap);
	if (f->max_cap < f->cap)
		f->max_cap = f->cap;
	f->ring = calloc(f->cap, sizeof(*f->ring));
	return f->ring ? 0 : -ENOMEM;
}

unsigned il_msg_fifo_wants(const struct il_msg_fifo *f)
{
	if (il_msg_fifo_depth(f) < f->cap || f->cap >= f->max_cap)
		return 0;
	return f->cap * 2;
}

struct il_msg *il_msg_fifo_grow_into(struct il_msg_fifo *f, struct il_msg *ring, unsigned cap)
{
	struct il_msg *old = f->ring;

	/* Grown by someone else meanwhile, or not a power of two: not ours to take. */
	if (cap <= f->cap || cap > f->max_cap || (cap & (cap - 1)))
		return ring;
	/* The free-running indices keep their meaning with the new mask. */
	for (uint32_t i = f->tail; i != f->head; i++)
		ring[i & (cap - 1)] = old[i & (f->cap - 1)];
	f->ring = ring;
	f->cap = cap;
	return old;
}

int il_msg_fifo_push(struct il_msg_fifo *f, const struct il_msg *m)
{
	unsigned want = il_msg_fifo_wants(f);

	if (want) {
		struct il_msg *ring = malloc((size_t)want * sizeof(*ring));

		if (ring)
			free(il_msg_fifo_grow_into(f, ring, want));
	}
	if (il_msg_fifo_depth(f) >= f->cap) {
		f->dropped++;
		return -ENOBUFS;
	}
	f->ring[f->head++ & (f->cap - 1)] = *m;
	if (il_msg_fifo_depth(f) > f->max_depth)
		f->max_depth = il_msg_fifo_depth(f);
	return 0;
}

bool il_msg_fifo_pop(struct il_msg_fifo *f, struct il_msg *out)
{
	if (f->tail == f->head)
		return false;
	*out = f->ring[f->tail++ & (f->cap - 1)];
	return true;
}

void il_msg_fifo_stats_json(const struct il_msg_fifo *f, const char *name, cJSON *to)
{
	cJSON *o = cJSON_AddObjectToObject(to, name);

	cJSON_AddNumberToObject(o, "capacity", (double)f->cap);
	cJSON_AddNumberToObject(o, "max_depth", (double)f->max_depth);
	cJSON_AddNumberToObject(o, "dropped", (double)f->dropped);
}

void il_msg_fifo_free(struct il_msg_fifo *f)
{
	free(f->ring);
	f->ring = NULL;
}
