// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the kernel SFrame reader against GNU libsframe.
 *
 *   difftest [--min-pcs N] [--verbose] ELF...
 *
 * For every function descriptor of every file's .sframe section, every byte
 * offset inside the function, the bytes just outside it, and addresses
 * outside every function are looked up with both sframe_find_row() (our
 * reader: absolute address, section loaded at sh_addr) and libsframe's
 * sframe_find_fre() (address relative to the start of the section), and
 * the results are compared field by field.
 *
 * Every lookup is done twice by our reader: on the section as
 * sframe_section_init() leaves it (binary search over all FDEs) and on a
 * copy with the FDE index of sframe_index_prepare()/sframe_index_build()
 * (what the kernel uses when it could allocate the index).  Each mode must
 * match libsframe on its own, and the two must return the same code and
 * the same struct sframe_row, field by field.
 *
 * libsframe 2.40 mishandles v1 PCMASK FDEs (it masks addresses with 0xff,
 * see the FIXME in libsframe/sframe.c): for those FDEs the test checks our
 * reader against an independent model of the format (FRE start addresses
 * repeat every 16 bytes, the size of a PLT entry), and counts every PC
 * where libsframe disagrees as excluded, printing the count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>
#include <asm/unaligned.h>

#include "sframe_read.h"
#include "sframe_format.h"
#include "elfsframe.h"

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	(void)addr;
	(void)val;
	return -EFAULT;
}

struct result {
	int found;
	int64_t func_start;	/* relative to the section */
	int base_sp;
	int cfa_present, ra_present, fp_present;
	int32_t cfa, ra, fp;
	int mangled;
};

/* Lookup modes of our reader. */
enum { M_BSEARCH, M_INDEX, NR_MODES };
static const char *const mode_name[NR_MODES] = { "binary search", "index" };

struct mode_stats {
	uint64_t compared, mismatch, excl_pcmask;
};
static struct mode_stats stats[NR_MODES];
/* PCs where the two modes disagree with each other. */
static uint64_t n_mode_diff;
/* Sections that libsframe and we do not read alike. */
static uint64_t n_file_err;
static uint64_t n_pcmask_pcs;
/* What the compared rows exercised (our side, when both agree). */
static uint64_t n_found, n_cfa_fp, n_fp_tracked, n_ra_tracked_aarch64, n_mangled;
static int verbose;
static const char *cur_file;

static void print_result(const char *who, const struct result *r)
{
	if (!r->found) {
		fprintf(stderr, "    %-9s not found\n", who);
		return;
	}
	fprintf(stderr, "    %-9s func %#" PRIx64 " base %s cfa %s%d ra %s%d fp %s%d mangled %d\n",
		who, (uint64_t)r->func_start, r->base_sp ? "sp" : "fp",
		r->cfa_present ? "" : "(none)", r->cfa,
		r->ra_present ? "" : "(none)", r->ra,
		r->fp_present ? "" : "(none)", r->fp, r->mangled);
}

static int same(const struct result *a, const struct result *b)
{
	if (a->found != b->found)
		return 0;
	if (!a->found)
		return 1;
	return a->func_start == b->func_start && a->base_sp == b->base_sp &&
	       a->cfa_present == b->cfa_present &&
	       (!a->cfa_present || a->cfa == b->cfa) &&
	       a->ra_present == b->ra_present &&
	       (!a->ra_present || a->ra == b->ra) &&
	       a->fp_present == b->fp_present &&
	       (!a->fp_present || a->fp == b->fp) &&
	       a->mangled == b->mangled;
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
		if (ret != -ENOENT) {
			/* Valid binutils output must never look malformed. */
			fprintf(stderr, "%s: sframe_find_row(%#" PRIx64 ") = %d\n",
				cur_file, vaddr + rel, ret);
			r->found = -1;
		}
		return;
	}
	r->found = 1;
	r->func_start = (int64_t)(row.func_start - vaddr);
	r->base_sp = row.cfa_base_sp;
	r->cfa_present = !row.outermost;
	r->cfa = row.cfa_off;
	r->ra_present = row.ra_tracked;
	r->ra = row.ra_off;
	r->fp_present = row.fp_tracked;
	r->fp = row.fp_off;
	r->mangled = row.ra_mangled;
}

