/*
 * Policy file parser. inih does the INI syntax; this file gives the keys
 * their meaning, and the one extension of it: a setting written
 * "optional KEY = VALUE" (inih hands us "optional KEY" as the name). inih as packaged by Debian is
 * built without INI_HANDLER_LINENO, so the handler never learns its line number: we feed inih
 * through our own line reader (ini_parse_stream), which counts lines and also sees section headers,
 * so that empty, unknown and repeated sections are caught even though inih only calls us for key =
 * value lines.
 */
#include "il_policy.h"
#include "il_sched.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "il_file.h"
#include "il_parse.h"

#define POLICY_SUFFIX ".policy"

/*
 * Sections: the roles, then one per thread of il_chain ("[viz:io]"), whose
 * attributes replace its role's for that one thread; both kinds are
 * attribute sections, indexed alike in il_policy.attrs. Then [policy]
 * and [knobs].
 */
enum {
	SEC_THREAD = IL_ROLE_COUNT,
	SEC_POLICY = SEC_THREAD + IL_T_COUNT,
	SEC_KNOBS,
	SEC_COUNT,
	SEC_NONE = -1
};
#define N_ATTRS SEC_POLICY

enum role_key {
	RK_CLASS,
	RK_PRIORITY,
	RK_NICE,
	RK_SLICE,
	RK_RUNTIME,
	RK_DEADLINE,
	RK_PERIOD,
	RK_CPUS,
	RK_UCLAMP_MIN,
	RK_UCLAMP_MAX,
	RK_COUNT
};
static const char *const role_keys[RK_COUNT] = {
    "class",	   "priority",	"nice", "slice_us",   "runtime_us",
    "deadline_us", "period_us", "cpus", "uclamp_min", "uclamp_max",
};

/* The prefix that marks a setting optional, and what it may mark: the
 * settings of kernel features a distribution may leave out. */
#define OPTIONAL_WORD "optional"

enum { PK_NAME, PK_DESCRIPTION, PK_COUNT };
static const char *const policy_keys[PK_COUNT] = {"name", "description"};

enum { KK_RT_RUNTIME, KK_RT_PERIOD, KK_FS_RUNTIME, KK_FS_PERIOD, KK_COUNT };
static const char *const knob_keys[KK_COUNT] = {
    "sched_rt_runtime_us",
    "sched_rt_period_us",
    "fair_server_runtime_us",
    "fair_server_period_us",
};

#define MAX_KEYS RK_COUNT

/* Kernel limits we check up front so the error names the file and line. */
#define SLICE_MIN_US	 100u /* EEVDF clamps custom slices to 0.1..100 ms */
#define SLICE_MAX_US	 100000u
#define DL_MAX_US	 4000000u /* sched_deadline_period_max_us default */
#define DL_PERIOD_MIN_US 100u	  /* sched_deadline_period_min_us default */
#define FS_MAX_US	 4194304u /* fair_server_period_max in the kernel */

struct il_policy {
	char *name;
	char *path;
	char *description;
	struct il_role_attrs attrs[N_ATTRS]; /* roles, then threads */
	bool has_thread[IL_T_COUNT];
	struct il_knob_settings knobs;
};

/* Raw values as read; checked against each other once the file is done,
 * because keys may come in any order within a section. */
struct role_raw {
	int64_t priority;
	uint64_t runtime_us, deadline_us, period_us;
};

static bool is_attr_section(int sec)
{
	return sec >= 0 && sec < N_ATTRS;
}

struct parse_ctx {
	const char *file;
	FILE *fp;
	int line;
	bool at_line_start;
	int cur;			   /* current section, SEC_NONE before any */
	int section_line[SEC_COUNT];	   /* 0 = not seen */
	int key_line[SEC_COUNT][MAX_KEYS]; /* 0 = not seen */
	struct role_raw raw[N_ATTRS];
	uint64_t fs_runtime_us, fs_period_us;
	struct il_policy *p;
	int name_line;	       /* of [policy] name, 0 when absent */
	uint64_t hash, nbytes; /* of the bytes read (FNV-1a): is it a built-in's copy? */
	int err;	       /* first error, 0 if none */
	char *errbuf;
	size_t errlen;
};

static const char *const class_names[] = {
    [SCHED_OTHER] = "other", [SCHED_FIFO] = "fifo", [SCHED_RR] = "rr",
    [SCHED_BATCH] = "batch", [SCHED_IDLE] = "idle", [SCHED_DEADLINE] = "deadline",
};
#define N_CLASSES (sizeof(class_names) / sizeof(class_names[0]))

