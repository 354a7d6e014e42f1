// SPDX-License-Identifier: GPL-2.0
/*
 * churn: the workload of the stress test (stress.sh, `make stress`).  Each
 * mode repeats one kind of lifecycle change of executable mappings for
 * SECONDS of wall-clock time, and between its operations spins in
 * functions of its own (built with .sframe, without frame pointers) so
 * that the system-wide samples of perf land in them, now and then under
 * 200 frames of recursion: deeper than kernel.perf_event_max_stack, so
 * the kernel must cut those chains at the limit.
 *
 *   churn [-d DIR] MODE SECONDS [ARGS]
 *
 * DIR (default /tests) holds the test programs: shapes, shapes-static,
 * libsfchain.so and libsfdl.so.  Copies go to $TMPDIR (default /tmp).
 *
 *   fork     children that spin a few ms and exit; children that exec
 *            DIR/shapes or DIR/shapes-static (`leaf 20`), some through
 *            posix_spawn (vfork); children that fork a grandchild and
 *            exit at once (orphans: churn is a child subreaper, they come
 *            back to it); children killed while they spin.
 *   threads  bursts of 1 to 8 threads that spin 1 to 3 ms and are joined,
 *            some of them exiting from 200 frames deep; up to 4 threads
 *            left running (spin 1 ms, sleep 10 ms) until the process
 *            exits under them; one thread that maps and
 *            unmaps the code of DIR/libsfdl.so all along (the table of
 *            the mm changes while its other threads are sampled).
 *   mmap     DIR/libsfchain.so, DIR/libsfdl.so and DIR/shapes mapped
 *            PROT_READ|PROT_EXEC, MAP_PRIVATE: whole from offset 0 where
 *            the kernel chooses; segment by segment as ld.so does
 *            (PROT_NONE reservation, MAP_FIXED), the code mprotect'ed
 *            RX -> RW -> RX; three pages from the code on, with a page
 *            unmapped at one end or in the middle, then moved, shrunk and
 *            grown back with mremap; the code alone at a hinted address,
 *            MAP_SHARED, and PROT_READ made RX by mprotect; an anonymous
 *            mapping RW -> RX -> RW -> RX; at the start and every 60 s,
 *            4200 one-page mappings of code at once (more objects than the
 *            kernel keeps per process; fewer if the run ends first: each
 *            costs the kernel a copy of the process's table, and under
 *            TCG with KASAN arm64 maps about 16 a second).  Nothing runs
 *            from them.
 *   dlopen   dlopen, call dl_entry, dlclose of DIR/libsfdl.so and of a
 *            copy of it in $TMPDIR (a second file): reloaded where it
 *            was, and elsewhere while a PROT_NONE mapping holds its old
 *            range; both loaded at once; the copy replaced by a new file
 *            now and then.  dl_entry runs under 0 or 200 frames of churn.
 *   snapshot for the use-after-free that the update of a process's
 *            table once had on preemptible kernels (it read the old
 *            table again after dropping mmap_lock, when another thread
 *            could have replaced and freed it): a pair of threads on
 *            each of two CPUs.  A SCHED_IDLE thread maps and unmaps the
 *            code of DIR/libsfdl.so in a loop: each mapping runs an
 *            update on the way back to user space.  A thread of normal
 *            priority wakes after 1-3 ms and maps the code of
 *            DIR/libsfchain.so: when it finds mmap_lock read-held by
 *            the other's update it sleeps, and the unlock wakes it,
 *            which preempts the SCHED_IDLE thread right after the
 *            unlock.  Its update
 *            replaces the table the other thread snapshotted; it writes
 *            2 to /proc/sys/vm/drop_caches (whose slab shrink had
 *            kvfree_rcu(), before patch 0035, free the old table after
 *            the next grace period rather than in 5 s), and keeps the
 *            CPU for 100 ms
 *            of its CPU time (5.5 s if it cannot write there): the
 *            other thread runs on after the free, and KASAN reports the
 *            use after free.  A race, not a certainty: on the stress
 *            kernel with the bug, one to four reports a minute.  The
 *            drop_caches writes also evict idle tables all along.
 *   hostile HDIR
 *            for every file of HDIR (hostile ELF files, hostile-elf.c), in
 *            name order and again until SECONDS have passed: mmap it
 *            PROT_READ|PROT_EXEC whole, from offset 0 to 3 pages past its
 *            end, and each executable PT_LOAD its program headers
 *            describe at the file offset ld.so would use (one of them
 *            mapped PROT_READ, then mprotect'ed to RX); touch nothing;
 *            munmap.  Once every file is mapped, for each file in turn
 *            (as long as there is time), exec a copy of it in $TMPDIR (arguments
 *            `leaf 20`, or `lib 20` for dso's variants) in a child that
 *            is killed after 200 ms (alarm(1) as a backstop): failed
 *            execs and crashes are expected.  While it maps a file the
 *            process is named after it (kernel splats then name the
 *            file); the copy keeps perf from reading hostile files.
 *
 * Prints one line of counts.  Exit status 0, or 1 if something that
 * must work did not (fork, exec of shapes, dlopen, mapping a good file,
 * a child's exit status); no child is left behind: every descendant is
 * reaped, or killed and reaped, before churn exits.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

extern char **environ;

#define DEEP		200	/* frames of ch_deep under a deep sample */
#define MAX_KIDS	12	/* children of the fork mode at once */
#define MANY_MAPS	4200	/* > SFRAME_MAX_OBJS (4096) */
#define HOSTILE_MS	200	/* a hostile program runs that long at most */

static const char *dir = "/tests";
static const char *tmpdir = "/tmp";
static const char *mode = "?";
static volatile sig_atomic_t stop;
static struct timespec t_end;
static unsigned long page;
static unsigned long errors;

/* ---- the sampled work --------------------------------------------- */

DEFINE_HOT(ch_hot)

