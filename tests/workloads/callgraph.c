// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose call structure is known by construction, for call-stack
 * tests (record -g / --call-graph dwarf, and the report's inclusive views):
 *
 *   main -> caller_a -> leaf_shared(2 units)
 *   main -> caller_b -> leaf_shared(1 unit)        same leaf, two callers, 2:1
 *   main -> leaf_heavy(2 units)                    frameless leaf called from main
 *   main -> sort_work -> qsort (libc) -> cmp_u64    a callback through libc
 *
 * A unit is UNIT iterations of the same dependent multiply-add chain, so the
 * three leaf calls take time 2:1:2.  sort_work sorts the same pseudo-random
 * arrays every run (SORT_N elements, SORT_ROUNDS times); its time is
 * deterministic in work but not in units: calibrated to about one unit here.
 * Expected inclusive shares of all samples, sort_work taken as 1 unit of 6:
 *   main 100 %, caller_a 33.3 %, caller_b 16.7 %, leaf_shared 50 %,
 *   leaf_heavy 33.3 %, sort_work ~16.7 % (qsort and cmp_u64 inside it).
 * Robust to the sort's calibration: caller_a : caller_b : leaf_heavy = 2:1:2.
 *
 * Built twice (Makefile): callgraph with -O2 -fno-omit-frame-pointer and
 * callgraph_nofp with -O2 -fomit-frame-pointer.  Both use
 * -momit-leaf-frame-pointer, so leaf_shared, leaf_heavy and cmp_u64 have no
 * frame setup (no push %rbp) even in the frame-pointer build: a pure
 * frame-pointer walk from inside them skips their caller, which the leaf
 * fix-up must restore.  -fno-optimize-sibling-calls and using every result
 * keep callers on the stack.
 *
 * Usage: callgraph [SCALE]   (default 1: about 0.5 s of CPU)
 */
// CFLAGS: -O2 -fno-omit-frame-pointer -momit-leaf-frame-pointer -fno-optimize-sibling-calls
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT		40000000ull
#define SORT_N		4096
#define SORT_ROUNDS	138

volatile uint64_t sink;

__attribute__((noinline)) uint64_t leaf_shared(uint64_t n)
{
	uint64_t x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + i;
	return x;
}

__attribute__((noinline)) uint64_t leaf_heavy(uint64_t n)
{
	uint64_t x = n ^ 0x5555, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + i;
	return x;
}

__attribute__((noinline)) uint64_t caller_a(uint64_t units)
{
	uint64_t r = leaf_shared(2 * units * UNIT);

	return r + 1;
}

__attribute__((noinline)) uint64_t caller_b(uint64_t units)
{
	uint64_t r = leaf_shared(units * UNIT);

	return r + 2;
}

__attribute__((noinline)) int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) uint64_t sort_work(uint64_t units)
{
	static uint64_t v[SORT_N];
	uint64_t seed = 88172645463325252ull, r, sum = 0;
	unsigned int i;

	for (r = 0; r < units * SORT_ROUNDS; r++) {
		for (i = 0; i < SORT_N; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			v[i] = seed;
		}
		qsort(v, SORT_N, sizeof(v[0]), cmp_u64);
		sum += v[SORT_N / 2];
	}
	return sum;
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;

	if (!scale)
		scale = 1;
	sink += caller_a(scale);
	sink += caller_b(scale);
	sink += leaf_heavy(2 * scale * UNIT);
	sink += sort_work(scale);
	return sink == 42;	/* never: keeps the results live */
}
