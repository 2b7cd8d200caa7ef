// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the trace reader: open the input as a trace, read
 * every record and touch every field a consumer would (strings, callchain
 * and stack ips, user stack bytes and registers, counts by header event), once with CRC checks and once without so
 * that mutations reach the record decoders behind the CRCs.  Built and run
 * by tests/fuzz/run with -fsanitize=fuzzer,address,undefined.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pmiprof/trace.h"

extern bool trace_fuzz_ignore_crc;
extern volatile uint64_t fuzz_sink;
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *arg, const char *msg)
{
	/* every message must be a complete, terminated string */
	*(size_t *)arg += strlen(msg);
}

static uint64_t consume(const struct trace_header *h, const struct trace_record *rec)
{
	uint64_t acc = 0;
	uint32_t i;

	switch (rec->type) {
	case PMIPROF_REC_SAMPLE:
		if (rec->sample.nr > h->nr_events)
			__builtin_trap();	/* the reader promised this bound */
		for (i = 0; i < rec->sample.nr; i++)
			acc += rec->sample.counts[i] + strlen(h->events[i].name);
		return acc + rec->sample.ip + rec->sample.time + rec->sample.stack;
	case PMIPROF_REC_STACK:
		if (rec->stack.nr > PMIPROF_MAX_STACK || rec->stack.nr_kernel > rec->stack.nr)
			__builtin_trap();
		for (i = 0; i < rec->stack.nr; i++)
			acc += rec->stack.ips[i];
		return acc + rec->stack.id;
	case PMIPROF_REC_USTACK:
		if (rec->ustack.nr_regs > PMIPROF_MAX_UREGS || rec->ustack.size > PMIPROF_MAX_USTACK)
			__builtin_trap();
		for (i = 0; i < rec->ustack.nr_regs; i++)
			acc += rec->ustack.regs[i];
		for (i = 0; i < rec->ustack.size; i++)
			acc += rec->ustack.data[i];
		return acc + rec->ustack.abi;
	case PMIPROF_REC_MMAP:
		return strlen(rec->mmap.path) + rec->mmap.build_id[rec->mmap.build_id_len ?
								    rec->mmap.build_id_len - 1 : 0];
	case PMIPROF_REC_COMM:
		return strlen(rec->comm.comm);
	case PMIPROF_REC_MARK:
		return strlen(rec->mark.label);
	case PMIPROF_REC_CALLCHAIN:
		for (i = 0; i < rec->callchain.nr; i++)
			acc += rec->callchain.ips[i];
		return acc;
	default:
		return rec->type + trace_record_name(rec->type)[0] +
		       trace_lost_reason_name(rec->lost.reason)[0];
	}
}

/* Keeps the reads of consume() from being optimized away. */
volatile uint64_t fuzz_sink;

/* Reads every summary entry; takes every other summary so both paths run. */
static bool take_summary(void *arg, const struct trace_chunk_summary *s)
{
	uint64_t acc = s->samples + s->time_max - s->time_min;
	uint32_t i, e;

	(void)arg;
	for (i = 0; i < s->nr_entries; i++) {
		acc += s->entries[i].ip + s->entries[i].pid + s->entries[i].tid +
		       s->entries[i].flags + s->entries[i].samples;
		for (e = 0; e < s->nr_events; e++)
			acc += s->entries[i].counts[e];
	}
	fuzz_sink += acc;
	return s->chunk_seq % 2 == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint64_t *sink = &fuzz_sink;

	for (int pass = 0; pass < 4; pass++) {
		struct trace_reader *r;
		struct trace_record rec;
		size_t msgs = 0;
		uint64_t n = 0;

		trace_fuzz_ignore_crc = pass & 1;
		if (trace_reader_open_mem(&r, data, size, "fuzz", quiet, &msgs))
			continue;
		if (pass & 2)
			trace_reader_set_summary_fn(r, take_summary, NULL);
		*sink += strlen(trace_reader_header(r)->cmdline) +
			trace_mode_name(trace_reader_header(r)->mode)[0] +
			trace_backend_name(trace_reader_header(r)->backend)[0];
		while (trace_reader_next(r, &rec) == 1) {
			*sink += consume(trace_reader_header(r), &rec);
			/* every record costs at least two input bytes (or is one per chunk) */
			if (++n > 2 * size + 16)
				__builtin_trap();
		}
		*sink += trace_reader_stats(r)->records + msgs;
		trace_reader_close(r);
	}
	return 0;
}
