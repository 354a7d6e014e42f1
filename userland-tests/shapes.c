// SPDX-License-Identifier: GPL-2.0
/*
 * Frame shapes for the SFrame user unwinder.
 *
 *   shapes <shape> [ms]
 *
 * Runs one deterministic call chain from main() to a hot leaf for about
 * @ms milliseconds of CPU time (default 600).  `shapes list` prints the
 * shapes.  The expected chains (leaf first) are in run-tests.sh; the code
 * generation each shape relies on is checked by check-codegen.sh.
 *
 * Build: -O2 -fomit-frame-pointer -Wa,--gsframe; every function here is
 * noipa (no inlining, cloning or IPA) so the symbols are exact, and every
 * call in a chain is followed by a use of its result, so none is a tail
 * call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* ---- leaf: hot leaf without a stack frame ----------------------------- */
/* leaf_hot <- leaf_driver <- sh_leaf <- main */

DEFINE_HOT(leaf_hot)

noipa long leaf_driver(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += leaf_hot(SPIN);
	return acc;
}

noipa long sh_leaf(long ms)
{
	long r = leaf_driver(ms);

	NOTAIL(r);
	return r;
}

/* ---- bigframe: 48 KiB stack frame in a middle function ---------------- */
/*
 * bigframe_hot <- bigframe_mid <- sh_bigframe <- main
 * CFA = SP + 49k at the call site: a 4-byte FRE offset (> 32767).  48 KiB
 * rather than 64 so that perf --call-graph dwarf (at most 65528 bytes of
 * stack per sample) can still check the chain on the host.
 */
#define BIG_FRAME	(48 * 1024)

DEFINE_HOT(bigframe_hot)

noipa long bigframe_mid(long ms)
{
	unsigned char buf[BIG_FRAME];
	unsigned long acc = 0;

	use_buf(buf, sizeof(buf));
	timer_start(ms);
	while (!timer_expired())
		acc += bigframe_hot(SPIN) + (buf[acc & 511] & 1);
	return acc;
}

noipa long sh_bigframe(long ms)
{
	long r = bigframe_mid(ms);

	NOTAIL(r);
	return r;
}

/* ---- bigleaf: the hot leaf itself has a 48 KiB frame ------------------ */
/* bigleaf_hot <- sh_bigleaf <- main; CFA = SP + 49k in the topmost frame */

noipa unsigned long bigleaf_hot(unsigned long n)
{
	volatile unsigned char buf[BIG_FRAME];
	unsigned long i, acc = 1;

	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = (unsigned char)i;
	for (i = 0; i < n; i++) {
		acc = acc * 33 + i;
		__asm__ volatile("" : "+r"(acc));
	}
	return (acc + buf[4096]) & 1;
}

noipa long sh_bigleaf(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += bigleaf_hot(SPIN);
	return acc;
}

/* ---- alloca: variable length array in a middle frame ----------------- */
/*
 * alloca_hot <- alloca_mid <- sh_alloca <- main
 * alloca_mid needs a frame pointer: its CFA is RBP + 16 (x29 + n on arm64),
 * an FP-based FRE.
 */
DEFINE_HOT(alloca_hot)

noipa long alloca_mid(long ms, long len)
{
	unsigned char buf[len];
	unsigned long acc = 0;

	use_buf(buf, len);
	timer_start(ms);
	while (!timer_expired())
		acc += alloca_hot(SPIN) + (buf[acc % len] & 1);
	return acc;
}

noipa long sh_alloca(long ms)
{
	long r = alloca_mid(ms, 1000);

	NOTAIL(r);
	return r;
}

/* ---- vlaleaf: the hot leaf itself has a VLA (FP-based CFA) ------------ */
/* vlaleaf_hot <- sh_vlaleaf <- main */

