/*
 * il-bpf against adaptive-np, by the targets it was built for: where the
 * owner is often off its CPU, at least 1.2x the ops/s and at most half
 * the spinning CPU per acquisition; elsewhere no worse than 0.95x. Judged
 * only on what was measured, round by round, beside the ceiling on ops
 * that the lock's holds put on every lock.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lock-bench.h"

/*
 * Why il-bpf's targets cannot be judged in a scenario, or NULL: il-bpf
 * ran without its on-CPU source (it was il-none under another name), or
 * the spinning CPU the target names is unknown there.
 */
static const char *not_judged(const struct config *cfg, const struct result *b,
			      const struct result *ad, char *why, size_t len)
{
	if (b->unaware_rounds) {
		snprintf(why, len, "il-bpf ran without its on-CPU source in %u round%s (%s)",
			 b->unaware_rounds, b->unaware_rounds == 1 ? "" : "s", unaware_why);
		return why;
	}
	if (cfg->owner_off && (isnan(spin_ns(b)) || isnan(spin_ns(ad)))) {
		snprintf(why, len, "the spinning CPU per acquisition is unknown: %s",
			 futex_kept ? "a lock was not sampled" : futex_why);
		return why;
	}
	return NULL;
}

/* a at most half of b, as the spinning and CPU targets want: 0 of 0 is
 * within it, anything of 0 is not (a ratio would be NAN or infinite). */
static int within_half(double a, double b)
{
	return a <= 0.5 * b;
}

/*
 * il-bpf against adaptive-np, scenario by scenario: where the owner is
 * often off its CPU, at least 1.2x the ops/s and at most half the CPU
 * burned per acquisition; elsewhere no worse than 0.95x. A scenario whose
 * verdict needs what was not measured says so (met: null, why) and is
 * not counted in checked.
 */
