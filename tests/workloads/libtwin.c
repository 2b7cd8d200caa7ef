// SPDX-License-Identifier: GPL-2.0
/*
 * libtwin.so: the library half of the twin_dso workload.  It exports
 * twin_spin(), a name the executable also defines, so a report must keep
 * the two functions apart by DSO: same name, different code, different costs.
 */
#include <stdint.h>

uint64_t twin_spin(uint64_t n);

/* Two rounds of the loop per call: twice the executable's twin per call. */
uint64_t twin_spin(uint64_t n)
{
	volatile uint64_t sink = 0;
	uint64_t x = n | 1;

	for (uint64_t i = 0; i < 2 * n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink += x >> 33;
	}
	return sink;
}
