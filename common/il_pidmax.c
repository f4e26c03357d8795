#include "il_pidmax.h"

#include <stdio.h>

uint32_t il_pidmax_get(uint32_t cap)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	if (v == 0)
		v = 32768;
	return v > cap ? cap : (uint32_t)v;
}
