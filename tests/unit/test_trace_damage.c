// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged and cut traces: a file cut at every chunk boundary or inside any
 * chunk is read up to its last complete chunk with the loss reported; a
 * flipped byte gives a CRC error naming the chunk and its offset and reading
 * goes on with the next chunk; a damaged chunk header is skipped by
 * resyncing on the chunk magic; malformed payloads with valid CRCs, unknown
 * record and chunk types are handled; no single-bit flip anywhere goes
 * unnoticed except in the few prologue fields that carry no meaning yet.
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
#include <zlib.h>
#include <cmocka.h>

#include "pmiprof/trace.h"
#include "trace_gen.h"
#include "trace_header.h"

#define NSAMPLES	3000
#define MAXCH		256

static uint8_t *file;		/* a clean trace of NSAMPLES samples + FINISH */
static size_t file_len, data_off;
static size_t ch_off[MAXCH + 1];	/* chunk k starts at ch_off[k]; ch_off[nch] = file_len */
static uint32_t ch_nr[MAXCH], ch_csize[MAXCH];
static size_t nch;

static int diags;
static char diag_msg[8][1024];

static void save_diag(void *arg, const char *msg)
{
	(void)arg;
	if (diags < 8)
		snprintf(diag_msg[diags], sizeof(diag_msg[0]), "%s", msg);
	diags++;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static int build_trace(void **state)
{
	/* the damage cases below count deflated RECORDS chunks: no summaries */
	struct trace_writer_opts o = { .level = 1, .chunk_size = 2048,
					.codec = PMIPROF_TRACE_CODEC_DEFLATE, .no_summary = true };
	char path[] = "/tmp/pmiprof-damage.XXXXXX";
	struct trace_finish fin = { .samples = NSAMPLES };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	uint32_t hsize;
	int fd = mkstemp(path), err = 0;

	(void)state;
	if (fd < 0)
		return -1;
	tgen_header(&h);
	if (trace_writer_fdopen(&w, fd, &h, &o))
		return -1;
	for (uint64_t i = 0; i < NSAMPLES && !err; i++) {
		tgen_stream_sample(11, i, &s);
		err = trace_write_sample(w, &s);
	}
	fin.time = s.time;
	if (err || trace_write_finish(w, &fin) || trace_writer_close(w))
		return -1;
	file = slurp(path, &file_len);
	unlink(path);
	if (!file)
		return -1;
	memcpy(&hsize, file + 12, 4);
	data_off = 32 + hsize;
	for (size_t off = data_off; off < file_len; nch++) {
		struct pmiprof_chunk_header ch;

		if (nch == MAXCH)
			return -1;
		memcpy(&ch, file + off, sizeof(ch));
		ch_off[nch] = off;
		ch_nr[nch] = ch.nr_records;
		ch_csize[nch] = ch.csize;
		off += sizeof(ch) + ch.csize;
	}
	ch_off[nch] = file_len;
	return nch >= 8 ? 0 : -1;	/* the tests below need several chunks */
}

static int free_trace(void **state)
{
	(void)state;
	free(file);
	return 0;
}

/* Index of the first record of chunk k (records are samples, then FINISH). */
static uint64_t first_rec(size_t k)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k; i++)
		n += ch_nr[i];
	return n;
}

struct outcome {
	uint64_t recs;			/* records returned other than synthesized LOST */
	uint64_t lost_recs;		/* synthesized LOST records */
	struct trace_record last_lost;
	uint64_t bad_values;		/* samples that differ from the generator */
	int ret;			/* last trace_reader_next() result */
};

/* Read a whole (possibly damaged) buffer, checking samples by their index. */
static struct outcome read_all(const uint8_t *buf, size_t len, const struct trace_read_stats **st,
			       struct trace_reader **rp)
{
	struct outcome o = { 0 };
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample want;
	uint64_t idx = 0;
	uint32_t seq = UINT32_MAX;
	int guard = 0;

