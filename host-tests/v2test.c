// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the SFrame reader on hand-built sections, mostly v2 (which
 * bookworm's assembler cannot emit and libsframe 2.40 cannot read): PCMASK
 * FDEs with rep_size, SFRAME_F_FDE_FUNC_START_PCREL, auxiliary header and
 * sub-section offsets, AArch64 RA/FP offsets and the mangled-RA bit, the
 * outermost frame, malformed sections, and host_unwind_step(); and the
 * FDE index (sframe_index_prepare()/sframe_index_build()) against the plain
 * binary search on sections of many functions.
 *
 * Every expected value is written out by hand from the format definition.
 *
 *   v2test [--write-seeds DIR]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe_read.h"
#include "unwind-step.h"
#include "sfbuild.h"

#define VADDR	0x400000UL

/* ------------------------------------------------------------ fake stack */
#define STACK_BASE 0x7ffff000UL
static unsigned long stack[64];

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	if (addr < STACK_BASE || addr % sizeof(long) ||
	    addr - STACK_BASE >= sizeof(stack))
		return -EFAULT;
	*val = stack[(addr - STACK_BASE) / sizeof(long)];
	return 0;
}

/* ------------------------------------------------------------ reporting */
static int checks_failed, tests_passed, tests_failed;
static const char *seed_dir;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "  %s:%d: check failed: %s\n",		\
			__func__, __LINE__, #cond);			\
		checks_failed++;					\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", \
			__func__, __LINE__, #a, _a, #b, _b);		\
		checks_failed++;					\
	}								\
} while (0)

static void run(const char *name, void (*fn)(void))
{
	int before = checks_failed;

	fn();
	if (checks_failed == before) {
		tests_passed++;
		printf("ok   %s\n", name);
	} else {
		tests_failed++;
		printf("FAIL %s\n", name);
	}
}

/* ------------------------------------------------------------ builder */
struct fre_d {
	uint32_t start;
	uint8_t info;
	int32_t offs[3];
};

struct fde_d {
	int32_t start;		/* raw func_start field */
	uint32_t size;
	uint8_t fre_type;	/* 0: 1-byte starts, 1: 2 bytes, 2: 4 bytes */
	int pcmask;
	uint8_t rep;
	int nfres;
	struct fre_d fres[4];
};

struct sec_d {
	uint8_t version, flags, abi;
	int8_t fixed_fp, fixed_ra;
	uint8_t auxhdr_len;
	uint32_t fdegap;	/* bytes between aux header and FDEs (fdeoff) */
	int nfdes;
	struct fde_d fdes[4];
};

static uint8_t sec_buf[4096];

/* Lay out a section: header, aux header, gap, FDEs, FREs. */
static uint32_t build(const struct sec_d *d)
{
	struct sfb b = { 0 }, fres = { 0 };
	struct sfb_hdr h = {
		.version = d->version, .flags = d->flags, .abi = d->abi,
		.fixed_fp = d->fixed_fp, .fixed_ra = d->fixed_ra,
		.auxhdr_len = d->auxhdr_len, .num_fdes = d->nfdes,
		.fdeoff = d->fdegap,
	};
	unsigned int fde_size = d->version == 1 ? 17 : 20, i, j, nfres = 0;
	uint32_t len;

	for (i = 0; i < (unsigned int)d->nfdes; i++)
		nfres += d->fdes[i].nfres;
	/* FREs first, into their own buffer, to know their offsets. */
	for (i = 0; i < (unsigned int)d->nfdes; i++)
		for (j = 0; j < (unsigned int)d->fdes[i].nfres; j++)
			sfb_fre(&fres, 1u << d->fdes[i].fre_type,
				d->fdes[i].fres[j].start, d->fdes[i].fres[j].info,
				d->fdes[i].fres[j].offs);
	h.num_fres = nfres;
	h.fre_len = (uint32_t)fres.len;
	h.freoff = d->fdegap + d->nfdes * fde_size;
	sfb_header(&b, &h);
	for (i = 0; i < d->auxhdr_len; i++)
		sfb_u8(&b, 0xaa);
	for (i = 0; i < d->fdegap; i++)
		sfb_u8(&b, 0xbb);
	{
		uint32_t off = 0;

		for (i = 0; i < (unsigned int)d->nfdes; i++) {
			const struct fde_d *f = &d->fdes[i];
			struct sfb tmp = { 0 };

			sfb_fde(&b, d->version, f->start, f->size, off, f->nfres,
				SFB_FDE_INFO(f->fre_type, f->pcmask), f->rep);
			for (j = 0; j < (unsigned int)f->nfres; j++)
				sfb_fre(&tmp, 1u << f->fre_type, f->fres[j].start,
					f->fres[j].info, f->fres[j].offs);
			off += tmp.len;
			free(tmp.buf);
		}
	}
	sfb_room(&b, fres.len);
	memcpy(b.buf + b.len, fres.buf, fres.len);
	b.len += fres.len;
	if (b.len > sizeof(sec_buf))
		abort();
	memcpy(sec_buf, b.buf, b.len);
	len = (uint32_t)b.len;
	free(b.buf);
	free(fres.buf);
	return len;
}

