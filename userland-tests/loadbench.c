// SPDX-License-Identifier: GPL-2.0
/*
 * What the unwind tables cost exec and dlopen: the time of one exec of a
 * program (fork, exec, wait) or of one dlopen() of a library, with
 * kernel.sframe_unwind at 0 (nothing is read) and at its value when
 * loadbench starts (tables are built from .sframe and .eh_frame).
 *
 *   loadbench [-w] exec ROUNDS PROG ARG
 *   loadbench [-w] dlopen ROUNDS LIB
 *
 * Each round sets the sysctl, forks a child that execs PROG (or dlopens
 * and dlcloses LIB) PER times, timing each with CLOCK_MONOTONIC, and
 * sends the times back; rounds alternate between off and on, so that both
 * see the same machine.  The children are forked from loadbench, which
 * keeps the tables of the C library and ld.so in the kernel's cache.
 * Without -w each load is of a fresh copy of PROG or LIB in $TMPDIR (made
 * and removed outside the timing): a file the kernel has never seen, so
 * its tables are read and built by that exec or dlopen ("first").  With
 * -w, a process that maps PROG or LIB ("PROG wait", or a child that
 * dlopens LIB) runs meanwhile and every load is of that file: its tables
 * are in the kernel's cache ("warm").
 * Prints, in microseconds,
 *   exec|dlopen NAME first|warm: N runs each, median off A us, on B us,
 *   ratio B/A
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER		10
#define SYSCTL		"/proc/sys/kernel/sframe_unwind"

static const char *mode, *target, *arg;
static int warm;

static void die(const char *what)
{
	fprintf(stderr, "loadbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Copy @from to a new file @to (mode 0755). */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0755);
	if (in < 0 || out < 0)
		die(to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			die(to);
	if (n < 0 || close(out))
		die(to);
	close(in);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void set_level(const char *v)
{
	FILE *f = fopen(SYSCTL, "w");

	if (!f || fputs(v, f) < 0 || fclose(f))
		die(SYSCTL);
}

/* One load of @path; returns its time in ns. */
static long long load_once(const char *path)
{
	long long t = now_ns();

	if (!strcmp(mode, "exec")) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			execl(path, path, arg, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "loadbench: %s %s failed\n", path, arg);
			exit(1);
		}
		return now_ns() - t;
	} else {
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

		t = now_ns() - t;
		if (!h) {
			fprintf(stderr, "loadbench: %s\n", dlerror());
			exit(1);
		}
		dlclose(h);
		return t;
	}
}

/* A round: a child loads the target PER times; their times in @out. */
static void round_times(long long *out)
{
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		const char *tmp = getenv("TMPDIR");
		char copy[4096];
		long long t[PER];
		int i;

		for (i = 0; i < PER; i++) {
			if (warm) {
				t[i] = load_once(target);
				continue;
			}
			snprintf(copy, sizeof(copy), "%s/loadbench-%d-%d%s",
				 tmp ? tmp : "/tmp", getpid(), i,
				 strcmp(mode, "exec") ? ".so" : "");
			copy_file(target, copy);
			t[i] = load_once(copy);
			unlink(copy);
		}
		_exit(write(fds[1], t, sizeof(t)) == sizeof(t) ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], out, PER * sizeof(*out)) != PER * sizeof(*out) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "loadbench: a round failed\n");
		exit(1);
	}
	close(fds[0]);
}

/* A process that maps the target and waits for SIGTERM. */
static pid_t start_holder(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		if (!strcmp(mode, "exec")) {
			execl(target, target, "wait", (char *)NULL);
		} else if (dlopen(target, RTLD_NOW | RTLD_LOCAL)) {
			pause();
			_exit(0);
		}
		_exit(127);
	}
	usleep(500000);
	return pid;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long median(long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	long long *off, *on, m_off, m_on;
	int rounds, r;
	char level[16] = "";
	const char *name;
	pid_t holder = 0;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		warm = 1;
		argc--;
		argv++;
	}
	if (argc < 4 || (strcmp(argv[1], "exec") && strcmp(argv[1], "dlopen")) ||
	    (!strcmp(argv[1], "exec") && argc != 5)) {
		fprintf(stderr, "usage: loadbench [-w] exec ROUNDS PROG ARG | [-w] dlopen ROUNDS LIB\n");
		return 2;
	}
	mode = argv[1];
	rounds = atoi(argv[2]);
	target = argv[3];
	arg = argc > 4 ? argv[4] : NULL;
	if (rounds < 1)
		rounds = 1;
	f = fopen(SYSCTL, "r");
	if (!f || !fgets(level, sizeof(level), f))
		die(SYSCTL);
	fclose(f);
	if (!strcmp(level, "0\n")) {
		fprintf(stderr, "loadbench: %s is 0 already\n", SYSCTL);
		return 1;
	}
	off = calloc(rounds * PER, sizeof(*off));
	on = calloc(rounds * PER, sizeof(*on));
	if (!off || !on)
		die("calloc");
	if (warm)
		holder = start_holder();
	for (r = 0; r < rounds; r++) {
		set_level("0");
		round_times(off + r * PER);
		set_level(level);
		round_times(on + r * PER);
	}
	if (holder) {
		kill(holder, SIGTERM);
		waitpid(holder, NULL, 0);
	}
	m_off = median(off, rounds * PER);
	m_on = median(on, rounds * PER);
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	printf("%s %s %s: %d runs each, median off %lld us, on %lld us, ratio %.2f\n",
	       mode, name, warm ? "warm" : "first", rounds * PER,
	       m_off / 1000, m_on / 1000, (double)m_on / m_off);
	return 0;
}
