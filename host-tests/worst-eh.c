// SPDX-License-Identifier: GPL-2.0
/*
 * Adversarial .eh_frame sections for the converter (lib/sframe/
 * sframe_ehframe.c): inputs built to cost, not malformed ones.  Each shape
 * fills SIZE bytes with the most work per byte a crafted file can ask for
 * in one respect, and is converted as the kernel converts a file that has
 * a .sframe section too (every FDE checked against the .sframe section
 * with the callback of lib/sframe/sframe_load.c; the kernel's limit of
 * 16 MiB on a table).  A shape whose table passes the limit at SIZE is
 * timed again at the largest size whose table fits (converted whole),
 * and the longer time is reported.
 *
 *   worst-eh SHAPE SIZE [ROUNDS]    convert, print the time per conversion
 *   worst-eh -l                     list the shapes
 *   worst-eh -y SIZE                one FDE of SIZE bytes of rows: the
 *                                   converter lets other tasks run (every
 *                                   64 KiB of its program) and stops for
 *                                   a fatal signal; exit 1 if not
 *
 * Shapes:
 *   cie-cycle   five CIEs of 512 bytes of initial instructions, then
 *               minimal FDEs that cycle through them: a cache of four
 *               CIEs misses on every FDE
 *   covered     a .sframe function of 1024 rows spanning the code, and
 *               minimal FDEs inside it: each FDE asks whether .sframe
 *               describes its start
 *   rows        one FDE per 4 KiB, each a program of advance_loc +
 *               def_cfa_offset pairs: a row whose CFA differs from the
 *               last one's per 3 bytes, the fewest there can be
 *   nesting     FDEs whose programs remember and restore the state to
 *               the deepest level kept (8), over and over
 *   tiny-fdes   the most FDEs: a single-row FDE per 17 bytes, distinct
 *               start addresses (the sort of the result)
 *
 * Instruction counts come from valgrind (host-tests/worst-eh.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "sframe_read.h"
#include "sframe_format.h"
#include "sframe_ehframe.h"
#include "sfbuild.h"

#define DW_CFA_nop		0x00
#define DW_CFA_advance_loc	0x40
#define DW_CFA_advance_loc1	0x02
#define DW_CFA_remember_state	0x0a
#define DW_CFA_restore_state	0x0b
#define DW_CFA_def_cfa		0x0c
#define DW_CFA_def_cfa_offset	0x0e
#define DW_CFA_offset_ra	(0x80 | 16)	/* x86-64 return address */
#define EH_VADDR		0x100000u	/* .eh_frame's link-time address */
#define CODE_END		0x7fff0000u	/* functions below this */

struct shape {
	const char *name;
	void (*build)(struct sfb *b, size_t size);
};

/* CIE "zR", pcrel|sdata4 FDE pointers, x86-64, with INSNS bytes of
 * initial instructions (CFA = rsp + 8, RA at CFA - 8, then nops). */
static size_t put_cie(struct sfb *b, unsigned int insns)
{
	size_t at = b->len, body;

	sfb_le(b, 0, 4);			/* length, patched below */
	sfb_le(b, 0, 4);			/* CIE id */
	sfb_u8(b, 1);				/* version */
	sfb_u8(b, 'z');
	sfb_u8(b, 'R');
	sfb_u8(b, 0);
	sfb_u8(b, 1);				/* code alignment */
	sfb_u8(b, 0x78);			/* data alignment -8 */
	sfb_u8(b, 16);				/* return address register */
	sfb_u8(b, 1);				/* augmentation length */
	sfb_u8(b, 0x1b);			/* pcrel | sdata4 */
	sfb_u8(b, DW_CFA_def_cfa);
	sfb_u8(b, 7);
	sfb_u8(b, 8);
	sfb_u8(b, DW_CFA_offset_ra);
	sfb_u8(b, 1);
	body = b->len - at - 4;
	while (body + 4 < insns) {
		sfb_u8(b, DW_CFA_nop);
		body++;
	}
	sfb_put_le(b->buf + at, b->len - at - 4, 4);
	return at;
}

/* FDE of CIE at @cie for [pc, pc + len), then @prog of @plen bytes. */
static void put_fde(struct sfb *b, size_t cie, uint32_t pc, uint32_t len,
		    const uint8_t *prog, size_t plen)
{
	size_t at = b->len;

	sfb_le(b, 4 + 4 + 4 + 1 + plen, 4);
	sfb_le(b, at + 4 - cie, 4);		/* back to the CIE */
	sfb_le(b, pc - (EH_VADDR + at + 8), 4);	/* pcrel */
	sfb_le(b, len, 4);
	sfb_u8(b, 0);				/* augmentation length */
	if (plen) {
		sfb_room(b, plen);
		memcpy(b->buf + b->len, prog, plen);
		b->len += plen;
	}
}

