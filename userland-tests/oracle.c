// SPDX-License-Identifier: GPL-2.0
/*
 * oracle: check the kernel's user callchain of each sample against an
 * independent unwinder's chain of the same sample.
 *
 *   oracle [-F HZ] [-v N] [-u N] [-n NAME] [-s] [-o FILE] -- PROG ARGS...
 *
 * Runs PROG (and every thread and child it makes) under a cpu-clock:u
 * perf event of its own that asks, in each sample, for the kernel's user
 * callchain (PERF_SAMPLE_CALLCHAIN, exclude_callchain_user = 0) and for
 * the user registers and a copy of the user stack the walk started from
 * (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER, the largest copy a
 * sample can hold).  When PROG has exited, it unwinds each sample's copy
 * with elfutils' libdwfl, which reads the objects' own .eh_frame and
 * .debug_frame (nothing the kernel made), and compares the two chains
 * address by address:
 *
 *   agree        every frame the kernel gave is the frame libdw gives,
 *                and both end at the same frame (or the kernel's chain
 *                is cut at perf_event_max_stack)
 *   differ       a frame differs, the kernel stops where libdw goes on,
 *                or the kernel goes on where libdw says the chain ends
 *   undecidable  libdw stops before the kernel does because the copy of
 *                the stack ends ("copy ends") or for a reason of its own
 *                ("libdw stops")
 *
 * Prints each differing sample (the first N, -v; default 5) and the
 * first N undecidable ones (-u; default 0) with both chains, then one
 * line:
 *
 *   oracle NAME: N samples, A agree, D differ, U undecidable (C copy ends, L libdw stops)
 *
 * and exits 1 when a sample differs or none was taken, 2 on an error.
 * NAME defaults to PROG's base name; -o FILE: PROG's standard output.
 *
 * With -s, also checks each kernel chain on its own, as a profile of an
 * unmodified program should be, and prints
 *
 *   stock NAME: N samples, C complete, W wrong
 *
 * complete: the chain ends at an outermost frame (one whose CFI leaves
 * the return address undefined, as glibc's _start and clone3 do, or
 * named _start, ld.so's _dl_start_user or a thread's clone3 or
 * thread_start), or fills perf_event_max_stack; wrong: it differs from libdw's, or one of its
 * callers is not a return address (the instruction before it is not a
 * call; the signal trampoline, reached by a return the kernel set up,
 * and the interrupted frame after it are exempt).  A chain the kernel
 * ends where libdw goes on is incomplete, not wrong.  It exits 1 then
 * when a sample is wrong or none was taken.
 *
 * Only the part of libdw's chain that it found with call frame
 * information counts: it is cut after the first frame whose address has
 * none libdw can follow (code without CFI, where libdw goes on with
 * frame pointers, or an x86-64 PLT entry, whose CFA is a DWARF
 * expression that libdw 0.188 does not evaluate).  A sample where the
 * kernel's chain matches up to that frame is "libdw stops": libdw cannot
 * say whether the kernel's next frames, or its end there, are right.
 *
 * arm64: where the caller of the sampled function is only in the link
 * register, the kernel leaves it out of a perf event's callchain and
 * perf's tool adds it from the sampled LR; the oracle adds it likewise
 * (and says how often).  Return addresses may carry a pointer
 * authentication code; the kernel strips it, libdw 0.188 does not, so a
 * word read from the copy that is a code address of the process once its
 * PAC bits are cleared is given to libdw without them (likewise LR).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* all but the segment registers a 64-bit sample cannot give */
#define REGS_MASK (((1ULL << PERF_REG_X86_64_MAX) - 1) & \
		   ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) | \
		     (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)))
#define PERF_REG_PC PERF_REG_X86_IP
#define PERF_REG_SP PERF_REG_X86_SP
/* DWARF register n of x86-64 is perf's register dwarf_regs[n] */
static const int dwarf_regs[] = {
	PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
	PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
	PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
	PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
};
#define HAVE_PAC 0
#elif defined(__aarch64__)
#include <asm/perf_regs.h>
#define REGS_MASK ((1ULL << PERF_REG_ARM64_MAX) - 1)
#define PERF_REG_PC PERF_REG_ARM64_PC
#define PERF_REG_SP PERF_REG_ARM64_SP
/* x0-x30 and sp are DWARF registers 0-31, in perf's order */
static const int dwarf_regs[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, PERF_REG_ARM64_SP,
};
#define PERF_REG_LR PERF_REG_ARM64_LR
#define HAVE_PAC 1
#else
#error "oracle: x86_64 or arm64 only"
#endif

