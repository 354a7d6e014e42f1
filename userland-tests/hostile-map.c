// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-map [-d|-m|-s|-k] [-0] [-c CGROUP] [-u UID] DIR N: write N files built to
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
 * -m: a mix: odd files are CIE-cycling files (below), every 256th file
 * is dense, the others sparse.
 *
 * A CIE-cycling file has no .sframe but a 64 KiB .eh_frame (found through
 * PT_GNU_EH_FRAME) of five 512-byte CIEs, mostly initial instructions,
 * then 3,704 minimal FDEs of 16-byte functions of a 64 KiB code hole,
 * that cycle through them: the worst .eh_frame to translate per byte,
 * short of malformed, for a kernel that caches fewer than five parsed
 * CIEs.  This one parses each CIE once and translates every FDE
 * (patch 0033; before it, a budget for parsing CIEs again ran out and
 * most FDEs were dropped: smaller tables, 810 kB for 128 files against
 * 5,793 kB).
 *
 * -s: one sparse file instead, mapped N times, one mapping after another:
 * each makes the kernel replace the process's table of mappings with a
 * copy one entry longer.  Prints what that table grew by:
 *
 *   hostile-map: N mappings, table K kB, max mmap T ms
 *
 * The old copies are freed after a grace period; a kernel that batches
 * them for seconds (kvfree_rcu() in 6.1) keeps megabytes of them charged
 * to the caller's memory cgroup (run-tests.sh's mm-table-copies).
 *
 * -k: sparse files whose identities fall in one chain of the kernel's
 * cache of tables as it was before patch 0036 (hash_long(ino ^ dev, 8),
 * unkeyed, over 256 chains): each file is created empty and kept if its
 * inode number lands in the chain of the first one; the others are put
 * aside until all are found (a file system may reuse a freed inode
 * number), then removed.  Prints how many were created:
 *
 *   hostile-map: N files in one chain of the old hash, C created
 *
 * before the usual line (run-tests.sh's cache-chains).
 *
 * -0: after the first half of the mappings, set kernel.sframe_unwind to 0
 * (as root): the next mapping drops the process's table, which the
 * kernel frees at once, under mmap_lock (run-tests.sh's mm-table-off);
 * the old value is restored at the end.
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
#define DW_SP		31
#define DW_RA		30
#define CFA_AT_ENTRY	0	/* CFA = SP, RA in LR */
#else
#define MACHINE		EM_X86_64
#define ABI		3	/* SFRAME_ABI_AMD64_ENDIAN_LITTLE */
#define FIXED_RA	(-8)
#define DW_SP		7
#define DW_RA		16
#define CFA_AT_ENTRY	8	/* CFA = SP + 8, RA at CFA - 8 */
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

/*
 * The ELF header and its two program headers: an executable PT_LOAD of
 * @text bytes from 0, and the section of @type at @sec, @sec_size bytes.
 */
static void elf_header_of(unsigned char *buf, unsigned long text,
			  uint32_t type, unsigned long sec,
			  unsigned long sec_size)
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
	ph[1].p_type = type;
	ph[1].p_flags = PF_R;
	ph[1].p_offset = sec;
	ph[1].p_vaddr = ph[1].p_paddr = sec;
	ph[1].p_filesz = ph[1].p_memsz = sec_size;
	ph[1].p_align = 8;
}

static void elf_header(unsigned char *buf, unsigned long text,
		       unsigned long sframe, unsigned long sframe_size)
{
	elf_header_of(buf, text, PT_GNU_SFRAME, sframe, sframe_size);
}

/*
 * Write a file of @size bytes to @path: @head at its start, @tail (if
 * any) at its end, a hole between them.
 */
static int write_image(const char *path, const void *head, size_t hlen,
		       const void *tail, size_t tlen, off_t size)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	if (write(fd, head, hlen) != (ssize_t)hlen ||
	    (tlen && pwrite(fd, tail, tlen, size - tlen) != (ssize_t)tlen) ||
	    ftruncate(fd, size)) {
		perror(path);
		ret = -1;
	}
	close(fd);
	return ret;
}

/* A dense file: DENSE_FUNCS functions, each described. */
static int write_dense(const char *path)
{
	size_t size = 28 + 23UL * DENSE_FUNCS;
	unsigned char *s = calloc(1, size), head[PAGE] = { 0 };
	uint32_t i;
	int ret;

	if (!s)
		return -1;
	elf_header(head, DENSE_TEXT, DENSE_TEXT, size);
	sframe_header(s, DENSE_FUNCS);
	for (i = 0; i < DENSE_FUNCS; i++)
		sframe_entry(s, DENSE_FUNCS, i, (int32_t)(16 * i - DENSE_TEXT));
	ret = write_image(path, head, sizeof(head), s, size, DENSE_TEXT + size);
	free(s);
	return ret;
}

