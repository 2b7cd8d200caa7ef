// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof doctor --workload spin ITERS | walk BYTES STEPS: one calibrated
 * workload of the self-test run alone, for cross-checks from outside:
 * `perf stat -e instructions,branches` on a machine with a PMU, valgrind
 * callgrind/cachegrind in tests/e2e/t532.  Its counts by construction:
 *   spin: ITERS x 4 instructions and ITERS conditional branches in st_spin()
 *   walk: after one warm-up cycle over the buffer, STEPS loads in
 *         st_walk_run(), each an LLC miss when BYTES is over the LLC
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"

int doctor_workload(int argc, char **argv)
{
	uint64_t a = 0, b = 0;
	struct st_walk w;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--workload"); i++)
		;
	if (i + 2 <= argc - 1 && !strcmp(argv[i + 1], "spin") && i + 3 == argc) {
		if (pm_parse_u64(argv[i + 2], 1, UINT64_MAX / 4, &a) < 0)
			return pm_usage_error("doctor", "--workload spin: bad ITERS '%s'",
					      argv[i + 2]);
		st_spin(a);
		printf("spin: %llu iterations: %llu instructions, %llu conditional branches in "
		       "st_spin\n", (unsigned long long)a,
		       (unsigned long long)(a * ST_SPIN_INSNS_PER_ITER),
		       (unsigned long long)(a * ST_SPIN_BRANCHES_PER_ITER));
		return 0;
	}
	if (i + 3 <= argc - 1 && !strcmp(argv[i + 1], "walk") && i + 4 == argc) {
		if (pm_parse_u64(argv[i + 2], 128, UINT64_MAX >> 8, &a) < 0 ||
		    pm_parse_u64(argv[i + 3], 0, UINT64_MAX, &b) < 0)
			return pm_usage_error("doctor", "--workload walk: bad BYTES or STEPS");
		if (st_walk_init(&w, (size_t)a) < 0) {
			fprintf(stderr, "pmiprof doctor: --workload walk: cannot allocate %llu bytes\n",
				(unsigned long long)a);
			return 1;
		}
		st_walk_run(&w, w.lines);	/* warm-up: one cycle, every page faulted in */
		st_walk_run(&w, b);
		printf("walk: %zu lines of 64 bytes, 1 warm-up cycle, then %llu steps in "
		       "st_walk_run\n", w.lines, (unsigned long long)b);
		st_walk_free(&w);
		return 0;
	}
	return pm_usage_error("doctor", "--workload takes spin ITERS or walk BYTES STEPS");
}