static void theirs(sframe_decoder_ctx *ctx, int32_t rel, struct result *r)
{
	sframe_frame_row_entry fre;
	sframe_func_desc_entry *fde;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (sframe_find_fre(ctx, rel, &fre))
		return;
	fde = sframe_get_funcdesc_with_addr(ctx, rel, &err);
	if (!fde || err)
		return;
	r->found = 1;
	r->func_start = fde->sfde_func_start_address;
	err = 0;
	r->base_sp = sframe_fre_get_base_reg_id(&fre, &err) == SFRAME_BASE_REG_SP;
	err = 0;
	r->cfa = sframe_fre_get_cfa_offset(ctx, &fre, &err);
	r->cfa_present = !err;
	/*
	 * libsframe 2.40 reports an offset that the header fixes (RA on
	 * AMD64) as "not present, take it from the header": do so.
	 */
	err = 0;
	r->ra = sframe_fre_get_ra_offset(ctx, &fre, &err);
	r->ra_present = !err;
	if (err && sframe_decoder_get_fixed_ra_offset(ctx)) {
		r->ra_present = 1;
		r->ra = sframe_decoder_get_fixed_ra_offset(ctx);
	}
	err = 0;
	r->fp = sframe_fre_get_fp_offset(ctx, &fre, &err);
	r->fp_present = !err;
	if (err && sframe_decoder_get_fixed_fp_offset(ctx)) {
		r->fp_present = 1;
		r->fp = sframe_decoder_get_fixed_fp_offset(ctx);
	}
	err = 0;
	r->mangled = sframe_fre_get_ra_mangled_p(ctx, &fre, &err);
	if (!r->cfa_present) {
		/* An FRE without offsets: the outermost frame. */
		r->ra_present = r->fp_present = 0;
		r->ra = r->fp = 0;
	}
	if (!r->ra_present)
		r->ra = 0;
	if (!r->fp_present)
		r->fp = 0;
}

/*
 * Independent model of a v1 PCMASK FDE: the FRE start offsets describe one
 * 16-byte PLT entry, repeated over the whole FDE.
 */
static void model_pcmask(const struct elf_sframe *es, const struct sframe_section *sec,
			 const uint8_t *fde, int64_t rel, struct result *r)
{
	int64_t start = (int32_t)get_unaligned_le32(fde);
	uint32_t size = get_unaligned_le32(fde + 4);
	uint32_t fre_off = get_unaligned_le32(fde + 8);
	uint32_t nfres = get_unaligned_le32(fde + 12);
	uint8_t info = fde[16];
	unsigned int asz = 1u << (info & 0xf), i, n, osz;
	const uint8_t *p = sec->fres + fre_off, *hit = NULL;
	uint64_t off;
	int32_t o[3] = { 0 };

	memset(r, 0, sizeof(*r));
	if (rel < start || rel >= start + size)
		return;
	off = (uint64_t)(rel - start) % 16;
	for (i = 0; i < nfres; i++) {
		uint32_t s = asz == 1 ? p[0] : asz == 2 ? get_unaligned_le16(p) :
			     get_unaligned_le32(p);
		uint8_t fi = p[asz];

		if (s > off)
			break;
		hit = p;
		p += asz + 1 + (((fi >> 1) & 0xf) << ((fi >> 5) & 3));
	}
	if (!hit)
		return;
	info = hit[asz];
	n = (info >> 1) & 0xf;
	osz = 1u << ((info >> 5) & 3);
	for (i = 0; i < n && i < 3; i++) {
		const uint8_t *q = hit + asz + 1 + i * osz;

		o[i] = osz == 1 ? (int8_t)q[0] : osz == 2 ? (int16_t)get_unaligned_le16(q) :
		       (int32_t)get_unaligned_le32(q);
	}
	r->found = 1;
	r->func_start = start;
	r->base_sp = info & 1;
	r->mangled = info >> 7;
	r->cfa_present = n > 0;
	r->cfa = o[0];
	if (es->machine == EM_X86_64) {
		r->ra_present = n > 0;
		r->ra = (int8_t)es->data[SFRAME_HDR_FIXED_RA];
		r->fp_present = n > 1;
		r->fp = o[1];
	} else {
		r->ra_present = n > 1;
		r->ra = o[1];
		r->fp_present = n > 2;
		r->fp = o[2];
	}
}

/*
 * The v1 PCMASK FDE that governs a lookup at @rel, if any: the last FDE
 * starting at or before @rel (FDEs are sorted and do not overlap).
 */
