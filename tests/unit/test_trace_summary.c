// SPDX-License-Identifier: GPL-2.0
/*
 * 1.4 chunk summaries and codecs: every SUMMARY equals the aggregate of its
 * chunk's decoded samples (per pid, tid, ip, flags: samples and count sums,
 * and the time range), for zstd, deflate and stored chunks; chunks holding
 * side-band records get none; a damaged summary is reported, counted and
 * its chunk decoded instead; a chunk with an unknown codec flag or a bad
 * zstd payload is refused with one message and its records counted lost.
 * The frozen tests/fixtures/v14-summary.pmiprof (zstd chunks with
 * summaries; regenerate with `test_trace_summary --regenerate FILE`) keeps
 * reading to the same aggregates and the same samples the writer makes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "pmiprof/trace.h"
#include "trace_gen.h"
#include "varint.h"

#define NSAMPLES 30000
#define NEV 4

struct ent {
	uint32_t seq, pid, tid, flags;
	uint64_t ip, samples, counts[NEV];
};

struct chunk_agg {
	uint32_t seq;
	struct ent *e;
	uint32_t n, cap;
	uint64_t tmin, tmax, samples;
	bool side;			/* has a side-band record */
	bool summarized;
};

struct pass {
	struct chunk_agg c[4096];
	uint32_t nr;
	uint64_t samples;		/* decoded + summarized */
};

static int diags;
static char last_diag[1024];

static void save_diag(void *arg, const char *msg)
{
	(void)arg;
	diags++;
	snprintf(last_diag, sizeof(last_diag), "%s", msg);
}

static struct chunk_agg *chunk_of(struct pass *p, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < p->nr; i++)
		if (p->c[i].seq == seq)
			return &p->c[i];
	assert_true(p->nr < 4096);
	p->c[p->nr] = (struct chunk_agg){ .seq = seq };
	return &p->c[p->nr++];
}

static void add(struct chunk_agg *c, uint32_t pid, uint32_t tid, uint64_t ip, uint32_t flags,
		uint64_t samples, const uint64_t *counts)
{
	uint32_t i, e;

	for (i = 0; i < c->n; i++)
		if (c->e[i].pid == pid && c->e[i].tid == tid && c->e[i].ip == ip &&
		    c->e[i].flags == flags)
			break;
	if (i == c->n) {
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->e = realloc(c->e, c->cap * sizeof(*c->e));
			assert_non_null(c->e);
		}
		c->e[c->n++] = (struct ent){ c->seq, pid, tid, flags, ip, 0, { 0 } };
	}
	c->e[i].samples += samples;
	for (e = 0; e < NEV; e++)
		c->e[i].counts[e] += counts[e];
	c->samples += samples;
}

static bool on_summary(void *arg, const struct trace_chunk_summary *s)
{
	struct pass *p = arg;
	struct chunk_agg *c = chunk_of(p, s->chunk_seq);
	uint32_t i;

	assert_int_equal(s->nr_events, NEV);
	c->summarized = true;
	c->tmin = s->time_min;
	c->tmax = s->time_max;
	for (i = 0; i < s->nr_entries; i++)
		add(c, s->entries[i].pid, s->entries[i].tid, s->entries[i].ip,
		    s->entries[i].flags, s->entries[i].samples, s->entries[i].counts);
	assert_int_equal(c->samples, s->samples);
	p->samples += s->samples;
	return true;
}

/* Reads path: samples decoded per chunk, or summaries when use_summaries. */
static void read_pass(const char *path, bool use_summaries, struct pass *p,
		      struct trace_read_stats *st)
{
	struct trace_reader *r;
	struct trace_record rec;

