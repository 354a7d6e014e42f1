// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-elf: build-time (host) tool that writes hostile variants of
 * ELF64 little-endian programs and shared objects (x86-64 and AArch64)
 * that carry .sframe, PT_GNU_SFRAME and .eh_frame, for the stress test:
 * `churn hostile` maps each of them executable and execs it, and the
 * kernel reads their unwind data (sframe_obj_load(): program headers,
 * PT_GNU_SFRAME, PT_GNU_EH_FRAME or the .eh_frame and .plt section
 * headers, the sections themselves).  None of this may crash, hang, leak
 * or splat.  Never run or map these files on the build host.
 *
 *   hostile-elf OUTDIR INPUT...
 *
 * OUTDIR must not exist.  Each INPUT gives (kinds, as counted at the end):
 *
 *   ehdr    one ELF header field set to a bad value: e_phoff, e_phnum,
 *           e_phentsize, e_shoff, e_shnum, e_shentsize, e_shstrndx,
 *           e_type, e_machine, e_ident, e_entry
 *   phdr    program headers: PT_GNU_SFRAME and PT_GNU_EH_FRAME with
 *           p_offset, p_vaddr, p_filesz outside the file or outside every
 *           PT_LOAD, zero or huge sizes, pointing at each other's section,
 *           at code or at the ELF header; several PT_GNU_SFRAME (or
 *           PT_GNU_EH_FRAME) entries, a bad one first or last; each
 *           removed; the code PT_LOAD and the one holding .eh_frame with
 *           bad offsets, addresses, sizes, flags, alignment; tables of
 *           1170 and 1171 entries (the kernel reads at most 1170)
 *   shdr    section headers, with PT_GNU_EH_FRAME removed so that the
 *           kernel finds .eh_frame by name: .eh_frame's offset, size,
 *           address, name, type, flags; .shstrtab's; .sframe named
 *           .eh_frame; two .eh_frame; .plt's size and address (AArch64)
 *   trunc   the file cut at many lengths: inside the ELF header, the
 *           program header table, .sframe, .eh_frame_hdr, .eh_frame,
 *           .text, at the ends of segments, before the section headers
 *   sframe  bytes of .sframe changed: every header field set to
 *           boundary values, FDE fields, random bytes (in the FREs, and
 *           anywhere in the section)
 *   eh      bytes of .eh_frame_hdr and .eh_frame changed: header
 *           encodings and counts, CIE and FDE lengths, ids, augmentation,
 *           pointer encodings, locations, ranges, CFA instructions that
 *           the kernel must refuse or bound, random bytes
 *
 * Sections are found through the section headers.  Everything is
 * deterministic (fixed seeds, one per input and kind).  An input larger
 * than 256 KiB (a static program) gives only a few whole-size variants
 * (marked "core" below) and its truncations below 64 KiB, to keep the
 * directory small.  Before that, the alignment padding between segments
 * (64 KiB on AArch64) is squeezed out: later segments move down to the
 * next file offset that agrees with their address modulo 4 KiB (p_align
 * becomes 4 KiB), which keeps the file valid for a 4 KiB-page kernel.
 *
 * Files are named hNNNN-BASE-KIND-WHAT, NNNN counting from 0001 over all
 * inputs (a process running one shows as hNNNN-BASE-KIN in kernel
 * messages), BASE being the input's name without its ".so".
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define BIG		(256 * 1024)	/* above: only the core variants */
#define BIG_TRUNC	(64 * 1024)	/* truncations of big inputs below */
#define PAGE		4096UL
#define MAX_PHDRS	(65536 / sizeof(Elf64_Phdr))	/* the kernel's limit */
#define M16		(16UL << 20)	/* the kernel's section size limit */

enum kind { K_EHDR, K_PHDR, K_SHDR, K_TRUNC, K_SFRAME, K_EH, NR_KINDS };

static const char *const kind_names[NR_KINDS] = {
	"ehdr", "phdr", "shdr", "trunc", "sframe", "eh"
};

struct img {
	char base[64];
	unsigned char *buf;	/* the input, compacted */
	size_t size;
	int big;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	/* program header indexes, -1 if none */
	int p_sframe, p_ehhdr, p_text, p_ehseg, p_data, p_interp, p_first_misc,
	    p_last_misc;
	/* section indexes, -1 if none */
	int s_sframe, s_eh, s_ehhdr, s_plt, s_text, s_shstr;
	uint64_t max_end;	/* end of the highest PT_LOAD */
};

static const char *outdir;
static unsigned char *w;	/* the variant being made */
static size_t w_cap;
static unsigned int seq;
static unsigned long count[NR_KINDS], bytes[NR_KINDS];
static unsigned long in_count, in_bytes;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hostile-elf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- deterministic randomness (splitmix64) ------------------------ */

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void seed(const struct img *im, enum kind k)
{
	const char *p;

	rng = 0x5f7a3e1d2c4b6a89ULL + k;
	for (p = im->base; *p; p++)
		rng = rng * 131 + (unsigned char)*p;
}

/* ---- output ------------------------------------------------------- */

static void reset(const struct img *im)
{
	memcpy(w, im->buf, im->size);
}

/*
 * Write w[0, len) as the next file of kind @k.  Big inputs only get
 * the @core variants.
 */
static void __attribute__((format(printf, 5, 6)))
out(const struct img *im, enum kind k, int core, size_t len,
    const char *fmt, ...)
{
	char what[96], path[4096];
	va_list ap;
	int fd;

	if (im->big && !core && !(k == K_TRUNC && len < BIG_TRUNC))
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/h%04u-%s-%s-%s", outdir, ++seq,
		 im->base, kind_names[k], what);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (len && write(fd, w, len) != (ssize_t)len)
		die("%s: write: %s", path, strerror(errno));
	if (close(fd))
		die("%s: %s", path, strerror(errno));
	count[k]++;
	bytes[k] += len;
}

#define EH	((Elf64_Ehdr *)w)
#define PH(i)	((Elf64_Phdr *)(w + im->eh->e_phoff) + (i))
#define SH(i)	((Elf64_Shdr *)(w + im->eh->e_shoff) + (i))

/* ---- the input ---------------------------------------------------- */

static const char *sec_name(const struct img *im, const Elf64_Shdr *s)
{
	const Elf64_Shdr *str = &im->sh[im->eh->e_shstrndx];

	if (s->sh_name >= str->sh_size)
		return "";
	return (const char *)im->buf + str->sh_offset + s->sh_name;
}

static int find_sec(const struct img *im, const char *name)
{
	int i;

	for (i = 0; i < im->eh->e_shnum; i++)
		if (!strcmp(sec_name(im, &im->sh[i]), name))
			return i;
	return -1;
}

static int all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/*
 * Squeeze the padding between PT_LOAD segments out of the file: each
 * segment after the first moves down to the lowest file offset past its
 * predecessor that is congruent to its address modulo 4 KiB, with
 * everything after it (program headers, section headers, sections).
 */