noipa unsigned long vlaleaf_hot(unsigned long n, unsigned long len)
{
	volatile unsigned char buf[len];
	unsigned long i, acc = 1;

	buf[0] = 1;
	buf[len - 1] = 1;
	for (i = 0; i < n; i++) {
		acc = acc * 33 + i;
		__asm__ volatile("" : "+r"(acc));
	}
	return (acc + buf[len - 1]) & 1;
}

/*
 * vlaleaf_hot sets up its frame pointer itself, so the stock walk's chain
 * depends on where the sample hits: longer calls make a hit in its
 * prologue or epilogue (about 1e-5 of the time per call) rarer still.
 */
noipa long sh_vlaleaf(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += vlaleaf_hot(8 * SPIN, 200 + (acc & 1));
	return acc;
}

/* ---- recurse: 50 frames of the same function -------------------------- */
/* recurse_hot <- recurse x 50 <- sh_recurse <- main */
#define RECURSE_DEPTH	50

DEFINE_HOT(recurse_hot)

noipa long recurse(long depth, long ms)
{
	unsigned long acc = 0;

	if (depth > 1) {
		acc = recurse(depth - 1, ms);
		NOTAIL(acc);
		return acc + 1;
	}
	timer_start(ms);
	while (!timer_expired())
		acc += recurse_hot(SPIN);
	return acc;
}

noipa long sh_recurse(long ms)
{
	long r = recurse(RECURSE_DEPTH, ms);

	NOTAIL(r);
	return r;
}

/* ---- noreturn: call to a noreturn function as the last instruction ---- */
/*
 * nr_hot <- nr_dead <- nr_caller <- sh_noreturn <- main
 *
 * nr_caller() ends with `call nr_dead`: the return address it leaves is
 * the first byte after nr_caller, which is the first instruction of
 * nr_next() (emitted right after it, without alignment padding).  An
 * unwinder that looks that address up as-is gets nr_next's rules (CFA =
 * SP + 8) instead of nr_caller's (SP + 80 or so) and loses the chain; the
 * lookup must use ra - 1.  perf itself symbolises the raw return address,
 * so that frame shows as nr_next in perf script (see run-tests.sh).
 */
DEFINE_HOT(nr_hot)

noipa __noreturn void nr_dead(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += nr_hot(SPIN);
	exit(acc == 0x12345678 ? 3 : 0);
}

noipa long nr_caller(long ms)
{
	volatile unsigned char buf[64];

	buf[0] = 0;
	nr_dead(ms + buf[0]);
}

/*
 * Never called, only referenced (so that it is emitted in source order).
 * Must follow nr_caller directly: no alignment padding before it.
 */
__attribute__((optimize("align-functions=1")))
noipa long nr_next(long x)
{
	return x * 3 + 1;
}

long (*volatile nr_next_ref)(long) = nr_next;

noipa long sh_noreturn(long ms)
{
	long r = nr_caller(ms);

	NOTAIL(r);
	return r;
}

/* ---- epilogues: several return paths, different saved registers ------- */
/*
 * epi_hot <- epi_mid <- sh_epilogues <- main
 *
 * epi_mid keeps six values live across calls (callee-saved registers:
 * rbx, rbp, r12-r15 on x86-64) and has two return paths with different
 * saved register sets: one before the prologue (shrink-wrapped: nothing
 * saved, CFA = SP + 8) and one after it, whose epilogue pops all six.
 * __builtin_expect lays both out *before* the loop that calls epi_hot, so
 * the FREs at that call site come after two `ret`s: the unwinder must use
 * the rules restored there (CFA = SP + 64 on x86-64), not the ones left
 * by an epilogue.
 */
DEFINE_HOT(epi_hot)

noipa long epi_check(long v)
{
	return v & 0xf;
}

