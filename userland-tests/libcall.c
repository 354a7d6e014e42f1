// SPDX-License-Identifier: GPL-2.0
/*
 * Chains whose frames lie in Debian's libc and ld.so, which have no
 * .sframe: the kernel unwinds them with the tables it builds from their
 * .eh_frame (kernel.sframe_unwind=2).  The program itself has .sframe.
 *
 *   libcall memcpy [ms]
 *	memcpy's variant (an ifunc: chosen by CPUID) <- lc_memcpy <- main
 *   libcall strlen [ms]
 *	strlen's variant <- lc_strlen <- main
 *   libcall malloc [ms]
 *	malloc <- lc_malloc <- main; _int_free <- free <- lc_malloc <- main
 *   libcall qsort [ms]
 *	qs_hot <- qs_cmp <- msort_with_tmp.part.0 <- __qsort_r <- lc_qsort
 *	<- main: program -> libc -> program (a comparison callback).  Two
 *	elements, so that glibc 2.36's merge sort calls the comparator once,
 *	from the one merge step at the top of its recursion.
 *   libcall dlsym [ms]
 *	do_lookup_x (ld.so) <- _dl_lookup_symbol_x (ld.so) <- do_sym (libc)
 *	<- ... dlsym <- lc_dlsym <- main
 *   libcall write [ms]
 *	write (libc) <- wr_deep <- wr_mid <- lc_write <- main: one-byte
 *	writes to /dev/null, for samples taken in system call context
 *	(perf record -e syscalls:sys_enter_write -g)
 *   libcall clock [ms]
 *	clock_gettime (vDSO) <- clock_gettime (libc) <- lc_clock <- main:
 *	the vDSO in the hot path (run-tests.sh's stock-clock)
 *   libcall signal [ms]
 *	sig_hot <- sig_handler <- the signal trampoline (libc's __restore_rt
 *	on x86-64, the vDSO's __kernel_rt_sigreturn on arm64) <- lc_signal
 *	<- main: the hot code runs in a SIGPROF handler, and the chain goes
 *	on through the signal frame to the code the signal interrupted, a
 *	loop in lc_signal without calls
 *   libcall nocfi [ms]
 *	nc_hot <- nc_driver <- nc_frame, and no further: nc_frame is
 *	assembly without CFI that keeps a frame record, in the shape of
 *	crtstuff's __do_global_dtors_aux, which calls __cxa_finalize at
 *	exit; no table describes it, so the walk reports it and ends there
 *	(README, "Limits")
 *   libcall jit [ms]
 *	a hot leaf in anonymous executable memory, as a JIT compiler makes
 *	it (no file, no CFI, no table) <- lc_jit <- main: what the series
 *	does not cover (run-tests.sh's uncovered-jit)
 *
 * The exact chains, with libc's frames down to _start, are in
 * run-tests.sh; check-codegen.sh checks the calls they rely on.  The
 * sizes and counts are kept out of the compiler's sight (volatile), so
 * that memcpy and strlen are real calls into libc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* 4 KiB: an ordinary copy (rep movsb or vector loop, not the
 * non-temporal path of copies larger than a share of the cache) */
#define BUF	4096

static unsigned char src[BUF], dst[BUF];
static char str[BUF];
static volatile unsigned long copy_len = BUF;
static volatile unsigned long alloc_len = 64;
static volatile const char *sym_name = "qsort";

noipa long lc_memcpy(long ms)
{
	unsigned long acc = 0;
	int i;

	timer_start(ms);
	while (!timer_expired())
		for (i = 0; i < 64; i++) {
			memcpy(dst, src, copy_len);
			acc += dst[i];
		}
	return acc;
}

noipa long lc_strlen(long ms)
{
	unsigned long acc = 0;
	int i;

	memset(str, 'a', BUF - 1);
	timer_start(ms);
	while (!timer_expired())
		for (i = 0; i < 64; i++)
			acc += strlen(str + (i & 7));
	return acc;
}

noipa long lc_malloc(long ms)
{
	unsigned long acc = 0;
	int i;

	timer_start(ms);
	while (!timer_expired())
		for (i = 0; i < 256; i++) {
			void *p = malloc(alloc_len);

			NOTAIL(p);
			acc += p != NULL;
			free(p);
		}
	return acc;
}