static void write_seed_buf(const char *name, const uint8_t *buf, uint32_t len)
{
	char path[4096];
	FILE *f;

	if (!seed_dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", seed_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

static void write_seed(const char *name, uint32_t len)
{
	write_seed_buf(name, sec_buf, len);
}

#define SP 1
#define FP 0
#define O1 0	/* 1-byte offsets */
#define O2 1
#define O4 2

/* Look up @pc; return the reader's error code, fill *r. */
static int look(const struct sframe_section *s, unsigned long pc, struct sframe_row *r)
{
	memset(r, 0x5a, sizeof(*r));
	return sframe_find_row(s, pc, r);
}

/* ------------------------------------------------------------ AMD64 v2 */
static const struct sec_d amd64_v2 = {
	.version = 2, .flags = 1, .abi = 3, .fixed_ra = -8, .nfdes = 2,
	.fdes = {
		{ .start = -0x1000, .size = 0x40, .fre_type = 0, .nfres = 3,
		  .fres = {
			{ 0, SFB_FRE_INFO(SP, 1, O1, 0), { 8 } },
			{ 1, SFB_FRE_INFO(SP, 1, O1, 0), { 16 } },
			{ 4, SFB_FRE_INFO(FP, 2, O1, 0), { 16, -16 } },
		} },
		{ .start = -0xf00, .size = 0x20, .fre_type = 1, .nfres = 1,
		  .fres = { { 0, SFB_FRE_INFO(SP, 1, O2, 0), { 8 } } } },
	},
};

static void test_amd64_v2_pcinc(void)
{
	struct sframe_section s;
	struct sframe_row r;
	uint32_t len = build(&amd64_v2);

	write_seed("v2-amd64.sframe", len);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	/* First byte of the first function: CFA = SP + 8, RA at CFA - 8. */
	CHECK_EQ(look(&s, 0x3ff000, &r), 0);
	CHECK_EQ(r.func_start, 0x3ff000);
	CHECK(r.cfa_base_sp && r.cfa_off == 8);
	CHECK(r.ra_tracked && r.ra_off == -8);
	CHECK(!r.fp_tracked && !r.outermost && !r.ra_mangled);
	/* After the push: CFA = SP + 16. */
	CHECK_EQ(look(&s, 0x3ff003, &r), 0);
	CHECK(r.cfa_base_sp && r.cfa_off == 16 && !r.fp_tracked);
	/* Frame pointer set up: CFA = FP + 16, FP saved at CFA - 16. */
	CHECK_EQ(look(&s, 0x3ff03f, &r), 0);
	CHECK(!r.cfa_base_sp && r.cfa_off == 16);
	CHECK(r.fp_tracked && r.fp_off == -16 && r.ra_off == -8);
	/* Gap after the first function, before the first, after the last. */
	CHECK_EQ(look(&s, 0x3ff040, &r), -ENOENT);
	CHECK_EQ(look(&s, 0x3fefff, &r), -ENOENT);
	CHECK_EQ(look(&s, 0x3ff120, &r), -ENOENT);
	CHECK_EQ(look(&s, 0, &r), -ENOENT);
	CHECK_EQ(look(&s, ~0UL, &r), -ENOENT);
	/* Second function, 2-byte FRE starts and offsets. */
	CHECK_EQ(look(&s, 0x3ff11f, &r), 0);
	CHECK_EQ(r.func_start, 0x3ff100);
	CHECK(r.cfa_base_sp && r.cfa_off == 8);
}

/* ------------------------------------------------------------ PCMASK */
static const struct sec_d pcmask_v2 = {
	.version = 2, .flags = 1, .abi = 3, .fixed_ra = -8, .nfdes = 2,
	.fdes = {
		/* A PLT: four 16-byte entries, push at +10 (CFA 16 from +11). */
		{ .start = -0x2000, .size = 0x40, .fre_type = 0, .pcmask = 1,
		  .rep = 16, .nfres = 2,
		  .fres = {
			{ 0, SFB_FRE_INFO(SP, 1, O1, 0), { 8 } },
			{ 11, SFB_FRE_INFO(SP, 1, O1, 0), { 16 } },
		} },
		/* 32-byte blocks: CFA 24 from +20 of each block. */
		{ .start = -0x1f00, .size = 0x60, .fre_type = 0, .pcmask = 1,
		  .rep = 32, .nfres = 2,
		  .fres = {
			{ 0, SFB_FRE_INFO(SP, 1, O1, 0), { 8 } },
			{ 20, SFB_FRE_INFO(SP, 1, O1, 0), { 24 } },
		} },
	},
};

static void test_pcmask_rep_size(void)
{
	struct sframe_section s;
	struct sframe_row r;
	uint32_t len = build(&pcmask_v2);
	unsigned long plt = VADDR - 0x2000, blk = VADDR - 0x1f00;

	write_seed("v2-pcmask.sframe", len);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	/* 0x2a % 16 = 10: before the push of entry 2. */
	CHECK_EQ(look(&s, plt + 0x2a, &r), 0);
	CHECK_EQ(r.func_start, plt);
	CHECK_EQ(r.cfa_off, 8);
	/* 0x2b % 16 = 11. */
	CHECK_EQ(look(&s, plt + 0x2b, &r), 0);
	CHECK_EQ(r.cfa_off, 16);
	CHECK_EQ(look(&s, plt + 0x3f, &r), 0);
	CHECK_EQ(r.cfa_off, 16);
	CHECK_EQ(look(&s, plt + 0x30, &r), 0);
	CHECK_EQ(r.cfa_off, 8);
	CHECK_EQ(look(&s, plt + 0x40, &r), -ENOENT);
	/* rep_size 32: 0x33 % 32 = 19 (a 16-byte rule would give 3). */
	CHECK_EQ(look(&s, blk + 0x33, &r), 0);
	CHECK_EQ(r.func_start, blk);
	CHECK_EQ(r.cfa_off, 8);
	/* 0x34 % 32 = 20; modulo 16 it would be 4 and give CFA 8. */
	CHECK_EQ(look(&s, blk + 0x34, &r), 0);
	CHECK_EQ(r.cfa_off, 24);
	CHECK_EQ(look(&s, blk + 0x5f, &r), 0);
	CHECK_EQ(r.cfa_off, 24);
	CHECK_EQ(look(&s, blk + 0x14, &r), 0);
	CHECK_EQ(r.cfa_off, 24);
	CHECK_EQ(look(&s, blk + 0x13, &r), 0);
	CHECK_EQ(r.cfa_off, 8);
	CHECK_EQ(look(&s, blk + 0x60, &r), -ENOENT);
}

static void test_pcmask_rep_size_zero(void)
{
	struct sec_d d = pcmask_v2;
	struct sframe_section s;
	uint32_t len;

	d.fdes[1].rep = 0;
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
}

/* v1 PCMASK: no rep_size field, the block is a 16-byte PLT entry. */
static void test_pcmask_v1(void)
{
	struct sec_d d = pcmask_v2;
	struct sframe_section s;
	struct sframe_row r;
	unsigned long blk = VADDR - 0x1f00;
	uint32_t len;

	d.version = 1;
	len = build(&d);
	write_seed("v1-pcmask.sframe", len);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	/* 0x34 % 16 = 4: CFA 8 (the FRE at 20 is never reached). */
	CHECK_EQ(look(&s, blk + 0x34, &r), 0);
	CHECK_EQ(r.cfa_off, 8);
	CHECK_EQ(look(&s, blk + 0x5f, &r), 0);
	CHECK_EQ(r.cfa_off, 8);
}

/* ------------------------------------------------------------ PCREL */
static void test_pcrel(void)
{
	/*
	 * Aux header of 4 bytes and 8 bytes before the FDEs: FDE 0 is at
	 * section offset 28 + 4 + 8 = 40, FDE 1 at 60.  Both raw fields hold
	 * -0x1028: relative to themselves they give section offsets -0x1000
	 * and -0xfec, i.e. addresses VADDR - 0x1000 and VADDR - 0xfec.
	 */
	struct sec_d d = {
		.version = 2, .flags = 1 | 4, .abi = 3, .fixed_ra = -8,
		.auxhdr_len = 4, .fdegap = 8, .nfdes = 2,
		.fdes = {
			{ .start = -0x1028, .size = 0x14, .nfres = 1,
			  .fres = { { 0, SFB_FRE_INFO(SP, 1, O1, 0), { 8 } } } },
			{ .start = -0x1028, .size = 0x10, .nfres = 2,
			  .fres = { { 0, SFB_FRE_INFO(SP, 1, O1, 0), { 8 } },
				    { 2, SFB_FRE_INFO(SP, 1, O1, 0), { 32 } } } },
		},
	};
	struct sframe_section s;
	struct sframe_row r;
	uint32_t len = build(&d);

	write_seed("v2-pcrel.sframe", len);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	CHECK_EQ(look(&s, VADDR - 0x1000, &r), 0);
	CHECK_EQ(r.func_start, VADDR - 0x1000);
	CHECK_EQ(look(&s, VADDR - 0xfed, &r), 0);
	CHECK_EQ(r.func_start, VADDR - 0x1000);
	CHECK_EQ(r.cfa_off, 8);
	CHECK_EQ(look(&s, VADDR - 0xfec, &r), 0);
	CHECK_EQ(r.func_start, VADDR - 0xfec);
	CHECK_EQ(look(&s, VADDR - 0xfea, &r), 0);
	CHECK_EQ(r.cfa_off, 32);
	CHECK_EQ(look(&s, VADDR - 0xfdc, &r), -ENOENT);
	CHECK_EQ(look(&s, VADDR - 0x1001, &r), -ENOENT);

	/* Without the flag the same fields mean section offset -0x1028. */
	d.flags = 1;
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	CHECK_EQ(look(&s, VADDR - 0x1028, &r), 0);
	CHECK_EQ(r.func_start, VADDR - 0x1028);
	CHECK_EQ(look(&s, VADDR - 0x1028 + 0xf, &r), 0);
	/* Equal starts: the last FDE (size 0x10) governs. */
	CHECK_EQ(look(&s, VADDR - 0x1028 + 0x10, &r), -ENOENT);
	CHECK_EQ(look(&s, VADDR - 0x1000, &r), -ENOENT);

	/* PCREL resolves in order even though the raw fields decrease. */
	d.flags = 1 | 4;
	d.fdes[1].start = -0x1030;	/* 60 - 0x1030 = -0xff4 > -0x1000 */
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	CHECK_EQ(look(&s, VADDR - 0xff4, &r), 0);
	CHECK_EQ(r.func_start, VADDR - 0xff4);
	/* ... and is rejected when the resolved starts decrease. */
	d.fdes[1].start = -0x1040;	/* 60 - 0x1040 = -0x1004 */
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);

	/* The flag does not exist in v1. */
	d.version = 1;
	d.fdes[1].start = -0x1028;
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EOPNOTSUPP);
}

