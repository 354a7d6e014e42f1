// SPDX-License-Identifier: GPL-2.0
/*
 * ustacks: user stacks as the kernel's consumers other than perf's
 * sampling events take them, printed like `perf script -F
 * comm,tid,ip,sym,dso` so that chaincheck.awk checks them.
 *
 *   ustacks -m stackid|stack|ftrace [-F HZ] [-e EVENT] PROG ARGS...
 *   ustacks -M MAPS < ADDRESSES
 *
 * -m stackid  a BPF program on a cpu-clock perf event of PROG (as eBPF
 *             profilers: bpftrace's ustack, BCC's profile, Parca) counts
 *             bpf_get_stackid(BPF_F_USER_STACK) in a stack map
 * -m stack    the same with bpf_get_stack(BPF_F_USER_STACK) into an array
 * -m ftrace   ftrace's options/userstacktrace on the tracepoint EVENT
 *             (default syscalls/sys_enter_write) of PROG's process; the
 *             trace holds at most 8 entries per stack
 * -M MAPS     print the frames of the hexadecimal addresses on standard
 *             input with the mappings of MAPS, a copy of /proc/PID/maps
 *             (a check of the symbol lookup, which needs no BPF)
 *
 * The BPF programs are a few instructions written out here and loaded
 * with the bpf() system call (no libbpf: Debian has no arm64 libbpf for a
 * cross build, and the guest has no compiler).  Symbols come from the ELF
 * files of PROG's mappings (.symtab, .dynsym, or the /usr/lib/debug/.build-id
 * file), read from the last copy of /proc/PID/maps taken while PROG ran.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH	127
#define NSTACKS		4096	/* stack map entries, -m stackid */
#define NSAMPLES	8192	/* samples kept, -m stack */

static void die(const char *what)
{
	fprintf(stderr, "ustacks: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(int type, int key, int value, int entries)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0)
		die("BPF_MAP_CREATE");
	return fd;
}

static int map_lookup(int fd, const void *key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(uintptr_t)key;
	a.value = (uint64_t)(uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

/* ---- instructions ---------------------------------------------------- */

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define MOV64_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)	INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LD_MAP(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), \
			INSN(0, 0, 0, 0, 0)
#define CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define STX_W(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define STX_DW(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_W(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define ATOMIC_ADD(d, s, o, fetch) \
	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD | (fetch))
#define JSLT_IMM(d, i, o) INSN(BPF_JMP | BPF_JSLT | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JGE_IMM(d, i, o) INSN(BPF_JMP | BPF_JGE | BPF_K, d, 0, o, i)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static int prog_load(const struct bpf_insn *insns, int n)
{
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uint64_t)(uintptr_t)"GPL";
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(stderr, "%s", log);
		die("BPF_PROG_LOAD");
	}
	return fd;
}

/* counts[bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK)]++ */
static int load_stackid(int stacks, int counts)
{
	struct bpf_insn p[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),
		LD_MAP(BPF_REG_2, stacks),
		MOV64_REG(BPF_REG_1, BPF_REG_6),
		MOV64_IMM(BPF_REG_3, BPF_F_USER_STACK),
		CALL(BPF_FUNC_get_stackid),
		JSLT_IMM(BPF_REG_0, 0, 9),
		STX_W(BPF_REG_10, BPF_REG_0, -4),
		LD_MAP(BPF_REG_1, counts),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 2),
		MOV64_IMM(BPF_REG_1, 1),
		ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 0, 0),
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	return prog_load(p, sizeof(p) / sizeof(p[0]));
}

/*
 * i = counter[0]++; if (i < NSAMPLES)
 *	samples[i] = { bpf_get_stack(ctx, &samples[i].ips, ..., USER) , ips }
 */