	diags = 0;
	assert_int_equal(trace_reader_open_mem(&r, buf, len, "t.data", save_diag, NULL), 0);
	while ((o.ret = trace_reader_next(r, &rec)) == 1 && guard++ < 10 * NSAMPLES) {
		if (rec.type == PMIPROF_REC_LOST && rec.lost.cpu == PMIPROF_CPU_NONE) {
			o.lost_recs++;
			o.last_lost = rec;
			continue;
		}
		o.recs++;
		if (rec.chunk_seq != seq) {	/* the generator index of this chunk's first */
			seq = rec.chunk_seq;
			idx = first_rec(seq);
		}
		if (rec.type == PMIPROF_REC_SAMPLE) {
			tgen_stream_sample(11, idx, &want);
			o.bad_values += memcmp(&want.time, &rec.sample.time, 16) != 0 ||
					rec.sample.counts[1] != want.counts[1];
		}
		idx++;
	}
	assert_true(guard <= 10 * NSAMPLES);
	*st = trace_reader_stats(r);
	*rp = r;
	return o;
}

static void cut_at_every_chunk_boundary_reads_complete_chunks(void **state)
{
	(void)state;
	for (size_t k = 0; k <= nch; k++) {
		const struct trace_read_stats *st;
		struct trace_reader *r;
		struct outcome o = read_all(file, ch_off[k], &st, &r);

		assert_int_equal(o.ret, 0);
		assert_int_equal(o.recs, first_rec(k));
		assert_int_equal(o.lost_recs, 0);
		assert_int_equal(o.bad_values, 0);
		assert_int_equal(st->chunks_ok, k);
		assert_int_equal(st->chunks_bad, 0);
		assert_false(st->truncated);
		assert_int_equal(st->finished, k == nch);	/* a cut shows as no FINISH */
		assert_int_equal(diags, 0);
		trace_reader_close(r);
	}
}

static void cut_inside_a_chunk_reports_the_loss(void **state)
{
	(void)state;
	for (size_t k = 0; k < nch; k++) {
		size_t cuts[] = { 1, 31, 32, 33, 32 + ch_csize[k] / 2, 32 + ch_csize[k] - 1 };

		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			size_t cut = ch_off[k] + cuts[c];
			bool in_header = cuts[c] < 32;
			const struct trace_read_stats *st;
			struct trace_reader *r;
			struct outcome o = read_all(file, cut, &st, &r);
			char want[1024];

			assert_int_equal(o.ret, 0);
			assert_int_equal(o.recs, first_rec(k));
			assert_int_equal(o.bad_values, 0);
			assert_int_equal(o.lost_recs, 1);
			assert_int_equal(o.last_lost.lost.reason, PMIPROF_LOST_TRUNCATED);
			assert_int_equal(o.last_lost.lost.count, in_header ? 0 : ch_nr[k]);
			assert_true(st->truncated);
			assert_int_equal(st->chunks_ok, k);
			assert_int_equal(st->chunks_bad, 1);
			assert_int_equal(st->records_lost, in_header ? 0 : ch_nr[k]);
			assert_int_equal(st->bytes_skipped, cuts[c]);
			assert_int_equal(diags, 1);
			if (in_header)
				snprintf(want, sizeof(want), "t.data: offset %zu: file ends inside a "
					 "chunk header (%zu of 32 bytes): the trace was cut short; "
					 "records in it are lost", ch_off[k], cuts[c]);
			else
				snprintf(want, sizeof(want), "t.data: offset %zu: chunk %zu: file "
					 "ends inside the chunk (%zu of %u payload bytes): the trace "
					 "was cut short; %u records lost", ch_off[k], k, cuts[c] - 32,
					 ch_csize[k], ch_nr[k]);
			assert_string_equal(diag_msg[0], want);
			trace_reader_close(r);
		}
	}
}

static void cut_file_on_disk_reads_like_memory(void **state)
{
	char path[] = "/tmp/pmiprof-cut.XXXXXX";
	struct trace_reader *r;
	struct trace_record rec;
	size_t cut = ch_off[3] + 100;
	uint64_t n = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, file, cut), (ssize_t)cut);
	close(fd);
	diags = 0;
	assert_int_equal(trace_reader_open(&r, path, save_diag, NULL), 0);
	while (trace_reader_next(r, &rec) == 1)
		n++;
	assert_int_equal(n, first_rec(3) + 1);	/* + the LOST record */
	assert_int_equal(rec.type, PMIPROF_REC_LOST);
	assert_true(trace_reader_stats(r)->truncated);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(diag_msg[0], path));
	trace_reader_close(r);
	unlink(path);
}

