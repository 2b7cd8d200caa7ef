// SPDX-License-Identifier: GPL-2.0
/*
 * Frozen format: tests/fixtures/v1-basic.pmiprof is a committed trace
 * (written once by tgen_write_basic()); this test reads those bytes and
 * compares every decoded value with constants written here, so any
 * incompatible change of the format fails.  The corrupt fixtures next to it
 * must give their exact error messages.
 *
 * build/tests/test_trace_fixture --regenerate tests/fixtures writes the
 * fixtures that do not exist yet (a new version's); committed ones are frozen.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmiprof/trace.h"
#include "trace_gen.h"

static char fixdir[4096];

static const char *fixture(const char *name)
{
	static char path[4200];

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	return path;
}

static char last_diag[1024];
static int diags;

static void save_diag(void *arg, const char *msg)
{
	(void)arg;
	diags++;
	snprintf(last_diag, sizeof(last_diag), "%s", msg);
}

static void fixture_prologue_bytes_are_frozen(void **state)
{
	static const uint8_t want[24] = {
		'P', 'M', 'I', 'P', 'R', 'O', 'F', '1',	/* magic, little-endian u64 */
		1, 0, 0, 0,				/* version 1.0 */
		0x44, 0x02, 0, 0,			/* header_size 580 */
		0x8d, 0xc7, 0x6a, 0x79,			/* header_crc */
		0x08, 0, 0, 0,				/* flags: INHERIT */
	};
	uint8_t got[32];
	FILE *f = fopen(fixture("v1-basic.pmiprof"), "rb");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fread(got, 1, sizeof(got), f), sizeof(got));
	fclose(f);
	assert_memory_equal(got, want, sizeof(want));
}

static void fixture_header_decodes_to_frozen_values(void **state)
{
	struct trace_reader *r;
	const struct trace_header *h;

	(void)state;
	assert_int_equal(trace_reader_open(&r, fixture("v1-basic.pmiprof"), NULL, NULL), 0);
	h = trace_reader_header(r);
	assert_int_equal(h->version_major, 1);
	assert_int_equal(h->version_minor, 0);
	assert_int_equal(h->flags, PMIPROF_TRACE_F_INHERIT);
	assert_string_equal(h->hostname, "fixture-host");
	assert_string_equal(h->kernel_release, "6.1.0-56-amd64");
	assert_string_equal(h->cpu_vendor, "GenuineIntel");
	assert_string_equal(h->cpu_model_name, "Fixture CPU @ 3.00GHz");
	assert_int_equal(h->cpu_family, 6);
	assert_int_equal(h->cpu_model, 85);
	assert_int_equal(h->cpu_stepping, 4);
	assert_string_equal(h->pmu, "Intel arch perfmon v4, 4 GP + 3 fixed counters");
	assert_int_equal(h->nr_events, 4);
	assert_string_equal(h->events[0].name, "instructions");
	assert_string_equal(h->events[1].name, "cycles");
	assert_string_equal(h->events[2].name, "cache-misses");
	assert_string_equal(h->events[3].name, "branch-misses");
	assert_int_equal(h->events[0].config, 1);
	assert_int_equal(h->events[1].config, 0);
	assert_int_equal(h->events[2].config, 3);
	assert_int_equal(h->events[3].config, 5);
	assert_int_equal(h->events[0].flags, PMIPROF_EVENT_F_TRIGGER);
	assert_int_equal(h->events[3].flags, PMIPROF_EVENT_F_EXCL_KERNEL);
	assert_int_equal(h->trigger_index, 0);
	assert_int_equal(h->period, 1000000);
	assert_int_equal(h->freq_hz, 0);
	assert_int_equal(h->mode, PMIPROF_MODE_PERF);
	assert_int_equal(h->backend, PMIPROF_BACKEND_PERF);
	assert_int_equal(h->clock_id, 1);
	assert_int_equal(h->clock_freq_hz, 1000000000);
	assert_int_equal(h->start_time, 1000000000);
	assert_int_equal(h->start_realtime_ns, 1700000000000000000ull);
	assert_string_equal(h->clock_name, "monotonic");
	assert_int_equal(h->nr_cpus, 2);
	assert_string_equal(h->recorder, "pmiprof 0.1.0");
	assert_string_equal(h->note, "fixture: written by tests/unit/trace_gen.c");
	assert_int_equal(h->cmdline_argc, 3);
	assert_string_equal(h->cmdline, "pmiprof record ./workload");
	trace_reader_close(r);
}

