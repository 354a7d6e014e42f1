/* Host shim for the SFrame reader. */
#ifndef _HOST_SHIM_LINUX_BUILD_BUG_H
#define _HOST_SHIM_LINUX_BUILD_BUG_H
#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#endif
