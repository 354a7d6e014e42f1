// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the SFrame reader.
 *
 * The input is the section itself, so that real .sframe sections are valid
 * seeds.  Lookup addresses, the load address and the registers of the
 * interrupted frame are derived from the input too: from its last 16 bytes
 * (the mutator changes them like any other byte) and from the FDE start
 * addresses the reader accepted.  The fake user stack is the input buffer
 * itself, mapped at STACK_BASE: every word the unwinder reads is a byte
 * range the fuzzer controls.
 *
 * After a successful init the target also builds the FDE index on a copy
 * of the section, the way the kernel does (sframe_index_prepare() sizes it,
 * here with at most num_fdes + 2 entries, malloc'ed to the exact size so
 * that ASan sees any overrun; sframe_index_build() fills it), and does
 * every lookup and every unwind step on both: the return codes, the rows
 * (every field) and the unwound frames must be identical.
 *
 * Beyond the sanitizers, the target checks the reader's contract:
 * only 0, -ENOENT, -EINVAL (and -EOPNOTSUPP at init, -EFAULT when
 * unwinding) are returned, a found row belongs to a function that starts
 * at or before the PC, and a successful unwind step never moves the stack
 * pointer down.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/unaligned.h>
#include "sframe_read.h"
#include "unwind-step.h"
#include "sframe_format.h"

#define STACK_BASE 0x7fff00000000UL

static const uint8_t *stack_data;
static size_t stack_size;

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	if (addr < STACK_BASE || addr - STACK_BASE > stack_size ||
	    stack_size - (addr - STACK_BASE) < sizeof(*val))
		return -EFAULT;
	memcpy(val, stack_data + (addr - STACK_BASE), sizeof(*val));
	return 0;
}

#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); abort(); } while (0)

static void check_row(const struct sframe_section *sec,
		      const struct sframe_section *isec, unsigned long pc)
{
	struct sframe_row row, irow;
	int ret, iret;

	/* Poison both so that a field left unset compares unequal. */
	memset(&row, 0xa5, sizeof(row));
	memset(&irow, 0x5a, sizeof(irow));
	ret = sframe_find_row(sec, pc, &row);
	iret = sframe_find_row(isec, pc, &irow);
	if (ret != iret)
		FAIL("sframe_find_row(%#lx) = %d, with the index %d\n", pc, ret, iret);
	if (!ret && (row.func_start != irow.func_start || row.cfa_off != irow.cfa_off ||
		     row.ra_off != irow.ra_off || row.fp_off != irow.fp_off ||
		     row.cfa_base_sp != irow.cfa_base_sp ||
		     row.ra_tracked != irow.ra_tracked ||
		     row.fp_tracked != irow.fp_tracked ||
		     row.ra_mangled != irow.ra_mangled ||
		     row.outermost != irow.outermost ||
		     row.cfa_deref != irow.cfa_deref ||
		     row.fp_base_fp != irow.fp_base_fp ||
		     row.signal != irow.signal))
		FAIL("sframe_find_row(%#lx): the index gives another row\n", pc);
	if (ret == -ENOENT || ret == -EINVAL)
		return;
	if (ret)
		FAIL("sframe_find_row(%#lx) = %d\n", pc, ret);
	/* The row's function starts at or before pc (modulo wrap-around). */
	if ((long)(pc - row.func_start) < 0)
		FAIL("row of %#lx in a function starting at %#lx\n", pc, row.func_start);
	if (row.outermost && (row.ra_tracked || row.fp_tracked || row.cfa_off))
		FAIL("outermost row with offsets at %#lx\n", pc);
}

/* Copy @sec to @isec and build the FDE index of the copy; return the index. */
static uint32_t *make_index(const struct sframe_section *sec,
			    struct sframe_section *isec)
{
	uint32_t n, *index, b;

	*isec = *sec;
	n = sframe_index_prepare(isec);
	if (n < 2 || n > sec->num_fdes + 2)
		FAIL("sframe_index_prepare = %u for %u FDEs\n", n, sec->num_fdes);
	if (n != isec->index_buckets + 1 || isec->index_shift > 63)
		FAIL("index of %u entries, %u buckets, shift %u\n", n,
		     isec->index_buckets, isec->index_shift);
	if (isec->index)
		FAIL("sframe_index_prepare enabled the index\n");
	index = malloc(sizeof(*index) * n);
	if (!index)
		abort();
	sframe_index_build(isec, index);
	if (isec->index != index || sec->index)
		FAIL("index not enabled\n");
	/* Non-decreasing FDE numbers, ending with num_fdes. */
	for (b = 0; b + 1 < n; b++)
		if (index[b] > index[b + 1])
			FAIL("index[%u] = %u > index[%u] = %u\n", b, index[b], b + 1,
			     index[b + 1]);
	if (index[n - 1] != sec->num_fdes)
		FAIL("last index entry %u, %u FDEs\n", index[n - 1], sec->num_fdes);
	return index;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sframe_section sec, isec;
	uint64_t c0 = 0, c1 = 0;
	unsigned long vaddr, pcs[24];
	uint32_t *index;
	unsigned int npcs = 0, i, k;
	int ret;

