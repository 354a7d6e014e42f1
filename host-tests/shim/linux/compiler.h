/* Host shim for the SFrame reader. */
#ifndef _HOST_SHIM_LINUX_COMPILER_H
#define _HOST_SHIM_LINUX_COMPILER_H
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define noinline	__attribute__((__noinline__))
#define __always_inline	inline __attribute__((__always_inline__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#endif