/* Sample i of the fixture, restated here independently of the generator. */
static void check_sample(unsigned int i, const struct trace_sample *s)
{
	assert_int_equal(s->time, 1000000000ull + i * 1000003ull + (i % 7) * 11);
	assert_int_equal(s->ip, 0x401000 + (i % 5) * 0x40);
	assert_int_equal(s->pid, 100);
	assert_int_equal(s->tid, 100 + i % 2);
	assert_int_equal(s->cpu, i % 2);
	assert_int_equal(s->flags, i < 2 ? 0x21 : 0x01);
	assert_int_equal(s->nr, 4);
	assert_int_equal(s->counts[0], 1000000 + i % 3);
	assert_int_equal(s->counts[1], 1500000 + i * 17);
	assert_int_equal(s->counts[2], 100 + (i * i) % 50);
	assert_int_equal(s->counts[3], i % 4);
	assert_int_equal(s->stack, 0);		/* before 1.3: never a stack */
}

/* check_sample() without its "no stack" assertion. */
static void check_sample_v13(unsigned int i, const struct trace_sample *s)
{
	struct trace_sample t = *s;

	t.stack = 0;
	check_sample(i, &t);
}

static void check_records(struct trace_reader *r)
{
	const struct trace_read_stats *st;
	struct trace_record rec;
	unsigned int i;

	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_COMM);
	assert_int_equal(rec.comm.time, 999000000);
	assert_int_equal(rec.comm.pid, 100);
	assert_int_equal(rec.comm.tid, 100);
	assert_int_equal(rec.comm.flags, PMIPROF_COMM_F_EXEC);
	assert_string_equal(rec.comm.comm, "workload");

	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_MMAP);
	assert_int_equal(rec.mmap.time, 999000100);
	assert_int_equal(rec.mmap.pid, 100);
	assert_int_equal(rec.mmap.start, 0x400000);
	assert_int_equal(rec.mmap.len, 0x2000);
	assert_int_equal(rec.mmap.pgoff, 0);
	assert_int_equal(rec.mmap.prot, 5);
	assert_int_equal(rec.mmap.flags, 2);
	assert_int_equal(rec.mmap.build_id_len, 20);
	assert_int_equal(rec.mmap.build_id[0], 0xa0);
	assert_int_equal(rec.mmap.build_id[19], 0xb3);
	assert_string_equal(rec.mmap.path, "/usr/bin/workload");

	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_FORK);
	assert_int_equal(rec.task.time, 999000200);
	assert_int_equal(rec.task.pid, 100);
	assert_int_equal(rec.task.ppid, 100);
	assert_int_equal(rec.task.tid, 101);
	assert_int_equal(rec.task.ptid, 100);

	for (i = 0; i < 60; i++) {
		assert_int_equal(trace_reader_next(r, &rec), 1);
		assert_int_equal(rec.type, PMIPROF_REC_SAMPLE);
		check_sample(i, &rec.sample);
		if (i == 10) {
			assert_int_equal(trace_reader_next(r, &rec), 1);
			assert_int_equal(rec.type, PMIPROF_REC_CALLCHAIN);
			assert_int_equal(rec.callchain.nr, 3);
			assert_int_equal(rec.callchain.ips[0], 0x401040);
			assert_int_equal(rec.callchain.ips[1], 0x401200);
			assert_int_equal(rec.callchain.ips[2], 0x7f0000001000ull);
		}
		if (i == 20) {
			assert_int_equal(trace_reader_next(r, &rec), 1);
			assert_int_equal(rec.type, PMIPROF_REC_LOST);
			assert_int_equal(rec.lost.time, 1000500000);
			assert_int_equal(rec.lost.cpu, 1);
			assert_int_equal(rec.lost.reason, PMIPROF_LOST_RING_FULL);
			assert_int_equal(rec.lost.count, 7);
		}
		/* i == 30: a record of unknown type 200 follows, and is skipped */
		if (i == 40) {
			assert_int_equal(trace_reader_next(r, &rec), 1);
			assert_int_equal(rec.type, PMIPROF_REC_MARK);
			assert_int_equal(rec.mark.time, 1000600000);
			assert_int_equal(rec.mark.pid, 100);
			assert_int_equal(rec.mark.id, 42);
			assert_string_equal(rec.mark.label, "phase 2");
		}
	}
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_EXIT);
	assert_int_equal(rec.task.time, 1100000000);
	assert_int_equal(rec.task.tid, 101);

	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_FINISH);
	assert_int_equal(rec.finish.time, 1100000100);
	assert_int_equal(rec.finish.flags, 0);
	assert_int_equal(rec.finish.exit_code, 0);
	assert_int_equal(rec.finish.samples, 60);
	assert_int_equal(rec.finish.lost, 7);

	assert_int_equal(trace_reader_next(r, &rec), 0);
	st = trace_reader_stats(r);
	assert_int_equal(st->records, 68);
	assert_int_equal(st->records_unknown, 1);
	assert_int_equal(st->chunks_bad, 0);
	assert_int_equal(st->records_lost, 0);
	assert_int_equal(st->bytes_skipped, 0);
	assert_false(st->truncated);
	assert_true(st->finished);
}