const char *il_sched_class_name(int cls)
{
	if (cls < 0 || (size_t)cls >= N_CLASSES)
		return NULL;
	return class_names[cls];
}

int il_sched_class_parse(const char *s)
{
	for (size_t i = 0; s && i < N_CLASSES; i++)
		if (class_names[i] && strcmp(s, class_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

/* Records the first error only: later ones are usually consequences. */
__attribute__((format(printf, 3, 4))) static void fail(struct parse_ctx *c, int line,
						       const char *fmt, ...)
{
	if (c->err)
		return;
	c->err = -EINVAL;
	int n = snprintf(c->errbuf, c->errlen, "%s:%d: ", c->file, line);
	if (n < 0 || (size_t)n >= c->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->errbuf + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static const char *section_name(int sec)
{
	if (sec == SEC_POLICY)
		return "policy";
	if (sec == SEC_KNOBS)
		return "knobs";
	if (sec >= SEC_THREAD)
		return il_chain_thread((enum il_thread_id)(sec - SEC_THREAD))->name;
	return il_role_name((enum il_role)sec);
}

static int section_parse(const char *s)
{
	int t;

	if (strcmp(s, "policy") == 0)
		return SEC_POLICY;
	if (strcmp(s, "knobs") == 0)
		return SEC_KNOBS;
	t = il_chain_thread_parse(s);
	if (t >= 0)
		return SEC_THREAD + t;
	return il_role_parse(s);
}

/* "evdev, ui, ..." or "browser:evdev, ..." from the tables, so the
 * message cannot drift from what the parser accepts. */
static void section_list(char *buf, size_t len, int from, int to)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int sec = from; sec < to && off < len; sec++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					section_name(sec));
}

/* Called by the reader for a "[name]" line, before inih sees it. */
static void section_start(struct parse_ctx *c, const char *line)
{
	const char *close = strchr(line, ']');
	if (!close) {
		fail(c, c->line, "a section header without its ']'");
		return;
	}
	/* "[ui] junk": inih ignores what follows the ']'; a comment may. */
	const char *after = close + 1 + strspn(close + 1, " \t\r\n");
	if (*after && *after != ';' && *after != '#') {
		fail(c, c->line, "text after the section header [%.*s]", (int)(close - line - 1),
		     line + 1);
		return;
	}
	char name[64];
	size_t len = (size_t)(close - line - 1);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, line + 1, len);
	name[len] = '\0';

	int sec = section_parse(name);
	if (sec < 0) {
		char roles[160], threads[200];

		section_list(roles, sizeof(roles), 0, IL_ROLE_COUNT);
		section_list(threads, sizeof(threads), SEC_THREAD, SEC_POLICY);
		fail(c, c->line,
		     "unknown section [%s] (want a role: %s; a thread: %s; or "
		     "policy, knobs)",
		     name, roles, threads);
		return;
	}
	if (c->section_line[sec]) {
		fail(c, c->line, "duplicate section [%s] (first at line %d)", name,
		     c->section_line[sec]);
		return;
	}
	c->section_line[sec] = c->line;
	c->cur = sec;
}

/*
 * fgets-style reader for ini_parse_stream. Returning NULL ends the parse,
 * which is how a reader-detected error stops inih.
 */
#define FNV_OFFSET 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
	return h;
}

static char *reader(char *buf, int size, void *stream)
{
	struct parse_ctx *c = stream;
	long at = ftell(c->fp);
	if (c->err || !fgets(buf, size, c->fp))
		return NULL;
	bool starts_line = c->at_line_start;
	size_t len = strlen(buf);

	c->hash = fnv1a(c->hash, buf, len);
	c->nbytes += len;
	/* fgets read more than strlen sees: a NUL byte, which would otherwise
	 * pass for the line's end and come out as "line longer than ...". */
	long got = at >= 0 ? ftell(c->fp) - at : -1;
	if (got >= 0 && (size_t)got != len) {
		fail(c, c->line + starts_line, "a NUL byte (a policy file is text)");
		return NULL;
	}
	c->at_line_start = len > 0 && buf[len - 1] == '\n';
	/* One line a line: a carriage return that does not end its line (old
	 * Mac line ends) made inih read "[ui]\rnice = 1" as one section line
	 * and drop the key. CRLF line ends are fine. (Other control bytes in a
	 * name are shown escaped on a terminal, il_term.h.) */
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\r' && buf[i + 1] != '\n' && !(i + 1 == len && !c->at_line_start)) {
			fail(c, c->line + starts_line,
			     "a carriage return inside a line (lines end with LF or CRLF)");
			return NULL;
		}
	if (!starts_line)
		return buf;
	c->line++;
	if (!c->at_line_start && !feof(c->fp)) {
		fail(c, c->line, "line longer than %d characters", size - 2);
		return NULL;
	}

	const char *s = buf;
	if (c->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	const char *t = s + strspn(s, " \t\r\n");
	if (*t == '\0' || *t == '#' || *t == ';')
		return buf;
	/* inih reads an indented line as the continuation of the previous
	 * value (configparser style), which would turn "  nice = -8" into
	 * part of the line above; refuse it instead of guessing. */
	if (t != s) {
		fail(c, c->line, "indented line (keys and sections start in column 1)");
		return NULL;
	}
	if (*t == '[') {
		section_start(c, t);
		if (c->err)
			return NULL;
	}
	/* A comment after a value starts with '#' as a whole-line one does,
	 * or ';': inih strips only ';' (after a blank), so "class = fifo #
	 * the ui" read as the class "fifo # the ui". Hand it the ';' it
	 * knows. */
	for (char *h = buf + (t - buf) + 1; (h = strchr(h, '#')) != NULL; h++)
		if (h[-1] == ' ' || h[-1] == '\t') {
			*h = ';';
			break;
		}
	return buf;
}

static int key_index(int sec, const char *name)
{
	const char *const *keys = role_keys;
	int n = RK_COUNT;
	if (sec == SEC_POLICY) {
		keys = policy_keys;
		n = PK_COUNT;
	} else if (sec == SEC_KNOBS) {
		keys = knob_keys;
		n = KK_COUNT;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(name, keys[i]) == 0)
			return i;
	return -1;
}

static const char *key_list(int sec)
{
	if (sec == SEC_POLICY)
		return "name, description";
	if (sec == SEC_KNOBS)
		return "sched_rt_runtime_us, sched_rt_period_us, "
		       "fair_server_runtime_us, fair_server_period_us";
	return "class, priority, nice, slice_us, runtime_us, deadline_us, "
	       "period_us, cpus, uclamp_min, uclamp_max";
}

static int parse_us(struct parse_ctx *c, const char *key, const char *v, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	int r = il_parse_u64(v, min, max, out);
	if (r == -ERANGE)
		fail(c, c->line, "%s %s out of range %llu..%llu", key, v, (unsigned long long)min,
		     (unsigned long long)max);
	else if (r)
		fail(c, c->line, "bad number '%s' for %s (want an integer %llu..%llu)", v, key,
		     (unsigned long long)min, (unsigned long long)max);
	return r;
}

static int parse_i64(struct parse_ctx *c, const char *key, const char *v, int64_t min, int64_t max,
		     int64_t *out)
{
	int r = il_parse_i64(v, min, max, out);
	if (r == -ERANGE)
		fail(c, c->line, "%s %s out of range %lld..%lld", key, v, (long long)min,
		     (long long)max);
	else if (r && min == INT_MIN && max == INT_MAX)
		/* Its range is its class's, judged later (priority: 1..89 for
		 * fifo and rr): the int range said nothing true of it. */
		fail(c, c->line, "bad number '%s' for %s (want an integer)", v, key);
	else if (r)
		fail(c, c->line, "bad number '%s' for %s (want an integer %lld..%lld)", v, key,
		     (long long)min, (long long)max);
	return r;
}

static void role_value(struct parse_ctx *c, int role, int key, bool optional, const char *v)
{
	struct il_role_attrs *a = &c->p->attrs[role];
	struct role_raw *raw = &c->raw[role];
	int64_t i;
	uint64_t pct;

	switch (key) {
	case RK_CLASS: {
		int cls = il_sched_class_parse(v);
		if (cls < 0)
			fail(c, c->line,
			     "unknown class '%s' (want other, batch, idle, "
			     "fifo, rr or deadline)",
			     v);
		else
			a->sched_class = cls;
		break;
	}
	case RK_PRIORITY:
		/* The 1..99 range depends on the class, checked at the end. */
		parse_i64(c, "priority", v, INT_MIN, INT_MAX, &raw->priority);
		break;
	case RK_NICE:
		if (parse_i64(c, "nice", v, -20, 19, &i) == 0)
			a->nice = (int)i;
		break;
	case RK_SLICE: {
		uint64_t us;
		if (parse_us(c, "slice_us", v, SLICE_MIN_US, SLICE_MAX_US, &us) == 0)
			a->slice_ns = us * 1000u;
		break;
	}
	case RK_RUNTIME:
		parse_us(c, "runtime_us", v, 1, DL_MAX_US, &raw->runtime_us);
		break;
	case RK_DEADLINE:
		parse_us(c, "deadline_us", v, 1, DL_MAX_US, &raw->deadline_us);
		break;
	case RK_PERIOD:
		parse_us(c, "period_us", v, DL_PERIOD_MIN_US, DL_MAX_US, &raw->period_us);
		break;
	case RK_CPUS:
		if (il_cpuset_parse(v, &a->cpus))
			fail(c, c->line, "bad cpus '%s' (want a list like 0,1 or 0-3)", v);
		else
			a->has_cpus = true;
		break;
	case RK_UCLAMP_MIN:
		if (parse_us(c, "uclamp_min", v, 0, 100, &pct) == 0) {
			a->has_uclamp_min = true;
			a->uclamp_min_pct = (unsigned)pct;
			if (optional)
				a->optional |= IL_OPT_UCLAMP_MIN;
		}
		break;
	case RK_UCLAMP_MAX:
		if (parse_us(c, "uclamp_max", v, 0, 100, &pct) == 0) {
			a->has_uclamp_max = true;
			a->uclamp_max_pct = (unsigned)pct;
			if (optional)
				a->optional |= IL_OPT_UCLAMP_MAX;
		}
		break;
	}
}

/* Valid UTF-8 without control characters (C0, DEL, C1): shown as it is. */
static bool printable_utf8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		uint32_t cp;
		int more;

		if (*u < 0x20 || *u == 0x7f)
			return false;
		if (*u < 0x80) {
			u++;
			continue;
		}
		if (*u >= 0xc2 && *u <= 0xdf)
			more = 1;
		else if (*u >= 0xe0 && *u <= 0xef)
			more = 2;
		else if (*u >= 0xf0 && *u <= 0xf4)
			more = 3;
		else
			return false;
		cp = *u & (0x3fu >> more);
		for (int i = 1; i <= more; i++) {
			if ((u[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (u[i] & 0x3f);
		}
		/* Overlong forms, surrogates, past U+10FFFF, C1 controls. */
		if ((more == 2 && cp < 0x800) || (more == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
			return false;
		u += more + 1;
	}
	return true;
}

/* A name the summary line, the report and the sweep's file names carry as one word. */
static bool name_ok(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n > IL_POLICY_NAME_MAX)
		return false;
	for (const char *q = v; *q; q++)
		if (*q <= ' ' || *q > '~' || *q == '/')
			return false;
	return true;
}

static void policy_value(struct parse_ctx *c, int key, const char *v)
{
	char **dst = key == PK_NAME ? &c->p->name : &c->p->description;
	if (key == PK_NAME && *v == '\0') {
		fail(c, c->line, "empty policy name");
		return;
	}
	/* An escape sequence in either reached the terminal as it was (the
	 * summary line, `policies show`); a blank or a '/' in the name split
	 * the summary line's words and the sweep's cell names. */
	if (key == PK_NAME && !name_ok(v)) {
		fail(c, c->line,
		     "policy name: one word of printable ASCII without '/', at most %d characters "
		     "(it names the run in the summary line, the report and the sweep's files)",
		     IL_POLICY_NAME_MAX);
		return;
	}
	if (key == PK_DESCRIPTION && !printable_utf8(v)) {
		fail(c, c->line, "description: want UTF-8 text without control characters");
		return;
	}
	if (key == PK_NAME)
		c->name_line = c->line;
	char *copy = strdup(v);
	if (!copy) {
		c->err = -ENOMEM;
		snprintf(c->errbuf, c->errlen, "%s: out of memory", c->file);
		return;
	}
	free(*dst);
	*dst = copy;
}

static void knob_value(struct parse_ctx *c, int key, const char *v)
{
	struct il_knob_settings *k = &c->p->knobs;
	switch (key) {
	case KK_RT_RUNTIME:
		if (parse_i64(c, "sched_rt_runtime_us", v, -1, INT_MAX, &k->rt_runtime_us) == 0)
			k->has_rt_runtime = true;
		break;
	case KK_RT_PERIOD:
		if (parse_i64(c, "sched_rt_period_us", v, 1, INT_MAX, &k->rt_period_us) == 0)
			k->has_rt_period = true;
		break;
	case KK_FS_RUNTIME:
		parse_us(c, "fair_server_runtime_us", v, 0, FS_MAX_US, &c->fs_runtime_us);
		break;
	case KK_FS_PERIOD:
		parse_us(c, "fair_server_period_us", v, DL_PERIOD_MIN_US, FS_MAX_US,
			 &c->fs_period_us);
		break;
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *c = user;
	(void)section; /* the reader tracked it, with its line number */
	if (c->err)
		return 1;
	if (c->cur == SEC_NONE) {
		fail(c, c->line, "key '%s' before any [section]", name);
		return 1;
	}
	/* "optional KEY": inih keeps the inner blanks of a name. */
	bool optional = false;
	size_t wlen = strlen(OPTIONAL_WORD);
	if (strncmp(name, OPTIONAL_WORD, wlen) == 0 && (name[wlen] == ' ' || name[wlen] == '\t')) {
		optional = true;
		name += wlen + strspn(name + wlen, " \t");
	}
	int key = key_index(c->cur, name);
	if (key < 0) {
		fail(c, c->line, "unknown key '%s' in [%s] (want %s%s)", name, section_name(c->cur),
		     key_list(c->cur),
		     !optional && strpbrk(name, " \t") && is_attr_section(c->cur)
			 ? "; a setting is marked optional as 'optional KEY = VALUE'"
			 : "");
		return 1;
	}
	if (optional &&
	    (!is_attr_section(c->cur) || (key != RK_UCLAMP_MIN && key != RK_UCLAMP_MAX))) {
		fail(c, c->line,
		     "%s in [%s] cannot be optional (only uclamp_min and "
		     "uclamp_max, which a kernel may lack, can)",
		     name, section_name(c->cur));
		return 1;
	}
	if (c->key_line[c->cur][key]) {
		fail(c, c->line, "duplicate key '%s' in [%s] (first at line %d)", name,
		     section_name(c->cur), c->key_line[c->cur][key]);
		return 1;
	}
	c->key_line[c->cur][key] = c->line;
	if (c->cur == SEC_POLICY)
		policy_value(c, key, value);
	else if (c->cur == SEC_KNOBS)
		knob_value(c, key, value);
	else
		role_value(c, c->cur, key, optional, value);
	return 1;
}

/* Cross-key rules of one role; errors point at the offending key's line. */
static void check_role(struct parse_ctx *c, int role)
{
	struct il_role_attrs *a = &c->p->attrs[role];
	struct role_raw *raw = &c->raw[role];
	const int *kl = c->key_line[role];
	const char *rname = section_name(role);
	const char *cname = il_sched_class_name(a->sched_class);

	if (il_sched_class_is_rt(a->sched_class)) {
		if (!kl[RK_PRIORITY])
			fail(c, c->section_line[role], "[%s]: class %s needs priority = 1..%d",
			     rname, cname, IL_POLICY_RT_PRIO_MAX);
		else if (raw->priority < 1 || raw->priority > 99)
			fail(c, kl[RK_PRIORITY], "priority %lld out of range for %s (want 1..%d)",
			     (long long)raw->priority, cname, IL_POLICY_RT_PRIO_MAX);
		else if (raw->priority > IL_POLICY_RT_PRIO_MAX)
			fail(c, kl[RK_PRIORITY],
			     "priority %lld above %d, the highest a policy "
			     "may use (90..99 are the harness's: watchdog 99, orchestrator 98, "
			     "control threads 97)",
			     (long long)raw->priority, IL_POLICY_RT_PRIO_MAX);
		else
			a->priority = (int)raw->priority;
	} else if (kl[RK_PRIORITY]) {
		fail(c, kl[RK_PRIORITY],
		     "priority applies only to fifo and rr, not %s "
		     "(use nice for other/batch)",
		     cname);
	}
	if (kl[RK_NICE] && !il_sched_class_is_fair(a->sched_class))
		fail(c, kl[RK_NICE], "nice applies only to other and batch, not %s", cname);
	if (kl[RK_SLICE] && !il_sched_class_is_fair(a->sched_class))
		fail(c, kl[RK_SLICE], "slice_us applies only to other and batch, not %s", cname);
	/* The kernel clamps fair and RT tasks only (sched_class.uclamp_enabled);
	 * a deadline task's share is its runtime/period. */
	for (int k = RK_UCLAMP_MIN; k <= RK_UCLAMP_MAX; k++)
		if (kl[k] && a->sched_class == SCHED_DEADLINE)
			fail(c, kl[k],
			     "%s does not apply to class deadline (its runtime and "
			     "period set its share)",
			     role_keys[k]);
	if (a->has_uclamp_min && a->has_uclamp_max && a->uclamp_min_pct > a->uclamp_max_pct)
		fail(c, kl[RK_UCLAMP_MIN],
		     "uclamp_min %u > uclamp_max %u (want uclamp_min <= "
		     "uclamp_max)",
		     a->uclamp_min_pct, a->uclamp_max_pct);

	if (a->sched_class != SCHED_DEADLINE) {
		for (int k = RK_RUNTIME; k <= RK_PERIOD; k++)
			if (kl[k])
				fail(c, kl[k], "%s applies only to class deadline, not %s",
				     role_keys[k], cname);
		return;
	}
	if (!kl[RK_RUNTIME] || !kl[RK_PERIOD]) {
		fail(c, c->section_line[role],
		     "[%s]: class deadline needs runtime_us and period_us", rname);
		return;
	}
	/* The kernel's rule: runtime <= deadline <= period. A missing
	 * deadline means an implicit deadline, equal to the period. */
	uint64_t deadline = kl[RK_DEADLINE] ? raw->deadline_us : raw->period_us;
	if (raw->runtime_us > deadline)
		fail(c, kl[RK_RUNTIME],
		     "runtime_us %llu > %s %llu (want runtime <= "
		     "deadline <= period)",
		     (unsigned long long)raw->runtime_us,
		     kl[RK_DEADLINE] ? "deadline_us" : "period_us", (unsigned long long)deadline);
	else if (deadline > raw->period_us)
		fail(c, kl[RK_DEADLINE],
		     "deadline_us %llu > period_us %llu (want "
		     "runtime <= deadline <= period)",
		     (unsigned long long)deadline, (unsigned long long)raw->period_us);
	else if (a->has_cpus)
		fail(c, kl[RK_CPUS],
		     "cpus cannot be set for class deadline "
		     "(SCHED_DEADLINE needs the affinity of its whole root domain)");
	a->dl_runtime_ns = raw->runtime_us * 1000u;
	a->dl_deadline_ns = deadline * 1000u;
	a->dl_period_ns = raw->period_us * 1000u;
}

static void check_knobs(struct parse_ctx *c)
{
	struct il_knob_settings *k = &c->p->knobs;
	const int *kl = c->key_line[SEC_KNOBS];
	if (k->has_rt_runtime && k->has_rt_period && k->rt_runtime_us > k->rt_period_us)
		fail(c, kl[KK_RT_RUNTIME],
		     "sched_rt_runtime_us %lld > sched_rt_period_us "
		     "%lld (want -1 or at most the period)",
		     (long long)k->rt_runtime_us, (long long)k->rt_period_us);
	if (!kl[KK_FS_RUNTIME] && !kl[KK_FS_PERIOD])
		return;
	if (!kl[KK_FS_RUNTIME] || !kl[KK_FS_PERIOD]) {
		fail(c, c->section_line[SEC_KNOBS],
		     "[knobs]: fair_server_runtime_us and "
		     "fair_server_period_us go together");
		return;
	}
	if (c->fs_runtime_us > c->fs_period_us) {
		fail(c, kl[KK_FS_RUNTIME],
		     "fair_server_runtime_us %llu > "
		     "fair_server_period_us %llu",
		     (unsigned long long)c->fs_runtime_us, (unsigned long long)c->fs_period_us);
		return;
	}
	k->has_fair_server = true;
	k->fs_runtime_ns = c->fs_runtime_us * 1000u;
	k->fs_period_ns = c->fs_period_us * 1000u;
}

static bool section_empty(const struct parse_ctx *c, int sec)
{
	for (int k = 0; k < MAX_KEYS; k++)
		if (c->key_line[sec][k])
			return false;
	return true;
}

/*
 * Sections in file order, so the reported error is the first in the file.
 * A file without a section (empty, or only comments) and a section without
 * a key are refused: each passed for the untuned cfs policy, the empty one
 * under its file's name, and an empty [viz:io] silently took its thread
 * off its role's settings.
 */
static void check_all(struct parse_ctx *c)
{
	bool any = false;

	for (int sec = 0; sec < SEC_COUNT; sec++)
		any = any || c->section_line[sec];
	if (!any) {
		c->err = -EINVAL;
		snprintf(c->errbuf, c->errlen,
			 "%s: no policy in it: empty, or only comments and blank lines (want a "
			 "[policy] name, or a role's settings)",
			 c->file);
		return;
	}
	for (int line = 1; line <= c->line && !c->err; line++)
		for (int sec = 0; sec < SEC_COUNT; sec++) {
			if (c->section_line[sec] != line)
				continue;
			if (section_empty(c, sec))
				fail(c, line,
				     "empty section [%s] (give it settings, or leave it out)",
				     section_name(sec));
			else if (is_attr_section(sec))
				check_role(c, sec);
		}
	if (!c->err)
		check_knobs(c);
}

void il_policy_free(struct il_policy *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->path);
	free(p->description);
	free(p);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void il_policy_list_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

int il_policy_list(const char *builtin_dir, char ***names_out, size_t *n_out)
{
	DIR *d = opendir(builtin_dir);
	if (!d)
		return -errno;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	struct dirent *e;
	const size_t slen = strlen(POLICY_SUFFIX);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= slen || strcmp(e->d_name + len - slen, POLICY_SUFFIX) != 0 ||
		    e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				r = -ENOMEM;
				goto out;
			}
			names = nn;
		}
		names[n] = strndup(e->d_name, len - slen);
		if (!names[n]) {
			r = -ENOMEM;
			goto out;
		}
		n++;
	}
	/* qsort's array must not be NULL, even for no elements (C11 7.22.5):
	 * a directory without policies left names NULL, which UBSan flags. */
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
out:
	closedir(d);
	if (r) {
		il_policy_list_free(names, n);
		return r;
	}
	*names_out = names;
	*n_out = n;
	return 0;
}

static void unknown_policy(const char *name, const char *dir, char *err, size_t errlen)
{
	char **names;
	size_t n;
	int r = il_policy_list(dir, &names, &n);
	if (r < 0) {
		snprintf(err, errlen, "unknown policy '%s' (no built-ins: %s: %s)", name, dir,
			 strerror(-r));
		return;
	}
	if (n == 0) {
		il_policy_list_free(names, n);
		snprintf(err, errlen, "unknown policy '%s' (no built-ins: no *.policy files in %s)",
			 name, dir);
		return;
	}
	int off = snprintf(err, errlen, "unknown policy '%s' (built-ins:", name);
	for (size_t i = 0; i < n && off > 0 && (size_t)off < errlen; i++)
		off += snprintf(err + off, errlen - (size_t)off, "%s %s", i ? "," : "", names[i]);
	/* "mine.policy" in the current directory is easy to mistake for a name. */
	size_t len = strlen(name), slen = strlen(POLICY_SUFFIX);
	bool looks_like_file = len > slen && strcmp(name + len - slen, POLICY_SUFFIX) == 0;
	if (off > 0 && (size_t)off < errlen)
		snprintf(err + off, errlen - (size_t)off, ")%s%s",
			 looks_like_file ? "; for a file here, use ./" : "",
			 looks_like_file ? name : "");
	il_policy_list_free(names, n);
}

/* The file stem: "/a/b/rt.policy" -> "rt". */
static char *stem(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base), slen = strlen(POLICY_SUFFIX);
	if (len > slen && strcmp(base + len - slen, POLICY_SUFFIX) == 0)
		len -= slen;
	return strndup(base, len);
}

