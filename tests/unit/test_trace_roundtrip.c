// SPDX-License-Identifier: GPL-2.0
/*
 * Trace writer -> reader round trips: a million realistic samples come back
 * bit-exact, every record type and every header field survive at every
 * compression level and chunk size (including extreme values), so do random
 * sequences of random records with random writer options, bad writer
 * input is refused without harming the file, and a write failure (file size
 * limit, closed pipe) is sticky and leaves the file valid up to its last
 * complete chunk.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "pmiprof/trace.h"
#include "trace_codec.h"
#include "trace_gen.h"
#include "varint.h"

static char tmp_path[64];

static int make_tmp(void **state)
{
	int fd;

	(void)state;
	strcpy(tmp_path, "/tmp/pmiprof-trace-rt.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int drop_tmp(void **state)
{
	(void)state;
	unlink(tmp_path);
	return 0;
}

static int diags;
static char last_diag[1024];

static void count_diag(void *arg, const char *msg)
{
	(void)arg;
	diags++;
	snprintf(last_diag, sizeof(last_diag), "%s", msg);
}

static void assert_sample_equal(const struct trace_sample *a, const struct trace_sample *b)
{
	uint32_t i;

	assert_int_equal(a->time, b->time);
	assert_int_equal(a->ip, b->ip);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->nr, b->nr);
	for (i = 0; i < a->nr; i++)
		assert_int_equal(a->counts[i], b->counts[i]);
}

static bool sample_equal(const struct trace_sample *a, const struct trace_sample *b)
{
	return a->time == b->time && a->ip == b->ip && a->cpu == b->cpu && a->pid == b->pid &&
	       a->tid == b->tid && a->flags == b->flags && a->nr == b->nr &&
	       !memcmp(a->counts, b->counts, sizeof(a->counts));	/* unused counts are 0 */
}

static void million_samples_round_trip_exactly(void **state)
{
	const uint64_t n = 1000000;
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	const struct trace_read_stats *st;
	struct trace_finish fin = { .samples = n };
	uint64_t i, mismatches = 0;

	(void)state;
	tgen_header(&h);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, NULL), 0);
	for (i = 0; i < n; i++) {
		tgen_stream_sample(7, i, &s);
		assert_int_equal(trace_write_sample(w, &s), 0);
	}
	fin.time = s.time + 1;
	assert_int_equal(trace_write_finish(w, &fin), 0);
	assert_int_equal(trace_writer_close(w), 0);

	diags = 0;
	assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(trace_reader_next(r, &rec), 1);
		assert_int_equal(rec.type, PMIPROF_REC_SAMPLE);
		tgen_stream_sample(7, i, &s);
		/* count instead of asserting per field: a million cmocka calls are slow */
		mismatches += !sample_equal(&s, &rec.sample);
	}
	assert_int_equal(mismatches, 0);
	assert_int_equal(trace_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMIPROF_REC_FINISH);
	assert_int_equal(rec.finish.samples, n);
	assert_int_equal(trace_reader_next(r, &rec), 0);
	assert_int_equal(trace_reader_next(r, &rec), 0);	/* EOF is sticky */
	st = trace_reader_stats(r);
	assert_int_equal(st->records, n + 1);
	assert_int_equal(st->chunks_bad, 0);
	assert_true(st->chunks_ok > 10);
	assert_int_equal(st->records_lost, 0);
	assert_false(st->truncated);
	assert_true(st->finished);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

/* Occurrences of the 4 bytes m in the file at path. */
static unsigned int count_in_file(const char *path, const uint8_t m[4])
{
	FILE *f = fopen(path, "rb");
	uint8_t win[4] = { 0 };
	unsigned int n = 0;
	int c;

	assert_non_null(f);
	while ((c = getc(f)) != EOF) {
		memmove(win, win + 1, 3);
		win[3] = (uint8_t)c;
		n += !memcmp(win, m, 4);
	}
	fclose(f);
	return n;
}

/*
 * The file at tmp_path holds exactly samples 0 .. n - 1 of gen, nothing
 * else, and reads without a diagnostic or a bad chunk.
 */
static void reads_back_exactly(uint64_t n, void (*gen)(uint64_t i, struct trace_sample *s))
{
	const struct trace_read_stats *st;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	uint64_t i, mismatches = 0;

	diags = 0;
	assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(trace_reader_next(r, &rec), 1);
		assert_int_equal(rec.type, PMIPROF_REC_SAMPLE);
		gen(i, &s);
		mismatches += !sample_equal(&s, &rec.sample);
	}
	assert_int_equal(mismatches, 0);
	assert_int_equal(trace_reader_next(r, &rec), 0);
	st = trace_reader_stats(r);
	assert_int_equal(st->chunks_bad, 0);
	assert_int_equal(diags, 0);
	trace_reader_close(r);
}

static void stream3_sample(uint64_t i, struct trace_sample *s)
{
	tgen_stream_sample(3, i, s);
}

/*
 * The stream's time and cycle jitter does not compress: the writer stores
 * those RECORDS4 streams as raw zstd frames after the compressed ones, so
 * a chunk's payload is several zstd frames, and every sample reads back.
 */
