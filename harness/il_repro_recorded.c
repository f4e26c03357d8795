/*
 * Recorded reports judged again (IL_REPRODUCE_REPORTS) are files anybody
 * may have put there: each must be the run its name says, on the machine
 * of the others (il_repro_recorded.h).
 */
#include "il_repro_recorded.h"

#include <math.h>
#include <stdio.h>

#include "il_file.h"
#include "il_printable.h"

void il_repro_report_path(const char *dir, const char *id, unsigned round, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.%u.json", dir, id, round);
}

unsigned il_repro_recorded_cpus(const char *dir, const char *id)
{
	char path[4096], err[256];
	cJSON *rep = NULL;
	double n;

	il_repro_report_path(dir, id, 0, path, sizeof(path));
	if (il_json_load(path, &rep, err, sizeof(err)) < 0)
		return 0;
	n = il_json_num(rep, "kernel.nr_cpus");
	cJSON_Delete(rep);
	/* il_report_sane refuses a count no machine has, later. */
	return !isnan(n) && n >= 1 && n <= 65536 && n == floor(n) ? (unsigned)n : 0;
}

int il_repro_recorded_check(const cJSON *report, const char *path, const char *id,
			    const struct il_comparable_place *want, const cJSON *first,
			    const char *first_path, char *why, size_t len)
{
	char diff[512], p[256], f[256];

	il_printable_copy(path, p, sizeof(p));
	if (il_comparable_place_diff(report, want, diff, sizeof(diff))) {
		snprintf(why, len, "%s is not a run of its place %s (%s)", p, id, diff);
		return -1;
	}
	if (first && il_comparable_diff(first, report, IL_COMPARABLE_MACHINE | IL_COMPARABLE_WORK,
					diff, sizeof(diff))) {
		snprintf(why, len,
			 "%s is of another machine or work model than %s (%s): a reproduce's runs "
			 "are of one",
			 p, il_printable_copy(first_path, f, sizeof(f)), diff);
		return -1;
	}
	return 0;
}
