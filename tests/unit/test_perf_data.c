// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader (lib/perf_data.c, perf_sample.c) on synthetic files
 * written by tests/unit/perf_gen.c after perf's documented layout: every
 * sample_type field decoded at its place (and a sample cut anywhere
 * refused by name), a group READ turned into per-event deltas, a callchain
 * into a STACK, MMAP2 in both forms with their build-ids, COMM, FORK,
 * EXIT, LOST, LOST_SAMPLES, THROTTLE; FINISHED_ROUND ordering; pipe mode
 * and zstd COMPRESSED records giving the same records as the plain file;
 * big-endian and AUX data refused; a file cut at any byte read up to the
 * cut with one message naming an offset, never a crash.
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
#include <sys/mman.h>
#include <zstd.h>
#include <cmocka.h>

#include "perf_data_format.h"
#include "perf_gen.h"
#include "perf_sample.h"
#include "pmiprof/trace.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int diags;
static char last_diag[1024];

static void save_diag(void *arg, const char *msg)
{
	(void)arg;
	diags++;
	snprintf(last_diag, sizeof(last_diag), "%s", msg);
}

/* ---- perf_sample_decode: every field in its place ---- */

#define ALL_BITS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
		  PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
		  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
		  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | \
		  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
		  PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

static uint64_t rd(const uint8_t *p, unsigned int i)
{
	uint64_t v;

	memcpy(&v, p + 8 * i, 8);
	return v;
}

/* The body of one sample with every field, in the kernel's order. */
static void all_fields_body(struct pgen *g, bool hw_index)
{
	static const uint8_t raw[12] = "raw-payload";
	uint64_t i;

	pg_u64(g, 77);				/* IDENTIFIER */
	pg_u64(g, 0x401000);			/* IP */
	pg_u32(g, 100);				/* TID: pid, tid */
	pg_u32(g, 101);
	pg_u64(g, 5000);			/* TIME */
	pg_u64(g, 0xdead0);			/* ADDR */
	pg_u64(g, 77);				/* ID */
	pg_u64(g, 78);				/* STREAM_ID */
	pg_u32(g, 3);				/* CPU, res */
	pg_u32(g, 0);
	pg_u64(g, 4242);			/* PERIOD */
	pg_u64(g, 2);				/* READ group: nr, enabled, running */
	pg_u64(g, 900);
	pg_u64(g, 800);
	for (i = 0; i < 2; i++) {		/* value, id, lost */
		pg_u64(g, 1000 * (i + 1));
		pg_u64(g, 77 + i * 10);
		pg_u64(g, i);
	}
	pg_u64(g, 4);				/* CALLCHAIN */
	pg_u64(g, (uint64_t)PERF_CONTEXT_USER);
	pg_u64(g, 0x401000);
	pg_u64(g, 0x402000);
	pg_u64(g, 0x403000);
	pg_u32(g, sizeof(raw));			/* RAW: u32 size + 12 bytes = 16 */
	pg_put(g, raw, sizeof(raw));
	pg_u64(g, 2);				/* BRANCH_STACK nr */
	if (hw_index)
		pg_u64(g, 5);
	for (i = 0; i < 6; i++)
		pg_u64(g, 0x500000 + i);
	pg_u64(g, PERF_SAMPLE_REGS_ABI_64);	/* REGS_USER: 2 registers */
	pg_u64(g, 0x7ffd00);
	pg_u64(g, 0x401000);
	pg_u64(g, 16);				/* STACK_USER: 16 bytes, dyn_size 8 */
	pg_u64(g, 0x1111111111111111ULL);
	pg_u64(g, 0x2222222222222222ULL);
	pg_u64(g, 8);
	pg_u64(g, 0x0003000200000001ULL);	/* WEIGHT_STRUCT */
	pg_u64(g, 0x68100142ULL);		/* DATA_SRC */
	pg_u64(g, 6);				/* TRANSACTION */
	pg_u64(g, PERF_SAMPLE_REGS_ABI_64);	/* REGS_INTR: 1 register */
	pg_u64(g, 0xffffffff81000000ULL);
	pg_u64(g, 0x12345000);			/* PHYS_ADDR */
	pg_u64(g, 9);				/* CGROUP */
	pg_u64(g, 4096);			/* DATA_PAGE_SIZE */
	pg_u64(g, 2097152);			/* CODE_PAGE_SIZE */
}