#define NR_REGS __builtin_popcountll(REGS_MASK)
#define STACK_COPY 65000		/* the kernel cuts it to what fits */
#define RING_PAGES 4096			/* per CPU: 16 MiB with 4 KiB pages */

struct map {
	uint64_t start, end, pgoff;
	char *file;
	bool reported;
};

struct proc {
	uint32_t pid;
	struct map *maps;
	int nr_maps;
	Dwfl *dwfl;
	bool attached;
	struct proc *next;
};

/* one sample as the kernel gave it, with the used part of the copy */
struct sample {
	uint32_t pid, tid;
	uint64_t nr;
	uint64_t *chain;		/* user frames only, leaf first */
	uint64_t regs[NR_REGS];
	uint64_t dyn_size;
	unsigned char *stack;
};

/* what was recorded, in the order the kernel wrote it */
enum ev_type { EV_SAMPLE, EV_MMAP, EV_FORK, EV_EXEC };
struct event {
	enum ev_type type;
	uint64_t time;
	size_t seq;
	uint32_t pid, ppid;
	struct map map;
	struct sample *s;
};

static struct event *events;
static size_t nr_events, max_events;
static uint64_t lost;
static int max_stack = 127;
static char vdso_file[64];
static const char *child_out;		/* -o: PROG's standard output */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		perror("oracle: malloc");
		exit(2);
	}
	return p;
}

static struct event *new_event(enum ev_type type)
{
	if (nr_events == max_events) {
		max_events = max_events ? 2 * max_events : 4096;
		events = realloc(events, max_events * sizeof(*events));
		if (!events) {
			perror("oracle: realloc");
			exit(2);
		}
	}
	memset(&events[nr_events], 0, sizeof(*events));
	events[nr_events].type = type;
	events[nr_events].seq = nr_events;
	return &events[nr_events++];
}

static uint64_t perf_reg(const uint64_t *regs, int r)
{
	return regs[__builtin_popcountll(REGS_MASK & ((1ULL << r) - 1))];
}

/* ---- recording ---------------------------------------------------------- */

/*
 * One PERF_RECORD_SAMPLE's body [@p, @end).  Every count and size is
 * checked against @end before it is used: a record that does not hold
 * what it says is dropped (and counted with the lost samples).
 */
static void take_sample(const unsigned char *p, const unsigned char *end)
{
	struct sample *s;
	struct event *ev;
	uint64_t nr, i, abi, size, time, n = 0, ip;
	const unsigned char *ips;

	if (end - p < 24)
		goto bad;
	s = xmalloc(sizeof(*s));
	memcpy(&s->pid, p, 4);
	memcpy(&s->tid, p + 4, 4);
	p += 8;
	memcpy(&time, p, 8);
	p += 8;
	memcpy(&nr, p, 8);
	p += 8;
	if (nr > (uint64_t)(end - p) / 8 ||
	    (uint64_t)(end - p) - nr * 8 < 8 + sizeof(s->regs) + 8) {
		free(s);
		goto bad;
	}
	ips = p;
	p += nr * 8;
	s->chain = xmalloc(nr ? nr * 8 : 8);
	for (i = 0; i < nr; i++) {
		memcpy(&ip, ips + i * 8, 8);
		if (ip >= PERF_CONTEXT_MAX)
			continue;	/* PERF_CONTEXT_USER */
		s->chain[n++] = ip;
	}
	s->nr = n;
	memcpy(&abi, p, 8);
	p += 8;
	if (abi == PERF_SAMPLE_REGS_ABI_NONE) {
		free(s->chain);
		free(s);
		return;
	}
	memcpy(s->regs, p, sizeof(s->regs));
	p += sizeof(s->regs);
	memcpy(&size, p, 8);
	p += 8;
	s->dyn_size = 0;
	s->stack = NULL;
	if (size && (uint64_t)(end - p) >= 8 && size <= (uint64_t)(end - p) - 8) {
		memcpy(&s->dyn_size, p + size, 8);
		if (s->dyn_size > size)
			s->dyn_size = size;
		s->stack = xmalloc(s->dyn_size);
		memcpy(s->stack, p, s->dyn_size);
	}
	ev = new_event(EV_SAMPLE);
	ev->time = time;
	ev->pid = s->pid;
	ev->s = s;
	return;
bad:
	lost++;
}

