// SPDX-License-Identifier: GPL-2.0
/*
 * libpmwork.so: the shared-library half of the pie_libcall workload.
 * pmwork_lib_spin() is where the PIE spends most of its time, so a report
 * must attribute it to this DSO, not to the executable.
 */
#include <stdint.h>

uint64_t pmwork_lib_spin(uint64_t n);

/* A dependent multiply-add chain the compiler cannot fold or vectorize. */
uint64_t pmwork_lib_spin(uint64_t n)
{
	volatile uint64_t sink = 0;
	uint64_t x = n | 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink += x >> 33;
	}
	return sink;
}