/* qsort: the comparator calls a hot leaf for each comparison. */
DEFINE_HOT(qs_hot)

noipa int qs_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	unsigned long h = qs_hot(SPIN / 10);

	NOTAIL(h);
	return (x > y) - (x < y) + (int)(h & 0);
}

noipa long lc_qsort(long ms)
{
	unsigned long acc = 0;
	long v[2];

	timer_start(ms);
	while (!timer_expired()) {
		v[0] = 2;
		v[1] = 1;
		qsort(v, 2, sizeof(v[0]), qs_cmp);
		acc += v[0];
	}
	return acc;
}

noipa long lc_dlsym(long ms)
{
	unsigned long acc = 0;
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	int i;

	if (!h) {
		fprintf(stderr, "libcall: dlopen(libc.so.6): %s\n", dlerror());
		exit(1);
	}
	timer_start(ms);
	while (!timer_expired())
		for (i = 0; i < 64; i++)
			acc += dlsym(h, (const char *)sym_name) != NULL;
	dlclose(h);
	return acc;
}

noipa long wr_deep(int fd)
{
	long r = write(fd, str, 1);

	NOTAIL(r);
	return r;
}

noipa long wr_mid(int fd)
{
	long r = wr_deep(fd);

	NOTAIL(r);
	return r;
}

noipa long lc_write(long ms)
{
	unsigned long acc = 0;
	int fd = open("/dev/null", O_WRONLY);
	int i;

	if (fd < 0) {
		perror("libcall: /dev/null");
		exit(1);
	}
	timer_start(ms);
	while (!timer_expired())
		for (i = 0; i < 16; i++)
			acc += wr_mid(fd);
	close(fd);
	return acc;
}

/*
 * clock: CLOCK_MONOTONIC_COARSE, which the vDSO serves from its data page
 * whatever the clock source: with the HPET (the x86_64 guest's), the
 * vDSO makes the system call for CLOCK_MONOTONIC, and few samples are
 * taken in user mode.
 */
noipa long lc_clock(long ms)
{
	struct timespec ts;
	long acc = 0;
	int i;

	timer_start(ms);
	while (!timer_expired())
		for (i = 0; i < 64; i++) {
			clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
			acc += ts.tv_nsec;
		}
	return acc;
}

/*
 * signal: ITIMER_PROF sends SIGPROF every millisecond of CPU time (every
 * tick: a signal that comes while the handler runs waits for it to
 * return); the handler spins, and stops the timer once the budget is
 * used.  A signal
 * that was pending when it did finds sig_done set and returns at once.
 */
DEFINE_HOT(sig_hot)
static volatile sig_atomic_t sig_done;

noipa void sig_handler(int sig)
{
	static const struct itimerval off;
	unsigned long h;
	int i;

	if (sig_done)
		return;
	/* long enough to be where most samples land */
	for (i = 0; i < 32; i++) {
		h = sig_hot(SPIN);
		NOTAIL(h);
	}
	if (timer_expired()) {
		setitimer(ITIMER_PROF, &off, NULL);
		sig_done = 1;
	}
}

noipa long lc_signal(long ms)
{
	struct itimerval it = {
		.it_interval = { .tv_usec = 1000 },
		.it_value = { .tv_usec = 1000 },
	};
	struct sigaction sa = {
		.sa_handler = sig_handler,
		.sa_flags = SA_RESTART,
	};
	long acc = 0;

	if (sigaction(SIGPROF, &sa, NULL)) {
		perror("libcall: sigaction");
		exit(1);
	}
	timer_start(ms);
	setitimer(ITIMER_PROF, &it, NULL);
	/* what the signals interrupt: a loop without calls */
	while (!sig_done)
		acc++;
	return acc;
}

/*
 * nocfi: nc_frame(ms) calls nc_driver(ms), from a frame record laid out
 * as crtstuff's __do_global_dtors_aux lays out its own (x86-64: pushed
 * rbp under the return address; arm64: a 32-byte frame, the record at
 * its bottom, x19 above it); no .cfi directive, so neither .sframe nor
 * .eh_frame covers it.
 */