static int load_stack(int counter, int samples)
{
	struct bpf_insn p[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),
		ST_W(BPF_REG_10, -4, 0),
		LD_MAP(BPF_REG_1, counter),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 18),
		MOV64_IMM(BPF_REG_1, 1),
		ATOMIC_ADD(BPF_REG_0, BPF_REG_1, 0, BPF_FETCH),
		JGE_IMM(BPF_REG_1, NSAMPLES, 15),
		STX_W(BPF_REG_10, BPF_REG_1, -8),
		LD_MAP(BPF_REG_1, samples),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -8),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 8),
		MOV64_REG(BPF_REG_7, BPF_REG_0),
		MOV64_REG(BPF_REG_1, BPF_REG_6),
		MOV64_REG(BPF_REG_2, BPF_REG_7),
		ADD64_IMM(BPF_REG_2, 8),
		MOV64_IMM(BPF_REG_3, MAX_DEPTH * 8),
		MOV64_IMM(BPF_REG_4, BPF_F_USER_STACK),
		CALL(BPF_FUNC_get_stack),
		STX_DW(BPF_REG_7, BPF_REG_0, 0),
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};

	return prog_load(p, sizeof(p) / sizeof(p[0]));
}

/* ---- symbols --------------------------------------------------------- */

struct elf {
	char path[256];
	const unsigned char *data;
	size_t size;
	const Elf64_Ehdr *eh;
	struct elf *debug;	/* the .build-id debug file, if any */
};

static struct elf elves[64];
static int nelves;

static int elf_open(struct elf *e, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	snprintf(e->path, sizeof(e->path), "%s", path);
	e->data = NULL;
	e->debug = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	e->size = st.st_size;
	e->data = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e->data == MAP_FAILED) {
		e->data = NULL;
		return -1;
	}
	e->eh = (const Elf64_Ehdr *)e->data;
	if (memcmp(e->eh->e_ident, ELFMAG, SELFMAG) ||
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh->e_shoff + (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr) > e->size ||
	    e->eh->e_phoff + (uint64_t)e->eh->e_phnum * sizeof(Elf64_Phdr) > e->size) {
		munmap((void *)e->data, e->size);
		e->data = NULL;
		return -1;
	}
	return 0;
}

static const Elf64_Shdr *shdr(const struct elf *e, int i)
{
	return (const Elf64_Shdr *)(e->data + e->eh->e_shoff) + i;
}