static struct perf_sample_layout all_layout(bool hw_index)
{
	return (struct perf_sample_layout){
		ALL_BITS,
		PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		PERF_SAMPLE_BRANCH_ANY | (hw_index ? PERF_SAMPLE_BRANCH_HW_INDEX : 0),
		0x3, 0x1 };
}

static void sample_every_field_decoded(void **state)
{
	struct perf_sample_layout l = all_layout(true);
	struct pgen g = { 0 };
	struct perf_sample *s = malloc(sizeof(*s));
	size_t cut;

	(void)state;
	all_fields_body(&g, true);
	assert_null(perf_sample_decode(&l, g.b, g.len, s));
	assert_int_equal(s->id, 77);
	assert_int_equal(s->ip, 0x401000);
	assert_int_equal(s->pid, 100);
	assert_int_equal(s->tid, 101);
	assert_int_equal(s->time, 5000);
	assert_int_equal(s->addr, 0xdead0);
	assert_int_equal(s->stream_id, 78);
	assert_int_equal(s->cpu, 3);
	assert_int_equal(s->period, 4242);
	assert_int_equal(s->time_enabled, 900);
	assert_int_equal(s->time_running, 800);
	assert_int_equal(s->nr_read, 2);
	assert_int_equal(s->read[0].value, 1000);
	assert_int_equal(s->read[0].id, 77);
	assert_int_equal(s->read[1].value, 2000);
	assert_int_equal(s->read[1].id, 87);
	assert_int_equal(s->read[1].lost, 1);
	assert_int_equal(s->callchain_nr, 4);
	assert_int_equal(rd(s->callchain, 0), (uint64_t)PERF_CONTEXT_USER);
	assert_int_equal(rd(s->callchain, 3), 0x403000);
	assert_int_equal(s->raw_size, 12);
	assert_memory_equal(s->raw, "raw-payload", 12);
	assert_int_equal(s->branch_nr, 2);
	assert_int_equal(s->branch_hw_idx, 5);
	assert_int_equal(rd(s->branches, 0), 0x500000);	/* from */
	assert_int_equal(rd(s->branches, 5), 0x500005);	/* flags of the second */
	assert_null(s->branch_counters);
	assert_int_equal(s->user_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(s->user_nr_regs, 2);
	assert_int_equal(rd(s->user_regs, 1), 0x401000);
	assert_int_equal(s->stack_size, 16);
	assert_int_equal(s->stack_dyn_size, 8);
	assert_int_equal(rd(s->stack, 1), 0x2222222222222222ULL);
	assert_int_equal(s->weight, 0x0003000200000001ULL);
	assert_int_equal(s->data_src, 0x68100142ULL);
	assert_int_equal(s->transaction, 6);
	assert_int_equal(s->intr_nr_regs, 1);
	assert_int_equal(rd(s->intr_regs, 0), 0xffffffff81000000ULL);
	assert_int_equal(s->phys_addr, 0x12345000);
	assert_int_equal(s->cgroup, 9);
	assert_int_equal(s->data_page_size, 4096);
	assert_int_equal(s->code_page_size, 2097152);
	/* cut anywhere: refused, with the field named */
	for (cut = 0; cut < g.len; cut++) {
		const char *why = perf_sample_decode(&l, g.b, cut, s);

		assert_non_null(why);
		assert_non_null(strstr(why, "past the record") ? why : strstr(why, "larger"));
	}
	pg_free(&g);
	free(s);
}

static void sample_without_hw_index_and_single_read(void **state)
{
	struct perf_sample_layout l = all_layout(false);
	struct perf_sample_layout one = { PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT,
					  PERF_FORMAT_ID, 0, 0xff, 0 };
	struct pgen g = { 0 };
	struct perf_sample *s = malloc(sizeof(*s));

	(void)state;
	all_fields_body(&g, false);
	assert_null(perf_sample_decode(&l, g.b, g.len, s));
	assert_int_equal(s->branch_hw_idx, 0);
	assert_int_equal(rd(s->branches, 0), 0x500000);
	assert_int_equal(s->code_page_size, 2097152);
	/* one byte more is a hw_idx the layout does not have: the sizes disagree */
	l.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
	assert_non_null(perf_sample_decode(&l, g.b, g.len, s));
	pg_free(&g);
	/* single READ (value, id), user regs ABI NONE (no registers), no stack copied */
	pg_u64(&g, 0x401234);
	pg_u64(&g, 555);
	pg_u64(&g, 9);
	pg_u64(&g, PERF_SAMPLE_REGS_ABI_NONE);
	pg_u64(&g, 0);
	pg_u64(&g, 31);
	assert_null(perf_sample_decode(&one, g.b, g.len, s));
	assert_int_equal(s->nr_read, 1);
	assert_int_equal(s->read[0].value, 555);
	assert_int_equal(s->read[0].id, 9);
	assert_int_equal(s->user_nr_regs, 0);
	assert_int_equal(s->stack_size, 0);
	assert_int_equal(s->weight, 31);
	pg_free(&g);
	free(s);
}

static void sample_id_trailer_decoded(void **state)
{
	uint64_t t = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
		     PERF_SAMPLE_IDENTIFIER;
	struct pg_sid sid = { 7, 8, 900, 33, 0, 1 };
	struct perf_sample *s = malloc(sizeof(*s));
	struct pgen g = { 0 };
	size_t tr;

	(void)state;
	pg_u64(&g, 0xabcdef);			/* a record's own field before the trailer */
	pg_sid(&g, t, &sid);
	assert_null(perf_sample_id_decode(t, g.b, g.len, s, &tr));
	assert_int_equal(tr, 40);
	assert_int_equal(s->pid, 7);
	assert_int_equal(s->tid, 8);
	assert_int_equal(s->time, 900);
	assert_int_equal(s->id, 33);
	assert_int_equal(s->cpu, 1);
	assert_int_equal(perf_sample_id_pos_from_end(t), 1);
	assert_int_equal(perf_sample_id_pos_from_end(t & ~PERF_SAMPLE_IDENTIFIER), 2);
	assert_int_equal(perf_sample_id_pos(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID), 2);
	assert_non_null(perf_sample_id_decode(t, g.b, 32, s, &tr));
	pg_free(&g);
	free(s);
}

/* ---- whole files ---- */

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN)
#define KIP 0xffffffff81001000ULL