static void flipped_payload_byte_names_chunk_and_offset_and_reading_continues(void **state)
{
	uint8_t *copy = malloc(file_len);

	(void)state;
	assert_non_null(copy);
	for (size_t k = 0; k < nch; k++) {
		const struct trace_read_stats *st;
		struct trace_reader *r;
		struct outcome o;
		char want[256];

		memcpy(copy, file, file_len);
		copy[ch_off[k] + 32 + ch_csize[k] / 3] ^= 0x04;
		o = read_all(copy, file_len, &st, &r);
		assert_int_equal(o.ret, 0);
		assert_int_equal(o.recs, first_rec(nch) - ch_nr[k]);
		assert_int_equal(o.bad_values, 0);	/* every other chunk exact */
		assert_int_equal(o.lost_recs, 1);
		assert_int_equal(o.last_lost.lost.reason, PMIPROF_LOST_UNREADABLE);
		assert_int_equal(o.last_lost.lost.count, ch_nr[k]);
		assert_int_equal(o.last_lost.chunk_seq, k);
		assert_int_equal(st->chunks_bad, 1);
		assert_int_equal(st->chunks_ok, nch - 1);
		assert_int_equal(st->records_lost, ch_nr[k]);
		assert_int_equal(diags, 1);
		snprintf(want, sizeof(want), "t.data: offset %zu: chunk %zu: payload CRC mismatch "
			 "(stored ", ch_off[k], k);
		assert_memory_equal(diag_msg[0], want, strlen(want));
		snprintf(want, sizeof(want), "); %u records lost", ch_nr[k]);
		assert_string_equal(diag_msg[0] + strlen(diag_msg[0]) - strlen(want), want);
		trace_reader_close(r);
	}
	free(copy);
}

static void damaged_chunk_header_resyncs_on_the_next_chunk(void **state)
{
	uint8_t *copy = malloc(file_len);

	(void)state;
	assert_non_null(copy);
	for (size_t k = 0; k < nch; k++) {
		for (int field = 0; field < 2; field++) {
			const struct trace_read_stats *st;
			struct trace_reader *r;
			struct outcome o;
			char want[256];

			memcpy(copy, file, file_len);
			copy[ch_off[k] + (field ? 8 : 1)] ^= 0x01;	/* seq, or magic */
			o = read_all(copy, file_len, &st, &r);
			assert_int_equal(o.ret, 0);
			assert_int_equal(o.bad_values, 0);
			assert_int_equal(o.lost_recs, 1);
			assert_int_equal(o.last_lost.lost.reason, PMIPROF_LOST_UNREADABLE);
			assert_int_equal(o.last_lost.lost.count, 0);	/* unknown */
			/* the damaged chunk's samples are missing; the indexes shift */
			assert_int_equal(o.recs, first_rec(nch) - ch_nr[k]);
			assert_int_equal(st->chunks_bad, 1);
			assert_int_equal(st->chunks_ok, nch - 1);
			assert_int_equal(st->bytes_skipped, ch_off[k + 1] - ch_off[k]);
			assert_int_equal(diags, 1);
			if (k + 1 < nch)
				snprintf(want, sizeof(want), "t.data: offset %zu: damaged chunk header "
					 "(%s); skipped %zu bytes to the next chunk at offset %zu",
					 ch_off[k], field ? "header CRC mismatch" : "bad magic",
					 ch_off[k + 1] - ch_off[k], ch_off[k + 1]);
			else
				snprintf(want, sizeof(want), "t.data: offset %zu: damaged chunk header "
					 "(%s); no further chunk found, %zu bytes skipped", ch_off[k],
					 field ? "header CRC mismatch" : "bad magic",
					 ch_off[k + 1] - ch_off[k]);
			assert_string_equal(diag_msg[0], want);
			trace_reader_close(r);
		}
	}
	free(copy);
}

