#include "il_rss.h"
#include "il_procfs.h"

uint64_t il_rss_status_kib(const char *field)
{
	char text[IL_PROCFS_STATUS_MAX];
	uint64_t kib;

	if (il_procfs_status(0, 0, text, sizeof(text)) ||
	    il_procfs_status_field(text, field, 10, &kib))
		return 0;
	return kib;
}

uint64_t il_rss_peak_kib(void)
{
	return il_rss_status_kib("VmHWM");
}
