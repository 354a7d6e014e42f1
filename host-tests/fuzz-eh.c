// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .eh_frame -> SFrame converter
 * (lib/sframe/sframe_ehframe.c), and for the reader on its output.
 *
 * Input: the bytes of an .eh_frame section followed by an 8-byte trailer
 * (so that real sections, with the trailer make-seeds-eh.sh appends, are
 * valid seeds):
 *
 *   t[0]     bit 0: aarch64 (else x86_64); bit 1: eh_vaddr above 4 GiB;
 *            0xff: an ABI the converter must refuse (-EOPNOTSUPP)
 *   t[1..4]  eh_vaddr (low 32 bits, little-endian)
 *   t[5..7]  choice of lookup PCs, load bias and unwind start
 *
 * The converter's contract, beyond ASan/UBSan (and LeakSanitizer: every
 * buffer but the section is freed, on every path):
 *   - a conversion returns a size in (0, limit] or -ENOENT, -EINVAL,
 *     -EOPNOTSUPP, -E2BIG, and with a result, a section of exactly that
 *     size (ASan sees any overrun);
 *   - with a limit one byte below that size it returns -E2BIG; when one
 *     of its allocations fails, -ENOMEM; a second conversion gives the
 *     same bytes and statistics (deterministic);
 *   - the statistics are consistent (dropped <= seen; FREs written <=
 *     rows, plus one per PLT row, which takes two);
 *   - the output is an SFrame v2 section that sframe_section_init()
 *     accepts, with the header the spec gives, FDEs sorted,
 *     non-overlapping, non-empty, of at most 64 FREs whose start
 *     addresses increase from 0 inside the function;
 *   - sframe_find_row() finds a row at the start, middle and last byte of
 *     every FDE and never returns anything but 0 or -ENOENT; outermost
 *     rows carry no offset; the FDE index (sframe_index_build()) gives
 *     the same answers;
 *   - unwind steps over a fake stack (the input itself, as in fuzz.c)
 *     return only 0, -ENOENT, -EINVAL or -EFAULT and never move SP down.
 *
 * When the converter has it (SFEH_HAVE_HDR_ADDR, set by the Makefile from
 * the header), sframe_eh_frame_hdr_addr() also gets every input as an
 * .eh_frame_hdr: 0, -EINVAL or -EOPNOTSUPP only, and for the encodings
 * linkers use (pcrel|sdata4, datarel|sdata4, udata4/8) the address the
 * format gives.
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
#include "sframe_ehframe.h"

#define STACK_BASE 0x7fff00000000UL
#define TRAILER 8

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

/* The kernel's limit on a translated section. */
#define LIMIT (16U << 20)

/* Allocations of the converter; the one that fails (0: none). */
static unsigned int allocs, alloc_fails;

static void *fz_alloc(size_t size)
{
	if (++allocs == alloc_fails)
		return NULL;
	return malloc(size);
}

static long convert(const uint8_t *eh, uint32_t eh_size, uint64_t eh_vaddr, uint8_t abi,
		    uint32_t limit, uint8_t **out, struct sframe_eh_stats *st)
{
	void *o = (void *)0x1;	/* must not be freed, nor kept on failure */
	long ret;

	allocs = 0;
	ret = sframe_eh_convert(eh, eh_size, eh_vaddr, abi, fz_alloc, limit, &o, st);
	*out = ret > 0 ? o : NULL;
	return ret;
}

/* FUZZ_EH_DEBUG=1: print what each input converted to (for replays). */
static int debug = -1;

static void check_stats(const struct sframe_eh_stats *st, const char *pass)
{
	if (st->fdes_dropped > st->fdes || st->rows_dropped > st->rows ||
	    st->bytes_dropped > st->bytes || st->rows_plt > st->rows ||
	    (uint64_t)st->out_fres + st->rows_dropped > (uint64_t)st->rows + st->rows_plt)
		FAIL("%s stats: fdes %u dropped %u, rows %u dropped %u, bytes %llu dropped %llu, out fdes %u fres %u\n",
		     pass, st->fdes, st->fdes_dropped, st->rows, st->rows_dropped,
		     (unsigned long long)st->bytes, (unsigned long long)st->bytes_dropped,
		     st->out_fdes, st->out_fres);
}