static void garbage_between_chunks_is_skipped(void **state)
{
	const size_t junk = 100;
	uint8_t *copy = malloc(file_len + junk);
	const struct trace_read_stats *st;
	struct trace_reader *r;
	struct outcome o;
	char want[256];

	(void)state;
	assert_non_null(copy);
	memcpy(copy, file, ch_off[4]);
	memset(copy + ch_off[4], 0xee, junk);
	memcpy(copy + ch_off[4] + 10, "CHNK", 4);	/* a false magic to resync past */
	memcpy(copy + ch_off[4] + junk, file + ch_off[4], file_len - ch_off[4]);
	o = read_all(copy, file_len + junk, &st, &r);
	assert_int_equal(o.recs, first_rec(nch));	/* nothing real was lost */
	assert_int_equal(o.bad_values, 0);
	assert_int_equal(o.lost_recs, 1);
	assert_int_equal(st->bytes_skipped, junk);
	assert_int_equal(st->chunks_ok, nch);
	snprintf(want, sizeof(want), "t.data: offset %zu: damaged chunk header (bad magic); "
		 "skipped %zu bytes to the next chunk at offset %zu", ch_off[4], junk,
		 ch_off[4] + junk);
	assert_string_equal(diag_msg[0], want);
	trace_reader_close(r);
	free(copy);
}

/* cat a a: the second trace is not read, and said so (not merged). */
static void concatenated_trace_stops_at_its_prologue(void **state)
{
	uint8_t *copy = malloc(2 * file_len);
	const struct trace_read_stats *st;
	struct trace_reader *r;
	struct outcome o;
	char want[256];

	(void)state;
	assert_non_null(copy);
	memcpy(copy, file, file_len);
	memcpy(copy + file_len, file, file_len);
	o = read_all(copy, 2 * file_len, &st, &r);
	assert_int_equal(o.recs, first_rec(nch));	/* the first trace, once */
	assert_int_equal(o.bad_values, 0);
	assert_int_equal(o.lost_recs, 0);
	assert_int_equal(st->chunks_ok, nch);
	assert_int_equal(st->chunks_bad, 0);
	assert_int_equal(st->bytes_skipped, 0);
	assert_int_equal(st->second_trace_at, file_len);
	assert_int_equal(st->second_trace_bytes, file_len);
	assert_int_equal(diags, 1);
	snprintf(want, sizeof(want), "t.data: offset %zu: a second pmiprof trace starts here "
		 "(files concatenated?): only the first recording is read; its %zu bytes are "
		 "ignored (split the file to read it)", file_len, file_len);
	assert_string_equal(diag_msg[0], want);
	trace_reader_close(r);

	/* the first cut inside its last chunk: that chunk is lost, b still not read */
	memmove(copy + ch_off[nch - 1] + 40, copy + file_len, file_len);
	o = read_all(copy, ch_off[nch - 1] + 40 + file_len, &st, &r);
	assert_int_equal(o.recs, first_rec(nch - 1));
	assert_int_equal(st->chunks_bad, 1);
	assert_int_equal(st->records_lost, ch_nr[nch - 1]);
	assert_int_equal(st->second_trace_at, ch_off[nch - 1] + 40);
	assert_int_equal(st->bytes_skipped, 40);
	trace_reader_close(r);
	free(copy);
}

/* Every single-bit flip in the committed fixture is caught (or meaningless). */
static void every_bit_flip_is_detected(void **state)
{
	char path[4200];
	const char *top = getenv("PMIPROF_TOP");
	size_t len;
	uint8_t *fx, *copy;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/fixtures/v1-basic.pmiprof", top ? top : ".");
	fx = slurp(path, &len);
	assert_non_null(fx);
	copy = malloc(len);
	assert_non_null(copy);
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			struct trace_reader *r;
			struct trace_record rec;
			int ret, guard = 0;

			memcpy(copy, fx, len);
			copy[i] ^= (uint8_t)(1u << bit);
			diags = 0;
			ret = trace_reader_open_mem(&r, copy, len, "fx", save_diag, NULL);
			/* minor version, flags and reserved are not checked (yet) */
			if ((i >= 10 && i < 12) || (i >= 20 && i < 32)) {
				assert_int_equal(ret, 0);
				trace_reader_close(r);
				continue;
			}
			if (ret) {
				assert_true(i < 32 + 580);	/* only prologue/header fail open */
				assert_int_equal(diags, 1);
				continue;
			}
			while ((ret = trace_reader_next(r, &rec)) == 1)
				assert_true(++guard < 1000);
			assert_int_equal(ret, 0);
			assert_true(trace_reader_stats(r)->chunks_bad >= 1);
			assert_true(diags >= 1);
			trace_reader_close(r);
		}
	}
	free(copy);
	free(fx);
}

/* ---- hand-made chunks: valid CRCs around malformed content ---- */

