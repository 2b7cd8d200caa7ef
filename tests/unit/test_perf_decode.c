// SPDX-License-Identifier: GPL-2.0
/*
 * The perf backend's drain side without a kernel: hand-built perf records
 * through perf_decode_record() (loss generations flag the next window of
 * every instance on the CPU, throttling becomes events with a duration,
 * exited threads are forgotten, the fallback's pid set follows forks and
 * exits without a cap), and perf_rings_drain() over fake mmap rings (merge
 * by time, records above the publication watermark held back); fp leaf words
 * keep only addresses inside executable mappings (MMAP2 exec ranges), dwarf
 * stacks stay untouched except that a main thread's copy ends at exec's argc.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf/perf_decode.h"
#include "engine/perf_ring.h"
#include "engine/pid_set.h"
#include "pmiprof/trace.h"

#define NR_EV	2

/* ---- building perf records ---- */

struct rec_buf {
	uint64_t w[64];			/* the largest: a call-graph sample, 36 words */
};

static struct perf_event_header *sample(struct rec_buf *b, uint32_t pid, uint32_t tid,
					 uint64_t time, uint32_t cpu, uint64_t t0, uint64_t t1)
{
	struct perf_event_header *h = (void *)b->w;
	uint64_t *p = (uint64_t *)(h + 1);

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	p[0] = 0x401000;			/* ip */
	p[1] = ((uint64_t)tid << 32) | pid;
	p[2] = time;
	p[3] = cpu;
	p[4] = NR_EV;				/* READ group: nr, enabled, running, values */
	p[5] = time;
	p[6] = time;
	p[7] = t0;
	p[8] = t1;
	h->size = sizeof(*h) + 9 * 8;
	return h;
}

static struct perf_event_header *task(struct rec_buf *b, uint32_t type, uint32_t pid,
				       uint32_t ppid, uint32_t tid, uint64_t time)
{
	struct perf_event_header *h = (void *)b->w;
	uint32_t *v = (uint32_t *)(h + 1);

	h->type = (uint16_t)type;
	h->misc = 0;
	v[0] = pid;
	v[1] = ppid;
	v[2] = tid;
	v[3] = tid;
	memcpy(&v[4], &time, 8);
	h->size = sizeof(*h) + 24 + 24;	/* body + sample_id trailer */
	memset((char *)h + sizeof(*h) + 24, 0, 24);
	memcpy((char *)h + sizeof(*h) + 24 + 8, &time, 8);
	return h;
}

static struct perf_event_header *simple(struct rec_buf *b, uint32_t type, uint64_t v0,
					 uint64_t v1, uint64_t time)
{
	struct perf_event_header *h = (void *)b->w;
	uint64_t *p = (uint64_t *)(h + 1);

	h->type = (uint16_t)type;
	h->misc = 0;
	p[0] = v0;
	p[1] = v1;
	p[2] = 0;			/* trailer: pid/tid */
	p[3] = time;			/* trailer: time */
	p[4] = 0;			/* trailer: cpu */
	h->size = sizeof(*h) + 5 * 8;
	return h;
}

/* ---- a decoder writing to a temporary trace ---- */

struct fixture {
	struct perf_decoder d;
	struct record_stats stats;
	struct trace_writer *w;
	char path[64];
	struct trace_record recs[64];
	unsigned int nr;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct trace_header h;
	int fd;

	memset(&h, 0, sizeof(h));
	h.nr_events = NR_EV;
	snprintf(h.events[0].name, sizeof(h.events[0].name), "cpu-clock");
	snprintf(h.events[1].name, sizeof(h.events[1].name), "task-clock");
	strcpy(f->path, "/tmp/pmiprof-decode.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(trace_writer_fdopen(&f->w, fd, &h, NULL), 0);
	assert_int_equal(perf_decoder_init(&f->d, NR_EV, 4, &f->stats), 0);
	f->d.group_to_ev[0] = 0;
	f->d.group_to_ev[1] = 1;
	f->d.tops.no_proc = true;	/* pid 100 is not ours: tests set its stack top */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->w)
		trace_writer_close(f->w);
	perf_decoder_free(&f->d);
	unlink(f->path);
	free(f);
	return 0;
}