	if (size > UINT32_MAX)
		return 0;
	if (size >= 16) {
		c0 = rd64(data + size - 16);
		c1 = rd64(data + size - 8);
	}
	/* Usually a plausible load address; sometimes one near the ends. */
	switch (c0 & 3) {
	case 0:
	case 1:
		vaddr = 0x555555554000UL + ((c0 >> 8) & 0xfffff000UL);
		break;
	case 2:
		vaddr = ~0UL - ((c0 >> 8) & 0xffff);
		break;
	default:
		vaddr = (c0 >> 8) & 0xffff;
		break;
	}
	ret = sframe_section_init(&sec, data, (uint32_t)size, vaddr);
	if (ret == -EINVAL || ret == -EOPNOTSUPP)
		return 0;
	if (ret)
		FAIL("sframe_section_init = %d\n", ret);
	/* What init accepted must lie inside the buffer. */
	if (sec.fdes < data || sec.fdes + (size_t)sec.num_fdes * sec.fde_size > data + size ||
	    sec.fres < data || sec.fres + sec.fre_len > data + size)
		FAIL("sub-sections outside the section\n");

	/* PCs: around FDE starts picked by the control bytes, and wild ones. */
	for (k = 0; k < 4; k++) {
		uint32_t idx = (uint32_t)(c1 >> (k * 16)) % sec.num_fdes;
		const uint8_t *fde = sec.fdes + (size_t)idx * sec.fde_size;
		long start;
		uint32_t fsize;
		uint32_t off = (uint32_t)(c0 >> (16 + k * 12)) & 0xfff;

		if (sec.version == SFRAME_VERSION_3) {
			/* init bounded it: no overflow below */
			start = (int64_t)get_unaligned_le64(fde + SFRAME_V3_FDE_FUNC_START);
			fsize = get_unaligned_le32(fde + SFRAME_V3_FDE_FUNC_SIZE);
		} else {
			start = (int32_t)get_unaligned_le32(fde);
			fsize = get_unaligned_le32(fde + SFRAME_FDE_FUNC_SIZE);
		}

		if (sec.flags & SFRAME_F_FDE_FUNC_START_PCREL)
			start += fde - data;
		pcs[npcs++] = vaddr + start + (fsize ? off % fsize : off);
		pcs[npcs++] = vaddr + start + fsize - 1;
		pcs[npcs++] = vaddr + start + fsize;
	}
	pcs[npcs++] = vaddr - 1;
	pcs[npcs++] = vaddr + (c1 & 0xffffff);
	pcs[npcs++] = 0;
	pcs[npcs++] = ~0UL;

	index = make_index(&sec, &isec);
	/* Around a bucket boundary and the ends of the indexed range. */
	{
		uint32_t b = (uint32_t)(c1 >> 24) % (isec.index_buckets + 1);
		unsigned long edge = vaddr + isec.index_base +
				     ((unsigned long)b << isec.index_shift);

		pcs[npcs++] = edge - 1;
		pcs[npcs++] = edge;
		pcs[npcs++] = vaddr + isec.index_base - 1;
		pcs[npcs++] = vaddr + isec.index_base +
			      ((unsigned long)isec.index_buckets << isec.index_shift);
		/* Far above: @off - index_base does not fit in an s64. */
		pcs[npcs++] = vaddr + (unsigned long)INT64_MAX - (c1 >> 56);
		pcs[npcs++] = vaddr + (unsigned long)INT64_MIN + (c1 >> 56);
	}
	for (i = 0; i < npcs; i++)
		check_row(&sec, &isec, pcs[i]);

	/*
	 * Unwind from the first PC over a stack that is the input itself,
	 * with and without the index, in lockstep.
	 */
	stack_data = data;
	stack_size = size;
	{
		struct sframe_frame fr = {
			.pc = pcs[0],
			.sp = STACK_BASE + ((c0 >> 40) & 0xff) * 8 % (size + 1),
			.fp = STACK_BASE + ((c0 >> 48) & 0xff) * 8 % (size + 1),
			.ra = pcs[1],
			.topmost = true,
			.ra_valid = (c0 >> 56) & 1,
		};
		struct sframe_frame ifr = fr;
		int iret;

		for (k = 0; k < 16; k++) {
			unsigned long sp = fr.sp;
			bool topmost = fr.topmost;

			ret = host_unwind_step(&sec, &fr);
			iret = host_unwind_step(&isec, &ifr);
			if (ret != iret)
				FAIL("host_unwind_step = %d, with the index %d\n", ret, iret);
			if (fr.pc != ifr.pc || fr.sp != ifr.sp || fr.fp != ifr.fp ||
			    fr.ra != ifr.ra || fr.topmost != ifr.topmost ||
			    fr.ra_valid != ifr.ra_valid || fr.ra_mangled != ifr.ra_mangled)
				FAIL("unwind step %u: the index gives another frame\n", k);
			if (ret == -ENOENT || ret == -EINVAL || ret == -EFAULT)
				break;
			if (ret)
				FAIL("host_unwind_step = %d\n", ret);
			if (fr.sp < sp || (fr.sp == sp && !topmost))
				FAIL("unwind moved SP from %#lx to %#lx\n", sp, fr.sp);
			if (fr.topmost)
				FAIL("topmost after a step\n");
			/* Also look up the PC this step returned to. */
			check_row(&sec, &isec, fr.pc);
			check_row(&sec, &isec, fr.pc - 1);
		}
	}
	free(index);
	return 0;
}
