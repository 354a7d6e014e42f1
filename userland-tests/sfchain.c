// SPDX-License-Identifier: GPL-2.0
/*
 * libsfchain.so: a shared object with .sframe, linked into `dso`.
 * Chains cross from the program into it and back (see dso.c).  The timer
 * functions are the program's.
 */
#include "common.h"

DEFINE_HOT(lib_hot)

noipa long lib_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += lib_hot(SPIN);
	return acc;
}

noipa long lib_entry(long ms)
{
	long r = lib_mid(ms);

	NOTAIL(r);
	return r;
}

/* Calls back into the program. */
noipa long lib_call(long (*fn)(long), long ms)
{
	long r = fn(ms);

	NOTAIL(r);
	return r;
}
