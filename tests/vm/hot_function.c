// SPDX-License-Identifier: GPL-2.0
/*
 * VM-suite workload with a known profile: hot_function() runs nine units of
 * work for every one of cold_function(), so any sampler (PMI, emulated PMI
 * or timer) must put hot_function on top with about 90 % of the samples.
 * Built static by the VM tests so the guest needs no libraries:
 *   cc -static -O1 -g -fno-omit-frame-pointer -fno-inline -o hot_function hot_function.c
 *
 *   hot_function [SECONDS]    run for about SECONDS of wall time (default 1.0)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT_ITERS 200000

static volatile uint64_t sink;

__attribute__((noinline)) void hot_function(void)
{
	uint64_t x = sink + 1;

	for (long i = 0; i < 9 * UNIT_ITERS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline)) void cold_function(void)
{
	uint64_t x = sink + 1;

	for (long i = 0; i < UNIT_ITERS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	unsigned long rounds = 0;

	do {
		hot_function();
		cold_function();
		rounds++;
	} while (now() < end);
	printf("hot_function: %lu rounds\n", rounds);
	return 0;
}