/* the debug file named by the NT_GNU_BUILD_ID note */
static struct elf *elf_debug(const struct elf *e)
{
	static struct elf dbg[64];
	static int ndbg;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->data + e->eh->e_phoff);
	char path[512];
	int i, n;

	for (i = 0; i < e->eh->e_phnum; i++) {
		const unsigned char *p, *end;

		if (ph[i].p_type != PT_NOTE || ph[i].p_offset + ph[i].p_filesz > e->size)
			continue;
		p = e->data + ph[i].p_offset;
		end = p + ph[i].p_filesz;
		while (p + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
			const unsigned char *desc = p + sizeof(*nh) +
						    ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_descsz > 1 &&
			    ndbg < 64) {
				n = snprintf(path, sizeof(path),
					     "/usr/lib/debug/.build-id/%02x/", desc[0]);
				for (unsigned int j = 1; j < nh->n_descsz; j++)
					n += snprintf(path + n, sizeof(path) - n,
						      "%02x", desc[j]);
				snprintf(path + n, sizeof(path) - n, ".debug");
				if (elf_open(&dbg[ndbg], path) == 0)
					return &dbg[ndbg++];
				return NULL;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return NULL;
}

static struct elf *elf_get(const char *path)
{
	struct elf *e;
	int i;

	for (i = 0; i < nelves; i++)
		if (!strcmp(elves[i].path, path))
			return elves[i].data ? &elves[i] : NULL;
	if (nelves == 64)
		return NULL;
	e = &elves[nelves++];
	if (elf_open(e, path))
		return NULL;
	e->debug = elf_debug(e);
	return e;
}

/* leading underscores of @name */
static int underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/*
 * Is @a a better name than @b for the same code?  perf's rule for aliases
 * (tools/perf/util/symbol.c, choose_best_symbol()): not weak, global,
 * fewer leading underscores, the longer name.
 */
static int better(const Elf64_Sym *a, const char *an, const Elf64_Sym *b,
		  const char *bn)
{
	int wa = ELF64_ST_BIND(a->st_info) == STB_WEAK;
	int wb = ELF64_ST_BIND(b->st_info) == STB_WEAK;
	int ga = ELF64_ST_BIND(a->st_info) == STB_GLOBAL;
	int gb = ELF64_ST_BIND(b->st_info) == STB_GLOBAL;

	if (wa != wb)
		return wb;
	if (ga != gb)
		return ga;
	if (underscores(an) != underscores(bn))
		return underscores(an) < underscores(bn);
	return strlen(an) > strlen(bn);
}

/*
 * The best name, among the functions of @e's symbol tables that hold
 * link-time address @va, into *@best / *@bestn.
 */
static void elf_sym(const struct elf *e, uint64_t va, const Elf64_Sym **best,
		    const char **bestn)
{
	int i;

	for (i = 0; i < e->eh->e_shnum; i++) {
		const Elf64_Shdr *s = shdr(e, i), *str;
		const Elf64_Sym *sym;
		size_t j, n;

		if ((s->sh_type != SHT_SYMTAB && s->sh_type != SHT_DYNSYM) ||
		    s->sh_link >= e->eh->e_shnum ||
		    s->sh_offset + s->sh_size > e->size)
			continue;
		str = shdr(e, s->sh_link);
		if (str->sh_offset + str->sh_size > e->size)
			continue;
		sym = (const Elf64_Sym *)(e->data + s->sh_offset);
		n = s->sh_size / sizeof(*sym);
		for (j = 0; j < n; j++) {
			const char *name;

			if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
			    sym[j].st_shndx == SHN_UNDEF ||
			    va < sym[j].st_value ||
			    va >= sym[j].st_value + sym[j].st_size ||
			    sym[j].st_name >= str->sh_size)
				continue;
			name = (const char *)e->data + str->sh_offset +
			       sym[j].st_name;
			if (!*best || better(&sym[j], name, *best, *bestn)) {
				*best = &sym[j];
				*bestn = name;
			}
		}
	}
}

static char maps[1 << 16];

struct mapping {
	unsigned long start, end, off;
	const char *path;	/* NULL: not a file */
};

static struct mapping *mappings;
static int nmappings = -1;

/* parse maps[] once (it no longer changes when stacks are printed) */
static void parse_maps(void)
{
	char *line, *save;
	int cap = 0;

	nmappings = 0;
	for (line = strtok_r(maps, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct mapping m;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &m.start, &m.end,
			   perms, &m.off, &pos) < 4)
			continue;
		m.path = pos && line[pos] == '/' ? line + pos : NULL;
		if (nmappings == cap) {
			cap = cap ? cap * 2 : 64;
			mappings = realloc(mappings, cap * sizeof(*mappings));
			if (!mappings)
				die("realloc");
		}
		mappings[nmappings++] = m;
	}
}

/* the symbol and file of @ip, with the mappings in maps[] */
static void lookup(uint64_t ip, const char **symp, const char **pathp)
{
	const char *sym = NULL, *path = "[unknown]";
	int k;

	if (nmappings < 0)
		parse_maps();
	for (k = 0; k < nmappings; k++) {
		const struct mapping *m = &mappings[k];
		const Elf64_Phdr *ph;
		struct elf *e;
		uint64_t fo;
		int i;

		if (ip < m->start || ip >= m->end)
			continue;
		if (!m->path)
			break;
		path = m->path;
		e = elf_get(path);
		if (!e)
			break;
		fo = ip - m->start + m->off;
		ph = (const Elf64_Phdr *)(e->data + e->eh->e_phoff);
		for (i = 0; i < e->eh->e_phnum; i++)
			if (ph[i].p_type == PT_LOAD && fo >= ph[i].p_offset &&
			    fo < ph[i].p_offset + ph[i].p_filesz) {
				uint64_t va = fo - ph[i].p_offset + ph[i].p_vaddr;
				const Elf64_Sym *best = NULL;

				elf_sym(e, va, &best, &sym);
				if (e->debug)
					elf_sym(e->debug, va, &best, &sym);
				break;
			}
		break;
	}
	*symp = sym ? sym : "[unknown]";
	*pathp = path;
}