static void compact(struct img *im)
{
	uint64_t prev_end = 0, want, delta, from;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im->buf;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	int i, j, moved;

	for (;;) {
		ph = (Elf64_Phdr *)(im->buf + eh->e_phoff);
		moved = 0;
		prev_end = 0;
		/* PT_LOAD entries are in address (and file offset) order */
		for (i = 0; i < eh->e_phnum; i++) {
			if (ph[i].p_type != PT_LOAD)
				continue;
			if (ph[i].p_align > PAGE)
				ph[i].p_align = PAGE;
			if (!prev_end || ph[i].p_offset < prev_end) {
				prev_end = ph[i].p_offset + ph[i].p_filesz;
				continue;
			}
			want = (prev_end & ~(PAGE - 1)) + (ph[i].p_vaddr & (PAGE - 1));
			if (want < prev_end)
				want += PAGE;
			if (want >= ph[i].p_offset ||
			    !all_zero(im->buf + prev_end, ph[i].p_offset - prev_end)) {
				prev_end = ph[i].p_offset + ph[i].p_filesz;
				continue;
			}
			from = ph[i].p_offset;
			delta = from - want;
			memmove(im->buf + want, im->buf + from, im->size - from);
			im->size -= delta;
			for (j = 0; j < eh->e_phnum; j++)
				if (ph[j].p_offset >= from)
					ph[j].p_offset -= delta;
			if (eh->e_shoff >= from)
				eh->e_shoff -= delta;
			sh = (Elf64_Shdr *)(im->buf + eh->e_shoff);
			for (j = 0; j < eh->e_shnum; j++)
				if (sh[j].sh_offset >= from)
					sh[j].sh_offset -= delta;
			moved = 1;
			break;
		}
		if (!moved)
			return;
	}
}

static void load(struct img *im, const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	uint64_t ehaddr, end;
	struct stat st;
	size_t n;
	FILE *f;
	int i;

	memset(im, 0, sizeof(*im));
	snprintf(im->base, sizeof(im->base), "%s", b);
	if (strstr(im->base, ".so"))
		*strstr(im->base, ".so") = '\0';
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st))
		die("%s: %s", path, strerror(errno));
	im->size = st.st_size;
	im->buf = malloc(im->size + 1);
	if (!im->buf)
		die("out of memory");
	n = fread(im->buf, 1, im->size, f);
	fclose(f);
	if (n != im->size)
		die("%s: short read", path);
	in_count++;
	in_bytes += im->size;

	im->eh = (Elf64_Ehdr *)im->buf;
	if (im->size < sizeof(Elf64_Ehdr) ||
	    memcmp(im->eh->e_ident, ELFMAG, SELFMAG) ||
	    im->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    im->eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    (im->eh->e_machine != EM_X86_64 && im->eh->e_machine != EM_AARCH64))
		die("%s: not an x86-64 or AArch64 ELF64 LE file", path);
	if (im->eh->e_phentsize != sizeof(Elf64_Phdr) || !im->eh->e_phnum ||
	    im->eh->e_phoff % 8 ||
	    im->eh->e_phoff + im->eh->e_phnum * sizeof(Elf64_Phdr) > im->size)
		die("%s: bad program headers", path);
	if (im->eh->e_shentsize != sizeof(Elf64_Shdr) || !im->eh->e_shnum ||
	    im->eh->e_shoff % 8 ||
	    im->eh->e_shoff + im->eh->e_shnum * sizeof(Elf64_Shdr) > im->size ||
	    im->eh->e_shstrndx >= im->eh->e_shnum)
		die("%s: bad section headers", path);

	compact(im);
	im->big = im->size > BIG;
	im->ph = (Elf64_Phdr *)(im->buf + im->eh->e_phoff);
	im->sh = (Elf64_Shdr *)(im->buf + im->eh->e_shoff);
	for (i = 0; i < im->eh->e_shnum; i++)
		if (im->sh[i].sh_type != SHT_NOBITS &&
		    im->sh[i].sh_offset + im->sh[i].sh_size > im->size)
			die("%s: section %d outside the file", path, i);

	im->s_sframe = find_sec(im, ".sframe");
	im->s_eh = find_sec(im, ".eh_frame");
	im->s_ehhdr = find_sec(im, ".eh_frame_hdr");
	im->s_plt = find_sec(im, ".plt");
	im->s_text = find_sec(im, ".text");
	im->s_shstr = im->eh->e_shstrndx;
	if (im->s_sframe < 0 || im->s_eh < 0 || im->s_text < 0)
		die("%s: no .sframe, .eh_frame or .text section", path);
	ehaddr = im->sh[im->s_eh].sh_addr;

	im->p_sframe = im->p_ehhdr = im->p_text = im->p_ehseg = im->p_data = -1;
	im->p_interp = im->p_first_misc = im->p_last_misc = -1;
	for (i = 0; i < im->eh->e_phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];

		switch (p->p_type) {
		case PT_GNU_SFRAME:
			im->p_sframe = i;
			break;
		case PT_GNU_EH_FRAME:
			im->p_ehhdr = i;
			break;
		case PT_INTERP:
			im->p_interp = i;
			break;
		case PT_LOAD:
			end = p->p_vaddr + p->p_memsz;
			if (end > im->max_end)
				im->max_end = end;
			if (p->p_flags & PF_X && im->p_text < 0)
				im->p_text = i;
			if (p->p_flags & PF_W && im->p_data < 0)
				im->p_data = i;
			if (ehaddr >= p->p_vaddr && ehaddr < p->p_vaddr + p->p_filesz)
				im->p_ehseg = i;
			break;
		case PT_NOTE:
		case PT_GNU_PROPERTY:
		case PT_GNU_STACK:
		case PT_GNU_RELRO:
			if (im->p_first_misc < 0)
				im->p_first_misc = i;
			im->p_last_misc = i;
			break;
		}
	}
	if (im->p_sframe < 0 || im->p_text < 0 || im->p_ehseg < 0)
		die("%s: no PT_GNU_SFRAME, code or .eh_frame PT_LOAD", path);
	if (im->p_data < 0)
		im->p_data = im->p_ehseg;

	if (w_cap < im->size + 128 * 1024) {
		free(w);
		w_cap = im->size + 128 * 1024;
		w = malloc(w_cap);
		if (!w)
			die("out of memory");
	}
}

static uint64_t soff(const struct img *im, int s)
{
	return im->sh[s].sh_offset;
}

static uint64_t ssize(const struct img *im, int s)
{
	return im->sh[s].sh_size;
}

static uint64_t saddr(const struct img *im, int s)
{
	return im->sh[s].sh_addr;
}

/* An address in no PT_LOAD of the input. */
static uint64_t outside(const struct img *im)
{
	return ((im->max_end + PAGE - 1) & ~(PAGE - 1)) + 0x100000;
}

/* ---- ehdr --------------------------------------------------------- */

#define E(fld, val, core, ...) do {					\
	reset(im);							\
	EH->fld = (val);						\
	out(im, K_EHDR, core, im->size, __VA_ARGS__);			\
} while (0)

