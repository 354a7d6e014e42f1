// SPDX-License-Identifier: GPL-2.0
/*
 * A garbage stack: at every instruction of the hot function, the slot
 * where its SFrame data says the return address is holds a bogus value.
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
 * gar_hot <- gar_call <- gar_driver <- main.  gar_call (assembly) pushes
 * the bogus value where gar_hot's return address would be, jumps to
 * gar_hot with the real continuation in a scratch register, and pops the
 * slot after gar_hot jumps back.  An earlier version let gar_hot store the
 * bogus value itself; a sample on its first or last instructions (before
 * the store, after the restore) then rightly got the full chain, and one
 * sample in 500 under TCG did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#if defined(__x86_64__)
#define GAR_KERNEL	0xffffffff81000000UL
/*
 * gar_hot(n): CFA = SP + 8, return address at CFA - 8 (the bogus value)
 * throughout; it returns through %r11.
 */
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	gar_hot\n"
"	.hidden	gar_hot\n"
"	.type	gar_hot, @function\n"
"gar_hot:\n"
"	.cfi_startproc\n"
"	movq	%rdi, %rdx\n"
"1:	subq	$1, %rdx\n"
"	jnz	1b\n"
"	xorl	%eax, %eax\n"
"	jmp	*%r11\n"
"	.cfi_endproc\n"
"	.size	gar_hot, .-gar_hot\n"
"\n"
"	.p2align 4\n"
"	.globl	gar_call\n"
"	.hidden	gar_call\n"
"	.type	gar_call, @function\n"
"gar_call:\n"
"	.cfi_startproc\n"
"	pushq	%rsi\n"
"	.cfi_adjust_cfa_offset 8\n"
"	leaq	2f(%rip), %r11\n"
"	jmp	gar_hot\n"
"2:	addq	$8, %rsp\n"
"	.cfi_adjust_cfa_offset -8\n"
"	ret\n"
"	.cfi_endproc\n"
"	.size	gar_call, .-gar_call\n");
#elif defined(__aarch64__)
#define GAR_KERNEL	0xffff800008000000UL
/*
 * gar_hot(n): CFA = SP + 16, frame record at CFA - 16 with the bogus value
 * as its return address, throughout; x30 holds the real continuation.
 */
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	gar_hot\n"
"	.hidden	gar_hot\n"
"	.type	gar_hot, %function\n"
"gar_hot:\n"
"	.cfi_startproc\n"
"	.cfi_def_cfa_offset 16\n"
"	.cfi_offset 29, -16\n"
"	.cfi_offset 30, -8\n"
"	mov	x2, x0\n"
"1:	subs	x2, x2, #1\n"
"	b.ne	1b\n"
"	mov	x0, #0\n"
"	ret\n"
"	.cfi_endproc\n"
"	.size	gar_hot, .-gar_hot\n"
"\n"
"	.p2align 4\n"
"	.globl	gar_call\n"
"	.hidden	gar_call\n"
"	.type	gar_call, %function\n"
"gar_call:\n"
"	.cfi_startproc\n"
"	stp	x29, x30, [sp, #-16]!\n"
"	.cfi_def_cfa_offset 16\n"
"	.cfi_offset 29, -16\n"
"	.cfi_offset 30, -8\n"
"	mov	x29, sp\n"
"	stp	x29, x1, [sp, #-16]!\n"
"	.cfi_adjust_cfa_offset 16\n"
"	bl	gar_hot\n"
"	add	sp, sp, #16\n"
"	.cfi_adjust_cfa_offset -16\n"
"	ldp	x29, x30, [sp], #16\n"
"	.cfi_restore 29\n"
"	.cfi_restore 30\n"
"	.cfi_def_cfa_offset 0\n"
"	ret\n"
"	.cfi_endproc\n"
"	.size	gar_call, .-gar_call\n");
#else
#error "garbage.c: no gar_hot for this architecture"
#endif

unsigned long gar_call(unsigned long n, unsigned long bad);

noipa long gar_driver(long ms, unsigned long bad)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += gar_call(SPIN, bad);
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