static void fixture_records_decode_to_frozen_values(void **state)
{
	struct trace_reader *r;

	(void)state;
	diags = 0;
	assert_int_equal(trace_reader_open(&r, fixture("v1-basic.pmiprof"), save_diag, NULL), 0);
	check_records(r);
	assert_int_equal(trace_reader_stats(r)->chunks_ok, 4);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

/* A file written by the 1.2 writer (before stacks) reads unchanged. */
static void fixture_v12_still_reads(void **state)
{
	struct trace_reader *r;

	(void)state;
	diags = 0;
	assert_int_equal(trace_reader_open(&r, fixture("v12-basic.pmiprof"), save_diag, NULL), 0);
	assert_int_equal(trace_reader_header(r)->version_minor, 2);
	assert_int_equal(trace_reader_header(r)->call_graph, PMIPROF_CALL_GRAPH_NONE);
	check_records(r);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

/* ---- 1.3: stacks ---- */

/* The stacks of the v13 fixture, restated independently of the generator. */
static const uint64_t v13_a[3] = { 0x401234, 0x401456, 0x7f0000021c87ull };
static const uint64_t v13_b[4] = {
	0xffffffff81001234ull, 0xffffffff81005678ull, 0x401100, 0x401456,
};

static void check_v13_records(struct trace_reader *r, unsigned int minor)
{
	const struct trace_header *h = trace_reader_header(r);
	uint64_t frames[8][8];
	uint32_t nr[8], nr_kernel[8], defined = 0, seq = UINT32_MAX;
	unsigned int i = 0, stacks = 0, ustacks = 0;
	struct trace_record rec;
	bool last_sample = false;

	assert_int_equal(h->version_minor, minor);
	assert_int_equal(h->call_graph, PMIPROF_CALL_GRAPH_FP);
	assert_int_equal(h->call_graph_max_stack, 127);
	assert_int_equal(h->call_graph_dump_size, 0);
	assert_int_equal(h->call_graph_flags, 3);
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_COMM);
	while (trace_reader_next(r, &rec) == 1 && rec.type != PMIPROF_REC_FINISH) {
		if (rec.chunk_seq != seq) {	/* ids are chunk-local */
			seq = rec.chunk_seq;
			defined = 0;
		}
		switch (rec.type) {
		case PMIPROF_REC_STACK:
			assert_int_equal(rec.stack.id, defined);	/* dense from 0 */
			assert_true(defined < 8 && rec.stack.nr <= 8);
			memcpy(frames[defined], rec.stack.ips, rec.stack.nr * 8);
			nr[defined] = rec.stack.nr;
			nr_kernel[defined++] = rec.stack.nr_kernel;
			stacks++;
			last_sample = false;
			break;
		case PMIPROF_REC_SAMPLE: {
			unsigned int kind = i % 5 == 4 ? 0 : i % 2 ? 2 : 1;
			uint32_t id = rec.sample.stack - 1;

			check_sample_v13(i, &rec.sample);
			if (!kind) {
				assert_int_equal(rec.sample.stack, 0);
			} else {
				assert_true(rec.sample.stack >= 1 && id < defined);
				assert_int_equal(nr[id], kind == 1 ? 3 : 4);
				assert_int_equal(nr_kernel[id], kind == 1 ? 0 : 2);
				assert_memory_equal(frames[id], kind == 1 ? v13_a : v13_b, nr[id] * 8);
			}
			i++;
			last_sample = true;
			break;
		}
		case PMIPROF_REC_USTACK: {
			unsigned int j = i - 1, k;

			assert_true(last_sample);		/* right after its sample */
			assert_true(j % 3 == 0 && j % 5 != 4);
			assert_int_equal(rec.ustack.abi, 2);
			assert_int_equal(rec.ustack.regs_mask, 0x1c0);
			assert_int_equal(rec.ustack.nr_regs, 3);
			assert_int_equal(rec.ustack.regs[0], 0x7ffc0000f000ull + j * 16);
			assert_int_equal(rec.ustack.regs[1], 0x7ffc0000efc0ull + j * 16);
			assert_int_equal(rec.ustack.regs[2], j == 6 ? 0x400ff0 : 0x401000 + (j % 5) * 0x40);
			if (j % 2) {
				assert_int_equal(rec.ustack.size, 20);
				for (k = 0; k < 20; k++)
					assert_int_equal(rec.ustack.data[k], (uint8_t)(j + k));
			} else {
				uint64_t wd[3];

				assert_int_equal(rec.ustack.size, 24);
				memcpy(wd, rec.ustack.data, 24);
				assert_int_equal(wd[0], 0x401456);
				assert_int_equal(wd[1], 0);
				assert_int_equal(wd[2], 0x7ffc0000f100ull + j * 16);
			}
			ustacks++;
			last_sample = false;
			break;
		}
		default:
			fail_msg("unexpected record type %u", rec.type);
		}
	}
	assert_int_equal(rec.type, PMIPROF_REC_FINISH);
	assert_int_equal(i, 40);
	assert_int_equal(ustacks, 11);	/* i = 0, 3, ... 39 but 9, 24, 39 (i % 5 == 4) */
	/* each chunk defines what it uses: more STACKs than the 2 distinct stacks */
	assert_true(stacks > 2);
	assert_int_equal(trace_reader_next(r, &rec), 0);
	assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
	assert_true(trace_reader_stats(r)->chunks_ok > 3);
}

static void fixture_v13_stacks_decode_to_frozen_values(void **state)
{
	struct trace_reader *r;

	(void)state;
	diags = 0;
	assert_int_equal(trace_reader_open(&r, fixture("v13-stacks.pmiprof"), save_diag, NULL), 0);
	check_v13_records(r, 3);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

static void current_writer_matches_the_v13_fixture(void **state)
{
	char path[] = "/tmp/pmiprof-fixture13.XXXXXX";
	struct trace_reader *r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tgen_write_stacks(path), 0);
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	check_v13_records(r, PMIPROF_TRACE_VERSION_MINOR);
	trace_reader_close(r);
	unlink(path);
}

/* ---- 1.4: code regions ---- */

static void expect_region(struct trace_reader *r, unsigned int kind, uint32_t id,
			  uint32_t depth, uint64_t time, uint32_t evmask, uint64_t v0, uint64_t v1)
{
	struct trace_record rec;

	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_REGION);
	assert_int_equal(rec.region.kind, kind);
	assert_int_equal(rec.region.pid, 100);
	assert_int_equal(rec.region.tid, 100);
	assert_int_equal(rec.region.id, id);
	assert_int_equal(rec.region.depth, depth);
	assert_int_equal(rec.region.time, time);
	assert_int_equal(rec.region.evmask, evmask);
	assert_int_equal(rec.region.values[0], v0);
	assert_int_equal(rec.region.values[1], v1);
	assert_int_equal(rec.region.values[2], 0);
}

