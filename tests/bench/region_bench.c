// SPDX-License-Identifier: GPL-2.0
/*
 * b60: the cost of an empty begin/end pair of a marker API, timed with
 * CLOCK_MONOTONIC around N pairs (best of 5 rounds, so other jobs' noise
 * is not counted).  Built once per API by tests/bench/b60_regions.sh:
 *   -DUSE_PMIPROF     pmiprof_region_begin/end (function calls)
 *   -DUSE_PMIPROF_MACRO  PMIPROF_REGION_BEGIN/END (inline flag test)
 *   -DUSE_PAPI        PAPI_hl_region_begin/end
 *   -DUSE_LIKWID      LIKWID_MARKER_START/STOP
 *   (none)            an empty loop: the timing's own floor
 * A second argument sleeps 0.2 s between rounds, so that pmiprof record
 * drains its marker ring (16384 records) and no round is measured dropping.
 * Prints "ns_per_pair X" and, for PAPI, whether a region was counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(USE_PMIPROF) || defined(USE_PMIPROF_MACRO)
#define PMIPROF_REGIONS
#include "pmiprof/region.h"
#endif
#ifdef USE_PAPI
#include <papi.h>
#endif
#ifdef USE_LIKWID
#define LIKWID_PERFMON
#include <likwid-marker.h>
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	double best = 1e30;
	int round, bad = 0;

#ifdef USE_LIKWID
	LIKWID_MARKER_INIT;
	LIKWID_MARKER_REGISTER("empty");
#endif
	for (round = 0; round < 5; round++) {
		double t0, t;

		if (argc > 2 && round) {
			/* "gap": let pmiprof record drain the marker ring between rounds */
			struct timespec gap = { 0, 200000000 };

			nanosleep(&gap, NULL);
		}
		t0 = now();

		for (i = 0; i < n; i++) {
#if defined(USE_PMIPROF)
			pmiprof_region_begin("empty");
			pmiprof_region_end("empty");
#elif defined(USE_PMIPROF_MACRO)
			PMIPROF_REGION_BEGIN("empty");
			PMIPROF_REGION_END("empty");
#elif defined(USE_PAPI)
			bad |= PAPI_hl_region_begin("empty") != PAPI_OK;
			bad |= PAPI_hl_region_end("empty") != PAPI_OK;
#elif defined(USE_LIKWID)
			LIKWID_MARKER_START("empty");
			LIKWID_MARKER_STOP("empty");
#else
			__asm__ __volatile__("" ::: "memory");
#endif
		}
		t = (now() - t0) / (double)n;
		if (t < best)
			best = t;
	}
#ifdef USE_LIKWID
	LIKWID_MARKER_CLOSE;
#endif
	printf("ns_per_pair %.1f%s\n", best, bad ? " (calls returned errors)" : "");
	return 0;
}