static void noise_streams_stored_raw_round_trip(void **state)
{
	static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t chunk_magic[4] = { 'C', 'H', 'N', 'K' };
	const struct trace_writer_opts o = { .level = 1, .chunk_size = 128 << 10 };
	const uint64_t n = 300000;
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	uint64_t i;
	unsigned int frames, chunks;

	(void)state;
	tgen_header(&h);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
	for (i = 0; i < n; i++) {
		tgen_stream_sample(3, i, &s);
		assert_int_equal(trace_write_sample(w, &s), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
	frames = count_in_file(tmp_path, zstd_magic);
	chunks = count_in_file(tmp_path, chunk_magic);
	/* one frame per chunk before; now most RECORDS4 chunks hold 4 or more */
	assert_true(chunks > 20);
	assert_true(frames > 2 * chunks);

	reads_back_exactly(n, stream3_sample);
}

/*
 * Sample i of a stream whose event streams each call for one form: a
 * repeating pattern (zstd level 1 finds it, Huffman alone cannot go below
 * a bit a byte), uniform noise (raw), small random residuals without
 * repeats (literals only within a quarter of level 1), a constant.
 */
static void forms_sample(uint64_t i, struct trace_sample *s)
{
	uint64_t r = (i + 1) * 0x9e3779b97f4a7c15ull;

	r ^= r >> 29;
	r *= 0xbf58476d1ce4e5b9ull;
	r ^= r >> 32;
	memset(s, 0, sizeof(*s));
	s->time = 1000000000ull + i * 100000ull;
	s->ip = 0x401000 + (i % 3) * 0x10;
	s->pid = s->tid = 77;
	s->flags = PMIPROF_SAMPLE_F_USER;
	s->nr = 4;
	s->counts[0] = (i % 10) * 3;
	s->counts[1] = r & 0xfffff;
	s->counts[2] = r >> 40 & 15;
	s->counts[3] = 1000;
}

/*
 * The writer stores each RECORDS4 stream in the form its content calls
 * for, judged every few chunks, and every sample reads back exactly.
 */
static void stream_forms_follow_content_and_round_trip(void **state)
{
	const struct trace_writer_opts o = { .level = 1, .chunk_size = 128 << 10 };
	const uint64_t n = 400000;
	struct trace_writer_stats ws;
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	uint64_t i;

	(void)state;
	tgen_header(&h);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
	for (i = 0; i < n; i++) {
		forms_sample(i, &s);
		assert_int_equal(trace_write_sample(w, &s), 0);
	}
	assert_int_equal(trace_writer_flush(w), 0);
	trace_writer_stats(w, &ws);
	assert_int_equal(trace_writer_close(w), 0);
	assert_true(ws.chunks > 16);	/* every stream judged more than once */
	/* per chunk: the pattern and the constant (and IP, MAIN) with matches */
	assert_true(ws.streams_lz >= 2 * ws.chunks);
	/* the uniform counts and the time's constant steps' high bytes: raw */
	assert_true(ws.streams_raw >= ws.chunks - 2);
	/* the small residuals: literals only, but while they were judged */
	assert_true(ws.streams_huf >= ws.chunks - ws.chunks / 16 - 2);

	reads_back_exactly(n, forms_sample);
}

static void header_fields_round_trip(void **state)
{
	struct trace_header h, want;
	struct trace_writer *w;
	struct trace_reader *r;

	(void)state;
	tgen_header(&h);
	h.flags = PMIPROF_TRACE_F_TIME_BASED | PMIPROF_TRACE_F_EMULATED;
	h.nr_events = PMIPROF_MAX_EVENTS;	/* the most the format holds */
	for (int i = 4; i < PMIPROF_MAX_EVENTS; i++) {
		snprintf(h.events[i].name, sizeof(h.events[i].name), "raw-event-%d", i);
		h.events[i].type = PMIPROF_EVTYPE_MODULE;
		h.events[i].config = 0xffffffffffffffffull - (uint64_t)i;
		h.events[i].config1 = (uint64_t)i << 40;
	}
	memset(h.events[5].name, 'x', sizeof(h.events[5].name) - 1);	/* longest name */
	h.trigger_index = 15;
	h.trigger_flags = PMIPROF_TRIGGER_F_FREQ;
	h.freq_hz = 4000;
	memset(h.cmdline, 'c', sizeof(h.cmdline) - 1);
	memset(h.note, 'n', sizeof(h.note) - 1);
	want = h;
	want.version_major = PMIPROF_TRACE_VERSION_MAJOR;
	want.version_minor = PMIPROF_TRACE_VERSION_MINOR;
	/* a time-based 4 kHz trigger: the writer declares the nominal step (TIME_STEP) */
	want.time_step = (h.clock_freq_hz ? h.clock_freq_hz : 1000000000ull) / 4000;
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, NULL), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, tmp_path, NULL, NULL), 0);
	assert_memory_equal(trace_reader_header(r), &want, sizeof(want));
	trace_reader_close(r);

	h.trigger_index = PMIPROF_MAX_EVENTS;	/* names no event */
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, NULL), -EINVAL);
	assert_null(w);
}

/* Every record type with awkward values, written then compared one by one. */
struct mixed {
	struct trace_record recs[64];
	int n;
};

static uint64_t big_chain[PMIPROF_MAX_CALLCHAIN];
static char long_path[PMIPROF_MAX_STRING + 1];

