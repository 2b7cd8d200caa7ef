// SPDX-License-Identifier: GPL-2.0
/* Deterministic trace content for tests, fuzz seeds and benchmarks (trace_gen.h). */
#include <string.h>

#include "trace_gen.h"
#include "util.h"

void tgen_header(struct trace_header *h)
{
	static const char *const names[] = {
		"instructions", "cycles", "cache-misses", "branch-misses",
	};
	unsigned int i;

	memset(h, 0, sizeof(*h));
	h->flags = PMIPROF_TRACE_F_INHERIT;
	pm_strlcpy(h->hostname, "fixture-host", sizeof(h->hostname));
	pm_strlcpy(h->kernel_release, "6.1.0-56-amd64", sizeof(h->kernel_release));
	pm_strlcpy(h->cpu_vendor, "GenuineIntel", sizeof(h->cpu_vendor));
	pm_strlcpy(h->cpu_model_name, "Fixture CPU @ 3.00GHz", sizeof(h->cpu_model_name));
	h->cpu_family = 6;
	h->cpu_model = 85;
	h->cpu_stepping = 4;
	pm_strlcpy(h->pmu, "Intel arch perfmon v4, 4 GP + 3 fixed counters", sizeof(h->pmu));
	h->nr_events = 4;
	for (i = 0; i < 4; i++) {
		pm_strlcpy(h->events[i].name, names[i], sizeof(h->events[i].name));
		h->events[i].type = 0;	/* PERF_TYPE_HARDWARE */
		h->events[i].config = i == 0 ? 1 : i == 1 ? 0 : i == 2 ? 3 : 5;
		h->events[i].config1 = 0;
	}
	h->events[0].flags = PMIPROF_EVENT_F_TRIGGER;
	h->events[3].flags = PMIPROF_EVENT_F_EXCL_KERNEL;
	h->trigger_index = 0;
	h->period = 1000000;
	h->mode = PMIPROF_MODE_PERF;
	h->backend = PMIPROF_BACKEND_PERF;
	h->clock_id = 1;	/* CLOCK_MONOTONIC */
	h->clock_freq_hz = 1000000000;
	h->start_time = 1000000000;
	h->start_realtime_ns = 1700000000000000000ull;
	pm_strlcpy(h->clock_name, "monotonic", sizeof(h->clock_name));
	h->nr_cpus = 2;
	pm_strlcpy(h->recorder, "pmiprof 0.1.0", sizeof(h->recorder));
	pm_strlcpy(h->note, "fixture: written by tests/unit/trace_gen.c", sizeof(h->note));
	h->cmdline_argc = 3;
	pm_strlcpy(h->cmdline, "pmiprof record ./workload", sizeof(h->cmdline));
}

void tgen_basic_sample(unsigned int i, struct trace_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->time = 1000000000ull + i * 1000003ull + (i % 7) * 11;
	s->ip = 0x401000 + (i % 5) * 0x40;
	s->pid = 100;
	s->tid = 100 + (i % 2);
	s->cpu = i % 2;
	s->flags = PMIPROF_SAMPLE_F_USER | (i < 2 ? PMIPROF_SAMPLE_F_FIRST : 0);
	s->nr = 4;
	s->counts[0] = 1000000 + i % 3;
	s->counts[1] = 1500000 + i * 17;
	s->counts[2] = 100 + (i * i) % 50;
	s->counts[3] = i % 4;
}

int tgen_write_basic(const char *path)
{
	static const uint64_t chain[3] = { 0x401040, 0x401200, 0x7f0000001000ull };
	struct trace_writer_opts o = { .level = 1, .chunk_size = TGEN_BASIC_CHUNK_SIZE };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	unsigned int i;
	int err, cerr;

	tgen_header(&h);
	err = trace_writer_open(&w, path, &h, &o);
	if (err)
		return err;
	{
		struct trace_comm c = { 999000000, 100, 100, PMIPROF_COMM_F_EXEC, "workload" };
		struct trace_mmap m = {
			.time = 999000100, .pid = 100, .tid = 100, .start = 0x400000,
			.len = 0x2000, .pgoff = 0, .prot = 5, .flags = 2, .build_id_len = 20,
			.path = "/usr/bin/workload",
		};
		struct trace_task f = { 999000200, 100, 100, 101, 100 };
		struct trace_lost l = { 1000500000, 1, PMIPROF_LOST_RING_FULL, 7, 0 };
		struct trace_mark mk = { 1000600000, 0, 100, 100, 42, "phase 2" };
		struct trace_callchain cc = { 3, chain };
		struct trace_task x = { 1100000000, 100, 100, 101, 100 };
		struct trace_finish fin = { 1100000100, 0, 0, TGEN_BASIC_SAMPLES, 7 };
		static const uint8_t unknown[5] = { 1, 2, 3, 4, 5 };

		for (i = 0; i < 20; i++)
			m.build_id[i] = (uint8_t)(0xa0 + i);
		err = trace_write_comm(w, &c);
		if (!err)
			err = trace_write_mmap(w, &m);
		if (!err)
			err = trace_write_fork(w, &f);
		for (i = 0; i < TGEN_BASIC_SAMPLES && !err; i++) {
			tgen_basic_sample(i, &s);
			err = trace_write_sample(w, &s);
			if (!err && i == 10)
				err = trace_write_callchain(w, &cc);
			if (!err && i == 20)
				err = trace_write_lost(w, &l);
			if (!err && i == 30)
				err = trace_write_raw(w, TGEN_UNKNOWN_TYPE, unknown, sizeof(unknown));
			if (!err && i == 40)
				err = trace_write_mark(w, &mk);
		}
		if (!err)
			err = trace_write_exit(w, &x);
		if (!err)
			err = trace_write_finish(w, &fin);
	}
	cerr = trace_writer_close(w);
	return err ? err : cerr;
}

