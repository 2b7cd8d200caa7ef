// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose inline chains are known by construction, for --inline
 * call stacks (symbolizer_resolve_inline(), tests/e2e/t235-t237):
 *
 *   main -> path_a -> [inl_outer -> inl_mid -> inl_inner]   2 units
 *   main -> path_b -> [inl_mid -> inl_inner]                1 unit
 *
 * The bracketed functions are static always_inline (inlined even under the
 * Makefile's -fno-inline), so path_a and path_b are the only physical
 * frames: all the time is in inl_inner's loop, inlined twice.  Expected
 * inclusive shares with --inline: inl_inner and inl_mid ~100 %, path_a and
 * inl_outer 2/3, path_b 1/3; without --inline only path_a 2/3, path_b 1/3.
 *
 * Usage: inline_chain [SCALE]   (default 1: about 0.5 s of CPU)
 */
// CFLAGS: -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNIT	150000000ull

volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t inl_inner(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + i;
		/* Keeps the loop a loop (no closed form, no vectorizing). */
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static inline __attribute__((always_inline)) uint64_t inl_mid(uint64_t n, uint64_t x)
{
	return inl_inner(n, x ^ 0x3c3c) + 1;
}

static inline __attribute__((always_inline)) uint64_t inl_outer(uint64_t n, uint64_t x)
{
	return inl_mid(n, x * 7) * 3;
}

__attribute__((noinline)) uint64_t path_a(uint64_t units)
{
	uint64_t acc = 0, u;

	for (u = 0; u < units; u++)
		acc += inl_outer(UNIT, acc + u);
	return acc;
}

__attribute__((noinline)) uint64_t path_b(uint64_t units)
{
	uint64_t acc = 0, u;

	for (u = 0; u < units; u++)
		acc += inl_mid(UNIT, acc ^ u);
	return acc;
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 0) : 1, s;

	if (!scale)
		scale = 1;
	for (s = 0; s < scale; s++) {
		sink += path_a(2);
		sink += path_b(1);
	}
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