static void gen_ehdr(const struct img *im)
{
	uint64_t sz = im->size, phoff = im->eh->e_phoff;
	unsigned int phnum = im->eh->e_phnum, shnum = im->eh->e_shnum;

	E(e_phoff, 0, 0, "phoff-0");
	E(e_phoff, 1, 0, "phoff-1");
	E(e_phoff, phoff + 4, 0, "phoff-unaligned");
	E(e_phoff, sz - phnum * sizeof(Elf64_Phdr) / 2, 0, "phoff-half-out");
	E(e_phoff, sz - 1, 0, "phoff-eof-1");
	E(e_phoff, sz, 0, "phoff-eof");
	E(e_phoff, 1ULL << 32, 0, "phoff-4g");
	E(e_phoff, ~0ULL, 0, "phoff-max");
	E(e_phoff, ~0ULL - 55, 0, "phoff-wrap");
	E(e_phoff, im->eh->e_shoff, 0, "phoff-shdrs");
	E(e_phoff, soff(im, im->s_sframe), 0, "phoff-sframe");
	E(e_phoff, soff(im, im->s_eh), 0, "phoff-ehframe");

	E(e_phnum, 0, 0, "phnum-0");
	E(e_phnum, 1, 0, "phnum-1");
	E(e_phnum, phnum - 1, 0, "phnum-minus1");
	E(e_phnum, phnum + 1, 0, "phnum-plus1");
	E(e_phnum, MAX_PHDRS, 0, "phnum-%zu", MAX_PHDRS);
	E(e_phnum, MAX_PHDRS + 1, 0, "phnum-%zu", MAX_PHDRS + 1);
	E(e_phnum, 0x7fff, 0, "phnum-7fff");
	E(e_phnum, PN_XNUM, 0, "phnum-xnum");

	E(e_phentsize, 0, 0, "phentsize-0");
	E(e_phentsize, 32, 0, "phentsize-32");
	E(e_phentsize, 55, 0, "phentsize-55");
	E(e_phentsize, 57, 0, "phentsize-57");
	E(e_phentsize, 64, 0, "phentsize-64");
	E(e_phentsize, 0xffff, 0, "phentsize-ffff");

	E(e_shoff, 0, 0, "shoff-0");
	E(e_shoff, sz - 1, 0, "shoff-eof-1");
	E(e_shoff, sz, 1, "shoff-eof");
	E(e_shoff, ~0ULL, 0, "shoff-max");
	E(e_shoff, ~0ULL - 63, 0, "shoff-wrap");
	E(e_shoff, phoff, 0, "shoff-phdrs");

	E(e_shnum, 0, 0, "shnum-0");
	E(e_shnum, shnum + 1, 0, "shnum-plus1");
	E(e_shnum, 1024, 0, "shnum-1024");
	E(e_shnum, 1025, 0, "shnum-1025");
	E(e_shnum, 0xffff, 0, "shnum-ffff");

	E(e_shentsize, 0, 0, "shentsize-0");
	E(e_shentsize, 40, 0, "shentsize-40");
	E(e_shentsize, 65, 0, "shentsize-65");
	E(e_shentsize, 128, 0, "shentsize-128");

	E(e_shstrndx, 0, 0, "shstrndx-0");
	E(e_shstrndx, shnum, 0, "shstrndx-shnum");
	E(e_shstrndx, SHN_XINDEX, 0, "shstrndx-xindex");
	E(e_shstrndx, im->s_sframe, 1, "shstrndx-sframe");
	E(e_shstrndx, im->s_eh, 0, "shstrndx-ehframe");

	E(e_type, ET_REL, 0, "type-rel");
	E(e_type, ET_CORE, 0, "type-core");
	E(e_type, im->eh->e_type == ET_DYN ? ET_EXEC : ET_DYN, 0, "type-swap");

	E(e_machine, im->eh->e_machine == EM_X86_64 ? EM_AARCH64 : EM_X86_64, 0,
	  "machine-other");

	E(e_ident[EI_CLASS], ELFCLASS32, 0, "class-32");
	E(e_ident[EI_DATA], ELFDATA2MSB, 0, "data-msb");

	E(e_entry, 0, 0, "entry-0");
	E(e_entry, saddr(im, im->s_sframe), 0, "entry-sframe");
}

/* ---- phdr --------------------------------------------------------- */

#define P(i, fld, val, core, ...) do {					\
	reset(im);							\
	PH(i)->fld = (val);						\
	out(im, K_PHDR, core, im->size, __VA_ARGS__);			\
} while (0)

/* Point program header @i at section @s (offset, address, size). */
static void ph_at(const struct img *im, int i, int s)
{
	PH(i)->p_offset = soff(im, s);
	PH(i)->p_vaddr = PH(i)->p_paddr = saddr(im, s);
	PH(i)->p_filesz = PH(i)->p_memsz = ssize(im, s);
}

static void gen_phdr_sframe(const struct img *im)
{
	const Elf64_Phdr *p = &im->ph[im->p_sframe];
	uint64_t sz = im->size;
	int i = im->p_sframe;

	P(i, p_offset, 0, 0, "sframe-off-0");
	P(i, p_offset, p->p_offset + 1, 0, "sframe-off-plus1");
	P(i, p_offset, sz - 8, 0, "sframe-off-eof-8");
	P(i, p_offset, sz, 0, "sframe-off-eof");
	P(i, p_offset, sz + PAGE, 1, "sframe-off-past-eof");
	P(i, p_offset, ~0ULL, 0, "sframe-off-max");
	P(i, p_offset, ~0ULL - 4, 0, "sframe-off-wrap");
	P(i, p_offset, soff(im, im->s_eh), 0, "sframe-off-ehframe");
	P(i, p_offset, soff(im, im->s_text), 0, "sframe-off-text");

	P(i, p_vaddr, 0, 0, "sframe-vaddr-0");
	P(i, p_vaddr, outside(im), 0, "sframe-vaddr-outside");
	P(i, p_vaddr, im->ph[im->p_data].p_vaddr, 0, "sframe-vaddr-data");
	P(i, p_vaddr, im->ph[im->p_text].p_vaddr, 0, "sframe-vaddr-text");
	P(i, p_vaddr, ~0ULL - 0xfff, 0, "sframe-vaddr-top");
	P(i, p_vaddr, ~0ULL, 0, "sframe-vaddr-max");

	P(i, p_filesz, 0, 0, "sframe-filesz-0");
	P(i, p_filesz, 27, 0, "sframe-filesz-27");
	P(i, p_filesz, 28, 0, "sframe-filesz-28");
	P(i, p_filesz, ssize(im, im->s_sframe) - 1, 0, "sframe-filesz-minus1");
	P(i, p_filesz, p->p_filesz + 1, 0, "sframe-filesz-plus1");
	P(i, p_filesz, sz - p->p_offset, 0, "sframe-filesz-to-eof");
	P(i, p_filesz, sz - p->p_offset + 1, 0, "sframe-filesz-past-eof");
	P(i, p_filesz, M16 + 1, 1, "sframe-filesz-16m-plus1");
	P(i, p_filesz, ~0ULL, 0, "sframe-filesz-max");
	P(i, p_memsz, ~0ULL, 0, "sframe-memsz-max");
	P(i, p_type, PT_NULL, 0, "sframe-removed");

	reset(im);
	ph_at(im, i, im->s_eh);
	out(im, K_PHDR, 1, im->size, "sframe-is-ehframe");
	if (im->s_ehhdr >= 0) {
		reset(im);
		ph_at(im, i, im->s_ehhdr);
		out(im, K_PHDR, 0, im->size, "sframe-is-ehframe-hdr");
	}
	reset(im);
	ph_at(im, i, im->s_text);
	out(im, K_PHDR, 0, im->size, "sframe-is-text");
	reset(im);
	PH(i)->p_offset = 0;
	PH(i)->p_vaddr = im->ph[im->p_text].p_vaddr & ~(PAGE - 1);
	PH(i)->p_filesz = sizeof(Elf64_Ehdr);
	out(im, K_PHDR, 0, im->size, "sframe-is-ehdr");
}