static void lookup(const struct sframe_section *sec, const struct sframe_section *isec,
		   unsigned long pc, int must_find)
{
	struct sframe_row row, irow;
	int ret, iret;

	memset(&row, 0xa5, sizeof(row));
	memset(&irow, 0x5a, sizeof(irow));
	ret = sframe_find_row(sec, pc, &row);
	iret = isec ? sframe_find_row(isec, pc, &irow) : ret;
	if (ret != 0 && ret != -ENOENT)
		FAIL("sframe_find_row(%#lx) = %d on the converter's output\n", pc, ret);
	if (must_find && ret)
		FAIL("sframe_find_row(%#lx) = %d inside an FDE\n", pc, ret);
	if (ret != iret)
		FAIL("sframe_find_row(%#lx) = %d, with the index %d\n", pc, ret, iret);
	if (ret)
		return;
	if (isec &&
	    (row.func_start != irow.func_start || row.cfa_off != irow.cfa_off ||
	     row.ra_off != irow.ra_off || row.fp_off != irow.fp_off ||
	     row.cfa_base_sp != irow.cfa_base_sp || row.ra_tracked != irow.ra_tracked ||
	     row.fp_tracked != irow.fp_tracked || row.ra_mangled != irow.ra_mangled ||
	     row.outermost != irow.outermost))
		FAIL("sframe_find_row(%#lx): the index gives another row\n", pc);
	if ((long)(pc - row.func_start) < 0)
		FAIL("row of %#lx in a function starting at %#lx\n", pc, row.func_start);
	if (row.outermost && (row.ra_tracked || row.fp_tracked || row.cfa_off))
		FAIL("outermost row with offsets at %#lx\n", pc);
}

