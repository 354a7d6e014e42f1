// SPDX-License-Identifier: GPL-2.0
/*
 * C++ chains: through code instantiated in the program and through
 * libstdc++'s own compiled code (Debian's libstdc++.so.6, no .sframe:
 * unwound with tables from its .eh_frame, kernel.sframe_unwind=2).
 *
 *   cxx sort [ms]
 *	cs_hot <- cs_cmp <- (std::sort's insertion sort, instantiated here)
 *	<- cs_sort <- main.  Two elements in descending order: std::sort
 *	leaves them to its final insertion sort, which compares them once.
 *   cxx ostream [ms]
 *	co_hot <- CoBuf::xsputn <- std::ostream::write (libstdc++) <-
 *	co_write <- main: libstdc++ calls the program's streambuf virtual.
 *   cxx thread [ms]
 *	ct_hot <- ct_mid <- ct_body <- (std::thread's state, instantiated
 *	here) <- execute_native_thread_routine (libstdc++, a static function:
 *	no symbol in Debian's libstdc++) <- start_thread (libc) <- clone3.
 *
 * The exact chains are in run-tests.sh; check-codegen.sh checks the
 * code generation they rely on.
 */
#include <algorithm>
#include <cstring>
#include <ostream>
#include <streambuf>
#include <thread>

extern "C" {
#include "common.h"
}

extern "C" {
DEFINE_HOT(cs_hot)
DEFINE_HOT(co_hot)
DEFINE_HOT(ct_hot)

noipa bool cs_cmp(long a, long b)
{
	unsigned long h = cs_hot(SPIN / 10);

	NOTAIL(h);
	return a + (long)(h & 0) < b;
}

noipa long cs_sort(long ms)
{
	unsigned long acc = 0;
	long v[2];

	timer_start(ms);
	while (!timer_expired()) {
		v[0] = 2;
		v[1] = 1;
		std::sort(v, v + 2, cs_cmp);
		acc += v[0];
	}
	return acc;
}
}

/* A stream buffer whose bulk write spins: called by std::ostream::write. */
class CoBuf : public std::streambuf {
protected:
	noipa std::streamsize xsputn(const char *s, std::streamsize n) override
	{
		unsigned long h = co_hot(SPIN / 10);

		NOTAIL(h);
		return n + (std::streamsize)(h & 0) + (s[0] & 0);
	}
};

extern "C" {
noipa long co_write(long ms)
{
	static const char data[16] = "0123456789abcde";
	CoBuf buf;
	std::ostream os(&buf);
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired()) {
		os.write(data, sizeof(data));
		acc += os.good();
	}
	return acc;
}

static long thread_ms;

noipa long ct_mid(long ms)
{
	unsigned long acc = 0;

	timer_start(ms);
	while (!timer_expired())
		acc += ct_hot(SPIN);
	return acc;
}

noipa void ct_body(void)
{
	long r = ct_mid(thread_ms);

	NOTAIL(r);
}

noipa long ct_thread(long ms)
{
	thread_ms = ms;
	std::thread t(ct_body);
	t.join();
	return 0;
}
}

int main(int argc, char **argv)
{
	long ms = parse_ms(argc > 2 ? argv[2] : nullptr, DEFAULT_MS);
	const char *m = argc > 1 ? argv[1] : "";
	long r;

	if (!strcmp(m, "sort"))
		r = cs_sort(ms);
	else if (!strcmp(m, "ostream"))
		r = co_write(ms);
	else if (!strcmp(m, "thread"))
		r = ct_thread(ms);
	else
		return 2;
	NOTAIL(r);
	return 0;
}
