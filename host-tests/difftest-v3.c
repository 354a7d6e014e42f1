// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the kernel SFrame reader against GNU libsframe on
 * SFrame version 3 (binutils >= 2.46), the libsframe of Debian sid
 * (binutils 2.47.50, linked statically).
 *
 *   difftest-v3 [--min-pcs N] [--verbose] ELF...
 *
 * As difftest.c does for v1: for every FDE of every file's .sframe
 * section, every byte of the function, the bytes just outside it and
 * addresses outside every function are looked up with sframe_find_row()
 * (our reader, on the section as sframe_section_init() leaves it and on a
 * copy with the FDE index; both must match, and return the same row) and
 * with libsframe's sframe_find_fre() and its getters.
 *
 * v3 adds flexible FDEs (info2 FDE type 1, x86_64 only in practice), whose
 * data words are control words (reg << 3 | deref << 1 | reg_p) and offsets:
 * [CFA ctrl, CFA off], then RA [ctrl, off] or a single 0 padding word when
 * RA has no rule but FP follows, then FP [ctrl, off].  libsframe's getters
 * give the offsets; the control words are decoded here from
 * sframe_get_fre_udata() (sframe_fre_get_ra_offset() reads data word 3
 * even after the RA padding, where it is the FP control word).  Rules the
 * kernel reader takes:
 *   CFA: reg_p, register SP or FP          cfa_base_sp, cfa_deref = deref
 *   RA:  absent or padding                 the header's fixed RA, or none
 *        !reg_p, deref                     ra_tracked at CFA + off
 *   FP:  absent                            the header's fixed FP, or none
 *        !reg_p, deref                     fp_tracked at CFA + off
 *        reg_p, register FP, deref         fp_tracked, fp_base_fp: FP + off
 *        reg_p, register FP, !deref, off 0 unchanged: not tracked
 * Every other rule, and every FDE type but 0 and 1, has no row in our
 * reader (-ENOENT: the kernel falls back to the .eh_frame tables).  Such
 * PCs are counted as "unsupported", by reason, not as mismatches; but
 * each must be a PC where libsframe decodes such a rule: -ENOENT anywhere
 * else is a mismatch, and so is a row where libsframe decodes one.
 * The FDE's signal-frame bit (info bit 7) is compared with row.signal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sid's headers (binutils 2.47.50), copied to build/host/sid-include. */
#include <sframe-api.h>

#include "sframe_read.h"
#include "elfsframe.h"

#if !defined(SFRAME_VERSION_3) || !defined(SFRAME_FDE_TYPE_FLEX)
#error "difftest-v3 needs the sframe.h of binutils >= 2.46 (build/host/sid-include)"
#endif

/*
 * The v3 fields of struct sframe_row (patch 0003).  Without them (an older
 * series) the program still builds; the reader then refuses v3 anyway.
 */
#ifdef SFV3_HAVE_ROW_V3
#define ROW_CFA_DEREF(r)	((r)->cfa_deref)
#define ROW_FP_BASE_FP(r)	((r)->fp_base_fp)
#define ROW_SIGNAL(r)		((r)->signal)
#else
#define ROW_CFA_DEREF(r)	false
#define ROW_FP_BASE_FP(r)	false
#define ROW_SIGNAL(r)		false
#endif

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	(void)addr;
	(void)val;
	return -EFAULT;
}

struct result {
	int found;		/* 1: a row, 0: none, -1: our reader failed */
	int ret;		/* our reader's error */
	int64_t func_start;	/* relative to the section */
	bool base_sp, cfa_deref, outermost;
	bool ra_tracked, fp_tracked, fp_base_fp;
	bool mangled, signal;
	bool flex;		/* libsframe side: the FDE is flexible */
	int32_t cfa, ra, fp;
};

/* Why libsframe's rule has no row in our reader. */
enum unsup {
	U_NONE,
	U_FDE_TYPE,	/* FDE type other than default and flex */
	U_SHORT,	/* flex FRE with a control word but no offset */
	U_CFA_NOREG,	/* CFA control word without reg_p */
	U_CFA_REG,	/* CFA from another register than SP or FP */
	U_RA_REG,	/* RA in a register (reg_p) */
	U_RA_VAL,	/* RA = CFA + off, not loaded (!reg_p, !deref) */
	U_FP_REG,	/* FP from another register, or FP + off not loaded */
	U_FP_VAL,	/* FP = CFA + off, not loaded */
	U_FRE_CAP,	/* more FREs than the reader scans (not a flex rule) */
	NR_UNSUP
};
static const char *const unsup_name[NR_UNSUP] = {
	"", "fde-type", "flex-short", "cfa-noreg", "cfa-reg", "ra-reg", "ra-val",
	"fp-reg", "fp-val", "fre-cap",
};

