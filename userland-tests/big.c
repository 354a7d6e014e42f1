// SPDX-License-Identifier: GPL-2.0
/*
 * A program with a large .sframe section: main plus the 45,000 functions
 * of gen-funcs.sh (1.1 MiB of SFrame data on x86-64, 1.2 MiB on AArch64).
 *
 *   big wait   prints "ready" once main runs (its tables are in the
 *              kernel by then), then sleeps until a signal (tables.sh:
 *              1,000 processes of it)
 *   big exit   returns at once (loadbench: the cost of exec)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "wait")) {
		printf("ready\n");
		fflush(stdout);
		pause();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
	fprintf(stderr, "usage: big wait|exit\n");
	return 2;
}