/* splitmix64: a tiny deterministic hash for (seed, i) -> pseudo-random bits */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void tgen_stream_sample(uint64_t seed, uint64_t i, struct trace_sample *s)
{
	/* hot functions: a few loops, each sampled at a few ips */
	static const uint64_t hot[8] = {
		0x55555555a120, 0x55555555a134, 0x55555555a1f0, 0x55555555b010,
		0x55555555b02c, 0x7ffff7e4a8d0, 0x7ffff7e4a8e4, 0x55555555c400,
	};
	uint64_t r = mix(seed ^ (i * 0x2545f4914f6cdd1dull));
	uint64_t phase = (i / 5000) % 3;	/* steady phases with different IPC */
	uint64_t cycles = 1000000 + phase * 400000 + (r & 0x3fff);	/* +-16k jitter */

	memset(s, 0, sizeof(*s));
	/* PMI every 1M instructions at 3 GHz: time follows cycles */
	s->time = 1000000000ull + i * 400000ull + (r & 0x3fff) / 3;
	s->ip = hot[(r >> 26) % (phase == 1 ? 8 : 4)];
	s->pid = 4242;
	s->tid = 4242 + ((r >> 29 & 15) == 0);	/* a second thread, rarely */
	s->cpu = (uint32_t)(i / 20000 & 1);	/* migrates now and then */
	s->flags = PMIPROF_SAMPLE_F_USER;
	s->nr = 4;
	s->counts[0] = 1000000 + (r >> 34 & 7);			/* trigger + skid */
	s->counts[1] = cycles;
	s->counts[2] = 200 + phase * 900 + (r >> 37 & 0x3f);	/* cache misses */
	s->counts[3] = 50 + (r >> 43 & 0x1f);			/* branch misses */
}

int tgen_write_stacks(const char *path)
{
	/* A: user only; B: two kernel frames, then user frames */
	static const uint64_t a[3] = { 0x401234, 0x401456, 0x7f0000021c87ull };
	static const uint64_t b[4] = {
		0xffffffff81001234ull, 0xffffffff81005678ull, 0x401100, 0x401456,
	};
	struct trace_writer_opts o = { .level = 1, .chunk_size = TGEN_STACKS_CHUNK_SIZE };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	unsigned int i, k;
	int err, cerr;

	tgen_header(&h);
	h.call_graph = PMIPROF_CALL_GRAPH_FP;
	h.call_graph_max_stack = 127;
	h.call_graph_flags = PMIPROF_CALL_GRAPH_F_KERNEL | PMIPROF_CALL_GRAPH_F_LEAF_WORDS;
	err = trace_writer_open(&w, path, &h, &o);
	if (err)
		return err;
	{
		struct trace_comm c = { 999000000, 100, 100, PMIPROF_COMM_F_EXEC, "workload" };

		err = trace_write_comm(w, &c);
	}
	for (i = 0; i < TGEN_STACKS_SAMPLES && !err; i++) {
		unsigned int kind = i % 5 == 4 ? 0 : i % 2 ? 2 : 1;

		tgen_basic_sample(i, &s);
		if (kind == 1)
			err = trace_write_sample_stack(w, &s, a, 3, 0);
		else if (kind == 2)
			err = trace_write_sample_stack(w, &s, b, 4, 2);
		else
			err = trace_write_sample_stack(w, &s, NULL, 0, 0);
		if (!err && kind && i % 3 == 0) {
			/*
			 * bp, sp, ip (the sample's but at i == 6); even i: fp
			 * leaf words (24 bytes, the middle one zero: the codec's
			 * word form); odd i: 20 raw bytes.
			 */
			uint64_t regs[3] = { 0x7ffc0000f000ull + i * 16, 0x7ffc0000efc0ull + i * 16,
					     i == 6 ? 0x400ff0 : s.ip };
			uint64_t wd[3] = { 0x401456, 0, 0x7ffc0000f100ull + i * 16 };
			uint8_t data[24];
			struct trace_ustack u = {
				.abi = 2, .nr_regs = 3, .regs_mask = 0x1c0, .regs = regs,
				.size = i % 2 ? 20 : 24, .data = data,
			};

			if (i % 2) {
				for (k = 0; k < 20; k++)
					data[k] = (uint8_t)(i + k);
			} else {
				memcpy(data, wd, sizeof(wd));
			}
			err = trace_write_ustack(w, &u);
		}
	}
	if (!err) {
		struct trace_finish fin = { 1100000100, 0, 0, TGEN_STACKS_SAMPLES, 0 };

		err = trace_write_finish(w, &fin);
	}
	cerr = trace_writer_close(w);
	return err ? err : cerr;
}