/* Close the writer and read back every record into f->recs. */
static void read_back(struct fixture *f)
{
	struct trace_reader *r;
	struct trace_record rec;

	assert_int_equal(trace_writer_close(f->w), 0);
	f->w = NULL;
	assert_int_equal(trace_reader_open(&r, f->path, NULL, NULL), 0);
	f->nr = 0;
	while (trace_reader_next(r, &rec) == 1 && f->nr < 64)
		f->recs[f->nr++] = rec;
	trace_reader_close(r);
}

static int feed(struct fixture *f, int cpu, const struct perf_event_header *h)
{
	return perf_decode_record(&f->d, cpu, f->w, h);
}

static void lost_samples_flag_the_next_window_of_every_thread_on_that_cpu(void **state)
{
	struct fixture *f = *state;
	struct rec_buf b;

	f->d.per_task = true;
	feed(f, 0, sample(&b, 10, 10, 100, 0, 1000, 1000));
	feed(f, 0, sample(&b, 10, 11, 110, 0, 1000, 1000));
	feed(f, 1, sample(&b, 10, 12, 120, 1, 1000, 1000));
	feed(f, 0, simple(&b, PERF_RECORD_LOST, 7, 5000, 130));	/* id, lost */
	feed(f, 0, sample(&b, 10, 10, 140, 0, 7000, 7000));		/* spans the loss */
	feed(f, 0, sample(&b, 10, 10, 150, 0, 8000, 8000));		/* normal again */
	feed(f, 0, sample(&b, 10, 11, 160, 0, 6000, 6000));		/* other thread, same CPU */
	feed(f, 1, sample(&b, 10, 12, 170, 1, 2000, 2000));		/* other CPU: untouched */
	read_back(f);
	assert_int_equal(f->nr, 8);
	assert_int_equal(f->recs[3].type, PMIPROF_REC_LOST);
	assert_int_equal(f->recs[3].lost.count, 5000);
	assert_int_equal(f->recs[3].lost.reason, PMIPROF_LOST_RING_FULL);
	assert_true(f->recs[4].sample.flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
	assert_int_equal(f->recs[4].sample.counts[0], 6000);
	assert_false(f->recs[5].sample.flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
	assert_true(f->recs[6].sample.flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
	assert_false(f->recs[7].sample.flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
	assert_int_equal(f->stats.after_loss, 2);
	assert_int_equal(f->stats.lost, 5000);
}

static void throttling_is_one_event_with_its_duration_not_invented_samples(void **state)
{
	struct fixture *f = *state;
	struct rec_buf b;

	feed(f, 1, sample(&b, 10, 10, 100, 1, 1000, 1000));
	feed(f, 1, simple(&b, PERF_RECORD_THROTTLE, 1000000, 1, 1000000));
	/* the sample that hit the limit is written after THROTTLE: complete window */
	feed(f, 1, sample(&b, 10, 10, 1000000, 1, 2000, 2000));
	feed(f, 1, simple(&b, PERF_RECORD_UNTHROTTLE, 501000000, 1, 501000000));
	feed(f, 1, sample(&b, 10, 10, 501000100, 1, 500002000, 500002000));
	read_back(f);
	assert_int_equal(f->nr, 4);
	assert_false(f->recs[1].sample.flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
	assert_int_equal(f->recs[2].type, PMIPROF_REC_LOST);
	assert_int_equal(f->recs[2].lost.reason, PMIPROF_LOST_THROTTLE);
	assert_int_equal(f->recs[2].lost.count, 1);
	assert_int_equal(f->recs[2].lost.duration, 500000000);
	assert_int_equal(f->recs[2].lost.cpu, 1);
	assert_true(f->recs[3].sample.flags & PMIPROF_SAMPLE_F_AFTER_LOSS);
	assert_int_equal(f->stats.throttled, 1);
	assert_int_equal(f->stats.throttled_ns, 500000000);
	assert_int_equal(f->stats.lost, 0);
}

static void throttle_still_open_at_the_end_is_written_with_its_duration(void **state)
{
	struct fixture *f = *state;
	struct rec_buf b;

	feed(f, 2, simple(&b, PERF_RECORD_THROTTLE, 1000, 1, 1000));
	assert_int_equal(perf_decode_finish(&f->d, f->w, 3000), 0);
	read_back(f);
	assert_int_equal(f->nr, 1);
	assert_int_equal(f->recs[0].lost.reason, PMIPROF_LOST_THROTTLE);
	assert_int_equal(f->recs[0].lost.duration, 2000);
	assert_int_equal(f->recs[0].lost.cpu, 2);
}

static void exited_threads_leave_the_window_map(void **state)
{
	struct fixture *f = *state;
	struct rec_buf b;
	unsigned int t;

	f->d.per_task = true;
	for (t = 100; t < 1100; t++) {
		feed(f, (int)(t % 4), task(&b, PERF_RECORD_FORK, 10, 10, t, t * 10));
		feed(f, (int)(t % 4), sample(&b, 10, t, t * 10 + 1, t % 4, 5, 5));
		feed(f, (int)(t % 4), task(&b, PERF_RECORD_EXIT, 10, 10, t, t * 10 + 2));
	}
	assert_int_equal(f->d.deltas.used, 0);
	assert_int_equal(f->stats.samples, 1000);
}

static void fallback_follows_forks_beyond_4096_and_prunes_exits(void **state)
{
	struct fixture *f = *state;
	struct rec_buf b;
	uint32_t pid;

	f->d.filter = true;
	assert_int_equal(pid_set_add_pinned(&f->d.pids, 100), 0);
	/* a shell (100) runs 5000 short commands, each forked and exited */
	for (pid = 1000; pid < 6000; pid++) {
		feed(f, 0, task(&b, PERF_RECORD_FORK, pid, 100, pid, pid));
		feed(f, 0, task(&b, PERF_RECORD_EXIT, pid, pid, pid, pid));
	}
	assert_int_equal(f->d.pids.used, 1);
	/* then the real work, a grandchild: its samples are kept */
	feed(f, 0, task(&b, PERF_RECORD_FORK, 7000, 100, 7000, 7000));
	feed(f, 0, sample(&b, 7000, 7000, 8000, 0, 10, 10));
	feed(f, 0, sample(&b, 4242, 4242, 8001, 0, 20, 20));	/* not ours */
	assert_int_equal(f->stats.samples, 1);
	assert_int_equal(f->stats.filtered, 1);
	/* a thread of the work exits: the process stays until its last thread */
	feed(f, 0, task(&b, PERF_RECORD_FORK, 7000, 7000, 7001, 8002));
	feed(f, 0, task(&b, PERF_RECORD_EXIT, 7000, 7000, 7000, 8003));
	assert_true(pid_set_contains(&f->d.pids, 7000));
	feed(f, 0, task(&b, PERF_RECORD_EXIT, 7000, 7000, 7001, 8004));
	assert_false(pid_set_contains(&f->d.pids, 7000));
	assert_true(pid_set_contains(&f->d.pids, 100));
}

static void pid_set_grows_and_removes(void **state)
{
	struct pid_set s = { 0 };
	uint32_t p;

	(void)state;
	for (p = 1; p <= 100000; p++)
		assert_int_equal(pid_set_add(&s, p * 7), 0);
	assert_int_equal(s.used, 100000);
	for (p = 1; p <= 100000; p += 2)
		pid_set_remove(&s, p * 7);
	for (p = 1; p <= 100000; p++)
		assert_int_equal(pid_set_contains(&s, p * 7), p % 2 == 0);
	assert_false(pid_set_contains(&s, 3));
	/* pid -1 (perf's "no task") is never in a set: slots hold pid + 1, 0 is empty */
	assert_false(pid_set_contains(&s, UINT32_MAX));
	pid_set_free(&s);
}

/* ---- fake rings ---- */

struct fake_ring {
	struct perf_ring r;
	char *mem;
};

static void fake_ring_init(struct fake_ring *fr, int cpu)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	fr->mem = aligned_alloc(page, 3 * page);
	memset(fr->mem, 0, 3 * page);
	memset(&fr->r, 0, sizeof(fr->r));
	fr->r.cpu = cpu;
	fr->r.base = fr->mem;
	fr->r.meta = (struct perf_event_mmap_page *)fr->mem;
	fr->r.data = fr->mem + page;
	fr->r.data_size = 2 * page;
}

static void fake_ring_publish(struct fake_ring *fr, const struct perf_event_header *h)
{
	uint64_t head = fr->r.meta->data_head;
	char tmp[512];

	memcpy(tmp, h, h->size);
	for (unsigned int i = 0; i < h->size; i++)
		fr->r.data[(head + i) & (fr->r.data_size - 1)] = tmp[i];
	fr->r.meta->data_head = head + h->size;
}

struct taken {
	uint64_t times[32];
	unsigned int nr;
};

static int take(void *arg, struct perf_ring *r, const struct perf_event_header *h)
{
	struct taken *t = arg;
	const uint64_t *p = (const uint64_t *)(h + 1);

	(void)r;
	t->times[t->nr++] = p[2];
	return 0;
}

static void drain_merges_by_time_and_holds_back_records_above_the_watermark(void **state)
{
	struct fake_ring fr[2];
	struct perf_ring rings[2];
	struct taken t = { .nr = 0 };
	struct rec_buf b;
	static char copybuf[PERF_RING_COPYBUF];
	uint64_t ms = 1000000;

	(void)state;
	fake_ring_init(&fr[0], 0);
	fake_ring_init(&fr[1], 1);
	fake_ring_publish(&fr[1], sample(&b, 1, 1, 50 * ms, 1, 1, 1));
	fake_ring_publish(&fr[1], sample(&b, 1, 1, 150 * ms, 1, 2, 2));
	rings[0] = fr[0].r;
	rings[1] = fr[1].r;
	/* now = 125 ms: the record at 150 ms could be preceded by one in flight */
	assert_int_equal(perf_rings_drain(rings, 2, 125 * ms, copybuf, take, &t), 1);
	assert_int_equal(t.nr, 1);
	assert_int_equal(t.times[0], 50 * ms);
	/* ring 0 publishes late a record older than the held-back one */
	fake_ring_publish(&fr[0], sample(&b, 2, 2, 118 * ms, 0, 1, 1));
	assert_int_equal(perf_rings_drain(rings, 2, 160 * ms, copybuf, take, &t), 2);
	assert_int_equal(t.times[1], 118 * ms);
	assert_int_equal(t.times[2], 150 * ms);
	/* the final drain takes everything */
	fake_ring_publish(&fr[0], sample(&b, 2, 2, 200 * ms, 0, 1, 1));
	assert_int_equal(perf_rings_drain(rings, 2, UINT64_MAX, copybuf, take, &t), 1);
	assert_int_equal(t.times[3], 200 * ms);
	assert_int_equal(rings[0].meta->data_tail, rings[0].meta->data_head);
	assert_int_equal(rings[1].meta->data_tail, rings[1].meta->data_head);
	free(fr[0].mem);
	free(fr[1].mem);
}

/* ---- fp leaf words: only code addresses survive ---- */

static void exec_ranges_merge_and_bound(void **state)
{
	struct fixture *f = *state;

	assert_false(perf_decode_is_exec(&f->d, 0x1000));
	assert_int_equal(perf_decode_note_exec(&f->d, 0x5000, 0x1000), 0);
	assert_int_equal(perf_decode_note_exec(&f->d, 0x1000, 0x1000), 0);
	assert_int_equal(perf_decode_note_exec(&f->d, 0x9000, 0x1000), 0);
	assert_int_equal(f->d.exec.nr, 3);
	assert_true(perf_decode_is_exec(&f->d, 0x1000));
	assert_true(perf_decode_is_exec(&f->d, 0x1fff));
	assert_false(perf_decode_is_exec(&f->d, 0x2000));	/* end is outside */
	assert_false(perf_decode_is_exec(&f->d, 0xfff));
	assert_true(perf_decode_is_exec(&f->d, 0x5800));
	/* touching and overlapping ranges coalesce, all three into one */
	assert_int_equal(perf_decode_note_exec(&f->d, 0x2000, 0x3000), 0);
	assert_int_equal(perf_decode_note_exec(&f->d, 0x5800, 0x4000), 0);
	assert_int_equal(f->d.exec.nr, 1);
	assert_int_equal(f->d.exec.v[0].start, 0x1000);
	assert_int_equal(f->d.exec.v[0].end, 0xa000);
	assert_true(perf_decode_is_exec(&f->d, 0x3000));
	assert_false(perf_decode_is_exec(&f->d, 0xa000));
	assert_int_equal(perf_decode_note_exec(&f->d, UINT64_MAX - 10, 100), 0);	/* clamped */
	assert_true(perf_decode_is_exec(&f->d, UINT64_MAX - 1));
	assert_int_equal(f->d.exec.nr, 2);
}

static struct perf_event_header *mmap2(struct rec_buf *b, uint64_t start, uint64_t len,
				       uint32_t prot, const char *path)
{
	struct perf_event_header *h = (void *)b->w;
	char *body = (char *)(h + 1);
	uint32_t v32[2] = { 100, 100 };
	uint64_t v64[3] = { start, len, 0 }, trailer[3] = { 100 | 100ull << 32, 1, 0 };
	size_t plen = (strlen(path) + 8) & ~(size_t)7;

	memset(b, 0, sizeof(*b));
	h->type = PERF_RECORD_MMAP2;
	memcpy(body, v32, 8);
	memcpy(body + 8, v64, 24);
	memcpy(body + 56, &prot, 4);
	strcpy(body + 64, path);
	memcpy(body + 64 + plen, trailer, sizeof(trailer));
	h->size = (uint16_t)(sizeof(*h) + 64 + plen + sizeof(trailer));
	return h;
}

/* A sample with CALLCHAIN {user ip, caller}, REGS_USER bp/sp/ip, 64 stack bytes. */
static struct perf_event_header *cg_sample(struct rec_buf *b, const uint64_t *words)
{
	struct perf_event_header *h = sample(b, 100, 100, 10, 0, 1000, 2000);
	uint64_t *p = (uint64_t *)(h + 1) + 9;

	*p++ = 3;
	*p++ = PERF_CONTEXT_USER;
	*p++ = 0x401000;			/* the sample's ip */
	*p++ = 0x400900;
	*p++ = 2;				/* PERF_SAMPLE_REGS_ABI_64 */
	*p++ = 0x7ffc00001000ull;		/* bp */
	*p++ = 0x7ffc00000f00ull;		/* sp */
	*p++ = 0x401000;			/* ip */
	*p++ = 64;
	memcpy(p, words, 64);
	p += 8;
	*p++ = 64;				/* dyn_size */
	h->size = (uint16_t)((char *)p - (char *)h);
	return h;
}

static const uint64_t leaf_words[8] = {
	0x7ffc00000f40ull,	/* a stack address */
	42,			/* a saved counter */
	0x400a17,		/* return address into the executable */
	0x7f0000001234ull,	/* return address into a library mapped executable */
	0x7f0000101234ull,	/* into the same library's data (not executable) */
	0x400000 + 0x10000,	/* one past the executable's end */
	0,
	0x3fffff,		/* one before its start */
};

static void check_words(struct fixture *f, const uint64_t *want)
{
	struct trace_reader *r;
	struct trace_record rec;
	unsigned int ustacks = 0;

	assert_int_equal(trace_writer_close(f->w), 0);
	f->w = NULL;
	assert_int_equal(trace_reader_open(&r, f->path, NULL, NULL), 0);
	while (trace_reader_next(r, &rec) == 1) {
		uint64_t got[8];

		if (rec.type != PMIPROF_REC_USTACK)
			continue;
		assert_int_equal(rec.ustack.size, 64);
		assert_int_equal(rec.ustack.regs_mask, 0x1c0);
		assert_int_equal(rec.ustack.regs[1], 0x7ffc00000f00ull);
		memcpy(got, rec.ustack.data, 64);
		assert_memory_equal(got, want, 64);
		ustacks++;
	}
	assert_int_equal(ustacks, 1);
	trace_reader_close(r);
}

static void fp_leaf_words_keep_only_addresses_in_executable_mappings(void **state)
{
	struct fixture *f = *state;
	static const uint64_t want[8] = { 0, 0, 0x400a17, 0x7f0000001234ull, 0, 0, 0, 0 };
	struct rec_buf b;

	f->d.call_graph = PMIPROF_CALL_GRAPH_FP;
	f->d.regs_mask = 0x1c0;
	assert_int_equal(feed(f, 0, mmap2(&b, 0x400000, 0x10000, PROT_READ | PROT_EXEC, "/bin/x")), 0);
	assert_int_equal(feed(f, 0, mmap2(&b, 0x7f0000000000ull, 0x100000, PROT_READ | PROT_EXEC,
					  "/lib/libc.so.6")), 0);
	assert_int_equal(feed(f, 0, mmap2(&b, 0x7f0000100000ull, 0x10000, PROT_READ | PROT_WRITE,
					  "/lib/libc.so.6")), 0);
	assert_int_equal(feed(f, 0, cg_sample(&b, leaf_words)), 0);
	check_words(f, want);
}

static void dwarf_user_stack_is_stored_untouched(void **state)
{
	struct fixture *f = *state;
	struct rec_buf b;

	f->d.call_graph = PMIPROF_CALL_GRAPH_DWARF;
	f->d.regs_mask = 0x1c0;
	assert_int_equal(feed(f, 0, mmap2(&b, 0x400000, 0x10000, PROT_READ | PROT_EXEC, "/bin/x")), 0);
	assert_int_equal(feed(f, 0, cg_sample(&b, leaf_words)), 0);
	check_words(f, leaf_words);
}

/* The size of the one USTACK in the trace (closes the writer). */
static uint32_t ustack_size(struct fixture *f)
{
	unsigned int i, n = 0;
	uint32_t size = 0;

	read_back(f);
	for (i = 0; i < f->nr; i++) {
		if (f->recs[i].type == PMIPROF_REC_USTACK) {
			size = f->recs[i].ustack.size;
			n++;
		}
	}
	assert_int_equal(n, 1);
	return size;
}

/*
 * dwarf: a main thread's copy ends at exec's argc (the process's start_stack)
 * when the copy holds argc and argv[0] pointing above it there; anything
 * else there, and the copy is stored whole.
 */
static void dwarf_main_thread_copy_ends_at_exec_argc(void **state)
{
	struct fixture *f = *state;
	uint64_t words[8] = { 1, 2, 3, 4, 1, 0x7ffc00000fe0ull, 0, 0x7ffc00000ff0ull };
	struct rec_buf b;

	f->d.call_graph = PMIPROF_CALL_GRAPH_DWARF;
	f->d.regs_mask = 0x1c0;		/* sp at 0x7ffc00000f00 */
	assert_int_equal(stack_tops_set(&f->d.tops, 100, 0x7ffc00000f20ull), 0);
	assert_int_equal(feed(f, 0, cg_sample(&b, words)), 0);
	assert_int_equal(ustack_size(f), 32);
	assert_int_equal(f->stats.ustack_trimmed, 32);
}

static void dwarf_copy_without_exec_layout_at_the_top_is_whole(void **state)
{
	struct fixture *f = *state;
	/* argv[0] below the top: not what exec writes */
	uint64_t words[8] = { 1, 2, 3, 4, 1, 0x7ffc00000f08ull, 0, 0 };
	struct rec_buf b;

	f->d.call_graph = PMIPROF_CALL_GRAPH_DWARF;
	f->d.regs_mask = 0x1c0;
	assert_int_equal(stack_tops_set(&f->d.tops, 100, 0x7ffc00000f20ull), 0);
	assert_int_equal(feed(f, 0, cg_sample(&b, words)), 0);
	assert_int_equal(ustack_size(f), 64);
}

static void dwarf_copy_forgets_the_top_at_exec(void **state)
{
	struct fixture *f = *state;
	uint64_t words[8] = { 1, 2, 3, 4, 1, 0x7ffc00000fe0ull, 0, 0x7ffc00000ff0ull };
	struct rec_buf b;
	struct perf_event_header *h;
	uint32_t v32[2] = { 100, 100 };
	uint64_t trailer[3] = { 100 | 100ull << 32, 1, 0 };

	f->d.call_graph = PMIPROF_CALL_GRAPH_DWARF;
	f->d.regs_mask = 0x1c0;
	assert_int_equal(stack_tops_set(&f->d.tops, 100, 0x7ffc00000f20ull), 0);
	/* COMM with the exec flag: the new image has another stack */
	h = (void *)b.w;
	memset(&b, 0, sizeof(b));
	h->type = PERF_RECORD_COMM;
	h->misc = 1 << 13;
	memcpy(h + 1, v32, 8);
	strcpy((char *)(h + 1) + 8, "x");
	memcpy((char *)(h + 1) + 16, trailer, sizeof(trailer));
	h->size = (uint16_t)(sizeof(*h) + 16 + sizeof(trailer));
	assert_int_equal(feed(f, 0, h), 0);
	assert_int_equal(feed(f, 0, cg_sample(&b, words)), 0);
	assert_int_equal(ustack_size(f), 64);
}

static void stack_tops_grow_and_forget(void **state)
{
	struct stack_tops t = { .no_proc = true };
	uint32_t pid;

	(void)state;
	for (pid = 1; pid <= 5000; pid++)
		assert_int_equal(stack_tops_set(&t, pid, pid * 16ull), 0);
	for (pid = 1; pid <= 5000; pid += 2)
		stack_tops_forget(&t, pid);
	for (pid = 1; pid <= 5000; pid++)
		assert_int_equal(stack_tops_get(&t, pid), pid % 2 ? 0 : pid * 16ull);
	stack_tops_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			lost_samples_flag_the_next_window_of_every_thread_on_that_cpu, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			throttling_is_one_event_with_its_duration_not_invented_samples, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			throttle_still_open_at_the_end_is_written_with_its_duration, setup, teardown),
		cmocka_unit_test_setup_teardown(exited_threads_leave_the_window_map, setup,
						teardown),
		cmocka_unit_test_setup_teardown(fallback_follows_forks_beyond_4096_and_prunes_exits,
						setup, teardown),
		cmocka_unit_test(pid_set_grows_and_removes),
		cmocka_unit_test_setup_teardown(exec_ranges_merge_and_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(
			fp_leaf_words_keep_only_addresses_in_executable_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(dwarf_user_stack_is_stored_untouched, setup,
						teardown),
		cmocka_unit_test_setup_teardown(dwarf_main_thread_copy_ends_at_exec_argc, setup,
						teardown),
		cmocka_unit_test_setup_teardown(dwarf_copy_without_exec_layout_at_the_top_is_whole,
						setup, teardown),
		cmocka_unit_test_setup_teardown(dwarf_copy_forgets_the_top_at_exec, setup, teardown),
		cmocka_unit_test(stack_tops_grow_and_forget),
		cmocka_unit_test(drain_merges_by_time_and_holds_back_records_above_the_watermark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
