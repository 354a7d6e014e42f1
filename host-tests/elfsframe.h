/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal ELF64 little-endian reader for the host tests: load a file and
 * find its .sframe section (contents and sh_addr).  No libelf needed.
 */
#ifndef HOST_TESTS_ELFSFRAME_H
#define HOST_TESTS_ELFSFRAME_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct elf_sframe {
	unsigned char *file;	/* whole file, malloc'ed */
	size_t file_size;
	const unsigned char *data;	/* .sframe contents */
	uint32_t size;
	uint64_t addr;		/* sh_addr */
	uint16_t machine;
	/* .text bounds, to pick PCs outside every function */
	uint64_t text_addr, text_size;
};

static inline unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	*size = len;
	return buf;
}

/* Return 0 and fill @es, 1 if the file has no .sframe, -1 on error. */
static inline int elf_sframe_load(const char *path, struct elf_sframe *es)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh, *strsh;
	const char *names;
	unsigned int i;
	int ret = 1;

	memset(es, 0, sizeof(*es));
	es->file = read_file(path, &es->file_size);
	if (!es->file) {
		perror(path);
		return -1;
	}
	eh = (const Elf64_Ehdr *)es->file;
	if (es->file_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		fprintf(stderr, "%s: not an ELF64 little-endian file\n", path);
		return -1;
	}
	es->machine = eh->e_machine;
	if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > es->file_size ||
	    eh->e_shstrndx >= eh->e_shnum) {
		fprintf(stderr, "%s: bad section headers\n", path);
		return -1;
	}
	sh = (const Elf64_Shdr *)(es->file + eh->e_shoff);
	strsh = &sh[eh->e_shstrndx];
	if (strsh->sh_offset + strsh->sh_size > es->file_size)
		return -1;
	names = (const char *)es->file + strsh->sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name;

		if (sh[i].sh_name >= strsh->sh_size)
			continue;
		name = names + sh[i].sh_name;
		if (!strcmp(name, ".text")) {
			es->text_addr = sh[i].sh_addr;
			es->text_size = sh[i].sh_size;
		}
		if (strcmp(name, ".sframe"))
			continue;
		if (sh[i].sh_type == SHT_NOBITS ||
		    sh[i].sh_offset + sh[i].sh_size > es->file_size ||
		    sh[i].sh_size > UINT32_MAX) {
			fprintf(stderr, "%s: bad .sframe section\n", path);
			return -1;
		}
		es->data = es->file + sh[i].sh_offset;
		es->size = (uint32_t)sh[i].sh_size;
		es->addr = sh[i].sh_addr;
		ret = 0;
	}
	return ret;
}

static inline void elf_sframe_free(struct elf_sframe *es)
{
	free(es->file);
	memset(es, 0, sizeof(*es));
}

#endif