static void take_record(const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	struct event *ev;
	uint32_t pid, ppid;
	uint64_t time = 0;

	/* sample_id_all: the other records end with pid, tid and time */
	if (h->type != PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 16) {
		memcpy(&time, end - 8, 8);
		end -= 16;
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		take_sample(p, end);
		break;
	case PERF_RECORD_MMAP: {
		uint64_t addr, len, pgoff;
		const char *name = (const char *)p + 32;

		memcpy(&pid, p, 4);
		memcpy(&addr, p + 8, 8);
		memcpy(&len, p + 16, 8);
		memcpy(&pgoff, p + 24, 8);
		ev = new_event(EV_MMAP);
		ev->time = time;
		ev->pid = pid;
		ev->map.start = addr;
		ev->map.end = addr + len;
		ev->map.pgoff = pgoff;
		ev->map.file = strndup(name, end - (const unsigned char *)name);
		break;
	}
	case PERF_RECORD_FORK:
		memcpy(&pid, p, 4);
		memcpy(&ppid, p + 4, 4);
		if (pid == ppid)
			break;		/* a new thread */
		ev = new_event(EV_FORK);
		ev->time = time;
		ev->pid = pid;
		ev->ppid = ppid;
		break;
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC))
			break;
		memcpy(&pid, p, 4);
		ev = new_event(EV_EXEC);
		ev->time = time;
		ev->pid = pid;
		break;
	case PERF_RECORD_LOST:
		lost += ((const uint64_t *)p)[1];
		break;
	}
}

