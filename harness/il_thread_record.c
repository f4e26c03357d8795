#include "il_thread_record.h"

#include <stdint.h>

#include "il_file.h"

const char *il_thread_record_bad(const cJSON *t)
{
	static const char *const ns_keys[] = {"slice_ns", "dl_runtime_ns", "dl_deadline_ns",
					      "dl_period_ns"};
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(t, "sched"), *v;

	if (!cJSON_IsObject(t))
		return "not an object";
	if (!il_json_whole_in(cJSON_GetObjectItemCaseSensitive(t, "pid"), 1, INT32_MAX))
		return "pid is not a pid";
	if (!il_json_whole_in(cJSON_GetObjectItemCaseSensitive(t, "tid"), 1, INT32_MAX))
		return "tid is not a thread id";
	if (sc && !cJSON_IsObject(sc))
		return "sched is not an object";
	for (int i = 0; i < 2; i++) {
		v = cJSON_GetObjectItemCaseSensitive(sc, i ? "nice" : "priority");
		if (v && !cJSON_IsNull(v) &&
		    !il_json_whole_in(v, -IL_THREAD_RECORD_PRIO_MAX, IL_THREAD_RECORD_PRIO_MAX))
			return i ? "sched.nice is out of range" : "sched.priority is out of range";
	}
	for (size_t i = 0; i < sizeof(ns_keys) / sizeof(ns_keys[0]); i++) {
		v = cJSON_GetObjectItemCaseSensitive(sc, ns_keys[i]);
		if (v && !cJSON_IsNull(v) && !il_json_whole_in(v, 0, IL_THREAD_RECORD_NS_MAX))
			return "a sched time (slice_ns, dl_*_ns) is out of range";
	}
	return NULL;
}
