// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of unwinding: a fixed amount of work at a fixed stack depth.
 *
 *   bench DEPTH CALLS
 *
 * Recurses DEPTH frames deep, calls a hot leaf CALLS times there and
 * prints the elapsed time of the work in nanoseconds (CLOCK_MONOTONIC).
 * Built twice (Makefile): "bench" without frame pointers and with
 * SFrame, "bench-fp" with frame pointers and without SFrame.  perf
 * record -g of bench-fp is the stock frame-pointer walk, the cost the
 * SFrame walk of bench is measured against (bench.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"

DEFINE_HOT(bench_hot)

noipa long bench_work(long calls)
{
	unsigned long acc = 0;
	long i;

	for (i = 0; i < calls; i++)
		acc += bench_hot(SPIN / 10);
	return acc;
}

noipa long bench_deep(long depth, long calls)
{
	long r;

	if (depth > 1) {
		r = bench_deep(depth - 1, calls);
		NOTAIL(r);
		return r + 1;
	}
	return bench_work(calls);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	long depth, calls, r;

	if (argc != 3) {
		fprintf(stderr, "usage: bench DEPTH CALLS\n");
		return 2;
	}
	depth = strtol(argv[1], NULL, 10);
	calls = strtol(argv[2], NULL, 10);
	if (depth < 1 || depth > 10000 || calls < 1) {
		fprintf(stderr, "bench: bad DEPTH or CALLS\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = bench_deep(depth, calls);
	NOTAIL(r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
