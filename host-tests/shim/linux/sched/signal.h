/* Host shim for the SFrame .eh_frame converter: no signal stops it. */
#ifndef _HOST_SHIM_LINUX_SCHED_SIGNAL_H
#define _HOST_SHIM_LINUX_SCHED_SIGNAL_H

static inline int fatal_signal_pending(void *task)
{
	(void)task;
	return 0;
}
#endif