static const uint8_t *v1_pcmask_fde(const struct sframe_section *sec, int64_t rel)
{
	uint32_t lo = 0, hi = sec->num_fdes;
	const uint8_t *fde;

	if (sec->version != SFRAME_VERSION_1)
		return NULL;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((int32_t)get_unaligned_le32(sec->fdes + (size_t)mid * 17) <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	fde = sec->fdes + (size_t)(lo - 1) * 17;
	return SFRAME_FDE_INFO_FDE_TYPE(fde[16]) == SFRAME_FDE_TYPE_PCMASK ? fde : NULL;
}

static int same_row(const struct sframe_row *a, const struct sframe_row *b)
{
	return a->func_start == b->func_start && a->cfa_off == b->cfa_off &&
	       a->ra_off == b->ra_off && a->fp_off == b->fp_off &&
	       a->cfa_base_sp == b->cfa_base_sp && a->ra_tracked == b->ra_tracked &&
	       a->fp_tracked == b->fp_tracked && a->ra_mangled == b->ra_mangled &&
	       a->outermost == b->outermost;
}

/* One mode's result @a against libsframe (@b) or, for v1 PCMASK, the model. */
static void judge(int mode, const struct elf_sframe *es, int64_t rel,
		  const struct result *a, const struct result *b,
		  const struct result *m, int pcmask)
{
	struct mode_stats *st = &stats[mode];

	st->compared++;
	if (pcmask) {
		if (same(a, m)) {
			if (!same(a, b)) {
				if (mode == M_INDEX &&
				    (verbose > 1 || (verbose && st->excl_pcmask < 5))) {
					fprintf(stderr, "%s: excluded (libsframe v1 PCMASK) pc %#" PRIx64
						" (.sframe+%#" PRIx64 ")\n", cur_file,
						es->addr + rel, (uint64_t)rel);
					print_result("ours", a);
					print_result("libsframe", b);
				}
				st->excl_pcmask++;
			}
			return;
		}
		b = m;	/* report against the model */
	}
	if (same(a, b)) {
		if (a->found > 0 && mode == M_INDEX) {
			n_found++;
			n_cfa_fp += !a->base_sp;
			n_fp_tracked += a->fp_present;
			n_ra_tracked_aarch64 += es->machine == EM_AARCH64 && a->ra_present;
			n_mangled += a->mangled;
		}
		return;
	}
	if (st->mismatch < 20) {
		fprintf(stderr, "%s: MISMATCH (%s) pc %#" PRIx64 " (.sframe+%#" PRIx64 ")%s\n",
			cur_file, mode_name[mode], es->addr + rel, (uint64_t)rel,
			pcmask ? " [PCMASK, vs model]" : "");
		print_result("ours", a);
		print_result(pcmask ? "model" : "libsframe", b);
	}
	st->mismatch++;
}

static void compare(const struct elf_sframe *es, const struct sframe_section *sec,
		    const struct sframe_section *isec, sframe_decoder_ctx *ctx,
		    int64_t rel)
{
	const struct sframe_section *secs[NR_MODES] = { sec, isec };
	struct result a[NR_MODES], b, m;
	struct sframe_row row[NR_MODES];
	int ret[NR_MODES], mode;
	const uint8_t *pcmask_fde = v1_pcmask_fde(sec, rel);

	if (rel >= INT32_MIN && rel <= INT32_MAX)
		theirs(ctx, (int32_t)rel, &b);
	else
		memset(&b, 0, sizeof(b));	/* beyond libsframe's int32 pc */
	if (pcmask_fde) {
		n_pcmask_pcs++;
		model_pcmask(es, sec, pcmask_fde, rel, &m);
	}
	for (mode = 0; mode < NR_MODES; mode++) {
		ours(secs[mode], es->addr, rel, &a[mode], &ret[mode], &row[mode]);
		judge(mode, es, rel, &a[mode], &b, &m, pcmask_fde != NULL);
	}
	/* The index must not change anything: same code, same row. */
	if (ret[M_BSEARCH] != ret[M_INDEX] ||
	    (!ret[M_BSEARCH] && !same_row(&row[M_BSEARCH], &row[M_INDEX]))) {
		if (n_mode_diff < 20) {
			fprintf(stderr, "%s: MODES DIFFER pc %#" PRIx64 " (.sframe+%#" PRIx64
				"): binary search %d, index %d\n", cur_file,
				es->addr + rel, (uint64_t)rel, ret[M_BSEARCH], ret[M_INDEX]);
			print_result("bsearch", &a[M_BSEARCH]);
			print_result("index", &a[M_INDEX]);
		}
		n_mode_diff++;
	}
}

static int test_file(const char *path)
{
	struct elf_sframe es;
	struct sframe_section sec, isec;
	sframe_decoder_ctx *ctx;
	unsigned int i, nfdes;
	int err = 0, ret;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t before = stats[M_INDEX].compared;
	uint32_t *index = NULL, nidx = 0;

	cur_file = path;
	ret = elf_sframe_load(path, &es);
	if (ret) {
		if (ret > 0)
			fprintf(stderr, "%s: no .sframe section\n", path);
		elf_sframe_free(&es);
		return -1;
	}
	ret = sframe_section_init(&sec, es.data, es.size, es.addr);
	ctx = sframe_decode((const char *)es.data, es.size, &err);
	if (ret || !ctx) {
		fprintf(stderr, "%s: sframe_section_init = %d, sframe_decode %s (%d)\n",
			path, ret, ctx ? "ok" : "failed", err);
		n_file_err++;
		sframe_decoder_free(&ctx);
		elf_sframe_free(&es);
		return -1;
	}
	/* The kernel path: a copy of the section with the FDE index built. */
	isec = sec;
	nidx = sframe_index_prepare(&isec);
	if (nidx < 2 || nidx > sec.num_fdes + 2) {
		fprintf(stderr, "%s: sframe_index_prepare = %u for %u FDEs\n", path,
			nidx, sec.num_fdes);
		stats[M_INDEX].mismatch++;
	}
	index = calloc(nidx ? nidx : 1, sizeof(*index));
	if (!index)
		abort();
	sframe_index_build(&isec, index);
	if (isec.index != index || sec.index) {
		fprintf(stderr, "%s: index not enabled on the copy only\n", path);
		stats[M_INDEX].mismatch++;
	}
	nfdes = sframe_decoder_get_num_fidx(ctx);
	if (nfdes != sec.num_fdes) {
		fprintf(stderr, "%s: %u FDEs for libsframe, %u for us\n", path,
			nfdes, sec.num_fdes);
		n_file_err++;
	}
	for (i = 0; i < nfdes; i++) {
		uint32_t nfres, size;
		int32_t start;
		unsigned char info;
		uint32_t off;

		if (sframe_decoder_get_funcdesc(ctx, i, &nfres, &size, &start, &info)) {
			fprintf(stderr, "%s: FDE %u unreadable by libsframe\n", path, i);
			n_file_err++;
			continue;
		}
		for (off = 0; off < size; off++)
			compare(&es, &sec, &isec, ctx, (int64_t)start + off);
		/* Just outside: these may belong to a neighbour. */
		compare(&es, &sec, &isec, ctx, (int64_t)start - 1);
		compare(&es, &sec, &isec, ctx, (int64_t)start + size);
		if (start < lo)
			lo = start;
		if ((int64_t)start + size > hi)
			hi = (int64_t)start + size;
	}
	/* Outside every function. */
	compare(&es, &sec, &isec, ctx, lo - 1);
	compare(&es, &sec, &isec, ctx, lo - 4096);
	compare(&es, &sec, &isec, ctx, hi);
	compare(&es, &sec, &isec, ctx, hi + 4096);
	compare(&es, &sec, &isec, ctx, 0);
	compare(&es, &sec, &isec, ctx, INT32_MAX);
	compare(&es, &sec, &isec, ctx, INT32_MIN);
	compare(&es, &sec, &isec, ctx, -(int64_t)es.addr);	/* address 0 */
	compare(&es, &sec, &isec, ctx, (int64_t)(UINT64_MAX - es.addr));
	printf("%s: %s v%u, %u FDEs, %" PRIu64 " PCs per mode, index %u buckets of 2^%u bytes\n",
	       path, es.machine == EM_X86_64 ? "x86_64" : es.machine == EM_AARCH64 ?
	       "aarch64" : "?", sec.version, nfdes, stats[M_INDEX].compared - before,
	       isec.index_buckets, isec.index_shift);
	free(index);
	sframe_decoder_free(&ctx);
	elf_sframe_free(&es);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t min_pcs = 0, total, mismatch;
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
	printf("rows found: %" PRIu64 " (CFA from FP: %" PRIu64 ", FP saved: %" PRIu64
	       ", aarch64 RA saved: %" PRIu64 ", RA mangled: %" PRIu64 ")\n",
	       n_found, n_cfa_fp, n_fp_tracked, n_ra_tracked_aarch64, n_mangled);
	for (i = 0; i < NR_MODES; i++)
		printf("pcs compared (%s): %" PRIu64 ", mismatches: %" PRIu64
		       ", excluded (libsframe v1 PCMASK bug): %" PRIu64 "\n",
		       mode_name[i], stats[i].compared, stats[i].mismatch,
		       stats[i].excl_pcmask);
	total = stats[M_BSEARCH].compared + stats[M_INDEX].compared;
	mismatch = stats[M_BSEARCH].mismatch + stats[M_INDEX].mismatch + n_mode_diff +
		   n_file_err;
	printf("pcs compared: %" PRIu64 ", mismatches: %" PRIu64
	       " (both modes; %" PRIu64 " PCs where the modes differ)\n",
	       total, mismatch, n_mode_diff);
	printf("excluded (libsframe v1 PCMASK bug): %" PRIu64 " of %" PRIu64
	       " PCs in v1 PCMASK FDEs per mode (checked against the model instead)\n",
	       stats[M_INDEX].excl_pcmask, n_pcmask_pcs);
	if (stats[M_INDEX].compared < min_pcs)
		printf("error: %" PRIu64 " PCs compared with the index, fewer than the %"
		       PRIu64 " required\n", stats[M_INDEX].compared, min_pcs);
	if (!files)
		printf("error: no input file\n");
	i = !files || bad || mismatch || stats[M_INDEX].compared < min_pcs;
	printf("%d passed, %d failed\n", !i, i);
	return i;
}