/* Spin @ms of the calling thread's CPU time. */
noipa long ch_spin(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += ch_hot(SPIN / 10);
	return acc;
}

typedef long (*work_fn)(long);

/* @depth frames of ch_deep, then @fn(@ms). */
noipa long ch_deep(int depth, work_fn fn, long ms)
{
	long r;

	if (depth > 0)
		r = ch_deep(depth - 1, fn, ms);
	else
		r = fn(ms);
	NOTAIL(r);
	return r;
}

noipa long ch_work(long ms, int deep)
{
	long r = ch_deep(deep ? DEEP : 0, ch_spin, ms);

	NOTAIL(r);
	return r;
}

/* ---- helpers ------------------------------------------------------ */

static void on_signal(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int running(void)
{
	struct timespec t;

	if (stop)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec < t_end.tv_sec ||
	       (t.tv_sec == t_end.tv_sec && t.tv_nsec < t_end.tv_nsec);
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* Something that must work did not: report (the first 20) and count. */
static void __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) >= 20)
		return;
	fprintf(stderr, "churn %s: ", mode);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* xorshift32: deterministic choices; a state per thread */
static unsigned int rnd(unsigned int *s)
{
	unsigned int x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static char *path_in(const char *d, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", d, name) < 0) {
		perror("churn: asprintf");
		exit(1);
	}
	return p;
}

static int copy_file(const char *from, const char *to, mode_t perm)
{
	char buf[65536];
	int in, out, ret = -1;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, perm);
	if (out < 0)
		goto out_in;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			goto out_out;
	if (!n && !fchmod(out, perm))
		ret = 0;
out_out:
	if (close(out))
		ret = -1;
out_in:
	close(in);
	return ret;
}

/* In a child: stdio to /dev/null, default signal dispositions. */
static void child_setup(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

/* ---- children ----------------------------------------------------- */

enum kid_kind { KID_PLAIN, KID_EXEC, KID_ORPHAN, KID_SPAWN, KID_KILLED,
		KID_HOSTILE, KID_OTHER };

struct kid {
	pid_t pid;
	enum kid_kind kind;
};

static struct kid kids[MAX_KIDS + 4];
static int nkids;
static unsigned long reaped, orphans_reaped, killed_ok;

static void kid_add(pid_t pid, enum kid_kind kind)
{
	kids[nkids].pid = pid;
	kids[nkids].kind = kind;
	nkids++;
}

/* Account for the end of child @pid; its exit status must fit its kind. */
static void kid_done(pid_t pid, int st)
{
	enum kid_kind kind = KID_OTHER;
	int i;

	for (i = 0; i < nkids; i++) {
		if (kids[i].pid == pid) {
			kind = kids[i].kind;
			kids[i] = kids[--nkids];
			break;
		}
	}
	reaped++;
	if (kind == KID_OTHER)
		orphans_reaped++;
	if (kind == KID_KILLED &&
	    ((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) ||
	     (WIFEXITED(st) && !WEXITSTATUS(st)))) {
		killed_ok++;
		return;
	}
	/* hostile programs (and whatever they fork) may end in any way */
	if (kind == KID_HOSTILE || !strcmp(mode, "hostile"))
		return;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return;
	if (WIFEXITED(st))
		fail("child %d (kind %d) exited with %d", pid, kind,
		     WEXITSTATUS(st));
	else
		fail("child %d (kind %d) killed by signal %d", pid, kind,
		     WTERMSIG(st));
}

/* Reap what has ended; with @block, wait until one has (or time is up). */
static void reap(int block)
{
	pid_t pid;
	int st;

	for (;;) {
		pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			kid_done(pid, st);
			block = 0;
			continue;
		}
		if (pid < 0 || !block || !running())
			return;
		sleep_ms(1);
	}
}

/* Kill every child of ours (from /proc) and its process group. */
static void kill_children(void)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	int ppid, pgid;
	DIR *d;
	FILE *f;

	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (!p)
			continue;
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %d %d", &ppid, &pgid) != 2 ||
		    ppid != getpid())
			continue;
		/* our child, not yet reaped: its pid cannot be reused */
		if (pgid == atoi(de->d_name))
			kill(-pgid, SIGKILL);
		kill(atoi(de->d_name), SIGKILL);
	}
	closedir(d);
}

/*
 * Reap every descendant (churn is their subreaper): give them 5 s to end
 * on their own, then kill them; complain if some are still there at 20 s.
 */
static void reap_all(void)
{
	double t0 = now();
	int killed = 0;
	pid_t pid;
	int st;

	for (;;) {
		pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			kid_done(pid, st);
			continue;
		}
		if (pid < 0 && errno == ECHILD)
			return;
		if (pid < 0 && errno != EINTR) {
			fail("waitpid: %s", strerror(errno));
			return;
		}
		if (now() - t0 > 5) {
			if (!killed)
				fprintf(stderr, "churn %s: killing children still there after 5 s\n",
					mode);
			killed = 1;
			kill_children();
		}
		if (now() - t0 > 20) {
			fail("children still there after 20 s");
			return;
		}
		sleep_ms(10);
	}
}

/* ---- ELF program headers (of good and of hostile files) ----------- */

struct seg {
	unsigned long vaddr, memsz, filesz, off;
	int prot;
};

/*
 * The PT_LOAD entries of the ELF64 file @fd (at most @max, bounds-checked
 * reads: the file may be hostile).  Returns their number, 0 if none or
 * not an ELF64 file.
 */
static int elf_loads(int fd, struct seg *segs, int max)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i, n = 0;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phoff > (1UL << 40))
		return 0;
	for (i = 0; i < eh.e_phnum && i < 64 && n < (unsigned int)max; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD)
			continue;
		segs[n].vaddr = ph.p_vaddr;
		segs[n].memsz = ph.p_memsz;
		segs[n].filesz = ph.p_filesz;
		segs[n].off = ph.p_offset;
		segs[n].prot = (ph.p_flags & PF_R ? PROT_READ : 0) |
			       (ph.p_flags & PF_W ? PROT_WRITE : 0) |
			       (ph.p_flags & PF_X ? PROT_EXEC : 0);
		n++;
	}
	return n;
}

