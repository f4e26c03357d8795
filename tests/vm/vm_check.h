/*
 * A tiny check harness for the in-VM test programs. They are linked
 * statically and cmocka ships no static archive, so they count checks
 * themselves and end with "N passed, N failed" like the rest of the suite.
 */
#ifndef VM_CHECK_H
#define VM_CHECK_H

#include <stdio.h>

static unsigned vm_passed, vm_failed;

#define VM_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (cond) {                                                                        \
			vm_passed++;                                                               \
		} else {                                                                           \
			vm_failed++;                                                               \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                     \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

/* Prints the summary line; the process exit status is the verdict. */
static inline int vm_summary(const char *prog)
{
	printf("%s: %u passed, %u failed\n", prog, vm_passed, vm_failed);
	fflush(stdout);
	return vm_failed ? 1 : 0;
}

#endif
