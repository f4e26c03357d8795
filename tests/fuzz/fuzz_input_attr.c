/*
 * Fuzz target: a sysfs attribute's text as input/il_input_evdev.c reads
 * /sys/class/input/eventN/device/name to find the uinput device by name,
 * through il_input_sysfs_attr_parse with the caller's buffer and a short
 * one. The input is the attribute's text.
 *
 * A value is the whole text sysfs wrote ("%s\n"): never its first line
 * only, nor a prefix cut at the buffer, so that no other device's name
 * can pass for ours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_input_backend.h"

static int check(const char *text, size_t n, size_t len)
{
	char buf[256];
	size_t vlen;
	int rc = il_input_sysfs_attr_parse(text, n, buf, len);

	IL_FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EOVERFLOW);
	if (rc)
		return 0;
	vlen = strlen(buf);
	IL_FUZZ_CHECK(vlen < len && !strchr(buf, '\n'));
	/* The text is the value and at most its newline. */
	IL_FUZZ_CHECK(vlen == n || (vlen + 1 == n && text[vlen] == '\n'));
	IL_FUZZ_CHECK(memcmp(buf, text, vlen) == 0);
	return 0;
}

int il_fuzz_input_attr(const uint8_t *data, size_t size)
{
	char *text;
	int rc;

	text = il_fuzz_copy(data, &size, false);
	if (!text)
		return 0;
	rc = check(text, size, 256);
	if (rc == 0)
		rc = check(text, size, 8);
	free(text);
	return rc;
}

IL_FUZZ_ENTRY(il_fuzz_input_attr)
