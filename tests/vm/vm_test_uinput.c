/*
 * Inside the VM: the uinput injector and the evdev reader against the real
 * kernel input stack. 50 presses in, 50 BTN_LEFT reads out, kernel
 * timestamps on CLOCK_MONOTONIC and increasing.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_clock.h"
#include "il_input_backend.h"
#include "vm_check.h"

#define PRESSES 50

struct reads {
	unsigned n;
	uint64_t kernel_ns[PRESSES + 1];
};

static void press_cb(void *ctx, uint64_t kernel_ns)
{
	struct reads *r = ctx;

	if (r->n <= PRESSES)
		r->kernel_ns[r->n] = kernel_ns;
	r->n++;
}

/* Waits until `want` presses were read, up to 10 s (a bound on a lost
 * event, not a pace: TCG on a busy host is slow), dispatching. */
static int pump(struct il_input_reader *rd, struct reads *r, unsigned want)
{
	uint64_t end = il_now_ns() + il_ms_to_ns(10000);

	while (r->n < want && il_now_ns() < end) {
		struct pollfd pfd = {.fd = rd->ops->fd(rd), .events = POLLIN};
		int rc;

		if (poll(&pfd, 1, 100) < 0)
			return -errno;
		rc = rd->ops->dispatch(rd, press_cb, r);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void test_presses(struct il_injector *inj, struct il_input_reader *rd)
{
	static struct reads r;
	uint64_t stamp0[PRESSES], read_ns[PRESSES];
	uint64_t k_min = UINT64_MAX, k_sum = 0, r_min = UINT64_MAX, r_sum = 0;
	bool after_stamp0 = true, increasing = true;

	for (unsigned i = 0; i < PRESSES; i++) {
		VM_CHECK(inj->ops->press(inj, &stamp0[i]) == 0, "press %u", i);
		VM_CHECK(pump(rd, &r, i + 1) == 0 && r.n == i + 1, "read %u: got %u", i, r.n);
		read_ns[i] = il_now_ns();
		VM_CHECK(inj->ops->release(inj) == 0, "release %u", i);
		/* The release must not count as a press. */
		VM_CHECK(pump(rd, &r, i + 1) == 0 && r.n == i + 1, "after release %u: %u", i, r.n);
	}
	VM_CHECK(r.n == PRESSES, "%u presses read, want %u", r.n, PRESSES);
	for (unsigned i = 0; i < PRESSES && i < r.n; i++) {
		uint64_t k = r.kernel_ns[i] - stamp0[i], rd_lat = read_ns[i] - r.kernel_ns[i];

		after_stamp0 &= r.kernel_ns[i] >= stamp0[i] && r.kernel_ns[i] <= read_ns[i];
		increasing &= i == 0 || r.kernel_ns[i] > r.kernel_ns[i - 1];
		k_min = k < k_min ? k : k_min;
		r_min = rd_lat < r_min ? rd_lat : r_min;
		k_sum += k;
		r_sum += rd_lat;
	}
	VM_CHECK(after_stamp0, "kernel timestamps between stamp 0 and the read (CLOCK_MONOTONIC)");
	VM_CHECK(increasing, "kernel timestamps strictly increasing");
	VM_CHECK(rd->ops->invalid_events(rd) == 0, "no dropped/invalid events");
	if (r.n)
		printf("# TCG timings, functional evidence only: injector->kernel min %.1f avg "
		       "%.1f us,"
		       " kernel->reader min %.1f avg %.1f us\n",
		       il_ns_to_us(k_min), il_ns_to_us(k_sum / r.n), il_ns_to_us(r_min),
		       il_ns_to_us(r_sum / r.n));
}

/*
 * A reader that falls behind: 300 clicks without reading overflow the
 * evdev client buffer, the kernel queues SYN_DROPPED, and the reader must
 * count it, resync through libevdev and keep working.
 */
static void test_overflow(struct il_injector *inj, struct il_input_reader *rd)
{
	static struct reads r;
	uint64_t stamp0;
	unsigned before;

	for (unsigned i = 0; i < 300; i++) {
		inj->ops->press(inj, &stamp0);
		inj->ops->release(inj);
	}
	VM_CHECK(pump(rd, &r, 300) == 0, "dispatch after overflow");
	VM_CHECK(rd->ops->invalid_events(rd) >= 1, "SYN_DROPPED counted: %llu",
		 (unsigned long long)rd->ops->invalid_events(rd));
	VM_CHECK(r.n < 300, "some clicks were dropped by the kernel: read %u", r.n);
	printf("# overflow: %u of 300 presses read, %llu SYN_DROPPED\n", r.n,
	       (unsigned long long)rd->ops->invalid_events(rd));
	before = r.n;
	VM_CHECK(inj->ops->press(inj, &stamp0) == 0, "press after overflow");
	VM_CHECK(pump(rd, &r, before + 1) == 0 && r.n == before + 1, "read after resync: %u",
		 r.n - before);
	inj->ops->release(inj);
	pump(rd, &r, before + 1);
}

int main(void)
{
	struct il_input_spec uinput = {.kind = IL_INPUT_UINPUT}, evdev = {.kind = IL_INPUT_EVDEV};
	struct il_injector *inj = NULL;
	struct il_input_reader *rd = NULL, *rd2 = NULL;
	char err[512] = "";
	const char *node;
	int rc;

	rc = il_input_check_uinput(&uinput, err, sizeof(err));
	VM_CHECK(rc == 0, "check uinput: %s", err);
	rc = il_injector_open_uinput(&uinput, -1, &inj, err, sizeof(err));
	VM_CHECK(rc == 0, "open uinput: %s", err);
	if (rc < 0)
		return vm_summary("vm_test_uinput");
	node = inj->ops->devnode(inj);
	printf("# virtual mouse at %s\n", node ? node : "(none)");
	VM_CHECK(node && strncmp(node, "/dev/input/event", 16) == 0, "devnode %s", node);

	/* By name, the udev-free scan of /sys/class/input. */
	rc = il_reader_open_evdev(&uinput, -1, &rd, err, sizeof(err));
	VM_CHECK(rc == 0, "reader by name: %s", err);
	if (rc == 0) {
		test_presses(inj, rd);
		/* The grab is exclusive: a second reader gets one clear line. */
		snprintf(evdev.arg, sizeof(evdev.arg), "%s", node);
		rc = il_reader_open_evdev(&evdev, -1, &rd2, err, sizeof(err));
		VM_CHECK(rc == -EBUSY && strstr(err, "cannot grab"), "second grab: %d %s", rc, err);
		printf("# second reader: %s\n", err);
		test_overflow(inj, rd);
		rd->ops->free(rd);
	}

	/* By path, as evdev:PATH and as uinput with the injector's devnode. */
	rc = il_reader_open_evdev(&evdev, -1, &rd, err, sizeof(err));
	VM_CHECK(rc == 0, "reader evdev:%s: %s", evdev.arg, err);
	if (rc == 0)
		rd->ops->free(rd);
	snprintf(uinput.arg, sizeof(uinput.arg), "%s", node);
	rc = il_reader_open_evdev(&uinput, -1, &rd, err, sizeof(err));
	VM_CHECK(rc == 0, "reader uinput at devnode: %s", err);
	if (rc == 0)
		rd->ops->free(rd);
	inj->ops->free(inj);

	/* Once the device is gone, the name lookup times out with one line. */
	uinput.arg[0] = '\0';
	rc = il_reader_open_evdev(&uinput, -1, &rd, err, sizeof(err));
	VM_CHECK(rc == -ENOENT && strstr(err, "no input device named"), "%d %s", rc, err);
	printf("# without the device: %s\n", err);
	return vm_summary("vm_test_uinput");
}