static void build_mixed(struct mixed *m)
{
	struct trace_record *r;
	int i;

	memset(m, 0, sizeof(*m));
	memset(long_path, 'p', PMIPROF_MAX_STRING);
	long_path[0] = '/';
	for (i = 0; i < PMIPROF_MAX_CALLCHAIN; i++)
		big_chain[i] = (i & 1) ? 0xffffffff81000000ull + (uint64_t)i : (uint64_t)i * 4096;
#define ADD(t) (r = &m->recs[m->n++], r->type = (t), r)
	ADD(PMIPROF_REC_COMM)->comm = (struct trace_comm){ 5, 1, 1, PMIPROF_COMM_F_EXEC, "a" };
	ADD(PMIPROF_REC_COMM)->comm = (struct trace_comm){ 0, 0, 0, 0, "" };
	ADD(PMIPROF_REC_MMAP)->mmap = (struct trace_mmap){
		.time = UINT64_MAX, .pid = UINT32_MAX, .tid = 0, .start = UINT64_MAX,
		.len = 1, .pgoff = UINT64_MAX - 1, .prot = 7, .flags = UINT32_MAX,
		.build_id_len = 20, .path = long_path,
	};
	for (i = 0; i < 20; i++)
		r->mmap.build_id[i] = (uint8_t)(255 - i);
	ADD(PMIPROF_REC_MMAP)->mmap = (struct trace_mmap){ .time = 3, .path = "" };
	/* samples: time going backwards, ip jumping user<->kernel, nr changing */
	for (i = 0; i < 24; i++) {
		struct trace_sample *s = &ADD(PMIPROF_REC_SAMPLE)->sample;

		s->time = (i % 3 == 2) ? (uint64_t)i : UINT64_MAX - (uint64_t)i * 1000;
		s->ip = (i & 1) ? 0xffffffff81234567ull : 0x400000 + (uint64_t)i;
		s->cpu = (uint32_t)(i / 4);
		s->pid = i % 5 ? 77 : UINT32_MAX;
		s->tid = (uint32_t)i;
		s->flags = (i & 1) ? PMIPROF_SAMPLE_F_KERNEL : PMIPROF_SAMPLE_F_USER;
		s->nr = (uint32_t)(i % 5);	/* 0..4: never more than the header's events */
		for (uint32_t k = 0; k < s->nr; k++)
			s->counts[k] = (i % 4 == 0) ? UINT64_MAX - k : (uint64_t)i * 1000 + k;
		if (i == 7) {
			ADD(PMIPROF_REC_CALLCHAIN)->callchain =
				(struct trace_callchain){ PMIPROF_MAX_CALLCHAIN, big_chain };
			ADD(PMIPROF_REC_CALLCHAIN)->callchain = (struct trace_callchain){ 0, NULL };
		}
	}
	ADD(PMIPROF_REC_FORK)->task = (struct trace_task){ 9, 2, 1, 3, 2 };
	ADD(PMIPROF_REC_EXIT)->task = (struct trace_task){ UINT64_MAX, UINT32_MAX, 0, 0, 0 };
	ADD(PMIPROF_REC_LOST)->lost = (struct trace_lost){ 0, PMIPROF_CPU_NONE,
							   PMIPROF_LOST_THROTTLE, UINT64_MAX, 123456789 };
	ADD(PMIPROF_REC_MARK)->mark = (struct trace_mark){ 1, 0, 0, 0, UINT64_MAX,
							   "label with \"quotes\"\n" };
	ADD(PMIPROF_REC_MARK)->mark = (struct trace_mark){ 1, 0, 0, 0, 0, NULL };
	ADD(PMIPROF_REC_FINISH)->finish = (struct trace_finish){ 2, PMIPROF_FINISH_F_SIGNALED,
								 -9, 24, UINT64_MAX };
	ADD(PMIPROF_REC_FINISH)->finish = (struct trace_finish){ 2, 0, INT32_MIN, 0, 0 };
#undef ADD
}

static int write_rec(struct trace_writer *w, const struct trace_record *r)
{
	switch (r->type) {
	case PMIPROF_REC_SAMPLE: return trace_write_sample(w, &r->sample);
	case PMIPROF_REC_MMAP: return trace_write_mmap(w, &r->mmap);
	case PMIPROF_REC_COMM: return trace_write_comm(w, &r->comm);
	case PMIPROF_REC_FORK: return trace_write_fork(w, &r->task);
	case PMIPROF_REC_EXIT: return trace_write_exit(w, &r->task);
	case PMIPROF_REC_LOST: return trace_write_lost(w, &r->lost);
	case PMIPROF_REC_MARK: return trace_write_mark(w, &r->mark);
	case PMIPROF_REC_CALLCHAIN: return trace_write_callchain(w, &r->callchain);
	case PMIPROF_REC_FINISH: return trace_write_finish(w, &r->finish);
	}
	return -EINVAL;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static void assert_rec_equal(const struct trace_record *a, const struct trace_record *b)
{
	assert_int_equal(a->type, b->type);
	switch (a->type) {
	case PMIPROF_REC_SAMPLE:
		assert_sample_equal(&a->sample, &b->sample);
		break;
	case PMIPROF_REC_MMAP:
		assert_int_equal(a->mmap.time, b->mmap.time);
		assert_int_equal(a->mmap.pid, b->mmap.pid);
		assert_int_equal(a->mmap.tid, b->mmap.tid);
		assert_int_equal(a->mmap.start, b->mmap.start);
		assert_int_equal(a->mmap.len, b->mmap.len);
		assert_int_equal(a->mmap.pgoff, b->mmap.pgoff);
		assert_int_equal(a->mmap.prot, b->mmap.prot);
		assert_int_equal(a->mmap.flags, b->mmap.flags);
		assert_int_equal(a->mmap.build_id_len, b->mmap.build_id_len);
		assert_memory_equal(a->mmap.build_id, b->mmap.build_id, a->mmap.build_id_len);
		assert_string_equal(str_or_empty(a->mmap.path), b->mmap.path);
		break;
	case PMIPROF_REC_COMM:
		assert_int_equal(a->comm.time, b->comm.time);
		assert_int_equal(a->comm.pid, b->comm.pid);
		assert_int_equal(a->comm.tid, b->comm.tid);
		assert_int_equal(a->comm.flags, b->comm.flags);
		assert_string_equal(str_or_empty(a->comm.comm), b->comm.comm);
		break;
	case PMIPROF_REC_FORK:
	case PMIPROF_REC_EXIT:
		assert_memory_equal(&a->task, &b->task, sizeof(a->task));
		break;
	case PMIPROF_REC_LOST:
		assert_memory_equal(&a->lost, &b->lost, sizeof(a->lost));
		break;
	case PMIPROF_REC_MARK:
		assert_int_equal(a->mark.time, b->mark.time);
		assert_int_equal(a->mark.cpu, b->mark.cpu);
		assert_int_equal(a->mark.pid, b->mark.pid);
		assert_int_equal(a->mark.tid, b->mark.tid);
		assert_int_equal(a->mark.id, b->mark.id);
		assert_string_equal(str_or_empty(a->mark.label), b->mark.label);
		break;
	case PMIPROF_REC_CALLCHAIN:
		assert_int_equal(a->callchain.nr, b->callchain.nr);
		if (a->callchain.nr)
			assert_memory_equal(a->callchain.ips, b->callchain.ips,
					    a->callchain.nr * sizeof(uint64_t));
		break;
	case PMIPROF_REC_FINISH:
		assert_memory_equal(&a->finish, &b->finish, sizeof(a->finish));
		break;
	default:
		fail_msg("unexpected type %u", a->type);
	}
}

static void all_record_types_round_trip_at_every_level_and_chunk_size(void **state)
{
	static const int levels[] = { 0, 1, 6, 9 };
	static const uint32_t sizes[] = { 64, 300, 4096, 0 };
	static struct mixed m;
	struct trace_header h;
	struct trace_record rec;

	(void)state;
	build_mixed(&m);
	tgen_header(&h);
	for (size_t li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			struct trace_writer_opts o = { levels[li], sizes[si] };
			struct trace_writer *w;
			struct trace_reader *r;
			int i;

			assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
			for (int rep = 0; rep < 3; rep++)	/* repeats cross chunk borders */
				for (i = 0; i < m.n; i++)
					assert_int_equal(write_rec(w, &m.recs[i]), 0);
			assert_int_equal(trace_writer_close(w), 0);
			diags = 0;
			assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
			for (int rep = 0; rep < 3; rep++) {
				for (i = 0; i < m.n; i++) {
					assert_int_equal(trace_reader_next(r, &rec), 1);
					assert_rec_equal(&m.recs[i], &rec);
				}
			}
			assert_int_equal(trace_reader_next(r, &rec), 0);
			assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
			assert_int_equal(diags, 0);
			trace_reader_close(r);
		}
	}
}

