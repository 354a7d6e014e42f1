// SPDX-License-Identifier: GPL-2.0
/*
 * Lookup benchmark, meant to run under valgrind --tool=callgrind
 * --toggle-collect=bench_lookups_*: only the lookup loops are counted.
 *
 *   bench file ELF ours|ours-index|libsframe N
 *                                      N random PCs inside the functions
 *                                      of ELF's .sframe section
 *   bench synth NFDES N [bsearch|index]
 *                                      our lookups on a generated v2
 *                                      section of NFDES functions
 *   bench worst BYTES N                one FDE with as many FREs as fit
 *
 * "ours" is the plain binary search over the FDEs, "ours-index" / "index"
 * builds the FDE index first (sframe_index_prepare(), sframe_index_build(),
 * outside the counted loop), as the kernel does when it can allocate it.
 *
 * The PCs are drawn uniformly among the bytes covered by FDEs, with a
 * fixed seed, so both readers see the same addresses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sframe-api.h>
#include <asm/unaligned.h>

#include "sframe_read.h"
#include "elfsframe.h"
#include "sfbuild.h"

int sframe_read_user_word(unsigned long addr, unsigned long *val)
{
	return -EFAULT;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Enable the FDE index of @sec; the caller frees the returned array. */
static uint32_t *add_index(struct sframe_section *sec)
{
	uint32_t n = sframe_index_prepare(sec), *index;

	index = malloc(sizeof(*index) * n);
	if (!index)
		abort();
	sframe_index_build(sec, index);
	return index;
}

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline))
long bench_lookups_ours(const struct sframe_section *sec, const unsigned long *pcs,
			size_t n)
{
	struct sframe_row row;
	long sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!sframe_find_row(sec, pcs[i], &row))
			sum += row.cfa_off;
	return sum;
}

__attribute__((noinline))
long bench_lookups_libsframe(sframe_decoder_ctx *ctx, const int32_t *pcs, size_t n)
{
	sframe_frame_row_entry fre;
	long sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!sframe_find_fre(ctx, pcs[i], &fre))
			sum += fre.fre_info;
	return sum;
}

/* n random offsets (relative to the section) inside the FDEs' functions. */
static int64_t *random_pcs(const struct sframe_section *sec, size_t n)
{
	uint64_t total = 0, *cum = malloc(sizeof(*cum) * (sec->num_fdes + 1));
	int64_t *out = malloc(sizeof(*out) * n);
	uint32_t i;
	size_t k;

	if (!cum || !out)
		abort();
	for (i = 0; i < sec->num_fdes; i++) {
		cum[i] = total;
		total += get_unaligned_le32(sec->fdes + (size_t)i * sec->fde_size + 4);
	}
	cum[i] = total;
	for (k = 0; k < n; k++) {
		uint64_t b = rnd() % total;
		uint32_t lo = 0, hi = sec->num_fdes;
		const uint8_t *fde;
		int64_t start;

		while (hi - lo > 1) {	/* last i with cum[i] <= b */
			uint32_t mid = lo + (hi - lo) / 2;

			if (cum[mid] <= b)
				lo = mid;
			else
				hi = mid;
		}
		fde = sec->fdes + (size_t)lo * sec->fde_size;
		start = (int32_t)get_unaligned_le32(fde);
		if (sec->flags & 4)
			start += fde - sec->data;
		out[k] = start + (int64_t)(b - cum[lo]);
	}
	free(cum);
	return out;
}

static int bench_file(const char *path, const char *who, size_t n)
{
	struct elf_sframe es;
	struct sframe_section sec;
	sframe_decoder_ctx *ctx;
	int64_t *rel;
	uint32_t *index = NULL;
	long sum;
	size_t i;
	int err = 0;

	if (elf_sframe_load(path, &es) ||
	    sframe_section_init(&sec, es.data, es.size, es.addr)) {
		fprintf(stderr, "%s: no usable .sframe\n", path);
		return 1;
	}
	rel = random_pcs(&sec, n);
	if (!strcmp(who, "ours") || !strcmp(who, "ours-index")) {
		unsigned long *pcs = malloc(sizeof(*pcs) * n);

		if (!strcmp(who, "ours-index"))
			index = add_index(&sec);
		for (i = 0; i < n; i++)
			pcs[i] = es.addr + rel[i];
		sum = bench_lookups_ours(&sec, pcs, n);
		free(pcs);
	} else if (!strcmp(who, "libsframe")) {
		int32_t *pcs = malloc(sizeof(*pcs) * n);

		ctx = sframe_decode((const char *)es.data, es.size, &err);
		if (!ctx)
			return 1;
		for (i = 0; i < n; i++)
			pcs[i] = (int32_t)rel[i];
		sum = bench_lookups_libsframe(ctx, pcs, n);
		sframe_decoder_free(&ctx);
		free(pcs);
	} else {
		fprintf(stderr, "bench: unknown reader %s\n", who);
		return 2;
	}
	printf("%s %s: %zu lookups over %u FDEs, checksum %ld\n", path, who, n,
	       sec.num_fdes, sum);
	if (index)
		printf("index: %u buckets of 2^%u bytes (%zu bytes)\n",
		       sec.index_buckets, sec.index_shift,
		       sizeof(*index) * (sec.index_buckets + 1));
	free(index);
	free(rel);
	elf_sframe_free(&es);
	return 0;
}