static void expect_def(struct trace_reader *r, uint32_t id, const char *name)
{
	struct trace_record rec;

	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_REGION_DEF);
	assert_int_equal(rec.region_def.id, id);
	assert_string_equal(rec.region_def.name, name);
}

/* The v14 fixture, restated independently of the generator (trace_gen.h). */
static void check_v14_records(struct trace_reader *r, unsigned int minor)
{
	const struct trace_header *h = trace_reader_header(r);
	struct trace_record rec;
	unsigned int i;

	assert_int_equal(h->version_minor, minor);
	assert_int_equal(h->flags, PMIPROF_TRACE_F_INHERIT | PMIPROF_TRACE_F_REGIONS);
	for (i = 0; i < 12; i++) {
		uint64_t t = 1000000000ull + i * 1000003ull + (i % 7) * 11 - 10;

		if (i == 2) {
			expect_def(r, 1, "solve");
			expect_region(r, PMIPROF_REGION_BEGIN, 1, 0, t, 3, 1000, 123456789012ull);
		} else if (i == 4) {
			expect_def(r, 2, "step");
			expect_region(r, PMIPROF_REGION_BEGIN, 2, 1, t, 0, 0, 0);
		} else if (i == 6) {
			expect_region(r, PMIPROF_REGION_END, 2, 1, t, 0, 0, 0);
		} else if (i == 8) {
			expect_region(r, PMIPROF_REGION_END, 1, 0, t, 1, 5000, 0);
		}
		assert_int_equal(trace_reader_next(r, &rec), 1);
		assert_int_equal(rec.type, PMIPROF_REC_SAMPLE);
		check_sample(i, &rec.sample);
	}
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_REGION_ANOMALY);
	assert_int_equal(rec.region_anomaly.time, 1100000000);
	assert_int_equal(rec.region_anomaly.pid, 100);
	assert_int_equal(rec.region_anomaly.tid, 101);
	assert_int_equal(rec.region_anomaly.what, PMIPROF_REGION_AN_FORK_IN_REGION);
	assert_int_equal(rec.region_anomaly.count, 1);
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_LOST);
	assert_int_equal(rec.lost.reason, PMIPROF_LOST_REGION_MARKERS);
	assert_int_equal(rec.lost.count, 3);
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_FINISH);
	assert_int_equal(trace_reader_next(r, &rec), 0);
	assert_int_equal(trace_reader_stats(r)->records_unknown, 0);
	assert_true(trace_reader_stats(r)->chunks_ok > 1);	/* markers cross chunks */
}