static void writer_refuses_bad_records_and_keeps_the_file_valid(void **state)
{
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	char path[PMIPROF_MAX_STRING + 2];
	struct trace_mmap m = { .path = path };
	struct trace_callchain cc = { PMIPROF_MAX_CALLCHAIN + 1, big_chain };
	struct trace_writer_opts bad_level = { 10, 0 }, bad_chunk = { 1, 10 };
	int n = 0;

	(void)state;
	memset(path, 'x', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	tgen_header(&h);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, &bad_level), -EINVAL);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, &bad_chunk), -EINVAL);
	assert_int_equal(trace_writer_open(&w, "/nonexistent-dir/t.data", &h, NULL), -ENOENT);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, NULL), 0);
	tgen_stream_sample(1, 0, &s);
	assert_int_equal(trace_write_sample(w, &s), 0), n++;
	s.nr = h.nr_events + 1;
	assert_int_equal(trace_write_sample(w, &s), -EINVAL);
	assert_int_equal(trace_write_mmap(w, &m), -ENAMETOOLONG);
	m.path = "/ok";
	m.build_id_len = 21;
	assert_int_equal(trace_write_mmap(w, &m), -EINVAL);
	assert_int_equal(trace_write_callchain(w, &cc), -EINVAL);
	assert_int_equal(trace_write_raw(w, PMIPROF_REC_SAMPLE, "x", 1), -EINVAL);
	assert_int_equal(trace_write_raw(w, 250, NULL, PMIPROF_MAX_RECORD_SIZE + 1), -EINVAL);
	/* refusals are not sticky: the writer goes on */
	tgen_stream_sample(1, 1, &s);
	assert_int_equal(trace_write_sample(w, &s), 0), n++;
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, tmp_path, NULL, NULL), 0);
	while (trace_reader_next(r, &rec) == 1)
		n--;
	assert_int_equal(n, 0);
	assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
	trace_reader_close(r);
}

static void write_error_is_sticky_and_file_stays_valid(void **state)
{
	struct trace_writer_opts o = { 1, 8192 };
	struct rlimit old, lim;
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	uint64_t i, written = 0, read = 0;
	int err = 0;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	tgen_header(&h);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 50000;	/* the file may not grow past this */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
	for (i = 0; i < 1000000 && !err; i++) {
		tgen_stream_sample(3, i, &s);
		err = trace_write_sample(w, &s);
		written += !err;
	}
	assert_int_equal(err, -EFBIG);
	assert_int_equal(trace_write_sample(w, &s), -EFBIG);	/* sticky */
	assert_int_equal(trace_writer_flush(w), -EFBIG);
	assert_true(trace_writer_bytes(w) <= 50000);
	assert_int_equal(trace_writer_close(w), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);

	/* the file holds whole chunks only: no damage, no truncation */
	diags = 0;
	assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
	while (trace_reader_next(r, &rec) == 1) {
		assert_int_equal(rec.type, PMIPROF_REC_SAMPLE);
		tgen_stream_sample(3, read, &s);
		assert_sample_equal(&s, &rec.sample);
		read++;
	}
	assert_true(read > 0 && read < written);
	assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
	assert_false(trace_reader_stats(r)->truncated);
	assert_int_equal(diags, 0);
	trace_reader_close(r);

	/* a device that is full refuses the header already */
	assert_int_equal(trace_writer_open(&w, "/dev/full", &h, NULL), -ENOSPC);
}

