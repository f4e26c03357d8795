/*
 * Fuzz target: the policy-file parser. The input becomes the contents of a
 * memfd that il_policy_load opens through /proc/self/fd/N (a path with a
 * '/', so it is read as a file, never as a built-in name). On success every
 * role, every thread section and the knobs must satisfy the rules the loader promises; on failure
 * the error is one non-empty line.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "il_fuzz.h"
#include "il_policy.h"
#include "il_role.h"

static int check_policy(const struct il_policy *p)
{
	const struct il_knob_settings *k = il_policy_knobs(p);
	bool rt = false;

	IL_FUZZ_CHECK(il_policy_name(p) && il_policy_name(p)[0]);
	IL_FUZZ_CHECK(il_policy_path(p) && il_policy_description(p));
	IL_FUZZ_CHECK(il_policy_role(p, IL_ROLE_COUNT) == NULL);
	IL_FUZZ_CHECK(il_policy_role(p, (enum il_role) - 1) == NULL);
	for (int i = 0; i < IL_ROLE_COUNT; i++)
		IL_FUZZ_CHECK(il_policy_attrs_at(p, (size_t)i, NULL) ==
			      il_policy_role(p, (enum il_role)i));
	/* Every role and every thread section. */
	const struct il_role_attrs *a;
	const char *label = NULL;
	for (size_t i = 0; (a = il_policy_attrs_at(p, i, &label)); i++) {
		int cls;

		IL_FUZZ_CHECK(label && label[0]);
		IL_FUZZ_CHECK(i < IL_ROLE_COUNT + IL_T_COUNT);
		cls = a->sched_class;
		IL_FUZZ_CHECK(il_sched_class_name(cls) != NULL);
		IL_FUZZ_CHECK(il_sched_class_parse(il_sched_class_name(cls)) == cls);
		if (il_sched_class_is_rt(cls)) {
			IL_FUZZ_CHECK(a->priority >= 1 && a->priority <= IL_POLICY_RT_PRIO_MAX);
			rt = true;
		} else {
			IL_FUZZ_CHECK(a->priority == 0);
		}
		IL_FUZZ_CHECK(a->nice >= -20 && a->nice <= 19);
		if (a->nice || a->slice_ns)
			IL_FUZZ_CHECK(il_sched_class_is_fair(cls));
		if (cls == SCHED_DEADLINE) {
			IL_FUZZ_CHECK(a->dl_runtime_ns > 0);
			IL_FUZZ_CHECK(a->dl_runtime_ns <= a->dl_deadline_ns);
			IL_FUZZ_CHECK(a->dl_deadline_ns <= a->dl_period_ns);
			IL_FUZZ_CHECK(!a->has_cpus);
			rt = true;
		} else {
			IL_FUZZ_CHECK(!a->dl_runtime_ns && !a->dl_deadline_ns && !a->dl_period_ns);
		}
		if (a->has_cpus)
			IL_FUZZ_CHECK(CPU_COUNT(&a->cpus) > 0);
		IL_FUZZ_CHECK(!a->has_uclamp_min || a->uclamp_min_pct <= 100);
		IL_FUZZ_CHECK(!a->has_uclamp_max || a->uclamp_max_pct <= 100);
		if (a->has_uclamp_min && a->has_uclamp_max)
			IL_FUZZ_CHECK(a->uclamp_min_pct <= a->uclamp_max_pct);
		if (a->has_uclamp_min || a->has_uclamp_max)
			IL_FUZZ_CHECK(cls != SCHED_DEADLINE);
		/* Only the clamps can be optional, and only where they are set. */
		IL_FUZZ_CHECK((a->optional & ~(IL_OPT_UCLAMP_MIN | IL_OPT_UCLAMP_MAX)) == 0);
		IL_FUZZ_CHECK(!(a->optional & IL_OPT_UCLAMP_MIN) || a->has_uclamp_min);
		IL_FUZZ_CHECK(!(a->optional & IL_OPT_UCLAMP_MAX) || a->has_uclamp_max);
	}
	IL_FUZZ_CHECK(il_policy_uses_rt(p) == rt);
	if (k->has_rt_runtime && k->has_rt_period)
		IL_FUZZ_CHECK(k->rt_runtime_us <= k->rt_period_us);
	if (k->has_rt_runtime)
		IL_FUZZ_CHECK(k->rt_runtime_us >= -1);
	if (k->has_fair_server)
		IL_FUZZ_CHECK(k->fs_runtime_ns <= k->fs_period_ns);
	return 0;
}

int il_fuzz_policy(const uint8_t *data, size_t size)
{
	struct il_policy *p = NULL;
	const char *path;
	char err[512];
	int rc, ret = 0;

	if (size > IL_FUZZ_MAX_INPUT)
		size = IL_FUZZ_MAX_INPUT;
	if (!(path = il_fuzz_as_file(data, size)))
		return 0;
	err[0] = '\0';
	rc = il_policy_load(path, "/nonexistent", &p, err, sizeof(err));
	if (rc == 0) {
		IL_FUZZ_CHECK(p != NULL);
		ret = check_policy(p);
		il_policy_free(p);
		return ret;
	}
	IL_FUZZ_CHECK(p == NULL);
	IL_FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM || rc == -EIO);
	if (rc == -EINVAL) {
		IL_FUZZ_CHECK(err[0] != '\0');
		IL_FUZZ_CHECK(strchr(err, '\n') == NULL);
	}
	return 0;
}

IL_FUZZ_ENTRY(il_fuzz_policy)