/* ------------------------------------------------------------ AArch64 */
static const struct sec_d aarch64_v2 = {
	.version = 2, .flags = 1, .abi = 2, .nfdes = 1,
	.fdes = {
		{ .start = -0x30000, .size = 0x20000, .fre_type = 2, .nfres = 4,
		  .fres = {
			/* entry: CFA = SP, RA still in LR */
			{ 0, SFB_FRE_INFO(SP, 1, O1, 0), { 0 } },
			/* paciasp; stp x29, x30, [sp, -16]!: RA signed */
			{ 4, SFB_FRE_INFO(SP, 1, O1, 1), { 0 } },
			{ 8, SFB_FRE_INFO(SP, 3, O1, 1), { 16, -8, -16 } },
			/* big frame, 4-byte offsets, FP based */
			{ 0x10000, SFB_FRE_INFO(FP, 3, O4, 1),
			  { 0x12340, -0x8, -0x10 } },
		} },
	},
};

static void test_aarch64_v2(void)
{
	struct sframe_section s;
	struct sframe_row r;
	uint32_t len = build(&aarch64_v2);
	unsigned long f = VADDR - 0x30000;

	write_seed("v2-aarch64.sframe", len);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	CHECK_EQ(look(&s, f + 3, &r), 0);
	CHECK_EQ(r.func_start, f);
	CHECK(r.cfa_base_sp && r.cfa_off == 0);
	CHECK(!r.ra_tracked && !r.fp_tracked && !r.ra_mangled && !r.outermost);
	CHECK_EQ(look(&s, f + 4, &r), 0);
	CHECK(!r.ra_tracked && r.ra_mangled);
	CHECK_EQ(look(&s, f + 0xffff, &r), 0);
	CHECK(r.cfa_base_sp && r.cfa_off == 16);
	CHECK(r.ra_tracked && r.ra_off == -8);
	CHECK(r.fp_tracked && r.fp_off == -16 && r.ra_mangled);
	CHECK_EQ(look(&s, f + 0x1ffff, &r), 0);
	CHECK(!r.cfa_base_sp && r.cfa_off == 0x12340);
	CHECK(r.ra_tracked && r.ra_off == -8 && r.fp_tracked && r.fp_off == -16);
	CHECK_EQ(look(&s, f + 0x20000, &r), -ENOENT);
}