static size_t put_chunk(uint8_t *out, uint16_t type, uint16_t flags, uint32_t seq, uint32_t nr,
			const void *payload, uint32_t csize, uint32_t usize)
{
	struct pmiprof_chunk_header ch = {
		.magic = PMIPROF_CHUNK_MAGIC, .type = type, .flags = flags, .seq = seq,
		.nr_records = nr, .usize = usize, .csize = csize,
	};

	ch.payload_crc = (uint32_t)crc32(0, payload, csize);
	ch.header_crc = (uint32_t)crc32(0, (const uint8_t *)&ch, 28);
	memcpy(out, &ch, sizeof(ch));
	memcpy(out + sizeof(ch), payload, csize);
	return sizeof(ch) + csize;
}

/* One good LOST record: type 6, size 4, time 2 (zigzag 4), cpu 1, reason 1, count 9. */
static const uint8_t good_lost[] = { 6, 4, 4, 1, 1, 9 };

static uint16_t bad_chunk_type = PMIPROF_CHUNK_RECORDS;	/* of expect_bad_chunk()'s chunk */

static void expect_bad_chunk(const void *payload, uint32_t len, uint32_t nr, uint16_t flags,
			     uint32_t usize, const char *want_tail, uint64_t want_good,
			     uint64_t want_lost_count)
{
	static uint8_t buf[1 << 16];
	const struct trace_read_stats *st;
	struct trace_reader *r;
	struct trace_record rec;
	uint64_t good = 0, lost = 0;
	size_t n = data_off;
	int ret;

	memcpy(buf, file, data_off);
	n += put_chunk(buf + n, bad_chunk_type, flags, 0, nr, payload, len, usize);
	n += put_chunk(buf + n, PMIPROF_CHUNK_RECORDS, 0, 1, 1, good_lost, sizeof(good_lost),
		       sizeof(good_lost));
	diags = 0;
	assert_int_equal(trace_reader_open_mem(&r, buf, n, "m", save_diag, NULL), 0);
	while ((ret = trace_reader_next(r, &rec)) == 1) {
		if (rec.type == PMIPROF_REC_LOST && rec.lost.cpu == PMIPROF_CPU_NONE) {
			lost++;
			assert_int_equal(rec.lost.count, want_lost_count);
			assert_int_equal(rec.lost.reason, PMIPROF_LOST_UNREADABLE);
		} else {
			good++;
		}
	}
	assert_int_equal(ret, 0);
	st = trace_reader_stats(r);
	assert_int_equal(good, want_good + 1);	/* + the LOST of the next good chunk */
	assert_int_equal(lost, 1);
	assert_int_equal(st->chunks_bad, 1);
	assert_int_equal(st->chunks_ok, 1);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(diag_msg[0], want_tail));
	assert_memory_equal(diag_msg[0], "m: offset ", 10);
	trace_reader_close(r);
}

static void malformed_payloads_with_valid_crc_are_reported(void **state)
{
	/* sample: same-mask 0x0f, time, ip; nr 0 => 3 bytes; declares 5 */
	static const uint8_t past_end[] = { 6, 4, 4, 1, 1, 9, 1, 5, 0x0f, 0, 0 };
	/* sample with nr = 5 (> 4 events): mask 0x07 (nr given) */
	static const uint8_t too_many_counts[] = { 1, 9, 0x07, 5, 0, 0, 1, 1, 1, 1, 1 };
	/* a comm whose string length exceeds the record */
	static const uint8_t long_str[] = { 3, 5, 0, 1, 1, 0, 50 };
	/* a varint that never ends inside the record */
	static const uint8_t endless[] = { 5, 3, 0xff, 0xff, 0xff };
	/* flags wider than 32 bits, then an nr far too big (a fuzzer find) */
	static const uint8_t wide_flags[] = { 1, 9, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20,
					      0xff, 0x7f };
	static const uint8_t garbage[] = { 0x78, 0x9c, 1, 2, 3, 4, 5, 6 };
	uint8_t two_lost[sizeof(good_lost) * 2];

	(void)state;
	memcpy(two_lost, good_lost, sizeof(good_lost));
	memcpy(two_lost + sizeof(good_lost), good_lost, sizeof(good_lost));
	expect_bad_chunk(past_end, sizeof(past_end), 2, 0, sizeof(past_end),
			 "chunk 0: record 1 at payload byte 6: record size runs past the end of "
			 "the chunk; 1 of 2 records lost", 1, 1);
	expect_bad_chunk(too_many_counts, sizeof(too_many_counts), 1, 0, sizeof(too_many_counts),
			 "sample has more counts than the header has events; 1 of 1 records lost",
			 0, 1);
	expect_bad_chunk(wide_flags, sizeof(wide_flags), 1, 0, sizeof(wide_flags),
			 "32-bit field out of range", 0, 1);
	expect_bad_chunk(long_str, sizeof(long_str), 1, 0, sizeof(long_str),
			 "string length exceeds the record", 0, 1);
	expect_bad_chunk(endless, sizeof(endless), 1, 0, sizeof(endless),
			 "record body ends inside a number", 0, 1);
	expect_bad_chunk(two_lost, sizeof(two_lost), 3, 0, sizeof(two_lost),
			 "payload ends after 2 records, header says 3; 1 of 3 records lost", 2, 1);
	expect_bad_chunk(two_lost, sizeof(two_lost), 1, 0, sizeof(two_lost),
			 "more records than the chunk header says; 0 of 1 records lost", 1, 0);
	expect_bad_chunk(garbage, sizeof(garbage), 4, PMIPROF_CHUNK_F_DEFLATE, 100,
			 "chunk 0: corrupt deflate payload", 0, 4);
	expect_bad_chunk(good_lost, sizeof(good_lost), 1, 0, 7,
			 "stored payload of 6 bytes but header says 7 uncompressed", 0, 1);
}