static void drain(struct perf_event_mmap_page *meta, unsigned char *data,
		  size_t size)
{
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	static unsigned char *rec;

	if (!rec)
		rec = xmalloc(65536);
	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % size, first;

		first = size - off < sizeof(h) ? size - off : sizeof(h);
		memcpy(&h, data + off, first);
		memcpy((char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h))
			break;
		first = size - off < h.size ? size - off : h.size;
		memcpy(rec, data + off, first);
		memcpy(rec + first, data, h.size - first);
		take_record((struct perf_event_header *)rec);
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

#define MAX_CPUS 64

/*
 * One event per CPU for PROG's task, inherited by its threads and
 * children (the kernel does not let an inherited per-task event have a
 * ring buffer); their records are put in time order afterwards.
 */
static int record(char **argv, int hz)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = hz,
		.freq = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
		.sample_regs_user = REGS_MASK,
		.sample_stack_user = STACK_COPY & ~7U,
		.disabled = 1,
		.enable_on_exec = 1,
		.inherit = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
		.mmap = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.sample_id_all = 1,
		.watermark = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	size_t size = RING_PAGES * page;
	unsigned char *ring[MAX_CPUS];
	struct pollfd pfd[MAX_CPUS];
	int go[2], status, cpu, n = 0, i;
	pid_t pid;
	char c = 0;

	attr.wakeup_watermark = size / 8;
	if (pipe(go))
		return perror("oracle: pipe"), -1;
	pid = fork();
	if (pid < 0)
		return perror("oracle: fork"), -1;
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		/*
		 * Below the oracle, which must drain its buffers while the
		 * threads of PROG keep every CPU busy (samples are lost
		 * otherwise).
		 */
		if (setpriority(PRIO_PROCESS, 0, 10))
			perror("oracle: setpriority");
		if (child_out) {
			int fd = open(child_out, O_WRONLY | O_CREAT | O_TRUNC,
				      0600);

			if (fd < 0 || dup2(fd, 1) < 0) {
				perror(child_out);
				_exit(127);
			}
			close(fd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "oracle: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	for (cpu = 0; cpu < MAX_CPUS && cpu < get_nprocs_conf(); cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);

		if (fd < 0) {
			if (errno == ENODEV)
				continue;	/* offline */
			perror("oracle: perf_event_open");
			goto fail;
		}
		ring[n] = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (ring[n] == MAP_FAILED) {
			perror("oracle: mmap of the ring buffer");
			close(fd);
			goto fail;
		}
		pfd[n].fd = fd;
		pfd[n++].events = POLLIN;
	}
	if (!n || write(go[1], &c, 1) != 1)
		goto fail;
	close(go[1]);
	for (;;) {
		pid_t w;

		poll(pfd, n, 100);
		for (i = 0; i < n; i++)
			drain((void *)ring[i], ring[i] + page, size);
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0)
			return perror("oracle: waitpid"), -1;
	}
	for (i = 0; i < n; i++) {
		ioctl(pfd[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		drain((void *)ring[i], ring[i] + page, size);
		munmap(ring[i], size + page);
		close(pfd[i].fd);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
		fprintf(stderr, "oracle: %s did not run to its end (status %#x)\n",
			argv[0], status);
		return -1;
	}
	return 0;
fail:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static int by_time(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- unwinding with libdwfl --------------------------------------------- */

static const struct sample *cur;	/* the sample being unwound */
static const struct proc *cur_proc;
static bool copy_ended;

static bool code_address(const struct proc *p, uint64_t a)
{
	int i;

	for (i = 0; i < p->nr_maps; i++)
		if (a >= p->maps[i].start && a < p->maps[i].end)
			return true;
	return false;
}

/*
 * A return address signed with pointer authentication has its PAC in the
 * bits above the user virtual address size, which depends on the
 * kernel's configuration (39, 42, 47, 48 or 52 bits): the one that gives
 * a code address of the process is taken.
 */
static uint64_t strip_pac(uint64_t v)
{
	static const int va_bits[] = { 52, 48, 47, 42, 39 };
	unsigned int i;

	if (!HAVE_PAC || code_address(cur_proc, v))
		return v;
	for (i = 0; i < sizeof(va_bits) / sizeof(va_bits[0]); i++) {
		uint64_t a = v & ((1ULL << va_bits[i]) - 1);

		if (a != v && code_address(cur_proc, a))
			return a;
	}
	return v;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	static const struct sample *given;

	if (given == cur)
		return 0;
	given = cur;
	*thread_arg = NULL;
	return cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	*thread_arg = NULL;
	return tid == (pid_t)cur->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	uint64_t sp = perf_reg(cur->regs, PERF_REG_SP), v;

	if (addr < sp || addr + 8 > sp + cur->dyn_size || addr + 8 < addr) {
		copy_ended = true;
		return false;
	}
	memcpy(&v, cur->stack + (addr - sp), 8);
	*result = strip_pac(v);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	Dwarf_Word regs[sizeof(dwarf_regs) / sizeof(dwarf_regs[0])];
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		regs[i] = perf_reg(cur->regs, dwarf_regs[i]);
#ifdef PERF_REG_LR
	regs[30] = strip_pac(regs[30]);
#endif
	if (!dwfl_thread_state_registers(thread, 0, i, regs))
		return false;
	dwfl_thread_state_register_pc(thread, perf_reg(cur->regs, PERF_REG_PC));
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* Its own vDSO, written to a file: the same image as PROG's. */
static void save_vdso(void)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	size_t len;
	int fd;

	if (!img)
		return;
	len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	snprintf(vdso_file, sizeof(vdso_file), "/tmp/oracle-vdso.%d",
		 (int)getpid());
	fd = open(vdso_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, img, len) != (ssize_t)len) {
		vdso_file[0] = 0;
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
}

/* load bias of the file mapped by m: from its executable PT_LOAD at pgoff */
static bool load_bias(const char *path, const struct map *m, uint64_t *bias)
{
	long page = sysconf(_SC_PAGESIZE);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY), i;
	bool found = false;

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum && !found; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if ((ph.p_offset & -page) != m->pgoff)
			continue;
		*bias = m->start - (ph.p_vaddr & -page);
		found = true;
	}
out:
	close(fd);
	return found;
}

static void report_maps(struct proc *p)
{
	bool any = false;
	int i;

	for (i = 0; i < p->nr_maps; i++) {
		struct map *m = &p->maps[i];
		const char *path = m->file;
		uint64_t bias;

		if (m->reported)
			continue;
		m->reported = true;
		if (!strcmp(path, "[vdso]"))
			path = vdso_file;
		if (path[0] != '/' || !load_bias(path, m, &bias))
			continue;
		if (!any)
			dwfl_report_begin_add(p->dwfl);
		any = true;
		if (!dwfl_report_elf(p->dwfl, m->file, path, -1, bias, true))
			fprintf(stderr, "oracle: %s: %s\n", m->file,
				dwfl_errmsg(-1));
	}
	if (any)
		dwfl_report_end(p->dwfl, NULL, NULL);
}

static struct proc *procs;

static struct proc *find_proc(uint32_t pid)
{
	struct proc *p;

	for (p = procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = xmalloc(sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->next = procs;
	procs = p;
	return p;
}

static void reset_proc(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->nr_maps = 0;
}

static void add_map(struct proc *p, const struct map *m)
{
	p->maps = realloc(p->maps, (p->nr_maps + 1) * sizeof(*p->maps));
	if (!p->maps) {
		perror("oracle: realloc");
		exit(2);
	}
	p->maps[p->nr_maps] = *m;
	p->maps[p->nr_maps++].reported = false;
}

#define MAX_FRAMES 256
static uint64_t dw_chain[MAX_FRAMES];
static int dw_nr;

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL) || dw_nr == MAX_FRAMES)
		return DWARF_CB_ABORT;
	dw_chain[dw_nr++] = pc;
	return DWARF_CB_OK;
}

/*
 * The name of the function at @a (@i: its depth), else its object's base
 * name and offset (stripped programs), else "?".
 */
static const char *sym(Dwfl *dwfl, uint64_t a, int i)
{
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, i ? a - 1 : a) : NULL;
	const char *s = mod ? dwfl_module_addrname(mod, i ? a - 1 : a) : NULL;
	static char buf[96];
	Dwarf_Addr start;
	const char *name;

	if (s)
		return s;
	name = mod ? dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL,
				      NULL, NULL) : NULL;
	if (!name)
		return "?";
	s = strrchr(name, '/');
	snprintf(buf, sizeof(buf), "%s+%#llx", s ? s + 1 : name,
		 (unsigned long long)(a - start));
	return buf;
}