static const uint64_t lead_ids[] = { 11 }, member_ids[] = { 21 };
static const uint8_t bid_work[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
				      16, 17, 18, 19 };
static const uint8_t bid_lib[20] = { 0xbb, 0xbb, 3 };
static const uint8_t bid_kernel[20] = { 0xcc, 0xcc, 0xcc };

static void group_attrs(struct pg_attr a[2])
{
	memset(a, 0, 2 * sizeof(*a));
	a[0].attr.type = PERF_TYPE_SOFTWARE;
	a[0].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	a[0].attr.size = sizeof(a[0].attr);
	a[0].attr.sample_period = 1000000;
	a[0].attr.sample_type = ST;
	a[0].attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	a[0].attr.sample_id_all = 1;
	a[0].ids = lead_ids;
	a[0].nr_ids = 1;
	a[0].name = "cpu-clock:u";
	a[1] = a[0];
	a[1].attr.config = PERF_COUNT_SW_TASK_CLOCK;
	a[1].attr.sample_period = 0;
	a[1].ids = member_ids;
	a[1].name = "task-clock";
}

static void sample(struct pgen *g, uint64_t time, uint64_t ip, uint64_t v0, uint64_t v1,
		   bool chain)
{
	size_t at = pg_begin(g, PERF_RECORD_SAMPLE, ip >= KIP ? PERF_RECORD_MISC_KERNEL :
			     PERF_RECORD_MISC_USER);

	pg_u64(g, ip);
	pg_u32(g, 100);
	pg_u32(g, 101);
	pg_u64(g, time);
	pg_u64(g, 11);			/* ID: the leader */
	pg_u32(g, 1);
	pg_u32(g, 0);
	pg_u64(g, 2);			/* READ group: nr, { value, id } x 2 */
	pg_u64(g, v0);
	pg_u64(g, 11);
	pg_u64(g, v1);
	pg_u64(g, 21);
	if (chain) {
		pg_u64(g, 6);
		pg_u64(g, (uint64_t)PERF_CONTEXT_KERNEL);
		pg_u64(g, ip);		/* the sampled ip comes first */
		pg_u64(g, KIP + 0x500);
		pg_u64(g, (uint64_t)PERF_CONTEXT_USER);
		pg_u64(g, 0x401100);
		pg_u64(g, 0x401200);
	} else {
		pg_u64(g, 0);
	}
	pg_end(g, at);
}

