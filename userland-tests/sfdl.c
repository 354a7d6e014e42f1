// SPDX-License-Identifier: GPL-2.0
/*
 * libsfdl.so: a shared object with .sframe that `dso dlopen` loads with
 * dlopen(), unloads and loads again at another address.  The time budget
 * is checked with the program's timer functions (`dso` is linked with
 * -rdynamic), so this object is only the chain.
 */
#include "common.h"

DEFINE_HOT(dl_hot)

noipa long dl_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += dl_hot(SPIN);
	return acc;
}

noipa long dl_entry(long ms)
{
	long r = dl_mid(ms);

	NOTAIL(r);
	return r;
}