/* Topmost frame of a leaf on AArch64: RA comes from the link register. */
static void test_aarch64_unwind(void)
{
	struct sframe_section s;
	struct sframe_frame fr;
	uint32_t len = build(&aarch64_v2);
	unsigned long f = VADDR - 0x30000;

	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	memset(&fr, 0, sizeof(fr));
	fr.pc = f + 2;
	fr.sp = STACK_BASE + 64;
	fr.fp = 0x1234;
	fr.ra = 0xabcdef;
	fr.topmost = true;
	fr.ra_valid = true;
	CHECK_EQ(host_unwind_step(&s, &fr), 0);
	CHECK_EQ(fr.pc, 0xabcdef);
	CHECK_EQ(fr.sp, STACK_BASE + 64);
	CHECK_EQ(fr.fp, 0x1234);
	CHECK(!fr.topmost && !fr.ra_mangled);

	/* The same row for a caller frame: no RA anywhere, give up. */
	fr.pc = f + 3;
	fr.sp = STACK_BASE + 64;
	CHECK_EQ(host_unwind_step(&s, &fr), -EINVAL);

	/* Topmost without a valid LR: give up too. */
	fr.pc = f + 2;
	fr.topmost = true;
	fr.ra_valid = false;
	CHECK_EQ(host_unwind_step(&s, &fr), -EINVAL);

	/* Frame record stored: RA at CFA - 8, FP at CFA - 16, signed. */
	stack[8] = 0x5555;	/* saved FP at STACK_BASE + 64 */
	stack[9] = 0x6666;	/* saved LR at STACK_BASE + 72 */
	fr.pc = f + 0x100;
	fr.sp = STACK_BASE + 64;
	fr.topmost = true;
	CHECK_EQ(host_unwind_step(&s, &fr), 0);
	CHECK_EQ(fr.pc, 0x6666);
	CHECK_EQ(fr.sp, STACK_BASE + 80);
	CHECK_EQ(fr.fp, 0x5555);
	CHECK(fr.ra_mangled);
}

/*
 * glibc's AArch64 lazy-binding trampoline, _dl_runtime_resolve: entered
 * from the PLT, which pushed x16 and the return address (16 bytes); its
 * CFI takes the CFA as its SP on entry, and the return address at CFA + 8.
 * The caller's SP is above that slot, at CFA + 16: with the CFA itself,
 * the caller's frame record was read 16 bytes too low, where the PLT's
 * push left the same return address (a duplicate frame, then garbage).
 */
static const struct sec_d aarch64_plt_tramp = {
	.version = 2, .flags = 1, .abi = 2, .nfdes = 1,
	.fdes = {
		{ .start = -0x1000, .size = 0x80, .fre_type = 0, .nfres = 1,
		  .fres = {
			/* after stp x8, x9, [sp, #-208]!: CFA = SP + 208 */
			{ 0, SFB_FRE_INFO(SP, 2, O2, 0), { 208, 8 } },
		} },
	},
};

static void test_aarch64_ra_above_cfa(void)
{
	struct sframe_section s;
	struct sframe_frame fr;
	uint32_t len = build(&aarch64_plt_tramp);

	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	memset(&fr, 0, sizeof(fr));
	memset(stack, 0, sizeof(stack));
	stack[28] = 0x1616;	/* x16, pushed by the PLT at CFA */
	stack[29] = 0x7777;	/* the return address, at CFA + 8 */
	fr.pc = VADDR - 0x1000 + 0x40;
	fr.sp = STACK_BASE + 16;
	fr.fp = 0x1234;
	fr.topmost = true;
	fr.ra_valid = true;
	CHECK_EQ(host_unwind_step(&s, &fr), 0);
	CHECK_EQ(fr.pc, 0x7777);
	CHECK_EQ(fr.sp, STACK_BASE + 16 + 208 + 16);
	CHECK_EQ(fr.fp, 0x1234);
}

/* ------------------------------------------------------------ outermost */
static void test_outermost(void)
{
	struct sec_d d = {
		.version = 2, .flags = 1, .abi = 3, .fixed_ra = -8, .nfdes = 1,
		.fdes = {
			{ .start = -0x100, .size = 0x10, .nfres = 2,
			  .fres = { { 0, SFB_FRE_INFO(SP, 0, O1, 0), { 0 } },
				    { 4, SFB_FRE_INFO(SP, 1, O1, 0), { 8 } } } },
		},
	};
	struct sframe_section s;
	struct sframe_row r;
	struct sframe_frame fr = { .topmost = true };
	uint32_t len = build(&d);

	write_seed("v2-outermost.sframe", len);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	CHECK_EQ(look(&s, VADDR - 0x100 + 3, &r), 0);
	CHECK(r.outermost && !r.ra_tracked && !r.fp_tracked);
	CHECK_EQ(r.func_start, VADDR - 0x100);
	fr.pc = VADDR - 0x100 + 3;
	fr.sp = STACK_BASE;
	CHECK_EQ(host_unwind_step(&s, &fr), -ENOENT);
	CHECK_EQ(look(&s, VADDR - 0x100 + 4, &r), 0);
	CHECK(!r.outermost && r.ra_tracked);
}

/* ------------------------------------------------------------ unwind */
static void test_amd64_unwind(void)
{
	struct sframe_section s;
	struct sframe_frame fr;
	uint32_t len = build(&amd64_v2);

	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	/* Interrupted at 0x3ff003: CFA = SP + 16, RA at CFA - 8. */
	memset(stack, 0, sizeof(stack));
	stack[1] = 0x3ff040;	/* returns to the first byte after the function */
	memset(&fr, 0, sizeof(fr));
	fr.pc = 0x3ff003;
	fr.sp = STACK_BASE;
	fr.fp = 0x77;
	fr.topmost = true;
	CHECK_EQ(host_unwind_step(&s, &fr), 0);
	CHECK_EQ(fr.pc, 0x3ff040);
	CHECK_EQ(fr.sp, STACK_BASE + 16);
	CHECK_EQ(fr.fp, 0x77);
	CHECK(!fr.topmost);

	/*
	 * The caller's call was the last instruction of the first function:
	 * its return address 0x3ff040 is outside every function, but the
	 * lookup at pc - 1 finds the FP-based row at 0x3ff03f:
	 * CFA = FP + 16, RA at CFA - 8, FP at CFA - 16.
	 */
	fr.fp = STACK_BASE + 32;
	stack[4] = STACK_BASE + 128;	/* saved FP at CFA - 16 = fp */
	stack[5] = 0x3ff105;		/* RA at CFA - 8 */
	CHECK_EQ(host_unwind_step(&s, &fr), 0);
	CHECK_EQ(fr.pc, 0x3ff105);
	CHECK_EQ(fr.sp, STACK_BASE + 48);
	CHECK_EQ(fr.fp, STACK_BASE + 128);

	/* A CFA that does not move up ends the walk. */
	memset(&fr, 0, sizeof(fr));
	fr.pc = 0x3ff040;	/* looked up at 0x3ff03f: CFA = FP + 16 */
	fr.sp = STACK_BASE + 64;
	fr.fp = STACK_BASE + 32;	/* CFA = STACK_BASE + 48 < SP */
	CHECK_EQ(host_unwind_step(&s, &fr), -EINVAL);

	/* Unreadable stack. */
	memset(&fr, 0, sizeof(fr));
	fr.pc = 0x3ff003;
	fr.sp = STACK_BASE + sizeof(stack);
	fr.topmost = true;
	CHECK_EQ(host_unwind_step(&s, &fr), -EFAULT);

	/* Not covered. */
	memset(&fr, 0, sizeof(fr));
	fr.pc = 0x3ff080;
	fr.sp = STACK_BASE;
	fr.topmost = true;
	CHECK_EQ(host_unwind_step(&s, &fr), -ENOENT);
}