static void print_chains(const struct proc *p, const struct sample *s,
			 int at, const char *why)
{
	int i;

	printf("# %s: pid %u tid %u, frame %d\n",
	       strncmp(why, "undecidable", 11) ? "differ" : "undecidable",
	       s->pid, s->tid, at);
	printf("#   (%s)\n", why);
	for (i = 0; i < (int)s->nr || i < dw_nr; i++) {
		printf("#   %3d kernel ", i);
		if (i < (int)s->nr)
			printf("%#14llx %-28s", (unsigned long long)s->chain[i],
			       sym(p->dwfl, s->chain[i], i));
		else
			printf("%14s %-28s", "-", "");
		if (i < dw_nr)
			printf(" libdw %#llx %s\n", (unsigned long long)dw_chain[i],
			       sym(p->dwfl, dw_chain[i], i));
		else
			printf(" libdw -\n");
	}
}

/*
 * The code bytes of the process at @a - @len .. @a - 1, from the file (or
 * vDSO image) mapped there; false where there is none.
 */
static bool code_before(Dwfl *dwfl, uint64_t a, unsigned char *buf,
			size_t len)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, a - 1);
	Dwarf_Addr off = a - len, bias;
	Elf_Scn *scn;
	Elf_Data *d;

	if (!mod)
		return false;
	scn = dwfl_module_address_section(mod, &off, &bias);
	if (!scn)
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || off + len > d->d_size)
		return false;
	memcpy(buf, (const unsigned char *)d->d_buf + off, len);
	return true;
}

