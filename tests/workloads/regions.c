// SPDX-License-Identifier: GPL-2.0
/*
 * Code regions by construction, for pmiprof stat --regions (t26x tests):
 *   regions shares CALLS     two threads, each CALLS x "heavy" (3 units of
 *                            work) and CALLS x "light" (1 unit): 3:1 sums
 *   regions nested CALLS     "outer" around "inner" (1 unit each inside),
 *                            then "left-open" begun and never ended
 *   regions constant N       one constant-cost snippet N times
 *   regions bimodal N        a snippet costing 1 or 4 units, alternately
 *   regions misuse           end without begin, mismatched ends, 1000
 *                            distinct names, a fork inside a region, 40 levels
 *   regions loop SECONDS     "tick" regions for SECONDS of wall time, then
 *                            prints "regions: done" (the stat-killed test)
 *   regions burst N          N empty "burst" regions back to back: faster
 *                            than any drain, so marker rings overflow
 * A unit is UNIT_STEPS dependent loop steps: the same instructions each time.
 */
// LDLIBS: -lpthread
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmiprof/region.h"

#define UNIT_STEPS 50000

static volatile uint64_t sink;
static long calls = 200;

static void work(unsigned int units)
{
	uint64_t x = sink;

	for (long i = 0; i < (long)units * UNIT_STEPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static void *shares_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < calls; i++) {
		PMIPROF_REGION_BEGIN("heavy");
		work(3);
		PMIPROF_REGION_END("heavy");
		PMIPROF_REGION_BEGIN("light");
		work(1);
		PMIPROF_REGION_END("light");
	}
	return NULL;
}

static int shares(void)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, shares_thread, NULL))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int nested(void)
{
	for (long i = 0; i < calls; i++) {
		PMIPROF_REGION_BEGIN("outer");
		work(1);
		PMIPROF_REGION_BEGIN("inner");
		work(1);
		PMIPROF_REGION_END("inner");
		PMIPROF_REGION_END("outer");
	}
	PMIPROF_REGION_BEGIN("left-open");
	work(1);
	return 0;
}

static int constant(long n)
{
	for (long i = 0; i < n; i++) {
		PMIPROF_REGION_BEGIN("constant");
		work(1);
		PMIPROF_REGION_END("constant");
	}
	return 0;
}

static int bimodal(long n)
{
	for (long i = 0; i < n; i++) {
		PMIPROF_REGION_BEGIN("bimodal");
		work(i % 2 ? 4 : 1);
		PMIPROF_REGION_END("bimodal");
	}
	return 0;
}

static int misuse(void)
{
	static char names[1000][24];
	pid_t pid;
	int st;

	PMIPROF_REGION_END("never-begun");
	PMIPROF_REGION_BEGIN("mm-outer");
	PMIPROF_REGION_BEGIN("mm-inner");
	PMIPROF_REGION_END("mm-outer");		/* inner still open */
	/* stable strings, one per name: the pointer is the key */
	for (int i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "name-%04d", i);
		pmiprof_region_begin(names[i]);
		pmiprof_region_end(names[i]);
	}
	PMIPROF_REGION_BEGIN("forking");
	pid = fork();
	if (pid == 0) {
		PMIPROF_REGION_END("forking");	/* the parent's region: not the child's */
		PMIPROF_REGION_BEGIN("in-child");
		work(1);
		PMIPROF_REGION_END("in-child");
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	PMIPROF_REGION_END("forking");
	for (int i = 0; i < 40; i++)
		PMIPROF_REGION_BEGIN("deep");
	for (int i = 0; i < 40; i++)
		PMIPROF_REGION_END("deep");
	printf("regions: misuse survived\n");
	return 0;
}

static int loop(double secs)
{
	struct timespec a, b;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		PMIPROF_REGION_BEGIN("tick");
		work(1);
		PMIPROF_REGION_END("tick");
		n++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	printf("regions: done (%ld ticks)\n", n);
	fflush(stdout);
	return 0;
}

static int burst(long n)
{
	for (long i = 0; i < n; i++) {
		PMIPROF_REGION_BEGIN("burst");
		PMIPROF_REGION_END("burst");
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "shares";
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (n > 0)
		calls = n;
	if (!strcmp(mode, "shares"))
		return shares();
	if (!strcmp(mode, "nested"))
		return nested();
	if (!strcmp(mode, "constant"))
		return constant(n > 0 ? n : 10000);
	if (!strcmp(mode, "bimodal"))
		return bimodal(n > 0 ? n : 2000);
	if (!strcmp(mode, "misuse"))
		return misuse();
	if (!strcmp(mode, "burst"))
		return burst(n > 0 ? n : 1000000);
	if (!strcmp(mode, "loop"))
		return loop(argc > 2 ? atof(argv[2]) : 1.0);
	fprintf(stderr, "usage: regions shares|nested|constant|bimodal|misuse|loop|burst [N]\n");
	return 2;
}
