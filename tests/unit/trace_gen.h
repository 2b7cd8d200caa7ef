/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic trace content for the trace format tests, the fuzzer's seed
 * corpus and the benchmark: a fully populated header, a "basic" trace with
 * every record type (the source of tests/fixtures/v1-basic.pmiprof), and a
 * realistic sample stream.  Test expectations never come from here: tests
 * compare against their own constants.
 */
#ifndef PMIPROF_TESTS_TRACE_GEN_H
#define PMIPROF_TESTS_TRACE_GEN_H

#include <stdint.h>

#include "pmiprof/trace.h"

/* A header with every field set (4 events, trigger 0, perf backend). */
void tgen_header(struct trace_header *h);

/* Samples of the basic trace; TGEN_BASIC_SAMPLES of them. */
#define TGEN_BASIC_SAMPLES	60
#define TGEN_BASIC_CHUNK_SIZE	256	/* small: the basic trace has several chunks */
#define TGEN_UNKNOWN_TYPE	200	/* raw record type the basic trace contains */
void tgen_basic_sample(unsigned int i, struct trace_sample *s);
/* Write the basic trace (every record type) to path: 0 or -errno. */
int tgen_write_basic(const char *path);

/*
 * Realistic stream for round-trip tests and the benchmark: 4 counters, ips
 * from a few hot functions, time increasing with jitter, two threads.
 * Sample i is a pure function of (seed, i).
 */
void tgen_stream_sample(uint64_t seed, uint64_t i, struct trace_sample *s);

/*
 * 1.3 stacks trace (source of tests/fixtures/v13-stacks.pmiprof): the basic
 * header with an fp call graph, TGEN_STACKS_SAMPLES samples of
 * tgen_basic_sample(), each with stack kind i % 5 == 4 ? none : i % 2 ? B : A,
 * a USTACK after every sample with a stack and i % 3 == 0, small chunks.
 */
#define TGEN_STACKS_SAMPLES	40
#define TGEN_STACKS_CHUNK_SIZE	200
int tgen_write_stacks(const char *path);

/*
 * 1.4 code regions trace (source of tests/fixtures/v14-regions.pmiprof): the
 * basic header with flag REGIONS, TGEN_REGIONS_SAMPLES samples of
 * tgen_basic_sample(); on tid 100 "solve" begins 10 ns before sample 2
 * (values of events 0 and 1), "step" nested in it before sample 4, step
 * ends before sample 6 and solve before sample 8 (value of event 0); then a
 * fork-in-region anomaly of tid 101, a LOST of 3 region markers, FINISH.
 */
#define TGEN_REGIONS_SAMPLES	12
#define TGEN_REGIONS_CHUNK_SIZE	120
int tgen_write_regions(const char *path);

/*
 * 1.4 packed samples (source of tests/fixtures/v14-packed.pmiprof): the
 * basic header with software events (cpu-clock, task-clock, page-faults,
 * context-switches; the writer predicts cpu-clock from the time step and
 * task-clock from cpu-clock), TGEN_PACKED_SAMPLES of tgen_packed_sample()
 * stored (level 0) in RECORDS2 chunks of TGEN_PACKED_CHUNK_SIZE bytes,
 * every sample i with i % 10 == 5 with a 3-frame stack (1 kernel), FINISH.
 */
#define TGEN_PACKED_SAMPLES	60
#define TGEN_PACKED_CHUNK_SIZE	300
void tgen_sw_header(struct trace_header *h);
void tgen_packed_sample(unsigned int i, struct trace_sample *s);
int tgen_write_packed(const char *path);

/*
 * 1.4 RECORDS3 chunks (source of tests/fixtures/v14-threads.pmiprof): as
 * v14-packed, with RECORDS3 chunks and the samples of tgen_threads_sample(),
 * six interleaved threads.
 */
#define TGEN_THREADS_SAMPLES	90
void tgen_threads_sample(unsigned int i, struct trace_sample *s);
int tgen_write_threads(const char *path);
/*
 * 1.4 RECORDS4 chunks (source of tests/fixtures/v14-columns.pmiprof): the
 * samples of v14-threads in the writer's default, columnar chunks, with the
 * header's TIME_STEP (100000 ns: 10 kHz cpu-clock).
 */
int tgen_write_columns(const char *path);

#endif /* PMIPROF_TESTS_TRACE_GEN_H */