#if defined(__x86_64__)
/* Length of a call through ModRM (ff /2) that starts with @p, or 0. */
static size_t x86_call_len(const unsigned char *p, const unsigned char *end)
{
	size_t n = 0;
	unsigned int mod, rm;

	if (p < end && (*p & 0xf0) == 0x40)	/* REX */
		n++;
	if (p + n + 2 > end || p[n] != 0xff || ((p[n + 1] >> 3) & 7) != 2)
		return 0;
	mod = p[n + 1] >> 6;
	rm = p[n + 1] & 7;
	n += 2;
	if (mod == 3)
		return n;
	if (rm == 4) {				/* SIB */
		if (p + n >= end)
			return 0;
		if (mod == 0 && (p[n] & 7) == 5)
			n += 4;
		n++;
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		n += 4;
	return n;
}

/* Does a call instruction end at @a? */
static bool after_call(Dwfl *dwfl, uint64_t a)
{
	unsigned char b[8];
	size_t k;

	for (k = 8; k >= 2; k--) {
		if (!code_before(dwfl, a, b + 8 - k, k))
			continue;
		if (k == 5 && b[3] == 0xe8)
			return true;
		if (x86_call_len(b + 8 - k, b + 8) == k)
			return true;
	}
	return false;
}

/* glibc's and musl's __restore_rt: mov $15, %rax; syscall */
static const unsigned char sigreturn_code[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05,
};
#else
static bool after_call(Dwfl *dwfl, uint64_t a)
{
	unsigned char b[4];
	uint32_t insn;

	if (!code_before(dwfl, a, b, 4))
		return false;
	insn = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	return (insn & 0xfc000000) == 0x94000000 ||	/* bl */
	       (insn & 0xfffffc1f) == 0xd63f0000 ||	/* blr */
	       (insn & 0xfefff800) == 0xd63f0800;	/* blraa, blrab... */
}

/* the vDSO's __kernel_rt_sigreturn: mov x8, #139; svc #0 */
static const unsigned char sigreturn_code[] = {
	0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4,
};
#endif

/* Is @a the start of a signal trampoline? */
static bool sigtramp(Dwfl *dwfl, uint64_t a)
{
	unsigned char b[sizeof(sigreturn_code)];

	return code_before(dwfl, a + sizeof(b), b, sizeof(b)) &&
	       !memcmp(b, sigreturn_code, sizeof(b));
}

static const char *const outermost[] = {
	"_start", "_dl_start_user", "clone3", "__clone3", "__GI___clone3",
	"thread_start", "clone", "__clone", "__GI___clone",
};

/*
 * Is the frame at @pc (@i: its depth) an outermost one by its CFI (the
 * return address rule "undefined", as in glibc's _start and clone3)?
 * Stripped programs have no name for their _start.
 */
static bool outermost_cfi(Dwfl *dwfl, uint64_t pc, int i)
{
	uint64_t a = i ? pc - 1 : pc;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, a);
	Dwarf_Op ops_mem[3], *ops;
	Dwarf_Frame *frame;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	size_t nops;
	bool undef;
	int k, ra;

	for (k = 0; mod && k < 2; k++) {
		cfi = k ? dwfl_module_dwarf_cfi(mod, &bias) :
			  dwfl_module_eh_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, a - bias, &frame))
			continue;
		ra = dwarf_frame_info(frame, NULL, NULL, NULL);
		/* "undefined": no operation, at ops_mem (libdw.h) */
		undef = ra >= 0 &&
			!dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) &&
			ops == ops_mem && !nops;
		free(frame);
		return undef;
	}
	return false;
}

/*
 * Has the frame at @pc (@i: its depth) call frame information that libdw
 * follows: a CFA rule of a register and an offset?  Where there is none,
 * libdw carries on by heuristics (frame pointers); where the CFA is a
 * DWARF expression (ld's x86-64 PLT rule), libdw 0.188 ends the chain;
 * but it evaluates the one of glibc's signal trampoline.
 */
static bool plain_cfi(Dwfl *dwfl, uint64_t pc, int i)
{
	uint64_t a = i ? pc - 1 : pc;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, a);
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	size_t nops;
	bool plain;
	int k;

	for (k = 0; mod && k < 2; k++) {
		cfi = k ? dwfl_module_dwarf_cfi(mod, &bias) :
			  dwfl_module_eh_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, a - bias, &frame))
			continue;
		/* libdw follows a signal trampoline's CFA expression */
		plain = (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) ||
			(i && sigtramp(dwfl, pc));
		free(frame);
		return plain;
	}
	return false;
}

#define STOPS "the kernel stops"

static int verbose_u;

static bool stock_mode;
static unsigned long stock_complete, stock_wrong, stock_full;
static int stock_shown;

/* -s: is the kernel's chain of @s complete, and are its callers right? */
static void stock_check(const struct proc *p, const struct sample *s,
			const char *differ, int verbose)
{
	const char *last = s->nr ? sym(p->dwfl, s->chain[s->nr - 1],
				       s->nr > 1) : "";
	const char *why = NULL;
	static int shown_incomplete;
	size_t i;
	int at = 0;

	/*
	 * A chain the kernel ends early (where libdw goes on) is incomplete,
	 * not wrong: every frame it has is right.
	 */
	if (differ && strcmp(differ, STOPS))
		why = differ;
	for (i = 1; !why && i < s->nr; i++) {
		if (sigtramp(p->dwfl, s->chain[i])) {
			i++;	/* the interrupted frame: an exact PC */
			continue;
		}
		if (!after_call(p->dwfl, s->chain[i])) {
			why = "a caller does not follow a call";
			at = (int)i;
		}
	}
	if (why) {
		stock_wrong++;
		if (stock_shown++ < verbose)
			print_chains(p, s, at, why);
		return;
	}
	if ((int)s->nr >= max_stack) {
		stock_full++;
		stock_complete++;
		return;
	}
	if (s->nr && outermost_cfi(p->dwfl, s->chain[s->nr - 1],
				   (int)s->nr - 1)) {
		stock_complete++;
		return;
	}
	for (i = 0; i < sizeof(outermost) / sizeof(outermost[0]); i++)
		if (!strcmp(last, outermost[i])) {
			stock_complete++;
			return;
		}
	if (shown_incomplete++ < verbose_u)
		print_chains(p, s, (int)s->nr - 1, "undecidable, stock: incomplete");
}