/* ---- fork --------------------------------------------------------- */

static const char *const shapes_progs[] = { "shapes", "shapes-static" };

static unsigned long n_plain, n_exec, n_orphan, n_spawn, n_killed;

static pid_t spawn_kid(unsigned long i, char *const progs[])
{
	enum kid_kind kind;
	pid_t pid, gc;

	switch (i % 10) {
	case 0: case 1: case 2: case 3:
		kind = KID_PLAIN;
		break;
	case 4: case 5:
		kind = KID_EXEC;
		break;
	case 6: case 7:
		kind = KID_ORPHAN;
		break;
	case 8:
		kind = KID_SPAWN;
		break;
	default:
		kind = KID_KILLED;
		break;
	}

	if (kind == KID_SPAWN) {
		char *argv[] = { "shapes", "leaf", "10", NULL };
		posix_spawn_file_actions_t fa;
		posix_spawnattr_t at;
		int ret;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		posix_spawnattr_init(&at);
		posix_spawnattr_setpgroup(&at, 0);
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
		ret = posix_spawn(&pid, progs[0], &fa, &at, argv, environ);
		posix_spawnattr_destroy(&at);
		posix_spawn_file_actions_destroy(&fa);
		if (ret) {
			fail("posix_spawn %s: %s", progs[0], strerror(ret));
			return -1;
		}
		kid_add(pid, kind);
		n_spawn++;
		return pid;
	}

	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		setpgid(0, 0);
		child_setup();
		switch (kind) {
		case KID_PLAIN:
			ch_work(2 + i % 3, i % 5 == 0);
			_exit(0);
		case KID_EXEC:
			execl(progs[i % 2], shapes_progs[i % 2], "leaf", "20",
			      (char *)NULL);
			_exit(127);
		case KID_ORPHAN:
			gc = fork();
			if (gc < 0)
				_exit(3);
			if (!gc) {
				ch_work(3, i % 4 == 2);
				_exit(0);
			}
			_exit(0);
		default:	/* KID_KILLED */
			ch_work(500, i % 2);
			_exit(0);
		}
	}
	setpgid(pid, pid);
	kid_add(pid, kind);
	switch (kind) {
	case KID_PLAIN: n_plain++; break;
	case KID_EXEC: n_exec++; break;
	case KID_ORPHAN: n_orphan++; break;
	default:
		n_killed++;
		ch_work(2, 0);
		kill(pid, SIGKILL);
		break;
	}
	return pid;
}

static int do_fork(void)
{
	char *progs[2];
	unsigned long i = 0;

	progs[0] = path_in(dir, shapes_progs[0]);
	progs[1] = path_in(dir, shapes_progs[1]);
	if (access(progs[0], X_OK) || access(progs[1], X_OK)) {
		fail("%s or %s: %s", progs[0], progs[1], strerror(errno));
		return 1;
	}
	while (running()) {
		while (nkids >= MAX_KIDS && running())
			reap(1);
		if (!running())
			break;
		if (spawn_kid(i, progs) < 0)
			sleep_ms(100);
		ch_work(1, i % 7 == 3);
		reap(0);
		i++;
	}
	reap_all();
	printf("churn fork: %lu children: %lu spun, %lu exec'd shapes, %lu posix_spawn'ed, %lu left an orphan, %lu killed; %lu reaped (%lu orphans); %lu errors\n",
	       i, n_plain, n_exec, n_spawn, n_orphan, n_killed, reaped,
	       orphans_reaped, errors);
	return 0;
}

/* ---- threads ------------------------------------------------------ */

struct th_arg {
	long ms;
	int deep;
	int exit_deep;
};

static unsigned long th_created, th_forever, th_maps;
static char *th_lib;

noipa long th_exit_spin(long ms)
{
	ch_spin(ms);
	pthread_exit(NULL);
}

static void *th_burst(void *p)
{
	struct th_arg *a = p;

	if (a->exit_deep)
		ch_deep(DEEP, th_exit_spin, a->ms);
	ch_work(a->ms, a->deep);
	return NULL;
}

/* Left running: the process exits under it. */
static void *th_loop(void *p)
{
	unsigned long i = 0;

	for (;;) {
		ch_work(1, ++i % 8 == 0);
		sleep_ms(10);
	}
	return NULL;
}

/*
 * Open @path and find the page-aligned file range of its (last)
 * executable segment: @off, @len.  Returns the descriptor, or -1.
 */
static int text_open(const char *path, unsigned long *off, unsigned long *len)
{
	struct seg segs[8];
	int fd, n, i, text = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail("%s: %s", path, strerror(errno));
		return -1;
	}
	n = elf_loads(fd, segs, 8);
	for (i = 0; i < n; i++)
		if (segs[i].prot & PROT_EXEC)
			text = i;
	if (text < 0) {
		fail("%s: no executable segment", path);
		close(fd);
		return -1;
	}
	*off = segs[text].off & ~(page - 1);
	*len = segs[text].filesz + (segs[text].off & (page - 1));
	return fd;
}

