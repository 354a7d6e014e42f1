/* Host shim for the SFrame .eh_frame converter: sort() on top of qsort(). */
#ifndef _HOST_SHIM_LINUX_SORT_H
#define _HOST_SHIM_LINUX_SORT_H
#include <stdlib.h>

typedef int (*cmp_func_t)(const void *a, const void *b);
typedef void (*swap_func_t)(void *a, void *b, int size);

static inline void sort(void *base, size_t num, size_t size,
			cmp_func_t cmp_func, swap_func_t swap_func)
{
	(void)swap_func;
	if (num > 1)
		qsort(base, num, size, cmp_func);
}
#endif