#if defined(__x86_64__)
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	nc_frame\n"
"	.hidden	nc_frame\n"
"	.type	nc_frame, @function\n"
"nc_frame:\n"
"	pushq	%rbp\n"
"	movq	%rsp, %rbp\n"
"	call	nc_driver\n"
"	popq	%rbp\n"
"	ret\n"
"	.size	nc_frame, .-nc_frame\n");
#else
__asm__(
"	.text\n"
"	.p2align 4\n"
"	.globl	nc_frame\n"
"	.hidden	nc_frame\n"
"	.type	nc_frame, %function\n"
"nc_frame:\n"
"	stp	x29, x30, [sp, #-32]!\n"
"	mov	x29, sp\n"
"	str	x19, [sp, #16]\n"
"	bl	nc_driver\n"
"	ldr	x19, [sp, #16]\n"
"	ldp	x29, x30, [sp], #32\n"
"	ret\n"
"	.size	nc_frame, .-nc_frame\n");
#endif

long nc_frame(long ms);

DEFINE_HOT(nc_hot)

noipa long nc_driver(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += nc_hot(SPIN);
	return acc;
}

noipa long lc_nocfi(long ms)
{
	long r = nc_frame(ms);

	NOTAIL(r);
	return r;
}

/*
 * jit: count down from the argument, return the count; the same leaf on
 * both arches, with a frame record as JIT compilers keep them.
 */
#if defined(__x86_64__)
static const unsigned char jit_code[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp, %rbp */
	0x48, 0x89, 0xf9,		/* mov %rdi, %rcx */
	0x31, 0xc0,			/* xor %eax, %eax */
	0x48, 0x83, 0xc0, 0x01,		/* 1: add $1, %rax */
	0x48, 0x83, 0xe9, 0x01,		/* sub $1, %rcx */
	0x75, 0xf6,			/* jnz 1b */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};
#else
static const unsigned int jit_code[] = {
	0xa9bf7bfd,			/* stp x29, x30, [sp, #-16]! */
	0x910003fd,			/* mov x29, sp */
	0xaa0003e1,			/* mov x1, x0 */
	0xd2800000,			/* mov x0, #0 */
	0x91000400,			/* 1: add x0, x0, #1 */
	0xf1000421,			/* subs x1, x1, #1 */
	0x54ffffc1,			/* b.ne 1b */
	0xa8c17bfd,			/* ldp x29, x30, [sp], #16 */
	0xd65f03c0,			/* ret */
};
#endif

/* read at each call: no callee-saved register holds a code address */
static unsigned long (*volatile jit_hot)(unsigned long);

noipa long lc_jit(long ms)
{
	unsigned long acc = 0;
	void *code;

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("libcall: mmap");
		exit(1);
	}
	memcpy(code, jit_code, sizeof(jit_code));
	__builtin___clear_cache((char *)code, (char *)code + sizeof(jit_code));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC)) {
		perror("libcall: mprotect");
		exit(1);
	}
	jit_hot = (unsigned long (*)(unsigned long))code;
	timer_start(ms);
	while (!timer_expired())
		acc ^= jit_hot(SPIN) & 1;	/* small, like the other loops */
	munmap((void *)jit_hot, 4096);
	return acc;
}

int main(int argc, char **argv)
{
	long ms = parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS);
	const char *m = argc > 1 ? argv[1] : "";
	long r;

	if (!strcmp(m, "memcpy"))
		r = lc_memcpy(ms);
	else if (!strcmp(m, "strlen"))
		r = lc_strlen(ms);
	else if (!strcmp(m, "malloc"))
		r = lc_malloc(ms);
	else if (!strcmp(m, "qsort"))
		r = lc_qsort(ms);
	else if (!strcmp(m, "dlsym"))
		r = lc_dlsym(ms);
	else if (!strcmp(m, "write"))
		r = lc_write(ms);
	else if (!strcmp(m, "clock"))
		r = lc_clock(ms);
	else if (!strcmp(m, "signal"))
		r = lc_signal(ms);
	else if (!strcmp(m, "nocfi"))
		r = lc_nocfi(ms);
	else if (!strcmp(m, "jit"))
		r = lc_jit(ms);
	else {
		fprintf(stderr, "usage: libcall memcpy|strlen|malloc|qsort|dlsym|write|clock|signal|nocfi|jit [ms]\n");
		return 2;
	}
	NOTAIL(r);
	return 0;
}
