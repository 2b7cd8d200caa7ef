// SPDX-License-Identifier: GPL-2.0
/*
 * Workload with profile shares fixed by construction: each round calls
 * work_a 5 times, work_b 3 times and work_c 2 times, and the three run the
 * very same loop, so a correct profiler attributes 50/30/20 % of the
 * samples (and of every counter) to them.
 *
 *   shares [SECONDS]       run whole rounds for about SECONDS (default 1.0)
 *   shares -n ROUNDS       run exactly ROUNDS rounds (deterministic counts)
 *   --slow FUNC            (before the above) FUNC = work_a, work_b or work_c
 *                          runs its loop twice as long per call: its cost per
 *                          round doubles, the other two stay as they were
 *                          (a known regression for `pmiprof diff`); with
 *                          --slow work_b the shares become 5/6/2 of 13.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UNIT_ITERS 100000

static volatile uint64_t sink;

/* Loop length of work_a/b/c: UNIT_ITERS, twice that for --slow. */
static long iters[3] = { UNIT_ITERS, UNIT_ITERS, UNIT_ITERS };

/* The same body in each function, so each one's samples stay its own. */
#define WORK_BODY(k)							\
	do {								\
		uint64_t x = sink + 1;					\
		for (long i = 0, n = iters[k]; i < n; i++)		\
			x = x * 6364136223846793005ull + 1442695040888963407ull; \
		sink = x;						\
	} while (0)

__attribute__((noinline)) void work_a(void) { WORK_BODY(0); }
__attribute__((noinline)) void work_b(void) { WORK_BODY(1); }
__attribute__((noinline)) void work_c(void) { WORK_BODY(2); }

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void round_once(void)
{
	int i;

	for (i = 0; i < 5; i++)
		work_a();
	for (i = 0; i < 3; i++)
		work_b();
	for (i = 0; i < 2; i++)
		work_c();
}

int main(int argc, char **argv)
{
	long rounds = -1, done = 0;
	double secs = 1.0, t0;

	while (argc > 2 && !strcmp(argv[1], "--slow")) {
		const char *f = argv[2];

		if (strncmp(f, "work_", 5) || f[5] < 'a' || f[5] > 'c' || f[6]) {
			fprintf(stderr, "shares: --slow %s: expected work_a, work_b or work_c\n", f);
			return 2;
		}
		iters[f[5] - 'a'] = 2 * UNIT_ITERS;
		argc -= 2;
		argv += 2;
	}
	if (argc > 2 && !strcmp(argv[1], "-n"))
		rounds = atol(argv[2]);
	else if (argc > 1)
		secs = atof(argv[1]);
	if (rounds == 0 || secs <= 0) {
		fprintf(stderr, "usage: shares [--slow work_X] [SECONDS | -n ROUNDS]\n");
		return 2;
	}
	t0 = now();
	while (rounds > 0 ? done < rounds : now() - t0 < secs) {
		round_once();
		done++;
	}
	/* wall and CPU time: the benchmark compares both under profilers */
	printf("shares: %ld rounds in %.3f s (cpu %.3f s)\n", done, now() - t0,
	       clock_s(CLOCK_PROCESS_CPUTIME_ID));
	return 0;
}
