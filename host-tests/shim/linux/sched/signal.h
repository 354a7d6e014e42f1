/*
 * Host shim for the SFrame .eh_frame converter: a fatal signal is pending
 * when host_fatal_signal says so (worst-eh.c), never otherwise.
 */
#ifndef _HOST_SHIM_LINUX_SCHED_SIGNAL_H
#define _HOST_SHIM_LINUX_SCHED_SIGNAL_H

__attribute__((weak)) int host_fatal_signal;

static inline int fatal_signal_pending(void *task)
{
	(void)task;
	return host_fatal_signal;
}
#endif
