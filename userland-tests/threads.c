// SPDX-License-Identifier: GPL-2.0
/*
 * Threads: three threads of one process run three different chains at
 * the same time, each for about @ms milliseconds of its own CPU time.
 *
 *   threads [ms]
 *
 *   thread A:  ta_hot <- ta_mid <- ta_start <- start_thread (libc)
 *   thread B:  tb_hot <- tb_mid2 <- tb_mid1 <- tb_start <- start_thread
 *   main:      tm_hot <- tm_mid <- main <- __libc_start_call_main
 *
 * Every sample whose leaf is one of the hot functions must carry its own
 * thread's chain: SFrame state is per process (mm), not per thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

static long run_ms = DEFAULT_MS;

DEFINE_HOT(ta_hot)
DEFINE_HOT(tb_hot)
DEFINE_HOT(tm_hot)

noipa long ta_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += ta_hot(SPIN);
	return acc;
}

noipa void *ta_start(void *arg)
{
	long r = ta_mid(run_ms);

	NOTAIL(r);
	return arg;
}

noipa long tb_mid2(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += tb_hot(SPIN);
	return acc;
}

noipa long tb_mid1(long ms)
{
	long r = tb_mid2(ms);

	NOTAIL(r);
	return r;
}

noipa void *tb_start(void *arg)
{
	long r = tb_mid1(run_ms);

	NOTAIL(r);
	return arg;
}

noipa long tm_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += tm_hot(SPIN);
	return acc;
}

noipa int start_threads(pthread_t *a, pthread_t *b)
{
	if (pthread_create(a, NULL, ta_start, NULL) ||
	    pthread_create(b, NULL, tb_start, NULL)) {
		fprintf(stderr, "threads: pthread_create failed\n");
		return -1;
	}
	return 0;
}

noipa int join_threads(pthread_t *a, pthread_t *b)
{
	return pthread_join(*a, NULL) | pthread_join(*b, NULL);
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long r;

	run_ms = parse_ms(argc > 1 ? argv[1] : NULL, DEFAULT_MS);
	if (start_threads(&t[0], &t[1]))
		return 1;
	r = tm_mid(run_ms);
	NOTAIL(r);
	return join_threads(&t[0], &t[1]) ? 1 : 0;
}
