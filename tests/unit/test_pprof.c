// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof encoder writes profile.proto as go tool pprof reads it: field
 * numbers checked by a small decoder here (independent of the encoder's
 * tables), then the file loaded by `go tool pprof` when go is installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "output/pprof.h"

/* ---- a minimal protobuf reader for the checks ---- */

struct field {
	unsigned int num, wt;
	uint64_t v;			/* varint */
	const uint8_t *p;		/* length-delimited */
	size_t len;
};

static int next_field(const uint8_t **pp, const uint8_t *end, struct field *f)
{
	uint64_t key = 0, x;
	unsigned int shift = 0;
	const uint8_t *p = *pp;

	if (p >= end)
		return 0;
	do {
		assert_true(p < end);
		key |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p++ & 0x80);
	f->num = (unsigned int)(key >> 3);
	f->wt = (unsigned int)(key & 7);
	x = 0;
	shift = 0;
	assert_true(f->wt == 0 || f->wt == 2);	/* the encoder uses no other wire type */
	do {
		assert_true(p < end);
		x |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p++ & 0x80);
	if (f->wt == 0) {
		f->v = x;
	} else {
		assert_true(x <= (uint64_t)(end - p));
		f->p = p;
		f->len = (size_t)x;
		p += x;
	}
	*pp = p;
	return 1;
}