/*
 * SFRAME_MAX_FRES_PER_FDE of sframe_read.c: a lookup in a function with
 * more FREs fails (-EINVAL) rather than scan them in NMI context.  gas
 * writes up to 65535 (v3 has a u16 count): cfi-shapes.S has a function
 * with 1100 rows.
 */
#define READER_FRE_CAP	1024

/* libsframe's view of one FDE. */
struct lib_fde {
	int64_t start;		/* relative to the section, as libsframe computes it */
	uint32_t size, num_fres;
	uint8_t info, info2, rep;
};

struct v3_file {
	sframe_decoder_ctx *ctx;
	struct lib_fde *fdes;
	uint32_t num_fdes;
	uint8_t sp_reg, fp_reg;	/* DWARF numbers */
	int8_t fixed_ra, fixed_fp;
};

/* Lookup modes of our reader. */
enum { M_BSEARCH, M_INDEX, NR_MODES };
static const char *const mode_name[NR_MODES] = { "binary search", "index" };

struct mode_stats {
	uint64_t compared, mismatch;
};
static struct mode_stats stats[NR_MODES];
static uint64_t n_mode_diff, n_file_err;
static uint64_t n_unsup[NR_UNSUP];
/* What the compared rows exercised (index mode, when both agree). */
static uint64_t n_found, n_flex, n_cfa_fp, n_cfa_deref, n_fp_tracked, n_fp_base_fp,
		n_ra_off, n_outermost, n_mangled, n_signal, n_pcmask;
static int verbose;
static const char *cur_file;
static int8_t cur_fixed_ra;

static void print_result(const char *who, const struct result *r, enum unsup u)
{
	char cfa[32], ra[32], fp[32];

	if (u != U_NONE) {
		fprintf(stderr, "    %-9s unsupported rule (%s)\n", who, unsup_name[u]);
		return;
	}
	if (r->found < 0) {
		fprintf(stderr, "    %-9s error %d\n", who, r->ret);
		return;
	}
	if (!r->found) {
		fprintf(stderr, "    %-9s not found\n", who);
		return;
	}
	if (r->outermost) {
		fprintf(stderr, "    %-9s func .sframe%+" PRId64 "%s%s outermost, mangled %d\n",
			who, r->func_start, r->flex ? " flex" : "",
			r->signal ? " signal" : "", r->mangled);
		return;
	}
	snprintf(cfa, sizeof(cfa), r->cfa_deref ? "*(%s%+d)" : "%s%+d",
		 r->base_sp ? "sp" : "fp", r->cfa);
	snprintf(ra, sizeof(ra), r->ra_tracked ? "cfa%+d" : "-", r->ra);
	snprintf(fp, sizeof(fp), r->fp_tracked ? "%s%+d" : "-",
		 r->fp_base_fp ? "fp" : "cfa", r->fp);
	fprintf(stderr, "    %-9s func .sframe%+" PRId64 "%s%s cfa %s ra %s fp %s mangled %d\n",
		who, r->func_start, r->flex ? " flex" : "", r->signal ? " signal" : "",
		cfa, ra, fp, r->mangled);
}

static bool same(const struct result *a, const struct result *b)
{
	if (a->found != b->found)
		return false;
	if (a->found <= 0)
		return true;
	/* An outermost row has no CFA: its base register means nothing. */
	if (!(a->outermost && b->outermost) && a->base_sp != b->base_sp)
		return false;
	return a->func_start == b->func_start && a->outermost == b->outermost &&
	       a->cfa == b->cfa && a->cfa_deref == b->cfa_deref &&
	       a->ra_tracked == b->ra_tracked && a->ra == b->ra &&
	       a->fp_tracked == b->fp_tracked && a->fp == b->fp &&
	       a->fp_base_fp == b->fp_base_fp && a->mangled == b->mangled &&
	       a->signal == b->signal;
}