/* The header, FDE table and FRE start addresses, as the spec gives them. */
static void check_layout(const uint8_t *o, long size, uint8_t abi,
			 const struct sframe_eh_stats *st, const struct sframe_section *sec)
{
	uint32_t nfdes = get_unaligned_le32(o + SFRAME_HDR_NUM_FDES);
	uint32_t nfres = get_unaligned_le32(o + SFRAME_HDR_NUM_FRES);
	uint32_t fre_len = get_unaligned_le32(o + SFRAME_HDR_FRE_LEN);
	int64_t prev_end = INT64_MIN;
	uint64_t fres_total = 0;
	uint32_t i, k;

	if (get_unaligned_le16(o) != SFRAME_MAGIC || o[SFRAME_HDR_VERSION] != SFRAME_VERSION_2 ||
	    o[SFRAME_HDR_FLAGS] != SFRAME_F_FDE_SORTED || o[SFRAME_HDR_ABI_ARCH] != abi ||
	    o[SFRAME_HDR_FIXED_FP] != 0 ||
	    (int8_t)o[SFRAME_HDR_FIXED_RA] != (abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? -8 : 0) ||
	    o[SFRAME_HDR_AUXHDR_LEN] != 0 || get_unaligned_le32(o + SFRAME_HDR_FDEOFF) != 0 ||
	    get_unaligned_le32(o + SFRAME_HDR_FREOFF) != nfdes * SFRAME_V2_FDE_SIZE)
		FAIL("bad header\n");
	if (nfdes != st->out_fdes || nfres != st->out_fres || !nfdes)
		FAIL("header: %u FDEs %u FREs, stats %u %u\n", nfdes, nfres, st->out_fdes,
		     st->out_fres);
	if ((uint64_t)SFRAME_HDR_SIZE + (uint64_t)nfdes * SFRAME_V2_FDE_SIZE + fre_len !=
	    (uint64_t)size)
		FAIL("size %ld, header says %llu\n", size,
		     (unsigned long long)(SFRAME_HDR_SIZE + (uint64_t)nfdes * SFRAME_V2_FDE_SIZE +
					  fre_len));
	for (i = 0; i < nfdes; i++) {
		const uint8_t *fde = o + SFRAME_HDR_SIZE + (size_t)i * SFRAME_V2_FDE_SIZE;
		int64_t start = (int32_t)get_unaligned_le32(fde + SFRAME_FDE_FUNC_START);
		uint32_t fsize = get_unaligned_le32(fde + SFRAME_FDE_FUNC_SIZE);
		uint32_t off = get_unaligned_le32(fde + SFRAME_FDE_FRE_OFF);
		uint32_t n = get_unaligned_le32(fde + SFRAME_FDE_NUM_FRES);
		uint8_t info = fde[SFRAME_FDE_INFO];
		unsigned int asz;
		bool pcmask;
		const uint8_t *fre = sec->fres + off;
		int64_t prev = -1;

		if (!fsize || start < prev_end)
			FAIL("FDE %u: [%lld, +%u) after %lld\n", i, (long long)start, fsize,
			     (long long)prev_end);
		if (start + fsize - 1 > INT32_MAX)
			FAIL("FDE %u: ends beyond s32\n", i);
		prev_end = start + fsize;
		if (!n || n > 64)
			FAIL("FDE %u: %u FREs\n", i, n);
		/* PCMASK: an x86-64 PLT, two FREs in 16-byte blocks. */
		pcmask = SFRAME_FDE_INFO_FDE_TYPE(info) == SFRAME_FDE_TYPE_PCMASK;
		if (pcmask && (abi != SFRAME_ABI_AMD64_ENDIAN_LITTLE || fde[17] != 16 ||
			       n != 2 || start % 16 ||
			       SFRAME_FDE_INFO_FRE_TYPE(info) != SFRAME_FRE_TYPE_ADDR1))
			FAIL("FDE %u: PCMASK, info %#x rep %u, %u FREs\n", i, info, fde[17], n);
		if (SFRAME_FDE_INFO_FRE_TYPE(info) > SFRAME_FRE_TYPE_ADDR4 ||
		    (info & 0xc0) || ((info & 0x20) && abi != SFRAME_ABI_AARCH64_ENDIAN_LITTLE) ||
		    (!pcmask && fde[17]) || fde[18] || fde[19])
			FAIL("FDE %u: info %#x rep %u\n", i, info, fde[17]);
		asz = 1u << SFRAME_FDE_INFO_FRE_TYPE(info);
		if (off > fre_len)
			FAIL("FDE %u: FREs at %u of %u\n", i, off, fre_len);
		for (k = 0; k < n; k++) {
			uint64_t a;
			uint8_t finfo;
			unsigned int nofs, osz;

			if (sec->fres + fre_len - fre < asz + 1)
				FAIL("FDE %u FRE %u: past the end\n", i, k);
			a = asz == 1 ? fre[0] : asz == 2 ? get_unaligned_le16(fre) :
							   get_unaligned_le32(fre);
			if ((int64_t)a <= prev || a >= (pcmask ? 16 : fsize) || (k == 0 && a != 0))
				FAIL("FDE %u FRE %u: start %llu (previous %lld, size %u)\n", i, k,
				     (unsigned long long)a, (long long)prev, fsize);
			prev = a;
			finfo = fre[asz];
			nofs = SFRAME_FRE_INFO_NUM_OFFSETS(finfo);
			osz = SFRAME_FRE_INFO_OFFSET_SIZE(finfo);
			if (osz > SFRAME_FRE_OFFSET_4B || nofs > 3 ||
			    (abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE && nofs > 2) ||
			    (abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE && (finfo & 0x80)))
				FAIL("FDE %u FRE %u: info %#x\n", i, k, finfo);
			if (sec->fres + fre_len - fre < asz + 1 + (nofs << osz))
				FAIL("FDE %u FRE %u: offsets past the end\n", i, k);
			fre += asz + 1 + (nofs << osz);
		}
		fres_total += n;
	}
	if (fres_total != nfres)
		FAIL("FDEs hold %llu FREs, header %u\n", (unsigned long long)fres_total, nfres);
}