int tgen_write_regions(const char *path)
{
	struct trace_writer_opts o = { .level = 1, .chunk_size = TGEN_REGIONS_CHUNK_SIZE };
	struct trace_region_def solve = { 1, "solve" }, step = { 2, "step" };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	unsigned int i;
	int err, cerr;

	tgen_header(&h);
	h.flags |= PMIPROF_TRACE_F_REGIONS;
	err = trace_writer_open(&w, path, &h, &o);
	if (err)
		return err;
	for (i = 0; i < TGEN_REGIONS_SAMPLES && !err; i++) {
		struct trace_region r = { .pid = 100, .tid = 100 };

		tgen_basic_sample(i, &s);
		r.time = s.time - 10;
		switch (i) {
		case 2:
			r.kind = PMIPROF_REGION_BEGIN;
			r.id = 1;
			r.evmask = 3;
			r.values[0] = 1000;
			r.values[1] = 123456789012ull;
			err = trace_write_region_def(w, &solve) || trace_write_region(w, &r);
			break;
		case 4:
			r.kind = PMIPROF_REGION_BEGIN;
			r.id = 2;
			r.depth = 1;
			err = trace_write_region_def(w, &step) || trace_write_region(w, &r);
			break;
		case 6:
			r.kind = PMIPROF_REGION_END;
			r.id = 2;
			r.depth = 1;
			err = trace_write_region(w, &r);
			break;
		case 8:
			r.kind = PMIPROF_REGION_END;
			r.id = 1;
			r.evmask = 1;
			r.values[0] = 5000;
			err = trace_write_region(w, &r);
			break;
		default:
			break;
		}
		if (!err)
			err = trace_write_sample(w, &s);
	}
	if (!err) {
		struct trace_region_anomaly a = { 1100000000, 100, 101,
						  PMIPROF_REGION_AN_FORK_IN_REGION, 1 };
		struct trace_lost l = { 1100000000, PMIPROF_CPU_NONE, PMIPROF_LOST_REGION_MARKERS,
					3, 0 };
		struct trace_finish fin = { 1100000100, 0, 0, TGEN_REGIONS_SAMPLES, 0 };

		err = trace_write_region_anomaly(w, &a) || trace_write_lost(w, &l) ||
		      trace_write_finish(w, &fin);
	}
	cerr = trace_writer_close(w);
	return err ? err : cerr;
}

/* Software events of a machine without a PMU: cpu-clock trigger, windows by time. */
void tgen_sw_header(struct trace_header *h)
{
	static const char *const names[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
	};
	unsigned int i;

	tgen_header(h);
	h->flags |= PMIPROF_TRACE_F_TIME_BASED;
	pm_strlcpy(h->pmu, "perf_event_open: software events only", sizeof(h->pmu));
	for (i = 0; i < 4; i++) {
		pm_strlcpy(h->events[i].name, names[i], sizeof(h->events[i].name));
		h->events[i].type = 1;	/* PERF_TYPE_SOFTWARE */
		h->events[i].config = i;
		h->events[i].flags = PMIPROF_EVENT_F_SOFTWARE;
	}
	h->events[0].flags |= PMIPROF_EVENT_F_TRIGGER;
	h->period = 0;
	h->freq_hz = 10000;
	h->trigger_flags = PMIPROF_TRIGGER_F_FREQ;
}

