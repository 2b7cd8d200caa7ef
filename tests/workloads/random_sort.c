// SPDX-License-Identifier: GPL-2.0
/*
 * Workload that spends much of its time in libc functions that have
 * aliases: random() (glibc's __random, with the weak alias random) and
 * qsort() (msort_with_tmp, calling our cmp), next to a pointer chase of
 * its own.  Profilers name these aliases differently unless they choose
 * them the same way, so reports of it are compared with perf's by name.
 *
 *   random_sort [SECONDS]   run whole rounds for about SECONDS (default 1.0)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NODES 4096
#define SORT_N 2048

static volatile uint64_t sink;
static uint32_t next_node[NODES];
static long sort_buf[SORT_N];

__attribute__((noinline)) static void chase(int steps)
{
	uint32_t i = 0;

	while (steps-- > 0)
		i = next_node[i];
	sink += i;
}

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static void fill_and_sort(void)
{
	int i;

	/* random() here, in libc, is what the alias test is about. */
	for (i = 0; i < SORT_N; i++)
		sort_buf[i] = random();
	qsort(sort_buf, SORT_N, sizeof(sort_buf[0]), cmp);
	sink += (uint64_t)sort_buf[SORT_N / 2];
	for (i = 0; i < 8 * SORT_N; i++)
		sink += (uint64_t)random();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0;
	long rounds = 0;
	int i;

	if (secs <= 0) {
		fprintf(stderr, "usage: random_sort [SECONDS]\n");
		return 2;
	}
	/* One random cycle through all nodes: the chase defeats prefetching. */
	srandom(1);
	for (i = 0; i < NODES; i++)
		next_node[i] = (uint32_t)i;
	for (i = NODES - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(random() % i), t = next_node[i];

		next_node[i] = next_node[j];
		next_node[j] = t;
	}
	t0 = now();
	while (now() - t0 < secs) {
		chase(100000);
		fill_and_sort();
		rounds++;
	}
	printf("random_sort: %ld rounds\n", rounds);
	return 0;
}
