// SPDX-License-Identifier: GPL-2.0
/*
 * sigcount SECONDS [READYFILE]: counts the SIGINTs it receives while it
 * spins for SECONDS, then prints
 * "sigint N" on stdout and exits 0.  READYFILE is created once the handler
 * is installed, so a test knows when a signal will be counted, not fatal.
 * It spins rather than sleeps so a signal is delivered (the handler entered)
 * at once: standard signals do not queue, and a second SIGINT arriving
 * before the first was delivered would merge with it and go uncounted.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t nr_sigint;
static volatile unsigned long sink;

static void on_sigint(int sig)
{
	(void)sig;
	nr_sigint++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2);
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (f)
			fclose(f);
	}
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink = sink * 6364136223846793005ul + 1;
	printf("sigint %d\n", (int)nr_sigint);
	return 0;
}