static void writer_reports_a_closed_pipe(void **state)
{
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	int fds[2], err = 0;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	tgen_header(&h);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	assert_int_equal(trace_writer_fdopen(&w, fds[1], &h, NULL), -EPIPE);
	assert_null(w);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(trace_writer_fdopen(&w, fds[1], &h, NULL), 0);
	close(fds[0]);
	for (uint64_t i = 0; i < 100000 && !err; i++) {
		tgen_stream_sample(1, i, &s);
		err = trace_write_sample(w, &s);
	}
	assert_int_equal(err, -EPIPE);
	assert_int_equal(trace_writer_close(w), -EPIPE);
}

/* ---- randomized round trip: any valid record sequence survives ---- */

static uint64_t rng_state, rnd_prev;

static void rnd_state_init(uint64_t seed)
{
	rng_state = seed * 0x2545f4914f6cdd1dull;
	rnd_prev = 0;
}

static uint64_t rnd(void)
{
	uint64_t x = (rng_state += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Values that stress the delta coding: edges, small steps, anything. */
static uint64_t rnd_value(uint64_t prev)
{
	switch (rnd() % 6) {
	case 0: return 0;
	case 1: return UINT64_MAX - rnd() % 3;
	case 2: return prev + rnd() % 5;
	case 3: return prev - rnd() % 5;
	case 4: return rnd() >> (rnd() % 64);
	default: return rnd();
	}
}

static void rnd_record(struct trace_record *r, uint32_t nr_events, char *str, uint64_t *ips)
{
	static const uint32_t types[] = {
		PMIPROF_REC_SAMPLE, PMIPROF_REC_SAMPLE, PMIPROF_REC_SAMPLE, PMIPROF_REC_SAMPLE,
		PMIPROF_REC_MMAP, PMIPROF_REC_COMM, PMIPROF_REC_FORK, PMIPROF_REC_EXIT,
		PMIPROF_REC_LOST, PMIPROF_REC_MARK, PMIPROF_REC_CALLCHAIN, PMIPROF_REC_FINISH,
	};
	uint64_t prev;
	size_t len = rnd() % 3 ? rnd() % 40 : rnd() % (PMIPROF_MAX_STRING + 1);
	uint32_t i;

	for (i = 0; i < len; i++)
		str[i] = (char)(1 + rnd() % 255);	/* any byte but NUL */
	str[len] = '\0';
	memset(r, 0, sizeof(*r));
	r->type = types[rnd() % (sizeof(types) / sizeof(types[0]))];
	prev = rnd_prev = rnd_value(rnd_prev);
	switch (r->type) {
	case PMIPROF_REC_SAMPLE:
		r->sample.time = prev;
		r->sample.ip = rnd_value(prev);
		r->sample.cpu = (uint32_t)(rnd() % 3 ? rnd() % 4 : rnd());
		r->sample.pid = (uint32_t)(rnd() % 3 ? 42 : rnd());
		r->sample.tid = (uint32_t)(rnd() % 3 ? 43 : rnd());
		r->sample.flags = (uint32_t)(rnd() % 3 ? 1 : rnd());
		r->sample.nr = (uint32_t)(rnd() % 4 ? nr_events : rnd() % (nr_events + 1));
		for (i = 0; i < r->sample.nr; i++)
			r->sample.counts[i] = rnd_value(prev);
		break;
	case PMIPROF_REC_MMAP:
		r->mmap = (struct trace_mmap){ rnd_value(prev), (uint32_t)rnd(), (uint32_t)rnd(),
					       rnd(), rnd(), rnd(), (uint32_t)rnd(), (uint32_t)rnd(),
					       (uint32_t)(rnd() % 21), { 0 }, str };
		for (i = 0; i < 20; i++)
			r->mmap.build_id[i] = i < r->mmap.build_id_len ? (uint8_t)rnd() : 0;
		break;
	case PMIPROF_REC_COMM:
		r->comm = (struct trace_comm){ prev, (uint32_t)rnd(), (uint32_t)rnd(),
					       (uint32_t)rnd(), str };
		break;
	case PMIPROF_REC_FORK:
	case PMIPROF_REC_EXIT:
		r->task = (struct trace_task){ prev, (uint32_t)rnd(), (uint32_t)rnd(),
					       (uint32_t)rnd(), (uint32_t)rnd() };
		break;
	case PMIPROF_REC_LOST:
		r->lost = (struct trace_lost){ prev, (uint32_t)rnd(), (uint32_t)rnd(), rnd_value(0),
					       rnd_value(0) };
		break;
	case PMIPROF_REC_MARK:
		r->mark = (struct trace_mark){ prev, (uint32_t)rnd(), (uint32_t)rnd(),
					       (uint32_t)rnd(), rnd(), str };
		break;
	case PMIPROF_REC_CALLCHAIN:
		r->callchain.nr = (uint32_t)(rnd() % 8 ? rnd() % 16 : rnd() % (PMIPROF_MAX_CALLCHAIN + 1));
		for (i = 0; i < r->callchain.nr; i++)
			ips[i] = rnd_value(prev);
		r->callchain.ips = ips;
		break;
	case PMIPROF_REC_FINISH:
		r->finish = (struct trace_finish){ prev, (uint32_t)rnd(), (int32_t)rnd(), rnd(),
						   rnd_value(0) };
		break;
	}
}

static void random_record_sequences_round_trip(void **state)
{
	static char strs[2][PMIPROF_MAX_STRING + 1];
	static uint64_t ips[2][PMIPROF_MAX_CALLCHAIN];
	struct trace_header h;
	struct trace_record want, got;

	(void)state;
	tgen_header(&h);
	for (int round = 0; round < 12; round++) {
		struct trace_writer_opts o = { 0 };
		struct trace_writer *w;
		struct trace_reader *r;
		const int n = 3000;

		rnd_state_init(round);
		o.level = (int)(rnd() % 3);
		o.chunk_size = (uint32_t)(64 + rnd() % 20000);
		o.strategy = (int)(rnd() % 4);
		h.nr_events = (uint32_t)(rnd() % (PMIPROF_MAX_EVENTS + 1));
		o.codec = rnd() % 2 ? PMIPROF_TRACE_CODEC_DEFLATE : PMIPROF_TRACE_CODEC_ZSTD;
		o.no_summary = rnd() % 2;
		h.trigger_index = 0;
		/* 1.4 count predictors: any valid choice (previous, time step, an earlier event) */
		memset(h.predict, 0, sizeof(h.predict));
		for (uint32_t e = 0; e < h.nr_events && round % 3; e++)
			h.predict[e] = (uint32_t)(rnd() % (e + 2));
		assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
		rnd_state_init(1000 + round);
		for (int i = 0; i < n; i++) {
			rnd_record(&want, h.nr_events, strs[0], ips[0]);
			assert_int_equal(write_rec(w, &want), 0);
		}
		assert_int_equal(trace_writer_close(w), 0);

		diags = 0;
		assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
		assert_memory_equal(trace_reader_header(r)->predict, h.predict, sizeof(h.predict));
		rnd_state_init(1000 + round);	/* replay the same sequence */
		for (int i = 0; i < n; i++) {
			rnd_record(&want, h.nr_events, strs[1], ips[1]);
			assert_int_equal(trace_reader_next(r, &got), 1);
			assert_rec_equal(&want, &got);
		}
		assert_int_equal(trace_reader_next(r, &got), 0);
		assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
		assert_int_equal(diags, 0);
		trace_reader_close(r);
	}
}

/*
 * RECORDS4 (columns, the default), RECORDS3 (per-thread contexts, ip
 * table) and RECORDS2, with random count predictors and nominal time steps
 * (RECORDS4: any step, 0 = against the previous one): samples of 1..9
 * threads interleaved at random (alternating, in runs, or anyhow), ips from
 * a pool (some anywhere in 64 bits), each thread's time and counts its own,
 * side-band records and stacks between them, small chunks; every field reads
 * back as written.
 */
/* The bytes of the file at path; *len gets its size (the caller frees). */
static uint8_t *file_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	*len = (size_t)ftell(f);
	rewind(f);
	b = malloc(*len ? *len : 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *len, f), *len);
	fclose(f);
	return b;
}