/* ------------------------------------------------------------ malformed */
static void test_malformed(void)
{
	struct sframe_section s;
	struct sframe_row r;
	struct sec_d d;
	uint32_t len;
	uint8_t save;

	len = build(&amd64_v2);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	CHECK_EQ(sframe_section_init(&s, NULL, len, VADDR), -EINVAL);
	CHECK_EQ(sframe_section_init(&s, sec_buf, 27, VADDR), -EINVAL);
	/* Truncated anywhere: the FREs are counted at init. */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len - 1, VADDR), -EINVAL);
	sec_buf[0] ^= 1;			/* magic */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sec_buf[0] ^= 1;
	sec_buf[2] = 3;				/* v2 bytes read as v3 */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sec_buf[2] = 4;				/* version 4 */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EOPNOTSUPP);
	sec_buf[2] = 0;
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EOPNOTSUPP);
	sec_buf[2] = 2;
	sec_buf[3] = 1 | 8;			/* unknown flag */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EOPNOTSUPP);
	sec_buf[3] = 0;				/* not sorted */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sec_buf[3] = 1;
	sfb_put_le(sec_buf + 8, 0, 4);		/* no FDE */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sfb_put_le(sec_buf + 8, 0x10000000, 4);	/* FDEs past the end */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sfb_put_le(sec_buf + 8, 2, 4);
	sfb_put_le(sec_buf + 16, 0xffffffff, 4);	/* fre_len */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sfb_put_le(sec_buf + 20, 0xfffffff0, 4);	/* fdeoff */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	sec_buf[7] = 0xff;			/* aux header eats the section */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);

	/* FDE order. */
	d = amd64_v2;
	d.fdes[1].start = -0x1001;
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	/* Equal starts are allowed (sorted, not strictly). */
	d.fdes[1].start = -0x1000;
	len = build(&d);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);

	/* FRE type 3 does not exist. */
	len = build(&amd64_v2);
	sec_buf[28 + 16] = 3;
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	/* num_fres that cannot fit; fre_off past fre_len. */
	len = build(&amd64_v2);
	sfb_put_le(sec_buf + 28 + 12, 0x40000000, 4);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);
	len = build(&amd64_v2);
	sfb_put_le(sec_buf + 28 + 8, 0x1000, 4);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), -EINVAL);

	/* Bad FRE info bytes are found at lookup time. */
	len = build(&amd64_v2);
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, VADDR), 0);
	/*
	 * FREs start at 28 + 2 * 20 = 68, 15 bytes: FDE 0's FRE 0 is bytes
	 * 68-70 (start, info, offset), FRE 1 is 71-73 (info at 72), FRE 2 is
	 * 74-77; FDE 1's FRE is 78-82.
	 */
	save = sec_buf[72];
	sec_buf[72] = SFB_FRE_INFO(SP, 4, O1, 0);	/* 4 offsets */
	CHECK_EQ(look(&s, 0x3ff001, &r), -EINVAL);
	CHECK_EQ(look(&s, 0x3ff000, &r), 0);	/* FRE 0 is still fine */
	sec_buf[72] = SFB_FRE_INFO(SP, 1, 3, 0);	/* offset size code 3 */
	CHECK_EQ(look(&s, 0x3ff001, &r), -EINVAL);
	/* Offsets run past the end of the FRE sub-section (71 + 14 > 83). */
	sec_buf[72] = SFB_FRE_INFO(SP, 3, O4, 0);
	CHECK_EQ(look(&s, 0x3ff03f, &r), -EINVAL);
	sec_buf[72] = save;
	CHECK_EQ(look(&s, 0x3ff001, &r), 0);
	CHECK_EQ(r.cfa_off, 16);
	/* First FRE starting after the function start: no row there. */
	sec_buf[68] = 1;
	CHECK_EQ(look(&s, 0x3ff000, &r), -ENOENT);
	CHECK_EQ(look(&s, 0x3ff001, &r), 0);	/* the last FRE at 1 wins */
	CHECK_EQ(r.cfa_off, 16);
}

/* ------------------------------------------------------------ vaddr */
/* Section mapped high: address arithmetic must not wrap into a match. */
static void test_high_vaddr(void)
{
	struct sframe_section s;
	struct sframe_row r;
	uint32_t len = build(&amd64_v2);
	unsigned long v = ~0UL - 0xfff;		/* last page */

	CHECK_EQ(sframe_section_init(&s, sec_buf, len, v), 0);
	CHECK_EQ(look(&s, v - 0x1000, &r), 0);
	CHECK_EQ(r.func_start, v - 0x1000);
	CHECK_EQ(look(&s, v + 0x10, &r), -ENOENT);
	CHECK_EQ(look(&s, 0x10, &r), -ENOENT);
	/* Section at 0x100: functions "below" it would be at negative addresses. */
	CHECK_EQ(sframe_section_init(&s, sec_buf, len, 0x100), 0);
	CHECK_EQ(look(&s, 0x100 - 0x1000, &r), 0);	/* wraps: what user space said */
	CHECK_EQ(look(&s, 0x0, &r), -ENOENT);
	CHECK_EQ(look(&s, 0x7fffffff, &r), -ENOENT);
}

/* ------------------------------------------------------------ FDE index */
/*
 * The index must find exactly what the binary search finds: the same
 * return code and the same row for every PC.  Each test builds a v2 AMD64
 * section from a list of functions (section-relative start, size), each
 * with two FREs whose CFA offsets identify the function and the half of it,
 * initialises it twice, builds the index on one copy and compares lookups.
 */
struct ifn {
	int64_t start;		/* relative to the section */
	uint32_t size;
};

static uint8_t *ibuf;
static uint32_t ilen;
static unsigned long n_index_lookups;

