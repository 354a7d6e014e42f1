/* Host shim for the SFrame reader: the uapi error numbers. */
#ifndef _HOST_SHIM_LINUX_ERRNO_H
#define _HOST_SHIM_LINUX_ERRNO_H
#include_next <linux/errno.h>
#endif
