/*
 * Fuzz target: the round trip of an evemu recording. What il_evemu_parse
 * accepts, il_evemu_write writes back, and parsing that again gives the
 * same device (name, bus, vendor, product, version) and the same events
 * in the same order; writing the second parse gives the same bytes as
 * the first write (the written form is a fixed point). A recording that
 * does not survive its own round trip would replay other clicks than the
 * ones recorded once a tool rewrote it.
 *
 * The input is the file's contents, written to a file in a directory of
 * this process's own (il_evemu_write creates with O_NOFOLLOW, which a
 * memfd's /proc/self/fd path is not), removed when the fuzzer exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "il_fuzz.h"
#include "il_input_backend.h"

static char dir[64], in_path[96], out1_path[96], out2_path[96];

static void remove_files(void)
{
	unlink(in_path);
	unlink(out1_path);
	unlink(out2_path);
	rmdir(dir);
}

static int setup(void)
{
	static int done;

	if (done)
		return done > 0 ? 0 : -1;
	done = -1;
	snprintf(dir, sizeof(dir), "/tmp/il-fuzz-evemu-round.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(in_path, sizeof(in_path), "%s/in", dir);
	snprintf(out1_path, sizeof(out1_path), "%s/out1", dir);
	snprintf(out2_path, sizeof(out2_path), "%s/out2", dir);
	atexit(remove_files);
	done = 1;
	return 0;
}

static int put(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = fd >= 0 && (size == 0 || write(fd, data, size) == (ssize_t)size) ? 0 : -1;

	if (fd >= 0)
		close(fd);
	return rc;
}

/* A file's bytes (at most 1 MiB: a written recording of the input's
 * events), NUL-terminated in a static buffer; *len its length. */
static char *slurp(const char *path, size_t *len, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*len = 0;
	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf + *len, cap - 1 - *len)) > 0)
		*len += (size_t)n;
	close(fd);
	buf[*len] = '\0';
	return n < 0 ? NULL : buf;
}

int il_fuzz_evemu_round(const uint8_t *data, size_t size)
{
	static char text1[1 << 20], text2[1 << 20];
	struct il_evemu *a = NULL, *b = NULL, *c = NULL;
	char err[512];
	size_t len1, len2;
	int ret = -1;

	if (size > IL_FUZZ_MAX_INPUT)
		size = IL_FUZZ_MAX_INPUT;
	if (setup() < 0 || put(in_path, data, size) < 0)
		return 0;
	if (il_evemu_parse(in_path, &a, err, sizeof(err)) < 0)
		return 0;
	if (il_evemu_write(a, out1_path) < 0) {
		fprintf(stderr, "fuzz_evemu_round: writing the recording failed\n");
		goto out;
	}
	if (il_evemu_parse(out1_path, &b, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_evemu_round: the written recording does not parse: %s\n",
			err);
		goto out;
	}
	if (strcmp(a->name, b->name) || a->bus != b->bus || a->vendor != b->vendor ||
	    a->product != b->product || a->version != b->version) {
		fprintf(stderr,
			"fuzz_evemu_round: device '%s' %x %x %x %x came back as '%s' %x %x %x %x\n",
			a->name, a->bus, a->vendor, a->product, a->version, b->name, b->bus,
			b->vendor, b->product, b->version);
		goto out;
	}
	if (a->n_events != b->n_events) {
		fprintf(stderr, "fuzz_evemu_round: %zu events came back as %zu\n", a->n_events,
			b->n_events);
		goto out;
	}
	for (size_t i = 0; i < a->n_events; i++) {
		const struct il_evemu_event *x = &a->events[i], *y = &b->events[i];

		if (x->time_us != y->time_us || x->type != y->type || x->code != y->code ||
		    x->value != y->value) {
			fprintf(stderr, "fuzz_evemu_round: event %zu came back changed\n", i);
			goto out;
		}
	}
	if (il_evemu_write(b, out2_path) < 0 ||
	    il_evemu_parse(out2_path, &c, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_evemu_round: the second write or its parse failed\n");
		goto out;
	}
	if (!slurp(out1_path, &len1, text1, sizeof(text1)) ||
	    !slurp(out2_path, &len2, text2, sizeof(text2)) || len1 != len2 ||
	    memcmp(text1, text2, len1)) {
		fprintf(stderr, "fuzz_evemu_round: writing it twice gave other bytes\n");
		goto out;
	}
	ret = 0;
out:
	il_evemu_free(a);
	il_evemu_free(b);
	il_evemu_free(c);
	return ret;
}

IL_FUZZ_ENTRY(il_fuzz_evemu_round)