cJSON *targets_json(const struct config *cfg, int ncfg, struct result (*res)[NARMS],
		    unsigned rounds, int *met, int *checked, int *agreed)
{
	cJSON *a = cJSON_CreateArray();
	char why[300];

	for (int c = 0; c < ncfg; c++) {
		const struct result *b = &res[c][IL_LOCK_IL_BPF],
				    *ad = &res[c][IL_LOCK_ADAPTIVE_NP];
		double ratio, spin_ratio, cpu_ratio, ceiling, spin_floor,
		    want = cfg[c].owner_off ? 1.2 : 0.95;
		unsigned above = 0, n = 0;
		cJSON *t, *per, *per_spin;
		const char *nj;
		int ok;

		if (ops_per_s(b) <= 0 || ops_per_s(ad) <= 0)
			continue;
		ratio = ops_per_s(b) / ops_per_s(ad);
		spin_ratio = spin_ns(b) / spin_ns(ad);
		ok = ratio >= want && (!cfg[c].owner_off || within_half(spin_ns(b), spin_ns(ad)));
		nj = not_judged(&cfg[c], b, ad, why, sizeof(why));
		cpu_ratio = lock_cpu_ns(b) / lock_cpu_ns(ad);
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "scenario", cfg[c].name);
		cJSON_AddNumberToObject(t, "ops_ratio_vs_adaptive", round(ratio * 1000) / 1000);
		add_num_or_null(t, "spin_ratio_vs_adaptive", round(spin_ratio * 1000) / 1000);
		/* All of lock()'s CPU, the futex calls' too: not the target's
		 * figure (spinning), and its verdict beside it. */
		add_num_or_null(t, "lock_cpu_ratio_vs_adaptive", round(cpu_ratio * 1000) / 1000);
		if (b->unaware_rounds ||
		    (cfg[c].owner_off && (isnan(lock_cpu_ns(b)) || isnan(lock_cpu_ns(ad)))))
			cJSON_AddNullToObject(t, "met_by_lock_cpu");
		else
			cJSON_AddBoolToObject(t, "met_by_lock_cpu",
					      ratio >= want &&
						  (!cfg[c].owner_off ||
						   within_half(lock_cpu_ns(b), lock_cpu_ns(ad))));
		cJSON_AddStringToObject(
		    t, "target", cfg[c].owner_off ? "ops >= 1.2x, spin <= 0.5x" : "ops >= 0.95x");
		/* How far any lock could go: the shortest holds measured here. */
		ceiling = NAN;
		for (int k = 0; k < NARMS; k++)
			if (!isnan(ops_ceiling(&res[c][k])) &&
			    (isnan(ceiling) || ops_ceiling(&res[c][k]) > ceiling))
				ceiling = ops_ceiling(&res[c][k]);
		add_num_or_null(t, "ops_ceiling_vs_adaptive",
				round(ceiling / ops_per_s(ad) * 1000) / 1000);
		cJSON_AddBoolToObject(t, "owner_often_off_cpu", cfg[c].owner_off);
		/*
		 * How low a spin figure this measurement resolves: pthread never
		 * spins, so what it reads is the split's leftover (interrupts,
		 * the word's cache misses). A spin target below it cannot be
		 * told met from missed (oversub-cs50 here, two runs: targets of
		 * 99 and 263 ns, pthread read 143 and 344). null: pthread not run.
		 */
		spin_floor =
		    res[c][IL_LOCK_PTHREAD].skipped ? NAN : spin_ns(&res[c][IL_LOCK_PTHREAD]);
		if (cfg[c].owner_off && !isnan(spin_floor) && !isnan(spin_ns(ad))) {
			bool below = 0.5 * spin_ns(ad) < spin_floor;

			add_num_or_null(t, "spin_floor_ns", round(spin_floor));
			cJSON_AddBoolToObject(t, "spin_target_below_floor", below);
			/* Ops met, spin read above a target the measurement cannot
			 * resolve: neither met nor missed. */
			if (!nj && below && ratio >= want &&
			    !within_half(spin_ns(b), spin_ns(ad))) {
				snprintf(
				    why, sizeof(why),
				    "ops met; the spin target, %.0f ns, is below what pthread, "
				    "which never spins, reads here (%.0f ns)",
				    0.5 * spin_ns(ad), spin_floor);
				nj = why;
			}
		} else {
			cJSON_AddNullToObject(t, "spin_floor_ns");
			cJSON_AddNullToObject(t, "spin_target_below_floor");
		}
		if (nj) {
			cJSON_AddNullToObject(t, "met");
			cJSON_AddStringToObject(t, "not_judged", nj);
		} else {
			cJSON_AddBoolToObject(t, "met", ok);
		}
		/*
		 * The ratios of each round: the run-to-run spread here is
		 * about +-0.1 in ops, and adaptive-np's spin alone moves 3x,
		 * so a pooled ratio near its target says little. The verdict
		 * holds only where every round is on its side (ops, and spin
		 * too where it is part of the target).
		 */
		per = cJSON_AddArrayToObject(t, "ops_ratio_rounds");
		per_spin = cJSON_AddArrayToObject(t, "spin_ratio_rounds");
		for (unsigned r = 0; r < rounds; r++) {
			double x = round_ops[c][IL_LOCK_IL_BPF][r],
			       y = round_ops[c][IL_LOCK_ADAPTIVE_NP][r],
			       sb = round_spin[c][IL_LOCK_IL_BPF][r],
			       sa = round_spin[c][IL_LOCK_ADAPTIVE_NP][r], s = sb / sa;

			if (x <= 0 || y <= 0)
				continue;
			cJSON_AddItemToArray(per, cJSON_CreateNumber(round(x / y * 1000) / 1000));
			cJSON_AddItemToArray(per_spin,
					     isnan(s) || isinf(s)
						 ? cJSON_CreateNull()
						 : cJSON_CreateNumber(round(s * 1000) / 1000));
			above += x / y >= want && (!cfg[c].owner_off || within_half(sb, sa));
			n++;
		}
		cJSON_AddStringToObject(t, "rounds_agree",
					nj	     ? "not judged"
					: n == 0     ? "no round measured both"
					: above == n ? "every round meets the target"
					: above == 0 ? "no round meets the target"
						     : "the rounds straddle the target");
		cJSON_AddItemToArray(a, t);
		if (nj)
			continue;
		*met += ok;
		*agreed += n > 0 && (above == n || above == 0);
		(*checked)++;
	}
	return a;
}

/* The scenarios of targets[] whose `key` is a string containing `has`. */
static void print_scenarios_where(const cJSON *t, const char *key, const char *has)
{
	const cJSON *e;

	cJSON_ArrayForEach (e, t) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(e, key));

		if (v && strstr(v, has))
			printf(" %s", cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario")));
	}
}