static void gen_phdr_ehhdr(const struct img *im)
{
	const Elf64_Phdr *p;
	uint64_t sz = im->size;
	int i = im->p_ehhdr;

	if (i < 0)
		return;
	p = &im->ph[i];
	P(i, p_offset, 0, 0, "ehhdr-off-0");
	P(i, p_offset, p->p_offset + 1, 0, "ehhdr-off-plus1");
	P(i, p_offset, sz - 4, 0, "ehhdr-off-eof-4");
	P(i, p_offset, sz, 0, "ehhdr-off-eof");
	P(i, p_offset, ~0ULL, 0, "ehhdr-off-max");
	P(i, p_offset, soff(im, im->s_sframe), 0, "ehhdr-off-sframe");

	P(i, p_vaddr, p->p_vaddr + 1, 0, "ehhdr-vaddr-plus1");
	P(i, p_vaddr, outside(im), 0, "ehhdr-vaddr-outside");
	P(i, p_vaddr, im->ph[im->p_data].p_vaddr, 0, "ehhdr-vaddr-data");
	P(i, p_vaddr, ~0ULL - 0xfff, 0, "ehhdr-vaddr-top");
	P(i, p_vaddr, saddr(im, im->s_sframe), 0, "ehhdr-vaddr-sframe");

	P(i, p_filesz, 0, 0, "ehhdr-filesz-0");
	P(i, p_filesz, 4, 0, "ehhdr-filesz-4");
	P(i, p_filesz, 11, 0, "ehhdr-filesz-11");
	P(i, p_filesz, 12, 0, "ehhdr-filesz-12");
	P(i, p_filesz, ~0ULL, 0, "ehhdr-filesz-max");
	P(i, p_type, PT_NULL, 0, "ehhdr-removed");

	reset(im);
	ph_at(im, i, im->s_sframe);
	out(im, K_PHDR, 0, im->size, "ehhdr-is-sframe");
	reset(im);
	ph_at(im, i, im->s_eh);
	out(im, K_PHDR, 0, im->size, "ehhdr-is-ehframe");
	reset(im);
	ph_at(im, i, im->s_text);
	out(im, K_PHDR, 0, im->size, "ehhdr-is-text");
	reset(im);
	PH(i)->p_offset = 0;
	PH(i)->p_vaddr = im->ph[im->p_text].p_vaddr & ~(PAGE - 1);
	PH(i)->p_filesz = sizeof(Elf64_Ehdr);
	out(im, K_PHDR, 0, im->size, "ehhdr-is-ehdr");

	reset(im);
	PH(im->p_sframe)->p_type = PT_GNU_EH_FRAME;
	PH(i)->p_type = PT_GNU_SFRAME;
	out(im, K_PHDR, 0, im->size, "sframe-ehhdr-swapped");
}

/* Several PT_GNU_SFRAME or PT_GNU_EH_FRAME entries. */
static void gen_phdr_multi(const struct img *im)
{
	const Elf64_Phdr *sf = &im->ph[im->p_sframe];
	int i, f = im->p_first_misc, l = im->p_last_misc;

	if (f >= 0 && f < im->p_sframe) {
		reset(im);
		*PH(f) = *sf;
		PH(f)->p_offset = im->size + PAGE;
		out(im, K_PHDR, 0, im->size, "2sframe-bad-first-off");
		reset(im);
		*PH(f) = *sf;
		PH(f)->p_filesz = 0;
		out(im, K_PHDR, 0, im->size, "2sframe-bad-first-empty");
		reset(im);
		*PH(f) = *sf;
		ph_at(im, f, im->s_eh);
		out(im, K_PHDR, 0, im->size, "2sframe-ehframe-first");
	}
	if (l > im->p_sframe) {
		reset(im);
		*PH(l) = *sf;
		PH(l)->p_filesz = ~0ULL;
		out(im, K_PHDR, 0, im->size, "2sframe-bad-last");
	}
	reset(im);
	for (i = 0; i < im->eh->e_phnum; i++)
		if (PH(i)->p_type != PT_LOAD && PH(i)->p_type != PT_PHDR &&
		    PH(i)->p_type != PT_INTERP && PH(i)->p_type != PT_DYNAMIC)
			*PH(i) = *sf;
	out(im, K_PHDR, 0, im->size, "all-sframe");
	if (im->p_interp >= 0) {
		reset(im);
		*PH(im->p_interp) = *sf;
		out(im, K_PHDR, 0, im->size, "interp-is-sframe");
	}
	if (im->p_ehhdr >= 0) {
		const Elf64_Phdr *eh = &im->ph[im->p_ehhdr];

		if (f >= 0 && f < im->p_ehhdr) {
			reset(im);
			*PH(f) = *eh;
			PH(f)->p_offset = ~0ULL - 8;
			out(im, K_PHDR, 0, im->size, "2ehhdr-bad-first");
		}
		reset(im);
		for (i = 0; i < im->eh->e_phnum; i++)
			if (PH(i)->p_type != PT_LOAD && PH(i)->p_type != PT_PHDR &&
			    PH(i)->p_type != PT_INTERP &&
			    PH(i)->p_type != PT_DYNAMIC &&
			    PH(i)->p_type != PT_GNU_SFRAME)
				*PH(i) = *eh;
		out(im, K_PHDR, 0, im->size, "all-ehhdr");
	}
}

/* The code PT_LOAD and the one holding .eh_frame. */
static void gen_phdr_load(const struct img *im)
{
	const Elf64_Phdr *t = &im->ph[im->p_text], *e = &im->ph[im->p_ehseg];
	int i = im->p_text, j = im->p_ehseg, k;

	P(i, p_offset, t->p_offset ? 0 : PAGE, 0, "text-off-other-page");
	P(i, p_offset, t->p_offset + PAGE, 0, "text-off-plus-page");
	P(i, p_offset, t->p_offset + 0x10, 0, "text-off-incongruent");
	P(i, p_offset, (im->size & ~(PAGE - 1)) + PAGE, 0, "text-off-past-eof");
	P(i, p_offset, ~0ULL & ~(PAGE - 1), 0, "text-off-top");
	P(i, p_vaddr, t->p_vaddr + 0x10, 0, "text-vaddr-incongruent");
	P(i, p_vaddr, 0, 0, "text-vaddr-0");
	P(i, p_vaddr, ~0ULL & ~(PAGE - 1), 0, "text-vaddr-top");
	P(i, p_filesz, 0, 0, "text-filesz-0");
	P(i, p_filesz, t->p_memsz + PAGE, 0, "text-filesz-gt-memsz");
	P(i, p_filesz, ~0ULL, 0, "text-filesz-max");
	P(i, p_memsz, 0, 0, "text-memsz-0");
	P(i, p_memsz, ~0ULL, 0, "text-memsz-max");
	P(i, p_flags, t->p_flags & ~PF_X, 0, "text-not-exec");
	P(i, p_flags, t->p_flags | PF_W, 0, "text-writable");
	P(i, p_align, 0, 0, "text-align-0");
	P(i, p_align, 1ULL << 40, 0, "text-align-2-40");

	P(j, p_filesz, 0, 0, "ehseg-filesz-0");
	P(j, p_filesz, saddr(im, im->s_eh) - e->p_vaddr, 0,
	  "ehseg-ends-at-ehframe");
	P(j, p_filesz, ~0ULL, 0, "ehseg-filesz-max");
	P(j, p_vaddr, e->p_vaddr + 0x100000, 0, "ehseg-vaddr-moved");
	P(j, p_vaddr, ~0ULL & ~(PAGE - 1), 0, "ehseg-vaddr-top");
	P(j, p_offset, ~0ULL - 0x10, 0, "ehseg-off-wrap");
	P(j, p_offset, im->size, 0, "ehseg-off-eof");
	if (j != i)
		P(j, p_flags, e->p_flags | PF_X, 0, "ehseg-exec");

	reset(im);
	for (k = 0; k < im->eh->e_phnum; k++)
		if (PH(k)->p_type == PT_LOAD)
			PH(k)->p_flags |= PF_X;
	out(im, K_PHDR, 0, im->size, "all-loads-exec");
	reset(im);
	for (k = 0; k < im->eh->e_phnum; k++)
		if (PH(k)->p_type == PT_LOAD && k != i)
			PH(k)->p_type = PT_NULL;
	out(im, K_PHDR, 0, im->size, "only-text-load");
	if (im->p_last_misc > i) {
		reset(im);
		*PH(im->p_last_misc) = *t;
		out(im, K_PHDR, 0, im->size, "text-load-twice");
	}
}

/*
 * A table of @n entries appended to the file: the real ones, then
 * copies of PT_GNU_SFRAME or PT_NULL.
 */