enum verdict { AGREE, DIFFER, COPY_ENDS, LIBDW_STOPS, NOT_UNWOUND };

static const char *differ_why;	/* why check() said DIFFER */

static unsigned long lr_added;

/* Show the first -u undecidable samples. */
static enum verdict undecidable(const struct proc *p, const struct sample *s,
				enum verdict v)
{
	static int shown;

	if (shown++ < verbose_u)
		print_chains(p, s, dw_nr, v == COPY_ENDS ? "undecidable, copy ends" :
				  "undecidable, libdw stops");
	return v;
}

#ifdef PERF_REG_LR
static int common_prefix(const uint64_t *a, int na, const uint64_t *b,
			 int nb)
{
	int i;

	for (i = 0; i < na && i < nb && a[i] == b[i]; i++)
		;
	return i;
}

/* Does @s agree with @dw further with libdw's second frame put in? */
static bool lr_left_out(const struct sample *s, const uint64_t *dw, int nr)
{
	int as_is = common_prefix(s->chain, (int)s->nr, dw, nr);
	int with = s->chain[0] != dw[0] ? 0 :
		   2 + common_prefix(s->chain + 1, (int)s->nr - 1, dw + 2,
				     nr - 2);

	return with > as_is ||
	       (with == as_is && (s->nr < 2 || s->chain[1] != dw[1]));
}
#endif

static enum verdict check(struct proc *p, struct sample *s, int *shown,
			  int verbose)
{
	const char *why = NULL;
	bool err, heuristic = false;
	int i, n, rc;

	report_maps(p);
	if (!p->attached) {
		if (!dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks,
				       NULL))
			return NOT_UNWOUND;
		p->attached = true;
	}
	cur = s;
	cur_proc = p;
	copy_ended = false;
	dw_nr = 0;
	rc = dwfl_getthread_frames(p->dwfl, s->tid, frame_cb, NULL);
	err = rc != 0 && dw_nr < MAX_FRAMES;
#ifdef PERF_REG_LR
	/*
	 * Where the caller of the sampled function is only in LR, the
	 * kernel leaves it out of a perf event's callchain and perf's tool
	 * adds it from the sampled LR (as perf report does, one frame
	 * unwound from the registers).  Do as the tool does where that
	 * makes the chains agree further: in a recursion, LR's caller
	 * may be the same address as LR.
	 */
	if (s->nr >= 1 && dw_nr >= 2 &&
	    dw_chain[1] == strip_pac(perf_reg(s->regs, PERF_REG_LR)) &&
	    lr_left_out(s, dw_chain, dw_nr)) {
		s->chain = realloc(s->chain, (s->nr + 1) * 8);
		if (!s->chain) {
			perror("oracle: realloc");
			exit(2);
		}
		memmove(s->chain + 2, s->chain + 1, (s->nr - 1) * 8);
		s->chain[1] = dw_chain[1];
		s->nr++;
		lr_added++;
	}
#endif
	/*
	 * Only what libdw found with call frame information counts: its
	 * chain is cut after the first frame that has none it can follow,
	 * or whose caller it found is not even a code address (a register
	 * the CFI left undescribed, e.g. x29 above arm64's lazy binding
	 * trampoline).
	 */
	for (i = 0; i < dw_nr - 1; i++) {
		if (!plain_cfi(p->dwfl, dw_chain[i], i) ||
		    !code_address(p, dw_chain[i + 1])) {
			dw_nr = i + 1;
			heuristic = true;
			break;
		}
#ifdef PERF_REG_LR
		/*
		 * glibc's AArch64 lazy binding trampoline: its CFI gives the
		 * return address right, but a CFA 16 bytes below the caller's
		 * SP (the PLT's push): libdw's frames above the caller are
		 * read from the wrong place (the kernel corrects it).
		 */
		if (i + 2 < dw_nr &&
		    !strcmp(sym(p->dwfl, dw_chain[i], i), "_dl_runtime_resolve")) {
			dw_nr = i + 2;
			heuristic = true;
			break;
		}
#endif
	}
	n = (int)s->nr < dw_nr ? (int)s->nr : dw_nr;
	for (i = 0; i < n; i++)
		if (s->chain[i] != dw_chain[i]) {
			why = "frames differ";
			break;
		}
	if (!why && (int)s->nr == dw_nr)
		return heuristic ? undecidable(p, s, LIBDW_STOPS) : AGREE;
	if (!why && (int)s->nr > dw_nr) {
		if (copy_ended)
			return undecidable(p, s, COPY_ENDS);
		if (err || heuristic ||
		    !plain_cfi(p->dwfl, dw_chain[dw_nr - 1], dw_nr - 1))
			return undecidable(p, s, LIBDW_STOPS);
		why = "the kernel goes on after the outermost frame";
	}
	if (!why) {
		if ((int)s->nr >= max_stack)
			return AGREE;
		why = STOPS;
	}
	differ_why = why;
	if ((*shown)++ < verbose)
		print_chains(p, s, i, why);
	return DIFFER;
}