static bool same_row(const struct sframe_row *a, const struct sframe_row *b)
{
	return a->func_start == b->func_start && a->cfa_off == b->cfa_off &&
	       a->ra_off == b->ra_off && a->fp_off == b->fp_off &&
	       a->cfa_base_sp == b->cfa_base_sp && a->ra_tracked == b->ra_tracked &&
	       a->fp_tracked == b->fp_tracked && a->ra_mangled == b->ra_mangled &&
	       a->outermost == b->outermost && ROW_CFA_DEREF(a) == ROW_CFA_DEREF(b) &&
	       ROW_FP_BASE_FP(a) == ROW_FP_BASE_FP(b) && ROW_SIGNAL(a) == ROW_SIGNAL(b);
}

/* Our lookup; the raw return code and row go to *retp and *rowp. */
static void ours(const struct sframe_section *sec, uint64_t vaddr, int64_t rel,
		 struct result *r, int *retp, struct sframe_row *rowp)
{
	struct sframe_row row;
	int ret;

	memset(&row, 0, sizeof(row));
	ret = sframe_find_row(sec, (unsigned long)(vaddr + rel), &row);
	*retp = ret;
	*rowp = row;
	memset(r, 0, sizeof(*r));
	if (ret) {
		/* Valid binutils output must never look malformed. */
		if (ret != -ENOENT) {
			r->found = -1;
			r->ret = ret;
		}
		return;
	}
	r->found = 1;
	r->func_start = (int64_t)(row.func_start - vaddr);
	r->base_sp = row.cfa_base_sp;
	r->cfa_deref = ROW_CFA_DEREF(&row);
	r->outermost = row.outermost;
	r->cfa = row.cfa_off;
	r->ra_tracked = row.ra_tracked;
	r->ra = row.ra_off;
	r->fp_tracked = row.fp_tracked;
	r->fp_base_fp = ROW_FP_BASE_FP(&row);
	r->fp = row.fp_off;
	r->mangled = row.ra_mangled;
	r->signal = ROW_SIGNAL(&row);
}

/*
 * The FDE sframe_find_fre() takes for @rel: the same binary search as
 * libsframe's sframe_get_funcdesc_with_addr_internal(), which the API no
 * longer exports.
 */
static const struct lib_fde *lib_find_fde(const struct v3_file *vf, int64_t rel)
{
	int low = 0, high = (int)vf->num_fdes - 1;

	while (low <= high) {
		int mid = low + (high - low) / 2;
		const struct lib_fde *f = &vf->fdes[mid];

		if (f->start <= rel && (uint32_t)(rel - f->start) < f->size)
			return f;
		if (f->start < rel)
			low = mid + 1;
		else
			high = mid - 1;
	}
	return NULL;
}

/* A flex FDE's data word @idx as unsigned, or -1 if the FRE has no such word. */
static int64_t udata(const sframe_frame_row_entry *fre, int idx)
{
	int err = 0;
	uint32_t v = sframe_get_fre_udata(fre, idx, &err);

	return err ? -1 : (int64_t)v;
}

/* The rule of a flexible FDE's FRE (not outermost). */
static enum unsup theirs_flex(const struct v3_file *vf, const sframe_frame_row_entry *fre,
			      struct result *r)
{
	int64_t cfa_ctrl, ra_ctrl, fp_ctrl;
	unsigned int reg;
	int err = 0;

	r->flex = true;
	cfa_ctrl = udata(fre, 0);
	r->cfa = sframe_fre_get_cfa_offset(vf->ctx, fre, SFRAME_FDE_TYPE_FLEX, &err);
	if (cfa_ctrl < 0 || err)
		return U_SHORT;
	if (!SFRAME_V3_FLEX_FDE_CTRLWORD_REG_P(cfa_ctrl))
		return U_CFA_NOREG;
	reg = SFRAME_V3_FLEX_FDE_CTRLWORD_REGNUM(cfa_ctrl);
	if (reg != vf->sp_reg && reg != vf->fp_reg)
		return U_CFA_REG;
	r->base_sp = reg == vf->sp_reg;
	r->cfa_deref = SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(cfa_ctrl);

