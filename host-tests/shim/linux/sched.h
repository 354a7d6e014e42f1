/*
 * Host shim for the SFrame .eh_frame converter: nothing to reschedule;
 * the calls are counted (worst-eh.c checks that long work yields).
 */
#ifndef _HOST_SHIM_LINUX_SCHED_H
#define _HOST_SHIM_LINUX_SCHED_H

#define current ((void *)0)

__attribute__((weak)) unsigned long host_cond_resched_calls;

static inline void cond_resched(void)
{
	host_cond_resched_calls++;
}
#endif