/* The data section: side-band, two rounds with samples out of order, the rest. */
static void data_records(struct pgen *g)
{
	struct pg_sid s = { 100, 101, 0, 11, 0, 1 };
	size_t at;

	s.time = 100;
	pg_comm(g, ST, 100, 100, "work", 1, &s);
	s.time = 110;
	pg_mmap2(g, ST, 100, 0x400000, 0x10000, 0, PROT_READ | PROT_EXEC, bid_work, 20, "/bin/work",
		 &s);
	s.time = 120;
	pg_mmap2(g, ST, 100, 0x7f0000000000, 0x20000, 0x1000, PROT_READ | PROT_EXEC, NULL, 0,
		 "/lib/libx.so", &s);
	s.time = 0;
	pg_mmap(g, ST, UINT32_MAX, KIP, 0x1000000, KIP, "[kernel.kallsyms]_text", &s);
	sample(g, 300, 0x401010, 1000, 2000, false);
	sample(g, 200, 0x7f0000001010, 500, 900, false);
	s.time = 250;
	pg_lost(g, ST, 11, 7, &s);
	pg_round(g);
	sample(g, 400, KIP + 0x10, 1600, 3100, true);
	s.time = 405;
	pg_throttle(g, ST, 0, 410, 11, &s);
	pg_throttle(g, ST, 1, 450, 11, &s);
	s.time = 460;
	pg_lost_samples(g, ST, 9, &s);	/* perf's end-of-run total: 2 more than LOST said */
	at = pg_begin(g, PERF_RECORD_KSYMBOL, 0);	/* read, not mapped: counted */
	pg_u64(g, KIP);
	pg_u64(g, 0);
	s.time = 465;
	pg_sid(g, ST, &s);
	pg_end(g, at);
	pg_task(g, ST, PERF_RECORD_FORK, 102, 100, 102, 101, 470, &s);
	pg_task(g, ST, PERF_RECORD_EXIT, 102, 100, 102, 101, 480, &s);
	pg_round(g);
}

static const char *const argv_[] = { "perf", "record", "-e", "{cpu-clock,task-clock}:S" };

static void build_ids(struct pgen *g, uint32_t type)
{
	pg_build_id(g, type, PERF_RECORD_MISC_USER, 100, bid_lib, 20, "/lib/libx.so");
	pg_build_id(g, type, PERF_RECORD_MISC_KERNEL, -1, bid_kernel, 20, "[kernel.kallsyms]");
}

static void make_file_sized(struct pgen *out, bool pipe, const uint8_t *data, size_t dlen,
			    uint32_t attr_size)
{
	struct pg_attr a[2];
	struct pgen b = { 0 };
	struct pg_feat f = { "box", "6.1.0-test", "6.1.99", "x86_64", "Test CPU @ 1GHz",
			     "GenuineIntel,6,85,4", argv_, 4, 8, NULL, 0 };

	group_attrs(a);
	build_ids(&b, 0);
	f.build_ids = b.b;
	f.build_ids_len = b.len;
	if (pipe)
		pgen_pipe(out, a, 2, data, dlen, &f);
	else
		pgen_file_attr_size(out, a, 2, data, dlen, &f, attr_size);
	pg_free(&b);
}

static void make_file(struct pgen *out, bool pipe, const uint8_t *data, size_t dlen)
{
	make_file_sized(out, pipe, data, dlen, sizeof(struct perf_event_attr));
}