static void build_cie_cycle(struct sfb *b, size_t size)
{
	size_t cies[5];
	uint32_t pc = 0x1000;
	unsigned int i;

	for (i = 0; i < 5; i++)
		cies[i] = put_cie(b, 512);
	for (i = 0; b->len + 17 <= size; i++, pc += 16)
		put_fde(b, cies[i % 5], pc, 16, NULL, 0);
}

static void build_covered(struct sfb *b, size_t size)
{
	size_t cie = put_cie(b, 0);
	uint32_t pc = 0x1001;

	for (; b->len + 17 <= size; pc += 16)
		put_fde(b, cie, pc, 16, NULL, 0);
}

/*
 * A program of advance_loc + def_cfa_offset pairs: a row whose CFA
 * differs from the last one's per 3 bytes of @prog.
 */
static void fill_rows(uint8_t *prog, size_t n)
{
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		prog[i] = DW_CFA_advance_loc | 1;
		prog[i + 1] = DW_CFA_def_cfa_offset;
		prog[i + 2] = 8 + (i / 3) % 120;
	}
}

static void build_rows(struct sfb *b, size_t size)
{
	static uint8_t prog[4096 - 17];
	size_t cie = put_cie(b, 0);
	uint32_t pc = 0x1000;

	fill_rows(prog, sizeof(prog));
	for (; b->len + 17 + sizeof(prog) <= size; pc += 0x10000)
		put_fde(b, cie, pc, 0x10000, prog, sizeof(prog));
}

static void build_nesting(struct sfb *b, size_t size)
{
	static uint8_t prog[4096 - 17];
	size_t cie = put_cie(b, 0), i = 0;
	uint32_t pc = 0x1000;

	while (i + 18 <= sizeof(prog)) {
		unsigned int d;

		for (d = 0; d < 8; d++)		/* the deepest kept */
			prog[i++] = DW_CFA_remember_state;
		prog[i++] = DW_CFA_advance_loc1;
		prog[i++] = 1;
		for (d = 0; d < 8; d++)
			prog[i++] = DW_CFA_restore_state;
	}
	while (i < sizeof(prog))
		prog[i++] = DW_CFA_nop;
	for (; b->len + 17 + sizeof(prog) <= size; pc += 0x10000)
		put_fde(b, cie, pc, 0x10000, prog, sizeof(prog));
}

static void build_tiny(struct sfb *b, size_t size)
{
	size_t cie = put_cie(b, 0);
	uint32_t pc = CODE_END;

	/* Emitted from the top down: the sort has all the work to do. */
	for (; b->len + 17 <= size && pc > 0x1000; pc -= 4)
		put_fde(b, cie, pc - 4, 4, NULL, 0);
}

/* One FDE whose program is SIZE bytes of rows, as in "rows". */
static void build_one_fde(struct sfb *b, size_t size)
{
	size_t cie = put_cie(b, 0), n = size - 64;
	uint8_t *prog = calloc(1, n);

	if (!prog)
		exit(2);
	fill_rows(prog, n);
	put_fde(b, cie, 0x1000, 0x7fff0000 - 0x1000, prog, n);
	free(prog);
}

static const struct shape shapes[] = {
	{ "cie-cycle", build_cie_cycle },
	{ "covered", build_covered },
	{ "rows", build_rows },
	{ "nesting", build_nesting },
	{ "tiny-fdes", build_tiny },
};

/*
 * The .sframe section the "covered" files come with: one function over
 * all the code, 1024 rows (the most a lookup searches).
 */
static struct sframe_section sframe_sec;

static void build_sframe(void)
{
	struct sfb s = { 0 };
	struct sfb_hdr h = {
		.version = 2, .flags = 1, .abi = 3, .fixed_ra = -8,
		.num_fdes = 1, .num_fres = 1024, .fdeoff = 0, .freoff = 20,
	};
	int32_t off = 8;
	unsigned int i;

	h.fre_len = 1024 * (4 + 1 + 1);
	sfb_header(&s, &h);
	sfb_fde(&s, 2, 0x1000, CODE_END - 0x1000, 0, 1024,
		SFB_FDE_INFO(SFRAME_FRE_TYPE_ADDR4, 0), 0);
	for (i = 0; i < 1024; i++)
		sfb_fre(&s, 4, i, SFB_FRE_INFO(1, 1, 0, 0), &off);
	if (sframe_section_init(&sframe_sec, s.buf, s.len, 0)) {
		fprintf(stderr, "worst-eh: the .sframe section is refused\n");
		exit(2);
	}
}

/* The reader's unwind step reads the stack: not used here. */
int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	(void)addr;
	*val = 0;
	return -EFAULT;
}

