// SPDX-License-Identifier: GPL-2.0
/*
 * rewrite A B DST ARG...: make the kernel's cache key of DST's unwind
 * tables meet a file rewritten within one clock tick, then run the new
 * contents.
 *
 * Writes program A to DST, maps DST executable (while a consumer of user
 * stacks exists, the kernel makes its tables on the way back from
 * mmap()), and rewrites DST in place with program B, all within one tick
 * of the coarse clock that stamps the inode change time: DST then has
 * the change time it had when the tables of A were made.  Tries again
 * until the change time before and after the rewrite is the same (for
 * 20 s at most: under TCG the steps may not fit in a tick; it says so),
 * keeps the mapping of A's version, and runs DST (now B) with ARG... in
 * a child.  A kernel that keys its cache by device, inode and change
 * time only would unwind B with A's tables.
 *
 * rewrite -i A B DST ARG...: the same for a new file that reuses the
 * inode number of a deleted one (DST on a file system that reuses them,
 * ext2).  Writes A to DST, sleeps 1.1 s so that its change time is in
 * the past (the kernel caches only tables of such files), runs DST in a
 * child that exits: A's tables stay in the cache, idle (checked in the
 * kernel's account, "idle_files" of /sys/kernel/debug/sframe_tables).  Then
 * deletes DST, writes B to DST, checks that B got A's inode number, and
 * runs it.  A key of device and inode number only would unwind B with
 * A's tables.
 *
 * Exit status: the child's; 2 if the setup could not be made (the reason
 * on stderr).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size)) ||
	    read(fd, buf, st.st_size) != st.st_size) {
		perror(path);
		exit(2);
	}
	close(fd);
	*len = st.st_size;
	return buf;
}

static void put(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd)) {
		perror(path);
		exit(2);
	}
}

static struct timespec ctime_of(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		perror(path);
		exit(2);
	}
	return st.st_ctim;
}

/*
 * Map the executable segment of the ELF file at @path as the loader would
 * (the kernel makes tables only for a mapping at that segment's offset).
 */
static void *map_text(const char *path, size_t *len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	long pg = sysconf(_SC_PAGESIZE);
	void *map = MAP_FAILED;
	int fd = open(path, O_RDONLY);
	int i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		off_t off;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		off = ph.p_offset & ~(pg - 1);
		*len = ph.p_offset + ph.p_filesz - off;
		map = mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
			   off);
		break;
	}
out:
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "rewrite: cannot map the code of %s\n", path);
		exit(2);
	}
	return map;
}

static long stat_of(const char *field)
{
	char name[64];
	long v = -1, n;
	FILE *f = fopen("/sys/kernel/debug/sframe_tables", "r");

	while (f && fscanf(f, "%63s %ld", name, &n) == 2)
		if (!strcmp(name, field))
			v = n;
	if (f)
		fclose(f);
	return v;
}

static long idle_files(void)
{
	return stat_of("idle_files");
}

/* -i: DST deleted, and B written in a new file with DST's inode number */
static int reuse(const char *a, size_t alen, const char *b, size_t blen,
		 const char *dst)
{
	struct timespec settle = { .tv_sec = 1, .tv_nsec = 100000000 };
	struct stat sa, sb;
	long idle0, idle1;
	int status;
	pid_t pid;

	unlink(dst);
	put(dst, a, alen);
	if (stat(dst, &sa)) {
		perror(dst);
		return 2;
	}
	/* a change time in the past, also for file systems with seconds */
	while (nanosleep(&settle, &settle) && errno == EINTR)
		;
	idle0 = idle_files();
	/*
	 * Run by a child: its tables are made at exec and become idle when
	 * it exits (run without arguments, A only prints its usage).
	 */
	pid = fork();
	if (pid == 0) {
		execl(dst, dst, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 2;
	/* A without arguments exits with its usage status; 127: no exec */
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
		fprintf(stderr, "rewrite: could not run %s (status %#x)\n",
			dst, status);
		return 2;
	}
	idle1 = idle_files();
	if (idle1 <= idle0) {
		fprintf(stderr, "rewrite: %s's tables not kept after its last mapping (idle files %ld -> %ld)\n",
			dst, idle0, idle1);
		return 2;
	}
	if (unlink(dst)) {
		perror(dst);
		return 2;
	}
	put(dst, b, blen);
	if (stat(dst, &sb)) {
		perror(dst);
		return 2;
	}
	if (sb.st_ino != sa.st_ino || sb.st_dev != sa.st_dev) {
		fprintf(stderr, "rewrite: %s got inode %lu, not the deleted file's %lu\n",
			dst, (unsigned long)sb.st_ino, (unsigned long)sa.st_ino);
		return 2;
	}
	fprintf(stderr, "rewrite: %s reuses inode %lu (idle files %ld -> %ld)\n",
		dst, (unsigned long)sb.st_ino, idle0, idle1);
	return 0;
}

int main(int argc, char **argv)
{
	size_t alen, blen, maplen = 0;
	char *a, *b;
	long us_map = 0, us_all = 0, b0 = 0, b1 = 0;
	struct timespec start;
	int tries, status, hit = 0, inode_reuse = 0;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "-i")) {
		inode_reuse = 1;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: rewrite [-i] A B DST [ARG...]\n");
		return 2;
	}
	a = slurp(argv[1], &alen);
	b = slurp(argv[2], &blen);
	if (inode_reuse) {
		if (reuse(a, alen, b, blen, argv[3]))
			return 2;
		goto run;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (tries = 1; !hit; tries++) {
		struct timespec t0, t, c1, c2, m0, m1, m2;
		void *map;

		/* start right after a tick of the coarse clock */
		clock_gettime(CLOCK_REALTIME_COARSE, &t0);
		do
			clock_gettime(CLOCK_REALTIME_COARSE, &t);
		while (t.tv_sec == t0.tv_sec && t.tv_nsec == t0.tv_nsec);

		unlink(argv[3]);
		b0 = stat_of("builds");
		clock_gettime(CLOCK_MONOTONIC, &m0);
		put(argv[3], a, alen);
		c1 = ctime_of(argv[3]);
		map = map_text(argv[3], &maplen);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		put(argv[3], b, blen);
		c2 = ctime_of(argv[3]);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		b1 = stat_of("builds");
		us_map = (m1.tv_sec - m0.tv_sec) * 1000000 +
			 (m1.tv_nsec - m0.tv_nsec) / 1000;
		us_all = (m2.tv_sec - m0.tv_sec) * 1000000 +
			 (m2.tv_nsec - m0.tv_nsec) / 1000;
		if (c1.tv_sec == c2.tv_sec && c1.tv_nsec == c2.tv_nsec) {
			fprintf(stderr, "rewrite: %s rewritten in the tick of its mapping (try %d, %ld us; files read for the mapping: %ld)\n",
				argv[3], tries, us_all, b1 - b0);
			hit = 1;
			break;
		}
		if (m2.tv_sec - start.tv_sec >= 20)
			break;
		munmap(map, maplen);
	}
	if (!hit)
		fprintf(stderr, "rewrite: never rewrote %s within one tick in %d tries (last try: %ld us to write and map it, %ld us in all); runs it anyway\n",
			argv[3], tries, us_map, us_all);
run:
	pid = fork();
	if (pid == 0) {
		execv(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	/* DST stays: perf names the child's frames from it afterwards */
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
