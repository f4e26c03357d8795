#include "il_rss.h"

#include <stdio.h>
#include <string.h>

uint64_t il_rss_peak_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0 && sscanf(line + 6, "%llu", &kib) == 1)
			break;
	fclose(f);
	return kib;
}