static void gen_phdr_table(const struct img *im, unsigned int n,
			   int fill_sframe)
{
	size_t off = (im->size + 7) & ~7UL, len = off + n * sizeof(Elf64_Phdr);
	Elf64_Phdr *t;
	unsigned int i;

	if (len > w_cap)
		die("phdr table too large");
	reset(im);
	memset(w + im->size, 0, len - im->size);
	t = (Elf64_Phdr *)(w + off);
	memcpy(t, im->ph, im->eh->e_phnum * sizeof(*t));
	for (i = im->eh->e_phnum; i < n; i++) {
		if (fill_sframe)
			t[i] = im->ph[im->p_sframe];
		else
			t[i].p_type = PT_NULL;
	}
	EH->e_phoff = off;
	EH->e_phnum = n;
	out(im, K_PHDR, 0, len, "table-%u-%s", n, fill_sframe ? "sframes" : "null");
}

static void gen_phdr(const struct img *im)
{
	gen_phdr_sframe(im);
	gen_phdr_ehhdr(im);
	gen_phdr_multi(im);
	gen_phdr_load(im);
	gen_phdr_table(im, MAX_PHDRS, 0);
	gen_phdr_table(im, MAX_PHDRS, 1);
	gen_phdr_table(im, MAX_PHDRS + 1, 0);
}

/* ---- shdr --------------------------------------------------------- */

/* Start a variant whose .eh_frame must be found by its section header. */
static void reset_noeh(const struct img *im)
{
	reset(im);
	if (im->p_ehhdr >= 0)
		PH(im->p_ehhdr)->p_type = PT_NULL;
}

#define S(sec, fld, val, core, ...) do {				\
	reset_noeh(im);							\
	SH(sec)->fld = (val);						\
	out(im, K_SHDR, core, im->size, __VA_ARGS__);			\
} while (0)

static void gen_shdr(const struct img *im)
{
	const Elf64_Shdr *str = &im->sh[im->s_shstr];
	uint64_t sz = im->size;
	int e = im->s_eh, s = im->s_shstr, p = im->s_plt;

	/* the untouched file without PT_GNU_EH_FRAME: the reference */
	if (im->p_ehhdr >= 0) {
		reset_noeh(im);
		out(im, K_SHDR, 0, im->size, "noehhdr");
	}
	S(e, sh_offset, 0, 0, "ehframe-off-0");
	S(e, sh_offset, sz, 0, "ehframe-off-eof");
	S(e, sh_offset, ~0ULL, 0, "ehframe-off-max");
	S(e, sh_offset, soff(im, im->s_sframe), 0, "ehframe-off-sframe");
	S(e, sh_size, 0, 0, "ehframe-size-0");
	S(e, sh_size, 4, 0, "ehframe-size-4");
	S(e, sh_size, sz, 0, "ehframe-size-filesize");
	S(e, sh_size, M16 + 1, 0, "ehframe-size-16m-plus1");
	S(e, sh_size, ~0ULL, 1, "ehframe-size-max");
	S(e, sh_addr, outside(im), 0, "ehframe-addr-outside");
	S(e, sh_addr, ~0ULL, 0, "ehframe-addr-max");
	S(e, sh_name, ~0U, 0, "ehframe-name-max");
	S(e, sh_name, str->sh_size, 0, "ehframe-name-strsize");
	S(e, sh_name, str->sh_size - 9, 0, "ehframe-name-strtail");
	S(e, sh_type, SHT_NOBITS, 0, "ehframe-nobits");
	S(e, sh_flags, im->sh[e].sh_flags & ~SHF_ALLOC, 0, "ehframe-not-alloc");
	S(s, sh_offset, ~0ULL, 0, "shstrtab-off-max");
	S(s, sh_offset, sz, 0, "shstrtab-off-eof");
	S(s, sh_size, 0, 0, "shstrtab-size-0");
	S(s, sh_size, ~0ULL, 0, "shstrtab-size-max");

	/* .sframe is the first section named .eh_frame */
	reset_noeh(im);
	SH(e)->sh_name++;
	SH(im->s_sframe)->sh_name = im->sh[e].sh_name;
	out(im, K_SHDR, 1, im->size, "sframe-named-ehframe");
	/* a bad .eh_frame before the real one */
	if (im->s_ehhdr >= 0 && im->s_ehhdr < e) {
		reset_noeh(im);
		*SH(im->s_ehhdr) = im->sh[e];
		SH(im->s_ehhdr)->sh_offset = soff(im, im->s_sframe);
		SH(im->s_ehhdr)->sh_size = ~0ULL - soff(im, im->s_sframe);
		out(im, K_SHDR, 0, im->size, "two-ehframes");
	}
	reset_noeh(im);
	EH->e_shstrndx = e;
	out(im, K_SHDR, 0, im->size, "shstrndx-ehframe");

	/* .plt (the AArch64 kernel gives it a one-row table) */
	if (p >= 0) {
		reset(im);
		SH(p)->sh_size = 0;
		out(im, K_SHDR, 0, im->size, "plt-size-0");
		reset(im);
		SH(p)->sh_size = 32;
		out(im, K_SHDR, 0, im->size, "plt-size-32");
		reset(im);
		SH(p)->sh_size = 33;
		out(im, K_SHDR, 0, im->size, "plt-size-33");
		reset(im);
		SH(p)->sh_size = 0x7fffffff;
		out(im, K_SHDR, 0, im->size, "plt-size-s32max");
		reset(im);
		SH(p)->sh_size = ~0ULL;
		out(im, K_SHDR, 0, im->size, "plt-size-max");
		reset(im);
		SH(p)->sh_addr = 0x7fffffff - 32;
		out(im, K_SHDR, 0, im->size, "plt-addr-s32max");
		reset(im);
		SH(p)->sh_addr = ~0ULL;
		out(im, K_SHDR, 0, im->size, "plt-addr-max");
		reset(im);
		SH(p)->sh_addr = outside(im);
		out(im, K_SHDR, 0, im->size, "plt-addr-outside");
	}
}

/* ---- trunc -------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct cut {
	uint64_t len;
	int core;
};

static struct cut cuts[1024];
static int ncuts;

static void cut(uint64_t len, int core)
{
	if (ncuts < 1024) {
		cuts[ncuts].len = len;
		cuts[ncuts].core = core;
		ncuts++;
	}
}

/* cut inside section @s: at its start, 1, @n points, its end - 1, its end */
static void cut_sec(const struct img *im, int s, int n, int core)
{
	uint64_t o, z;
	int k;

	if (s < 0)
		return;
	o = soff(im, s);
	z = ssize(im, s);
	cut(o, 0);
	cut(o + 1, 0);
	for (k = 1; k <= n; k++)
		cut(o + z * k / (n + 1), core && k == (n + 1) / 2);
	cut(o + z - 1, 0);
	cut(o + z, 0);
}