/* 1.4 RECORDS2: a packed SAMPLE has no size, so its own fields must end inside the chunk. */
static void malformed_packed_samples_are_reported(void **state)
{
	/* LOST, then a SAMPLE (same all, ip slot 0): dt 1, ip delta cut by the chunk end */
	static const uint8_t cut[] = { 6, 4, 4, 1, 1, 9, 1, 0x0f, 0x02, 0x80 };
	/* mask bit 7: a stack ref follows, but no STACK came before it */
	static const uint8_t no_stack[] = { 1, 0x8f, 0, 0, 1 };
	/* mask bit 7 and the chunk ends before the stack ref */
	static const uint8_t ref_cut[] = { 1, 0x8f, 0, 0 };

	(void)state;
	bad_chunk_type = PMIPROF_CHUNK_RECORDS2;
	expect_bad_chunk(cut, sizeof(cut), 2, 0, sizeof(cut),
			 "chunk 0: record 1 at payload byte 6: record body ends inside a number; "
			 "1 of 2 records lost", 1, 1);
	expect_bad_chunk(no_stack, sizeof(no_stack), 1, 0, sizeof(no_stack),
			 "sample refers to a stack not defined before it in the chunk", 0, 1);
	expect_bad_chunk(ref_cut, sizeof(ref_cut), 1, 0, sizeof(ref_cut),
			 "record body ends inside a number", 0, 1);
	bad_chunk_type = PMIPROF_CHUNK_RECORDS;
}

/* 1.4 RECORDS3: the MORE byte, the ip table index and the context's fields end inside the chunk. */
static void malformed_context_samples_are_reported(void **state)
{
	/* mask 0x0c (context 0, same flags, MORE), then a MORE bit this reader does not know */
	static const uint8_t unknown_more[] = { 1, 0x0c, 0x08, 0 };
	/* ip slot 0, u odd: the ip table, index 65: past the 64 entries and the escape (64) */
	static const uint8_t table_index[] = { 1, 0x04, 0, 0x83, 0x01 };
	/* the chunk ends where the MORE byte should be */
	static const uint8_t more_cut[] = { 6, 4, 4, 1, 1, 9, 1, 0x08 };
	/* MORE: thread; pid given, tid cut by the chunk end */
	static const uint8_t tid_cut[] = { 1, 0x0c, 0x01, 5, 0x80 };

	(void)state;
	bad_chunk_type = PMIPROF_CHUNK_RECORDS3;
	expect_bad_chunk(unknown_more, sizeof(unknown_more), 1, 0, sizeof(unknown_more),
			 "sample has fields this reader does not know", 0, 1);
	expect_bad_chunk(table_index, sizeof(table_index), 1, 0, sizeof(table_index),
			 "sample names an ip table entry beyond the table", 0, 1);
	expect_bad_chunk(more_cut, sizeof(more_cut), 2, 0, sizeof(more_cut),
			 "chunk 0: record 1 at payload byte 6: record body ends inside a number; "
			 "1 of 2 records lost", 1, 1);
	expect_bad_chunk(tid_cut, sizeof(tid_cut), 1, 0, sizeof(tid_cut),
			 "record body ends inside a number", 0, 1);
	bad_chunk_type = PMIPROF_CHUNK_RECORDS;
}