/* Section of @n functions; with @pcrel the start fields are PC-relative. */
static void build_index_sec(const struct ifn *f, unsigned int n, int pcrel)
{
	struct sfb b = { 0 }, fres = { 0 };
	struct sfb_hdr h = { .version = 2, .flags = 1 | (pcrel ? 4 : 0), .abi = 3,
			     .fixed_ra = -8, .num_fdes = n };
	unsigned int i;

	for (i = 0; i < n; i++) {
		int32_t lo[1] = { 0x100 + (int32_t)i }, hi[2] = { 0x10000 + (int32_t)i, -16 };

		sfb_fre(&fres, 4, 0, SFB_FRE_INFO(SP, 1, O4, 0), lo);
		/* 9 + 13 = 22 bytes of FREs per function. */
		sfb_fre(&fres, 4, f[i].size / 2, SFB_FRE_INFO(FP, 2, O4, 0), hi);
	}
	h.num_fres = 2 * n;
	h.fre_len = (uint32_t)fres.len;
	h.freoff = n * 20;
	sfb_header(&b, &h);
	for (i = 0; i < n; i++) {
		int64_t raw = f[i].start - (pcrel ? 28 + 20 * (int64_t)i : 0);

		if (raw < INT32_MIN || raw > INT32_MAX)
			abort();	/* the test's own mistake */
		sfb_fde(&b, 2, (int32_t)raw, f[i].size, i * 22, 2,
			SFB_FDE_INFO(2, 0), 0);
	}
	sfb_room(&b, fres.len);
	memcpy(b.buf + b.len, fres.buf, fres.len);
	b.len += fres.len;
	free(fres.buf);
	free(ibuf);
	ibuf = b.buf;
	ilen = (uint32_t)b.len;
}

struct ipair {
	struct sframe_section s, is;	/* without and with the index */
	uint32_t *index, n;
	int64_t base, end;		/* span of the functions */
};

/*
 * Init @p from the last section built, index the copy, and check the
 * index's geometry against the design: base = first start, buckets of
 * 2^shift bytes with the smallest shift that makes span >> shift smaller
 * than the number of FDEs, one entry per bucket plus one.
 */
static int index_pair(struct ipair *p, const struct ifn *f, unsigned int n,
		      unsigned long vaddr)
{
	uint64_t span;
	unsigned int i, shift = 0;

	free(p->index);
	memset(p, 0, sizeof(*p));
	CHECK_EQ(sframe_section_init(&p->s, ibuf, ilen, vaddr), 0);
	if (p->s.num_fdes != n)
		return -1;
	p->base = p->end = f[0].start;
	for (i = 0; i < n; i++)
		if (f[i].start + f[i].size > p->end)
			p->end = f[i].start + f[i].size;
	span = (uint64_t)(p->end - p->base);
	while ((span >> shift) >= n)
		shift++;

	p->is = p->s;
	p->n = sframe_index_prepare(&p->is);
	CHECK(p->n >= 2 && p->n <= n + 1);
	CHECK(p->is.index == NULL);
	CHECK_EQ(p->is.index_base, p->base);
	CHECK_EQ(p->is.index_shift, shift);
	CHECK_EQ(p->is.index_buckets, (span >> shift) + 1);
	CHECK_EQ(p->n, p->is.index_buckets + 1);
	p->index = malloc(sizeof(*p->index) * p->n);	/* exact size: ASan */
	if (!p->index)
		abort();
	sframe_index_build(&p->is, p->index);
	CHECK(p->is.index == p->index);
	CHECK(p->s.index == NULL);
	/* Entry b: the first FDE starting at or after bucket b. */
	for (i = 0; i < p->is.index_buckets; i++) {
		int64_t bstart = p->base + ((int64_t)i << shift);
		uint32_t want = 0;

		while (want < n && f[want].start < bstart)
			want++;
		if (p->index[i] != want) {
			CHECK_EQ(p->index[i], want);
			break;
		}
	}
	CHECK_EQ(p->index[p->n - 1], n);
	return 0;
}

/* One PC looked up in both modes: same code, same row. */
static void same_lookup(const struct ipair *p, unsigned long pc)
{
	struct sframe_row a, b;
	int ra = look(&p->s, pc, &a), rb = look(&p->is, pc, &b);

	n_index_lookups++;
	if (ra == rb && (ra || (a.func_start == b.func_start && a.cfa_off == b.cfa_off &&
				a.ra_off == b.ra_off && a.fp_off == b.fp_off &&
				a.cfa_base_sp == b.cfa_base_sp &&
				a.ra_tracked == b.ra_tracked &&
				a.fp_tracked == b.fp_tracked &&
				a.ra_mangled == b.ra_mangled &&
				a.outermost == b.outermost)))
		return;
	if (checks_failed < 20)
		fprintf(stderr, "  index differs at pc %#lx (.sframe%+ld): binary search %d "
			"(func %#lx cfa %#x), index %d (func %#lx cfa %#x)\n", pc,
			(long)(pc - p->s.vaddr), ra, ra ? 0 : a.func_start, ra ? 0 : a.cfa_off,
			rb, rb ? 0 : b.func_start, rb ? 0 : b.cfa_off);
	checks_failed++;
}

/* Every byte from @from to @to (section-relative), both included. */
static void same_range(const struct ipair *p, int64_t from, int64_t to)
{
	int64_t off;

	for (off = from; off <= to; off++)
		same_lookup(p, p->s.vaddr + off);
}

/*
 * Sampled PCs for spans too large to walk: around every function's start
 * and end, around every bucket boundary, pseudo-random ones, and far ones.
 */
static void same_sampled(const struct ipair *p, const struct ifn *f, unsigned int n)
{
	uint64_t span = (uint64_t)(p->end - p->base), x = 0x2545f4914f6cdd1dULL;
	unsigned int i;
	int k;

	for (i = 0; i < n; i++) {
		same_range(p, f[i].start - 3, f[i].start + 3);
		same_range(p, f[i].start + f[i].size / 2 - 1, f[i].start + f[i].size / 2);
		same_range(p, f[i].start + f[i].size - 3, f[i].start + f[i].size + 3);
	}
	for (i = 0; i <= p->is.index_buckets; i++)
		same_range(p, p->base + ((int64_t)i << p->is.index_shift) - 2,
			   p->base + ((int64_t)i << p->is.index_shift) + 1);
	for (k = 0; k < 20000; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		same_lookup(p, p->s.vaddr + p->base + (int64_t)(x % (span + 64)) - 32);
	}
	same_lookup(p, 0);
	same_lookup(p, ~0UL);
	same_lookup(p, p->s.vaddr);
	same_lookup(p, p->s.vaddr + INT32_MIN);
	same_lookup(p, p->s.vaddr + INT32_MAX);
}

