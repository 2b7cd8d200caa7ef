// SPDX-License-Identifier: GPL-2.0
/*
 * Workload that spends much of its time in libc functions that have
 * aliases: random() (glibc's __random, with the weak alias random) and
 * qsort() (msort_with_tmp, calling our cmp), next to a pointer chase of
 * its own.  Profilers name these aliases differently unless they choose
 * them the same way, so reports of it are compared with perf's by name.
 *
 *   random_sort [SECONDS [PAGES]]   run whole rounds for about SECONDS (default
 *                                   1.0); with PAGES, each round also maps and
 *                                   touches PAGES fresh pages (page faults in
 *                                   some windows, none in most)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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

/* Fresh anonymous pages fault on first touch: one fault per page. */
__attribute__((noinline)) static void touch_pages(long pages)
{
	size_t len = (size_t)pages * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < pages; i++)
		p[i * 4096] = (char)i;
	munmap(p, len);
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
	long rounds = 0, pages = argc > 2 ? atol(argv[2]) : 0;
	int i;

	if (secs <= 0 || pages < 0) {
		fprintf(stderr, "usage: random_sort [SECONDS [PAGES]]\n");
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
		if (pages)
			touch_pages(pages);
		rounds++;
	}
	printf("random_sort: %ld rounds\n", rounds);
	return 0;
}