/* lib/sframe/sframe_load.c's sframe_blob_covers() */
static bool covers(void *arg, u64 pc)
{
	unsigned long start;

	(void)arg;
	return sframe_find_func(&sframe_sec, pc, &start) == 0 && start == pc;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

/*
 * The kernel's buffers come from kvmalloc(): pages allocated and mapped at
 * once, not faulted in one by one.  Map malloc()'s at once too, so that
 * the time is the converter's and not this machine's cost of a page
 * fault (about 10 us in this virtual machine).
 */
static void *host_alloc(size_t size)
{
	char *p = malloc(size);
	uintptr_t a, b;

	if (p && size >= 65536) {
		a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
		b = ((uintptr_t)p + size) & ~(uintptr_t)4095;
		if (b > a)
			madvise((void *)a, b - a, MADV_POPULATE_WRITE);
	}
	return p;
}

/* The kernel's limit on a table (lib/sframe/sframe_load.c). */
#define KERNEL_LIMIT	(16U << 20)

static long convert_limit(const struct sfb *b, void **out, uint32_t limit)
{
	return sframe_eh_convert_covered(b->buf, b->len, EH_VADDR,
					 SFRAME_ABI_AMD64_ENDIAN_LITTLE,
					 covers, NULL, host_alloc, limit,
					 out, NULL);
}

/* Without a limit: all of the conversion of the input. */
static long convert(const struct sfb *b, void **out)
{
	return convert_limit(b, out, UINT32_MAX);
}

/* CPU time of one conversion with the kernel's limit, over @rounds. */
static double time_conversion(const struct sfb *b, int rounds, long *res)
{
	struct timespec t0, t1;
	void *out;
	int i;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (i = 0; i < rounds; i++) {
		*res = convert_limit(b, &out, KERNEL_LIMIT);
		if (*res > 0)
			free(out);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e3 +
		(t1.tv_nsec - t0.tv_nsec) / 1e6) / rounds;
}

/* The shim's cond_resched() counts; its fatal_signal_pending() obeys. */
extern unsigned long host_cond_resched_calls;
extern int host_fatal_signal;

static int check_yield(size_t size)
{
	struct sfb b = { 0 };
	unsigned long insns, calls;
	void *out = NULL;
	long ret;

	build_one_fde(&b, size);
	insns = 2 * (size - 64) / 3;
	host_cond_resched_calls = 0;
	ret = convert(&b, &out);
	calls = host_cond_resched_calls;
	free(ret > 0 ? out : NULL);
	host_fatal_signal = 1;
	ret = convert(&b, &out);
	host_fatal_signal = 0;
	printf("yield: one FDE of %zu bytes, %lu instructions: %lu chances to run, %ld on a fatal signal\n",
	       b.len, insns, calls, ret);
	return calls >= (size - 64) / 65536 && ret == -EINTR ? 0 : 1;
}

int main(int argc, char **argv)
{
	const struct shape *sh = NULL;
	struct sfb b = { 0 }, fit = { 0 };
	long size = 0, size_fit, full;
	double ms, ms_fit;
	int rounds, i;
	size_t want;
	void *out;

	if (argc == 3 && !strcmp(argv[1], "-y"))
		return check_yield(strtoul(argv[2], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (i = 0; i < (int)(sizeof(shapes) / sizeof(shapes[0])); i++)
			puts(shapes[i].name);
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: worst-eh SHAPE SIZE [ROUNDS] | -l\n");
		return 2;
	}
	for (i = 0; i < (int)(sizeof(shapes) / sizeof(shapes[0])); i++)
		if (!strcmp(argv[1], shapes[i].name))
			sh = &shapes[i];
	if (!sh) {
		fprintf(stderr, "worst-eh: no shape %s\n", argv[1]);
		return 2;
	}
	rounds = argc > 3 ? atoi(argv[3]) : 1;
	if (rounds < 1)
		rounds = 1;
	build_sframe();
	want = strtoul(argv[2], NULL, 0);
	sh->build(&b, want);
	ms = time_conversion(&b, rounds, &size);
	if (size == -E2BIG) {
		/*
		 * The kernel stops where the table passes its limit: time
		 * also the largest input of this shape whose table fits,
		 * which it converts whole, and report the longer.
		 */
		full = convert(&b, &out);
		if (full <= 0) {
			fprintf(stderr, "worst-eh: %s: %ld\n", sh->name, full);
			return 2;
		}
		free(out);
		sh->build(&fit, (size_t)((double)want * (KERNEL_LIMIT - 65536) / full));
		ms_fit = time_conversion(&fit, rounds, &size_fit);
		if (size_fit <= 0) {
			fprintf(stderr, "worst-eh: %s: %ld at %zu bytes\n", sh->name,
				size_fit, fit.len);
			return 2;
		}
		if (ms_fit > ms) {
			printf("%s: %zu bytes of .eh_frame, %.2f ms, result %ld (at %zu bytes: %.2f ms, the table passes %u bytes)\n",
			       sh->name, fit.len, ms_fit, size_fit, b.len, ms, KERNEL_LIMIT);
			return 0;
		}
		printf("%s: %zu bytes of .eh_frame, %.2f ms, stops at the limit (at %zu bytes, table %ld bytes: %.2f ms)\n",
		       sh->name, b.len, ms, fit.len, size_fit, ms_fit);
		return 0;
	}
	printf("%s: %zu bytes of .eh_frame, %.2f ms, result %ld\n", sh->name,
	       b.len, ms, size);
	return 0;
}
