// SPDX-License-Identifier: GPL-2.0
/*
 * Stack realignment with a dynamic allocation, for the SFrame v3
 * differential test (v3diff): on x86_64, gcc keeps the incoming CFA in a
 * register (r10, the "DRAP" register) and spills it below the saved FP,
 * so gas (binutils >= 2.46) describes these functions with flexible FDEs:
 * CFA = r10 + 0 around the prologue and epilogue, CFA = *(FP - 8) in the
 * body, the caller's FP = *(FP + 0).  On aarch64 the same code gets
 * default FDEs.  Built with v3-shapes.S into a small shared object
 * (-nostdlib: memset and use are left undefined, calls go through the
 * PLT, which gets a PC-mask FDE).  Never run.
 */
#include <alloca.h>
#include <string.h>

void use(char *buf, char *p);

void v3_drap(int n)
{
	char buf[64] __attribute__((aligned(64)));
	char *p = alloca(n);

	memset(buf, 1, sizeof(buf));
	use(buf, p);
}

/* A frame bigger than 32 KiB: 2-byte and 4-byte data words. */
void v3_drap_big(int n)
{
	char buf[40000] __attribute__((aligned(64)));
	char *p = alloca(n);

	memset(buf, 1, sizeof(buf));
	use(buf, p);
}

/* Callee-saved registers too: the CFA is spilled further down (FP - 40). */
long v3_drap_regs(int n, long a, long b)
{
	char buf[64] __attribute__((aligned(32)));
	char *p = alloca(n);

#if defined(__x86_64__)
	__asm__ volatile("" : : : "rbx", "r12", "r13", "r14", "r15");
#elif defined(__aarch64__)
	__asm__ volatile("" : : : "x19", "x20", "x21", "x22", "x23");
#endif
	memset(buf, (int)a, sizeof(buf));
	use(buf, p);
	return a * b + buf[3];
}
