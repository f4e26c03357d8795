/* Where the orchestrator finds its child programs and built-in policies. */
#ifndef IL_PATHS_H
#define IL_PATHS_H

#include <stddef.h>

/*
 * The directory holding browser-sim, render-sim, viz-sim (and il-workload):
 * the orchestrator's own directory in a build tree, else the install's
 * libexec directory. Returns 0 or -ENOENT with one line in err.
 */
int il_paths_children(char *buf, size_t len, char *err, size_t errlen);

/* Built-in policy directory: $IL_POLICY_DIR, <exe dir>/policies, or the installed one. */
void il_paths_policies(char *buf, size_t len);

/* The directory of the JS hog's scripts (miner.js): $IL_JS_DIR,
 * <exe dir>/js, or the installed one. */
void il_paths_js(char *buf, size_t len);

/* The running orchestrator's own path (/proc/self/exe). */
int il_paths_self(char *buf, size_t len);

#endif