/* What a reading gave, flattened for comparison. */
struct got {
	uint32_t n;
	struct trace_record rec[32];
	char str[32][64];
	uint64_t ips[32][8];
	int rc;
};

static int read_all(const uint8_t *buf, size_t len, struct trace_header *h, struct got *g)
{
	struct trace_reader *r;
	struct trace_record rec;
	int rc;

	memset(g, 0, sizeof(*g));
	rc = trace_reader_open_mem(&r, buf, len, "test.data", save_diag, NULL);
	if (rc)
		return rc;
	if (h)
		*h = *trace_reader_header(r);
	while ((rc = trace_reader_next(r, &rec)) > 0) {
		if (g->n == ARRAY_LEN(g->rec))
			continue;
		g->rec[g->n] = rec;
		if (rec.type == PMIPROF_REC_MMAP)
			snprintf(g->str[g->n], 64, "%s", rec.mmap.path);
		if (rec.type == PMIPROF_REC_COMM)
			snprintf(g->str[g->n], 64, "%s", rec.comm.comm);
		if (rec.type == PMIPROF_REC_STACK)
			memcpy(g->ips[g->n], rec.stack.ips, 8 * (rec.stack.nr < 8 ? rec.stack.nr : 8));
		g->n++;
	}
	g->rc = rc;
	trace_reader_close(r);
	return 0;
}

static void check_records(const struct got *g)
{
	const struct trace_record *r = g->rec;
	uint32_t i = 0;

	assert_int_equal(g->rc, 0);
	assert_int_equal(g->n, 13);
	assert_int_equal(r[i].type, PMIPROF_REC_COMM);
	assert_string_equal(g->str[i], "work");
	assert_int_equal(r[i].comm.flags, PMIPROF_COMM_F_EXEC);
	assert_int_equal(r[i].comm.time, 100);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_MMAP);
	assert_string_equal(g->str[i], "/bin/work");
	assert_int_equal(r[i].mmap.start, 0x400000);
	assert_int_equal(r[i].mmap.len, 0x10000);
	assert_int_equal(r[i].mmap.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(r[i].mmap.build_id_len, 20);
	assert_memory_equal(r[i].mmap.build_id, bid_work, 20);
	i++;
	/* inode form: the build-id comes from the BUILD_ID feature */
	assert_int_equal(r[i].type, PMIPROF_REC_MMAP);
	assert_string_equal(g->str[i], "/lib/libx.so");
	assert_int_equal(r[i].mmap.pgoff, 0x1000);
	assert_int_equal(r[i].mmap.build_id_len, 20);
	assert_memory_equal(r[i].mmap.build_id, bid_lib, 20);
	i++;
	/* the kernel's MMAP is not passed on; samples sorted by time within the round */
	assert_int_equal(r[i].type, PMIPROF_REC_SAMPLE);
	assert_int_equal(r[i].sample.time, 200);
	assert_int_equal(r[i].sample.ip, 0x7f0000001010);
	assert_int_equal(r[i].sample.pid, 100);
	assert_int_equal(r[i].sample.tid, 101);
	assert_int_equal(r[i].sample.cpu, 1);
	assert_int_equal(r[i].sample.flags, PMIPROF_SAMPLE_F_USER);
	assert_int_equal(r[i].sample.nr, 2);
	assert_int_equal(r[i].sample.counts[0], 500);	/* first read of each counter */
	assert_int_equal(r[i].sample.counts[1], 900);
	assert_int_equal(r[i].sample.stack, 0);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_LOST);
	assert_int_equal(r[i].lost.time, 250);
	assert_int_equal(r[i].lost.count, 7);
	assert_int_equal(r[i].lost.cpu, 1);
	assert_int_equal(r[i].lost.reason, PMIPROF_LOST_RING_FULL);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_SAMPLE);
	assert_int_equal(r[i].sample.time, 300);
	assert_int_equal(r[i].sample.counts[0], 500);	/* 1000 - 500 */
	assert_int_equal(r[i].sample.counts[1], 1100);	/* 2000 - 900 */
	i++;
	/* a callchain: its STACK first (kernel frames, then user, the sampled ip left out) */
	assert_int_equal(r[i].type, PMIPROF_REC_STACK);
	assert_int_equal(r[i].stack.nr, 3);
	assert_int_equal(r[i].stack.nr_kernel, 1);
	assert_int_equal(g->ips[i][0], KIP + 0x500);
	assert_int_equal(g->ips[i][1], 0x401100);
	assert_int_equal(g->ips[i][2], 0x401200);
	assert_int_equal(r[i + 1].chunk_seq, r[i].chunk_seq);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_SAMPLE);
	assert_int_equal(r[i].sample.time, 400);
	assert_int_equal(r[i].sample.flags, PMIPROF_SAMPLE_F_KERNEL);
	assert_int_equal(r[i].sample.stack, 1);
	assert_int_equal(r[i].sample.counts[0], 600);
	assert_int_equal(r[i].sample.counts[1], 1100);
	i++;
	/* THROTTLE at 410 ended by UNTHROTTLE at 450: one pause of 40 ns */
	assert_int_equal(r[i].type, PMIPROF_REC_LOST);
	assert_int_equal(r[i].lost.reason, PMIPROF_LOST_THROTTLE);
	assert_int_equal(r[i].lost.count, 1);
	assert_int_equal(r[i].lost.time, 410);
	assert_int_equal(r[i].lost.duration, 40);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_FORK);
	assert_int_equal(r[i].task.pid, 102);
	assert_int_equal(r[i].task.ppid, 100);
	assert_int_equal(r[i].task.tid, 102);
	assert_int_equal(r[i].task.ptid, 101);
	assert_int_equal(r[i].task.time, 470);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_EXIT);
	i++;
	/* LOST_SAMPLES totals the same losses as LOST: only their excess is added */
	assert_int_equal(r[i].type, PMIPROF_REC_LOST);
	assert_int_equal(r[i].lost.count, 2);
	assert_int_equal(r[i].lost.reason, PMIPROF_LOST_RING_FULL);
	i++;
	assert_int_equal(r[i].type, PMIPROF_REC_FINISH);
	assert_int_equal(r[i].finish.samples, 3);
	assert_int_equal(r[i].finish.lost, 9);
}

