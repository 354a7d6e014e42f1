// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-corrupt: build-time (host) tool that damages the .sframe section
 * of an ELF64 little-endian executable in place, for the "corrupt .sframe"
 * tests.  The kernel must still run such a program and unwind it the
 * stock way, as if it had no .sframe at all.
 *
 *   sframe-corrupt MODE FILE
 *
 * The section is found through its PT_GNU_SFRAME program header (what the
 * kernel uses); the .sframe section header, if any, is kept consistent
 * when the size changes.  Modes: see the table below.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/* SFrame header (all versions), little endian, packed. */
#define H_MAGIC		0	/* u16 */
#define H_VERSION	2	/* u8 */
#define H_FLAGS		3	/* u8 */
#define H_AUXHDR_LEN	7	/* u8 */
#define H_NUM_FDES	8	/* u32 */
#define H_NUM_FRES	12	/* u32 */
#define H_FRE_LEN	16	/* u32 */
#define H_FDEOFF	20	/* u32 */
#define H_FREOFF	24	/* u32 */
#define H_SIZE		28
#define F_FDE_SORTED	0x1
#define V1_FDE_SIZE	17	/* s32 start, u32 size, u32 fre_off, u32 num_fres, u8 info */
#define FDE_FRE_OFF	8

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void die(const char *msg)
{
	fprintf(stderr, "sframe-corrupt: %s\n", msg);
	exit(1);
}

static const char *const modes[][2] = {
	{ "magic",	"magic 0xdee2 -> 0xdee3" },
	{ "version",	"version -> 0x7f" },
	{ "unsorted",	"clear SFRAME_F_FDE_SORTED" },
	{ "nfdes",	"num_fdes -> 0xffffffff" },
	{ "fdeoff",	"fdeoff -> 0xfffffff0 (FDEs outside the section)" },
	{ "frelen",	"fre_len -> 0x7fffffff (FREs run past the end)" },
	{ "trunc-hdr",	"section cut to 16 bytes (shorter than the header)" },
	{ "trunc-fre",	"section cut in the middle of the FRE sub-section" },
	{ "fde-freoff",	"fre_off of the middle FDE -> 0xfffffff0" },
	{ "fde-order",	"start of the first FDE -> after the last (unsorted)" },
};

#define NR_MODES	(sizeof(modes) / sizeof(modes[0]))

int main(int argc, char **argv)
{
	unsigned char *map, *sf;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph, *sph = NULL;
	Elf64_Shdr *sh, *ssh = NULL;
	uint32_t nfdes, fdeoff, freoff, fre_len, newsize = 0;
	unsigned char *fdes;
	const char *mode;
	struct stat st;
	unsigned int i;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sframe-corrupt MODE FILE\nmodes:\n");
		for (i = 0; i < NR_MODES; i++)
			fprintf(stderr, "  %-11s %s\n", modes[i][0], modes[i][1]);
		return 2;
	}
	mode = argv[1];
	for (i = 0; i < NR_MODES; i++)
		if (!strcmp(mode, modes[i][0]))
			break;
	if (i == NR_MODES)
		die("unknown mode");

	fd = open(argv[2], O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		die(strerror(errno));
	if ((size_t)st.st_size < sizeof(*eh))
		die("file too small");
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die(strerror(errno));
	eh = (Elf64_Ehdr *)map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		die("not an ELF64 little-endian file");
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(*ph) > (uint64_t)st.st_size)
		die("bad program headers");

	ph = (Elf64_Phdr *)(map + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_SFRAME)
			sph = &ph[i];
	if (!sph)
		die("no PT_GNU_SFRAME program header");
	if (sph->p_filesz < H_SIZE ||
	    sph->p_offset + sph->p_filesz > (uint64_t)st.st_size)
		die("bad PT_GNU_SFRAME");

	if (eh->e_shoff && eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) <=
	    (uint64_t)st.st_size) {
		/*
		 * ld 2.40 makes PT_GNU_SFRAME larger than .sframe (it keeps the
		 * size before merging): match the section on its offset only.
		 */
		sh = (Elf64_Shdr *)(map + eh->e_shoff);
		for (i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == SHT_PROGBITS &&
			    sh[i].sh_offset == sph->p_offset)
				ssh = &sh[i];
	}

	sf = map + sph->p_offset;
	if (sf[H_MAGIC] != 0xe2 || sf[H_MAGIC + 1] != 0xde || sf[H_VERSION] != 1)
		die("not an SFrame v1 section (already corrupted?)");
	nfdes = get32(sf + H_NUM_FDES);
	fdeoff = get32(sf + H_FDEOFF);
	freoff = get32(sf + H_FREOFF);
	fre_len = get32(sf + H_FRE_LEN);
	fdes = sf + H_SIZE + sf[H_AUXHDR_LEN] + fdeoff;
	if (nfdes < 2)
		die("need at least two FDEs");

	if (!strcmp(mode, "magic")) {
		sf[H_MAGIC] = 0xe3;
	} else if (!strcmp(mode, "version")) {
		sf[H_VERSION] = 0x7f;
	} else if (!strcmp(mode, "unsorted")) {
		sf[H_FLAGS] &= ~F_FDE_SORTED;
	} else if (!strcmp(mode, "nfdes")) {
		put32(sf + H_NUM_FDES, 0xffffffff);
	} else if (!strcmp(mode, "fdeoff")) {
		put32(sf + H_FDEOFF, 0xfffffff0);
	} else if (!strcmp(mode, "frelen")) {
		put32(sf + H_FRE_LEN, 0x7fffffff);
	} else if (!strcmp(mode, "trunc-hdr")) {
		newsize = 16;
	} else if (!strcmp(mode, "trunc-fre")) {
		newsize = H_SIZE + sf[H_AUXHDR_LEN] + freoff + fre_len / 2;
	} else if (!strcmp(mode, "fde-freoff")) {
		put32(fdes + (nfdes / 2) * V1_FDE_SIZE + FDE_FRE_OFF, 0xfffffff0);
	} else if (!strcmp(mode, "fde-order")) {
		/* func_start is relative to the section: make FDE 0 the last. */
		uint32_t last = get32(fdes + (nfdes - 1) * V1_FDE_SIZE);

		put32(fdes, last + 0x100000);
	}

	if (newsize) {
		sph->p_filesz = newsize;
		sph->p_memsz = newsize;
		if (ssh && ssh->sh_size > newsize)
			ssh->sh_size = newsize;
	}
	if (msync(map, st.st_size, MS_SYNC))
		die(strerror(errno));
	munmap(map, st.st_size);
	close(fd);
	return 0;
}
