// SPDX-License-Identifier: GPL-2.0
/*
 * Chains through shared objects that have .sframe.
 *
 *   dso lib [ms]
 *	lib_hot <- lib_mid <- lib_entry (libsfchain.so) <- do_lib <- main
 *   dso callback [ms]
 *	cb_hot <- cb_mid <- cb_entry <- lib_call (libsfchain.so) <- do_callback
 *	<- main: program -> library -> program.
 *   dso dlopen [ms]
 *	dl_hot <- dl_mid <- dl_entry (libsfdl.so) <- do_dlopen <- main, for
 *	ms/2 with the object loaded by dlopen(); then dlclose(), its old
 *	address range is blocked, and it is loaded again (elsewhere) for
 *	another ms/2.  Both rounds must unwind the same way.
 *   dso wait-dlopen PREFIX [ms]
 *	creates PREFIX.ready, waits until PREFIX.go exists, then runs like
 *	`dso dlopen` (inject.sh: the first executable mapping after the
 *	program started, to see what became of the tables made at start).
 *
 * libsfchain.so is found through the $ORIGIN run path, libsfdl.so next to
 * /proc/self/exe.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

long lib_entry(long ms);
long lib_call(long (*fn)(long), long ms);

DEFINE_HOT(cb_hot)

noipa long cb_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += cb_hot(SPIN);
	return acc;
}

noipa long cb_entry(long ms)
{
	long r = cb_mid(ms);

	NOTAIL(r);
	return r;
}

noipa int do_lib(long ms)
{
	long r = lib_entry(ms);

	NOTAIL(r);
	return 0;
}

noipa int do_callback(long ms)
{
	long r = lib_call(cb_entry, ms);

	NOTAIL(r);
	return 0;
}

struct span {
	const char *name;
	unsigned long lo, hi;
};

static int find_span(struct dl_phdr_info *info, size_t size, void *data)
{
	struct span *s = data;
	unsigned long lo, hi;
	int i;

	if (!info->dlpi_name || !strstr(info->dlpi_name, s->name))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_LOAD)
			continue;
		lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		hi = lo + info->dlpi_phdr[i].p_memsz;
		if (!s->lo || lo < s->lo)
			s->lo = lo;
		if (hi > s->hi)
			s->hi = hi;
	}
	return 1;
}

typedef long (*entry_fn)(long);

static void *load(const char *path, entry_fn *fn)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dso: %s\n", dlerror());
		return NULL;
	}
	*fn = (entry_fn)dlsym(h, "dl_entry");
	if (!*fn) {
		fprintf(stderr, "dso: %s\n", dlerror());
		dlclose(h);
		return NULL;
	}
	return h;
}

noipa int do_dlopen(long ms)
{
	struct span s = { .name = "libsfdl.so" };
	char path[4096], *slash;
	unsigned long page = sysconf(_SC_PAGESIZE), first;
	entry_fn fn;
	ssize_t n;
	void *h, *blk;
	long r;

	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0)
		return 1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libsfdl.so");

	h = load(path, &fn);
	if (!h)
		return 1;
	dl_iterate_phdr(find_span, &s);
	r = fn(ms / 2);
	NOTAIL(r);
	if (dlclose(h)) {
		fprintf(stderr, "dso: dlclose: %s\n", dlerror());
		return 1;
	}
	first = s.lo;

	/* Keep the old range busy so that the second load goes elsewhere. */
	blk = MAP_FAILED;
	if (s.lo && s.hi > s.lo) {
		s.lo &= ~(page - 1);
		s.hi = (s.hi + page - 1) & ~(page - 1);
		blk = mmap((void *)s.lo, s.hi - s.lo, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	}
	if (blk == MAP_FAILED)
		fprintf(stderr, "dso: could not block the old range\n");

	h = load(path, &fn);
	if (!h)
		return 1;
	s.lo = s.hi = 0;
	dl_iterate_phdr(find_span, &s);
	if (s.lo == first)
		fprintf(stderr, "dso: reloaded at the same address\n");
	r = fn(ms - ms / 2);
	NOTAIL(r);
	dlclose(h);
	return 0;
}

/* Say that the program has started, and wait for the word to go on. */
static int wait_go(const char *prefix)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s.ready", prefix);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	close(fd);
	snprintf(path, sizeof(path), "%s.go", prefix);
	while (access(path, F_OK))
		usleep(10000);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc >= 2 ? argv[1] : "";
	long ms = parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS);
	int r;

	if (argc >= 3 && !strcmp(mode, "wait-dlopen")) {
		if (wait_go(argv[2]))
			return 1;
		ms = parse_ms(argc > 3 ? argv[3] : NULL, DEFAULT_MS);
		mode = "dlopen";
	}

	if (!strcmp(mode, "lib"))
		r = do_lib(ms);
	else if (!strcmp(mode, "callback"))
		r = do_callback(ms);
	else if (!strcmp(mode, "dlopen"))
		r = do_dlopen(ms);
	else {
		fprintf(stderr, "usage: dso lib|callback|dlopen [ms] | wait-dlopen PREFIX [ms]\n");
		r = 2;
	}
	NOTAIL(r);
	return r;
}
