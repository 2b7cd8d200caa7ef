// SPDX-License-Identifier: GPL-2.0
/*
 * Trace format 1.3 call stacks: STACK/USTACK records and SAMPLE.stack.
 * Random streams round-trip through the writer's per-chunk interning (every
 * sample reads back its own frames and user stack, ids dense per chunk, a
 * USTACK never parted from its sample by a chunk end, maximal records fit);
 * the writer refuses what the format cannot hold; and damaged stack records
 * with valid CRCs (ids out of range or sequence, counts over the limits,
 * USTACK flags, word sizes and masks, cut bodies) are reported as damage,
 * never crash.  USTACKs cover both codec forms: fp-like word stacks (deltas,
 * zero words, ip taken from the sample) and raw dwarf-like bytes.
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
#include "trace_codec.h"
#include "trace_gen.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char *tmp_path(void)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/pmiprof-stacks.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

/* ---- random round trip ---- */

#define POOL	40

struct pstack {
	uint32_t nr, nr_kernel;
	uint64_t ips[PMIPROF_MAX_STACK];
};

static struct pstack pool[POOL];

static void make_pool(void)
{
	unsigned int i, k;

	for (i = 0; i < POOL; i++) {
		struct pstack *p = &pool[i];

		/* mostly short stacks; a few at the limit */
		p->nr = i == 0 ? PMIPROF_MAX_STACK : i == 1 ? 1 : (uint32_t)(rnd() % 40) + 1;
		p->nr_kernel = i % 3 == 0 ? (uint32_t)(rnd() % (p->nr + 1)) : 0;
		for (k = 0; k < p->nr; k++)
			p->ips[k] = k < p->nr_kernel ? 0xffffffff81000000ull + (rnd() & 0xffffff) :
				    i % 4 == 0 ? rnd() : 0x555555554000ull + (rnd() & 0xfffff);
	}
}

struct expect {
	int stack;		/* pool index or -1 */
	uint32_t ustack;	/* bytes, UINT32_MAX = none */
};

/*
 * Sample i's user stack of size bytes.  Sizes up to 64 in whole words take
 * the codec's word form: fp-like bp, sp, ip (ip mostly the sample's), zero
 * words and return addresses that repeat across samples at one index.
 */
static void ustack_of(unsigned int i, uint32_t size, uint64_t ip, uint64_t *regs, uint8_t *data,
		      struct trace_ustack *u)
{
	bool words = size <= 64 && size % 8 == 0;
	uint32_t k;

	u->abi = 2;
	u->regs_mask = words && i % 5 ? 0x1c0 : i % 2 ? 0xff0fffull : 0x1c0;
	u->nr_regs = (uint32_t)__builtin_popcountll(u->regs_mask);
	for (k = 0; k < u->nr_regs; k++)
		regs[k] = 0x7ffd00000000ull + i * 64 + k;
	if (u->regs_mask == 0x1c0 && i % 3)
		regs[2] = ip;
	for (k = 0; k < size; k++)
		data[k] = (uint8_t)(i * 7 + k * 13);
	for (k = 0; words && k < size / 8; k++) {
		uint64_t w = (i + k) % 3 == 0 ? 0 : (i + k) % 3 == 1 ? 0x555555555000ull + k * 0x10 :
			     ~(uint64_t)i * 0x9e3779b97f4a7c15ull;

		memcpy(data + 8 * k, &w, 8);
	}
	u->regs = regs;
	u->size = size;
	u->data = data;
}

