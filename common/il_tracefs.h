/*
 * tracefs without changing the machine: the perf event ids of tracepoints
 * (what attaching a classic tracepoint BPF program needs) and a writable
 * trace_marker, whether or not tracefs is mounted.
 *
 * When tracefs is not mounted, a short-lived child mounts it in a private
 * mount namespace, where nobody else sees it, and hands back what was
 * asked for (the ids as text over a pipe, the marker as a descriptor over
 * a socketpair with SCM_RIGHTS). Mounting it for everyone would change
 * the system. Needs CAP_SYS_ADMIN for the namespace; without it only an
 * already mounted tracefs works. No libbpf: spin/ and attrib/ share it.
 */
#ifndef IL_TRACEFS_H
#define IL_TRACEFS_H

#include <stddef.h>

/*
 * Fills ids[i] with the perf event id (PERF_TYPE_TRACEPOINT config) of
 * tracepoint events[i], written "group/name" (e.g. "sched/sched_switch"),
 * or with a negative errno for that one (-ENOENT: no such tracepoint).
 * Returns 0 when every id was read, -ENOENT when some were missing (the
 * others are filled), or a negative errno when tracefs could not be
 * reached at all (-EPERM without the privilege to mount it).
 */
int il_tracefs_event_ids(const char *const *events, size_t n, int *ids);

/*
 * An id file's text (n bytes, not NUL-terminated, as read from
 * events/GROUP/NAME/id): the id, in [1, INT_MAX], or -EIO when the text is
 * not one decimal number the way the kernel writes it (no sign, no leading
 * zero, its newline at the end or none). A number cut short by a short
 * read buffer, out of range, or followed by anything is not an id.
 */
int il_tracefs_id_parse(const char *text, size_t n);

/*
 * Opens tracefs's file (a name in tracefs's top directory, "trace_marker")
 * with flags | O_CLOEXEC. Returns the descriptor, which the caller owns,
 * or a negative errno.
 */
int il_tracefs_open(const char *file, int flags);

/* il_tracefs_open("trace_marker", O_WRONLY). */
int il_tracefs_open_marker(void);

/*
 * tracefs's tracing_on: 1 when the ring buffer records, 0 when it is off
 * (what is written to trace_marker is then dropped), or a negative errno.
 */
int il_tracefs_tracing_on(void);

#endif