	memset(p, 0, sizeof(*p));
	assert_int_equal(trace_reader_open(&r, path, save_diag, NULL), 0);
	if (use_summaries)
		trace_reader_set_summary_fn(r, on_summary, p);
	while (trace_reader_next(r, &rec) > 0) {
		struct chunk_agg *c;

		if (rec.type == PMIPROF_REC_LOST && rec.chunk_seq == UINT32_MAX)
			continue;
		c = chunk_of(p, rec.chunk_seq);
		if (rec.type != PMIPROF_REC_SAMPLE) {
			if (rec.type != PMIPROF_REC_STACK && rec.type != PMIPROF_REC_USTACK)
				c->side = true;
			continue;
		}
		if (!c->samples || rec.sample.time < c->tmin)
			c->tmin = rec.sample.time;
		if (!c->samples || rec.sample.time > c->tmax)
			c->tmax = rec.sample.time;
		add(c, rec.sample.pid, rec.sample.tid, rec.sample.ip, rec.sample.flags, 1,
		    rec.sample.counts);
		p->samples++;
	}
	*st = *trace_reader_stats(r);
	trace_reader_close(r);
}

static int ent_cmp(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	return a->flags < b->flags ? -1 : a->flags > b->flags;
}

/* Every chunk of b (summarized or decoded) equals the decoded chunk in a. */
static void same_aggregates(struct pass *a, struct pass *b)
{
	uint32_t i, j;

	assert_int_equal(a->samples, b->samples);
	for (i = 0; i < b->nr; i++) {
		struct chunk_agg *y = &b->c[i], *x = chunk_of(a, y->seq);

		assert_int_equal(x->n, y->n);
		assert_int_equal(x->samples, y->samples);
		if (!x->samples)
			continue;
		assert_int_equal(x->tmin, y->tmin);
		assert_int_equal(x->tmax, y->tmax);
		qsort(x->e, x->n, sizeof(*x->e), ent_cmp);
		qsort(y->e, y->n, sizeof(*y->e), ent_cmp);
		for (j = 0; j < x->n; j++)
			assert_memory_equal(&x->e[j], &y->e[j], sizeof(x->e[j]));
	}
}

/* The whole pass's aggregates, chunks merged: what two chunkings must agree on. */
static void merge_pass(const struct pass *p, struct chunk_agg *all)
{
	uint32_t i, j;

	*all = (struct chunk_agg){ 0 };
	for (i = 0; i < p->nr; i++)
		for (j = 0; j < p->c[i].n; j++) {
			const struct ent *e = &p->c[i].e[j];

			add(all, e->pid, e->tid, e->ip, e->flags, e->samples, e->counts);
		}
	qsort(all->e, all->n, sizeof(*all->e), ent_cmp);
}

static void same_totals(const struct pass *a, const struct pass *b)
{
	struct chunk_agg x, y;
	uint32_t j;

	assert_int_equal(a->samples, b->samples);
	merge_pass(a, &x);
	merge_pass(b, &y);
	assert_int_equal(x.n, y.n);
	assert_int_equal(x.samples, y.samples);
	for (j = 0; j < x.n; j++) {
		x.e[j].seq = y.e[j].seq = 0;
		assert_memory_equal(&x.e[j], &y.e[j], sizeof(x.e[j]));
	}
	free(x.e);
	free(y.e);
}

