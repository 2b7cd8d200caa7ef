// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof reader (input/pprof_reader.c) reads what the encoder
 * (output/pprof.c) writes: every table and cross-reference of a profile
 * written here, samples before the tables as the encoder streams them; a
 * daemon's committed profile (tests/fixtures/pprof) gives its events and
 * the shares workload's functions; damaged profiles (every truncation, a
 * location id that names nothing, values that do not match the sample
 * types, a size cap, another program's profile) are refused, not read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input/pprof_reader.h"
#include "output/pprof.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* A profile of two samples with the encoder: its gzip'd bytes. */
static uint8_t *write_profile(size_t *len, const char *comment)
{
	char path[] = "/tmp/pmiprof-pprof-rd-XXXXXX";
	int fd = mkstemp(path);
	struct pprof *p;
	struct pprof_line lines[2];
	struct pprof_label lb[3] = { { .key = "comm", .str = "app" }, { .key = "pid", .str = "42" },
				     { .key = "tid", .str = "43" } };
	int64_t v1[3] = { 1, 1000, 7 }, v2[3] = { 1, 2000, 0 }, m, f_main, f_inl;
	uint64_t l_main, l_inl, locs[2];
	uint8_t *b;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pprof_open(&p, path), 0);
	assert_int_equal(pprof_sample_type(p, "samples", "count"), 0);
	assert_int_equal(pprof_sample_type(p, "cpu-clock", "nanoseconds"), 0);
	assert_int_equal(pprof_sample_type(p, "page-faults", "count"), 0);
	assert_int_equal(pprof_period_type(p, "cpu-clock", "nanoseconds", 1000000), 0);
	if (comment)
		assert_int_equal(pprof_comment(p, comment), 0);
	m = pprof_mapping(p, 0, 1, "/usr/bin/app", "abcd", NULL);
	f_main = pprof_function(p, "main", "main", "app.c", 0);
	f_inl = pprof_function(p, "inl", "inl", "app.h", 0);
	lines[0] = (struct pprof_line){ (uint64_t)f_main, 10 };
	l_main = (uint64_t)pprof_location(p, (uint64_t)m, 0x401000, lines, 1);
	/* an inline run: innermost first, the function it is inlined into last */
	lines[0] = (struct pprof_line){ (uint64_t)f_inl, 3 };
	lines[1] = (struct pprof_line){ (uint64_t)f_main, 12 };
	l_inl = (uint64_t)pprof_location(p, 0, 0x401100, lines, 2);
	locs[0] = l_inl;
	locs[1] = l_main;
	assert_int_equal(pprof_sample(p, locs, 2, v1, lb, 3), 0);
	assert_int_equal(pprof_sample(p, locs + 1, 1, v2, lb, 1), 0);
	assert_int_equal(pprof_close(p, true), 0);
	b = slurp(path, len);
	unlink(path);
	assert_non_null(b);
	return b;
}

static void test_roundtrip(void **state)
{
	struct pprof_profile p;
	struct trace_header h;
	const struct pprof_rd_location *l;
	size_t len;
	uint8_t *b = write_profile(&len, "pmiprof test: the attribution rule");

	(void)state;
	assert_int_equal(pprof_profile_read(&p, b, len, 0), 0);
	assert_int_equal(p.nr_types, 3);
	assert_string_equal(pprof_str(&p, p.types[1][0]), "cpu-clock");
	assert_string_equal(pprof_str(&p, p.types[1][1]), "nanoseconds");
	assert_int_equal(pprof_type_index(&p, "page-faults"), 2);
	assert_int_equal(pprof_type_index(&p, "cycles"), -1);
	assert_int_equal(p.period, 1000000);
	assert_int_equal(p.nr_samples, 2);
	assert_int_equal(p.samples[0].nr_locs, 2);
	assert_int_equal(p.values[p.samples[0].val0 + 1], 1000);
	assert_int_equal(p.values[p.samples[0].val0 + 2], 7);
	assert_int_equal(p.values[p.samples[1].val0 + 1], 2000);
	assert_string_equal(pprof_sample_label(&p, 0, "comm"), "app");
	assert_string_equal(pprof_sample_label(&p, 0, "tid"), "43");
	assert_null(pprof_sample_label(&p, 1, "tid"));
	/* sample 0's leaf: the inline run, inl then main; no mapping */
	l = &p.locations[p.locs_of[p.samples[0].loc0]];
	assert_int_equal(l->nr_lines, 2);
	assert_int_equal(l->mapping, PPROF_NONE);
	assert_string_equal(pprof_str(&p, p.functions[p.lines[l->line0].function].name), "inl");
	assert_string_equal(pprof_str(&p, p.functions[p.lines[l->line0 + 1].function].name), "main");
	assert_int_equal(p.lines[l->line0 + 1].line, 12);
	/* sample 1's leaf: main in /usr/bin/app */
	l = &p.locations[p.locs_of[p.samples[1].loc0]];
	assert_int_equal(l->address, 0x401000);
	assert_string_equal(pprof_str(&p, p.mappings[l->mapping].filename), "/usr/bin/app");
	assert_string_equal(pprof_str(&p, p.mappings[l->mapping].build_id), "abcd");
	assert_int_equal(pprof_profile_header(&p, &h), 0);
	assert_int_equal(h.nr_events, 2);
	assert_string_equal(h.events[0].name, "cpu-clock");
	assert_string_equal(h.events[1].name, "page-faults");
	assert_int_equal(h.trigger_index, 0);
	assert_int_equal(h.period, 1000000);
	pprof_profile_free(&p);
	free(b);
}