#ifdef SFEH_HAVE_HDR_ADDR
/* .eh_frame_hdr: version, eh_frame_ptr encoding, two more, the pointer. */
static void check_hdr_addr(const uint8_t *hdr, uint32_t size, uint64_t vaddr)
{
	uint64_t got = 0x5a5a5a5a5a5a5a5aULL, want;
	int ret = sframe_eh_frame_hdr_addr(hdr, size, vaddr, &got);

	if (ret != 0 && ret != -EINVAL && ret != -EOPNOTSUPP)
		FAIL("sframe_eh_frame_hdr_addr = %d\n", ret);
	if (size < 4 || hdr[0] != 1)
		return;
	switch (hdr[1]) {
	case 0x1b:	/* pcrel | sdata4 */
		if (size < 8)
			return;
		want = vaddr + 4 + (uint64_t)(int64_t)(int32_t)get_unaligned_le32(hdr + 4);
		break;
	case 0x3b:	/* datarel | sdata4: relative to the header */
		if (size < 8)
			return;
		want = vaddr + (uint64_t)(int64_t)(int32_t)get_unaligned_le32(hdr + 4);
		break;
	case 0x03:	/* udata4 */
		if (size < 8)
			return;
		want = get_unaligned_le32(hdr + 4);
		break;
	case 0x04:	/* udata8 */
	case 0x00:	/* absptr */
		if (size < 12)
			return;
		want = get_unaligned_le64(hdr + 4);
		break;
	default:
		return;
	}
	if (ret || got != want)
		FAIL("sframe_eh_frame_hdr_addr(enc %#x) = %d, %#llx, want %#llx\n", hdr[1], ret,
		     (unsigned long long)got, (unsigned long long)want);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sframe_eh_stats st2, st3;
	struct sframe_section sec, isec;
	const uint8_t *t;
	uint8_t abi, *out, *out2, *out3;
	uint32_t eh_size, *index, n, i, sel;
	uint64_t eh_vaddr;
	unsigned long load;
	unsigned int nallocs;
	long len, len3;
	int ret;

	if (size < TRAILER || size - TRAILER > UINT32_MAX)
		return 0;
	eh_size = size - TRAILER;
	t = data + eh_size;
	abi = (t[0] & 1) ? SFRAME_ABI_AARCH64_ENDIAN_LITTLE : SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	if (t[0] == 0xff)
		abi = SFRAME_ABI_AARCH64_ENDIAN_BIG;
	eh_vaddr = get_unaligned_le32(t + 1);
	if (t[0] & 2)
		eh_vaddr |= (uint64_t)t[0] << 32;
	sel = t[5] | t[6] << 8 | t[7] << 16;
#ifdef SFEH_HAVE_HDR_ADDR
	check_hdr_addr(data, eh_size, eh_vaddr);
#endif

	/* The conversion, as the kernel's. */
	memset(&st2, 0xcc, sizeof(st2));
	alloc_fails = 0;
	len = convert(data, eh_size, eh_vaddr, abi, LIMIT, &out, &st2);
	if (abi == SFRAME_ABI_AARCH64_ENDIAN_BIG) {
		if (len != -EOPNOTSUPP)
			FAIL("ABI %u accepted: %ld\n", abi, len);
		return 0;
	}
	if (len == -ENOENT || len == -EINVAL || len == -EOPNOTSUPP || len == -E2BIG)
		return 0;
	if (len <= 0 || len > LIMIT)
		FAIL("sframe_eh_convert = %ld\n", len);
	if (len < SFRAME_HDR_SIZE + SFRAME_V2_FDE_SIZE)
		FAIL("size %ld below one FDE\n", len);
	check_stats(&st2, "conversion");
	nallocs = allocs;

	/* A limit a byte short of it: -E2BIG. */
	ret = convert(data, eh_size, eh_vaddr, abi, len - 1, &out2, NULL);
	if (ret != -E2BIG || out2)
		FAIL("limit %ld below the section (%ld) = %d\n", len - 1, len, ret);

	/* One of its allocations fails: -ENOMEM. */
	alloc_fails = 1 + (sel >> 1) % nallocs;
	ret = convert(data, eh_size, eh_vaddr, abi, LIMIT, &out2, NULL);
	if (ret != -ENOMEM || out2)
		FAIL("allocation %u of %u fails: %d\n", alloc_fails, nallocs, ret);
	alloc_fails = 0;

	/* Deterministic: a second conversion gets the same section. */
	if (sel & 1) {
		len3 = convert(data, eh_size, eh_vaddr, abi, LIMIT, &out3, &st3);
		if (len3 != len || memcmp(out, out3, len) || memcmp(&st2, &st3, sizeof(st3)))
			FAIL("second conversion differs (%ld vs %ld)\n", len3, len);
		free(out3);
	}

	/* The reader must take it. */
	load = (sel & 2) ? 0x555555554000UL + ((unsigned long)(sel >> 8) << 12) : 0;
	ret = sframe_section_init(&sec, out, len, load);
	if (ret)
		FAIL("sframe_section_init = %d on the converter's output (%ld bytes)\n", ret, len);
	check_layout(out, len, abi, &st2, &sec);
	if (debug < 0)
		debug = getenv("FUZZ_EH_DEBUG") != NULL;
	if (debug)
		fprintf(stderr, "fuzz-eh: %s, %u bytes at %#llx: %ld bytes (%u allocations), %u FDEs, %u FREs (DWARF: %u FDEs, %u rows, %u dropped)\n",
			abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE ? "x86_64" : "aarch64", eh_size,
			(unsigned long long)eh_vaddr, len, nallocs, sec.num_fdes, st2.out_fres,
			st2.fdes, st2.rows, st2.rows_dropped);

	isec = sec;
	n = sframe_index_prepare(&isec);
	index = malloc(sizeof(*index) * n);
	if (!index)
		abort();
	sframe_index_build(&isec, index);

	/* Lookups: start, middle, last byte of FDEs; just past the end; wild. */
	for (i = 0; i < sec.num_fdes && i < 256; i++) {
		uint32_t k = sec.num_fdes <= 256 ? i :
			     (uint32_t)((sel * 2654435761u + i * 40503u) % sec.num_fdes);
		const uint8_t *fde = sec.fdes + (size_t)k * sec.fde_size;
		long start = (int32_t)get_unaligned_le32(fde);
		uint32_t fsize = get_unaligned_le32(fde + SFRAME_FDE_FUNC_SIZE);

		lookup(&sec, &isec, load + start, 1);
		lookup(&sec, &isec, load + start + fsize / 2, 1);
		lookup(&sec, &isec, load + start + fsize - 1, 1);
		lookup(&sec, &isec, load + start + fsize, 0);
		lookup(&sec, &isec, load + start - 1, 0);
	}
	lookup(&sec, &isec, load + (sel & 0xffff), 0);
	lookup(&sec, &isec, load - 1, 0);
	lookup(&sec, &isec, 0, 0);
	lookup(&sec, &isec, ~0UL, 0);

	/* Unwind from a PC of the output over the input as a stack. */
	stack_data = data;
	stack_size = size;
	{
		uint32_t k = sel % sec.num_fdes;
		const uint8_t *fde = sec.fdes + (size_t)k * sec.fde_size;
		long start = (int32_t)get_unaligned_le32(fde);
		uint32_t fsize = get_unaligned_le32(fde + SFRAME_FDE_FUNC_SIZE);
		struct sframe_frame fr = {
			.pc = load + start + (sel >> 4) % fsize,
			.sp = STACK_BASE + (t[5] * 8) % (size + 1),
			.fp = STACK_BASE + (t[6] * 8) % (size + 1),
			.ra = load + start,
			.topmost = true,
			.ra_valid = t[7] & 1,
		};

		for (k = 0; k < 16; k++) {
			unsigned long sp = fr.sp;
			bool topmost = fr.topmost;

			ret = host_unwind_step(&sec, &fr);
			if (ret == -ENOENT || ret == -EINVAL || ret == -EFAULT)
				break;
			if (ret)
				FAIL("host_unwind_step = %d\n", ret);
			if (fr.sp < sp || (fr.sp == sp && !topmost))
				FAIL("unwind moved SP from %#lx to %#lx\n", sp, fr.sp);
			lookup(&sec, &isec, fr.pc, 0);
			lookup(&sec, &isec, fr.pc - 1, 0);
		}
	}
	free(index);
	free(out);
	return 0;
}
