// SPDX-License-Identifier: GPL-2.0
/*
 * Three program phases run as A B A C A, each in its own function with
 * its own behaviour, for phase detection (pmiprof phases):
 *   A  phase_alu:   an integer ALU loop in registers
 *   B  phase_chase: a pointer chase over a 16 MiB array (cache misses)
 *   C  phase_float: floating point with data-dependent branches
 *   phases3 [MS_A MS_B MS_C]      wall milliseconds of each phase
 *                                 (default 600 600 600)
 *   phases3 -n UNITS_A UNITS_B UNITS_C   fixed work instead (units of about
 *                                 a million loop steps): for icount VMs
 * Before the first phase starts and at the end of each, it prints to
 * stderr "phase X BEGIN_NS END_NS" (CLOCK_MONOTONIC), the ground truth a
 * test compares the detected phases with.  The chase array is set up
 * before the first timestamp (a few ms, no phase of its own).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHASE_N (2u << 20)	/* 2 Mi entries x 8 bytes: 16 MiB */

static volatile uint64_t sink;
static uint64_t *chase;
static uint64_t chase_at;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* About 1 M dependent integer operations, all in registers. */
__attribute__((noinline)) static void phase_alu(void)
{
	uint64_t x = sink | 1, y = 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < 1000000; i++) {
		x = x * 6364136223846793005ull + y;
		y ^= x >> 29;
	}
	sink = x ^ y;
}

/* 100 k dependent loads in a random cycle over 16 MiB: mostly cache misses. */
__attribute__((noinline)) static void phase_chase(void)
{
	uint64_t p = chase_at;
	int i;

	for (i = 0; i < 100000; i++)
		p = chase[p];
	chase_at = p;
	sink = p;
}

/* About 1 M floating-point steps with branches on the data. */
__attribute__((noinline)) static void phase_float(void)
{
	double a = (double)(sink & 0xff) + 1.5, s = 0;
	int i;

	for (i = 0; i < 300000; i++) {
		a = a * 1.000001 + 0.5;
		if (a > 1e6)
			a *= 1e-6;
		if (((int)a & 3) == 1)
			s += a * 0.25;
		else if (((int)a & 3) == 2)
			s -= a / 3.0;
		else
			s += 1.0 / a;
	}
	sink = (uint64_t)s;
}

int main(int argc, char **argv)
{
	static const char order[] = "ABACA";
	void (*fn[3])(void) = { phase_alu, phase_chase, phase_float };
	double len[3] = { 600, 600, 600 };
	int units = argc > 1 && !strcmp(argv[1], "-n"), i, k, first = units ? 2 : 1;
	uint64_t j;

	for (k = 0; k < 3 && first + k < argc; k++)
		len[k] = atof(argv[first + k]);
	/*
	 * A full-period LCG permutation (a = 1 mod 4, c odd, n a power of 2):
	 * a random-looking single cycle, set up in one cheap pass.
	 */
	chase = malloc(CHASE_N * sizeof(*chase));
	if (!chase)
		return 1;
	for (j = 0; j < CHASE_N; j++)
		chase[j] = (j * 2862933555777941757ull + 3037000493ull) & (CHASE_N - 1);
	for (i = 0; order[i]; i++) {
		int p = order[i] - 'A';
		uint64_t b = now_ns(), end = b + (uint64_t)(len[p] * 1e6), e;

		if (units) {
			/* a unit: ~1 M steps (the chase's steps are 10x dearer) */
			for (j = 0; j < (uint64_t)len[p]; j++)
				fn[p]();
		} else {
			do
				fn[p]();
			while (now_ns() < end);
		}
		e = now_ns();
		fprintf(stderr, "phase %c %llu %llu\n", order[i], (unsigned long long)b,
			(unsigned long long)e);
	}
	free(chase);
	return 0;
}
