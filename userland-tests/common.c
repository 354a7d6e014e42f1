// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the SFrame unwinder test programs. */
#include <stdlib.h>
#include <time.h>

#include "common.h"

static __thread struct timespec deadline;

noipa void timer_start(long ms)
{
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &deadline);
	deadline.tv_sec += ms / 1000;
	deadline.tv_nsec += (ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
}

noipa int timer_expired(void)
{
	struct timespec now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	if (now.tv_sec != deadline.tv_sec)
		return now.tv_sec > deadline.tv_sec;
	return now.tv_nsec >= deadline.tv_nsec;
}

noipa long parse_ms(const char *s, long def)
{
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	if (*end || v <= 0 || v > 3600000)
		return def;
	return v;
}

noipa void use_buf(volatile unsigned char *buf, unsigned long len)
{
	unsigned long i;

	for (i = 0; i < len; i += 512)
		buf[i] = (unsigned char)i;
}
