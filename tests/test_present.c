/*
 * The drm presenter's clean errors on a machine without KMS. Real page
 * flips are tested inside the VM (tests/vm/vm_test_drm.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "il_present.h"
#include "il_test.h"

static char err[512];

/* True when some /dev/dri/cardN exists (then "no KMS" cannot be tested). */
static int have_card(void)
{
	char path[32];

	for (int i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

static void test_present_drm_no_kms(void **state)
{
	struct il_present_spec spec;
	struct il_present *p = (struct il_present *)0x1;

	(void)state;
	IL_TEST_NEED(!have_card(), "this machine has a /dev/dri/card: \"no KMS\" cannot be seen");
	assert_int_equal(il_present_spec_parse("drm", &spec, err, sizeof(err)), 0);
	assert_int_equal(il_present_check(&spec, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "no KMS device under /dev/dri");
	err[0] = '\0';
	assert_int_equal(il_present_open(&spec, NULL, NULL, NULL, &p, err, sizeof(err)), -ENODEV);
	assert_ptr_equal(p, (struct il_present *)0x1);
	assert_string_equal(err, "no KMS device under /dev/dri");
}

static void test_present_drm_missing_device(void **state)
{
	struct il_present_spec spec;

	(void)state;
	assert_int_equal(il_present_spec_parse("drm:/dev/dri/card97", &spec, err, sizeof(err)), 0);
	assert_int_equal(il_present_check(&spec, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/dev/dri/card97: No such file or directory");
}

static void test_present_drm_not_kms(void **state)
{
	struct il_present_spec spec;

	(void)state;
	assert_int_equal(il_present_spec_parse("drm:/dev/null", &spec, err, sizeof(err)), 0);
	assert_int_equal(il_present_check(&spec, err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "/dev/null: not a KMS device (no modesetting or dumb buffers)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_present_drm_no_kms),
	    cmocka_unit_test(test_present_drm_missing_device),
	    cmocka_unit_test(test_present_drm_not_kms),
	};
	if (il_test_filters("test_present", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