/* print "ip sym (dso)" for @ip; a direct-mapped cache of lookups */
static void print_frame(uint64_t ip)
{
	static struct { uint64_t ip; const char *sym, *path; } cache[4096];
	unsigned int h = (ip ^ (ip >> 12)) % 4096;

	if (cache[h].ip != ip || !cache[h].sym) {
		cache[h].ip = ip;
		lookup(ip, &cache[h].sym, &cache[h].path);
	}
	printf("\t%16llx %s (%s)\n", (unsigned long long)ip, cache[h].sym,
	       cache[h].path);
}

static void print_stack(const char *comm, int pid, const uint64_t *ips, int n)
{
	int i;

	printf("%s %d\n", comm, pid);
	for (i = 0; i < n && ips[i]; i++)
		print_frame(ips[i]);
	printf("\n");
}

/* ---- ftrace ------------------------------------------------------- */

#define TRACEFS "/sys/kernel/tracing/"

/* write @val to the tracefs file @name; returns 0 or -1 */
static int tfs_write(const char *name, const char *val)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), TRACEFS "%s", name);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static char ftrace_event[128] = "syscalls/sys_enter_write";

static void ftrace_setup(pid_t pid)
{
	char buf[64], name[192];

	snprintf(name, sizeof(name), "events/%s/enable", ftrace_event);
	snprintf(buf, sizeof(buf), "%d", pid);
	if (tfs_write("tracing_on", "0") || tfs_write("trace", "") ||
	    tfs_write("set_event", "") || tfs_write("set_event_pid", buf) ||
	    tfs_write("options/sym-userobj", "0") ||
	    tfs_write("options/userstacktrace", "1") ||
	    tfs_write(name, "1") || tfs_write("tracing_on", "1"))
		die("setting up " TRACEFS);
}

static void ftrace_stop(void)
{
	tfs_write("tracing_on", "0");
	tfs_write("set_event", "");
	tfs_write("set_event_pid", "");
	tfs_write("options/userstacktrace", "0");
}

/*
 * Print the user stacks of the trace: each "<user stack trace>" line is
 * followed by lines " =>  <%016lx>", leaf first.
 */
static int ftrace_print(const char *comm, pid_t pid)
{
	static uint64_t ips[MAX_DEPTH];
	char line[512];
	int n = -1, stacks = 0;
	FILE *f = fopen(TRACEFS "trace", "r");

	if (!f)
		die(TRACEFS "trace");
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "=> ");

		if (strstr(line, "<user stack trace>")) {
			if (n > 0)
				print_stack(comm, pid, ips, n);
			n = 0;
			stacks++;
			continue;
		}
		if (n >= 0 && p && strchr(p, '<')) {
			if (n < MAX_DEPTH)
				ips[n++] = strtoull(strchr(p, '<') + 1, NULL, 16);
			continue;
		}
		if (n > 0)
			print_stack(comm, pid, ips, n);
		n = -1;
	}
	if (n > 0)
		print_stack(comm, pid, ips, n);
	fclose(f);
	return stacks;
}

/* ---- main ------------------------------------------------------------- */

enum mode { STACKID, STACK, FTRACE };