/*
 * With PMIPROF_PERF_GEN_DIR set, the synthetic file is also written there,
 * so that perf itself can read it (t256 compares perf script with it).
 */
static void save_copy(const struct pgen *f, const char *name)
{
	const char *dir = getenv("PMIPROF_PERF_GEN_DIR");
	char path[4096];
	FILE *fp;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(f->b, 1, f->len, fp), f->len);
	assert_int_equal(fclose(fp), 0);
}

static void file_mode_records_and_header(void **state)
{
	struct pgen d = { 0 }, f = { 0 };
	struct trace_header *h = malloc(sizeof(*h));
	struct got *g = malloc(sizeof(*g));

	(void)state;
	data_records(&d);
	make_file(&f, false, d.b, d.len);
	save_copy(&f, "synthetic.data");
	diags = 0;
	assert_int_equal(read_all(f.b, f.len, h, g), 0);
	check_records(g);
	/* the KSYMBOL was read, counted and named once */
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "KSYMBOL 1"));
	assert_int_equal(h->nr_events, 2);
	assert_string_equal(h->events[0].name, "cpu-clock:u");
	assert_string_equal(h->events[1].name, "task-clock");
	assert_true(h->events[0].flags & PMIPROF_EVENT_F_TRIGGER);
	assert_int_equal(h->trigger_index, 0);
	assert_int_equal(h->period, 1000000);
	assert_true(h->flags & PMIPROF_TRACE_F_TIME_BASED);
	assert_string_equal(h->hostname, "box");
	assert_string_equal(h->kernel_release, "6.1.0-test");
	assert_string_equal(h->cpu_model_name, "Test CPU @ 1GHz");
	assert_string_equal(h->cpu_vendor, "GenuineIntel");
	assert_int_equal(h->cpu_model, 85);
	assert_int_equal(h->nr_cpus, 8);
	assert_string_equal(h->cmdline, "perf record -e {cpu-clock,task-clock}:S");
	assert_int_equal(h->cmdline_argc, 4);
	assert_string_equal(h->recorder, "perf 6.1.99");
	assert_int_equal(h->kernel_build_id_len, 20);
	assert_memory_equal(h->kernel_build_id, bid_kernel, 20);
	assert_int_equal(h->call_graph, PMIPROF_CALL_GRAPH_FP);
	pg_free(&d);
	pg_free(&f);
	free(h);
	free(g);
}