	/* RA: [ctrl, off], a single 0 (padding, FP follows), or nothing. */
	ra_ctrl = udata(fre, 2);
	if (ra_ctrl <= 0) {
		if (vf->fixed_ra) {
			r->ra_tracked = true;
			r->ra = vf->fixed_ra;
		}
	} else {
		err = 0;
		r->ra = sframe_fre_get_ra_offset(vf->ctx, fre, SFRAME_FDE_TYPE_FLEX, &err);
		if (err)
			return U_SHORT;
		if (SFRAME_V3_FLEX_FDE_CTRLWORD_REG_P(ra_ctrl))
			return U_RA_REG;
		if (!SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(ra_ctrl))
			return U_RA_VAL;
		r->ra_tracked = true;
	}

	/* FP: after the RA words or the padding. */
	fp_ctrl = ra_ctrl < 0 ? -1 : udata(fre, ra_ctrl ? 4 : 3);
	if (fp_ctrl < 0) {
		if (vf->fixed_fp) {
			r->fp_tracked = true;
			r->fp = vf->fixed_fp;
		}
		return U_NONE;
	}
	err = 0;
	r->fp = sframe_fre_get_fp_offset(vf->ctx, fre, SFRAME_FDE_TYPE_FLEX, &err);
	if (err)
		return U_SHORT;
	if (!SFRAME_V3_FLEX_FDE_CTRLWORD_REG_P(fp_ctrl)) {
		if (!SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(fp_ctrl))
			return U_FP_VAL;
		r->fp_tracked = true;
		return U_NONE;
	}
	if (SFRAME_V3_FLEX_FDE_CTRLWORD_REGNUM(fp_ctrl) != vf->fp_reg)
		return U_FP_REG;
	if (SFRAME_V3_FLEX_FDE_CTRLWORD_DEREF_P(fp_ctrl)) {
		r->fp_tracked = true;
		r->fp_base_fp = true;
		return U_NONE;
	}
	if (r->fp)
		return U_FP_REG;
	r->fp = 0;	/* FP unchanged: not tracked */
	return U_NONE;
}

/* libsframe's rule for @rel: a row in *r, none, or an unsupported rule. */
static enum unsup theirs(const struct v3_file *vf, int64_t rel, struct result *r)
{
	sframe_frame_row_entry fre;
	const struct lib_fde *f;
	unsigned int type;
	enum unsup u = U_NONE;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (sframe_find_fre(vf->ctx, rel, &fre))
		return U_NONE;
	f = lib_find_fde(vf, rel);
	if (!f) {
		fprintf(stderr, "%s: libsframe found an FRE at .sframe%+" PRId64
			" but no FDE\n", cur_file, rel);
		n_file_err++;
		return U_NONE;
	}
	r->found = 1;
	r->func_start = f->start;
	r->signal = SFRAME_V3_FDE_SIGNAL_P(f->info);
	if (f->num_fres > READER_FRE_CAP)
		return U_FRE_CAP;
	r->mangled = sframe_fre_get_ra_mangled_p(vf->ctx, &fre, &err);
	type = SFRAME_V3_FDE_TYPE(f->info2);
	if (type != SFRAME_FDE_TYPE_DEFAULT && type != SFRAME_FDE_TYPE_FLEX)
		return U_FDE_TYPE;
	err = 0;
	if (sframe_fre_get_ra_undefined_p(vf->ctx, &fre, &err)) {
		/* No data word: the outermost frame. */
		r->outermost = true;
		r->flex = type == SFRAME_FDE_TYPE_FLEX;
		r->base_sp = sframe_fre_get_base_reg_id(&fre, &err) == SFRAME_BASE_REG_SP;
		return U_NONE;
	}
	if (type == SFRAME_FDE_TYPE_FLEX) {
		u = theirs_flex(vf, &fre, r);
	} else {
		r->base_sp = sframe_fre_get_base_reg_id(&fre, &err) == SFRAME_BASE_REG_SP;
		err = 0;
		r->cfa = sframe_fre_get_cfa_offset(vf->ctx, &fre, SFRAME_FDE_TYPE_DEFAULT, &err);
		/* Fixed offsets (RA on AMD64) come from the header. */
		err = 0;
		r->ra = sframe_fre_get_ra_offset(vf->ctx, &fre, SFRAME_FDE_TYPE_DEFAULT, &err);
		r->ra_tracked = !err;
		err = 0;
		r->fp = sframe_fre_get_fp_offset(vf->ctx, &fre, SFRAME_FDE_TYPE_DEFAULT, &err);
		r->fp_tracked = !err;
	}
	if (!r->ra_tracked)
		r->ra = 0;
	if (!r->fp_tracked)
		r->fp = 0;
	return u;
}

