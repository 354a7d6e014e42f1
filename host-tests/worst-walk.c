// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of one sample's walk on a stack built to cost, against a
 * normal one, for worst-walk.sh (callgrind counts the instructions of
 * walk() only).  The walk is the kernel's (lib/sframe/sframe_perf.c): for
 * each of up to 127 frames, sframe_find_row_bounded() with the walk's
 * budget of SFRAME_WALK_MAX_FRES rows, then sframe_unwind_row(), over a
 * fake stack that sframe_read_user_word() reads.
 *
 *   worst-walk normal|crafted|unbounded [N]     N walks (default 1)
 *
 * normal   127 functions of 4 rows each (CFA = SP + 16 at the last row),
 *          each frame's return address at the last row of the next one
 * crafted  the same with 1024 rows per function (the most a lookup
 *          searches), each lookup at the last row: without a budget,
 *          127 * 1024 rows decoded per sample
 * unbounded  crafted without the budget (what a walk cost before it)
 *
 * Prints "<shape>: F frames, R rows decoded" per walk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_read.h"
#include "sfbuild.h"

#define FRAMES		127
#define WALK_MAX_FRES	8192	/* SFRAME_WALK_MAX_FRES (sframe_mm.h) */
#define SEC_VADDR	0x100000UL
#define STACK_BASE	0x7ff000000000UL

static unsigned long stack[2 * FRAMES + 2];

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	unsigned long i = (addr - STACK_BASE) / sizeof(unsigned long);

	if (addr < STACK_BASE || addr % sizeof(unsigned long) ||
	    i >= sizeof(stack) / sizeof(stack[0]))
		return -EFAULT;
	*val = stack[i];
	return 0;
}

/*
 * FRAMES functions of @rows rows each, back to back below the section,
 * every row CFA = SP + 8 except the last, SP + 16.  Function i starts at
 * SEC_VADDR - (FRAMES - i) * (rows + 1).
 */
static void build(struct sframe_section *sec, struct sfb *b, unsigned int rows)
{
	struct sfb_hdr h = { .version = 2, .flags = 1, .abi = 3, .fixed_ra = -8,
			     .num_fdes = FRAMES };
	unsigned int asize = rows > 255 ? 2 : 1, i, k;
	uint32_t fre_block = rows * (asize + 2), fsize = rows + 1;
	int32_t off8[1] = { 8 }, off16[1] = { 16 };

	h.num_fres = FRAMES * rows;
	h.fre_len = FRAMES * fre_block;
	h.freoff = FRAMES * 20;
	sfb_header(b, &h);
	for (i = 0; i < FRAMES; i++)
		sfb_fde(b, 2, -(int32_t)((FRAMES - i) * fsize), fsize,
			i * fre_block, rows, SFB_FDE_INFO(asize == 2, 0), 0);
	for (i = 0; i < FRAMES; i++)
		for (k = 0; k < rows; k++)
			sfb_fre(b, asize, k, SFB_FRE_INFO(1, 1, 0, 0),
				k == rows - 1 ? off16 : off8);
	if (sframe_section_init(sec, b->buf, b->len, SEC_VADDR)) {
		fprintf(stderr, "worst-walk: the section is refused\n");
		exit(1);
	}
}

/*
 * The stack: frame i (0 = the sampled one) is 16 bytes at STACK_BASE +
 * 16 * i, its return address in the second word, pointing just past the
 * last row of function i + 1 (the lookup is at the return address - 1).
 */
static void fill_stack(unsigned int rows)
{
	unsigned long fsize = rows + 1, i;

	memset(stack, 0, sizeof(stack));
	for (i = 0; i < FRAMES; i++) {
		unsigned long next = SEC_VADDR - (FRAMES - (i + 1)) * fsize;

		stack[2 * i + 1] = i + 1 < FRAMES ? next + rows : 0;
	}
}

/* One sample: the kernel's loop, with its budget. */
static __attribute__((noinline)) unsigned int walk(const struct sframe_section *sec,
						   unsigned long pc, uint32_t max,
						   unsigned int *decoded)
{
	struct sframe_frame frame = {
		.pc = pc, .sp = STACK_BASE, .topmost = true,
	};
	struct sframe_row row;
	unsigned int frames = 1;
	uint32_t budget = max;

	while (frames < FRAMES) {
		if (sframe_find_row_bounded(sec, sframe_lookup_pc(&frame), &row,
					    &budget) ||
		    sframe_unwind_row(&row, &frame) || !frame.pc)
			break;
		frames++;
	}
	*decoded = max - budget;
	return frames;
}

int main(int argc, char **argv)
{
	struct sframe_section sec;
	struct sfb b = { 0 };
	unsigned int rows, frames = 0, decoded = 0;
	long n = argc > 2 ? atol(argv[2]) : 1, i;

	uint32_t max = WALK_MAX_FRES;

	if (argc < 2 || (strcmp(argv[1], "normal") && strcmp(argv[1], "crafted") &&
			 strcmp(argv[1], "unbounded"))) {
		fprintf(stderr, "usage: worst-walk normal|crafted|unbounded [N]\n");
		return 2;
	}
	rows = strcmp(argv[1], "normal") ? 1024 : 4;
	if (!strcmp(argv[1], "unbounded"))
		max = ~0U;
	build(&sec, &b, rows);
	fill_stack(rows);
	/* The sampled PC: the last row of function 0. */
	for (i = 0; i < n; i++)
		frames = walk(&sec, SEC_VADDR - FRAMES * (rows + 1) + rows - 1,
			      max, &decoded);
	printf("%s: %u frames, %u rows decoded\n", argv[1], frames, decoded);
	free(b.buf);
	return 0;
}
