/* The capture in a build without clang/bpftool: it says so (see il_capture.h). */
#include "il_capture.h"

#include <errno.h>
#include <stdio.h>

int il_capture_built(void)
{
	return 0;
}

int il_capture_new(il_capture_event_cb cb, void *ctx, struct il_capture **out, char *why,
		   size_t whylen)
{
	snprintf(why, whylen, "built without BPF tools");
	return -ENOTSUP;
}

int il_capture_track(struct il_capture *c, int tid)
{
	return -ENOTSUP;
}

int il_capture_drain(struct il_capture *c)
{
	return 0;
}

uint64_t il_capture_done_to(struct il_capture *c)
{
	return 0;
}

uint64_t il_capture_drops(struct il_capture *c)
{
	return 0;
}

uint32_t il_capture_ring_slots(const struct il_capture *c)
{
	return 0;
}

void il_capture_stop(struct il_capture *c)
{
}

size_t il_capture_progs(struct il_capture *c, struct il_capture_prog *out, size_t n)
{
	return 0;
}

void il_capture_free(struct il_capture *c)
{
}