static void assert_same_files(const char *p1, const char *p2)
{
	size_t alen, blen;
	uint8_t *a = file_bytes(p1, &alen), *b = file_bytes(p2, &blen);

	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(a);
	free(b);
}

/*
 * trace_write_samples() writes exactly the file that one
 * trace_write_sample() call per sample writes, whatever the batch sizes,
 * thread interleavings, short samples (nr below the header's) and event
 * counts (its hot path is specialized for 1 to 8 events); a bad sample
 * ends a batch with its error, the samples before it written and the ones
 * after it not.
 */
static void batches_write_what_single_samples_write(void **state)
{
	static const uint32_t nr_events[] = { 4, 1, 8, 12 };
	static struct trace_sample want[6000];
	char path2[sizeof(tmp_path) + 4];
	struct trace_writer_opts o = { .level = 1, .chunk_size = 16 << 10 };
	struct trace_header h;
	struct trace_writer *w;
	size_t i, n = 6000, m;
	uint32_t e, k, t;

	(void)state;
	snprintf(path2, sizeof(path2), "%s.b", tmp_path);
	for (e = 0; e < 4; e++) {
		rnd_state_init(900 + e);
		tgen_header(&h);
		h.nr_events = nr_events[e];
		for (k = 4; k < h.nr_events; k++)
			h.events[k] = h.events[k % 4];
		for (i = 0; i < n; i++) {
			struct trace_sample *s = &want[i];

			t = (uint32_t)(rnd() % 3);
			memset(s, 0, sizeof(*s));
			s->time = 1000000 + i * 100000 + rnd() % 5000;
			s->ip = 0x400000 + rnd() % 64 * 16;
			s->pid = 10;
			s->tid = 10 + t;
			s->cpu = t;
			s->flags = PMIPROF_SAMPLE_F_USER;
			s->nr = rnd() % 10 ? h.nr_events : (uint32_t)(rnd() % (h.nr_events + 1));
			for (k = 0; k < s->nr; k++)
				s->counts[k] = 1000 * (k + 1) + rnd() % 300;
		}
		assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
		for (i = 0; i < n; i++)
			assert_int_equal(trace_write_sample(w, &want[i]), 0);
		assert_int_equal(trace_writer_close(w), 0);
		assert_int_equal(trace_writer_open(&w, path2, &h, &o), 0);
		for (i = 0; i < n; i += m) {
			m = 1 + rnd() % 100;
			if (m > n - i)
				m = n - i;
			assert_int_equal(trace_write_samples(w, &want[i], m), 0);
		}
		assert_int_equal(trace_writer_close(w), 0);
		assert_same_files(tmp_path, path2);
	}

	/* a bad sample (nr above the header's) in the middle of a batch */
	assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
	want[1000].nr = h.nr_events + 1;
	assert_int_equal(trace_write_samples(w, want, 2000), -EINVAL);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_writer_open(&w, path2, &h, &o), 0);
	assert_int_equal(trace_write_samples(w, want, 1000), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_same_files(tmp_path, path2);
	unlink(path2);
}