static void gen_trunc(const struct img *im)
{
	static const uint64_t small[] = { 0, 1, 3, 4, 5, 16, 17, 18, 20, 24,
					  32, 52, 58, 63, 64, 65 };
	uint64_t o, prev = ~0ULL;
	unsigned int k;
	int i, core;

	ncuts = 0;
	for (k = 0; k < sizeof(small) / sizeof(small[0]); k++)
		cut(small[k], 0);
	/* the program header table, entry by entry */
	for (k = 0; k <= im->eh->e_phnum; k++)
		cut(im->eh->e_phoff + k * sizeof(Elf64_Phdr) + (k & 1 ? 28 : 0), 0);
	/* the SFrame header field by field, and further in */
	o = soff(im, im->s_sframe);
	for (k = 4; k <= 28; k += 8)
		cut(o + k, 0);
	cut_sec(im, im->s_sframe, 3, 1);
	cut_sec(im, im->s_ehhdr, 3, 0);
	cut_sec(im, im->s_eh, 5, 1);
	cut_sec(im, im->s_text, 1, 0);
	cut_sec(im, im->s_plt, 1, 0);
	/* segment ends, page boundaries, the section header table */
	for (i = 0; i < im->eh->e_phnum; i++) {
		if (im->ph[i].p_type != PT_LOAD)
			continue;
		o = im->ph[i].p_offset + im->ph[i].p_filesz;
		cut(o - 1, 0);
		cut(o, 0);
		cut((o + PAGE - 1) & ~(PAGE - 1), 0);
	}
	cut(im->eh->e_shoff, 0);
	cut(im->eh->e_shoff + sizeof(Elf64_Shdr) * 3 / 2, 0);
	cut(im->size - 1, 0);
	seed(im, K_TRUNC);
	for (k = 0; k < 4; k++)
		cut(rnd() % im->size, 0);

	/* ascending, once each (a core cut wins over its duplicates) */
	qsort(cuts, ncuts, sizeof(cuts[0]), cmp_u64);
	reset(im);
	for (i = 0; i < ncuts; i++) {
		if (cuts[i].len >= im->size || cuts[i].len == prev)
			continue;
		prev = cuts[i].len;
		core = cuts[i].core;
		if (i + 1 < ncuts && cuts[i + 1].len == prev)
			core |= cuts[i + 1].core;
		out(im, K_TRUNC, core, prev, "%llu", (unsigned long long)prev);
	}
}

/* ---- sframe ------------------------------------------------------- */

static void put(unsigned char *p, uint64_t v, int n)
{
	while (n--) {
		*p++ = v;
		v >>= 8;
	}
}

