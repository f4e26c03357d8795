#include "il_rss.h"

#include <stdio.h>
#include <string.h>

uint64_t il_rss_status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t len = strlen(field);
	char line[256];
	unsigned long long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, len) == 0 && line[len] == ':' &&
		    sscanf(line + len + 1, "%llu", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

uint64_t il_rss_peak_kib(void)
{
	return il_rss_status_kib("VmHWM");
}