static void random_thread_interleavings_round_trip(void **state)
{
	static const uint64_t frames[] = { 0xffffffff81000010ull, 0x401000, 0x402000 };
	struct trace_header h;
	struct trace_sample want[4000], got;
	uint64_t pool[100], tm[9];
	bool with_stack[4000];
	struct trace_record rec;

	(void)state;
	for (int round = 0; round < 32; round++) {
		struct trace_writer_opts o = { .level = (int)(round % 3), .records2 = round % 4 == 3,
					       .records3 = round % 4 == 2 };
		uint32_t nthr, t = 0, i, k, n = 4000, stacks = 0;
		struct trace_writer *w;
		struct trace_reader *r;

		rnd_state_init(5000 + round);
		tgen_sw_header(&h);
		if (round >= 8) {	/* the first rounds: the writer's own choice */
			for (k = 0; k < h.nr_events; k++)
				h.predict[k] = (uint32_t)(rnd() % (PMIPROF_PREDICT_EVENT + k));
			h.time_step = rnd() % 3 ? 100000 + rnd() % 3 : rnd() % 2 ? 0 : rnd_value(0);
		}
		o.chunk_size = (uint32_t)(200 + rnd() % 30000);
		nthr = 1 + (uint32_t)(rnd() % 9);
		for (k = 0; k < 100; k++)
			pool[k] = k % 4 ? 0x400000 + rnd() % 0x100000 : rnd();
		for (k = 0; k < 9; k++)
			tm[k] = rnd() % 1000000000;
		assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
		for (i = 0; i < n; i++) {
			struct trace_sample *s = &want[i];

			switch (round % 3) {
			case 0: t = (t + 1) % nthr; break;			/* alternating */
			case 1: t = rnd() % 4 ? t : rnd() % nthr; break;	/* runs */
			default: t = rnd() % nthr; break;			/* anyhow */
			}
			memset(s, 0, sizeof(*s));
			tm[t] += 90000 + rnd() % 20000;
			s->time = rnd() % 50 ? tm[t] : rnd_value(tm[t]);
			s->ip = rnd() % 3 ? pool[rnd() % 100] : rnd_value(pool[0]);
			s->pid = 1000 + t / 2;
			s->tid = rnd() % 200 ? 1000 + t : (uint32_t)rnd();
			s->cpu = rnd() % 10 ? t % 2 : (uint32_t)(rnd() % 300);
			s->flags = rnd() % 5 ? 0x11 : (uint32_t)rnd();
			s->nr = rnd() % 20 ? 4 : (uint32_t)(rnd() % 5);
			for (k = 0; k < s->nr; k++)
				s->counts[k] = k < 2 ? 100000 + rnd() % 500 : rnd_value(0);
			if (rnd() % 50 == 0) {
				struct trace_comm c = { .time = s->time, .pid = s->pid, .tid = 7,
							.comm = "x" };

				assert_int_equal(trace_write_comm(w, &c), 0);
			}
			with_stack[i] = rnd() % 8 == 0;
			if (with_stack[i]) {
				assert_int_equal(trace_write_sample_stack(w, s, frames, 3, 1), 0);
				stacks++;
			} else {
				assert_int_equal(trace_write_sample(w, s), 0);
			}
		}
		assert_int_equal(trace_writer_close(w), 0);

		diags = 0;
		assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
		for (i = 0; trace_reader_next(r, &rec) == 1;) {
			if (rec.type != PMIPROF_REC_SAMPLE)
				continue;
			assert_true(i < n);
			got = rec.sample;
			assert_int_equal(got.stack != 0, with_stack[i]);
			assert_sample_equal(&want[i], &got);
			i++;
		}
		assert_int_equal(i, n);
		assert_true(stacks > 0);
		assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
		assert_int_equal(diags, 0);
		trace_reader_close(r);
	}
}

static void varints_round_trip_and_reject_overlong_input(void **state)
{
	static const uint64_t vals[] = {
		0, 1, 127, 128, 255, 16383, 16384, UINT32_MAX, (1ull << 63) - 1, 1ull << 63,
		UINT64_MAX,
	};
	static const uint8_t overlong[11] = {
		0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
	};
	static const uint8_t too_big[10] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
	};
	uint8_t buf[VARINT_MAX] = { 0 };
	const uint8_t *p;
	uint64_t v;
	int64_t sv;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint8_t *end = varint_put(buf, vals[i]);

		assert_int_equal((size_t)(end - buf), varint_len(vals[i]));
		p = buf;
		assert_int_equal(varint_get(&p, end, &v), 0);
		assert_int_equal(v, vals[i]);
		assert_ptr_equal(p, end);
		p = buf;	/* one byte short */
		assert_int_equal(varint_get(&p, end - 1, &v), -1);
		p = buf;	/* the reader's fast path agrees */
		assert_int_equal(varint_get_unchecked(&p, &v), 0);
		assert_int_equal(v, vals[i]);
		assert_ptr_equal(p, end);
		p = buf;	/* and its signed form */
		assert_int_equal(svarint_get_unchecked(&p, &sv), 0);
		assert_int_equal(sv, zigzag_dec(vals[i]));
		assert_ptr_equal(p, end);
		assert_int_equal(zigzag_dec(zigzag_enc((int64_t)vals[i])), (int64_t)vals[i]);
	}
	assert_int_equal(zigzag_enc(-1), 1);
	assert_int_equal(zigzag_enc(1), 2);
	assert_int_equal(zigzag_enc(INT64_MIN), UINT64_MAX);
	p = overlong;
	assert_int_equal(varint_get(&p, overlong + sizeof(overlong), &v), -1);
	p = too_big;
	assert_int_equal(varint_get(&p, too_big + sizeof(too_big), &v), -1);
	p = overlong;
	assert_int_equal(varint_get_unchecked(&p, &v), -1);
	p = too_big;
	assert_int_equal(varint_get_unchecked(&p, &v), -1);
	p = overlong;
	assert_int_equal(svarint_get_unchecked(&p, &sv), -1);
	for (v = 0; v < 0x4000; v++) {	/* every one- and two-byte number */
		memset(buf, 0, sizeof(buf));
		varint_put(buf, v);
		p = buf;
		assert_int_equal(svarint_get_unchecked(&p, &sv), 0);
		assert_int_equal(sv, zigzag_dec(v));
		assert_ptr_equal(p, buf + varint_len(v));
	}
}