#define EH_HDR		0x100		/* .eh_frame_hdr */
#define EH_FRAME	PAGE		/* .eh_frame, EH_SIZE bytes */
#define EH_SIZE		(64UL << 10)
#define EH_TEXT		(EH_FRAME + EH_SIZE)	/* the code, a hole */
#define EH_CIE_SIZE	512
#define EH_FDE_SIZE	17

/* A CIE at @p of EH_CIE_SIZE bytes: "zR", pcrel|sdata4, nop padding. */
static void eh_cie(unsigned char *p)
{
	unsigned char *q = p + 8;

	put32(p, EH_CIE_SIZE - 4);	/* length */
	put32(p + 4, 0);		/* CIE id */
	*q++ = 1;			/* version */
	*q++ = 'z';
	*q++ = 'R';
	*q++ = 0;
	*q++ = 1;			/* code alignment */
	*q++ = 0x78;			/* data alignment -8 */
	*q++ = DW_RA;
	*q++ = 1;			/* augmentation data length */
	*q++ = 0x1b;			/* FDE pointers pcrel | sdata4 */
	*q++ = 0x0c;			/* DW_CFA_def_cfa SP, CFA_AT_ENTRY */
	*q++ = DW_SP;
	*q++ = CFA_AT_ENTRY;
	if (CFA_AT_ENTRY) {
		*q++ = 0x80 | DW_RA;	/* DW_CFA_offset RA, 1 * -8 */
		*q++ = 1;
	}
	/* the rest: DW_CFA_nop, 0 */
}

/* A CIE-cycling file. */
static int write_cie_cycle(const char *path)
{
	unsigned char *buf = calloc(1, EH_TEXT);
	unsigned long at = EH_FRAME, pc = EH_TEXT;
	unsigned int i;
	int ret;

	if (!buf)
		return -1;
	elf_header_of(buf, EH_TEXT + EH_SIZE, PT_GNU_EH_FRAME, EH_HDR, 8);
	buf[EH_HDR] = 1;		/* version */
	buf[EH_HDR + 1] = 0x1b;		/* eh_frame_ptr: pcrel | sdata4 */
	buf[EH_HDR + 2] = 0xff;		/* no FDE count */
	buf[EH_HDR + 3] = 0xff;		/* no table */
	put32(buf + EH_HDR + 4, EH_FRAME - (EH_HDR + 4));
	for (i = 0; i < 5; i++, at += EH_CIE_SIZE)
		eh_cie(buf + at);
	/* Leave room for the terminator, 4 bytes of zero. */
	for (i = 0; at + EH_FDE_SIZE + 4 <= EH_FRAME + EH_SIZE; i++) {
		put32(buf + at, EH_FDE_SIZE - 4);
		/* back to CIE i % 5 */
		put32(buf + at + 4, at + 4 - (EH_FRAME + EH_CIE_SIZE * (i % 5)));
		put32(buf + at + 8, pc - (at + 8));	/* pcrel */
		put32(buf + at + 12, 16);
		/* augmentation data length 0 */
		at += EH_FDE_SIZE;
		pc += 16;
	}
	ret = write_image(path, buf, EH_TEXT, NULL, 0, EH_TEXT + EH_SIZE);
	free(buf);
	return ret;
}

static int write_file(const char *path)
{
	unsigned char buf[2 * PAGE] = { 0 };

	elf_header(buf, PAGE, PAGE, SECTION);
	/* The section's vaddr is PAGE: one function at 0, one FRE. */
	sframe_header(buf + PAGE, 1);
	sframe_entry(buf + PAGE, 1, 0, -PAGE);
	return write_image(path, buf, sizeof(buf), NULL, 0, PAGE + SECTION);
}

/*
 * The field @name ("bytes", "mm_bytes") of the kernel's account of its
 * unwind tables, read afresh from @fd (opened before -u drops the
 * privileges that debugfs asks for), or -1.
 */