/*
 * A v2 AMD64 section of nfdes functions of 16..527 bytes, each with 1..6
 * FREs (1-byte or 2-byte starts), laid out back to back below the section.
 */
static int bench_synth(uint32_t nfdes, size_t n, int use_index)
{
	uint32_t *index = NULL;
	struct sfb fdes = { 0 }, fres = { 0 }, sec_b = { 0 };
	struct sfb_hdr h = { .version = 2, .flags = 1, .abi = 3, .fixed_ra = -8 };
	struct sframe_section sec;
	unsigned long vaddr = 0x7f0000000000UL, *pcs;
	uint64_t text = 0;
	uint32_t i, nfres = 0;
	int64_t *rel;
	long sum;
	size_t k;
	int ret;

	for (i = 0; i < nfdes; i++)
		text += 16 + rnd() % 512;
	rng = 0x9e3779b97f4a7c15ULL;
	{
		int64_t start = -(int64_t)text - 4096;

		for (i = 0; i < nfdes; i++) {
			uint32_t size = 16 + rnd() % 512, nf = 1 + rnd() % 6, j;
			unsigned int fre_type = size > 255 ? 1 : 0;
			uint32_t off = (uint32_t)fres.len;

			for (j = 0; j < nf; j++) {
				int32_t offs[2] = { 8 + 8 * (int32_t)j, -16 };
				uint32_t s = j ? (uint32_t)(j * (size / nf)) : 0;

				sfb_fre(&fres, 1u << fre_type, s,
					SFB_FRE_INFO(1, j ? 2 : 1, 0, 0), offs);
			}
			sfb_fde(&fdes, 2, (int32_t)start, size, off, nf,
				SFB_FDE_INFO(fre_type, 0), 0);
			nfres += nf;
			start += size;
		}
	}
	h.num_fdes = nfdes;
	h.num_fres = nfres;
	h.fre_len = (uint32_t)fres.len;
	h.fdeoff = 0;
	h.freoff = (uint32_t)fdes.len;
	sfb_header(&sec_b, &h);
	sfb_room(&sec_b, fdes.len + fres.len);
	memcpy(sec_b.buf + sec_b.len, fdes.buf, fdes.len);
	sec_b.len += fdes.len;
	memcpy(sec_b.buf + sec_b.len, fres.buf, fres.len);
	sec_b.len += fres.len;
	ret = sframe_section_init(&sec, sec_b.buf, (uint32_t)sec_b.len, vaddr);
	if (ret) {
		fprintf(stderr, "synthetic section rejected: %d\n", ret);
		return 1;
	}
	rel = random_pcs(&sec, n);
	pcs = malloc(sizeof(*pcs) * n);
	for (k = 0; k < n; k++)
		pcs[k] = vaddr + rel[k];
	if (use_index)
		index = add_index(&sec);
	sum = bench_lookups_ours(&sec, pcs, n);
	printf("synthetic %u FDEs (%zu bytes), %s: %zu lookups, checksum %ld\n",
	       nfdes, sec_b.len, use_index ? "index" : "binary search", n, sum);
	if (index)
		printf("index: %u buckets of 2^%u bytes\n", sec.index_buckets,
		       sec.index_shift);
	free(index);
	free(pcs);
	free(rel);
	free(fdes.buf);
	free(fres.buf);
	free(sec_b.buf);
	return 0;
}

/*
 * Adversarial section of about @bytes bytes (what user space may hand the
 * kernel): one FDE whose FREs all start at offset 0, so every lookup scans
 * all of them.
 */
static int bench_worst(uint32_t bytes, size_t n)
{
	struct sfb b = { 0 };
	struct sfb_hdr h = { .version = 2, .flags = 1, .abi = 3, .fixed_ra = -8,
			     .num_fdes = 1, .freoff = 20 };
	uint32_t nf = (bytes - 48) / 3, i;
	struct sframe_section sec;
	unsigned long vaddr = 0x7f0000000000UL, *pcs;
	int32_t off8[1] = { 8 };
	long sum;
	size_t k;

	h.num_fres = nf;
	h.fre_len = nf * 3;
	sfb_header(&b, &h);
	sfb_fde(&b, 2, -0x100000, 0x1000, 0, nf, SFB_FDE_INFO(0, 0), 0);
	for (i = 0; i < nf; i++)
		sfb_fre(&b, 1, 0, SFB_FRE_INFO(1, 1, 0, 0), off8);
	if (sframe_section_init(&sec, b.buf, (uint32_t)b.len, vaddr)) {
		printf("rejected\n");
		return 0;
	}
	pcs = malloc(sizeof(*pcs) * n);
	for (k = 0; k < n; k++)
		pcs[k] = vaddr - 0x100000 + k % 0x1000;
	sum = bench_lookups_ours(&sec, pcs, n);
	printf("adversarial %zu bytes, %u FREs in one FDE: %zu lookups, checksum %ld\n",
	       b.len, nf, n, sum);
	free(pcs);
	free(b.buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "worst"))
		return bench_worst(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "file"))
		return bench_file(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "synth")) {
		int use_index = argc == 5 && !strcmp(argv[4], "index");

		if (argc == 5 && !use_index && strcmp(argv[4], "bsearch"))
			goto usage;
		return bench_synth(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
				   use_index);
	}
usage:
	fprintf(stderr, "usage: bench file ELF ours|ours-index|libsframe N | "
		"bench synth NFDES N [bsearch|index] | bench worst BYTES N\n");
	return 2;
}
