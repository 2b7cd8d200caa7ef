// SPDX-License-Identifier: GPL-2.0
/*
 * Trace format throughput, for tests/bench/b10_trace.sh: writes N samples of
 * the realistic stream (tests/unit/trace_gen.c: 4 counters, ips from a few
 * hot functions, increasing time) to FILE with the given level, deflate
 * strategy, codec (0 default = zstd, 2 deflate) and summaries (1 = none),
 * then reads them back, and prints one line:
 *   write_msps read_msps bytes_per_sample file_bytes
 * Samples are generated before the clock starts, so the figures are the
 * library's alone (encode + deflate + write; map + inflate + decode), in
 * samples per CPU-second of this process (user + system time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmiprof/trace.h"
#include "trace_gen.h"

#define RING 65536	/* pre-generated samples, replayed with shifted time */

static double now(void)
{
	struct timespec ts;

	/* CPU time (user + system) of this process: rates per core, robust to other jobs */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct trace_writer_opts o = { .level = 1 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample *ring;
	uint64_t n, i, got = 0, sum = 0, span;
	double t0, t_write, t_read;
	int err = 0;

	if (argc < 5 || argc > 7) {
		fprintf(stderr, "usage: trace_bench SAMPLES FILE LEVEL STRATEGY [CODEC [NO_SUMMARY]]\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 0);
	o.level = atoi(argv[3]);
	o.strategy = atoi(argv[4]);
	o.codec = argc > 5 ? atoi(argv[5]) : 0;
	o.no_summary = argc > 6 && atoi(argv[6]);
	ring = malloc(RING * sizeof(*ring));
	if (!ring)
		return 1;
	for (i = 0; i < RING; i++)
		tgen_stream_sample(1, i, &ring[i]);
	span = ring[RING - 1].time - ring[0].time + 400000;
	tgen_header(&h);

	t0 = now();
	err = trace_writer_open(&w, argv[2], &h, &o);
	for (i = 0; i < n && !err; i++) {
		/*
		 * The ring replayed in place, later by span each time round: a
		 * copy of each sample here cost a sixth of the measured time
		 * (and its wide stores stalled the writer's narrower loads).
		 */
		struct trace_sample *s = &ring[i % RING];

		if (i >= RING)
			s->time += span;
		err = trace_write_sample(w, s);
	}
	if (!err)
		err = trace_writer_close(w);
	t_write = now() - t0;
	if (err) {
		fprintf(stderr, "trace_bench: write %s: %s\n", argv[2], strerror(-err));
		return 1;
	}

	t0 = now();
	if (trace_reader_open(&r, argv[2], NULL, NULL))
		return 1;
	while (trace_reader_next(r, &rec) == 1) {
		sum += rec.sample.counts[1];
		got++;
	}
	trace_reader_close(r);
	t_read = now() - t0;
	if (got != n) {
		fprintf(stderr, "trace_bench: read %llu of %llu samples\n", (unsigned long long)got,
			(unsigned long long)n);
		return 1;
	}
	{
		FILE *f = fopen(argv[2], "rb");
		long size;

		if (!f)
			return 1;
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
		printf("%.1f %.1f %.2f %ld %llu\n", n / t_write / 1e6, n / t_read / 1e6,
		       (double)size / (double)n, size, (unsigned long long)(sum & 1));
	}
	free(ring);
	return 0;
}
