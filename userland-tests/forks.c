// SPDX-License-Identifier: GPL-2.0
/*
 * fork and exec: the SFrame state of a process must survive (and not be
 * shared with) its children, and must be replaced at exec.
 *
 *   forks fork [ms]
 *	The child runs fc_hot <- fc_mid <- fc_child <- do_fork <- main,
 *	then exits; the parent waits for it and only then runs
 *	fp_hot <- fp_mid <- do_fork <- main: a parent whose state was freed
 *	along with the child's (shared instead of copied) is caught here.
 *
 *   forks orphan [ms]
 *	A child forks a grandchild and exits at once; the grandchild,
 *	reparented, runs fo_hot <- fo_mid <- fo_grandchild <- fo_child <-
 *	do_orphan <- main.  The original process waits until the grandchild
 *	has exited (end of file on a pipe) so that perf record keeps
 *	recording.
 *
 *   In both, the forking function has an 8 KiB buffer on its stack, used
 *   before the fork: main's frame is then on a page the child does not
 *   touch after the fork.  fork() marks the child's page table entries
 *   old; on arm64 without hardware access flag management, reading such
 *   a page from the sampling interrupt fails until the child touches it,
 *   so the chain must end early unless the kernel has
 *   CONFIG_ARM64_HW_AFDBM and the CPU the feature.  The buffer makes that
 *   case certain instead of depending on where the stack starts (ASLR).
 *
 *   forks exec MS PROG [ARGS...]
 *	Runs fe_hot <- fe_mid <- do_exec <- main for MS ms, then execs PROG:
 *	the samples of PROG must use PROG's SFrame data, not stale data of
 *	this program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

DEFINE_HOT(fc_hot)
DEFINE_HOT(fp_hot)
DEFINE_HOT(fo_hot)
DEFINE_HOT(fe_hot)

noipa long fc_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += fc_hot(SPIN);
	return acc;
}

/*
 * The children's functions return and their callers exit: a call to a
 * noreturn function as the last instruction of the caller would make perf
 * print a return address past the caller's end (the noreturn shape tests
 * that case on purpose; here it would only blur what is tested).
 */
noipa void fc_child(long ms)
{
	long r = fc_mid(ms);

	NOTAIL(r);
}

noipa long fp_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += fp_hot(SPIN);
	return acc;
}

noipa long fo_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += fo_hot(SPIN);
	return acc;
}

noipa void fo_grandchild(long ms)
{
	long r = fo_mid(ms);

	NOTAIL(r);
}

noipa void fo_child(long ms, int wfd)
{
	pid_t pid = fork();
	int rc;

	if (pid < 0) {
		perror("forks: fork");
		_exit(1);
	}
	if (pid == 0) {
		fo_grandchild(ms);	/* keeps wfd open until it exits */
		exit(0);
	}
	rc = close(wfd);
	NOTAIL(rc);
}

noipa long fe_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += fe_hot(SPIN);
	return acc;
}

noipa int wait_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Stack between main's frame and the frames a child touches. */
#define GAP	8192

noipa int do_fork(long ms)
{
	unsigned char gap[GAP];
	pid_t pid;
	long r;

	use_buf(gap, sizeof(gap));
	pid = fork();
	if (pid < 0) {
		perror("forks: fork");
		return 1;
	}
	if (pid == 0) {
		fc_child(ms);
		exit(0);
	}
	if (!wait_ok(pid)) {
		fprintf(stderr, "forks: child failed\n");
		return 1;
	}
	r = fp_mid(ms);
	NOTAIL(r);
	return gap[0] != 0;	/* 0: use_buf() wrote it */
}

noipa int do_orphan(long ms)
{
	unsigned char gap[GAP];
	int fds[2];
	char c;
	pid_t pid;

	use_buf(gap, sizeof(gap));
	if (pipe(fds)) {
		perror("forks: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("forks: fork");
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		fo_child(ms, fds[1]);
		_exit(0);
	}
	close(fds[1]);
	if (!wait_ok(pid)) {
		fprintf(stderr, "forks: child failed\n");
		return 1;
	}
	/* EOF once the grandchild has exited. */
	while (read(fds[0], &c, 1) > 0)
		;
	close(fds[0]);
	return gap[0] != 0;
}

noipa int do_exec(long ms, char **argv)
{
	long r = fe_mid(ms);

	NOTAIL(r);
	execv(argv[0], argv);
	perror("forks: execv");
	return 1;
}

int main(int argc, char **argv)
{
	int r;

	if (argc >= 2 && !strcmp(argv[1], "fork"))
		r = do_fork(parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS));
	else if (argc >= 2 && !strcmp(argv[1], "orphan"))
		r = do_orphan(parse_ms(argc > 2 ? argv[2] : NULL, DEFAULT_MS));
	else if (argc >= 4 && !strcmp(argv[1], "exec"))
		r = do_exec(parse_ms(argv[2], DEFAULT_MS), argv + 3);
	else {
		fprintf(stderr, "usage: forks fork|orphan [ms] | forks exec ms PROG [ARGS...]\n");
		r = 2;
	}
	NOTAIL(r);
	return r;
}
