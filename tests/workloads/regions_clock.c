// SPDX-License-Identifier: GPL-2.0
/*
 * Marker timestamps against the workload's own CLOCK_MONOTONIC (t270):
 * N regions, 2 ms apart (so the run spans many TSC re-anchors); around each
 * begin and each end a clock_gettime before and after, printed as
 * "b0 b1 e0 e1" ns per call.  Under pmiprof record the BEGIN marker's time
 * must lie in [b0, b1] and the END's in [e0, e1], up to the conversion error.
 */
// LDLIBS: -lpthread
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pmiprof/region.h"

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 500, i;
	struct timespec gap = { 0, 2000000 };
	volatile unsigned long sink = 0;

	for (i = 0; i < n; i++) {
		uint64_t b0, b1, e0, e1;
		unsigned long k;

		b0 = now();
		pmiprof_region_begin("clocked");
		b1 = now();
		for (k = 0; k < 2000; k++)
			sink += k;
		e0 = now();
		pmiprof_region_end("clocked");
		e1 = now();
		printf("%llu %llu %llu %llu\n", (unsigned long long)b0, (unsigned long long)b1,
		       (unsigned long long)e0, (unsigned long long)e1);
		nanosleep(&gap, NULL);
	}
	return 0;
}