/* Sample i of the stream with nr changing now and then (unused counts 0). */
static void nr_changing_sample(uint32_t i, uint32_t nr_events, struct trace_sample *s)
{
	tgen_stream_sample(3, i, s);
	s->nr = i % 7 == 3 ? 1 : i % 11 == 5 ? 0 : nr_events;
	for (uint32_t k = s->nr; k < PMIPROF_MAX_EVENTS; k++)
		s->counts[k] = 0;
}

/*
 * SAMPLE.counts[i] is 0 for i >= nr whatever the caller left in rec, after
 * any record type, with nr changing, in stored and deflated chunks, small
 * and large (the fast and careful decode paths).
 */
static void counts_beyond_nr_are_zero_in_a_reused_record(void **state)
{
	static const int levels[] = { 0, 1 };
	static const uint32_t chunks[] = { 64, 300, 0 };
	const uint32_t n = 3000;
	struct trace_header h;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_record rec;
	struct trace_sample s;
	struct trace_mmap m = { .pid = 1, .tid = 1, .start = 0x400000, .len = 0x1000,
				.build_id_len = 20, .path = "/lib/x86_64-linux-gnu/libc.so.6" };
	uint64_t bad = 0;

	(void)state;
	memset(m.build_id, 0xee, sizeof(m.build_id));
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			struct trace_writer_opts o = { levels[l], chunks[c], 0 };

			tgen_header(&h);
			assert_true(h.nr_events >= 2);
			assert_int_equal(trace_writer_open(&w, tmp_path, &h, &o), 0);
			for (uint32_t i = 0; i < n; i++) {
				nr_changing_sample(i, h.nr_events, &s);
				assert_int_equal(trace_write_sample(w, &s), 0);
				if (i % 13 == 0) {
					m.time = s.time;
					assert_int_equal(trace_write_mmap(w, &m), 0);
				}
			}
			assert_int_equal(trace_writer_close(w), 0);

			diags = 0;
			assert_int_equal(trace_reader_open(&r, tmp_path, count_diag, NULL), 0);
			for (uint32_t i = 0; i < n; i++) {
				memset(&rec, 0xa5, sizeof(rec));	/* the caller's leftovers */
				assert_int_equal(trace_reader_next(r, &rec), 1);
				assert_int_equal(rec.type, PMIPROF_REC_SAMPLE);
				nr_changing_sample(i, h.nr_events, &s);
				bad += !sample_equal(&s, &rec.sample);
				if (i % 13 == 0) {
					assert_int_equal(trace_reader_next(r, &rec), 1);
					assert_int_equal(rec.type, PMIPROF_REC_MMAP);
				}
			}
			assert_int_equal(bad, 0);
			assert_int_equal(trace_reader_next(r, &rec), 0);
			assert_int_equal(trace_reader_stats(r)->chunks_bad, 0);
			assert_int_equal(diags, 0);
			trace_reader_close(r);
		}
	}
}

/* 1.1 appended LOST.duration: a 1.0 body (ending after count) still decodes. */
static void lost_body_of_version_1_0_reads_with_zero_duration(void **state)
{
	struct trace_lost l = { 5000, 1, PMIPROF_LOST_RING_FULL, 42, 0 };
	struct trace_codec enc, dec;
	struct trace_record rec;
	static char str[PMIPROF_MAX_STRING + 1];
	static uint64_t ips[PMIPROF_MAX_CALLCHAIN];
	struct trace_decode_scratch sc = { .str = str, .ips = ips, .limit = NULL };
	uint8_t buf[64], *end;
	const char *why = NULL;

	(void)state;
	trace_codec_reset(&enc);
	end = trace_enc_lost(&enc, buf, &l);
	assert_int_equal(end[-1], 0);	/* duration 0 is one varint byte */
	trace_codec_reset(&dec);
	memset(&rec, 0xff, sizeof(rec));
	assert_int_equal(trace_decode_body(&dec, PMIPROF_REC_LOST, buf, end - 1, 4, &sc, &rec,
					   &why), 0);
	assert_null(why);
	assert_int_equal(rec.lost.count, 42);
	assert_int_equal(rec.lost.duration, 0);
	assert_int_equal(rec.lost.time, 5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lost_body_of_version_1_0_reads_with_zero_duration),
		cmocka_unit_test_setup_teardown(million_samples_round_trip_exactly, make_tmp,
						drop_tmp),
		cmocka_unit_test_setup_teardown(noise_streams_stored_raw_round_trip, make_tmp,
						drop_tmp),
		cmocka_unit_test_setup_teardown(stream_forms_follow_content_and_round_trip, make_tmp,
						drop_tmp),
		cmocka_unit_test_setup_teardown(header_fields_round_trip, make_tmp, drop_tmp),
		cmocka_unit_test_setup_teardown(
			all_record_types_round_trip_at_every_level_and_chunk_size, make_tmp,
			drop_tmp),
		cmocka_unit_test_setup_teardown(writer_refuses_bad_records_and_keeps_the_file_valid,
						make_tmp, drop_tmp),
		cmocka_unit_test_setup_teardown(write_error_is_sticky_and_file_stays_valid,
						make_tmp, drop_tmp),
		cmocka_unit_test(writer_reports_a_closed_pipe),
		cmocka_unit_test_setup_teardown(random_record_sequences_round_trip, make_tmp,
						drop_tmp),
		cmocka_unit_test_setup_teardown(random_thread_interleavings_round_trip, make_tmp,
						drop_tmp),
		cmocka_unit_test_setup_teardown(batches_write_what_single_samples_write, make_tmp,
						drop_tmp),
		cmocka_unit_test(varints_round_trip_and_reject_overlong_input),
		cmocka_unit_test_setup_teardown(counts_beyond_nr_are_zero_in_a_reused_record,
						make_tmp, drop_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