static void roundtrip(int level, uint32_t chunk, unsigned int n)
{
	static uint8_t data[PMIPROF_MAX_USTACK], want_data[PMIPROF_MAX_USTACK];
	struct trace_writer_opts o = { .level = level, .chunk_size = chunk };
	struct expect *ex = calloc(n, sizeof(*ex));
	uint64_t regs[PMIPROF_MAX_UREGS], want_regs[PMIPROF_MAX_UREGS];
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	const char *path = tmp_path();
	uint32_t seq = UINT32_MAX, defined = 0;
	unsigned int i, got = 0, stacks = 0;
	int *chunk_ids = calloc(n + 1, sizeof(int));	/* stack id -> pool index */
	bool after_sample = false;

	assert_non_null(ex);
	assert_non_null(chunk_ids);
	make_pool();
	tgen_header(&h);
	h.call_graph = PMIPROF_CALL_GRAPH_DWARF;
	h.call_graph_dump_size = 8192;
	assert_int_equal(trace_writer_open(&w, path, &h, &o), 0);
	for (i = 0; i < n; i++) {
		uint64_t pick = rnd();
		struct pstack *p;

		tgen_stream_sample(3, i, &s);
		s.stack = 12345;	/* ignored by the writer */
		ex[i].stack = pick % 10 == 0 ? -1 : (int)(pick / 10 % POOL);
		ex[i].ustack = pick % 7 == 0 ? (uint32_t)(rnd() % 600) :
			       pick % 97 == 0 ? PMIPROF_MAX_USTACK :
			       pick % 3 == 0 ? (uint32_t)(rnd() % 9) * 8 : UINT32_MAX;
		p = ex[i].stack >= 0 ? &pool[ex[i].stack] : NULL;
		assert_int_equal(trace_write_sample_stack(w, &s, p ? p->ips : NULL, p ? p->nr : 0,
							  p ? p->nr_kernel : 0), 0);
		if (ex[i].ustack != UINT32_MAX) {
			struct trace_ustack u;

			ustack_of(i, ex[i].ustack, s.ip, regs, data, &u);
			assert_int_equal(trace_write_ustack(w, &u), 0);
		}
	}
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	assert_int_equal(trace_reader_header(r)->call_graph, PMIPROF_CALL_GRAPH_DWARF);
	assert_int_equal(trace_reader_header(r)->call_graph_dump_size, 8192);
	while (trace_reader_next(r, &rec) == 1) {
		if (rec.chunk_seq != seq) {
			seq = rec.chunk_seq;
			defined = 0;
			after_sample = false;
		}
		switch (rec.type) {
		case PMIPROF_REC_STACK: {
			int j;

			assert_int_equal(rec.stack.id, defined);
			/* which pool stack is it? compare with all */
			for (j = 0; j < POOL; j++)
				if (pool[j].nr == rec.stack.nr && pool[j].nr_kernel == rec.stack.nr_kernel &&
				    !memcmp(pool[j].ips, rec.stack.ips, rec.stack.nr * 8))
					break;
			assert_true(j < POOL);
			chunk_ids[defined++] = j;
			stacks++;
			after_sample = false;
			break;
		}
		case PMIPROF_REC_SAMPLE: {
			struct trace_sample want;

			assert_true(got < n);
			tgen_stream_sample(3, got, &want);
			assert_int_equal(rec.sample.ip, want.ip);
			assert_int_equal(rec.sample.time, want.time);
			if (ex[got].stack < 0) {
				assert_int_equal(rec.sample.stack, 0);
			} else {
				assert_true(rec.sample.stack >= 1 && rec.sample.stack <= defined);
				assert_int_equal(chunk_ids[rec.sample.stack - 1], ex[got].stack);
			}
			got++;
			after_sample = true;
			break;
		}
		case PMIPROF_REC_USTACK: {
			struct trace_ustack u;
			struct trace_sample want_s;

			/* same chunk as its sample, right after it */
			assert_true(after_sample);
			assert_true(got >= 1 && ex[got - 1].ustack != UINT32_MAX);
			tgen_stream_sample(3, got - 1, &want_s);
			ustack_of(got - 1, ex[got - 1].ustack, want_s.ip, want_regs, want_data, &u);
			assert_int_equal(rec.ustack.abi, u.abi);
			assert_int_equal(rec.ustack.regs_mask, u.regs_mask);
			assert_int_equal(rec.ustack.nr_regs, u.nr_regs);
			assert_memory_equal(rec.ustack.regs, want_regs, u.nr_regs * 8);
			assert_int_equal(rec.ustack.size, u.size);
			if (u.size)
				assert_memory_equal(rec.ustack.data, want_data, u.size);
			ex[got - 1].ustack = UINT32_MAX;	/* seen */
			after_sample = false;
			break;
		}
		default:
			fail_msg("unexpected record type %u", rec.type);
		}
	}
	assert_int_equal(got, n);
	for (i = 0; i < n; i++)
		assert_int_equal(ex[i].ustack, UINT32_MAX);	/* every USTACK came back */
	assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
	/* interning: far fewer STACK records than samples with stacks (big chunks) */
	if (!chunk)
		assert_true(stacks < n / 2);
	trace_reader_close(r);
	unlink(path);
	free(ex);
	free(chunk_ids);
}

