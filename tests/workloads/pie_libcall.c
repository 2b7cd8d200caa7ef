// SPDX-License-Identifier: GPL-2.0
/*
 * pie_libcall [ROUNDS]: a PIE that spends about 3/4 of its time in
 * pmwork_lib_spin() of libpmwork.so (linked with an $ORIGIN rpath) and
 * about 1/4 in its own pie_local_spin().  The report test checks that both
 * functions are attributed, each to its own DSO.  Default 1500 rounds
 * (about 0.8 s on the CI VMs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t pmwork_lib_spin(uint64_t n);
uint64_t pie_local_spin(uint64_t n);

/* Same loop shape as the library's, so the 3:1 split is by construction. */
uint64_t pie_local_spin(uint64_t n)
{
	volatile uint64_t sink = 0;
	uint64_t x = n | 1;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink += x >> 33;
	}
	return sink;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 1500;
	uint64_t acc = 0;

	if (rounds <= 0) {
		fprintf(stderr, "usage: pie_libcall [ROUNDS > 0]\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		acc += pmwork_lib_spin(300000);
		acc += pie_local_spin(100000);
	}
	printf("%llu\n", (unsigned long long)(acc & 0xff));
	return 0;
}
