// SPDX-License-Identifier: GPL-2.0
/*
 * mapexec FILE: map the first page of FILE readable and executable,
 * private, and make one more system call, so that the kernel's update of
 * the process's unwind tables (a task_work on the way back from mmap())
 * has run; then exit.  run-tests.sh's devzero-exec-reads-nothing maps
 * /dev/zero: it has a file but nothing the kernel may read as an object.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	void *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: mapexec FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	getppid();
	printf("mapped %s at %p\n", argv[1], p);
	return 0;
}
