// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-map DIR N: write N files built to cost the kernel memory into
 * DIR, map each of them executable and keep them all mapped, then print
 * what the kernel's unwind tables grew by while they were, and the
 * longest mmap():
 *
 *   hostile-map: N files, peak K kB, max mmap T ms
 *
 * Each file is a minimal ELF shared object of this architecture: one
 * executable page of code and a PT_GNU_SFRAME of 16 MiB (the kernel's
 * limit) whose header describes one function of one FRE, 23 bytes, the
 * rest a hole: a sparse file, 8 KiB of disk.  A kernel that copies the
 * section whole pins 16 MiB per file; one that refuses sections with
 * bytes their entries do not account for pins nothing.
 *
 * Run it under wantstacks (run-tests.sh's hostile-sparse-sframe): tables
 * are only made while something wants user stacks.  "peak" is the growth
 * of "bytes" in /sys/kernel/debug/sframe_tables (the tables of every
 * file, in use or idle).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define PAGE		4096
#define SECTION		(16UL << 20)
#define SFRAME_VADDR	0x1000

#ifdef __aarch64__
#define MACHINE		EM_AARCH64
#define ABI		2	/* SFRAME_ABI_AARCH64_ENDIAN_LITTLE */
#define FIXED_RA	0
#else
#define MACHINE		EM_X86_64
#define ABI		3	/* SFRAME_ABI_AMD64_ENDIAN_LITTLE */
#define FIXED_RA	(-8)
#endif

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static int write_file(const char *path)
{
	unsigned char buf[2 * PAGE] = { 0 };
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	unsigned char *s = buf + PAGE, *fde = s + 28, *fre = fde + 20;
	int fd, ret = 0;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = MACHINE;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;

	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_filesz = ph[0].p_memsz = PAGE;
	ph[0].p_align = PAGE;
	ph[1].p_type = PT_GNU_SFRAME;
	ph[1].p_flags = PF_R;
	ph[1].p_offset = PAGE;
	ph[1].p_vaddr = ph[1].p_paddr = SFRAME_VADDR;
	ph[1].p_filesz = ph[1].p_memsz = SECTION;
	ph[1].p_align = 8;

	/* SFrame v2 header: one FDE, one FRE of 3 bytes. */
	s[0] = 0xe2;
	s[1] = 0xde;			/* magic 0xdee2 */
	s[2] = 2;			/* version */
	s[3] = 1;			/* SFRAME_F_FDE_SORTED */
	s[4] = ABI;
	s[5] = 0;			/* fixed FP offset */
	s[6] = (unsigned char)FIXED_RA;
	s[7] = 0;			/* no auxiliary header */
	put32(s + 8, 1);		/* FDEs */
	put32(s + 12, 1);		/* FREs */
	put32(s + 16, 3);		/* FRE bytes */
	put32(s + 20, 0);		/* FDE offset */
	put32(s + 24, 20);		/* FRE offset */
	put32(fde, (uint32_t)-SFRAME_VADDR);	/* function at 0 */
	put32(fde + 4, 16);		/* its size */
	put32(fde + 8, 0);		/* its FREs' offset */
	put32(fde + 12, 1);		/* one FRE */
	fde[16] = 0;			/* 1-byte FRE starts, PC-increment */
	fre[0] = 0;
	fre[1] = 1 | 1 << 1;		/* CFA = SP + 1-byte offset */
	fre[2] = 8;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    ftruncate(fd, PAGE + SECTION)) {
		perror(path);
		ret = -1;
	}
	close(fd);
	return ret;
}

/* "bytes" of the kernel's account of its unwind tables, or -1. */
static long table_bytes(void)
{
	FILE *f = fopen("/sys/kernel/debug/sframe_tables", "r");
	char key[64];
	long val, ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &val) == 2) {
		if (!strcmp(key, "bytes")) {
			ret = val;
			break;
		}
	}
	fclose(f);
	return ret;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double t0, t, worst = 0;
	long before, peak;
	char path[4096];
	int i, n, fd;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: hostile-map DIR N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/hostile-%d.so", argv[1], i);
		if (write_file(path))
			return 1;
	}
	/* Files older than the coarse clock's tick can be cached. */
	sleep(1);
	before = table_bytes();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/hostile-%d.so", argv[1], i);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		t0 = now_ms();
		if (mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
		    MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		/* The tables are made on the way back to user space. */
		getppid();
		t = now_ms() - t0;
		if (t > worst)
			worst = t;
		close(fd);
	}
	peak = table_bytes();
	if (before < 0 || peak < 0) {
		fprintf(stderr, "hostile-map: no /sys/kernel/debug/sframe_tables\n");
		return 1;
	}
	printf("hostile-map: %d files, peak %ld kB, max mmap %.1f ms\n", n,
	       (peak - before) / 1024, worst);
	return 0;
}
