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
 * time only would unwind B with A's tables.  Exit status: the child's.
 */
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

int main(int argc, char **argv)
{
	size_t alen, blen;
	char *a, *b;
	long us_map = 0, us_all = 0;
	struct timespec start;
	int tries, status, hit = 0;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: rewrite A B DST [ARG...]\n");
		return 2;
	}
	a = slurp(argv[1], &alen);
	b = slurp(argv[2], &blen);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (tries = 1; !hit; tries++) {
		struct timespec t0, t, c1, c2, m0, m1, m2;
		void *map;
		int fd;

		/* start right after a tick of the coarse clock */
		clock_gettime(CLOCK_REALTIME_COARSE, &t0);
		do
			clock_gettime(CLOCK_REALTIME_COARSE, &t);
		while (t.tv_sec == t0.tv_sec && t.tv_nsec == t0.tv_nsec);

		unlink(argv[3]);
		clock_gettime(CLOCK_MONOTONIC, &m0);
		put(argv[3], a, alen);
		c1 = ctime_of(argv[3]);
		fd = open(argv[3], O_RDONLY);
		map = mmap(NULL, alen, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (fd < 0 || map == MAP_FAILED) {
			perror("mmap");
			return 2;
		}
		close(fd);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		put(argv[3], b, blen);
		c2 = ctime_of(argv[3]);
		clock_gettime(CLOCK_MONOTONIC, &m2);
		us_map = (m1.tv_sec - m0.tv_sec) * 1000000 +
			 (m1.tv_nsec - m0.tv_nsec) / 1000;
		us_all = (m2.tv_sec - m0.tv_sec) * 1000000 +
			 (m2.tv_nsec - m0.tv_nsec) / 1000;
		if (c1.tv_sec == c2.tv_sec && c1.tv_nsec == c2.tv_nsec) {
			fprintf(stderr, "rewrite: %s rewritten in the tick of its mapping (try %d, %ld us)\n",
				argv[3], tries, us_all);
			hit = 1;
			break;
		}
		if (m2.tv_sec - start.tv_sec >= 20)
			break;
		munmap(map, alen);
	}
	if (!hit)
		fprintf(stderr, "rewrite: never rewrote %s within one tick in %d tries (last try: %ld us to write and map it, %ld us in all); runs it anyway\n",
			argv[3], tries, us_map, us_all);
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
