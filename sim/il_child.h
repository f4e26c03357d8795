/*
 * The runtime every simulated process shares: option parsing for the
 * options the orchestrator passes to all children, the control channel on
 * the process's main thread, and role threads that each run their own
 * uv_loop after naming themselves and applying their role's policy.
 */
#ifndef IL_CHILD_H
#define IL_CHILD_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "il_chain.h"
#include "il_lock.h"
#include "il_role.h"

struct il_child;
struct il_role_thread;

/* Runs on the new thread, on its loop, after the policy is applied. */
typedef int (*il_role_setup_fn)(struct il_role_thread *t);
/* Runs on the thread when it is told to stop: close the handles you opened. */
typedef void (*il_role_teardown_fn)(struct il_role_thread *t);

struct il_role_thread {
	struct il_child *child;
	enum il_thread_id id; /* its row in il_chain */
	enum il_role role;
	char name[16]; /* "browser:ui"; at most 15 characters */
	il_role_setup_fn setup;
	il_role_teardown_fn teardown;
	void *data;
	uint64_t work_us; /* this thread's per-handler CPU work */
	/* Filled by the runtime. */
	uv_loop_t loop;
	uv_async_t stop_async;
	pthread_t th;
	pid_t tid;
	sem_t started;
	int err;
	char errmsg[256];
	bool running;
};

/* Process-specific hooks, called on the main thread. */
struct il_child_hooks {
	/* "start" received: measurement begins. */
	void (*start)(struct il_child *c);
	/* "stop" received: stop role threads, add process keys to stats. */
	void (*stop)(struct il_child *c, cJSON *stats);
	/* An option the common parser does not know; return 0 or -EINVAL. */
	int (*option)(struct il_child *c, const char *name, const char *value);
	void *data;
};

/*
 * Parses the common options (--policy, --builtin-dir, --loops-per-us,
 * --rttime-us, --parent-pid, --work NAME=US, --lock) and hands others of
 * the form --name=value to hooks->option. Ties the process's life to the
 * orchestrator, loads the policy and opens the control channel (fd 3).
 * proc names the process (il_chain). On failure prints one line and
 * exits 2 (bad options) or 1.
 */
struct il_child *il_child_init(int argc, char **argv, enum il_proc_id proc,
			       const struct il_child_hooks *hooks);

/* The fd this process holds for a channel of the chain (il_chain_fd). */
int il_child_fd(const struct il_child *c, enum il_channel ch);

/* The work configured for a thread name (0 when none). */
uint64_t il_child_work_us(const struct il_child *c, const char *thread_name);

/* The lock guarding the hop queues (--lock), pthread by default. */
enum il_lock_kind il_child_lock(const struct il_child *c);

/* The process's main loop (control channel). */
uv_loop_t *il_child_loop(struct il_child *c);

/* The run's halt word (wire/il_halt.h) for the process's worker groups,
 * NULL when the orchestrator sent none (--halt-word=ctl not given). */
const _Atomic uint64_t *il_child_halt_word(const struct il_child *c);

void *il_child_data(const struct il_child *c);

/*
 * Starts chain thread `id` (its name and role from il_chain) in t, and
 * waits until its setup ran on it. On failure reports the error to the
 * orchestrator and exits (il_child_fail).
 */
void il_child_start_thread(struct il_child *c, struct il_role_thread *t, enum il_thread_id id,
			   il_role_setup_fn setup, il_role_teardown_fn teardown);

/* Tells the thread to run its teardown and joins it. Main thread only. */
void il_role_thread_stop(struct il_role_thread *t);

/*
 * The thread-init step used by role threads and by extra threads (hogs):
 * names the calling thread, applies the role's attributes, records the
 * read-back for the ready report. Matches il_thread_init_fn.
 */
int il_child_thread_init(void *child, enum il_role role, const char *name, char *err,
			 size_t errlen);

/* Reports readiness (all threads up) to the orchestrator. */
void il_child_ready(struct il_child *c);

/* Reports a fatal error to the orchestrator, then exits 1. */
void il_child_fail(struct il_child *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* Runs the control loop until "stop", frees c; returns the exit code (0). */
int il_child_run(struct il_child *c);

#endif
