/* Host shim for the SFrame .eh_frame converter. */
#ifndef _HOST_SHIM_LINUX_BITS_H
#define _HOST_SHIM_LINUX_BITS_H
#define BIT(nr)	(1UL << (nr))
#endif
