// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the pprof reader (report/input/pprof_reader.c):
 * `top --from` reads profiles from the network.  Each input is read as it
 * is and, gzip'd, as a daemon sends it; a profile that reads is then held
 * to what its readers rely on: every index the tables hold (a sample's
 * locations, values and labels; a location's lines and mapping; a line's
 * function; every string) lies inside its table, and the header a pmiprof
 * profile gives has at most PMIPROF_MAX_EVENTS events with its trigger
 * among them.  Built and run by tests/fuzz/run with
 * -fsanitize=fuzzer,address,undefined.
 */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "input/pprof_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
volatile uint64_t fuzz_sink;

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static uint64_t str(const struct pprof_profile *p, uint32_t s)
{
	CHECK(s < p->nr_strings);
	return strlen(pprof_str(p, s));
}

static void consume(const struct pprof_profile *p)
{
	struct trace_header h;
	uint64_t acc = 0;
	uint32_t i, k;

	for (i = 0; i < p->nr_samples; i++) {
		const struct pprof_rd_sample *s = &p->samples[i];

		CHECK((uint64_t)s->loc0 + s->nr_locs <= UINT32_MAX);
		for (k = 0; k < s->nr_locs; k++)
			CHECK(p->locs_of[s->loc0 + k] < p->nr_locations);
		CHECK((uint64_t)s->val0 + p->nr_types <= p->nr_values);
		for (k = 0; k < p->nr_types; k++)
			acc += (uint64_t)p->values[s->val0 + k];
		CHECK((uint64_t)s->label0 + s->nr_labels <= p->nr_labels);
		for (k = 0; k < s->nr_labels; k++)
			acc += str(p, p->labels[s->label0 + k].key) +
			       str(p, p->labels[s->label0 + k].str);
		acc += pprof_sample_label(p, i, "pid") != NULL;
	}
	for (i = 0; i < p->nr_locations; i++) {
		const struct pprof_rd_location *l = &p->locations[i];

		CHECK(l->mapping == PPROF_NONE || l->mapping < p->nr_mappings);
		CHECK((uint64_t)l->line0 + l->nr_lines <= p->nr_lines);
		for (k = 0; k < l->nr_lines; k++) {
			const struct pprof_rd_function *f =
				&p->functions[p->lines[l->line0 + k].function];

			CHECK(p->lines[l->line0 + k].function < p->nr_functions);
			acc += str(p, f->name) + str(p, f->system_name) + str(p, f->filename);
		}
		if (l->mapping != PPROF_NONE)
			acc += str(p, p->mappings[l->mapping].filename) +
			       str(p, p->mappings[l->mapping].build_id);
	}
	for (i = 0; i < p->nr_types; i++)
		acc += str(p, p->types[i][0]) + str(p, p->types[i][1]);
	for (i = 0; i < p->nr_comments; i++)
		acc += str(p, p->comments[i]);
	acc += (uint64_t)pprof_type_index(p, "samples");
	if (!pprof_profile_header(p, &h)) {
		CHECK(h.nr_events <= PMIPROF_MAX_EVENTS);
		CHECK(!h.nr_events || h.trigger_index < h.nr_events);
		for (i = 0; i < h.nr_events; i++)
			acc += strlen(h.events[i].name);
	}
	fuzz_sink += acc;
}

static void one(const uint8_t *data, size_t size)
{
	struct pprof_profile p;

	if (!pprof_profile_read(&p, data, size, 1u << 20))
		consume(&p);
	pprof_profile_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uLongf zl = compressBound(size) + 32;
	static uint8_t gz[70000];
	z_stream z;

	one(data, size);
	/* the same bytes gzip'd: the inflate path, with mutations past its CRC */
	if (zl > sizeof(gz))
		return 0;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	z.next_out = gz;
	z.avail_out = sizeof(gz);
	if (deflate(&z, Z_FINISH) == Z_STREAM_END)
		one(gz, z.total_out);
	deflateEnd(&z);
	return 0;
}
