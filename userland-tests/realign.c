// SPDX-License-Identifier: GPL-2.0
/*
 * Functions that realign their stack pointer keep their CFA in memory.
 * On x86-64 gcc uses a "dynamic realignment argument pointer" (DRAP):
 *
 *	lea 8(%rsp),%r10; and $-64,%rsp; push -8(%r10); push %rbp;
 *	mov %rsp,%rbp; push %r10; ...
 *
 * after which CFA = *(%rbp - 8) and the caller's %rbp is at %rbp + 0.
 * SFrame v1 and v2 cannot say that (gas emits no FDE); v3 describes it
 * with a flexible FDE.  On arm64 the same code keeps an x29-based CFA.
 *
 *   realign mid [ms]	rl_hot <- rl_outer <- main	(rl_outer realigns)
 *   realign leaf [ms]	rl_leaf <- rl_driver <- main	(rl_leaf realigns)
 *
 * The expected chains are in run-tests.sh.  A 64-byte aligned local and
 * an alloca() of a size the compiler cannot see make gcc realign with
 * DRAP; the leaf spends 20 * SPIN iterations in its body per call, so
 * that samples in its prologue, where the CFA is in %r10 (not covered),
 * are rare enough not to matter.
 */
#include <alloca.h>
#include <string.h>

#include "common.h"

static volatile unsigned long var_len = 24;

DEFINE_HOT(rl_hot)

noipa long rl_outer(long ms)
{
	unsigned char buf[64] __attribute__((aligned(64)));
	unsigned long len = var_len;
	unsigned char *p = alloca(len);
	long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += rl_hot(SPIN);
	use_buf(buf, sizeof(buf));
	use_buf(p, len);
	return acc;
}

noipa unsigned long rl_leaf(unsigned long n)
{
	unsigned char buf[64] __attribute__((aligned(64)));
	unsigned long len = var_len, i, acc = 1;
	unsigned char *p = alloca(len);

	for (i = 0; i < n; i++) {
		acc = acc * 33 + i;
		__asm__ volatile("" : "+r"(acc));
	}
	/*
	 * Keep both buffers without a call: on arm64 a call would leave a
	 * return address into rl_leaf in the link register, which perf 6.1
	 * adds as the leaf's caller when the CFA is FP-based.
	 */
	buf[acc & 63] = acc;
	p[acc % len] = acc;
	__asm__ volatile("" : : "r"(buf), "r"(p) : "memory");
	return acc & 1;
}

noipa long rl_driver(long ms)
{
	long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += rl_leaf(20 * SPIN);
	return acc;
}

int main(int argc, char **argv)
{
	long ms = parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS), r;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "mid"))
		r = rl_outer(ms);
	else if (!strcmp(argv[1], "leaf"))
		r = rl_driver(ms);
	else
		return 2;
	NOTAIL(r);
	return 0;
}
