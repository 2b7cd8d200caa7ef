// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzer's generated seed traces into a directory: sample
 * streams with small chunks (zstd with summaries, deflated, stored) and a
 * trace with every record type (1.4 code regions included), so mutations
 * start from valid structure.  Built by
 * tests/fuzz/run; the committed fixtures are added to the corpus as well.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmiprof/trace.h"
#include "trace_gen.h"

static int stream(const char *dir, const char *name, int level, uint32_t chunk, unsigned int n,
		  int codec)
{
	struct trace_writer_opts o = { .level = level, .chunk_size = chunk, .codec = codec };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	char path[4096];
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tgen_header(&h);
	if (trace_writer_open(&w, path, &h, &o))
		return 1;
	for (unsigned int i = 0; i < n && !err; i++) {
		tgen_stream_sample(5, i, &s);
		err = trace_write_sample(w, &s);
	}
	return trace_writer_close(w) || err;
}

/*
 * 1.4: software time events, so the writer's count predictors are in use;
 * RECORDS4 (columns) by default, or RECORDS3 (thread contexts, ip table) /
 * RECORDS2 (chunk type 4 / 3)
 */
static int sw_stream(const char *dir, const char *name, int level,
		     void (*gen)(unsigned int, struct trace_sample *), int type)
{
	struct trace_writer_opts o = { .level = level, .chunk_size = 256,
				       .records2 = type == PMIPROF_CHUNK_RECORDS2,
				       .records3 = type == PMIPROF_CHUNK_RECORDS3 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	char path[4096];
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tgen_sw_header(&h);
	if (trace_writer_open(&w, path, &h, &o))
		return 1;
	for (unsigned int i = 0; i < 200 && !err; i++) {
		gen(i, &s);
		err = trace_write_sample(w, &s);
	}
	return trace_writer_close(w) || err;
}

static int every_type(const char *dir, int level)
{
	static const uint64_t ips[4] = { 0x401000, 0x401100, 0xffffffff81000000ull, 0 };
	struct trace_writer_opts o = { level, 128 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	char path[4096];
	int err = 0;

	snprintf(path, sizeof(path), "%s/every-type-l%d.pmiprof", dir, level);
	tgen_header(&h);
	if (trace_writer_open(&w, path, &h, &o))
		return 1;
	for (unsigned int i = 0; i < 8 && !err; i++) {
		struct trace_mmap m = { .time = i, .pid = 1, .start = 0x400000, .len = 4096,
					.build_id_len = 20, .path = "/bin/true" };
		struct trace_comm c = { i, 1, 1, 1, "comm" };
		struct trace_task t = { i, 2, 1, 2, 1 };
		struct trace_lost l = { i, 0, 1, 3 };
		struct trace_mark mk = { i, 0, 1, 1, 7, "mark" };
		struct trace_callchain cc = { 4, ips };
		struct trace_finish f = { i, 1, -2, 8, 3 };
		struct trace_region_def rd = { i, "region" };
		struct trace_region rg = { .time = i, .kind = 1 + i % 2, .pid = 1, .tid = 2,
					   .id = i, .depth = i % 3, .evmask = i % 4,
					   .values = { 1000 + i, 1u << 20 } };
		struct trace_region_anomaly ra = { i, 1, 2, 1 + i % 6, i };

		uint64_t regs[3] = { 0x7ffc1000 + i, 0x7ffc0f00 + i, 0x401000 };
		uint8_t data[24] = { 1, 2, 3, (uint8_t)i };
		struct trace_ustack u = { 2, 3, 0x1c0, regs, (uint32_t)(i % 3) * 8, data };

		tgen_stream_sample(9, i, &s);
		err = trace_write_sample(w, &s) || trace_write_callchain(w, &cc) ||
		      trace_write_sample_stack(w, &s, ips, i % 4, i % 2) ||
		      trace_write_ustack(w, &u) ||
		      trace_write_mmap(w, &m) || trace_write_comm(w, &c) ||
		      trace_write_fork(w, &t) || trace_write_exit(w, &t) ||
		      trace_write_lost(w, &l) || trace_write_mark(w, &mk) ||
		      trace_write_region_def(w, &rd) || trace_write_region(w, &rg) ||
		      trace_write_region_anomaly(w, &ra) ||
		      trace_write_raw(w, 99, "xyz", 3) || trace_write_finish(w, &f);
	}
	return trace_writer_close(w) || err;
}

/* fp- and dwarf-like streams: interned stacks across small chunks, USTACKs */
static int stacks(const char *dir, int level)
{
	static const uint64_t pool[6] = {
		0xffffffff81001000ull, 0x401100, 0x401200, 0x401300, 0x7f0000001000ull, 0x401400,
	};
	static uint8_t data[512];
	struct trace_writer_opts o = { level, 512 };
	uint64_t regs[24] = { 0 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	char path[4096];
	int err = 0;

	snprintf(path, sizeof(path), "%s/stacks-l%d.pmiprof", dir, level);
	tgen_header(&h);
	h.call_graph = PMIPROF_CALL_GRAPH_DWARF;
	h.call_graph_dump_size = 512;
	if (trace_writer_open(&w, path, &h, &o))
		return 1;
	for (unsigned int i = 0; i < 300 && !err; i++) {
		struct trace_ustack u = { 2, 20, 0xff0fffull, regs, (i * 37) % sizeof(data), data };

		data[i % sizeof(data)] = (uint8_t)i;
		tgen_stream_sample(7, i, &s);
		err = trace_write_sample_stack(w, &s, pool + i % 3, 1 + i % 4, i % 5 == 0);
		if (!err && i % 2) {
			err = trace_write_ustack(w, &u);
		} else if (!err && i % 3 == 0) {
			/* fp leaf words: the codec's word form, ip from the sample */
			uint64_t fregs[3] = { 0x7ffc1000 + i * 16, 0x7ffc0f00 + i * 16, s.ip };
			uint64_t words[8] = { 0x401234, 0, i % 4 ? 0x401456 : 0, 0, 0, 0x7f0000001234ull };
			struct trace_ustack f = { 2, 3, 0x1c0, fregs, (uint32_t)(i % 9) * 8,
						  (const uint8_t *)words };

			err = trace_write_ustack(w, &f);
		}
	}
	return trace_writer_close(w) || err;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	return stacks(argv[1], 1) | stacks(argv[1], 0) |
	       stream(argv[1], "stream-l1.pmiprof", 1, 256, 200, 0) |
	       stream(argv[1], "stream-l0.pmiprof", 0, 256, 100, 0) |
	       stream(argv[1], "stream-big.pmiprof", 1, 0, 20000, 0) |
	       /* 1.4: zstd chunks with summaries are the default; deflate ones too */
	       stream(argv[1], "stream-deflate.pmiprof", 1, 256, 200, PMIPROF_TRACE_CODEC_DEFLATE) |
	       sw_stream(argv[1], "sw-l0.pmiprof", 0, tgen_packed_sample, PMIPROF_CHUNK_RECORDS2) |
	       sw_stream(argv[1], "sw-l1.pmiprof", 1, tgen_packed_sample, PMIPROF_CHUNK_RECORDS2) |
	       sw_stream(argv[1], "sw-threads-l0.pmiprof", 0, tgen_threads_sample,
			 PMIPROF_CHUNK_RECORDS3) |
	       sw_stream(argv[1], "sw-threads-l1.pmiprof", 1, tgen_threads_sample,
			 PMIPROF_CHUNK_RECORDS3) |
	       sw_stream(argv[1], "sw-columns-l0.pmiprof", 0, tgen_threads_sample,
			 PMIPROF_CHUNK_RECORDS4) |
	       sw_stream(argv[1], "sw-columns-l1.pmiprof", 1, tgen_threads_sample,
			 PMIPROF_CHUNK_RECORDS4) |
	       every_type(argv[1], 0) | every_type(argv[1], 1);
}
