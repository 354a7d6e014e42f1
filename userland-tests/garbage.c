// SPDX-License-Identifier: GPL-2.0
/*
 * A garbage stack: the hot function overwrites its own saved return
 * address while it spins, so every sample finds a bogus value where the
 * SFrame data says the return address is.
 *
 *   garbage kernel|low [ms]
 *
 *   kernel: a kernel text address (x86-64 0xffffffff81000000, arm64
 *	     0xffff800008000000).  It is no user return address: the walk
 *	     must stop before it, never put it in a user callchain (perf
 *	     would name it after a kernel symbol).
 *   low:    0x10, a user address with nothing mapped: reported (it is
 *	     what the stack holds), then the walk stops.
 *
 * gar_hot <- gar_driver <- main; gar_hot (assembly) puts the real return
 * address back before it returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#if defined(__x86_64__)
#define GAR_KERNEL	0xffffffff81000000UL
/* gar_hot(n, bad): CFA = SP + 8, return address at CFA - 8 throughout. */
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	gar_hot\n"
"	.hidden	gar_hot\n"
"	.type	gar_hot, @function\n"
"gar_hot:\n"
"	.cfi_startproc\n"
"	movq	(%rsp), %rax\n"
"	movq	%rsi, (%rsp)\n"
"	movq	%rdi, %rdx\n"
"1:	subq	$1, %rdx\n"
"	jnz	1b\n"
"	movq	%rax, (%rsp)\n"
"	xorl	%eax, %eax\n"
"	ret\n"
"	.cfi_endproc\n"
"	.size	gar_hot, .-gar_hot\n");
#elif defined(__aarch64__)
#define GAR_KERNEL	0xffff800008000000UL
/*
 * gar_hot(n, bad): stores its frame record, then overwrites the saved x30
 * (CFA = SP + 16, return address at CFA - 8); x30 itself keeps the real
 * return address, so the function returns normally.
 */
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	gar_hot\n"
"	.hidden	gar_hot\n"
"	.type	gar_hot, %function\n"
"gar_hot:\n"
"	.cfi_startproc\n"
"	stp	x29, x30, [sp, #-16]!\n"
"	.cfi_def_cfa_offset 16\n"
"	.cfi_offset 29, -16\n"
"	.cfi_offset 30, -8\n"
"	str	x1, [sp, #8]\n"
"	mov	x2, x0\n"
"1:	subs	x2, x2, #1\n"
"	b.ne	1b\n"
"	ldr	x29, [sp], #16\n"
"	.cfi_restore 29\n"
"	.cfi_restore 30\n"
"	.cfi_def_cfa_offset 0\n"
"	mov	x0, #0\n"
"	ret\n"
"	.cfi_endproc\n"
"	.size	gar_hot, .-gar_hot\n");
#else
#error "garbage.c: no gar_hot for this architecture"
#endif

unsigned long gar_hot(unsigned long n, unsigned long bad);

noipa long gar_driver(long ms, unsigned long bad)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += gar_hot(SPIN, bad);
	return acc;
}

int main(int argc, char **argv)
{
	unsigned long bad;
	long r;

	if (argc >= 2 && !strcmp(argv[1], "kernel"))
		bad = GAR_KERNEL;
	else if (argc >= 2 && !strcmp(argv[1], "low"))
		bad = 0x10;
	else {
		fprintf(stderr, "usage: garbage kernel|low [ms]\n");
		return 2;
	}
	r = gar_driver(parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS), bad);
	NOTAIL(r);
	return 0;
}