/*
 * Whether the built-in at path holds the bytes c read (their FNV-1a hash
 * and length): the file c read may be a pipe (--policy /dev/stdin), which
 * cannot be read again.
 */
static bool same_bytes(const char *path, const struct parse_ctx *c)
{
	FILE *f = fopen(path, "rb");
	uint64_t h = FNV_OFFSET, n = 0;
	char buf[4096];
	size_t got;

	if (!f)
		return false;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		h = fnv1a(h, buf, got);
		n += got;
	}
	fclose(f);
	return h == c->hash && n == c->nbytes;
}

/*
 * A policy file that calls itself by a built-in's name (its [policy] name,
 * or its file name without one) ran as that built-in in every report:
 * "policy rt" with every thread CFS, grouped with real rt rounds by
 * compare and the sweep. Refused unless it is that built-in, byte for
 * byte (a copy of it). 0, or -EINVAL with the line in c's error.
 */
static int builtin_name_taken(struct parse_ctx *c, const char *builtin_dir)
{
	char *theirs = NULL;
	struct stat st;
	int r = 0;

	if (asprintf(&theirs, "%s/%s%s", builtin_dir, c->p->name, POLICY_SUFFIX) < 0)
		return -ENOMEM;
	if (stat(theirs, &st) == 0 && S_ISREG(st.st_mode) && !same_bytes(theirs, c)) {
		if (c->name_line)
			fail(c, c->name_line,
			     "name '%s' is a built-in policy's (%s): this file is not that "
			     "policy; give it another name",
			     c->p->name, theirs);
		else
			fail(c, 1,
			     "its file name makes it '%s', a built-in policy's (%s), and it has no "
			     "[policy] name; give it one",
			     c->p->name, theirs);
		r = c->err;
	}
	free(theirs);
	return r;
}

