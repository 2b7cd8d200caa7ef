// SPDX-License-Identifier: GPL-2.0
/*
 * Trace format throughput, for tests/bench/b10_trace.sh: writes N samples of
 * the realistic stream (tests/unit/trace_gen.c: 4 counters, ips from a few
 * hot functions, increasing time) to FILE with the given level, deflate
 * strategy, codec (0 default = zstd, 2 deflate) and summaries (1 = none),
 * then reads them back, and prints one line:
 *   write_msps read_msps bytes_per_sample file_bytes
 * The samples are generated before the clock starts into a compact table
 * (what a recorder decodes from its perf ring: time, ip, thread, cpu,
 * counts; 48 bytes a sample) and handed to the writer as the module
 * backend does (daemon/module/backend_module.c): decoded into a batch of BATCH
 * trace_samples, then trace_write_samples().  So the write rate is the
 * library's (encode + compress + write) plus that decoding, in samples per
 * CPU-second of this process (user + system time); the read rate is map +
 * decompress + decode.  The table holds RING samples, more than a chunk,
 * so no chunk repeats itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmiprof/trace.h"
#include "trace_gen.h"

#define RING 65536	/* pre-generated samples, replayed with shifted time */
#define BATCH 64	/* samples per trace_write_samples() */

/* One sample as a recorder gets it (tgen's stream fits these widths). */
struct packed_sample {
	uint64_t time, ip;
	uint32_t tid, cpu;
	uint32_t counts[4];
};

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
	struct packed_sample *ring;
	struct trace_sample batch[BATCH] = { { 0 } }, g;
	uint64_t n, i, got = 0, sum = 0, span;
	uint32_t j, k, b;
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
	for (i = 0; i < RING; i++) {
		tgen_stream_sample(1, i, &g);
		if (g.nr != 4 || g.pid != 4242 || g.flags != PMIPROF_SAMPLE_F_USER)
			return 1;
		ring[i] = (struct packed_sample){ .time = g.time, .ip = g.ip, .tid = g.tid,
						  .cpu = g.cpu };
		for (k = 0; k < 4; k++) {
			if (g.counts[k] > UINT32_MAX)
				return 1;
			ring[i].counts[k] = (uint32_t)g.counts[k];
		}
	}
	span = ring[RING - 1].time - ring[0].time + 400000;
	for (j = 0; j < BATCH; j++) {
		batch[j].pid = 4242;
		batch[j].flags = PMIPROF_SAMPLE_F_USER;
		batch[j].nr = 4;
	}
	tgen_header(&h);

	t0 = now();
	err = trace_writer_open(&w, argv[2], &h, &o);
	for (i = 0; i < n && !err; i += b) {
		b = n - i < BATCH ? (uint32_t)(n - i) : BATCH;
		for (j = 0; j < b; j++) {
			const struct packed_sample *p = &ring[(i + j) % RING];
			struct trace_sample *s = &batch[j];

			s->time = p->time + (i + j) / RING * span;
			s->ip = p->ip;
			s->tid = p->tid;
			s->cpu = p->cpu;
			for (k = 0; k < 4; k++)
				s->counts[k] = p->counts[k];
		}
		err = trace_write_samples(w, batch, b);
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