int main(int argc, char **argv)
{
	unsigned long agree = 0, differ = 0, copy = 0, stops = 0, samples = 0;
	int hz = 1000, verbose = 5, shown = 0, opt;
	const char *name = NULL;
	size_t e;
	FILE *f;

	while ((opt = getopt(argc, argv, "+F:v:u:n:so:")) != -1) {
		switch (opt) {
		case 'F':
			hz = atoi(optarg);
			break;
		case 'v':
			verbose = atoi(optarg);
			break;
		case 'u':
			verbose_u = atoi(optarg);
			break;
		case 'n':
			name = optarg;
			break;
		case 's':
			stock_mode = true;
			break;
		case 'o':
			child_out = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc || hz <= 0)
		goto usage;
	if (!name) {
		name = strrchr(argv[optind], '/');
		name = name ? name + 1 : argv[optind];
	}
	f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	if (f) {
		if (fscanf(f, "%d", &max_stack) != 1)
			max_stack = 127;
		fclose(f);
	}
	save_vdso();
	if (record(argv + optind, hz))
		return 2;
	qsort(events, nr_events, sizeof(*events), by_time);

	for (e = 0; e < nr_events; e++) {
		struct event *ev = &events[e];
		struct proc *p = find_proc(ev->pid), *pp;
		enum verdict v;
		int i;

		switch (ev->type) {
		case EV_MMAP:
			if (ev->map.file[0] == '/' ||
			    !strcmp(ev->map.file, "[vdso]"))
				add_map(p, &ev->map);
			break;
		case EV_FORK:
			reset_proc(p);
			pp = find_proc(ev->ppid);
			for (i = 0; i < pp->nr_maps; i++)
				add_map(p, &pp->maps[i]);
			break;
		case EV_EXEC:
			reset_proc(p);
			break;
		case EV_SAMPLE:
			if (!p->dwfl) {
				p->dwfl = dwfl_begin(&dwfl_callbacks);
				if (!p->dwfl) {
					fprintf(stderr, "oracle: dwfl_begin: %s\n",
						dwfl_errmsg(-1));
					return 2;
				}
			}
			samples++;
			v = check(p, ev->s, &shown, verbose);
			if (stock_mode)
				stock_check(p, ev->s, v == DIFFER ? differ_why : NULL,
					    verbose);
			agree += v == AGREE;
			differ += v == DIFFER;
			copy += v == COPY_ENDS;
			stops += v == LIBDW_STOPS || v == NOT_UNWOUND;
			break;
		}
	}
	if (vdso_file[0])
		unlink(vdso_file);
	if (lost)
		printf("# oracle %s: %llu samples lost\n", name,
		       (unsigned long long)lost);
	if (lr_added)
		printf("# oracle %s: %lu callers added from LR, as perf does\n",
		       name, lr_added);
	printf("oracle %s: %lu samples, %lu agree, %lu differ, %lu undecidable (%lu copy ends, %lu libdw stops)\n",
	       name, samples, agree, differ, copy + stops, copy, stops);
	if (stock_mode) {
		if (stock_full)
			printf("# stock %s: %lu chains fill perf_event_max_stack (%d)\n",
			       name, stock_full, max_stack);
		printf("stock %s: %lu samples, %lu complete, %lu wrong\n",
		       name, samples, stock_complete, stock_wrong);
	}
	if (stock_mode)
		return stock_wrong || !samples ? 1 : 0;
	return differ || !samples ? 1 : 0;
usage:
	fprintf(stderr, "usage: oracle [-F HZ] [-v N] [-u N] [-n NAME] [-s] [-o FILE] -- PROG ARGS...\n");
	return 2;
}
