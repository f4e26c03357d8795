/* inputlat policies: list the built-in policies or show one resolved. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "il_cmd.h"
#include "il_knobs.h"
#include "il_paths.h"
#include "il_policy.h"
#include "il_sched.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: inputlat policies              list the built-in policies\n"
		   "       inputlat policies show NAME|PATH  print a policy's resolved table\n"
		   "A NAME without '/' is a built-in; anything with '/' is a policy file.\n");
}

static int list(const char *builtin_dir)
{
	char **names = NULL;
	size_t n = 0;
	int r = il_policy_list(builtin_dir, &names, &n);
	if (r) {
		fprintf(stderr, "inputlat policies: %s: %s\n", builtin_dir, strerror(-r));
		return 1;
	}
	/* An empty list is a wrong directory (IL_POLICY_DIR), not a success. */
	if (n == 0) {
		fprintf(stderr, "inputlat policies: no *.policy files in %s\n", builtin_dir);
		il_policy_list_free(names, n);
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct il_policy *p;
		char err[512];
		if (il_policy_load(names[i], builtin_dir, &p, err, sizeof(err)) != 0) {
			fprintf(stderr, "inputlat policies: %s\n", err);
			rc = 1;
			continue;
		}
		printf("%-16s %s\n", names[i], il_policy_description(p));
		il_policy_free(p);
	}
	il_policy_list_free(names, n);
	return rc;
}

/* "-" for a field that does not apply, so the table reads at a glance. */
static const char *num(char *buf, size_t len, bool applies, int64_t v)
{
	if (!applies)
		return "-";
	snprintf(buf, len, "%" PRId64, v);
	return buf;
}

static void show_knobs(const struct il_knob_settings *k)
{
	bool any = false;
	printf("\n# system knobs (restored at exit)\n");
	if (k->has_rt_runtime) {
		printf("sched_rt_runtime_us    = %" PRId64 "%s\n", k->rt_runtime_us,
		       k->rt_runtime_us < 0 ? " (no legacy RT throttling)" : "");
		any = true;
	}
	if (k->has_rt_period) {
		printf("sched_rt_period_us     = %" PRId64 "\n", k->rt_period_us);
		any = true;
	}
	if (k->has_fair_server) {
		printf("fair_server_runtime_us = %" PRIu64 " (per CPU)\n", k->fs_runtime_ns / 1000);
		printf("fair_server_period_us  = %" PRIu64 " (per CPU)\n", k->fs_period_ns / 1000);
		any = true;
	}
	if (!any)
		printf("(none: the system's settings are left as they are)\n");
	/* A knob the file leaves out is this machine's: sched_rt_runtime_us
	 * 2000000 is valid beside a 2 s period, which run would refuse here.
	 * Show says so, as run would, rather than show a plan run refuses. */
	if (k->has_rt_runtime || k->has_rt_period) {
		char err[512];
		size_t n;

		if (il_knobs_rt_writes(k, &n, err, sizeof(err)) < 0)
			printf("# run refuses these on this machine: %s\n", err);
	}
}

static int show(const char *what, const char *builtin_dir)
{
	struct il_policy *p;
	char err[512];
	if (il_policy_load(what, builtin_dir, &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "inputlat policies: %s\n", err);
		return 2;
	}
	printf("# policy %s (%s)\n# %s\n", il_policy_name(p), il_policy_path(p),
	       il_policy_description(p));
	printf("%-13s %-9s %4s %4s %8s %10s %11s %9s %-5s %s\n", "role/thread", "class", "prio",
	       "nice", "slice_us", "runtime_us", "deadline_us", "period_us", "cpus", "uclamp_%");
	const struct il_role_attrs *a;
	const char *label;
	for (size_t i = 0; (a = il_policy_attrs_at(p, i, &label)); i++) {
		bool fair = il_sched_class_is_fair(a->sched_class);
		bool rt = il_sched_class_is_rt(a->sched_class);
		bool dl = a->sched_class == SCHED_DEADLINE;
		char b[6][24], cpus[64] = "all", clamp[64] = "-";
		if (a->has_cpus)
			il_cpuset_format(&a->cpus, cpus, sizeof(cpus));
		/* "min 20 max 100 (optional)": the kernel may lack uclamp. */
		if (a->has_uclamp_min || a->has_uclamp_max) {
			int n = 0;
			if (a->has_uclamp_min)
				n = snprintf(clamp, sizeof(clamp), "min %u%s", a->uclamp_min_pct,
					     a->optional & IL_OPT_UCLAMP_MIN ? "?" : "");
			if (a->has_uclamp_max)
				snprintf(clamp + n, sizeof(clamp) - (size_t)n, "%smax %u%s",
					 n ? " " : "", a->uclamp_max_pct,
					 a->optional & IL_OPT_UCLAMP_MAX ? "?" : "");
		}
		printf("%-13s %-9s %4s %4s %8s %10s %11s %9s %-5s %s\n", label,
		       il_sched_class_name(a->sched_class),
		       num(b[0], sizeof(b[0]), rt, a->priority),
		       num(b[1], sizeof(b[1]), fair, a->nice),
		       a->slice_ns ? num(b[2], sizeof(b[2]), true, (int64_t)(a->slice_ns / 1000))
		       : fair	   ? "default"
				   : "-",
		       num(b[3], sizeof(b[3]), dl, (int64_t)(a->dl_runtime_ns / 1000)),
		       num(b[4], sizeof(b[4]), dl, (int64_t)(a->dl_deadline_ns / 1000)),
		       num(b[5], sizeof(b[5]), dl, (int64_t)(a->dl_period_ns / 1000)), cpus, clamp);
	}
	printf("# a thread's row replaces its role's row for that thread; '?' marks an optional "
	       "setting\n");
	show_knobs(il_policy_knobs(p));
	il_policy_free(p);
	return 0;
}

int il_cmd_policies(int argc, char **argv)
{
	char builtin_dir[4096];
	bool help = argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);

	/* The first argument that does not belong: after --help, show NAME, or the first. */
	int extra = help ? 2 : argc > 3 && strcmp(argv[1], "show") == 0 ? 3 : 1;

	il_paths_policies(builtin_dir, sizeof(builtin_dir));
	/* Only alone: 'policies --help x' printed the help. */
	if (help && argc == 2) {
		usage(stdout);
		return 0;
	}
	if (argc == 1)
		return list(builtin_dir);
	if (argc == 3 && strcmp(argv[1], "show") == 0)
		return show(argv[2], builtin_dir);
	if (argc == 2 && strcmp(argv[1], "show") == 0)
		fprintf(stderr, "inputlat policies: 'show' needs a policy NAME or PATH "
				"(see 'inputlat policies')\n");
	else
		fprintf(stderr,
			"inputlat policies: unexpected '%s' (want: inputlat policies "
			"[show NAME|PATH])\n",
			argv[extra]);
	return 2;
}