static void judge(int mode, const struct elf_sframe *es, int64_t rel,
		  const struct result *a, const struct result *b, enum unsup u)
{
	struct mode_stats *st = &stats[mode];
	bool ok;

	st->compared++;
	if (u == U_FRE_CAP)
		ok = a->found <= 0;	/* -EINVAL (or -ENOENT) */
	else if (u != U_NONE)
		ok = a->found == 0;	/* an unsupported rule: no row */
	else
		ok = same(a, b);
	if (ok) {
		if (mode != M_INDEX)
			return;
		if (u != U_NONE) {
			n_unsup[u]++;
			if (verbose > 1)
				fprintf(stderr, "%s: unsupported (%s) pc %#" PRIx64 "\n",
					cur_file, unsup_name[u], es->addr + rel);
		} else if (a->found > 0) {
			n_found++;
			n_flex += b->flex;
			n_cfa_fp += !a->base_sp && !a->outermost;
			n_cfa_deref += a->cfa_deref;
			n_fp_tracked += a->fp_tracked;
			n_fp_base_fp += a->fp_base_fp;
			n_ra_off += a->ra_tracked && !(cur_fixed_ra && a->ra == cur_fixed_ra);
			n_outermost += a->outermost;
			n_mangled += a->mangled;
			n_signal += a->signal;
		}
		return;
	}
	if (st->mismatch < 20) {
		fprintf(stderr, "%s: MISMATCH (%s) pc %#" PRIx64 " (.sframe%+" PRId64 ")\n",
			cur_file, mode_name[mode], es->addr + rel, rel);
		print_result("ours", a, U_NONE);
		print_result("libsframe", b, u);
	}
	st->mismatch++;
}

static void compare(const struct elf_sframe *es, const struct sframe_section *sec,
		    const struct sframe_section *isec, const struct v3_file *vf,
		    int64_t rel)
{
	const struct sframe_section *secs[NR_MODES] = { sec, isec };
	struct result a[NR_MODES], b;
	struct sframe_row row[NR_MODES];
	int ret[NR_MODES], mode;
	enum unsup u = U_NONE;

	/* Far addresses: libsframe truncates PC - start to 32 bits. */
	if (rel >= INT32_MIN && rel <= INT32_MAX)
		u = theirs(vf, rel, &b);
	else
		memset(&b, 0, sizeof(b));
	for (mode = 0; mode < NR_MODES; mode++) {
		ours(secs[mode], es->addr, rel, &a[mode], &ret[mode], &row[mode]);
		judge(mode, es, rel, &a[mode], &b, u);
	}
	/* The index must not change anything: same code, same row. */
	if (ret[M_BSEARCH] != ret[M_INDEX] ||
	    (!ret[M_BSEARCH] && !same_row(&row[M_BSEARCH], &row[M_INDEX]))) {
		if (n_mode_diff < 20) {
			fprintf(stderr, "%s: MODES DIFFER pc %#" PRIx64 " (.sframe%+" PRId64
				"): binary search %d, index %d\n", cur_file,
				es->addr + rel, rel, ret[M_BSEARCH], ret[M_INDEX]);
			print_result("bsearch", &a[M_BSEARCH], U_NONE);
			print_result("index", &a[M_INDEX], U_NONE);
		}
		n_mode_diff++;
	}
}

