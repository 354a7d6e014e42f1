/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SFrame unwinder test programs.
 *
 * Every test has a "hot" function that the samples should land in: a leaf
 * that spins for a fixed number of iterations and returns.  A driver
 * further up the chain calls it until the calling thread has used a given
 * amount of CPU time (CLOCK_THREAD_CPUTIME_ID, read once per call of the
 * hot function, i.e. every few hundred thousand iterations).  Samples that
 * land in the driver or in clock_gettime() have another leaf symbol and
 * are ignored by the checker.
 *
 * Values that stay live across calls are kept small (hot functions return
 * 0 or 1), so that whatever a compiler keeps in a callee-saved register
 * that the frame-pointer walk reads as a frame pointer (%rbp, x29) is never
 * a valid user address.  That keeps the stock walk, used as the reference
 * for binaries without (or with unusable) .sframe, deterministic.
 */
#ifndef SFT_COMMON_H
#define SFT_COMMON_H

/* Exact symbol names: no inlining, cloning or IPA between functions. */
#define noipa		__attribute__((noipa))
#define __noreturn	__attribute__((noreturn))

/*
 * Keep @x live after a call so the call cannot become a tail call (and
 * recursion cannot become a loop).
 */
#define NOTAIL(x)	__asm__ volatile("" : "+r"(x) : : "memory")

/* Iterations of a hot function per call. */
#define SPIN		100000UL

/* Default CPU time per hot chain, in milliseconds (argv overrides). */
#define DEFAULT_MS	600

/*
 * A hot leaf: no calls, no stack frame (x86-64: no push, no sub %rsp;
 * arm64: no stp/str, no sub sp).  The loop is register only.
 */
#define DEFINE_HOT(name)						\
noipa unsigned long name(unsigned long n)				\
{									\
	unsigned long i, acc = 1;					\
									\
	for (i = 0; i < n; i++) {					\
		acc = acc * 33 + i;					\
		__asm__ volatile("" : "+r"(acc));			\
	}								\
	return acc & 1;							\
}

#define DECLARE_HOT(name)	unsigned long name(unsigned long n)

/* Start the CPU time budget of the calling thread. */
void timer_start(long ms);
/* Has the calling thread used its budget? */
int timer_expired(void);

/* Milliseconds from a decimal string, @def if absent or invalid. */
long parse_ms(const char *s, long def);

/* Opaque use of a buffer (keeps stack arrays and their size). */
void use_buf(volatile unsigned char *buf, unsigned long len);

#endif /* SFT_COMMON_H */
