// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads with an exactly known instruction count, for the icount tests
 * (tests/vm/t17x, pmiprof.ko pmu=emul emul_clock=icount under
 * tests/vm/run --icount).  Every hot loop is a fixed instruction sequence in
 * asm, so its count does not depend on the compiler, and nothing in it
 * calls libc or the kernel.  Built static (vm_static), the same binary
 * runs in the guest and under valgrind on the host.
 *
 *   icount_work threads UNITS   a heavy thread (2 x UNITS) and a light one
 *                               (1 x UNITS) at once, pinned to CPU 0: 2:1
 *   icount_work funcs UNITS     func_50, func_30, func_20 in turn: 5:3:2
 *   icount_work loop UNITS      one long loop, one write(2) at the end: the
 *                               instruction count callgrind is compared with
 *
 * A unit is 10^6 iterations of a 4-instruction loop body (4 x 10^6
 * instructions); UNITS is at most 100000.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_ITERS 1000000ul

static volatile uint64_t sink;

/* 4 instructions per iteration: imul, add, dec, jnz. */
/* Inlined even under -fno-inline: the samples belong to its callers. */
static inline __attribute__((always_inline)) uint64_t spin(uint64_t x, unsigned long iters)
{
	__asm__ volatile("1:\n\t"
			 "imul %[m], %[x]\n\t"
			 "add $12345, %[x]\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [x] "+r"(x), [n] "+r"(iters)
			 : [m] "r"(6364136223846793005ull));
	return x;
}

__attribute__((noinline)) void func_50(unsigned long units)
{
	sink = spin(sink, 5 * units * UNIT_ITERS);
}

__attribute__((noinline)) void func_30(unsigned long units)
{
	sink = spin(sink, 3 * units * UNIT_ITERS);
}

__attribute__((noinline)) void func_20(unsigned long units)
{
	sink = spin(sink, 2 * units * UNIT_ITERS);
}

__attribute__((noinline)) void long_loop(unsigned long units)
{
	sink = spin(sink, units * UNIT_ITERS);
}

static unsigned long units;

static void *heavy_thread(void *arg)
{
	(void)arg;
	sink = spin(sink, 2 * units * UNIT_ITERS);
	return NULL;
}

static void *light_thread(void *arg)
{
	(void)arg;
	sink = spin(sink, units * UNIT_ITERS);
	return NULL;
}

static int two_threads(void)
{
	pthread_t h, l;
	cpu_set_t cpus;

	/* One CPU for both: the split is decided by the work, not by vCPU speed. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("sched_setaffinity");
		return 1;
	}
	if (pthread_create(&h, NULL, heavy_thread, NULL) ||
	    pthread_create(&l, NULL, light_thread, NULL)) {
		fprintf(stderr, "icount_work: pthread_create failed\n");
		return 1;
	}
	pthread_join(h, NULL);
	pthread_join(l, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	char *end;

	if (argc != 3)
		goto usage;
	units = strtoul(argv[2], &end, 10);
	if (*end || !units || units > 100000)
		goto usage;
	if (!strcmp(argv[1], "threads"))
		return two_threads();
	if (!strcmp(argv[1], "funcs")) {
		func_50(units);
		func_30(units);
		func_20(units);
		return 0;
	}
	if (!strcmp(argv[1], "loop")) {
		long_loop(units);
		printf("%llu\n", (unsigned long long)sink);
		return 0;
	}
usage:
	fprintf(stderr, "usage: icount_work threads|funcs|loop UNITS (1..100000)\n");
	return 2;
}