/* Sizes and gaps from a fixed LCG. */
static uint32_t lcg(uint32_t *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 16;
}

/* 200 functions back to back, 1 to 97 bytes; also PC-relative. */
static void test_index_adjacent(void)
{
	static struct ifn f[200];
	struct ipair p = { 0 };
	uint32_t seed = 7;
	int64_t at = -0x3000;
	unsigned int i;
	int pcrel;

	for (i = 0; i < 200; i++) {
		f[i].start = at;
		f[i].size = 1 + lcg(&seed) % 97;
		at += f[i].size;
	}
	for (pcrel = 0; pcrel <= 1; pcrel++) {
		build_index_sec(f, 200, pcrel);
		if (index_pair(&p, f, 200, VADDR))
			break;
		same_range(&p, p.base - 300, p.end + 300);
	}
	/* The same section mapped in the last page: addresses wrap. */
	if (!index_pair(&p, f, 200, ~0UL - 0xfff))
		same_range(&p, p.base - 300, p.end + 300);
	free(p.index);
}

/* Gaps of 0 to 299 bytes, and every 16th function after a 64 KiB hole. */
static void test_index_gaps(void)
{
	static struct ifn f[150];
	struct ipair p = { 0 };
	uint32_t seed = 11;
	int64_t at = -0x80000;
	unsigned int i;

	for (i = 0; i < 150; i++) {
		at += lcg(&seed) % 300 + (i % 16 == 15 ? 0x10000 : 0);
		f[i].start = at;
		f[i].size = 1 + lcg(&seed) % 200;
		at += f[i].size;
	}
	build_index_sec(f, 150, 0);
	write_seed_buf("v2-index-gaps.sframe", ibuf, ilen);
	if (!index_pair(&p, f, 150, VADDR))
		same_range(&p, p.base - 0x1000, p.end + 0x1000);
	free(p.index);
}

/* One function: two entries, one bucket that holds the whole function. */
static void test_index_single(void)
{
	static const uint32_t sizes[] = { 1, 2, 0x40, 0x41, 0x1000 };
	struct ipair p = { 0 };
	struct sframe_row r;
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct ifn f = { -0x100, sizes[i] };

		build_index_sec(&f, 1, 0);
		if (index_pair(&p, &f, 1, VADDR))
			break;
		CHECK_EQ(p.n, 2);
		CHECK_EQ(p.is.index_buckets, 1);
		same_range(&p, -0x100 - 0x2000, -0x100 + sizes[i] + 0x2000);
		CHECK_EQ(look(&p.is, VADDR - 0x100, &r), 0);
		CHECK_EQ(r.cfa_off, sizes[i] >= 2 ? 0x100 : 0x10000);
		CHECK_EQ(look(&p.is, VADDR - 0x100 + sizes[i], &r), -ENOENT);
		CHECK_EQ(look(&p.is, VADDR - 0x101, &r), -ENOENT);
	}
	free(p.index);
}

/*
 * Equal start addresses (the last of them governs), empty functions, and
 * a span made only of them.
 */
static void test_index_duplicates(void)
{
	static const struct ifn dup[] = {
		{ -0x200, 0x10 },
		{ -0x1f0, 0x8 }, { -0x1f0, 0x40 }, { -0x1f0, 0x4 },	/* 3 equal */
		{ -0x1e0, 0 },						/* empty */
		{ -0x1e0, 0x10 },
		{ -0x100, 0x20 }, { -0x100, 0x20 }, { -0x100, 0x20 }, { -0x100, 0x20 },
		{ -0x100, 0x20 }, { -0x100, 0x20 }, { -0x100, 0x20 }, { -0x100, 0x30 },
		{ -0xc0, 0 }, { -0xc0, 0 },
		{ -0x40, 0x40 },
	};
	static struct ifn same[64];
	struct ipair p = { 0 };
	struct sframe_row r;
	unsigned int n = sizeof(dup) / sizeof(dup[0]), i;

	build_index_sec(dup, n, 0);
	if (!index_pair(&p, dup, n, VADDR)) {
		same_range(&p, -0x300, 0x100);
		/* Hand-checked: the last FDE of equal starts governs. */
		CHECK_EQ(look(&p.is, VADDR - 0x1f0 + 3, &r), 0);
		CHECK_EQ(r.cfa_off, 0x10000 + 3);	/* FDE 3, upper half */
		CHECK_EQ(look(&p.is, VADDR - 0x1f0 + 5, &r), -ENOENT);
		CHECK_EQ(look(&p.is, VADDR - 0x1e0, &r), 0);
		CHECK_EQ(r.cfa_off, 0x100 + 5);
		CHECK_EQ(look(&p.is, VADDR - 0x100 + 0x2f, &r), 0);
		CHECK_EQ(r.cfa_off, 0x10000 + 13);
		CHECK_EQ(look(&p.is, VADDR - 0xc0, &r), -ENOENT);
		CHECK_EQ(look(&p.is, VADDR - 0x1, &r), 0);
		CHECK_EQ(r.cfa_off, 0x10000 + 16);
	}

	/* 64 FDEs at one address, all empty: a span of 0 bytes. */
	for (i = 0; i < 64; i++)
		same[i] = (struct ifn){ 0x40, 0 };
	build_index_sec(same, 64, 0);
	if (!index_pair(&p, same, 64, VADDR)) {
		CHECK_EQ(p.is.index_buckets, 1);
		same_range(&p, 0, 0x80);
	}
	/* ... and the last one not empty. */
	same[63].size = 0x10;
	build_index_sec(same, 64, 0);
	if (!index_pair(&p, same, 64, VADDR))
		same_range(&p, 0, 0x80);
	free(p.index);
}

/*
 * The ends of the span: the first function at the base, the last byte of
 * the span, a span that is an exact multiple of the bucket size, and a
 * span whose end is set by an early function that encloses later ones.
 */
