/*
 * IL_REPRODUCE_REPORTS=DIR: whether a recorded report is what its place
 * says. DIR/ID.ROUND.json stands for one run of scenario ID (a policy,
 * events, interval, load and hog threads sized by the recorded machine's
 * CPU count), and a reproduce's runs are of one machine: a report of
 * another policy (c1-rt.0.json holding a cfs run), of no load where the
 * claim is about load, or of another machine than the first, is refused,
 * never judged as what its name says (il_comparable).
 */
#ifndef IL_REPRO_RECORDED_H
#define IL_REPRO_RECORDED_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "il_comparable.h"

/*
 * DIR/ID.ROUND.json, the name a reproduce gives run ROUND of scenario ID
 * in its directory, and where a recorded one is looked for, into buf.
 */
void il_repro_report_path(const char *dir, const char *id, unsigned round, char *buf, size_t len);

/*
 * The CPU count of the machine the recorded runs were on (kernel.nr_cpus
 * of DIR/ID.0.json, the first report reproduce reads), which sized their
 * scenarios; 0 when that report does not say (unreadable, missing).
 */
unsigned il_repro_recorded_cpus(const char *dir, const char *id);

/*
 * Whether report, read from path, is a run of what want says, on the
 * machine and work model of first (read from first_path; NULL when report
 * is the first). 0, or -1 with why: "PATH is not a run of its place ID
 * (policy cfs, its place's rt)", "PATH is of another machine than FIRST
 * (kernel.nr_cpus 2 vs 64)".
 */
int il_repro_recorded_check(const cJSON *report, const char *path, const char *id,
			    const struct il_comparable_place *want, const cJSON *first,
			    const char *first_path, char *why, size_t len);

#endif