static void fixture_v14_regions_decode_to_frozen_values(void **state)
{
	struct trace_reader *r;

	(void)state;
	diags = 0;
	assert_int_equal(trace_reader_open(&r, fixture("v14-regions.pmiprof"), save_diag, NULL), 0);
	check_v14_records(r, 4);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

static void current_writer_matches_the_v14_fixture(void **state)
{
	char path[] = "/tmp/pmiprof-fixture14.XXXXXX";
	struct trace_reader *r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tgen_write_regions(path), 0);
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	check_v14_records(r, PMIPROF_TRACE_VERSION_MINOR);
	trace_reader_close(r);
	unlink(path);
}

static void check_packed_gen(const char *path, void (*gen)(unsigned int, struct trace_sample *),
			     unsigned int n, uint16_t type, const uint8_t *first, size_t first_len)
{
	const struct trace_header *h;
	struct pmiprof_chunk_header ch;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample want;
	unsigned int i = 0, stacks = 0;
	uint8_t buf[4096];
	uint32_t hsize;
	FILE *f;

	diags = 0;
	assert_int_equal(trace_reader_open(&r, path, save_diag, NULL), 0);
	h = trace_reader_header(r);
	assert_int_equal(h->version_minor, 4);
	assert_int_equal(h->predict[0], PMIPROF_PREDICT_TIME);
	assert_int_equal(h->predict[1], PMIPROF_PREDICT_EVENT + 0);
	assert_int_equal(h->predict[2], PMIPROF_PREDICT_PREV);
	assert_int_equal(h->predict[3], PMIPROF_PREDICT_PREV);
	while (trace_reader_next(r, &rec) == 1) {
		if (rec.type == PMIPROF_REC_STACK) {
			assert_int_equal(rec.stack.nr, 3);
			assert_int_equal(rec.stack.nr_kernel, 1);
			assert_int_equal(rec.stack.ips[0], 0xffffffff81001234ull);
			stacks++;
			continue;
		}
		if (rec.type != PMIPROF_REC_SAMPLE)
			break;
		gen(i, &want);
		assert_int_equal(rec.sample.time, want.time);
		assert_int_equal(rec.sample.ip, want.ip);
		assert_int_equal(rec.sample.cpu, want.cpu);
		assert_int_equal(rec.sample.pid, want.pid);
		assert_int_equal(rec.sample.tid, want.tid);
		assert_int_equal(rec.sample.flags, want.flags);
		assert_int_equal(rec.sample.nr, want.nr);
		assert_memory_equal(rec.sample.counts, want.counts, sizeof(want.counts));
		assert_int_equal(rec.sample.stack, i % 10 == 5 ? 1 : 0);
		i++;
	}
	assert_int_equal(i, n);
	assert_true(stacks >= 2);	/* one per chunk that uses it: ids are chunk-local */
	assert_int_equal(rec.type, PMIPROF_REC_FINISH);
	assert_int_equal(trace_reader_next(r, &rec), 0);
	assert_true(trace_reader_stats(r)->chunks_ok > 2);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
	/* the chunk type, and the bytes of the first record as docs/trace-format.md shows them */
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf), f) > 64);
	fclose(f);
	memcpy(&hsize, buf + 12, 4);
	memcpy(&ch, buf + 32 + hsize, sizeof(ch));
	assert_int_equal(ch.type, type);
	assert_int_equal(ch.flags, 0);
	assert_memory_equal(buf + 32 + hsize + sizeof(ch), first, first_len);
}