/* Packed repeated varints: how many (at most max). */
static unsigned int packed(const uint8_t *p, size_t len, uint64_t *out, unsigned int max)
{
	const uint8_t *end = p + len;
	unsigned int n = 0, shift;

	while (p < end) {
		uint64_t x = 0;

		shift = 0;
		do {
			assert_true(p < end);
			x |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		assert_true(n < max);
		out[n++] = x;
	}
	return n;
}

static uint8_t *gunzip(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16;
	uint8_t *b = malloc(cap);
	int n;

	assert_non_null(gz);
	*len = 0;
	while ((n = gzread(gz, b + *len, (unsigned int)(cap - *len))) > 0) {
		*len += (size_t)n;
		if (*len == cap)
			b = realloc(b, cap *= 2);
	}
	assert_int_equal(n, 0);
	gzclose(gz);
	return b;
}

static char tmp_path[64];

static int make_file(void **state)
{
	int fd;

	(void)state;
	strcpy(tmp_path, "/tmp/test_pprof.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int drop_file(void **state)
{
	(void)state;
	unlink(tmp_path);
	return 0;
}

/*
 * Two windows through main -> work (work with an inlined helper) and one
 * through main -> other; two sample types; label window = index.
 */
/* A window's labels as report writes them: its index (a number) and its command (a string). */
static const struct pprof_label *labels_of(struct pprof_label lb[2], int64_t window)
{
	lb[0] = (struct pprof_label){ .key = "window", .num = window, .unit = "index" };
	lb[1] = (struct pprof_label){ .key = "comm", .str = "app" };
	return lb;
}

static void write_example(const char *path)
{
	struct pprof *p;
	int64_t m_exe, m_lib, f_main, f_work, f_helper, f_other, l_main, l_work, l_other;
	struct pprof_line lines[2];
	uint64_t locs[2];
	int64_t v[2];
	struct pprof_label lb[2];

	assert_int_equal(pprof_open(&p, path), 0);
	assert_int_equal(pprof_sample_type(p, "samples", "count"), 0);
	assert_int_equal(pprof_sample_type(p, "cycles", "count"), 0);
	assert_int_equal(pprof_period_type(p, "cycles", "count", 100000), 0);
	pprof_default_type(p, 1);
	pprof_times(p, 1700000000000000000LL, 2500000000LL);
	assert_int_equal(pprof_comment(p, "a comment"), 0);
	m_exe = pprof_mapping(p, 0, 7, "/usr/bin/app", "0123abcd", NULL);
	m_lib = pprof_mapping(p, 0, 9, "/lib/libc.so.6", "", NULL);
	assert_int_equal(m_exe, 1);
	assert_int_equal(m_lib, 2);
	assert_int_equal(pprof_mapping(p, 0, 7, "ignored", "ignored", NULL), 1);
	f_main = pprof_function(p, "main", "main", "app.c", 0);
	f_work = pprof_function(p, "work", "work", "app.c", 0);
	f_helper = pprof_function(p, "helper", "helper", "app.h", 0);
	f_other = pprof_function(p, "other & <more>", "other", "", 0);
	assert_int_equal(pprof_function(p, "main", "main", "app.c", 0), f_main);
	lines[0] = (struct pprof_line){ (uint64_t)f_main, 12 };
	l_main = pprof_location(p, (uint64_t)m_exe, 0x401000, lines, 1);
	lines[0] = (struct pprof_line){ (uint64_t)f_helper, 3 };	/* inlined into work */
	lines[1] = (struct pprof_line){ (uint64_t)f_work, 20 };
	l_work = pprof_location(p, (uint64_t)m_exe, 0x401100, lines, 2);
	lines[0] = (struct pprof_line){ (uint64_t)f_other, 0 };
	l_other = pprof_location(p, (uint64_t)m_lib, 0x7f0000001000, lines, 1);
	assert_int_equal(l_main, 1);
	assert_int_equal(l_work, 2);
	assert_int_equal(l_other, 3);

	locs[0] = (uint64_t)l_work;
	locs[1] = (uint64_t)l_main;
	v[0] = 1;
	v[1] = 1000;
	assert_int_equal(pprof_sample(p, locs, 2, v, labels_of(lb, 0), 2), 0);
	v[1] = 3000;
	assert_int_equal(pprof_sample(p, locs, 2, v, labels_of(lb, 1), 2), 0);
	locs[0] = (uint64_t)l_other;
	v[1] = 500;
	assert_int_equal(pprof_sample(p, locs, 2, v, labels_of(lb, 2), 2), 0);
	assert_int_equal(pprof_nr_samples(p), 3);
	/* Bad references are refused, not written. */
	locs[0] = 99;
	assert_int_equal(pprof_sample(p, locs, 1, v, NULL, 0), -22);
	assert_int_equal(pprof_close(p, true), -22);
}

static void bad_reference_removes_the_file(void **state)
{
	(void)state;
	write_example(tmp_path);
	assert_int_equal(access(tmp_path, F_OK), -1);
}

/* The example again, without the bad sample at the end. */
static void write_good_example(const char *path)
{
	struct pprof *p;
	struct pprof_line ln[2];
	uint64_t locs[2];
	int64_t v[2], fm, fw, fh, fo, lm, lw, lo;
	struct pprof_label lb[2];
	/* the recorded mmap: the text at file offset 0x1000 */
	const struct pprof_range exe_mmap = { 0x400000, 0x403000, 0x1000 };

	assert_int_equal(pprof_open(&p, path), 0);
	pprof_sample_type(p, "samples", "count");
	pprof_sample_type(p, "cycles", "count");
	pprof_period_type(p, "cycles", "count", 100000);
	pprof_default_type(p, 1);
	pprof_times(p, 1700000000000000000LL, 2500000000LL);
	pprof_comment(p, "a comment");
	pprof_mapping(p, 0x400000, 7, "/usr/bin/app", "0123abcd", &exe_mmap);
	pprof_mapping(p, 0, 9, "/lib/libc.so.6", "", NULL);
	fm = pprof_function(p, "main", "main", "app.c", 0);
	fw = pprof_function(p, "work", "work", "app.c", 0);
	fh = pprof_function(p, "helper", "helper", "app.h", 0);
	fo = pprof_function(p, "other & <more>", "other", "", 0);
	ln[0] = (struct pprof_line){ (uint64_t)fm, 12 };
	lm = pprof_location(p, 1, 0x401000, ln, 1);
	ln[0] = (struct pprof_line){ (uint64_t)fh, 3 };
	ln[1] = (struct pprof_line){ (uint64_t)fw, 20 };
	lw = pprof_location(p, 1, 0x401100, ln, 2);
	ln[0] = (struct pprof_line){ (uint64_t)fo, 0 };
	lo = pprof_location(p, 2, 0x7f0000001000, ln, 1);
	locs[0] = (uint64_t)lw;
	locs[1] = (uint64_t)lm;
	v[0] = 1;
	v[1] = 1000;
	assert_int_equal(pprof_sample(p, locs, 2, v, labels_of(lb, 0), 2), 0);
	v[1] = 3000;
	assert_int_equal(pprof_sample(p, locs, 2, v, labels_of(lb, 1), 2), 0);
	locs[0] = (uint64_t)lo;
	v[1] = 500;
	assert_int_equal(pprof_sample(p, locs, 2, v, labels_of(lb, 2), 2), 0);
	assert_int_equal(pprof_close(p, true), 0);
}

static void profile_fields_have_profile_proto_numbers(void **state)
{
	const uint8_t *p, *end, *q, *qe;
	struct field f, g;
	const char *strs[64];
	size_t len, lens[64];
	unsigned int nstr = 0, nsamples = 0, ntypes = 0, nmaps = 0, nlocs = 0, nfuncs = 0;
	uint64_t period = 0, time_nanos = 0, duration = 0, dflt = 0, inline_lines = 0;
	uint64_t windows = 0, cycles = 0, build_id = 0, comment = 0, comms = 0;
	uint8_t *buf;

	(void)state;
	write_good_example(tmp_path);
	buf = gunzip(tmp_path, &len);
	/* Strings first: other fields refer to them. */
	for (p = buf, end = buf + len; next_field(&p, end, &f);)
		if (f.num == 6) {
			assert_int_equal(f.wt, 2);
			assert_true(nstr < 64);
			strs[nstr] = (const char *)f.p;
			lens[nstr++] = f.len;
		}
	assert_true(nstr > 10);
	assert_int_equal(lens[0], 0);		/* "" at index 0 */
	for (p = buf; next_field(&p, end, &f);) {
		switch (f.num) {
		case 1:		/* sample_type: ValueType {type = 1, unit = 2} */
			ntypes++;
			break;
		case 2:		/* sample {location_id = 1 packed, value = 2 packed, label = 3} */
			nsamples++;
			for (q = f.p, qe = f.p + f.len; next_field(&q, qe, &g);) {
				if (g.num == 2) {	/* values: samples, cycles */
					uint64_t vals[4];

					assert_int_equal(packed(g.p, g.len, vals, 4), 2);
					assert_int_equal(vals[0], 1);
					cycles += vals[1];
				} else if (g.num == 3) {
					const uint8_t *r = g.p, *re = g.p + g.len;
					struct field h;

					uint64_t key = 0;

					while (next_field(&r, re, &h))
						if (h.num == 1)
							key = h.v;
						else if (h.num == 2) {	/* str: comm = app */
							assert_memory_equal(strs[key], "comm", 4);
							assert_memory_equal(strs[h.v], "app", 3);
							comms++;
						} else if (h.num == 3) {
							assert_memory_equal(strs[key], "window", 6);
							windows += h.v;
						}
				}
			}
			break;
		case 3: {	/* mapping {id 1, start 2, limit 3, offset 4, filename 5, build_id 6} */
			uint64_t mv[5] = { 0 };

			nmaps++;
			for (q = f.p, qe = f.p + f.len; next_field(&q, qe, &g);) {
				if (g.num == 6 && lens[g.v] == 8 && !memcmp(strs[g.v], "0123abcd", 8))
					build_id++;
				if (g.num >= 2 && g.num <= 4)
					mv[g.num] = g.v;
			}
			if (nmaps == 1) {	/* the app: its recorded mmap, not its locations' span */
				assert_int_equal(mv[2], 0x400000);
				assert_int_equal(mv[3], 0x403000);
				assert_int_equal(mv[4], 0x1000);
			} else {		/* libc, no mmap given: the span of its one location */
				assert_int_equal(mv[2], 0x7f0000001000);
				assert_int_equal(mv[3], 0x7f0000001001);
				assert_int_equal(mv[4], 0);
			}
			break;
		}
		case 4:		/* location {id 1, mapping_id 2, address 3, line 4} */
			nlocs++;
			{
				unsigned int nl = 0;

				for (q = f.p, qe = f.p + f.len; next_field(&q, qe, &g);)
					nl += g.num == 4;
				if (nl == 2)
					inline_lines++;
			}
			break;
		case 5:
			nfuncs++;
			break;
		case 6:
			break;
		case 9:
			time_nanos = f.v;
			break;
		case 10:
			duration = f.v;
			break;
		case 11:
			break;
		case 12:
			period = f.v;
			break;
		case 13:
			comment = f.len ? f.p[0] : 0;
			break;
		case 14:
			dflt = f.v;
			break;
		default:
			fail_msg("field %u is not written by the encoder", f.num);
		}
	}
	assert_int_equal(ntypes, 2);
	assert_int_equal(nsamples, 3);
	assert_int_equal(nmaps, 2);
	assert_int_equal(nlocs, 3);
	assert_int_equal(nfuncs, 4);
	assert_int_equal(inline_lines, 1);
	assert_int_equal(build_id, 1);
	assert_int_equal(windows, 0 + 1 + 2);
	assert_int_equal(comms, 3);	/* every sample: its string label */
	assert_int_equal(cycles, 1000 + 3000 + 500);
	assert_int_equal(period, 100000);
	assert_int_equal(time_nanos, 1700000000000000000ULL);
	assert_int_equal(duration, 2500000000ULL);
	assert_int_equal(lens[dflt], 6);
	assert_memory_equal(strs[dflt], "cycles", 6);
	assert_memory_equal(strs[comment], "a comment", 9);
	free(buf);
}

/* Output of a command, or NULL when it failed. */
static char *run(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	char *out = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, (1 << 16) - 1, f);
	out[n] = '\0';
	if (pclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static void go_tool_pprof_reads_it(void **state)
{
	char cmd[512], *out;

	(void)state;
	if (system("go version >/dev/null 2>&1"))
		skip();		/* golang-go not installed */
	write_good_example(tmp_path);
	/* The default sample type is cycles: work 4000 of 4500 flat, main 4000 cum + 0 flat. */
	snprintf(cmd, sizeof(cmd), "go tool pprof -top -nodecount=10 %s 2>&1", tmp_path);
	out = run(cmd);
	assert_non_null(out);
	assert_non_null(strstr(out, "Type: cycles"));
	assert_non_null(strstr(out, "of 4500 total"));
	assert_non_null(strstr(out, "helper"));
	assert_non_null(strstr(out, "other & <more>"));
	free(out);
	/* -raw lists the samples with their labels and the mappings' build-ids. */
	snprintf(cmd, sizeof(cmd), "go tool pprof -raw %s 2>&1", tmp_path);
	out = run(cmd);
	assert_non_null(out);
	assert_non_null(strstr(out, "window:[2 index]"));
	assert_non_null(strstr(out, "window:[0 index]"));	/* window 0 too */
	assert_non_null(strstr(out, "0123abcd"));
	assert_non_null(strstr(out, "/usr/bin/app"));
	free(out);
	/* Round trip through pprof's own encoder: the profile is valid for it. */
	snprintf(cmd, sizeof(cmd), "go tool pprof -proto -output %s.rt %s >/dev/null 2>&1 && "
		 "go tool pprof -sample_index=samples -top %s.rt 2>&1", tmp_path, tmp_path, tmp_path);
	out = run(cmd);
	snprintf(cmd, sizeof(cmd), "%s.rt", tmp_path);
	unlink(cmd);
	assert_non_null(out);
	assert_non_null(strstr(out, "of 3 total"));
	free(out);
}

static void unwritable_path_is_an_errno(void **state)
{
	struct pprof *p;

	(void)state;
	assert_int_equal(pprof_open(&p, "/nonexistent-dir/x.pb.gz"), -2);
	assert_null(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(profile_fields_have_profile_proto_numbers,
						make_file, drop_file),
		cmocka_unit_test_setup_teardown(go_tool_pprof_reads_it, make_file, drop_file),
		cmocka_unit_test_setup_teardown(bad_reference_removes_the_file, make_file,
						drop_file),
		cmocka_unit_test(unwritable_path_is_an_errno),
	};

	return cmocka_run_group_tests_name("pprof", tests, NULL, NULL);
}
