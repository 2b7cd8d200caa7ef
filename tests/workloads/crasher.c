// SPDX-License-Identifier: GPL-2.0
/*
 * Busy for SECONDS in spin_before_crash(), then ends the way MODE says:
 *   crasher SECONDS segv     null-pointer write (SIGSEGV)
 *   crasher SECONDS abort    abort() (SIGABRT)
 *   crasher SECONDS exit:N   exit(N)
 *   crasher SECONDS wait     spin until killed
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void spin_before_crash(double secs)
{
	double end = now() + secs;

	while (secs < 0 || now() < end)
		for (int i = 0; i < 10000; i++)
			sink = sink * 6364136223846793005ull + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.2;
	const char *mode = argc > 2 ? argv[2] : "segv";

	if (!strcmp(mode, "wait"))
		secs = -1;
	spin_before_crash(secs);
	if (!strcmp(mode, "segv")) {
		volatile int *p = NULL;

		*p = 1;
	} else if (!strcmp(mode, "abort")) {
		abort();
	} else if (!strncmp(mode, "exit:", 5)) {
		return atoi(mode + 5);
	}
	fprintf(stderr, "crasher: unknown mode '%s'\n", mode);
	return 2;
}
