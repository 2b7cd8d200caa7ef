// SPDX-License-Identifier: GPL-2.0
/*
 * Two busy threads, each in its own function (busy_one, busy_two), while
 * main waits: checks that threads are followed and that nothing is lost at
 * 10 kHz with both CPUs busy.
 *   threads2 [SECONDS]     spin for about SECONDS of wall time (default 1.0)
 *   threads2 -n UNITS      fixed work: UNITS x 10000 loop steps per thread
 */
// LDLIBS: -lpthread
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double secs = 1.0;
static long units = -1;
static volatile uint64_t sink;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

#define SPIN_UNTIL(t_end)						\
	do {								\
		uint64_t x = 1;						\
		for (long u = 0; units >= 0 ? u < units : now() < (t_end); u++) \
			for (int i = 0; i < 10000; i++)			\
				x = x * 2862933555777941757ull + 3037000493ull; \
		sink += x;						\
	} while (0)

__attribute__((noinline)) static void *busy_one(void *arg)
{
	SPIN_UNTIL(*(double *)arg);
	return NULL;
}

__attribute__((noinline)) static void *busy_two(void *arg)
{
	SPIN_UNTIL(*(double *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;
	double end, t0 = now();

	if (argc > 2 && !strcmp(argv[1], "-n"))
		units = atol(argv[2]);
	else if (argc > 1)
		secs = atof(argv[1]);
	end = now() + secs;
	if (pthread_create(&t1, NULL, busy_one, &end) ||
	    pthread_create(&t2, NULL, busy_two, &end)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("threads2: done in %.3f s (cpu %.3f s)\n", now() - t0,
	       clock_s(CLOCK_PROCESS_CPUTIME_ID));
	return 0;
}
