// SPDX-License-Identifier: GPL-2.0
/*
 * Unwinding speed (make bench, b60): samples of this program's own stack
 * (8 KiB copies by default, as --call-graph dwarf,8192 records them) taken at
 * a few depths under a qsort callback, unwound over and over with warm caches
 * as a report does.  Prints "samples_per_s frames_per_sample complete_share
 * fast_share" (fast_share: frames found by compiled rules rather than by
 * libunwind; PMIPROF_UNWIND=libunwind measures libunwind alone).
 *   unwind_bench [SAMPLES] [STACK_BYTES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "input/maps.h"
#include "symbols/symbols.h"
#include "stacks/unwind.h"
#include "unwind_self.h"

#define NR_SAMPLES 4

static struct ut_sample samples[NR_SAMPLES];
static int taking, depth;
static uint32_t want;
static volatile int sink;

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (taking >= 0) {
		ut_capture(&samples[taking], want);
		taking = -1;
	}
	return (x > y) - (x < y);
}

__attribute__((noinline)) static int descend(int d)
{
	int v[8], i;

	if (d > 0)
		return descend(d - 1) + sink;
	for (i = 0; i < 8; i++)
		v[i] = (i * 5) % 8;
	qsort(v, 8, sizeof(v[0]), cmp);
	return v[7];
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 200000, i, frames = 0, complete = 0;
	uint32_t pid = (uint32_t)getpid();
	struct symbolizer *sy;
	const struct unwind_stats *st;
	struct unwinder *u;
	uint64_t ips[256], t0, t1;
	struct maps maps;
	bool done;
	int k;

	want = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 8192;
	for (k = 0; k < NR_SAMPLES; k++) {
		taking = k;
		depth = k * 8;
		sink = descend(depth);
	}
	if (maps_init(&maps) || symbolizer_new(&sy, NULL) || ut_self_maps(&maps, sy, pid) ||
	    unwinder_new(&u, sy, &maps)) {
		fprintf(stderr, "unwind_bench: setup failed\n");
		return 1;
	}
	for (k = 0; k < NR_SAMPLES; k++)	/* warm: files, tables, libunwind's cache */
		unwind_user(u, pid, samples[k].regs[UT_REG_IP], &samples[k].us, ips, 256, &done);
	t0 = pm_now_ns();
	for (i = 0; i < n; i++) {
		const struct ut_sample *s = &samples[i % NR_SAMPLES];
		int r = unwind_user(u, pid, s->regs[UT_REG_IP], &s->us, ips, 256, &done);

		frames += r > 0 ? (uint64_t)r : 0;
		complete += done;
	}
	t1 = pm_now_ns();
	st = unwinder_stats(u);
	printf("%.0f %.1f %.2f %.2f\n", n * 1e9 / (double)(t1 - t0 ? t1 - t0 : 1),
	       (double)frames / n, (double)complete / n,
	       (double)st->fast_frames / (double)(st->fast_frames + st->libunwind_frames + !st->fast_frames));
	unwinder_free(u);
	symbolizer_free(sy);
	maps_free(&maps);
	return 0;
}