int il_policy_load(const char *name_or_path, const char *builtin_dir, struct il_policy **out,
		   char *err, size_t errlen)
{
	bool builtin = strchr(name_or_path, '/') == NULL;
	char *path = NULL;
	if (builtin) {
		if (asprintf(&path, "%s/%s%s", builtin_dir, name_or_path, POLICY_SUFFIX) < 0)
			return -ENOMEM;
	} else if (!(path = strdup(name_or_path))) {
		return -ENOMEM;
	}

	struct parse_ctx *c = calloc(1, sizeof(*c));
	struct il_policy *p = calloc(1, sizeof(*p));
	int r = 0;
	if (!c || !p) {
		r = -ENOMEM;
		goto out;
	}
	/* As every input: only a regular file, and a FIFO refused at once
	 * (`policies show` waited on one forever), wherever the name led. */
	char kind[48] = "";
	int fd = il_file_open_input(path, false, kind, sizeof(kind));

	c->fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!c->fp) {
		r = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		if (builtin && r == -ENOENT)
			unknown_policy(name_or_path, builtin_dir, err, errlen);
		else if (kind[0])
			snprintf(err, errlen, "%s: %s, not a regular file", path, kind);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-r));
		goto out;
	}
	c->file = path;
	c->hash = FNV_OFFSET;
	c->cur = SEC_NONE;
	c->at_line_start = true;
	c->p = p;
	c->errbuf = err;
	c->errlen = errlen;
	for (int i = 0; i < N_ATTRS; i++)
		p->attrs[i].sched_class = SCHED_OTHER;

	int ir = ini_parse_stream(reader, c, handler, c);
	if (!c->err && ir == -2) {
		c->err = -ENOMEM;
	} else if (!c->err && ir > 0) {
		fail(c, ir, "syntax error (want '[section]', 'key = value' or a # comment)");
	} else if (!c->err && ferror(c->fp)) {
		/* fgets failed in the reader: errno is still its read's. */
		c->err = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-c->err));
	}
	if (!c->err)
		check_all(c);
	r = c->err;
	if (r)
		goto out;

	for (int t = 0; t < IL_T_COUNT; t++)
		p->has_thread[t] = c->section_line[SEC_THREAD + t] != 0;
	if (!p->name && !(p->name = stem(path))) {
		r = -ENOMEM;
		goto out;
	}
	if (!c->name_line && !name_ok(p->name)) {
		fail(c, 1,
		     "no [policy] name, and its file name is not one (one word of printable ASCII "
		     "without '/', at most %d characters): give it a name",
		     IL_POLICY_NAME_MAX);
		r = c->err;
		goto out;
	}
	if (!builtin && builtin_dir) {
		r = builtin_name_taken(c, builtin_dir);
		if (r)
			goto out;
	}
	/* Absolute, as every path a report records (policy_file). */
	if (!builtin) {
		char *abs = realpath(path, NULL);

		if (abs) {
			free(path);
			path = abs;
		}
	}
	if (!p->description && !(p->description = strdup(""))) {
		r = -ENOMEM;
		goto out;
	}
	p->path = path;
	path = NULL;
	*out = p;
	p = NULL;