static void random_stacks_roundtrip_deflated(void **state)
{
	(void)state;
	roundtrip(1, 0, 20000);
}

static void random_stacks_roundtrip_small_stored_chunks(void **state)
{
	(void)state;
	/* chunks far smaller than one record: every big record crosses the end */
	roundtrip(0, 4096, 3000);
}

/* One stack repeated: one STACK per chunk, and a sample costs its SAMPLE bytes + 1. */
static void repeated_stack_is_interned_once_per_chunk(void **state)
{
	static const uint64_t ips[6] = { 0x401010, 0x401220, 0x401330, 0x7f0000001000ull,
					 0x7f0000002000ull, 0x401000 };
	struct trace_writer_opts o = { .level = 0, .chunk_size = 1 << 16 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	const char *path = tmp_path();
	unsigned int i, samples = 0, stacks = 0;
	uint64_t chunks;

	(void)state;
	tgen_header(&h);
	assert_int_equal(trace_writer_open(&w, path, &h, &o), 0);
	for (i = 0; i < 50000; i++) {
		tgen_stream_sample(1, i, &s);
		assert_int_equal(trace_write_sample_stack(w, &s, ips, 6, 0), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL), 0);
	while (trace_reader_next(r, &rec) == 1) {
		samples += rec.type == PMIPROF_REC_SAMPLE;
		stacks += rec.type == PMIPROF_REC_STACK;
		if (rec.type == PMIPROF_REC_SAMPLE)
			assert_int_equal(rec.sample.stack, 1);
	}
	chunks = trace_reader_stats(r)->chunks_ok;
	assert_int_equal(samples, 50000);
	assert_true(chunks > 1);
	assert_int_equal(stacks, chunks);
	trace_reader_close(r);
	unlink(path);
}

static void writer_refuses_what_the_format_cannot_hold(void **state)
{
	static uint64_t ips[PMIPROF_MAX_STACK + 1];
	static uint8_t data[PMIPROF_MAX_USTACK + 8];
	uint64_t regs[PMIPROF_MAX_UREGS + 1] = { 0 };
	struct trace_ustack u = { .abi = 2, .nr_regs = 3, .regs_mask = 0x1c0, .regs = regs,
				  .size = 8, .data = data };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	const char *path = tmp_path();

	(void)state;
	tgen_header(&h);
	tgen_stream_sample(1, 0, &s);
	assert_int_equal(trace_writer_open(&w, path, &h, NULL), 0);
	assert_int_equal(trace_write_sample_stack(w, &s, ips, PMIPROF_MAX_STACK + 1, 0), -EINVAL);
	assert_int_equal(trace_write_sample_stack(w, &s, ips, 3, 4), -EINVAL);
	/* a USTACK needs a sample written with trace_write_sample_stack() just before */
	assert_int_equal(trace_write_ustack(w, &u), -EINVAL);
	assert_int_equal(trace_write_sample(w, &s), 0);
	assert_int_equal(trace_write_ustack(w, &u), -EINVAL);
	assert_int_equal(trace_write_sample_stack(w, &s, ips, PMIPROF_MAX_STACK, 1), 0);
	u.nr_regs = 2;
	assert_int_equal(trace_write_ustack(w, &u), -EINVAL);
	u.nr_regs = 3;
	u.size = PMIPROF_MAX_USTACK + 8;
	assert_int_equal(trace_write_ustack(w, &u), -EINVAL);
	u.size = PMIPROF_MAX_USTACK;
	assert_int_equal(trace_write_ustack(w, &u), 0);
	assert_int_equal(trace_write_ustack(w, &u), -EINVAL);	/* one per sample */
	assert_int_equal(trace_writer_close(w), 0);	/* refusals did not harm the trace */
	unlink(path);
}

/* ---- damage with valid CRCs ---- */

/*
 * A stored one-chunk trace: STACK id 0 (3 user frames), SAMPLE with it,
 * USTACK (bp, sp, ip, 16 bytes).  Returns the file and its payload offset.
 */
static uint8_t *small_trace(size_t *len, size_t *payload)
{
	static const uint64_t ips[3] = { 0x401010, 0x401220, 0x401330 };
	/* patched in place below: plain RECORDS chunks only */
	struct trace_writer_opts o = { .level = 0, .no_summary = true, .records3 = true };
	uint64_t regs[3] = { 1, 2, 3 };
	uint8_t data[16] = { 0 };
	struct trace_ustack u = { .abi = 2, .nr_regs = 3, .regs_mask = 0x1c0, .regs = regs,
				  .size = 16, .data = data };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	const char *path = tmp_path();
	uint8_t *buf = malloc(1 << 16);
	uint32_t hsize;
	FILE *f;

	tgen_header(&h);
	tgen_stream_sample(1, 0, &s);
	assert_int_equal(trace_writer_open(&w, path, &h, &o), 0);
	assert_int_equal(trace_write_sample_stack(w, &s, ips, 3, 0), 0);
	assert_int_equal(trace_write_ustack(w, &u), 0);
	assert_int_equal(trace_writer_close(w), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	unlink(path);
	memcpy(&hsize, buf + 12, 4);
	*payload = 32 + hsize + sizeof(struct pmiprof_chunk_header);
	return buf;
}

static void fix_payload_crc(uint8_t *buf, size_t payload, size_t len)
{
	uint32_t crc = (uint32_t)crc32(0, buf + payload, (uInt)(len - payload));

	memcpy(buf + payload - 8, &crc, 4);	/* payload_crc: the chunk header's bytes 24..27 */
	crc = (uint32_t)crc32(0, buf + payload - 32, 28);
	memcpy(buf + payload - 4, &crc, 4);	/* header_crc covers it */
}

static int diags;
static char diag_msg[1024];

static void save_diag(void *arg, const char *msg)
{
	(void)arg;
	diags++;
	snprintf(diag_msg, sizeof(diag_msg), "%s", msg);
}

/* Read the damaged trace: the chunk is reported with `what`, as one loss. */
static void expect_damage(uint8_t *buf, size_t len, const char *what)
{
	struct trace_reader *r;
	struct trace_record rec;
	unsigned int lost = 0;

	diags = 0;
	assert_int_equal(trace_reader_open_mem(&r, buf, len, "t", save_diag, NULL), 0);
	while (trace_reader_next(r, &rec) == 1)
		lost += rec.type == PMIPROF_REC_LOST && rec.lost.reason == PMIPROF_LOST_UNREADABLE;
	assert_int_equal(lost, 1);
	assert_int_equal(diags, 1);
	assert_int_equal(trace_reader_stats(r)->chunks_bad, 1);
	if (!strstr(diag_msg, what))
		fail_msg("diag '%s' does not say '%s'", diag_msg, what);
	trace_reader_close(r);
}

static void damaged_stack_records_are_reported(void **state)
{
	size_t len, pl, stack_rec, sample_rec, ustack_rec;
	uint8_t *clean = small_trace(&len, &pl), *b = malloc(len);
	static const uint8_t pred[PMIPROF_MAX_EVENTS];	/* tgen's hardware events: all PREV */
	struct trace_codec codec = { 0 };
	struct trace_sample s;
	const uint8_t *end = NULL;

	(void)state;
	/*
	 * layout: [10 size id nr nk f f f] [1 mask ... stackref] [11 size abi mask n r r r sz ...]
	 * (a 1.4 packed SAMPLE: no size; the decoder says where it ends)
	 */
	stack_rec = pl;
	assert_int_equal(clean[stack_rec], PMIPROF_REC_STACK);
	sample_rec = stack_rec + 2 + clean[stack_rec + 1];
	assert_int_equal(clean[sample_rec], PMIPROF_REC_SAMPLE);
	assert_true(clean[sample_rec + 1] & TRACE_SAMPLE_STACK);
	codec.nr_stacks = 1;
	assert_null(trace_decode_sample3(&codec, clean + sample_rec + 1, clean + len, clean + len,
					 4, pred, &s, &end));
	ustack_rec = (size_t)(end - clean);
	assert_int_equal(clean[ustack_rec], PMIPROF_REC_USTACK);
	assert_int_equal(clean[ustack_rec - 1], 1);	/* stack ref */

	memcpy(b, clean, len);		/* a ref to a stack never defined */
	b[ustack_rec - 1] = 2;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "sample refers to a stack not defined before it");

	memcpy(b, clean, len);		/* ids must be dense from 0 */
	b[stack_rec + 2] = 1;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "stack id out of sequence");

	memcpy(b, clean, len);		/* more frames than the body holds */
	b[stack_rec + 3] = 100;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "stack longer than the limit or the record");

	memcpy(b, clean, len);		/* more kernel frames than frames */
	b[stack_rec + 4] = 4;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "more kernel frames than frames");

	/* USTACK body: flags abi mask(2) bp sp ip size nonzero (words mode, all zero) */
	assert_int_equal(clean[ustack_rec + 2], 0x04);
	assert_int_equal(clean[ustack_rec + 9], 16);

	memcpy(b, clean, len);		/* flags this version does not know */
	b[ustack_rec + 2] |= 0x40;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "unknown user stack flags");

	memcpy(b, clean, len);		/* ip from the sample, but no ip register */
	b[ustack_rec + 2] |= 0x02;
	b[ustack_rec + 5] = 0;		/* mask 0x1c0 -> 0x40 */
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "sample's ip for a register it does not have");

	memcpy(b, clean, len);		/* words of a size that is not whole words */
	b[ustack_rec + 9] = 12;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "user stack words of a size that is not 8..64");

	memcpy(b, clean, len);		/* more words than 64 bytes */
	b[ustack_rec + 9] = 72;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "user stack words of a size that is not 8..64");

	memcpy(b, clean, len);		/* a nonzero word past the size */
	b[ustack_rec + 10] = 4;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "word mask names words beyond the size");

	memcpy(b, clean, len);		/* a nonzero word cut off by the record end */
	b[ustack_rec + 10] = 1;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "record body ends inside a number");

	memcpy(b, clean, len);		/* raw stack bytes beyond the record */
	b[ustack_rec + 2] = 0;
	b[ustack_rec + 9] = 100;
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "user stack longer than the limit or the record");

	memcpy(b, clean, len);		/* a STACK body cut after its counts */
	b[stack_rec + 1] = 3;
	b[stack_rec + 5] = PMIPROF_REC_MARK;	/* what follows is read as records */
	fix_payload_crc(b, pl, len);
	expect_damage(b, len, "stack longer than the limit or the record");
	free(b);
	free(clean);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_stacks_roundtrip_deflated),
		cmocka_unit_test(random_stacks_roundtrip_small_stored_chunks),
		cmocka_unit_test(repeated_stack_is_interned_once_per_chunk),
		cmocka_unit_test(writer_refuses_what_the_format_cannot_hold),
		cmocka_unit_test(damaged_stack_records_are_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