static void pipe_mode_gives_the_same_records(void **state)
{
	struct pgen d = { 0 }, f = { 0 };
	struct trace_header *h = malloc(sizeof(*h));
	struct got *g = malloc(sizeof(*g));

	(void)state;
	data_records(&d);
	make_file(&f, true, d.b, d.len);
	save_copy(&f, "synthetic-pipe.data");
	assert_int_equal(read_all(f.b, f.len, h, g), 0);
	check_records(g);
	assert_string_equal(h->events[0].name, "cpu-clock:u");
	assert_string_equal(h->hostname, "box");
	assert_string_equal(h->pmu, "perf.data (pipe mode)");
	pg_free(&d);
	pg_free(&f);
	free(h);
	free(g);
}

/* One COMPRESSED record around n bytes of zstd data (perf 6.1 does not pad these). */
static void compressed(struct pgen *out, const uint8_t *z, size_t n)
{
	struct perf_event_header eh = { PERF_UREC_COMPRESSED, 0, (uint16_t)(8 + n) };

	pg_put(out, &eh, sizeof(eh));
	pg_put(out, z, n);
}

/* The records as one zstd frame in two COMPRESSED records, cut inside a record. */
static void compress_records(struct pgen *out, const uint8_t *data, size_t len)
{
	size_t cap = ZSTD_compressBound(len), n, half;
	uint8_t *z = malloc(cap);

	n = ZSTD_compress(z, cap, data, len, 1);
	assert_false(ZSTD_isError(n));
	half = n / 2 + 3;
	compressed(out, z, half);
	compressed(out, z + half, n - half);
	free(z);
}

static void compressed_records_give_the_same_records(void **state)
{
	struct pgen d = { 0 }, c = { 0 }, f = { 0 };
	struct got *g = malloc(sizeof(*g));

	(void)state;
	data_records(&d);
	compress_records(&c, d.b, d.len);
	make_file(&f, false, c.b, c.len);
	assert_int_equal(read_all(f.b, f.len, NULL, g), 0);
	check_records(g);
	pg_free(&f);
	make_file(&f, true, c.b, c.len);
	assert_int_equal(read_all(f.b, f.len, NULL, g), 0);
	check_records(g);
	pg_free(&d);
	pg_free(&c);
	pg_free(&f);
	free(g);
}

/* perf 3.x wrote 64-byte attrs (PERF_ATTR_SIZE_VER0), later ones 72, 80, ...: all read. */
static void older_attr_sizes_read(void **state)
{
	static const uint32_t sizes[] = { PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1,
					  PERF_ATTR_SIZE_VER2, PERF_ATTR_SIZE_VER3 };
	struct pgen d = { 0 }, f = { 0 };
	struct trace_header *h = malloc(sizeof(*h));
	struct got *g = malloc(sizeof(*g));
	size_t i;

	(void)state;
	data_records(&d);
	for (i = 0; i < ARRAY_LEN(sizes); i++) {
		make_file_sized(&f, false, d.b, d.len, sizes[i]);
		assert_int_equal(read_all(f.b, f.len, h, g), 0);
		check_records(g);
		assert_string_equal(h->events[1].name, "task-clock");
		pg_free(&f);
	}
	/* shorter than perf ever wrote: refused with the offset of the header field */
	make_file_sized(&f, false, d.b, d.len, 56);
	diags = 0;
	assert_int_equal(read_all(f.b, f.len, NULL, g), -EBADMSG);
	assert_non_null(strstr(last_diag, "offset 8: perf.data header"));
	pg_free(&f);
	pg_free(&d);
	free(h);
	free(g);
}