noipa long epi_mid(long ms, long a, long b, long c)
{
	long v0, v1, v2, v3;
	unsigned long acc = 0;

	if (__builtin_expect(a <= 0, 0))
		return 0;
	v0 = a * 3;
	v1 = b * 5;
	v2 = c * 7;
	v3 = b ^ c;
	if (__builtin_expect(epi_check(v0 + v1) == 0xe, 1))
		return v0 + v1 + v2 + v3;
	timer_start(ms);
	while (!timer_expired())
		acc += epi_hot(SPIN);
	if (epi_check(v2) == 0xd)
		return v0 * v2;
	return acc + v0 + v1 + v2 + v3;
}

noipa long sh_epilogues(long ms)
{
	long r = epi_mid(ms, 1, 2, 3);

	NOTAIL(r);
	return r;
}

/* ---- prologue: samples at every step of a prologue -------------------- */
/*
 * pro_hot <- pro_driver <- sh_prologue <- main
 *
 * pro_hot is written in assembly (its CFI gives gas --gsframe the FREs)
 * and spins @n iterations at each step of its prologue, so that samples
 * land before, while and after its frame is set up.  Each step has a
 * symbol of its own, so the test can require samples in every step:
 *   x86-64: pro_hot at entry (CFA = SP + 8), pro_push after push %rbx
 *	     (SP + 16), pro_stack after sub $40, %rsp (SP + 56), pro_fp
 *	     after push %rbp; mov %rsp, %rbp (CFA = RBP + 64: FP-based in
 *	     the interrupted frame);
 *   arm64:  pro_hot at entry (CFA = SP, return address in LR only),
 *	     pro_stack after sub sp, sp, #32 (CFA = SP + 32, still in LR
 *	     only), pro_fp after the frame record is stored (CFA = x29 + 16,
 *	     return address on the stack).  With -mbranch-protection=pac-ret
 *	     it signs LR first (paciasp), like compiled code: the LR-only
 *	     steps then find a signed return address in LR.
 * One FDE covers all the steps (one .cfi_startproc).
 */
#define PRO_STEP(name)							\
"	.size	" #name ", .-" #name "\n"
#define PRO_SYM(name, type)						\
"	.type	" #name ", " type "\n"					\
#name ":\n"

#if defined(__x86_64__)
#define PRO_SPIN(l)							\
"	movq	%rdi, %rax\n"						\
#l ":	subq	$1, %rax\n"						\
"	jnz	" #l "b\n"
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	pro_hot\n"
"	.hidden	pro_hot\n"
PRO_SYM(pro_hot, "@function")
"	.cfi_startproc\n"
PRO_SPIN(1)
"	pushq	%rbx\n"
"	.cfi_adjust_cfa_offset 8\n"
"	.cfi_offset %rbx, -16\n"
PRO_STEP(pro_hot)
PRO_SYM(pro_push, "@function")
PRO_SPIN(2)
"	subq	$40, %rsp\n"
"	.cfi_adjust_cfa_offset 40\n"
PRO_STEP(pro_push)
PRO_SYM(pro_stack, "@function")
PRO_SPIN(3)
"	pushq	%rbp\n"
"	.cfi_adjust_cfa_offset 8\n"
"	.cfi_offset %rbp, -64\n"
"	movq	%rsp, %rbp\n"
"	.cfi_def_cfa_register %rbp\n"
PRO_STEP(pro_stack)
PRO_SYM(pro_fp, "@function")
PRO_SPIN(4)
"	popq	%rbp\n"
"	.cfi_def_cfa %rsp, 56\n"
"	.cfi_restore %rbp\n"
"	addq	$40, %rsp\n"
"	.cfi_adjust_cfa_offset -40\n"
"	popq	%rbx\n"
"	.cfi_adjust_cfa_offset -8\n"
"	.cfi_restore %rbx\n"
"	movl	$1, %eax\n"
"	ret\n"
"	.cfi_endproc\n"
PRO_STEP(pro_fp));
#elif defined(__aarch64__)
#ifdef __ARM_FEATURE_PAC_DEFAULT
#define PRO_SIGN	"	paciasp\n	.cfi_negate_ra_state\n"
#define PRO_AUTH	"	autiasp\n	.cfi_negate_ra_state\n"
#else
#define PRO_SIGN	""
#define PRO_AUTH	""
#endif
#define PRO_SPIN(l)							\
"	mov	x1, x0\n"						\
#l ":	subs	x1, x1, #1\n"						\
"	b.ne	" #l "b\n"
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	pro_hot\n"
"	.hidden	pro_hot\n"
PRO_SYM(pro_hot, "%function")
"	.cfi_startproc\n"
PRO_SIGN
PRO_SPIN(1)
"	sub	sp, sp, #32\n"
"	.cfi_def_cfa_offset 32\n"
PRO_STEP(pro_hot)
PRO_SYM(pro_stack, "%function")
PRO_SPIN(2)
"	stp	x29, x30, [sp, #16]\n"
"	.cfi_offset 29, -16\n"
"	.cfi_offset 30, -8\n"
"	add	x29, sp, #16\n"
"	.cfi_def_cfa 29, 16\n"
PRO_STEP(pro_stack)
PRO_SYM(pro_fp, "%function")
PRO_SPIN(3)
"	ldp	x29, x30, [sp, #16]\n"
"	.cfi_def_cfa sp, 32\n"
"	.cfi_restore 29\n"
"	.cfi_restore 30\n"
"	add	sp, sp, #32\n"
"	.cfi_def_cfa_offset 0\n"
"	mov	x0, #1\n"
PRO_AUTH
"	ret\n"
"	.cfi_endproc\n"
PRO_STEP(pro_fp));
#else
#error "shapes.c: no prologue shape for this architecture"
#endif