static void test_index_span_ends(void)
{
	/* 4 FDEs over 0x100 bytes: shift 7 (0x100 >> 6 = 4 is not < 4). */
	static const struct ifn exact[] = {
		{ -0x80, 0x40 }, { -0x40, 0x40 }, { 0, 0x40 }, { 0x40, 0x40 },
	};
	/* An outer function enclosing the others sets the end. */
	static const struct ifn outer[] = {
		{ -0x1000, 0x2000 }, { -0xff0, 0x10 }, { -0x800, 0x100 }, { 0, 0x10 },
		{ 0x400, 0x8 },
	};
	struct ipair p = { 0 };
	struct sframe_row r;

	build_index_sec(exact, 4, 0);
	if (!index_pair(&p, exact, 4, VADDR)) {
		CHECK_EQ(p.is.index_shift, 7);
		CHECK_EQ(p.is.index_buckets, 3);
		same_range(&p, -0x200, 0x200);
		CHECK_EQ(look(&p.is, VADDR - 0x80, &r), 0);	/* first byte */
		CHECK_EQ(r.func_start, VADDR - 0x80);
		CHECK_EQ(look(&p.is, VADDR - 0x81, &r), -ENOENT);
		CHECK_EQ(look(&p.is, VADDR + 0x7f, &r), 0);	/* last byte */
		CHECK_EQ(r.func_start, VADDR + 0x40);
		CHECK_EQ(look(&p.is, VADDR + 0x80, &r), -ENOENT);
		/* Past the last bucket. */
		CHECK_EQ(look(&p.is, VADDR - 0x80 + 3 * 0x80, &r), -ENOENT);
	}
	build_index_sec(outer, 5, 0);
	if (!index_pair(&p, outer, 5, VADDR)) {
		same_range(&p, -0x1100, 0x1100);
		/*
		 * Inside the outer function but after a later start: the last
		 * FDE starting before the PC governs, which does not cover it.
		 */
		CHECK_EQ(look(&p.is, VADDR - 0x1000 + 0x1fff, &r), -ENOENT);
		CHECK_EQ(look(&p.is, VADDR - 0xff1, &r), 0);
		CHECK_EQ(r.func_start, VADDR - 0x1000);
	}
	free(p.index);
}

/*
 * Functions far apart: raw starts at the ends of the s32 range and, with
 * PC-relative starts, a span beyond 4 GiB: buckets of 2^30 bytes and more.
 */
static void test_index_huge_span(void)
{
	static const struct ifn far[] = {
		{ INT32_MIN, 0x40 }, { INT32_MIN + 0x40, 0x10 }, { -0x10000, 0x100 },
		{ 0x100, 0x20 }, { 0x7fff0000, 0x1000 }, { INT32_MAX - 0x100, 0x100 },
	};
	/* PC-relative: the last start field is INT32_MAX, at offset 28 + 5 * 20. */
	static const struct ifn farther[] = {
		{ INT32_MIN + 28, 0x40 }, { -0x1000, 0x40 }, { 0, 0x40 },
		{ 0x40000000, 0x40 }, { 0x80000000LL, 0x80 },
		{ (int64_t)INT32_MAX + 28 + 5 * 20, 0xffffffffU },
	};
	struct ipair p = { 0 };

	build_index_sec(far, 6, 0);
	if (!index_pair(&p, far, 6, VADDR)) {
		CHECK(p.is.index_shift >= 30);
		same_sampled(&p, far, 6);
	}
	build_index_sec(farther, 6, 1);
	write_seed_buf("v2-index-huge-span.sframe", ibuf, ilen);
	if (!index_pair(&p, farther, 6, 0x7f0000000000UL)) {
		CHECK(p.end - p.base > 0x100000000LL);
		CHECK(p.is.index_shift >= 31);
		same_sampled(&p, farther, 6);
	}
	/* The same near the top of the address space. */
	if (!index_pair(&p, farther, 6, ~0UL - 0xfff))
		same_sampled(&p, farther, 6);
	free(p.index);
	printf("     index: %lu lookups compared with the binary search\n",
	       n_index_lookups);
}

/*
 * PCs so far above the section that pc - vaddr - index_base does not fit
 * in a signed 64-bit integer (a return address read from a hostile stack
 * can be anything): the lookup must fail cleanly, without undefined
 * behaviour (this binary traps on it).
 */
static void test_index_far_pcs(void)
{
	static const struct ifn f[] = { { -0x30000, 0x100 }, { -0x200, 0x10 } };
	struct ipair p = { 0 };
	unsigned long d;

	build_index_sec(f, 2, 0);
	if (!index_pair(&p, f, 2, VADDR)) {
		for (d = 0; d < 4; d++) {
			same_lookup(&p, VADDR + (unsigned long)INT64_MAX - d);
			same_lookup(&p, VADDR + (unsigned long)INT64_MIN + d);
			same_lookup(&p, VADDR + (unsigned long)INT64_MAX - 0x30000 + d);
		}
	}
	free(p.index);
}

int main(int argc, char **argv)
{
	/* Keep what was printed if a sanitizer ends the run. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--write-seeds"))
		seed_dir = argv[2];
	run("amd64 v2 PCINC lookups", test_amd64_v2_pcinc);
	run("v2 PCMASK with rep_size 16 and 32", test_pcmask_rep_size);
	run("v2 PCMASK with rep_size 0 is rejected", test_pcmask_rep_size_zero);
	run("v1 PCMASK uses 16-byte blocks", test_pcmask_v1);
	run("v2 FUNC_START_PCREL, aux header, fdeoff", test_pcrel);
	run("aarch64 v2 RA/FP offsets, mangled RA, 4-byte offsets", test_aarch64_v2);
	run("aarch64 unwind through LR and frame record", test_aarch64_unwind);
	run("aarch64 return address above the CFA (PLT trampoline)", test_aarch64_ra_above_cfa);
	run("v2 outermost frame (no offsets)", test_outermost);
	run("amd64 unwind steps", test_amd64_unwind);
	run("malformed sections", test_malformed);
	run("high and low section addresses", test_high_vaddr);
	run("index: adjacent functions (also PC-relative, wrapped)", test_index_adjacent);
	run("index: gaps and 64 KiB holes", test_index_gaps);
	run("index: a single function", test_index_single);
	run("index: duplicate starts and empty functions", test_index_duplicates);
	run("index: functions at both ends of the span", test_index_span_ends);
	run("index: functions far apart (huge span, large shift)", test_index_huge_span);
	run("index: PCs far above the section", test_index_far_pcs);
	printf("%d checks failed\n", checks_failed);
	printf("v2test: %d passed, %d failed\n", tests_passed, tests_failed);
	return tests_failed ? 1 : 0;
}
