/*
 * The resolved scheduling table of a run: the attributes each thread of
 * the chain and each worker role (js, load, canary) runs with, as the
 * orchestrator resolved them once from the policy. The children get this
 * table, never the policy file: a file read twice can be two different
 * policies (a FIFO, /dev/stdin, a file replaced during the start), and the
 * report must describe what the threads ran, which is what the orchestrator
 * read.
 */
#ifndef IL_SCHED_TABLE_H
#define IL_SCHED_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "il_chain.h"
#include "il_policy.h"

#define IL_SCHED_TABLE_MAX (IL_T_COUNT + IL_ROLE_COUNT)

struct il_sched_entry {
	char name[16]; /* a chain thread ("viz:io") or a role ("js") */
	struct il_role_attrs a;
};

struct il_sched_table {
	size_t n;
	struct il_sched_entry e[IL_SCHED_TABLE_MAX];
};

/* Fills t from p: every thread of il_chain (its own section, else its
 * role's), then every role. */
void il_sched_table_from_policy(const struct il_policy *p, struct il_sched_table *t);

/*
 * Formats t as one command-line word for a child ("v1:SIZE:name=HEX,...",
 * the attributes as the bytes of struct il_role_attrs: the orchestrator
 * and the children are one build, and every field, present or future,
 * arrives as resolved). Returns a malloc'd string or NULL.
 */
char *il_sched_table_format(const struct il_sched_table *t);

/* Parses what il_sched_table_format made. Returns 0 or -EINVAL (garbage, or
 * a child built with another struct layout). */
int il_sched_table_parse(const char *s, struct il_sched_table *t);

/* The attributes of thread name (its own entry) or else of its role. NULL
 * when the table has neither. */
const struct il_role_attrs *il_sched_table_lookup(const struct il_sched_table *t, enum il_role role,
						  const char *name);

/* True when any entry is fifo, rr or deadline (RLIMIT_RTTIME, RT control). */
bool il_sched_table_uses_rt(const struct il_sched_table *t);

#endif
