/* The frame codec: round trips and every kind of malformed frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "il_test.h"
#include <errno.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "il_msg.h"

static void fill(struct il_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->event_id = 0x1122334455667788ull;
	m->kernel_ns = 42;
	for (int k = 0; k < IL_NSTAMPS; k++) {
		m->stamp_ns[k] = 1000000000ull * (uint64_t)k + 7;
		m->end_ns[k] = m->stamp_ns[k] + 3;
		m->tid[k] = 100u + (uint32_t)k;
	}
}

static void test_msg_event_round_trip(void **state)
{
	uint8_t buf[IL_FRAME_EVENT_LEN];
	struct il_msg in, out;
	struct il_frame f;

	fill(&in);
	memset(&out, 0xa5, sizeof(out));
	il_frame_encode_event(&in, buf);
	assert_int_equal(il_frame_decode(buf, sizeof(buf), &f), IL_FRAME_OK);
	assert_int_equal(f.type, IL_FRAME_EVENT);
	assert_int_equal(f.frame_len, IL_FRAME_EVENT_LEN);
	assert_int_equal(il_frame_event_payload(&f, &out), 0);
	/* Field by field: the struct has padding the wire format does not carry. */
	assert_int_equal(out.event_id, in.event_id);
	assert_int_equal(out.kernel_ns, in.kernel_ns);
	assert_memory_equal(out.stamp_ns, in.stamp_ns, sizeof(in.stamp_ns));
	assert_memory_equal(out.end_ns, in.end_ns, sizeof(in.end_ns));
	assert_memory_equal(out.tid, in.tid, sizeof(in.tid));
}

static void test_msg_control_round_trip(void **state)
{
	const char json[] = "{\"type\":\"ping\",\"seq\":3}";
	uint8_t buf[128];
	struct il_frame f;
	int n = il_frame_encode_control(json, strlen(json), buf, sizeof(buf));

	assert_int_equal(n, IL_FRAME_HDR_LEN + (int)strlen(json));
	assert_int_equal(il_frame_decode(buf, (size_t)n, &f), IL_FRAME_OK);
	assert_int_equal(f.type, IL_FRAME_CONTROL);
	assert_int_equal(f.payload_len, strlen(json));
	assert_memory_equal(f.payload, json, strlen(json));
	assert_int_equal(il_frame_encode_control(json, strlen(json), buf, 10), -EMSGSIZE);
}

/* A CONTROL payload is one JSON object and nothing after it: "{...}x",
 * two objects, a key twice and a NUL inside were read as the first. */
static void test_msg_control_json_strict(void **state)
{
	static const char *const bad[] = {
	    "{\"type\":\"ping\"}x",
	    "{\"type\":\"ping\"}{}",
	    "{\"type\":\"a\",\"type\":\"b\"}",
	    "[1]",
	    "",
	    "{\"type\":\"ping\"}\0",
	};
	uint8_t buf[128];
	struct il_frame f;
	cJSON *json;
	int n;

	(void)state;
	n = il_frame_encode_control("{\"type\":\"ping\"} \n", 17, buf, sizeof(buf));
	assert_int_equal(il_frame_decode(buf, (size_t)n, &f), IL_FRAME_OK);
	json = il_frame_control_json(&f);
	assert_non_null(json);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(json, "type")), "ping");
	cJSON_Delete(json);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* The last one holds its NUL: its length counts it. */
		size_t len = strlen(bad[i]) + (i == sizeof(bad) / sizeof(bad[0]) - 1);

		n = il_frame_encode_control(bad[i], len, buf, sizeof(buf));
		assert_int_equal(il_frame_decode(buf, (size_t)n, &f), IL_FRAME_OK);
		if ((json = il_frame_control_json(&f)) != NULL) {
			cJSON_Delete(json);
			fail_msg("accepted: %s", bad[i]);
		}
	}
}

static void test_msg_incomplete(void **state)
{
	uint8_t buf[IL_FRAME_EVENT_LEN];
	struct il_msg m;
	struct il_frame f;

	fill(&m);
	il_frame_encode_event(&m, buf);
	/* Every strict prefix is "need more", never an error, never a read past len. */
	for (size_t len = 0; len < sizeof(buf); len++)
		assert_int_equal(il_frame_decode(buf, len, &f), IL_FRAME_INCOMPLETE);
}

static void test_msg_bad_length(void **state)
{
	uint8_t buf[IL_FRAME_EVENT_LEN];
	struct il_msg m;
	struct il_frame f;

	fill(&m);
	il_frame_encode_event(&m, buf);
	/* Shorter than a header. */
	buf[0] = 3, buf[1] = buf[2] = buf[3] = 0;
	assert_int_equal(il_frame_decode(buf, sizeof(buf), &f), IL_FRAME_BAD_LENGTH);
	/* Larger than the maximum. */
	buf[0] = 0xff, buf[1] = 0xff, buf[2] = 0xff, buf[3] = 0x7f;
	assert_int_equal(il_frame_decode(buf, 4, &f), IL_FRAME_BAD_LENGTH);
	/* An EVENT frame whose length is not the event length. */
	il_frame_encode_event(&m, buf);
	buf[0] = (uint8_t)(IL_FRAME_EVENT_LEN - 8);
	assert_int_equal(il_frame_decode(buf, sizeof(buf), &f), IL_FRAME_BAD_LENGTH);
	assert_string_equal(il_frame_strerror(IL_FRAME_BAD_LENGTH), "bad frame length");
}

static void test_msg_bad_version(void **state)
{
	uint8_t buf[IL_FRAME_EVENT_LEN];
	struct il_msg m;
	struct il_frame f;

	fill(&m);
	il_frame_encode_event(&m, buf);
	buf[4] = IL_FRAME_VERSION + 1;
	assert_int_equal(il_frame_decode(buf, sizeof(buf), &f), IL_FRAME_BAD_VERSION);
	assert_string_equal(il_frame_strerror(IL_FRAME_BAD_VERSION), "bad frame version");
}

static void test_msg_bad_type(void **state)
{
	uint8_t buf[IL_FRAME_EVENT_LEN];
	struct il_msg m;
	struct il_frame f;

	fill(&m);
	il_frame_encode_event(&m, buf);
	buf[6] = 9;
	assert_int_equal(il_frame_decode(buf, sizeof(buf), &f), IL_FRAME_BAD_TYPE);
	assert_string_equal(il_frame_strerror(IL_FRAME_BAD_TYPE), "bad frame type");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_msg_event_round_trip),
	    cmocka_unit_test(test_msg_control_round_trip),
	    cmocka_unit_test(test_msg_control_json_strict),
	    cmocka_unit_test(test_msg_incomplete),
	    cmocka_unit_test(test_msg_bad_length),
	    cmocka_unit_test(test_msg_bad_version),
	    cmocka_unit_test(test_msg_bad_type),
	};
	if (il_test_filters("test_msg", tests, sizeof(tests) / sizeof(tests[0])) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