out:
	if (c && c->fp)
		fclose(c->fp);
	free(c);
	il_policy_free(p);
	free(path);
	return r;
}

const char *il_policy_name(const struct il_policy *p)
{
	return p->name;
}

const char *il_policy_path(const struct il_policy *p)
{
	return p->path;
}

const char *il_policy_description(const struct il_policy *p)
{
	return p->description;
}

const struct il_role_attrs *il_policy_role(const struct il_policy *p, enum il_role r)
{
	if ((unsigned)r >= IL_ROLE_COUNT)
		return NULL;
	return &p->attrs[r];
}

const struct il_role_attrs *il_policy_thread(const struct il_policy *p, enum il_role r,
					     const char *name)
{
	int t = name ? il_chain_thread_parse(name) : -EINVAL;

	if ((unsigned)r >= IL_ROLE_COUNT)
		return NULL;
	if (t >= 0 && p->has_thread[t] && il_chain_thread((enum il_thread_id)t)->role == r)
		return &p->attrs[SEC_THREAD + t];
	return &p->attrs[r];
}

const struct il_role_attrs *il_policy_attrs_at(const struct il_policy *p, size_t i,
					       const char **label)
{
	if (i < IL_ROLE_COUNT) {
		if (label)
			*label = il_role_name((enum il_role)i);
		return &p->attrs[i];
	}
	i -= IL_ROLE_COUNT;
	for (int t = 0; t < IL_T_COUNT; t++)
		if (p->has_thread[t] && i-- == 0) {
			if (label)
				*label = il_chain_thread((enum il_thread_id)t)->name;
			return &p->attrs[SEC_THREAD + t];
		}
	return NULL;
}

const struct il_knob_settings *il_policy_knobs(const struct il_policy *p)
{
	return &p->knobs;
}

bool il_policy_uses_rt(const struct il_policy *p)
{
	for (int i = 0; i < N_ATTRS; i++)
		if (il_sched_class_needs_rttime(p->attrs[i].sched_class))
			return true;
	return false;
}