/* Re-seal every chunk of a damaged trace, so that the damage reaches the decoder. */
static void reseal_chunks(uint8_t *b, size_t len, size_t off)
{
	struct pmiprof_chunk_header ch;

	while (off + sizeof(ch) <= len) {
		memcpy(&ch, b + off, sizeof(ch));
		if (ch.magic != PMIPROF_CHUNK_MAGIC || ch.csize > len - off - sizeof(ch))
			return;
		ch.payload_crc = (uint32_t)crc32(0, b + off + sizeof(ch), ch.csize);
		ch.header_crc = (uint32_t)crc32(0, (const uint8_t *)&ch, 28);
		memcpy(b + off, &ch, sizeof(ch));
		off += sizeof(ch) + ch.csize;
	}
}

/*
 * Random byte changes inside the samples of six interleaved threads (CRCs
 * made good again), and the file cut at every byte: reading never crashes,
 * never reads outside the buffer, and every chunk is either read or counted
 * as bad.  Returns how many damaged copies had a diag containing what.
 */
static size_t damage_and_cut(int (*write)(const char *path), size_t rounds, const char *what)
{
	char path[] = "/tmp/pmiprof-damage3.XXXXXX";
	const struct trace_read_stats *st;
	uint64_t rng = 12345;
	struct trace_reader *r;
	struct trace_record rec;
	size_t len, off, i, bad = 0, cut = 0, seen = 0;
	uint8_t *clean, *b;
	uint32_t hsize;
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write(path), 0);
	clean = slurp(path, &len);
	unlink(path);
	assert_non_null(clean);
	memcpy(&hsize, clean + 12, 4);
	off = 32 + hsize;
	b = malloc(len);
	assert_non_null(b);
	for (i = 0; i < rounds; i++) {
		size_t at;

		memcpy(b, clean, len);
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		at = off + 32 + (rng >> 33) % (len - off - 32);
		b[at] ^= (uint8_t)(1 + (rng >> 20) % 255);
		reseal_chunks(b, len, off);
		diags = 0;
		assert_int_equal(trace_reader_open_mem(&r, b, len, "m", save_diag, NULL), 0);
		while ((ret = trace_reader_next(r, &rec)) == 1)
			;
		assert_int_equal(ret, 0);
		st = trace_reader_stats(r);
		assert_true(st->chunks_ok + st->chunks_bad >= 1);
		assert_int_equal(diags > 0, st->chunks_bad > 0);
		bad += st->chunks_bad > 0;
		for (int k = 0; k < diags && k < 8; k++)
			if (strstr(diag_msg[k], what)) {
				seen++;
				break;
			}
		trace_reader_close(r);
	}
	assert_true(bad > 0);	/* the decoder did see damage */
	for (len--; len > off; len--) {
		memcpy(b, clean, len);
		assert_int_equal(trace_reader_open_mem(&r, b, len, "m", NULL, NULL), 0);
		while ((ret = trace_reader_next(r, &rec)) == 1)
			;
		assert_int_equal(ret, 0);
		cut += trace_reader_stats(r)->truncated;
		trace_reader_close(r);
	}
	assert_true(cut > 0);	/* (a cut at a chunk boundary leaves a shorter, clean file) */
	free(b);
	free(clean);
	return seen;
}

/* RECORDS3: thread contexts, ip table. */
static void damaged_context_samples_are_counted(void **state)
{
	(void)state;
	assert_true(damage_and_cut(tgen_write_threads, 3000, "record body ends") > 0);
}

/*
 * RECORDS4: the same samples in columns; damage reaches the stream table
 * (sizes that do not add up) and the streams (a number running past its
 * stream's end).
 */
static void damaged_column_samples_are_counted(void **state)
{
	(void)state;
	assert_true(damage_and_cut(tgen_write_columns, 4000, "column stream") > 0);
	assert_true(damage_and_cut(tgen_write_columns, 4000, "column table") > 0);
	assert_true(damage_and_cut(tgen_write_columns, 4000, "sample's column stream ends") > 0);
}

