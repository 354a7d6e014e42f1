// SPDX-License-Identifier: GPL-2.0
/*
 * wantstacks CMD [ARG...]: run CMD while the kernel knows that someone
 * wants user stacks, without sampling anything.
 *
 * Opens a perf event that asks for callchains (PERF_SAMPLE_CALLCHAIN) on
 * the software "dummy" event, which never fires, and keeps it open
 * across the exec of CMD: while it is open, the kernel makes the unwind
 * tables of every new mapping when it is mapped, as under perf record -g
 * (tables.sh measures their memory that way).  Exits 126 if the event
 * cannot be opened, 127 if CMD cannot be run.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: wantstacks CMD [ARG...]\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	/* no PERF_FLAG_FD_CLOEXEC: the event stays open in CMD */
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("wantstacks: perf_event_open");
		return 126;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
