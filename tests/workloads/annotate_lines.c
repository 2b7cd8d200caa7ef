// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for annotate: work() spends its time on two source lines in the
 * ratio 3:1 by construction.  LINE_A is a loop of 3 * n steps in work()
 * itself; LINE_H is the same loop of n steps in mix(), an always-inlined
 * helper, so its samples belong to the helper's line inside work()'s code.
 * Each step is one multiply-add the compiler must keep (the empty asm).
 *   annotate_lines [-n ROUNDS]   (default 400 rounds of 2^20 steps)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS (1u << 20)

static inline __attribute__((always_inline)) uint64_t mix(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) { x = x * 6364136223846793005ull + i; __asm__ volatile("" : "+r"(x)); } /* LINE_H */
	return x;
}

__attribute__((noinline)) uint64_t work(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < 3 * n; i++) { x = x * 6364136223846793005ull + i; __asm__ volatile("" : "+r"(x)); } /* LINE_A */
	x = mix(x, n);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 400, r;
	uint64_t x = 1;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		rounds = strtoul(argv[2], NULL, 0);
	for (r = 0; r < rounds; r++)
		x = work(x, STEPS);
	printf("%llx\n", (unsigned long long)x);
	return 0;
}
