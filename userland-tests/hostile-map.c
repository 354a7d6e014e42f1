// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-map [-d] [-c CGROUP] [-u UID] DIR N: write N files built to
 * cost the kernel memory into DIR, map each of them executable and keep
 * them all mapped, then print what the kernel's unwind tables grew by
 * while they were, and the longest mmap():
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
 * -d: dense files instead, whose tables are as large as honest ones can
 * be for their size: 1 MiB of executable segment (a hole) with one
 * 16-byte function after another, 65,536 of them, and a .sframe that
 * describes each, about 1.5 MiB, all of it entries.  The kernel keeps
 * them: they cost what the file really holds.
 *
 * -c CGROUP: once the files are written (their page cache is charged to
 * the cgroup of the caller), move into the cgroup v2 directory CGROUP,
 * so that the tables made for the mappings are charged to it.
 *
 * -u UID: then map the files as user (and group) UID, unprivileged.
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

/* SFrame v2 header of @fdes FDEs of one 3-byte FRE each. */
static void sframe_header(unsigned char *s, uint32_t fdes)
{
	s[0] = 0xe2;
	s[1] = 0xde;			/* magic 0xdee2 */
	s[2] = 2;			/* version */
	s[3] = 1;			/* SFRAME_F_FDE_SORTED */
	s[4] = ABI;
	s[5] = 0;			/* fixed FP offset */
	s[6] = (unsigned char)FIXED_RA;
	s[7] = 0;			/* no auxiliary header */
	put32(s + 8, fdes);		/* FDEs */
	put32(s + 12, fdes);		/* FREs */
	put32(s + 16, 3 * fdes);	/* FRE bytes */
	put32(s + 20, 0);		/* FDE offset */
	put32(s + 24, 20 * fdes);	/* FRE offset */
}

/* FDE @i of @fdes: the function at @func (from the section), FRE @i. */
static void sframe_entry(unsigned char *s, uint32_t fdes, uint32_t i,
			 int32_t func)
{
	unsigned char *fde = s + 28 + 20 * i;
	unsigned char *fre = s + 28 + 20 * fdes + 3 * i;

	put32(fde, (uint32_t)func);
	put32(fde + 4, 16);		/* its size */
	put32(fde + 8, 3 * i);		/* its FRE's offset */
	put32(fde + 12, 1);		/* one FRE */
	fde[16] = 0;			/* 1-byte FRE starts, PC-increment */
	fre[0] = 0;
	fre[1] = 1 | 1 << 1;		/* CFA = SP + 1-byte offset */
	fre[2] = 8;
}

#define DENSE_FUNCS	65536
#define DENSE_TEXT	(16UL * DENSE_FUNCS)

/* The ELF header and its two program headers. */
static void elf_header(unsigned char *buf, unsigned long text,
		       unsigned long sframe, unsigned long sframe_size)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));

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
	ph[0].p_filesz = ph[0].p_memsz = text;
	ph[0].p_align = PAGE;
	ph[1].p_type = PT_GNU_SFRAME;
	ph[1].p_flags = PF_R;
	ph[1].p_offset = sframe;
	ph[1].p_vaddr = ph[1].p_paddr = sframe;
	ph[1].p_filesz = ph[1].p_memsz = sframe_size;
	ph[1].p_align = 8;
}

/* A dense file: DENSE_FUNCS functions, each described. */
static int write_dense(const char *path)
{
	size_t size = 28 + 23UL * DENSE_FUNCS;
	unsigned char *s = calloc(1, size), head[PAGE] = { 0 };
	uint32_t i;
	int fd, ret = 0;

	if (!s)
		return -1;
	elf_header(head, DENSE_TEXT, DENSE_TEXT, size);
	sframe_header(s, DENSE_FUNCS);
	for (i = 0; i < DENSE_FUNCS; i++)
		sframe_entry(s, DENSE_FUNCS, i, (int32_t)(16 * i - DENSE_TEXT));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0) {
		perror(path);
		free(s);
		return -1;
	}
	if (write(fd, head, sizeof(head)) != sizeof(head) ||
	    pwrite(fd, s, size, DENSE_TEXT) != (ssize_t)size) {
		perror(path);
		ret = -1;
	}
	close(fd);
	free(s);
	return ret;
}

static int write_file(const char *path)
{
	unsigned char buf[2 * PAGE] = { 0 };
	int fd, ret = 0;

	elf_header(buf, PAGE, PAGE, SECTION);
	/* The section's vaddr is PAGE: one function at 0, one FRE. */
	sframe_header(buf + PAGE, 1);
	sframe_entry(buf + PAGE, 1, 0, -PAGE);

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

/*
 * "bytes" of the kernel's account of its unwind tables, read afresh from
 * @fd (opened before -u drops the privileges that debugfs asks for), or
 * -1.
 */
static long table_bytes(int fd)
{
	char buf[4096], *p;
	ssize_t len;

	if (fd < 0)
		return -1;
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, "bytes ", 6))
			return atol(p + 6);
	}
	return -1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Move into the cgroup v2 directory @dir. */
static int join_cgroup(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cgroup = NULL;
	int uid = -1, tables;
	double t0, t, worst = 0;
	long before, peak;
	char path[4096];
	int i, n, fd, opt, dense = 0;

	while ((opt = getopt(argc, argv, "dc:u:")) != -1) {
		if (opt == 'd') {
			dense = 1;
		} else if (opt == 'c') {
			cgroup = optarg;
		} else if (opt == 'u') {
			uid = atoi(optarg);
		} else {
			n = -1;
			break;
		}
	}
	if (opt != -1 || argc - optind != 2 ||
	    (n = atoi(argv[optind + 1])) <= 0) {
		fprintf(stderr, "usage: hostile-map [-d] [-c CGROUP] [-u UID] DIR N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/hostile-%d.so", argv[optind], i);
		if (dense ? write_dense(path) : write_file(path))
			return 1;
	}
	/* Files older than the coarse clock's tick can be cached. */
	sleep(1);
	if (cgroup && join_cgroup(cgroup))
		return 1;
	tables = open("/sys/kernel/debug/sframe_tables", O_RDONLY);
	if (uid >= 0 && (setgid(uid) || setuid(uid))) {
		perror("setuid");
		return 1;
	}
	before = table_bytes(tables);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/hostile-%d.so", argv[optind], i);
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
	peak = table_bytes(tables);
	if (before < 0 || peak < 0) {
		fprintf(stderr, "hostile-map: no /sys/kernel/debug/sframe_tables\n");
		return 1;
	}
	printf("hostile-map: %d files, peak %ld kB, max mmap %.1f ms\n", n,
	       (peak - before) / 1024, worst);
	return 0;
}