/* libsframe's decoder and FDE table of a section; 0 or -1. */
static int v3_open(const struct elf_sframe *es, struct v3_file *vf)
{
	uint8_t abi;
	uint32_t i;
	int err = 0;

	memset(vf, 0, sizeof(*vf));
	vf->ctx = sframe_decode((const char *)es->data, es->size, &err);
	if (!vf->ctx) {
		fprintf(stderr, "%s: sframe_decode: %s\n", cur_file, sframe_errmsg(err));
		return -1;
	}
	abi = sframe_decoder_get_abi_arch(vf->ctx);
	if (abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE && es->machine == EM_X86_64) {
		vf->sp_reg = 7;
		vf->fp_reg = 6;
	} else if (abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE && es->machine == EM_AARCH64) {
		vf->sp_reg = 31;
		vf->fp_reg = 29;
	} else {
		fprintf(stderr, "%s: ABI %u for ELF machine %u\n", cur_file, abi, es->machine);
		return -1;
	}
	vf->fixed_ra = sframe_decoder_get_fixed_ra_offset(vf->ctx);
	vf->fixed_fp = sframe_decoder_get_fixed_fp_offset(vf->ctx);
	vf->num_fdes = sframe_decoder_get_num_fidx(vf->ctx);
	vf->fdes = calloc(vf->num_fdes ? vf->num_fdes : 1, sizeof(*vf->fdes));
	if (!vf->fdes)
		abort();
	for (i = 0; i < vf->num_fdes; i++) {
		struct lib_fde *f = &vf->fdes[i];
		uint32_t field;
		int64_t start;

		if (sframe_decoder_get_funcdesc_v3(vf->ctx, i, &f->num_fres, &f->size, &start,
						   &f->info, &f->info2, &f->rep)) {
			fprintf(stderr, "%s: FDE %u unreadable by libsframe\n", cur_file, i);
			return -1;
		}
		/* What libsframe's lookups use, PCREL flag or not. */
		field = sframe_decoder_get_offsetof_fde_start_addr(vf->ctx, i, &err);
		f->start = start + field;
	}
	return 0;
}

static void v3_close(struct v3_file *vf)
{
	free(vf->fdes);
	sframe_decoder_free(&vf->ctx);
}