int main(int argc, char **argv)
{
	int hz = 1000, opt, pipefd[2], ev = -1, prog = -1, status;
	int stacks = -1, counts = -1, counter = -1, samples = -1;
	enum mode mode = STACKID;
	struct perf_event_attr attr;
	const char *comm;
	char c = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+m:F:e:M:")) != -1) {
		switch (opt) {
		case 'M': {
			FILE *f = fopen(optarg, "r");
			unsigned long long ip;
			size_t len;

			if (!f)
				die(optarg);
			len = fread(maps, 1, sizeof(maps) - 1, f);
			maps[len] = 0;
			fclose(f);
			while (scanf("%llx", &ip) == 1)
				print_frame(ip);
			return 0;
		}
		case 'm':
			if (!strcmp(optarg, "stackid"))
				mode = STACKID;
			else if (!strcmp(optarg, "stack"))
				mode = STACK;
			else if (!strcmp(optarg, "ftrace"))
				mode = FTRACE;
			else
				goto usage;
			break;
		case 'F':
			hz = atoi(optarg);
			break;
		case 'e':
			snprintf(ftrace_event, sizeof(ftrace_event), "%s", optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	comm = strrchr(argv[optind], '/');
	comm = comm ? comm + 1 : argv[optind];

	if (mode == STACKID) {
		stacks = map_create(BPF_MAP_TYPE_STACK_TRACE, 4,
				    MAX_DEPTH * 8, NSTACKS);
		counts = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, NSTACKS);
		prog = load_stackid(stacks, counts);
	} else if (mode == STACK) {
		counter = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
		samples = map_create(BPF_MAP_TYPE_ARRAY, 4, 8 + MAX_DEPTH * 8,
				     NSAMPLES);
		prog = load_stack(counter, samples);
	}

	if (pipe(pipefd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &c, 1) != 1 || c != 'g')
			_exit(127);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(pipefd[0]);

	if (mode == FTRACE) {
		ftrace_setup(pid);
	} else {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		attr.freq = 1;
		attr.sample_freq = hz;
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		attr.disabled = 1;
		attr.enable_on_exec = 1;
		attr.inherit = 1;
		ev = syscall(__NR_perf_event_open, &attr, pid, -1, -1, 0);
		if (ev < 0)
			die("perf_event_open");
		if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog))
			die("PERF_EVENT_IOC_SET_BPF");
	}
	c = 'g';
	if (write(pipefd[1], &c, 1) != 1)
		die("write");
	close(pipefd[1]);

	/* the last mappings of the program while it runs */
	for (;;) {
		char path[64];
		ssize_t n;
		int fd;

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			static char tmp[sizeof(maps)];
			size_t len = 0;

			while (len < sizeof(tmp) - 1 &&
			       (n = read(fd, tmp + len, sizeof(tmp) - 1 - len)) > 0)
				len += n;
			close(fd);
			tmp[len] = 0;
			/* before exec, the maps are ustacks' own */
			if (len && strstr(tmp, comm))
				memcpy(maps, tmp, len + 1);
		}
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}

	if (mode == FTRACE) {
		int n;

		tfs_write("tracing_on", "0");
		n = ftrace_print(comm, pid);
		ftrace_stop();
		fprintf(stderr, "ustacks: %d user stacks in the trace\n", n);
	} else if (mode == STACKID) {
		uint64_t ips[MAX_DEPTH], n;
		uint32_t id;

		close(ev);
		for (id = 0; id < NSTACKS; id++) {
			if (map_lookup(counts, &id, &n) || !n)
				continue;
			memset(ips, 0, sizeof(ips));
			if (map_lookup(stacks, &id, ips))
				continue;
			while (n--)
				print_stack(comm, pid, ips, MAX_DEPTH);
		}
	} else {
		static uint64_t s[1 + MAX_DEPTH];
		uint64_t total;
		uint32_t i, zero = 0;

		close(ev);
		if (map_lookup(counter, &zero, &total))
			die("BPF_MAP_LOOKUP_ELEM");
		if (total > NSAMPLES) {
			fprintf(stderr, "ustacks: %llu samples, %d kept\n",
				(unsigned long long)total, NSAMPLES);
			total = NSAMPLES;
		}
		for (i = 0; i < total; i++) {
			if (map_lookup(samples, &i, s) || (int64_t)s[0] <= 0)
				continue;
			print_stack(comm, pid, s + 1, s[0] / 8);
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "ustacks: %s failed\n", argv[optind]);
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: ustacks [-m stackid|stack|ftrace] [-F HZ] [-e EVENT] PROG ARGS...\n"
			"       ustacks -M MAPS < ADDRESSES\n");
	return 2;
}