/*
 * v14-packed: RECORDS2 chunks, count predictors in the header, every sample
 * as tgen_packed_sample() made it (stack ref 1 on every 10th from the 5th:
 * the one STACK of its chunk).
 */
static void check_packed(const char *path)
{
	/* the first SAMPLE: mask 0x02 (cpu 0 = zeroed state), flags, pid, tid, nr,
	 * dt_change, ip_delta, cpu-clock - dt, task-clock - cpu-clock, 0, 1 */
	static const uint8_t first[] = {
		0x01, 0x02, 0x11, 0x64, 0x64, 0x04, 0x80, 0xa8, 0xd6, 0xb9, 0x07, 0x80,
		0xc0, 0x80, 0x04, 0xbf, 0x8d, 0xca, 0xb9, 0x07, 0xab, 0x02, 0x06, 0x02,
	};

	check_packed_gen(path, tgen_packed_sample, TGEN_PACKED_SAMPLES, PMIPROF_CHUNK_RECORDS2,
			 first, sizeof(first));
}

/*
 * v14-threads: RECORDS3 chunks (thread contexts, ip table), six threads'
 * samples of tgen_threads_sample() interleaved.
 */
static void check_threads(const char *path)
{
	/* the first SAMPLE: see docs/trace-format.md, "Worked example" */
	static const uint8_t first[] = {
		0x01, 0x08, 0x05, 0x11, 0xc8, 0x01, 0xc8, 0x01, 0x04,
	};

	check_packed_gen(path, tgen_threads_sample, TGEN_THREADS_SAMPLES, PMIPROF_CHUNK_RECORDS3,
			 first, sizeof(first));
}

/*
 * v14-columns: RECORDS4 chunks, the samples of v14-threads; the payload
 * starts with the stream table (8 streams: MAIN, IP, TIME, 4 events, HI).
 */
static void check_columns(const char *path)
{
	/*
	 * the stream table (8 streams: MAIN 93 bytes, IP 40, TIME and the 4
	 * events 16 each: a byte per sample, HI 58), then the first record in
	 * MAIN: the first
	 * RECORDS3 SAMPLE of v14-threads without its time, ip and counts
	 */
	static const uint8_t first[] = {
		0x08, 0x5d, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
		0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x10,
		0x00, 0x00, 0x00, 0x3a, 0x00, 0x00, 0x00,
		0x01, 0x08, 0x05, 0x11, 0xc8, 0x01, 0xc8, 0x01, 0x04,
	};
	struct trace_reader *r;

	check_packed_gen(path, tgen_threads_sample, TGEN_THREADS_SAMPLES, PMIPROF_CHUNK_RECORDS4,
			 first, sizeof(first));
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	assert_int_equal(trace_reader_header(r)->time_step, 100000);
	trace_reader_close(r);
}

