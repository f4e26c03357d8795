#include "il_thread.h"

#include <unistd.h>

pid_t il_gettid(void)
{
	/* gettid() is a system call; the hop path asks for it once per message. */
	static __thread pid_t tid;

	if (!tid)
		tid = gettid();
	return tid;
}