static void big_endian_and_aux_data_refused(void **state)
{
	struct pgen d = { 0 }, f = { 0 };
	struct got *g = malloc(sizeof(*g));
	size_t at;

	(void)state;
	data_records(&d);
	make_file(&f, false, d.b, d.len);
	memcpy(f.b, "2ELIFREP", 8);
	diags = 0;
	assert_int_equal(read_all(f.b, f.len, NULL, g), -EPROTONOSUPPORT);
	assert_int_equal(diags, 1);
	assert_non_null(strstr(last_diag, "test.data: offset 0: big-endian perf.data"));
	pg_free(&f);
	at = pg_begin(&d, PERF_UREC_AUXTRACE_INFO, 0);
	pg_u64(&d, 1);
	pg_end(&d, at);
	make_file(&f, false, d.b, d.len);
	diags = 0;
	assert_int_equal(read_all(f.b, f.len, NULL, g), 0);
	assert_int_equal(g->rc, -EPROTONOSUPPORT);
	assert_non_null(strstr(last_diag, "AUX area data"));
	pg_free(&d);
	pg_free(&f);
	free(g);
}

static void damaged_sample_counted_as_lost(void **state)
{
	struct pgen d = { 0 }, f = { 0 };
	struct got *g = malloc(sizeof(*g));
	size_t at;
	uint32_t i, lost = 0;

	(void)state;
	/* a sample whose READ group says 40 counters in a 64-byte record */
	at = pg_begin(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	pg_u64(&d, 0x401000);
	pg_u64(&d, 100);
	pg_u64(&d, 10);
	pg_u64(&d, 11);
	pg_u64(&d, 1);
	pg_u64(&d, 40);
	pg_end(&d, at);
	sample(&d, 20, 0x401010, 10, 20, false);
	make_file(&f, false, d.b, d.len);
	diags = 0;
	assert_int_equal(read_all(f.b, f.len, NULL, g), 0);
	assert_int_equal(g->rc, 0);
	for (i = 0; i < g->n; i++)
		if (g->rec[i].type == PMIPROF_REC_LOST &&
		    g->rec[i].lost.reason == PMIPROF_LOST_UNREADABLE)
			lost += (uint32_t)g->rec[i].lost.count;
	assert_int_equal(lost, 1);
	assert_int_equal(g->rec[g->n - 2].type, PMIPROF_REC_SAMPLE);
	assert_non_null(strstr(last_diag, "READ group value runs past the record"));
	assert_non_null(strstr(last_diag, "offset "));
	pg_free(&d);
	pg_free(&f);
	free(g);
}

/* Cut at every byte: open fails with a message or reads up to the cut; nothing else. */
static void cut_anywhere_reads_up_to_the_cut(void **state)
{
	struct pgen d = { 0 }, f = { 0 }, p = { 0 };
	struct got *g = malloc(sizeof(*g));
	struct pgen *files[2] = { &f, &p };
	size_t cut;
	int k;

	(void)state;
	data_records(&d);
	make_file(&f, false, d.b, d.len);
	make_file(&p, true, d.b, d.len);
	for (k = 0; k < 2; k++) {
		for (cut = 8; cut < files[k]->len; cut++) {
			uint8_t *copy = malloc(cut);
			int rc;

			memcpy(copy, files[k]->b, cut);
			diags = 0;
			rc = read_all(copy, cut, NULL, g);
			if (rc) {
				assert_int_equal(rc, -EBADMSG);
				assert_int_equal(diags, 1);
				assert_non_null(strstr(last_diag, "offset "));
			} else {
				assert_true(g->rc == 0 || g->rc == -EBADMSG);
				assert_true(g->n <= 13);
			}
			free(copy);
		}
	}
	pg_free(&d);
	pg_free(&f);
	pg_free(&p);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_every_field_decoded),
		cmocka_unit_test(sample_without_hw_index_and_single_read),
		cmocka_unit_test(sample_id_trailer_decoded),
		cmocka_unit_test(file_mode_records_and_header),
		cmocka_unit_test(pipe_mode_gives_the_same_records),
		cmocka_unit_test(compressed_records_give_the_same_records),
		cmocka_unit_test(older_attr_sizes_read),
		cmocka_unit_test(big_endian_and_aux_data_refused),
		cmocka_unit_test(damaged_sample_counted_as_lost),
		cmocka_unit_test(cut_anywhere_reads_up_to_the_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