static void free_pass(struct pass *p)
{
	uint32_t i;

	for (i = 0; i < p->nr; i++)
		free(p->c[i].e);
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random samples of 3 processes, 6 threads, 60 ips; some stacks, some side-band. */
static int write_n(const char *path, int level, int codec, bool no_summary, uint32_t n,
		   uint32_t chunk)
{
	struct trace_writer_opts o = { .level = level, .chunk_size = chunk, .codec = codec,
				       .no_summary = no_summary };
	struct trace_header h;
	struct trace_writer *w;
	uint64_t t = 1000000, frames[3] = { 0x401100, 0x401200, 0x401300 };
	uint32_t i, e;
	int err = 0;

	rnd_state = 88172645463325252ull;
	tgen_header(&h);
	if (trace_writer_open(&w, path, &h, &o))
		return 1;
	for (i = 0; i < n; i++) {
		struct trace_sample s = { 0 };
		uint64_t r = rnd();

		t += 10000 + r % 500;
		s.time = t;
		s.pid = 100 + (uint32_t)(r >> 8) % 3;
		s.tid = s.pid * 10 + (uint32_t)(r >> 12) % 2;
		s.cpu = (uint32_t)(r >> 14) % 2;
		s.ip = 0x401000 + ((r >> 16) % 60) * 0x40;
		if ((r >> 24) % 7 == 0)
			s.ip = 0xffffffff81000000ull + ((r >> 28) % 9) * 0x100;
		s.flags = PMIPROF_SAMPLE_F_USER | ((r >> 33) % 5 == 0 ? PMIPROF_SAMPLE_F_AFTER_LOSS : 0);
		s.nr = (r >> 36) % 11 == 0 ? 2 : NEV;	/* shorter samples read as 0 */
		for (e = 0; e < s.nr; e++)
			s.counts[e] = e == 3 ? ~0ull - (rnd() % 3) : rnd() % 100000;	/* sums wrap */
		if ((r >> 40) % 4 == 0)
			err |= trace_write_sample_stack(w, &s, frames, 1 + (r >> 44) % 3, 0);
		else
			err |= trace_write_sample(w, &s);
		if (i % (n / 6) == n / 12) {
			struct trace_comm c = { .time = t, .pid = s.pid, .tid = s.tid,
						.comm = "renamed" };

			err |= trace_write_comm(w, &c);
		}
	}
	return trace_writer_close(w) | err;
}

static void write_trace(const char *path, int level, int codec, bool no_summary)
{
	assert_int_equal(write_n(path, level, codec, no_summary, NSAMPLES, 8192), 0);
}

/* The fixture: 600 samples in 1 KiB chunks, default codec (zstd) and summaries. */
#define FIX_SAMPLES 600
#define FIX_CHUNK 1024


static char path[64];

static int make_path(void **state)
{
	int fd;

	(void)state;
	strcpy(path, "/tmp/pmiprof-summary.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int drop_path(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static struct pass pa, pb;

static void summaries_equal_decoded_samples(int level, int codec)
{
	struct trace_read_stats sa, sb;
	uint32_t i, side = 0;

	write_trace(path, level, codec, false);
	diags = 0;
	read_pass(path, false, &pa, &sa);
	read_pass(path, true, &pb, &sb);
	assert_int_equal(diags, 0);
	assert_int_equal(pa.samples, NSAMPLES);
	assert_int_equal(sa.chunks_summarized, 0);
	assert_int_equal(sa.bytes_skipped, 0);	/* summary chunks are not damage */
	assert_true(sb.chunks_summarized > 10);
	assert_int_equal(sb.summaries_bad, 0);
	assert_int_equal(sb.chunks_ok, sa.chunks_ok);
	/* chunks with a side-band record have no summary: they were decoded */
	for (i = 0; i < pb.nr; i++) {
		if (pb.c[i].side) {
			side++;
			assert_false(pb.c[i].summarized);
		}
	}
	assert_true(side >= 5);
	assert_int_equal(sb.chunks_summarized + side, sb.chunks_ok);
	same_aggregates(&pa, &pb);
	free_pass(&pa);
	free_pass(&pb);
}

static void zstd_summaries_equal_decoded_samples(void **state)
{
	(void)state;
	summaries_equal_decoded_samples(1, PMIPROF_TRACE_CODEC_ZSTD);
}

static void deflate_summaries_equal_decoded_samples(void **state)
{
	(void)state;
	summaries_equal_decoded_samples(1, PMIPROF_TRACE_CODEC_DEFLATE);
}

static void stored_summaries_equal_decoded_samples(void **state)
{
	(void)state;
	summaries_equal_decoded_samples(0, 0);
}

static void no_summary_option_writes_none(void **state)
{
	struct trace_read_stats st;

	(void)state;
	write_trace(path, 1, 0, true);
	read_pass(path, true, &pb, &st);
	assert_int_equal(st.chunks_summarized, 0);
	assert_int_equal(pb.samples, NSAMPLES);
	free_pass(&pb);
}

/*
 * A recording's first sample comes before the exec's COMM and MMAPs: the
 * chunk mixing them is closed 1024 samples after its last side-band
 * record, so the samples after it get summaries (they had none: the whole
 * first chunk was decoded by every flat profile).
 */
static void chunk_mixing_sideband_closes_so_later_samples_get_summaries(void **state)
{
	struct trace_writer_opts o = { .level = 1, .chunk_size = 1 << 20 };
	struct trace_mmap m = { .pid = 100, .tid = 100, .start = 0x400000, .len = 0x10000,
				.path = "/bin/prog" };
	struct trace_comm c = { .pid = 100, .tid = 100, .comm = "prog" };
	struct trace_read_stats st;
	struct trace_header h;
	struct trace_writer *w;
	uint64_t decoded = 0;
	uint32_t i;

	(void)state;
	tgen_header(&h);
	assert_int_equal(trace_writer_open(&w, path, &h, &o), 0);
	for (i = 0; i < 20000; i++) {
		struct trace_sample smp = { .time = 1000 + i * 100ull, .pid = 100, .tid = 100,
					    .ip = 0x401000 + (i % 7) * 16, .nr = NEV,
					    .flags = PMIPROF_SAMPLE_F_USER };

		smp.counts[0] = 100;
		if (i == 1) {
			c.time = m.time = smp.time - 1;
			assert_int_equal(trace_write_comm(w, &c), 0);
			assert_int_equal(trace_write_mmap(w, &m), 0);
		}
		assert_int_equal(trace_write_sample(w, &smp), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
	read_pass(path, true, &pb, &st);
	for (i = 0; i < pb.nr; i++)
		if (!pb.c[i].summarized)
			decoded += pb.c[i].samples;
	assert_int_equal(pb.samples, 20000);
	assert_true(st.chunks_summarized >= 1);
	assert_true(decoded <= 1 + 1024);
	free_pass(&pb);
}

/* ---- damage: edit the file in memory, re-read from a memory image ---- */

static uint8_t *load(size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void store(const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Offset of the k-th chunk of the given type. */
static size_t find_chunk(const uint8_t *buf, size_t len, uint16_t type, int k)
{
	uint32_t hsize;
	size_t off;

	memcpy(&hsize, buf + 12, 4);
	for (off = 32 + hsize; off + 32 <= len;) {
		struct pmiprof_chunk_header ch;

		memcpy(&ch, buf + off, 32);
		if (ch.type == type && k-- == 0)
			return off;
		off += 32 + ch.csize;
	}
	fail_msg("no chunk of type %u", type);
	return 0;
}

static void fix_crcs(uint8_t *buf, size_t off)
{
	struct pmiprof_chunk_header ch;

	memcpy(&ch, buf + off, 32);
	ch.payload_crc = (uint32_t)crc32(0, buf + off + 32, ch.csize);
	ch.header_crc = (uint32_t)crc32(0, (uint8_t *)&ch, 28);
	memcpy(buf + off, &ch, 32);
}

/* One damaged summary: one message saying so, counted, the chunk decoded, totals exact. */
static void expect_bad_summary(const char *want)
{
	struct trace_read_stats st;

	diags = 0;
	read_pass(path, true, &pb, &st);
	assert_int_equal(diags, 1);
	if (!strstr(last_diag, want))
		fail_msg("diag '%s' does not say '%s'", last_diag, want);
	assert_non_null(strstr(last_diag, "the chunk's records are decoded instead"));
	assert_int_equal(st.summaries_bad, 1);
	assert_int_equal(st.chunks_bad, 0);
	assert_int_equal(pb.samples, NSAMPLES);
	read_pass(path, false, &pa, &st);
	same_aggregates(&pa, &pb);
	free_pass(&pa);
	free_pass(&pb);
}

static void damaged_summaries_are_counted_and_the_chunk_decoded(void **state)
{
	uint8_t *orig, *buf;
	size_t len, off;

	(void)state;
	write_trace(path, 0, 0, false);		/* stored: summary bytes are editable */
	orig = load(&len);
	buf = malloc(len);
	assert_non_null(buf);

	memcpy(buf, orig, len);
	off = find_chunk(buf, len, PMIPROF_CHUNK_SUMMARY, 3);
	buf[off + 32 + 9] ^= 0x40;		/* no CRC fix-up */
	store(buf, len);
	expect_bad_summary("payload CRC mismatch");

	memcpy(buf, orig, len);
	buf[off + 32] ^= 1;			/* the records chunk's CRC it names */
	fix_crcs(buf, off);
	store(buf, len);
	expect_bad_summary("describes another chunk");

	memcpy(buf, orig, len);
	/* samples (the varint after nr_records): one more than the entries hold */
	{
		const uint8_t *p = buf + off + 32 + 4;
		uint64_t v;

		assert_int_equal(varint_get(&p, buf + len, &v), 0);	/* nr_records */
		((uint8_t *)p)[0] = (uint8_t)((p[0] & 0x7f) ? p[0] - 1 : p[0] + 1);
	}
	fix_crcs(buf, off);
	store(buf, len);
	expect_bad_summary("entr");

	memcpy(buf, orig, len);
	buf[off + 8] ^= 1;			/* seq: no longer the chunk's */
	fix_crcs(buf, off);
	store(buf, len);
	expect_bad_summary("sequence number");

	memcpy(buf, orig, len);
	buf[off + 20] ^= 0x55;			/* header CRC no longer matches */
	store(buf, len);
	{
		struct trace_read_stats st;

		diags = 0;
		read_pass(path, true, &pb, &st);
		assert_int_equal(st.summaries_bad, 1);
		assert_int_equal(pb.samples, NSAMPLES);
		free_pass(&pb);
	}
	free(buf);
	free(orig);
}

/* Summaries never hide damage: a bad chunk with a good summary is still reported. */
static void damaged_chunk_with_a_good_summary_is_reported(void **state)
{
	struct trace_read_stats st;
	struct pmiprof_chunk_header ch;
	uint8_t *buf;
	size_t len, off;

	(void)state;
	write_trace(path, 1, 0, false);
	buf = load(&len);
	off = find_chunk(buf, len, PMIPROF_CHUNK_SUMMARY, 2);
	memcpy(&ch, buf + off, 32);
	/* the RECORDS chunk before it: find the one whose end is off */
	{
		size_t k, roff = 0;

		for (k = 0; ; k++) {
			struct pmiprof_chunk_header rh;

			roff = find_chunk(buf, len, PMIPROF_CHUNK_RECORDS4, (int)k);
			memcpy(&rh, buf + roff, 32);
			if (roff + 32 + rh.csize == off)
				break;
		}
		buf[roff + 32 + 7] ^= 0x20;	/* no CRC fix-up */
	}
	store(buf, len);
	diags = 0;
	read_pass(path, true, &pb, &st);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "payload CRC mismatch"));
	assert_int_equal(st.chunks_bad, 1);
	assert_int_equal(st.summaries_bad, 0);
	assert_true(pb.samples < NSAMPLES);
	free_pass(&pb);
	free(buf);
}

static void unknown_codec_flag_is_refused_with_a_message(void **state)
{
	struct trace_read_stats st;
	struct pmiprof_chunk_header ch;
	uint8_t *buf;
	size_t len, off;

	(void)state;
	write_trace(path, 1, 0, true);
	buf = load(&len);
	off = find_chunk(buf, len, PMIPROF_CHUNK_RECORDS4, 2);
	memcpy(&ch, buf + off, 32);
	assert_int_equal(ch.flags, PMIPROF_CHUNK_F_ZSTD);
	ch.flags |= 1u << 5;
	memcpy(buf + off, &ch, 32);
	fix_crcs(buf, off);
	store(buf, len);
	diags = 0;
	read_pass(path, false, &pa, &st);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "compressed with a codec this pmiprof does not know"));
	assert_int_equal(st.chunks_bad, 1);
	assert_int_equal(st.records_lost, ch.nr_records);
	free_pass(&pa);

	/* a zstd payload that is not zstd data */
	ch.flags = PMIPROF_CHUNK_F_ZSTD;
	memcpy(buf + off, &ch, 32);
	buf[off + 32 + 1] ^= 0xff;		/* inside the frame magic */
	fix_crcs(buf, off);
	store(buf, len);
	diags = 0;
	read_pass(path, false, &pa, &st);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "corrupt zstd payload"));
	assert_int_equal(st.chunks_bad, 1);
	free_pass(&pa);
	free(buf);
}

static void fixture_v14_summaries_read_to_frozen_samples(void **state)
{
	const char *top = getenv("PMIPROF_TOP");
	char fix[4200];
	struct trace_read_stats sa, sb, sc;
	struct pass *pc = calloc(1, sizeof(*pc));
	struct trace_reader *r;

	(void)state;
	snprintf(fix, sizeof(fix), "%s/tests/fixtures/v14-summary.pmiprof", top ? top : ".");
	assert_int_equal(trace_reader_open(&r, fix, NULL, NULL), 0);
	assert_int_equal(trace_reader_header(r)->version_minor, 4);
	trace_reader_close(r);
	diags = 0;
	read_pass(fix, false, &pa, &sa);
	read_pass(fix, true, &pb, &sb);
	assert_int_equal(diags, 0);
	assert_int_equal(pa.samples, FIX_SAMPLES);
	assert_true(sb.chunks_summarized >= 5);
	same_aggregates(&pa, &pb);
	/*
	 * today's writer makes the same samples (decoded) and summaries; its
	 * records are smaller (packed SAMPLEs in 1.4's RECORDS2 chunks), so its
	 * chunks are not the fixture's
	 */
	assert_int_equal(write_n(path, 1, 0, false, FIX_SAMPLES, FIX_CHUNK), 0);
	read_pass(path, true, pc, &sc);
	assert_true(sc.chunks_summarized >= 5);
	same_totals(&pa, pc);
	free_pass(&pa);
	free_pass(&pb);
	free_pass(pc);
	free(pc);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(zstd_summaries_equal_decoded_samples, make_path,
						drop_path),
		cmocka_unit_test_setup_teardown(deflate_summaries_equal_decoded_samples, make_path,
						drop_path),
		cmocka_unit_test_setup_teardown(stored_summaries_equal_decoded_samples, make_path,
						drop_path),
		cmocka_unit_test_setup_teardown(no_summary_option_writes_none, make_path,
						drop_path),
		cmocka_unit_test_setup_teardown(chunk_mixing_sideband_closes_so_later_samples_get_summaries,
						make_path, drop_path),
		cmocka_unit_test_setup_teardown(damaged_summaries_are_counted_and_the_chunk_decoded,
						make_path, drop_path),
		cmocka_unit_test_setup_teardown(damaged_chunk_with_a_good_summary_is_reported,
						make_path, drop_path),
		cmocka_unit_test_setup_teardown(unknown_codec_flag_is_refused_with_a_message,
						make_path, drop_path),
		cmocka_unit_test_setup_teardown(fixture_v14_summaries_read_to_frozen_samples,
						make_path, drop_path),
	};

	if (argc == 3 && !strcmp(argv[1], "--regenerate"))
		return write_n(argv[2], 1, 0, false, FIX_SAMPLES, FIX_CHUNK);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