static int test_file(const char *path)
{
	struct elf_sframe es;
	struct sframe_section sec, isec;
	struct v3_file vf;
	unsigned int i, nflex = 0, nsignal = 0, npcmask = 0;
	int ret;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t before = stats[M_INDEX].compared;
	uint32_t *index = NULL, nidx;

	cur_file = path;
	ret = elf_sframe_load(path, &es);
	if (ret) {
		if (ret > 0)
			fprintf(stderr, "%s: no .sframe section\n", path);
		elf_sframe_free(&es);
		return -1;
	}
	if (es.size < 4 || es.data[2] != SFRAME_VERSION_3) {
		fprintf(stderr, "%s: .sframe version %u, not 3\n", path,
			es.size < 4 ? 0 : es.data[2]);
		elf_sframe_free(&es);
		return -1;
	}
	ret = sframe_section_init(&sec, es.data, es.size, es.addr);
	if (ret || v3_open(&es, &vf)) {
		fprintf(stderr, "%s: sframe_section_init = %d%s\n", path, ret,
			ret == -EOPNOTSUPP ? " (the reader does not read v3)" : "");
		if (!ret)
			v3_close(&vf);
		elf_sframe_free(&es);
		return -1;
	}
	cur_fixed_ra = vf.fixed_ra;
	if (vf.num_fdes != sec.num_fdes) {
		fprintf(stderr, "%s: %u FDEs for libsframe, %u for us\n", path,
			vf.num_fdes, sec.num_fdes);
		n_file_err++;
	}
	/* The kernel path: a copy of the section with the FDE index built. */
	isec = sec;
	nidx = sframe_index_prepare(&isec);
	if (nidx < 2 || nidx > sec.num_fdes + 2) {
		fprintf(stderr, "%s: sframe_index_prepare = %u for %u FDEs\n", path,
			nidx, sec.num_fdes);
		n_file_err++;
	}
	index = calloc(nidx ? nidx : 1, sizeof(*index));
	if (!index)
		abort();
	sframe_index_build(&isec, index);
	if (isec.index != index || sec.index) {
		fprintf(stderr, "%s: index not enabled on the copy only\n", path);
		n_file_err++;
	}
	for (i = 0; i < vf.num_fdes; i++) {
		const struct lib_fde *f = &vf.fdes[i];
		uint64_t pcs = stats[M_INDEX].compared;
		uint32_t off;

		nflex += SFRAME_V3_FDE_TYPE(f->info2) == SFRAME_FDE_TYPE_FLEX;
		nsignal += SFRAME_V3_FDE_SIGNAL_P(f->info);
		npcmask += SFRAME_V3_FDE_PC_TYPE(f->info) == SFRAME_V3_FDE_PCTYPE_MASK;
		for (off = 0; off < f->size; off++)
			compare(&es, &sec, &isec, &vf, f->start + off);
		if (SFRAME_V3_FDE_PC_TYPE(f->info) == SFRAME_V3_FDE_PCTYPE_MASK)
			n_pcmask += stats[M_INDEX].compared - pcs;
		/* Just outside: these may belong to a neighbour. */
		compare(&es, &sec, &isec, &vf, f->start - 1);
		compare(&es, &sec, &isec, &vf, f->start + f->size);
		if (f->start < lo)
			lo = f->start;
		if (f->start + f->size > hi)
			hi = f->start + f->size;
	}
	/* Outside every function. */
	compare(&es, &sec, &isec, &vf, lo - 1);
	compare(&es, &sec, &isec, &vf, lo - 4096);
	compare(&es, &sec, &isec, &vf, hi);
	compare(&es, &sec, &isec, &vf, hi + 4096);
	compare(&es, &sec, &isec, &vf, 0);
	compare(&es, &sec, &isec, &vf, INT32_MAX);
	compare(&es, &sec, &isec, &vf, INT32_MIN);
	compare(&es, &sec, &isec, &vf, -(int64_t)es.addr);	/* address 0 */
	compare(&es, &sec, &isec, &vf, (int64_t)(UINT64_MAX - es.addr));
	printf("%s: %s v%u, %u FDEs (%u flex, %u signal, %u PC mask), %" PRIu64
	       " PCs per mode, index %u buckets of 2^%u bytes\n",
	       path, es.machine == EM_X86_64 ? "x86_64" : "aarch64", es.data[2],
	       vf.num_fdes, nflex, nsignal, npcmask, stats[M_INDEX].compared - before,
	       isec.index_buckets, isec.index_shift);
	free(index);
	v3_close(&vf);
	elf_sframe_free(&es);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t min_pcs = 0, mismatch, unsup = 0;
	int i, files = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--min-pcs") && i + 1 < argc) {
			min_pcs = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--verbose")) {
			verbose++;
		} else {
			files++;
			if (test_file(argv[i]))
				bad++;
		}
	}
	printf("files: %d (%d unusable)\n", files, bad);
	printf("rows found: %" PRIu64 " (flex FDE: %" PRIu64 ", CFA from FP: %" PRIu64
	       ", CFA dereferenced: %" PRIu64 ", FP saved: %" PRIu64 ", FP from FP: %" PRIu64
	       ", RA saved: %" PRIu64 ", outermost: %" PRIu64 ", RA mangled: %" PRIu64
	       ", signal: %" PRIu64 "; PCs in PC-mask FDEs: %" PRIu64 ")\n",
	       n_found, n_flex, n_cfa_fp, n_cfa_deref, n_fp_tracked, n_fp_base_fp,
	       n_ra_off, n_outermost, n_mangled, n_signal, n_pcmask);
	for (i = 1; i < U_FRE_CAP; i++)
		unsup += n_unsup[i];
	printf("unsupported (flex rules left to .eh_frame): %" PRIu64 " PCs", unsup);
	for (i = 1; i < U_FRE_CAP; i++)
		if (n_unsup[i])
			printf(" %s=%" PRIu64, unsup_name[i], n_unsup[i]);
	printf("\n");
	printf("in functions over the reader's %d-FRE cap (lookups fail): %" PRIu64 " PCs\n",
	       READER_FRE_CAP, n_unsup[U_FRE_CAP]);
	for (i = 0; i < NR_MODES; i++)
		printf("pcs compared (%s): %" PRIu64 ", mismatches: %" PRIu64 "\n",
		       mode_name[i], stats[i].compared, stats[i].mismatch);
	if (n_mode_diff)
		printf("PCs where the modes differ: %" PRIu64 "\n", n_mode_diff);
	if (n_file_err)
		printf("section-level disagreements: %" PRIu64 "\n", n_file_err);
	mismatch = stats[M_BSEARCH].mismatch + stats[M_INDEX].mismatch + n_mode_diff +
		   n_file_err;
	printf("v3 pcs compared: %" PRIu64 ", mismatches: %" PRIu64 "\n",
	       stats[M_INDEX].compared, mismatch);
	if (stats[M_INDEX].compared < min_pcs)
		printf("error: %" PRIu64 " PCs compared, fewer than the %" PRIu64
		       " required\n", stats[M_INDEX].compared, min_pcs);
	if (!files)
		printf("error: no input file\n");
	if (bad)
		printf("error: %d file(s) not compared\n", bad);
	i = !files || bad || mismatch || stats[M_INDEX].compared < min_pcs;
	printf("%d passed, %d failed\n", !i, i);
	return i;
}