/* A predictor naming the event itself or a later one cannot be decoded: the header is refused. */
static void bad_count_predictor_refuses_the_trace(void **state)
{
	struct pmiprof_file_prologue pro = {
		.magic = PMIPROF_TRACE_MAGIC, .version_major = 1, .version_minor = 4,
	};
	struct trace_writer_opts o = { .level = 0 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	uint8_t *hbuf, buf[8192];
	size_t hlen;
	char path[] = "/tmp/pmiprof-pred.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	tgen_header(&h);
	h.predict[1] = PMIPROF_PREDICT_EVENT + 2;	/* event 1 from event 2: not decoded yet */
	assert_int_equal(trace_writer_open(&w, path, &h, &o), -EINVAL);
	unlink(path);
	assert_int_equal(trace_header_encode(&h, &hbuf, &hlen), 0);
	assert_true(sizeof(pro) + hlen <= sizeof(buf));
	pro.header_size = (uint32_t)hlen;
	pro.header_crc = (uint32_t)crc32(0, hbuf, (uInt)hlen);
	memcpy(buf, &pro, sizeof(pro));
	memcpy(buf + sizeof(pro), hbuf, hlen);
	free(hbuf);
	diags = 0;
	assert_int_equal(trace_reader_open_mem(&r, buf, sizeof(pro) + hlen, "p", save_diag, NULL),
			 -EBADMSG);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(diag_msg[0], "event 1 predicted by 4: not the previous count, "
				"the time step or an earlier event"));
}

static void unknown_record_and_chunk_types_are_skipped(void **state)
{
	/* LOST, unknown type 77 with a 3-byte body, type 0 (empty), LOST */
	static const uint8_t recs[] = { 6, 4, 4, 1, 1, 9, 77, 3, 0xff, 0xff, 0xff, 0, 0,
					6, 4, 4, 2, 2, 8 };
	static uint8_t buf[1 << 12];
	struct trace_reader *r;
	struct trace_record rec;
	size_t n = data_off;

	(void)state;
	memcpy(buf, file, data_off);
	n += put_chunk(buf + n, 9, 0, 0, 1, "future", 6, 6);	/* a later chunk type */
	n += put_chunk(buf + n, PMIPROF_CHUNK_RECORDS, 0, 1, 4, recs, sizeof(recs), sizeof(recs));
	diags = 0;
	assert_int_equal(trace_reader_open_mem(&r, buf, n, "u", save_diag, NULL), 0);
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_LOST);
	assert_int_equal(rec.lost.count, 9);
	assert_int_equal(rec.lost.time, 2);
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_LOST);
	assert_int_equal(rec.lost.count, 8);
	assert_int_equal(rec.lost.time, 4);	/* delta state carried across the skip */
	assert_int_equal(rec.lost.reason, 2);
	assert_int_equal(trace_reader_next(r, &rec), 0);
	assert_int_equal(trace_reader_stats(r)->records_unknown, 2);
	assert_int_equal(trace_reader_stats(r)->chunks_ok, 1);
	assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(malformed_packed_samples_are_reported),
		cmocka_unit_test(malformed_context_samples_are_reported),
		cmocka_unit_test(damaged_context_samples_are_counted),
		cmocka_unit_test(damaged_column_samples_are_counted),
		cmocka_unit_test(bad_count_predictor_refuses_the_trace),
		cmocka_unit_test(cut_at_every_chunk_boundary_reads_complete_chunks),
		cmocka_unit_test(cut_inside_a_chunk_reports_the_loss),
		cmocka_unit_test(cut_file_on_disk_reads_like_memory),
		cmocka_unit_test(flipped_payload_byte_names_chunk_and_offset_and_reading_continues),
		cmocka_unit_test(damaged_chunk_header_resyncs_on_the_next_chunk),
		cmocka_unit_test(garbage_between_chunks_is_skipped),
		cmocka_unit_test(concatenated_trace_stops_at_its_prologue),
		cmocka_unit_test(every_bit_flip_is_detected),
		cmocka_unit_test(malformed_payloads_with_valid_crc_are_reported),
		cmocka_unit_test(unknown_record_and_chunk_types_are_skipped),
	};

	return cmocka_run_group_tests(tests, build_trace, free_trace);
}
