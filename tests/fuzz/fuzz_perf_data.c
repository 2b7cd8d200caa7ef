// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data reader (lib/perf_data.c): the input,
 * its first 8 bytes made "PERFILE2" so that every run reaches perf's
 * layout instead of the magic check, is opened through the trace reader as
 * every command opens it, and every record is read and every field a
 * consumer touches is touched.  The seeds are tests/fixtures/perf/ (real
 * recordings of Debian's perf: flat, -g -z, a group in pipe mode, dwarf;
 * and the unit test's synthetic files).  Built and run by tests/fuzz/run
 * with -fsanitize=fuzzer,address,undefined.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmiprof/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keeps the reads from being optimized away. */
volatile uint64_t fuzz_sink;

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
		if (rec->sample.nr > h->nr_events || rec->sample.nr > PMIPROF_MAX_EVENTS)
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
		if (rec->mmap.build_id_len > 20)
			__builtin_trap();
		return strlen(rec->mmap.path) + rec->mmap.build_id[rec->mmap.build_id_len ?
								    rec->mmap.build_id_len - 1 : 0];
	case PMIPROF_REC_COMM:
		return strlen(rec->comm.comm);
	default:
		return rec->type + trace_record_name(rec->type)[0] +
		       trace_lost_reason_name(rec->lost.reason)[0];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_reader *r;
	struct trace_record rec;
	uint8_t *buf;
	size_t msgs = 0;

	if (size < 8)
		return 0;
	/* an exact-size copy: ASan sees every read past the input */
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	memcpy(buf, "PERFILE2", 8);
	if (!trace_reader_open_mem(&r, buf, size, "fuzz", quiet, &msgs)) {
		const struct trace_header *h = trace_reader_header(r);

		if (h->nr_events > PMIPROF_MAX_EVENTS || h->trigger_index >= h->nr_events)
			__builtin_trap();
		fuzz_sink += strlen(h->cmdline) + strlen(h->hostname) + strlen(h->note);
		while (trace_reader_next(r, &rec) == 1)
			fuzz_sink += consume(h, &rec);
		fuzz_sink += trace_reader_stats(r)->records + msgs;
		trace_reader_close(r);
	}
	free(buf);
	return 0;
}