/*
 * Where the owner is often off its CPU: the most ops/s over adaptive-np's
 * any lock could reach with the holds measured (ops_ceiling_vs_adaptive),
 * and the scenarios where that is below the ops target: there the target
 * is out of reach of every lock, not only of il-bpf.
 */
static void print_ceilings(const cJSON *t)
{
	const cJSON *e;
	int below = 0, shown = 0;

	cJSON_ArrayForEach (e, t) {
		const cJSON *v = cJSON_GetObjectItem(e, "ops_ceiling_vs_adaptive");

		if (!cJSON_IsTrue(cJSON_GetObjectItem(e, "owner_often_off_cpu")))
			continue;
		if (!shown++)
			printf("# ops ceiling over adaptive-np's (the lock never free, held as "
			       "briefly as the lock that held it least here):");
		printf(" %s ", cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario")));
		if (cJSON_IsNumber(v))
			printf("%.2f", v->valuedouble);
		else
			printf("n/a");
	}
	if (shown)
		printf("\n");
	cJSON_ArrayForEach (e, t) {
		const cJSON *v = cJSON_GetObjectItem(e, "ops_ceiling_vs_adaptive");

		if (cJSON_IsTrue(cJSON_GetObjectItem(e, "owner_often_off_cpu")) &&
		    cJSON_IsNumber(v) && v->valuedouble < 1.2)
			printf("%s %s",
			       below++ ? ""
				       : "# the 1.2x ops target is out of reach of any "
					 "lock with these holds in:",
			       cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario")));
	}
	if (below)
		printf("\n");
	below = 0;
	cJSON_ArrayForEach (e, t)
		if (cJSON_IsTrue(cJSON_GetObjectItem(e, "spin_target_below_floor")))
			printf("%s %s",
			       below++ ? ""
				       : "# the spin target (half of adaptive-np's) is below what "
					 "pthread, which never spins, reads (a spin reading there "
					 "cannot tell met from missed) in:",
			       cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario")));
	if (below)
		printf("\n");
}

/*
 * The verdicts of targets[] in words: met, missed, and not judged with
 * why (no line of ratios where nothing could be judged); then judged by
 * all of lock()'s CPU, and whether the rounds agree.
 */
void print_targets(const cJSON *t, int met, int checked, int agreed, unsigned rounds)
{
	const cJSON *e;
	const char *nj = NULL;
	int m = 0;

	printf("# il-bpf vs adaptive-np targets met in %d of %d scenarios", met, checked);
	cJSON_ArrayForEach (e, t) {
		const cJSON *v = cJSON_GetObjectItem(e, "met");
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario"));

		if (cJSON_IsFalse(v))
			printf("%s %s missed", m++ ? "" : ":", name);
	}
	cJSON_ArrayForEach (e, t)
		if (cJSON_IsNull(cJSON_GetObjectItem(e, "met"))) {
			printf("%s %s", nj ? "," : "; not judged in",
			       cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario")));
			nj = cJSON_GetStringValue(cJSON_GetObjectItem(e, "not_judged"));
		}
	if (nj)
		printf(" (the last: %s)", nj);
	printf("\n");
	if (!checked)
		return;
	printf("# judged by all of lock()'s CPU (futex calls too) instead of spinning:");
	m = 0;
	cJSON_ArrayForEach (e, t) {
		if (cJSON_IsNull(cJSON_GetObjectItem(e, "met")))
			continue;
		m += cJSON_IsTrue(cJSON_GetObjectItem(e, "met_by_lock_cpu"));
		/* Only where the CPU is part of the target. */
		if (cJSON_IsTrue(cJSON_GetObjectItem(e, "owner_often_off_cpu")))
			printf(" %s %.2f", cJSON_GetStringValue(cJSON_GetObjectItem(e, "scenario")),
			       cJSON_GetNumberValue(
				   cJSON_GetObjectItem(e, "lock_cpu_ratio_vs_adaptive")));
	}
	printf(" (CPU ratios to adaptive-np): met in %d of %d\n", m, checked);
	print_ceilings(t);
	printf("# the rounds agree on the verdict in %d of %d scenarios (%u rounds a cell)", agreed,
	       checked, rounds);
	if (agreed < checked) {
		printf("; they straddle it, so its verdict is the noise's, in:");
		print_scenarios_where(t, "rounds_agree", "straddle");
	}
	printf("\n");
}
