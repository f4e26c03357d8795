/*
 * The per-target logic of the libFuzzer targets (issue 8), shared with the
 * regression test: tests/test_fuzz_regress.c replays the checked-in corpora
 * and every crash input through exactly these functions, built with gcc and
 * without libFuzzer. Each fuzz_<name>.c defines LLVMFuzzerTestOneInput only
 * when IL_FUZZ is defined (tests/fuzz/fuzz.cmake does that).
 *
 * Each function feeds one input to a decoder or parser and checks what the
 * caller relies on. It returns 0, or -1 after printing one line to stderr
 * when a check failed (the libFuzzer wrapper then aborts, so the input is
 * saved as a crash). Memory errors, UB and leaks are the sanitizers' job.
 */
#ifndef IL_FUZZ_H
#define IL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

/* IPC frames: il_frame_decode over a stream as il_ctl.c's reader does. */
int il_fuzz_frame(const uint8_t *data, size_t size);

/* Policy files: il_policy_load on the input as the file's contents. */
int il_fuzz_policy(const uint8_t *data, size_t size);

/* Synthetic evdev records: il_input_reader_dispatch on a pipe. */
int il_fuzz_evdev(const uint8_t *data, size_t size);

/* CLI numbers, --input/--present specs and `inputlat run` options. */
int il_fuzz_cli(const uint8_t *data, size_t size);

/* evemu recordings (--input replay:FILE): il_evemu_parse and the replay
 * checks of a run's preflight on the input as the file's contents. */
int il_fuzz_evemu(const uint8_t *data, size_t size);

/* evemu round trip: il_evemu_parse, il_evemu_write, il_evemu_parse again
 * give the same device and events, and a second write the same bytes. */
int il_fuzz_evemu_round(const uint8_t *data, size_t size);

/* What a dead run left (knob state, knob lock, background state files):
 * il_knobs_state_parse, il_knobs_lock_parse, il_background_state_parse. */
int il_fuzz_state(const uint8_t *data, size_t size);

/* Run reports (one, or several split on a line "%%"): explain, compare and
 * reproduce's recorded runs read them. */
int il_fuzz_report(const uint8_t *data, size_t size);

/* /proc/stat: il_cpustat_parse on the input as the file's text. */
int il_fuzz_cpustat(const uint8_t *data, size_t size);

/* CPU bandwidth: il_cpu_bandwidth_group_parse on mountinfo, "%%", the cgroup
 * file; il_cpu_bandwidth_value_parse on the input as a limit file. */
int il_fuzz_cpu_bandwidth(const uint8_t *data, size_t size);

/* Tracepoint id files: il_tracefs_id_parse on the input as the file's text. */
int il_fuzz_tracefs(const uint8_t *data, size_t size);

/* procfs/sysfs values, /proc/self/mounts and kernel configs: il_sysinfo_value_parse,
 * il_sysinfo_cpu_mount_next and il_sysinfo_kconfig_parse on the input. */
int il_fuzz_sysinfo(const uint8_t *data, size_t size);

/* sysfs attributes (an input device's name): il_input_sysfs_attr_parse on the
 * input as the attribute's text. */
int il_fuzz_input_attr(const uint8_t *data, size_t size);

/*
 * The input as a file, for a target whose reader takes a path: the
 * contents of one memfd per target (a file per input would be slow), its
 * path /proc/self/fd/N. NULL when it cannot be made or written: the
 * target then skips the input.
 */
static inline const char *il_fuzz_as_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("il-fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return NULL;
	return path;
}

/* Inputs larger than this are cut: no target gains from more. */
#define IL_FUZZ_MAX_INPUT 32768

/*
 * The input (cut at IL_FUZZ_MAX_INPUT, the new size in *size) in an
 * allocation of its own: exactly its bytes, so that a parser that reads
 * past them trips ASan, or with a NUL after them (nul) for a reader that
 * takes a string, as one that read a file would. NULL when out of memory:
 * the target then skips the input. The caller frees it.
 */
static inline char *il_fuzz_copy(const uint8_t *data, size_t *size, bool nul)
{
	char *text;
	size_t n;

	if (*size > IL_FUZZ_MAX_INPUT)
		*size = IL_FUZZ_MAX_INPUT;
	n = *size + nul;
	text = malloc(n ? n : 1);
	if (text) {
		memcpy(text, data, *size);
		if (nul)
			text[*size] = '\0';
	}
	return text;
}

#define IL_FUZZ_CHECK(cond)                                                                        \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/*
 * A target's libFuzzer entry point, where IL_FUZZ is defined: fn's failed
 * check aborts, so that libFuzzer keeps the input as a crash.
 */
#ifdef IL_FUZZ
#include <stdlib.h>
#define IL_FUZZ_ENTRY(fn)                                                                          \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                              \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
	{                                                                                          \
		if (fn(data, size) < 0)                                                            \
			abort();                                                                   \
		return 0;                                                                          \
	}
#else
#define IL_FUZZ_ENTRY(fn)
#endif

#endif
