// SPDX-License-Identifier: GPL-2.0
/*
 * Time sframe_eh_convert(), as the kernel calls it, on the .eh_frame of
 * an object: what registering a file without .sframe costs in process
 * context.
 *   eh-time OBJECT ROUNDS
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sframe_ehframe.h"
#include "sframe_format.h"
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY), n = atoi(argv[2]);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx; elf_getshdrstrndx(e, &shstrndx);
	GElf_Ehdr eh; gelf_getehdr(e, &eh);
	Elf_Scn *s = NULL; GElf_Shdr sh; Elf_Data *d = NULL;
	while ((s = elf_nextscn(e, s))) { gelf_getshdr(s, &sh);
		if (!strcmp(elf_strptr(e, shstrndx, sh.sh_name), ".eh_frame")) { d = elf_getdata(s, NULL); break; } }
	u8 abi = eh.e_machine == EM_X86_64 ? 3 : 2;
	long sz = 0;
	void *out;
	struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		sz = sframe_eh_convert(d->d_buf, d->d_size, sh.sh_addr, abi, malloc, 16U << 20,
				       &out, NULL);
		if (sz > 0)
			free(out);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: .eh_frame %zu bytes -> %ld bytes, %.0f us per conversion\n", argv[1], d->d_size, sz,
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n);
	return 0;
}