static long table_stat(int fd, const char *name)
{
	size_t n = strlen(name);
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
		if (!strncmp(p, name, n) && p[n] == ' ')
			return atol(p + n + 1);
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

/*
 * The chain of the file @path in the kernel's cache of tables before
 * patch 0036: hash_long(ino ^ dev, 8) of its kernel dev_t, or -1.
 */
static int old_chain(const char *path)
{
	struct stat st;
	uint64_t dev;

	if (stat(path, &st)) {
		perror(path);
		return -1;
	}
	dev = (uint64_t)major(st.st_dev) << 20 | minor(st.st_dev);
	return (int)(((uint64_t)st.st_ino ^ dev) * 0x61c8864680b583ebULL >> 56);
}

/*
 * Create @path, empty, until it falls in the chain *@chain (the first
 * file's, if -1); count the files created in *@created.  The others are
 * kept as @dir/spare-K until the end (remove_spares()): a file system
 * may give a freed inode number to the next file.
 */
static int create_colliding(const char *dir, const char *path, int *chain,
			    long *created)
{
	char spare[4096];
	int fd, c;

	for (;;) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
		if (fd < 0) {
			perror(path);
			return -1;
		}
		close(fd);
		c = old_chain(path);
		if (c < 0)
			return -1;
		if (*chain < 0)
			*chain = c;
		if (c == *chain) {
			++*created;
			return 0;
		}
		snprintf(spare, sizeof(spare), "%s/spare-%ld", dir, ++*created);
		if (rename(path, spare)) {
			perror(spare);
			return -1;
		}
	}
}

static void remove_spares(const char *dir, long created)
{
	char spare[4096];
	long k;

	for (k = 1; k <= created; k++) {
		snprintf(spare, sizeof(spare), "%s/spare-%ld", dir, k);
		unlink(spare);
	}
}

/* Set kernel.sframe_unwind to @val; keep the old value in @old. */
static int set_level(const char *val, char *old, size_t size)
{
	const char *path = "/proc/sys/kernel/sframe_unwind";
	FILE *f;

	if (old) {
		f = fopen(path, "r");
		if (!f || !fgets(old, size, f)) {
			perror(path);
			return -1;
		}
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f || fputs(val, f) < 0 || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cgroup = NULL;
	int uid = -1, tables, ret;
	double t0, t, worst = 0;
	long before, peak;
	char path[4096];
	int i, n, fd, opt, dense = 0, mix = 0, same = 0, off = 0;
	int collide = 0, chain = -1;
	long created = 0;
	const char *field;
	char level[16] = "";

	while ((opt = getopt(argc, argv, "dmsk0c:u:")) != -1) {
		if (opt == 'd') {
			dense = 1;
		} else if (opt == 'm') {
			mix = 1;
		} else if (opt == 's') {
			same = 1;
		} else if (opt == 'k') {
			collide = 1;
		} else if (opt == '0') {
			off = 1;
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
		fprintf(stderr, "usage: hostile-map [-d|-m|-s|-k] [-0] [-c CGROUP] [-u UID] DIR N\n");
		return 2;
	}
	for (i = 0; i < (same ? 1 : n); i++) {
		snprintf(path, sizeof(path), "%s/hostile-%d.so", argv[optind], i);
		if (collide &&
		    create_colliding(argv[optind], path, &chain, &created))
			return 1;
		if (dense || (mix && i % 256 == 255))
			ret = write_dense(path);
		else if (mix && i % 2)
			ret = write_cie_cycle(path);
		else
			ret = write_file(path);
		if (ret)
			return 1;
	}
	if (collide) {
		remove_spares(argv[optind], created);
		printf("hostile-map: %d files in one chain of the old hash, %ld created\n",
		       n, created);
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
	field = same ? "mm_bytes" : "bytes";
	before = table_stat(tables, field);
	for (i = 0; i < n; i++) {
		if (off && i == n / 2 && set_level("0", level, sizeof(level)))
			return 1;
		snprintf(path, sizeof(path), "%s/hostile-%d.so", argv[optind],
			 same ? 0 : i);
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
	peak = table_stat(tables, field);
	if (off && set_level(level, NULL, 0))
		return 1;
	if (before < 0 || peak < 0) {
		fprintf(stderr, "hostile-map: no /sys/kernel/debug/sframe_tables\n");
		return 1;
	}
	if (same) {
		printf("hostile-map: %d mappings, table %ld kB, max mmap %.1f ms\n",
		       n, (peak - before) / 1024, worst);
		return 0;
	}
	printf("hostile-map: %d files, peak %ld kB, max mmap %.1f ms\n", n,
	       (peak - before) / 1024, worst);
	return 0;
}