unsigned long pro_hot(unsigned long n);

noipa long pro_driver(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += pro_hot(SPIN);
	return acc;
}

noipa long sh_prologue(long ms)
{
	long r = pro_driver(ms);

	NOTAIL(r);
	return r;
}

/* ---- table and main --------------------------------------------------- */

struct shape {
	const char *name;
	long (*fn)(long ms);
};

static const struct shape shapes[] = {
	{ "leaf",	sh_leaf },
	{ "bigframe",	sh_bigframe },
	{ "bigleaf",	sh_bigleaf },
	{ "alloca",	sh_alloca },
	{ "vlaleaf",	sh_vlaleaf },
	{ "recurse",	sh_recurse },
	{ "noreturn",	sh_noreturn },
	{ "epilogues",	sh_epilogues },
	{ "prologue",	sh_prologue },
};

#define NR_SHAPES	(sizeof(shapes) / sizeof(shapes[0]))

/*
 * Looks the shape up and parses the run length, so that main() keeps no
 * pointer in a callee-saved register across the call of the shape: the
 * stock frame-pointer walk reads %rbp/x29 as a frame pointer, and the
 * chains expected for programs without usable SFrame data assume it holds
 * what libc left there (argc on x86-64 glibc 2.36).
 */
noipa long (*find_shape(int argc, char **argv, long *ms))(long)
{
	unsigned int i;

	*ms = parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS);
	if (!strcmp(argv[1], "list")) {
		for (i = 0; i < NR_SHAPES; i++)
			printf("%s\n", shapes[i].name);
		exit(0);
	}
	for (i = 0; i < NR_SHAPES; i++)
		if (!strcmp(argv[1], shapes[i].name))
			return shapes[i].fn;
	fprintf(stderr, "shapes: unknown shape '%s' (try 'list')\n", argv[1]);
	exit(2);
}

int main(int argc, char **argv)
{
	long (*fn)(long);
	long ms, r;

	if (argc < 2) {
		fprintf(stderr, "usage: shapes <shape>|list [ms]\n");
		return 2;
	}
	fn = find_shape(argc, argv, &ms);
	r = fn(ms);
	NOTAIL(r);
	return 0;
}