static void fixture_v14_columns_decodes_to_frozen_values(void **state)
{
	(void)state;
	check_columns(fixture("v14-columns.pmiprof"));
}

static void current_writer_matches_the_v14_columns_fixture(void **state)
{
	char path[] = "/tmp/pmiprof-fixture14c.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tgen_write_columns(path), 0);
	check_columns(path);
	unlink(path);
}

static void fixture_v14_packed_decodes_to_frozen_values(void **state)
{
	(void)state;
	check_packed(fixture("v14-packed.pmiprof"));
}

static void current_writer_matches_the_v14_packed_fixture(void **state)
{
	char path[] = "/tmp/pmiprof-fixture14p.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tgen_write_packed(path), 0);
	check_packed(path);
	unlink(path);
}

static void fixture_v14_threads_decodes_to_frozen_values(void **state)
{
	(void)state;
	check_threads(fixture("v14-threads.pmiprof"));
}

static void current_writer_matches_the_v14_threads_fixture(void **state)
{
	char path[] = "/tmp/pmiprof-fixture14t.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tgen_write_threads(path), 0);
	check_threads(path);
	unlink(path);
}

/* Today's writer still produces what the frozen reader expectations describe. */
static void current_writer_matches_the_fixture(void **state)
{
	char path[] = "/tmp/pmiprof-fixture.XXXXXX";
	struct trace_reader *r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tgen_write_basic(path), 0);
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	check_records(r);
	trace_reader_close(r);
	unlink(path);
}

static void expect_open_error(const char *name, int want_err, const char *want_msg)
{
	struct trace_reader *r;
	char want[8192];

	diags = 0;
	assert_int_equal(trace_reader_open(&r, fixture(name), save_diag, NULL), want_err);
	assert_null(r);
	assert_int_equal(diags, 1);	/* exactly one message */
	snprintf(want, sizeof(want), "%s: %s", fixture(name), want_msg);
	assert_string_equal(last_diag, want);
}

static void corrupt_fixtures_give_exact_errors(void **state)
{
	(void)state;
	expect_open_error("bad-magic.pmiprof", -EBADMSG,
			  "offset 0: not a pmiprof trace (magic \"GARBAGE!\", expected "
			  "\"PMIPROF1\")");
	expect_open_error("big-endian.pmiprof", -EPROTONOSUPPORT,
			  "offset 0: big-endian pmiprof trace: unsupported (this pmiprof reads "
			  "little-endian traces only)");
	expect_open_error("version-99.pmiprof", -EPROTONOSUPPORT,
			  "offset 8: unsupported trace version 99.0 (this pmiprof reads version "
			  "1.x)");
	expect_open_error("truncated-header.pmiprof", -EBADMSG,
			  "offset 322: file ends inside the header section (290 of 580 bytes)");
	expect_open_error("bad-header-crc.pmiprof", -EBADMSG,
			  "offset 32: header section CRC mismatch (stored 796ac78d, computed "
			  "e5c53de3)");
	expect_open_error("short.pmiprof", -EBADMSG,
			  "offset 0: file too short for a pmiprof trace (5 bytes; the prologue "
			  "has 32)");
	expect_open_error("empty.pmiprof", -EBADMSG, "offset 0: empty file, not a pmiprof trace");
	expect_open_error("does-not-exist.pmiprof", -ENOENT,
			  "cannot read: No such file or directory");
}

/* ---- --regenerate: rewrite the fixtures from the generator ---- */

static int put_file(const char *dir, const char *name, const void *p, size_t len)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	printf("wrote %s (%zu bytes)\n", path, len);
	return 0;
}

static bool frozen(const char *path)
{
	if (access(path, F_OK))
		return false;
	printf("kept %s (frozen: delete it first to rewrite it)\n", path);
	return true;
}

/*
 * Writes the fixtures that do not exist yet.  A committed fixture is frozen:
 * it was written by the writer of its version, and today's writer would
 * write a newer form, so it is never overwritten.
 */