/* Maps and unmaps the code of libsfdl.so while the others run. */
static void *th_mapper(void *p)
{
	unsigned long off, len;
	void *m;
	int fd;

	fd = text_open(th_lib, &off, &len);
	if (fd < 0)
		return NULL;
	while (running()) {
		m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
		if (m == MAP_FAILED) {
			fail("mmap %s: %s", th_lib, strerror(errno));
			break;
		}
		ch_spin(1);
		munmap(m, len);
		__atomic_fetch_add(&th_maps, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

static int do_threads(void)
{
	struct th_arg args[8];
	pthread_t t[8], mapper, lt;
	pthread_attr_t small;
	unsigned long bursts = 0;
	unsigned int s = 12345;
	int i, n, ret;

	th_lib = path_in(dir, "libsfdl.so");
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 256 * 1024);
	ret = pthread_create(&mapper, NULL, th_mapper, NULL);
	if (ret) {
		fail("pthread_create: %s", strerror(ret));
		return 1;
	}
	while (running()) {
		n = 1 + rnd(&s) % 8;
		for (i = 0; i < n; i++) {
			args[i].ms = 1 + rnd(&s) % 3;
			args[i].deep = rnd(&s) % 4 == 0;
			args[i].exit_deep = rnd(&s) % 8 == 0;
			ret = pthread_create(&t[i], i & 1 ? &small : NULL,
					     th_burst, &args[i]);
			if (ret) {
				fail("pthread_create: %s", strerror(ret));
				break;
			}
			th_created++;
		}
		n = i;
		ch_work(1, bursts % 5 == 0);
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		/* one more thread left running at bursts 1, 100, 200, 300 */
		if (th_forever < 4 && bursts % 100 == 1) {
			ret = pthread_create(&lt, &small, th_loop, NULL);
			if (ret)
				fail("pthread_create: %s", strerror(ret));
			else
				th_forever++;
		}
		bursts++;
	}
	pthread_join(mapper, NULL);
	printf("churn threads: %lu bursts, %lu threads joined, %lu left running, %lu code mappings by a thread; %lu errors\n",
	       bursts, th_created, th_forever, th_maps, errors);
	/* exit() with the th_loop threads still running */
	return 0;
}

/* ---- mmap --------------------------------------------------------- */

struct obj {
	char *path;
	int fd;
	off_t size;
	struct seg segs[8];
	int nsegs;
	int text;
	unsigned long lo, hi;	/* page-aligned span of the segments */
};

static unsigned long n_maps, n_mprotect, n_mremap, n_munmap, n_many;

static int obj_open(struct obj *o, const char *name)
{
	struct stat st;
	int i;

	o->path = path_in(dir, name);
	o->fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0 || fstat(o->fd, &st)) {
		fail("%s: %s", o->path, strerror(errno));
		return -1;
	}
	o->size = st.st_size;
	o->nsegs = elf_loads(o->fd, o->segs, 8);
	o->text = -1;
	o->lo = ~0UL;
	o->hi = 0;
	for (i = 0; i < o->nsegs; i++) {
		if (o->segs[i].prot & PROT_EXEC && o->text < 0)
			o->text = i;
		if ((o->segs[i].vaddr & ~(page - 1)) < o->lo)
			o->lo = o->segs[i].vaddr & ~(page - 1);
		if (o->segs[i].vaddr + o->segs[i].memsz > o->hi)
			o->hi = o->segs[i].vaddr + o->segs[i].memsz;
	}
	o->hi = (o->hi + page - 1) & ~(page - 1);
	if (o->text < 0 || o->hi <= o->lo) {
		fail("%s: no executable PT_LOAD", o->path);
		return -1;
	}
	return 0;
}

static void *map(void *addr, unsigned long len, int prot, int flags, int fd,
		 unsigned long off, const char *what)
{
	void *m = mmap(addr, len, prot, flags, fd, off);

	if (m == MAP_FAILED) {
		if (errno != EEXIST)	/* MAP_FIXED_NOREPLACE */
			fail("mmap %s: %s", what, strerror(errno));
		return NULL;
	}
	n_maps++;
	return m;
}

static void unmap(void *m, unsigned long len)
{
	if (!m)
		return;
	if (munmap(m, len))
		fail("munmap: %s", strerror(errno));
	n_munmap++;
}

static void protect(void *m, unsigned long len, int prot)
{
	if (mprotect(m, len, prot))
		fail("mprotect: %s", strerror(errno));
	n_mprotect++;
}

/* The code segment's file offset and length, page-aligned. */
static void text_range(const struct obj *o, unsigned long *off,
		       unsigned long *len)
{
	const struct seg *s = &o->segs[o->text];

	*off = s->off & ~(page - 1);
	*len = (s->filesz + (s->off & (page - 1)) + page - 1) & ~(page - 1);
}

/* Lay @o out as ld.so does, make its code writable and back, unmap it. */
static void mmap_ldso(struct obj *o)
{
	unsigned long span = o->hi - o->lo, a, len;
	const struct seg *s;
	char *base, *text = NULL;
	int j;

	base = map(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0,
		   "reservation");
	if (!base)
		return;
	for (j = 0; j < o->nsegs; j++) {
		s = &o->segs[j];
		a = s->vaddr & ~(page - 1);
		len = (s->vaddr + s->filesz - a + page - 1) & ~(page - 1);
		if (!len)
			continue;
		if (!map(base + a - o->lo, len, s->prot, MAP_PRIVATE | MAP_FIXED,
			 o->fd, s->off & ~(page - 1), o->path))
			goto out;
		if (j == o->text)
			text = base + a - o->lo;
	}
	text_range(o, &a, &len);
	protect(text, len, PROT_READ | PROT_WRITE);
	ch_spin(1);
	protect(text, len, PROT_READ | PROT_EXEC);
out:
	unmap(base, span);
}

/*
 * Three pages of @o from its code on (past the end of the file for the
 * smaller objects: nothing touches them): a hole punched at one end or in
 * the middle, then what is left moved, shrunk and grown again.
 */
static void mmap_split(struct obj *o, unsigned long i)
{
	unsigned long toff, tlen, len = 3 * page;
	char *m, *dst, *moved;

	text_range(o, &toff, &tlen);
	m = map(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, o->fd, toff,
		o->path);
	if (!m)
		return;
	switch (i % 3) {
	case 0:		/* the last page */
		unmap(m + 2 * page, page);
		break;
	case 1:		/* the first page: the rest no longer starts the code */
		unmap(m, page);
		m += page;
		break;
	default:	/* the middle page: two mappings */
		unmap(m + page, page);
		ch_spin(1);
		unmap(m + 2 * page, page);
		break;
	}
	len = 2 * page;
	if (i % 3 == 2)
		len = page;

	/* moved elsewhere, shrunk, grown back in place */
	dst = map(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0,
		  "mremap target");
	if (!dst) {
		unmap(m, len);
		return;
	}
	moved = mremap(m, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	n_mremap++;
	if (moved == MAP_FAILED) {
		fail("mremap: %s", strerror(errno));
		unmap(m, len);
		unmap(dst, 2 * page);
		return;
	}
	ch_spin(1);
	if (len == 2 * page) {
		if (mremap(moved, len, page, 0) == MAP_FAILED)
			fail("mremap shrink: %s", strerror(errno));
		n_mremap++;
		len = page;
	}
	/* the page after it is dst's PROT_NONE tail: make room */
	unmap(moved + page, page);
	if (mremap(moved, page, 2 * page, 0) == MAP_FAILED)
		fail("mremap grow: %s", strerror(errno));
	n_mremap++;
	unmap(moved, 2 * page);
}

static void mmap_round(struct obj *objs, int nobj, unsigned long i)
{
	unsigned long toff, tlen, hint;
	struct obj *o;
	char *m;
	int k;

	for (k = 0; k < nobj && running(); k++) {
		o = &objs[k];
		text_range(o, &toff, &tlen);

		/* whole, from offset 0 */
		m = map(NULL, o->size, PROT_READ | PROT_EXEC, MAP_PRIVATE, o->fd,
			0, o->path);
		ch_spin(1);
		unmap(m, o->size);

		mmap_ldso(o);
		mmap_split(o, i + k);

		/* the code alone, at a hinted address, and at the kernel's */
		hint = 0x1000000000UL + ((i * 3 + k) % 64) * 0x200000UL;
		m = map((void *)hint, tlen, PROT_READ | PROT_EXEC,
			MAP_PRIVATE | MAP_FIXED_NOREPLACE, o->fd, toff, o->path);
		if (!m)
			m = map((void *)hint, tlen, PROT_READ | PROT_EXEC,
				MAP_PRIVATE, o->fd, toff, o->path);
		ch_spin(1);
		unmap(m, tlen);

		/* shared; read-only made executable and back */
		m = map(NULL, tlen, PROT_READ | PROT_EXEC, MAP_SHARED, o->fd,
			toff, o->path);
		unmap(m, tlen);
		m = map(NULL, tlen, PROT_READ, MAP_PRIVATE, o->fd, toff, o->path);
		if (m) {
			protect(m, tlen, PROT_READ | PROT_EXEC);
			protect(m, tlen, PROT_READ);
			protect(m, tlen, PROT_READ | PROT_EXEC);
			unmap(m, tlen);
		}
	}

	/* anonymous: executable without a file */
	m = map(NULL, 2 * page, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, "anonymous");
	if (m) {
		protect(m, 2 * page, PROT_READ | PROT_EXEC);
		protect(m, page, PROT_READ | PROT_WRITE);
		protect(m, 2 * page, PROT_READ | PROT_EXEC);
		unmap(m, 2 * page);
	}
}

/* More executable file mappings than the kernel keeps per process. */
static void mmap_many(struct obj *o)
{
	unsigned long toff, tlen;
	double t0 = now();
	void **m;
	int i, n = 0;

	text_range(o, &toff, &tlen);
	m = calloc(MANY_MAPS, sizeof(*m));
	if (!m)
		return;
	/* until the end of the run: slow guests may not get to MANY_MAPS */
	for (i = 0; i < MANY_MAPS && running(); i++) {
		m[i] = map(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, o->fd,
			   toff, o->path);
		if (!m[i])
			break;
		n++;
	}
	ch_work(2, 1);
	for (i = 0; i < n; i++)
		unmap(m[i], page);
	free(m);
	n_many++;
	fprintf(stderr, "churn mmap: %d one-page code mappings at once, mapped and unmapped in %.1f s\n",
		n, now() - t0);
}

static int do_mmap(void)
{
	static const char *const names[] = { "libsfchain.so", "libsfdl.so",
					     "shapes" };
	struct obj objs[3];
	unsigned long i = 0;
	double last_many = 0;
	int k;

	for (k = 0; k < 3; k++)
		if (obj_open(&objs[k], names[k]))
			return 1;
	while (running()) {
		if (now() - last_many >= 60) {
			mmap_many(&objs[1]);
			last_many = now();
		}
		mmap_round(objs, 3, i);
		ch_work(1, i % 8 == 5);
		i++;
	}
	for (k = 0; k < 3; k++)
		close(objs[k].fd);
	printf("churn mmap: %lu rounds, %lu mmap, %lu munmap, %lu mprotect, %lu mremap, %lu times %d mappings at once; %lu errors\n",
	       i, n_maps, n_munmap, n_mprotect, n_mremap, n_many, MANY_MAPS,
	       errors);
	return 0;
}

/* ---- dlopen ------------------------------------------------------- */

struct dl_span {
	const char *path;
	unsigned long lo, hi;
};

static int dl_find(struct dl_phdr_info *info, size_t size, void *data)
{
	struct dl_span *s = data;
	unsigned long lo, hi;
	int i;

	if (!info->dlpi_name || strcmp(info->dlpi_name, s->path))
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

static unsigned long n_dlopen, n_moved, n_same, n_refresh, n_calls;

/* dlopen @path; its dl_entry in *@fn, its page-aligned span in *@s. */
static void *dl_load(const char *path, int flags, work_fn *fn,
		     struct dl_span *s)
{
	void *h = dlopen(path, flags | RTLD_LOCAL);

	if (!h) {
		fail("dlopen: %s", dlerror());
		return NULL;
	}
	*fn = (work_fn)dlsym(h, "dl_entry");
	if (!*fn) {
		fail("dlsym: %s", dlerror());
		dlclose(h);
		return NULL;
	}
	s->path = path;
	s->lo = s->hi = 0;
	dl_iterate_phdr(dl_find, s);
	s->lo &= ~(page - 1);
	s->hi = (s->hi + page - 1) & ~(page - 1);
	n_dlopen++;
	return h;
}

static void dl_close(void *h)
{
	if (h && dlclose(h))
		fail("dlclose: %s", dlerror());
}

static void dl_call(work_fn fn, unsigned long i)
{
	long r = ch_deep(i % 3 == 1 ? DEEP : 0, fn, 1 + i % 3);

	NOTAIL(r);
	n_calls++;
}

static int dl_refresh(const char *from, const char *to)
{
	char *tmp;
	int ret;

	if (asprintf(&tmp, "%s.new", to) < 0)
		return -1;
	ret = copy_file(from, tmp, 0755);
	if (!ret)
		ret = rename(tmp, to);
	if (ret) {
		fail("copy %s to %s: %s", from, to, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	n_refresh++;
	return ret;
}

static int do_dlopen(void)
{
	struct dl_span s1, s2;
	work_fn fn1, fn2;
	char *p1, *p2, name[64];
	unsigned long i = 0, first, blen;
	void *h1, *h2, *blk;

	p1 = path_in(dir, "libsfdl.so");
	snprintf(name, sizeof(name), "churn-sfdl-%d.so", getpid());
	p2 = path_in(tmpdir, name);
	if (dl_refresh(p1, p2))
		return 1;

	while (running()) {
		switch (i % 4) {
		case 0:	/* reloaded while the old range is taken */
			h1 = dl_load(p1, RTLD_NOW, &fn1, &s1);
			if (!h1)
				break;
			dl_call(fn1, i);
			dl_close(h1);
			first = s1.lo;
			blen = s1.hi - s1.lo;
			blk = NULL;
			if (blen)
				blk = map((void *)first, blen, PROT_NONE,
					  MAP_PRIVATE | MAP_ANONYMOUS |
					  MAP_FIXED_NOREPLACE, -1, 0, "blocker");
			h1 = dl_load(p1, RTLD_LAZY, &fn1, &s1);
			if (h1) {
				if (s1.lo != first)
					n_moved++;
				dl_call(fn1, i + 1);
				dl_close(h1);
			}
			unmap(blk, blen);
			break;
		case 1:	/* both files at once */
			h1 = dl_load(p1, RTLD_NOW, &fn1, &s1);
			h2 = dl_load(p2, RTLD_NOW, &fn2, &s2);
			if (h1)
				dl_call(fn1, i);
			if (h2)
				dl_call(fn2, i + 1);
			if (i % 8 == 1) {
				dl_close(h1);
				dl_close(h2);
			} else {
				dl_close(h2);
				dl_close(h1);
			}
			break;
		case 2:	/* reloaded at once: usually where it was */
			h1 = dl_load(p1, RTLD_LAZY, &fn1, &s1);
			if (!h1)
				break;
			dl_call(fn1, i);
			dl_close(h1);
			first = s1.lo;
			h1 = dl_load(p1, RTLD_NOW, &fn1, &s1);
			if (!h1)
				break;
			if (s1.lo == first)
				n_same++;
			dl_call(fn1, i + 1);
			dl_close(h1);
			break;
		default: /* the copy; replaced by a new file now and then */
			h2 = dl_load(p2, RTLD_LAZY, &fn2, &s2);
			if (h2) {
				dl_call(fn2, i);
				dl_close(h2);
			}
			if (i % 16 == 3)
				dl_refresh(p1, p2);
			break;
		}
		ch_work(1, i % 6 == 0);
		i++;
	}
	unlink(p2);
	printf("churn dlopen: %lu rounds, %lu dlopen, %lu calls, reloaded %lu times elsewhere and %lu times in place, the copy replaced %lu times; %lu errors\n",
	       i, n_dlopen, n_calls, n_moved, n_same, n_refresh, errors);
	return 0;
}

/* ---- snapshot ----------------------------------------------------- */

#define SNAP_HOLD_MS	100	/* the replacer keeps the CPU that long, */
#define SNAP_DRAIN_MS	5500	/* or that long without drop_caches */

#define SNAP_PAIRS	2	/* on as many CPUs, if there are */

struct snap_arg {
	const char *lib;
	int cpu;
	int idle;
};

static unsigned long sn_updates, sn_replaced, sn_preempted;
static int sn_dc = -1;	/* /proc/sys/vm/drop_caches */

/* Pin the calling thread to @cpu; SCHED_IDLE if @idle. */
static int snap_setup(int cpu, int idle)
{
	struct sched_param sp = { 0 };
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!ret && idle)
		ret = pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	if (ret)
		fail("%s: %s", idle ? "SCHED_IDLE" : "affinity", strerror(ret));
	return ret;
}

/* The involuntary context switches of the calling thread. */
static unsigned long snap_nonvoluntary(void)
{
	unsigned long n = 0;
	char line[128];
	FILE *f;

	f = fopen("/proc/thread-self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nonvoluntary_ctxt_switches: %lu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * The kernel frees a replaced table after the next grace period
 * (call_rcu(), patch 0035).  Before, it was kvfree_rcu(), which in 6.1
 * waits 5 s, or only the next grace period once its shrinker has run:
 * drop_caches (root) runs it.  Keep the CPU until the table is freed.
 */
static void sn_hold(void)
{
	if (sn_dc >= 0 && pwrite(sn_dc, "2", 1, 0) == 1)
		ch_spin(SNAP_HOLD_MS);
	else
		ch_spin(SNAP_DRAIN_MS);
}

/*
 * The SCHED_IDLE thread (@a->idle) maps the code of its library again
 * and again; the other wakes up now and then, maps the code of its own
 * library (its update replaces the table) and keeps the CPU until the
 * replaced table is freed.
 */
static void *sn_thread(void *p)
{
	const struct snap_arg *a = p;
	unsigned long off, len, sz, i = 0;
	unsigned int s = 4242 + a->cpu;
	void *m;
	int fd;

	fd = text_open(a->lib, &off, &len);
	if (fd < 0 || snap_setup(a->cpu, a->idle))
		goto out;
	while (running()) {
		if (!a->idle)
			sleep_ms(1 + rnd(&s) % 3);
		/*
		 * The update runs on the way back from mmap().  Unmapped code
		 * stays in the table until an update: a mapping of another
		 * length than the last needs one.
		 */
		sz = len + (i++ & 1) * page;
		m = mmap(NULL, sz, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
		if (m == MAP_FAILED) {
			fail("mmap %s: %s", a->lib, strerror(errno));
			break;
		}
		if (!a->idle)
			sn_hold();
		munmap(m, sz);
		__atomic_fetch_add(a->idle ? &sn_updates : &sn_replaced, 1,
				   __ATOMIC_RELAXED);
	}
	if (a->idle)
		__atomic_fetch_add(&sn_preempted, snap_nonvoluntary(),
				   __ATOMIC_RELAXED);
out:
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int do_snapshot(void)
{
	char *rlib = path_in(dir, "libsfdl.so");
	char *wlib = path_in(dir, "libsfchain.so");
	struct snap_arg args[2 * SNAP_PAIRS];
	pthread_t t[2 * SNAP_PAIRS];
	int cpu, ncpu, i, n = 0, ret;

	cpu = sched_getcpu();
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpu < 0 || ncpu < 1)
		cpu = 0, ncpu = 1;
	sn_dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	/* 4 first: later writes are not logged */
	if (sn_dc >= 0 && pwrite(sn_dc, "4", 1, 0) != 1) {
		close(sn_dc);
		sn_dc = -1;
	}
	for (i = 0; i < 2 * SNAP_PAIRS && i / 2 < ncpu; i++) {
		args[i].lib = i & 1 ? wlib : rlib;
		args[i].cpu = (cpu + i / 2) % ncpu;
		args[i].idle = !(i & 1);
		ret = pthread_create(&t[n], NULL, sn_thread, &args[i]);
		if (ret) {
			fail("pthread_create: %s", strerror(ret));
			stop = 1;
			break;
		}
		n++;
	}
	while (n--)
		pthread_join(t[n], NULL);
	printf("churn snapshot: %d CPUs from %d, %lu updates by SCHED_IDLE threads (preempted %lu times), %lu tables replaced under them; %lu errors\n",
	       i / 2, cpu, sn_updates, sn_preempted, sn_replaced, errors);
	if (sn_dc >= 0)
		close(sn_dc);
	free(rlib);
	free(wlib);
	return 0;
}

/* ---- hostile ------------------------------------------------------ */

static unsigned long h_files, h_mapped, h_mmaps, h_refused, h_execs,
		     h_exec_failed, h_exited, h_signalled, h_timeout;
static unsigned long h_errnos[134], h_signal[65];

static int is_file(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* mmap the hostile file @fd of @size bytes in every way; touch nothing. */
static int hostile_map(int fd, off_t size)
{
	struct seg segs[4];
	unsigned long off, len;
	int n, i, ok = 0, ok_x = 0, first;
	void *m;

	/* whole */
	if (size > 0) {
		m = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		h_mmaps++;
		if (m != MAP_FAILED) {
			ok = 1;
			munmap(m, size);
		} else {
			h_refused++;
		}
	}
	/* from offset 0 to 3 pages past the end of the file */
	len = ((size + page - 1) & ~(page - 1)) + 3 * page;
	m = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	h_mmaps++;
	if (m != MAP_FAILED) {
		ok = 1;
		munmap(m, len);
	} else {
		h_refused++;
	}
	/* each executable PT_LOAD where ld.so would map it */
	n = elf_loads(fd, segs, 4);
	for (i = 0; i < n; i++) {
		if (!(segs[i].prot & PROT_EXEC))
			continue;
		first = !ok_x++;
		off = segs[i].off - (segs[i].vaddr & (page - 1));
		if (segs[i].off < (segs[i].vaddr & (page - 1)) ||
		    off > (1UL << 40))
			continue;
		off &= ~(page - 1);
		len = segs[i].filesz + (segs[i].vaddr & (page - 1));
		if (len > (16UL << 20))
			len = 16UL << 20;
		len = (len + page - 1) & ~(page - 1);
		if (!len)
			len = page;
		m = mmap(NULL, len, first ? PROT_READ : PROT_READ | PROT_EXEC,
			 MAP_PRIVATE, fd, off);
		h_mmaps++;
		if (m == MAP_FAILED) {
			h_refused++;
			continue;
		}
		ok = 1;
		if (first)
			mprotect(m, len, PROT_READ | PROT_EXEC);
		munmap(m, len);
	}
	return ok;
}

/* Run a copy of hostile file @name for HOSTILE_MS at most. */
static void hostile_exec(const char *hdir, const char *name,
			 const char *copydir)
{
	char *src = path_in(hdir, name), *copy = path_in(copydir, name);
	char *argv[] = { (char *)name, strstr(name, "dso") ? "lib" : "leaf",
			 "20", NULL };
	char *envp[2] = { NULL, NULL };
	struct pollfd pfd;
	int p[2], st = 0, err = 0;
	pid_t pid, r;
	double t0;
	ssize_t n;

	if (asprintf(&envp[0], "LD_LIBRARY_PATH=%s", dir) < 0)
		envp[0] = NULL;
	if (copy_file(src, copy, 0755)) {
		fail("copy %s to %s: %s", src, copy, strerror(errno));
		goto out;
	}
	if (pipe2(p, O_CLOEXEC)) {
		fail("pipe: %s", strerror(errno));
		goto out_unlink;
	}
	pid = fork();
	if (pid < 0) {
		fail("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		goto out_unlink;
	}
	if (!pid) {
		setpgid(0, 0);
		child_setup();
		alarm(1);
		execve(copy, argv, envp);
		err = errno;
		if (write(p[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);
	h_execs++;
	t0 = now();

	/* the pipe closes at a successful exec, or brings execve's errno */
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, HOSTILE_MS) > 0) {
		n = read(p[0], &err, sizeof(err));
		if (n != sizeof(err))
			err = 0;
	}
	close(p[0]);

	while ((r = waitpid(pid, &st, WNOHANG)) != pid) {
		if (r < 0) {
			fail("waitpid %d: %s", pid, strerror(errno));
			goto out_unlink;
		}
		if (now() - t0 > HOSTILE_MS / 1000.0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			h_timeout++;
			/* not even SIGKILL ends it within 5 s: report it */
			t0 = now();
			while ((r = waitpid(pid, &st, WNOHANG)) == 0) {
				if (now() - t0 > 5) {
					fail("%s: pid %d survives SIGKILL", name,
					     pid);
					goto out_unlink;
				}
				sleep_ms(5);
			}
			goto counted;
		}
		sleep_ms(2);
	}
	if (err) {
		h_exec_failed++;
		h_errnos[err < 133 ? err : 133]++;
	} else if (WIFEXITED(st)) {
		h_exited++;
	} else if (WIFSIGNALED(st)) {
		h_signalled++;
		h_signal[WTERMSIG(st) < 64 ? WTERMSIG(st) : 64]++;
	}
counted:
	/* whatever it forked is in its process group */
	kill(-pid, SIGKILL);
out_unlink:
	unlink(copy);
out:
	free(envp[0]);
	free(src);
	free(copy);
}

static int do_hostile(const char *hdir)
{
	struct dirent **ents;
	char cdir[4096], *path;
	unsigned long passes = 0;
	int n, i, fd, j, any, nreg = 0;
	struct stat st;

	n = scandir(hdir, &ents, is_file, alphasort);
	if (n <= 0) {
		fail("%s: %s", hdir, n < 0 ? strerror(errno) : "empty");
		return 1;
	}
	snprintf(cdir, sizeof(cdir), "%s/churn-hostile-%d", tmpdir, getpid());
	if (mkdir(cdir, 0700)) {
		fail("mkdir %s: %s", cdir, strerror(errno));
		return 1;
	}
	while (running()) {
		/*
		 * Map every file first (quick: the kernel reads the tables
		 * of each), then run them for as long as there is time.
		 */
		any = 0;
		for (i = 0; i < n && running(); i++) {
			path = path_in(hdir, ents[i]->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			free(path);
			if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
				if (fd >= 0)
					close(fd);
				continue;
			}
			any = 1;
			h_files++;
			if (!passes)
				nreg++;
			prctl(PR_SET_NAME, ents[i]->d_name);
			h_mapped += hostile_map(fd, st.st_size);
			prctl(PR_SET_NAME, "churn");
			close(fd);
			if (i % 16 == 0)
				ch_work(1, 1);
		}
		if (!any) {
			fail("%s: no regular file", hdir);
			break;
		}
		for (i = 0; i < n && running(); i++) {
			hostile_exec(hdir, ents[i]->d_name, cdir);
			reap(0);	/* what they left (we are subreaper) */
			ch_work(1, i % 16 == 0);
		}
		if (i == n)
			passes++;
	}
	reap_all();
	if (rmdir(cdir))
		fail("rmdir %s: %s", cdir, strerror(errno));

	printf("churn hostile: %d files, %lu full passes, %lu files mapped (%lu mmap calls, %lu refused); %lu exec'd: %lu exec failed",
	       nreg, passes, h_mapped, h_mmaps, h_refused, h_execs,
	       h_exec_failed);
	for (j = 0; j < 134; j++)
		if (h_errnos[j])
			printf(", %s %lu", j < 133 && strerrorname_np(j) ?
			       strerrorname_np(j) : "other", h_errnos[j]);
	printf(", %lu exited, %lu killed by a signal", h_exited, h_signalled);
	for (j = 0; j < 65; j++)
		if (h_signal[j])
			printf(" SIG%s %lu", j < 64 && sigabbrev_np(j) ?
			       sigabbrev_np(j) : "other", h_signal[j]);
	printf(", %lu killed after %d ms; %lu errors\n", h_timeout, HOSTILE_MS,
	       errors);
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return 0;
}

/* ------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: churn [-d DIR] fork|threads|mmap|dlopen|snapshot SECONDS\n"
		"       churn [-d DIR] hostile SECONDS HOSTILE-DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rlimit nocore = { 0, 0 };
	struct sigaction sa;
	long secs;
	char *end;
	int opt, ret;

	while ((opt = getopt(argc, argv, "+d:")) != -1) {
		if (opt != 'd')
			usage();
		dir = optarg;
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	mode = argv[0];
	secs = strtol(argv[1], &end, 10);
	if (*end || secs <= 0)
		usage();
	if (getenv("TMPDIR") && *getenv("TMPDIR"))
		tmpdir = getenv("TMPDIR");
	page = sysconf(_SC_PAGESIZE);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setrlimit(RLIMIT_CORE, &nocore);
	/* orphaned descendants come back to us, and are reaped by us */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		fail("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);

	clock_gettime(CLOCK_MONOTONIC, &t_end);
	t_end.tv_sec += secs;

	if (!strcmp(mode, "fork"))
		ret = do_fork();
	else if (!strcmp(mode, "threads"))
		ret = do_threads();
	else if (!strcmp(mode, "mmap"))
		ret = do_mmap();
	else if (!strcmp(mode, "dlopen"))
		ret = do_dlopen();
	else if (!strcmp(mode, "snapshot"))
		ret = do_snapshot();
	else if (!strcmp(mode, "hostile") && argc == 3)
		ret = do_hostile(argv[2]);
	else
		usage();

	if (stop)
		fprintf(stderr, "churn %s: stopped by a signal\n", mode);
	return ret || errors ? 1 : 0;
}