static void test_daemon_fixture(void **state)
{
	char path[4200];
	const char *top = getenv("PMIPROF_TOP");
	struct pprof_profile p;
	struct trace_header h;
	uint32_t i, work = 0;
	size_t len;
	uint8_t *b;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/fixtures/pprof/daemon-shares-1s.pb.gz",
		 top ? top : ".");
	b = slurp(path, &len);
	assert_non_null(b);
	assert_int_equal(pprof_profile_read(&p, b, len, 0), 0);
	assert_int_equal(pprof_profile_header(&p, &h), 0);
	assert_int_equal(h.nr_events, 3);
	assert_string_equal(h.events[0].name, "cpu-clock");
	assert_string_equal(h.events[1].name, "task-clock");
	assert_string_equal(h.events[2].name, "page-faults");
	assert_true(p.nr_samples >= 100);	/* 1 s at 200 Hz of one busy thread */
	for (i = 0; i < p.nr_samples; i++) {
		const struct pprof_rd_location *l = &p.locations[p.locs_of[p.samples[i].loc0]];
		const char *fn = pprof_str(&p, p.functions[p.lines[l->line0 + l->nr_lines - 1]
							 .function].system_name);

		assert_string_equal(pprof_sample_label(&p, i, "comm"), "shares");
		assert_true(p.samples[i].nr_locs >= 1);
		work += !strncmp(fn, "work_", 5);
	}
	/* shares spends its time in work_a/b/c */
	assert_true(work * 10 >= p.nr_samples * 9);
	pprof_profile_free(&p);
	free(b);
}

/* gunzip'd bytes of a profile, for damaging them */
static uint8_t *inflated(const uint8_t *gz, size_t len, size_t *n)
{
	uLongf cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream z;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	*n = z.total_out;
	inflateEnd(&z);
	return out;
}

static void test_damaged(void **state)
{
	struct pprof_profile p;
	size_t len, n, cut;
	uint8_t *gz = write_profile(&len, "pmiprof test"), *raw = inflated(gz, len, &n);
	uint8_t *copy = malloc(n);
	uint32_t refused = 0;
	int err;

	(void)state;
	/* plain (not gzip'd) bytes read the same */
	assert_int_equal(pprof_profile_read(&p, raw, n, 0), 0);
	pprof_profile_free(&p);
	/* every truncation: read or refused as not a profile, nothing else */
	for (cut = 0; cut < n; cut++) {
		memcpy(copy, raw, cut);
		err = pprof_profile_read(&p, copy, cut, 0);
		assert_true(err == 0 || err == -EBADMSG);
		refused += err != 0;
		pprof_profile_free(&p);
	}
	assert_true(refused > n / 2);
	/* over the cap once inflated */
	assert_int_equal(pprof_profile_read(&p, gz, len, 16), -E2BIG);
	pprof_profile_free(&p);
	/* a sample whose location id names nothing: field 2 {1: 99, 2: [1 0 0]} first */
	{
		static const uint8_t bad[] = { 0x12, 0x07, 0x08, 99, 0x12, 0x03, 1, 0, 0 };
		uint8_t *b = malloc(sizeof(bad) + n);

		memcpy(b, bad, sizeof(bad));
		memcpy(b + sizeof(bad), raw, n);
		assert_int_equal(pprof_profile_read(&p, b, sizeof(bad) + n, 0), -EBADMSG);
		pprof_profile_free(&p);
		/* values that do not match the three sample types: {2: [1 0]} */
		b[1] = 0x04;
		b[2] = 0x12;
		b[3] = 0x02;
		b[4] = 1;
		b[5] = 0;
		memmove(b + 6, b + sizeof(bad), n);
		assert_int_equal(pprof_profile_read(&p, b, 6 + n, 0), -EBADMSG);
		pprof_profile_free(&p);
		free(b);
	}
	free(copy);
	free(raw);
	free(gz);
	/* a valid profile without pmiprof's comment: not ours */
	{
		struct trace_header h;

		gz = write_profile(&len, NULL);
		assert_int_equal(pprof_profile_read(&p, gz, len, 0), 0);
		assert_int_equal(pprof_profile_header(&p, &h), -ENOMSG);
		pprof_profile_free(&p);
		free(gz);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_daemon_fixture),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
