#include "il_sched_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "il_role.h"

#define TABLE_VERSION "v1"

static void add(struct il_sched_table *t, const char *name, const struct il_role_attrs *a)
{
	struct il_sched_entry *e = &t->e[t->n++];

	snprintf(e->name, sizeof(e->name), "%s", name);
	/* A copy of the whole struct, padding included, so the bytes sent are
	 * defined (the policy's table is calloc'd; this one is zeroed too). */
	memcpy(&e->a, a, sizeof(e->a));
}

void il_sched_table_from_policy(const struct il_policy *p, struct il_sched_table *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < IL_T_COUNT; i++) {
		const struct il_thread_desc *d = il_chain_thread(i);

		add(t, d->name, il_policy_thread(p, d->role, d->name));
	}
	for (int r = 0; r < IL_ROLE_COUNT; r++)
		add(t, il_role_name((enum il_role)r), il_policy_role(p, (enum il_role)r));
}

char *il_sched_table_format(const struct il_sched_table *t)
{
	size_t per = sizeof(t->e[0].name) + 2 + 2 * sizeof(struct il_role_attrs);
	size_t cap = 32 + t->n * per, len;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	len = (size_t)snprintf(s, cap, TABLE_VERSION ":%zu:", sizeof(struct il_role_attrs));
	for (size_t i = 0; i < t->n; i++) {
		const unsigned char *b = (const unsigned char *)&t->e[i].a;

		len += (size_t)snprintf(s + len, cap - len, "%s%s=", i ? "," : "", t->e[i].name);
		for (size_t k = 0; k < sizeof(struct il_role_attrs); k++)
			len += (size_t)snprintf(s + len, cap - len, "%02x", b[k]);
	}
	return s;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int il_sched_table_parse(const char *s, struct il_sched_table *out)
{
	struct il_sched_table *t = calloc(1, sizeof(*t));
	char head[32];
	int r = -EINVAL;

	if (!t)
		return -ENOMEM;
	snprintf(head, sizeof(head), TABLE_VERSION ":%zu:", sizeof(struct il_role_attrs));
	if (strncmp(s, head, strlen(head)) != 0)
		goto out;
	s += strlen(head);
	while (*s) {
		const char *eq = strchr(s, '=');
		struct il_sched_entry *e;

		if (t->n == IL_SCHED_TABLE_MAX || !eq || eq == s ||
		    (size_t)(eq - s) >= sizeof(e->name))
			goto out;
		e = &t->e[t->n++];
		memcpy(e->name, s, (size_t)(eq - s));
		s = eq + 1;
		for (size_t k = 0; k < sizeof(e->a); k++) {
			int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

			if (lo < 0)
				goto out;
			((unsigned char *)&e->a)[k] = (unsigned char)(hi << 4 | lo);
			s += 2;
		}
		if (*s == ',')
			s++;
		else if (*s)
			goto out;
	}
	*out = *t;
	r = 0;
out:
	free(t);
	return r;
}

const struct il_role_attrs *il_sched_table_lookup(const struct il_sched_table *t, enum il_role role,
						  const char *name)
{
	const char *rname = il_role_name(role);

	for (size_t i = 0; name && i < t->n; i++)
		if (strcmp(t->e[i].name, name) == 0)
			return &t->e[i].a;
	for (size_t i = 0; rname && i < t->n; i++)
		if (strcmp(t->e[i].name, rname) == 0)
			return &t->e[i].a;
	return NULL;
}

bool il_sched_table_uses_rt(const struct il_sched_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (il_sched_class_needs_rttime(t->e[i].a.sched_class))
			return true;
	return false;
}
