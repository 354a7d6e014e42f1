/* Host shim for the SFrame .eh_frame converter: kvfree() is free(). */
#ifndef _HOST_SHIM_LINUX_SLAB_H
#define _HOST_SHIM_LINUX_SLAB_H
#include <stdlib.h>

static inline void kvfree(const void *p)
{
	free((void *)p);
}
#endif