static int regenerate(const char *dir)
{
	static uint8_t buf[1 << 16];
	char path[4200];
	uint8_t tmp[1 << 12];
	uint32_t hsize;
	size_t len;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/v1-basic.pmiprof", dir);
	if (!frozen(path) && tgen_write_basic(path)) {
		fprintf(stderr, "cannot write %s\n", path);
		return 1;
	}
	f = fopen(path, "rb");
	len = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	if (len < 32 + 64)
		return 1;
	memcpy(&hsize, buf + 12, 4);

	memcpy(tmp, buf, 32 + hsize);
	memcpy(tmp, "GARBAGE!", 8);
	err |= put_file(dir, "bad-magic.pmiprof", tmp, 64);
	memcpy(tmp, "1FORPIMP", 8);
	err |= put_file(dir, "big-endian.pmiprof", tmp, 64);
	memcpy(tmp, buf, 32 + hsize);
	tmp[8] = 99;
	err |= put_file(dir, "version-99.pmiprof", tmp, 32 + hsize);
	err |= put_file(dir, "truncated-header.pmiprof", buf, 32 + hsize / 2);
	memcpy(tmp, buf, 32 + hsize);
	tmp[40] ^= 0x10;
	err |= put_file(dir, "bad-header-crc.pmiprof", tmp, 32 + hsize);
	err |= put_file(dir, "short.pmiprof", "PMIPR", 5);
	snprintf(path, sizeof(path), "%s/v13-stacks.pmiprof", dir);
	if (!frozen(path) && tgen_write_stacks(path)) {
		fprintf(stderr, "cannot write %s\n", path);
		err = 1;
	}
	snprintf(path, sizeof(path), "%s/v14-regions.pmiprof", dir);
	if (!frozen(path) && tgen_write_regions(path)) {
		fprintf(stderr, "cannot write %s\n", path);
		err = 1;
	}
	snprintf(path, sizeof(path), "%s/v14-packed.pmiprof", dir);
	if (!frozen(path) && tgen_write_packed(path)) {
		fprintf(stderr, "cannot write %s\n", path);
		err = 1;
	}
	snprintf(path, sizeof(path), "%s/v14-threads.pmiprof", dir);
	if (!frozen(path) && tgen_write_threads(path)) {
		fprintf(stderr, "cannot write %s\n", path);
		err = 1;
	}
	snprintf(path, sizeof(path), "%s/v14-columns.pmiprof", dir);
	if (!frozen(path) && tgen_write_columns(path)) {
		fprintf(stderr, "cannot write %s\n", path);
		err = 1;
	}
	err |= put_file(dir, "empty.pmiprof", "", 0);
	return err;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixture_prologue_bytes_are_frozen),
		cmocka_unit_test(fixture_header_decodes_to_frozen_values),
		cmocka_unit_test(fixture_records_decode_to_frozen_values),
		cmocka_unit_test(current_writer_matches_the_fixture),
		cmocka_unit_test(fixture_v14_regions_decode_to_frozen_values),
		cmocka_unit_test(current_writer_matches_the_v14_fixture),
		cmocka_unit_test(fixture_v14_packed_decodes_to_frozen_values),
		cmocka_unit_test(current_writer_matches_the_v14_packed_fixture),
		cmocka_unit_test(fixture_v14_threads_decodes_to_frozen_values),
		cmocka_unit_test(current_writer_matches_the_v14_threads_fixture),
		cmocka_unit_test(fixture_v14_columns_decodes_to_frozen_values),
		cmocka_unit_test(current_writer_matches_the_v14_columns_fixture),
		cmocka_unit_test(fixture_v12_still_reads),
		cmocka_unit_test(fixture_v13_stacks_decode_to_frozen_values),
		cmocka_unit_test(current_writer_matches_the_v13_fixture),
		cmocka_unit_test(corrupt_fixtures_give_exact_errors),
	};
	const char *top = getenv("PMIPROF_TOP");

	if (argc == 3 && !strcmp(argv[1], "--regenerate"))
		return regenerate(argv[2]);
	snprintf(fixdir, sizeof(fixdir), "%s/tests/fixtures", top ? top : ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