static uint64_t get(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Boundary values for a field of @n bytes holding @v; returns how many. */
static int values(uint64_t v, int n, uint64_t *vals)
{
	uint64_t max = n == 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
	uint64_t cand[] = { 0, max, (max >> 1) + 1, v + 1 };
	int i, j, k = 0;

	for (i = 0; i < (int)(sizeof(cand) / sizeof(cand[0])); i++) {
		cand[i] &= max;
		if (cand[i] == v)
			continue;
		for (j = 0; j < k; j++)
			if (vals[j] == cand[i])
				break;
		if (j == k)
			vals[k++] = cand[i];
	}
	return k;
}

/* @n random bytes of [@off, @off + @len): set to a boundary byte or xor'ed. */
static void scramble(uint64_t off, uint64_t len, int n)
{
	static const unsigned char special[] = { 0, 0xff, 0x7f, 0x80 };
	uint64_t r, at;

	if (!len)
		return;
	while (n--) {
		r = rnd();
		at = off + (r >> 8) % len;
		if (r & 1)
			w[at] = special[(r >> 1) & 3];
		else
			w[at] ^= (r >> 3) | 1;
	}
}

static void gen_sframe(const struct img *im)
{
	static const struct { const char *name; int off, n; } hdr[] = {
		{ "magic", 0, 2 }, { "version", 2, 1 }, { "flags", 3, 1 },
		{ "abi", 4, 1 }, { "cfa-fixed-fp", 5, 1 },
		{ "cfa-fixed-ra", 6, 1 }, { "auxhdr-len", 7, 1 },
		{ "num-fdes", 8, 4 }, { "num-fres", 12, 4 },
		{ "fre-len", 16, 4 }, { "fdeoff", 20, 4 }, { "freoff", 24, 4 },
	};
	/* FDE fields (v1: 17 bytes, v2: 20, both start like this) */
	static const struct { const char *name; int off, n; } fde[] = {
		{ "start", 0, 4 }, { "size", 4, 4 }, { "freoff", 8, 4 },
		{ "nfres", 12, 4 }, { "info", 16, 1 },
	};
	static const int flips[] = { 1, 2, 4, 8, 16, 64 };
	uint64_t so = soff(im, im->s_sframe), sz = ssize(im, im->s_sframe);
	uint64_t vals[16], v, fdes, fres, frelen, fdesz;
	unsigned int nfdes, h, i, f, k;
	int n, j;
	const unsigned char *s = im->buf + so;

	seed(im, K_SFRAME);
	if (sz < 28)
		die("%s: .sframe too small", im->base);
	for (h = 0; h < sizeof(hdr) / sizeof(hdr[0]); h++) {
		v = get(s + hdr[h].off, hdr[h].n);
		n = values(v, hdr[h].n, vals);
		for (j = 0; j < n; j++) {
			reset(im);
			put(w + so + hdr[h].off, vals[j], hdr[h].n);
			out(im, K_SFRAME, h == 7 && j == 1, im->size, "hdr-%s-%llx",
			    hdr[h].name, (unsigned long long)vals[j]);
		}
	}

	/* FDEs: the first, the middle, the last */
	fdesz = s[2] == 1 ? 17 : 20;
	nfdes = get(s + 8, 4);
	fdes = 28 + s[7] + get(s + 20, 4);
	fres = 28 + s[7] + get(s + 24, 4);
	frelen = get(s + 16, 4);
	for (i = 0; i < 3 && nfdes; i++) {
		f = i == 0 ? 0 : i == 1 ? nfdes / 2 : nfdes - 1;
		if (fdes + (f + 1) * fdesz > sz)
			break;
		for (k = 0; k < sizeof(fde) / sizeof(fde[0]); k++) {
			v = get(s + fdes + f * fdesz + fde[k].off, fde[k].n);
			n = values(v, fde[k].n, vals);
			/* two values per field, picked at random */
			for (j = 0; j < 2 && n; j++) {
				int pick = rnd() % n;

				reset(im);
				put(w + so + fdes + f * fdesz + fde[k].off,
				    vals[pick], fde[k].n);
				out(im, K_SFRAME, 0, im->size, "fde%u-%s-%llx", f,
				    fde[k].name, (unsigned long long)vals[pick]);
				vals[pick] = vals[--n];
			}
		}
	}

	/* random bytes: in the FREs, then anywhere in the section */
	if (fres < sz) {
		if (frelen > sz - fres)
			frelen = sz - fres;
		for (k = 0; k < 8; k++) {
			reset(im);
			scramble(so + fres, frelen, flips[k % 6]);
			out(im, K_SFRAME, 0, im->size, "fres-rand%u-%d", k,
			    flips[k % 6]);
		}
	}
	for (k = 0; k < 10; k++) {
		reset(im);
		scramble(so, sz, flips[k % 6]);
		out(im, K_SFRAME, k == 0, im->size, "rand%u-%d", k, flips[k % 6]);
	}
}

/* ---- eh ----------------------------------------------------------- */

/* A CIE or FDE of .eh_frame; offsets from the start of the section. */
struct rec {
	uint64_t off, len;	/* the whole record, length field included */
	int cie;
	uint64_t id;		/* the CIE id / CIE pointer field */
	uint64_t aug, ra, augdata, enc;	/* CIE: augmentation string, ... */
	uint64_t loc;		/* FDE: initial location */
	uint64_t ins, ins_end;	/* instructions */
	int ptrsize;
};

static struct rec recs[4096];
static int nrecs;

static uint64_t uleb_skip(const unsigned char *p, uint64_t at, uint64_t end)
{
	while (at < end && p[at] & 0x80)
		at++;
	return at + 1;
}

static int enc_size(unsigned char enc)
{
	switch (enc & 0x0f) {
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	default: return 8;
	}
}

/* The records of the input's .eh_frame (GNU's: 'z', 'R' augmentations). */
static void parse_eh(const struct img *im)
{
	const unsigned char *p = im->buf + soff(im, im->s_eh);
	uint64_t end = ssize(im, im->s_eh), at = 0, len, x;
	int ptrsize = 4;
	const char *a;

	nrecs = 0;
	while (at + 8 <= end && nrecs < 4096) {
		struct rec *r = &recs[nrecs];

		len = get(p + at, 4);
		if (!len || len == 0xffffffff || at + 4 + len > end)
			break;
		memset(r, 0, sizeof(*r));
		r->off = at;
		r->len = 4 + len;
		r->id = at + 4;
		r->cie = !get(p + at + 4, 4);
		x = at + 8;
		if (r->cie) {
			r->aug = x + 1;
			a = (const char *)p + r->aug;
			x = r->aug + strnlen(a, r->len) + 1;
			x = uleb_skip(p, x, end);		/* code align */
			x = uleb_skip(p, x, end);		/* data align */
			r->ra = x++;
			r->augdata = x;
			if (a[0] == 'z') {
				x = uleb_skip(p, x, end);
				for (a++; *a; a++) {
					if (*a == 'R') {
						r->enc = x;
						ptrsize = enc_size(p[x]);
						x++;
					} else if (*a == 'P') {
						x += 1 + enc_size(p[x]);
					} else if (*a == 'L') {
						x++;
					}
				}
			}
		} else {
			r->loc = x;
			x += 2 * ptrsize;
			x = uleb_skip(p, x, end);		/* 'z' data length */
		}
		r->ptrsize = ptrsize;
		r->ins = x;
		r->ins_end = at + r->len;
		nrecs++;
		at += r->len;
	}
}

/* CFA instruction sequences the kernel must refuse, or bound. */
static const struct {
	const char *name;
	unsigned char b[24];
	int n;
	int fill;	/* repeat over the whole instruction area */
} cfa_seq[] = {
	{ "def-cfa-expr", { 0x0f, 0x02, 0x77, 0x08 }, 4, 0 },
	{ "val-expr", { 0x16, 0x10, 0x02, 0x77, 0x08 }, 5, 0 },
	{ "expr-ra", { 0x10, 0x10, 0x02, 0x77, 0x08 }, 5, 0 },
	{ "def-cfa-reg127", { 0x0c, 0x7f, 0x08 }, 3, 0 },
	{ "def-cfa-reg-huge", { 0x0c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x08 }, 7, 0 },
	{ "def-cfa-off-huge", { 0x0c, 0x07, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				0xff, 0xff, 0xff, 0x01 }, 12, 0 },
	{ "def-cfa-sf-min", { 0x12, 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			      0x80, 0x80, 0x80, 0x7f }, 12, 0 },
	{ "cfa-other-reg", { 0x0d, 0x03 }, 2, 0 },
	{ "leb-endless", { 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			   0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
			   0x80, 0x80, 0x80, 0x80, 0x80 }, 21, 0 },
	{ "offset-ext-sf", { 0x11, 0x90, 0x02, 0x7f }, 4, 0 },
	{ "undef-ra", { 0x07, 0x10, 0x07, 0x1e }, 4, 0 },
	{ "set-loc", { 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 9, 0 },
	{ "adv4-max", { 0x04, 0xff, 0xff, 0xff, 0xff }, 5, 0 },
	{ "unknown-op", { 0x3f, 0x1d, 0x2b }, 3, 0 },
	{ "args-size", { 0x2e, 0xff, 0xff, 0xff, 0xff, 0x0f }, 6, 0 },
	{ "restore-63", { 0xff, 0xc0 }, 2, 0 },
	{ "remember", { 0x0a }, 1, 1 },
	{ "restore-state", { 0x0b }, 1, 1 },
	{ "window-save", { 0x2d }, 1, 1 },
	{ "advance-63", { 0x7f }, 1, 1 },
	{ "offset-r0", { 0x80, 0x01 }, 2, 1 },
};

#define NR_CFA_SEQ	(sizeof(cfa_seq) / sizeof(cfa_seq[0]))

static void gen_eh_hdr(const struct img *im)
{
	static const unsigned char encs[] = { 0xff, 0x00, 0x0c, 0x9b, 0x0f };
	uint64_t ho, hz, v;
	unsigned int k;

	if (im->s_ehhdr < 0)
		return;
	ho = soff(im, im->s_ehhdr);
	hz = ssize(im, im->s_ehhdr);
	if (hz < 12)
		return;

	reset(im);
	w[ho] = 0;
	out(im, K_EH, 0, im->size, "hdr-version-0");
	reset(im);
	w[ho] = 2;
	out(im, K_EH, 0, im->size, "hdr-version-2");
	for (k = 0; k < sizeof(encs); k++) {
		reset(im);
		w[ho + 1] = encs[k];
		out(im, K_EH, 0, im->size, "hdr-ptr-enc-%02x", encs[k]);
	}
	for (k = 0; k < 3; k++) {
		reset(im);
		w[ho + 2] = encs[k];
		out(im, K_EH, 0, im->size, "hdr-count-enc-%02x", encs[k]);
		reset(im);
		w[ho + 3] = encs[k];
		out(im, K_EH, 0, im->size, "hdr-table-enc-%02x", encs[k]);
	}
	/* eh_frame_ptr (pcrel sdata4): elsewhere */
	v = saddr(im, im->s_sframe) - (saddr(im, im->s_ehhdr) + 4);
	reset(im);
	put(w + ho + 4, v, 4);
	out(im, K_EH, 0, im->size, "hdr-ptr-sframe");
	reset(im);
	put(w + ho + 4, (uint64_t)-4, 4);
	out(im, K_EH, 0, im->size, "hdr-ptr-self");
	reset(im);
	put(w + ho + 4, 0x7fffffff, 4);
	out(im, K_EH, 0, im->size, "hdr-ptr-s32max");
	reset(im);
	put(w + ho + 4, 0x80000000, 4);
	out(im, K_EH, 0, im->size, "hdr-ptr-s32min");
	reset(im);
	put(w + ho + 4, get(im->buf + ho + 4, 4) + 1, 4);
	out(im, K_EH, 0, im->size, "hdr-ptr-plus1");
	reset(im);
	put(w + ho + 8, 0xffffffff, 4);
	out(im, K_EH, 0, im->size, "hdr-count-max");
	reset(im);
	put(w + ho + 8, get(im->buf + ho + 8, 4) + 1, 4);
	out(im, K_EH, 0, im->size, "hdr-count-plus1");
	for (k = 0; k < 3; k++) {
		reset(im);
		scramble(ho, hz, 1 << k);
		out(im, K_EH, 0, im->size, "hdr-rand%u", k);
	}
}

static void gen_eh(const struct img *im)
{
	uint64_t eo = soff(im, im->s_eh), ez = ssize(im, im->s_eh), v;
	static const uint64_t lens[] = { 0, 0xffffffff, 0xfffffff0 };
	static const unsigned char ptr_encs[] = { 0xff, 0x00, 0x0c, 0x9b,
						  0x50, 0x70, 0x0f, 0x80 };
	int cie = -1, mid = -1, last = -1, r, i, tries;
	unsigned int k, n, m;
	struct rec *x;

	seed(im, K_EH);
	gen_eh_hdr(im);
	parse_eh(im);
	for (i = 0; i < nrecs; i++) {
		if (recs[i].cie && cie < 0)
			cie = i;
		if (!recs[i].cie)
			last = i;
	}
	for (i = nrecs / 2; i < nrecs; i++)
		if (!recs[i].cie) {
			mid = i;
			break;
		}
	if (cie < 0 || mid < 0)
		die("%s: no CIE or FDE in .eh_frame", im->base);

	/* lengths of the first CIE, a middle FDE, the last FDE */
	for (i = 0; i < 3; i++) {
		r = i == 0 ? cie : i == 1 ? mid : last;
		for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			reset(im);
			put(w + eo + recs[r].off, lens[k], 4);
			out(im, K_EH, 0, im->size, "rec%d-len-%llx", r,
			    (unsigned long long)lens[k]);
		}
		reset(im);
		put(w + eo + recs[r].off, recs[r].len, 4);
		out(im, K_EH, 0, im->size, "rec%d-len-plus4", r);
		reset(im);
		put(w + eo + recs[r].off, recs[r].len - 8, 4);
		out(im, K_EH, 0, im->size, "rec%d-len-minus4", r);
	}

	/* the CIE: id, version, augmentation, RA column, pointer encoding */
	x = &recs[cie];
	reset(im);
	put(w + eo + x->id, 1, 4);
	out(im, K_EH, 0, im->size, "cie-id-1");
	reset(im);
	put(w + eo + x->id, 0xffffffff, 4);
	out(im, K_EH, 0, im->size, "cie-id-max");
	for (v = 0; v < 4; v++) {
		static const unsigned char vers[] = { 0, 2, 4, 0xff };

		reset(im);
		w[eo + x->id + 4] = vers[v];
		out(im, K_EH, 0, im->size, "cie-version-%02x", vers[v]);
	}
	reset(im);
	w[eo + x->aug] = 'Z';
	out(im, K_EH, 0, im->size, "cie-aug-unknown");
	reset(im);
	w[eo + x->aug + 1] = 'S';
	out(im, K_EH, 0, im->size, "cie-aug-signal");
	reset(im);
	w[eo + x->aug + 1] = 'B';
	out(im, K_EH, 0, im->size, "cie-aug-b-key");
	reset(im);
	memset(w + eo + x->aug, 'z', x->ra - x->aug);
	out(im, K_EH, 0, im->size, "cie-aug-unterminated");
	reset(im);
	w[eo + x->ra] = 0x7f;
	out(im, K_EH, 0, im->size, "cie-ra-7f");
	reset(im);
	w[eo + x->ra] = 0;
	out(im, K_EH, 0, im->size, "cie-ra-0");
	reset(im);
	w[eo + x->augdata] = 0x7f;
	out(im, K_EH, 0, im->size, "cie-augdata-len-7f");
	if (x->enc) {
		for (k = 0; k < sizeof(ptr_encs); k++) {
			reset(im);
			w[eo + x->enc] = ptr_encs[k];
			out(im, K_EH, 0, im->size, "cie-ptr-enc-%02x",
			    ptr_encs[k]);
		}
	}

	/* FDEs: CIE pointer, location, range */
	x = &recs[mid];
	reset(im);
	put(w + eo + x->id, 0, 4);
	out(im, K_EH, 0, im->size, "fde-is-cie");
	reset(im);
	put(w + eo + x->id, 0xffffffff, 4);
	out(im, K_EH, 0, im->size, "fde-cie-max");
	reset(im);
	put(w + eo + x->id, x->id + 8, 4);
	out(im, K_EH, 0, im->size, "fde-cie-before-section");
	reset(im);
	put(w + eo + x->id, 4, 4);
	out(im, K_EH, 0, im->size, "fde-cie-self");
	reset(im);
	put(w + eo + x->id, x->id - recs[last].off, 4);
	out(im, K_EH, 0, im->size, "fde-cie-is-fde");
	reset(im);
	put(w + eo + x->id, (uint64_t)-(int64_t)(ez - x->id), 4);
	out(im, K_EH, 0, im->size, "fde-cie-past-end");
	if (x->ptrsize == 4) {
		static const uint64_t locs[] = { 0, 0xffffffff, 0x7fffffff,
						 0x80000000 };

		for (k = 0; k < 4; k++) {
			reset(im);
			put(w + eo + x->loc, locs[k], 4);
			out(im, K_EH, 0, im->size, "fde-loc-%llx",
			    (unsigned long long)locs[k]);
			reset(im);
			put(w + eo + x->loc + 4, locs[k], 4);
			out(im, K_EH, 0, im->size, "fde-range-%llx",
			    (unsigned long long)locs[k]);
		}
		/* the function at .sframe's address */
		v = saddr(im, im->s_sframe) - (saddr(im, im->s_eh) + x->loc);
		reset(im);
		put(w + eo + x->loc, v, 4);
		out(im, K_EH, 0, im->size, "fde-loc-sframe");
		/* every FDE covers the whole address space */
		reset(im);
		for (i = 0; i < nrecs; i++)
			if (!recs[i].cie && recs[i].ptrsize == 4)
				put(w + eo + recs[i].loc + 4, 0x7fffffff, 4);
		out(im, K_EH, 0, im->size, "fde-all-overlap");
	}

	/* CFA instructions of a random FDE (and of the CIE) */
	for (k = 0; k < NR_CFA_SEQ; k++) {
		for (tries = 0; tries < 16; tries++) {
			r = rnd() % nrecs;
			if (!recs[r].cie && recs[r].ins_end > recs[r].ins)
				break;
		}
		x = &recs[r];
		n = x->ins_end - x->ins;
		reset(im);
		if (cfa_seq[k].fill) {
			for (m = 0; m + cfa_seq[k].n <= n; m += cfa_seq[k].n)
				memcpy(w + eo + x->ins + m, cfa_seq[k].b,
				       cfa_seq[k].n);
		} else {
			memcpy(w + eo + x->ins, cfa_seq[k].b,
			       n < (unsigned int)cfa_seq[k].n ? n :
			       (unsigned int)cfa_seq[k].n);
		}
		out(im, K_EH, 0, im->size, "cfa-rec%d-%s", r, cfa_seq[k].name);
	}
	x = &recs[cie];
	if (x->ins_end > x->ins) {
		reset(im);
		memcpy(w + eo + x->ins, cfa_seq[0].b,
		       x->ins_end - x->ins < 4 ? x->ins_end - x->ins : 4);
		out(im, K_EH, 0, im->size, "cie-cfa-expr");
		reset(im);
		memset(w + eo + x->ins, 0x0b, x->ins_end - x->ins);
		out(im, K_EH, 0, im->size, "cie-restore-state");
	}

	/* random bytes in .eh_frame, and in both sections */
	for (k = 0; k < 12; k++) {
		reset(im);
		scramble(eo, ez, 1 << (k % 6));
		out(im, K_EH, k == 0, im->size, "rand%u-%d", k, 1 << (k % 6));
	}
	if (im->s_ehhdr >= 0) {
		for (k = 0; k < 2; k++) {
			reset(im);
			scramble(eo, ez, 4);
			scramble(soff(im, im->s_ehhdr), ssize(im, im->s_ehhdr), 2);
			out(im, K_EH, 0, im->size, "both-rand%u", k);
		}
	}
}

/* ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	unsigned long total = 0, total_bytes = 0, before[NR_KINDS];
	struct img im;
	int i, k;

	if (argc < 3) {
		fprintf(stderr, "usage: hostile-elf OUTDIR INPUT...\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755))
		die("%s: %s", outdir, strerror(errno));
	for (i = 2; i < argc; i++) {
		load(&im, argv[i]);
		for (k = 0; k < NR_KINDS; k++)
			before[k] = count[k];
		gen_ehdr(&im);
		gen_phdr(&im);
		gen_shdr(&im);
		gen_trunc(&im);
		gen_sframe(&im);
		gen_eh(&im);
		printf("hostile-elf: %s (%zu bytes%s):", im.base, im.size,
		       im.big ? ", big: core variants only" : "");
		for (k = 0; k < NR_KINDS; k++)
			printf(" %s %lu", kind_names[k], count[k] - before[k]);
		printf("\n");
		free(im.buf);
	}
	printf("hostile-elf: %s:", outdir);
	for (k = 0; k < NR_KINDS; k++) {
		printf(" %s %lu", kind_names[k], count[k]);
		total += count[k];
		total_bytes += bytes[k];
	}
	printf("; %lu files, %lu bytes, from %lu inputs of %lu bytes\n", total,
	       total_bytes, in_count, in_bytes);
	return 0;
}
