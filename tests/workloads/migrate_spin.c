// SPDX-License-Identifier: GPL-2.0
/*
 * Starts on whatever CPU it was exec'd on, moves itself to CPU 0 and spins
 * in migrated_spin() for about SECONDS (default 1).  Run under a recorder
 * pinned to another CPU, its exec side-band (COMM, MMAP) lands in that
 * CPU's ring while all its samples land in CPU 0's ring: the recorder must
 * still write the side-band before the samples it explains.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void migrated_spin(double seconds);
__attribute__((noinline)) void migrated_spin(double seconds)
{
	double end = now() + seconds;
	uint64_t i;

	while (now() < end)
		for (i = 0; i < 100000; i++)
			sink += i * 7;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("migrate_spin: sched_setaffinity");
		return 1;
	}
	migrated_spin(seconds);
	return 0;
}