/*
 * Windows of ~100 us: cpu-clock a few ns off the time step, task-clock a
 * few hundred ns off cpu-clock, faults and switches now and then; two
 * threads in runs of 8, a CPU change every 16, ips from 5 hot ones and a
 * cold one every 9th.
 */
static uint64_t packed_time(unsigned int i)
{
	return 1000000000ull + i * 100000ull + (uint64_t)i * 2654435761u % 997;
}

void tgen_packed_sample(unsigned int i, struct trace_sample *s)
{
	uint64_t j = (uint64_t)i * 2654435761u;

	memset(s, 0, sizeof(*s));
	s->time = packed_time(i);
	s->ip = i % 9 == 8 ? 0x7f0000001000ull + j % 65536 : 0x401000 + (i % 5) * 0x24;
	s->pid = 100;
	s->tid = 100 + (i / 8) % 2;
	s->cpu = (i / 16) % 2;
	s->flags = PMIPROF_SAMPLE_F_TIME_BASED |
		   (i % 13 == 3 ? PMIPROF_SAMPLE_F_KERNEL : PMIPROF_SAMPLE_F_USER);
	s->nr = 4;
	s->counts[0] = (i ? s->time - packed_time(i - 1) : 100000) + j % 7;
	s->counts[1] = s->counts[0] - 150 + j % 301;
	s->counts[2] = i % 7 == 0 ? 3 : 0;
	s->counts[3] = i % 11 == 0;
}

static int write_packed(const char *path, void (*gen)(unsigned int, struct trace_sample *),
			unsigned int n, int type)
{
	static const uint64_t ips[] = { 0xffffffff81001234ull, 0x401200, 0x401300 };
	struct trace_writer_opts o = { .level = 0, .chunk_size = TGEN_PACKED_CHUNK_SIZE,
				       .records2 = type == PMIPROF_CHUNK_RECORDS2,
				       .records3 = type == PMIPROF_CHUNK_RECORDS3 };
	struct trace_finish f = { .time = 1100000000, .samples = n };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	unsigned int i;
	int err, cerr;

	tgen_sw_header(&h);
	err = trace_writer_open(&w, path, &h, &o);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		gen(i, &s);
		if (i % 10 == 5)	/* a stack: kernel frame, then two user frames */
			err = trace_write_sample_stack(w, &s, ips, 3, 1);
		else
			err = trace_write_sample(w, &s);
	}
	if (!err)
		err = trace_write_finish(w, &f);
	cerr = trace_writer_close(w);
	return err ? err : cerr;
}

int tgen_write_packed(const char *path)
{
	return write_packed(path, tgen_packed_sample, TGEN_PACKED_SAMPLES, PMIPROF_CHUNK_RECORDS2);
}

/*
 * Three threads taking turns (the third skips every 5th turn) and, every
 * 7th sample, one of three others, so that 4 contexts see hits, switches
 * and evictions; each thread's windows ~100 us of its own time; a CPU
 * change every 20; 40 functions (the ip table), a kernel ip now and then.
 */
void tgen_threads_sample(unsigned int i, struct trace_sample *s)
{
	uint64_t j = (uint64_t)i * 2654435761u;
	unsigned int t = i % 7 == 6 ? 3 + (i / 7) % 3 : (i % 3 == 2 && i % 5 == 0) ? 0 : i % 3;

	memset(s, 0, sizeof(*s));
	s->time = 1000000000ull + i * 33000ull + j % 613;
	s->ip = i % 17 == 4 ? 0xffffffff81000000ull + j % 4096 :
		0x401000 + (j % 40) * 0x140 + (i % 3) * 4;
	s->pid = t < 3 ? 200 : 300 + t;
	s->tid = 200 + t;
	s->cpu = (t + i / 20) % 2;
	s->flags = PMIPROF_SAMPLE_F_TIME_BASED |
		   (i % 17 == 4 ? PMIPROF_SAMPLE_F_KERNEL : PMIPROF_SAMPLE_F_USER);
	s->nr = i % 23 == 11 ? 2 : 4;
	s->counts[0] = 100000 + j % 9;
	s->counts[1] = s->counts[0] - 100 + j % 201;
	if (s->nr == 4) {
		s->counts[2] = i % 7 == 0 ? 3 : 0;
		s->counts[3] = i % 11 == 0;
	}
}

int tgen_write_threads(const char *path)
{
	return write_packed(path, tgen_threads_sample, TGEN_THREADS_SAMPLES, PMIPROF_CHUNK_RECORDS3);
}

int tgen_write_columns(const char *path)
{
	return write_packed(path, tgen_threads_sample, TGEN_THREADS_SAMPLES, PMIPROF_CHUNK_RECORDS4);
}
