// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks in the report, from in-memory STACK records: symbolization
 * rules (return addresses at addr - 1, the exact first user frame of a
 * kernel-mode sample), chunk-local ids, interning, the [truncated] marker,
 * damaged input, and the views (children with recursion counted once,
 * tree percentages and --percent-limit, callers/callees).  Functions come
 * from a perf-PID.map written by the test, so names are the test's own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmiprof/trace.h"
#include "stacks/callstack.h"
#include "input/session.h"
#include "output/stackview.h"

#define PID 4321
/* perf-PID.map functions, 0x100 bytes each */
#define F_START		0x10000ULL
#define F_MAIN		0x10100ULL
#define F_A		0x10200ULL
#define F_B		0x10300ULL
#define F_LEAF		0x10400ULL
#define F_REC		0x10500ULL
#define F_ORPHAN	0x10600ULL
#define F_LSM		0x10700ULL	/* __libc_start_main@@GLIBC_2.34 */
#define KIP		0xffffffff81000040ULL

static char dir[64];
static struct trace_header hdr;

static void make_session(struct session *s, uint32_t mode)
{
	char path[128];
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/pmiprof-cs.XXXXXX");
		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/perf-%d.map", dir, PID);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "10000 100 _start\n10100 100 main\n10200 100 work_a\n10300 100 work_b\n"
			"10400 100 leaf\n10500 100 rec\n10600 100 orphan\n"
			"10700 100 __libc_start_main@@GLIBC_2.34\n");
		fclose(f);
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.version_major = 1;
	hdr.version_minor = 3;
	hdr.nr_events = 2;
	snprintf(hdr.events[0].name, sizeof(hdr.events[0].name), "instructions");
	snprintf(hdr.events[1].name, sizeof(hdr.events[1].name), "cycles");
	hdr.call_graph = mode;
	hdr.call_graph_max_stack = 127;
	memset(s, 0, sizeof(*s));
	/* An empty trace: the views' headers read the reader's statistics. */
	snprintf(path, sizeof(path), "%s/empty.data", dir);
	{
		struct trace_writer *w;

		assert_int_equal(trace_writer_open(&w, path, &hdr, NULL), 0);
		assert_int_equal(trace_writer_close(w), 0);
	}
	assert_int_equal(trace_reader_open(&s->r, path, NULL, NULL), 0);
	s->h = &hdr;
	s->opts.input = "mem";
	s->opts.sym.jit_dir = dir;
	s->hidden_sym = -1;
	s->time_scale = 1.0;
	assert_int_equal(symbolizer_new(&s->sy, &s->opts.sym), 0);
	assert_int_equal(maps_init(&s->maps), 0);
	assert_int_equal(hm_init(&s->ipcache, 256), 0);
	s->opts.stacks = &callstack_hooks;
	assert_int_equal(callstack_hooks.open(&s->cs, s, true), 0);
}

static void define(struct session *s, uint32_t seq, uint32_t id, uint32_t nr_kernel,
		   const uint64_t *ips, uint32_t nr)
{
	struct trace_stack st = { id, nr, nr_kernel, ips };

	assert_int_equal(callstacks_define(s->cs, seq, &st), 0);
}

/* The report-wide stack of a sample at ip with chunk-local stack (id + 1). */
static uint32_t resolve(struct session *s, uint32_t seq, uint64_t ip, uint32_t stack)
{
	struct trace_sample smp;
	uint32_t id;
	int64_t leaf = session_resolve_ip(s, PID, ip);

	assert_true(leaf >= 0);
	memset(&smp, 0, sizeof(smp));
	smp.ip = ip;
	smp.pid = smp.tid = PID;
	smp.nr = 2;
	smp.counts[0] = 1000;
	smp.counts[1] = 500;
	smp.stack = stack;
	assert_int_equal(callstacks_resolve(s->cs, &smp, seq, (uint32_t)leaf, NULL, &id), 0);
	return id;
}

static const char *frame_name(struct session *s, uint32_t id, uint32_t k)
{
	const struct cs_stack *st = callstacks_get(s->cs, id);

	assert_non_null(st);
	assert_true(k < st->nr);
	return symbolizer_sym(s->sy, st->frames[k].sym)->name;
}

static void return_addresses_at_addr_minus_1_and_roots(void **state)
{
	/* Return addresses right after a call at the end of the caller. */
	const uint64_t ips[] = { F_B, F_MAIN + 0x10, F_START + 0x10 };
	struct session s;
	uint32_t id;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	define(&s, 1, 0, 0, ips, 3);
	id = resolve(&s, 1, F_LEAF + 4, 1);
	assert_int_equal(callstacks_get(s.cs, id)->nr, 4);
	assert_string_equal(frame_name(&s, id, 0), "leaf");
	/* F_B is the first byte of work_b: the call was the last thing in work_a. */
	assert_string_equal(frame_name(&s, id, 1), "work_a");
	assert_string_equal(frame_name(&s, id, 2), "main");
	assert_string_equal(frame_name(&s, id, 3), "_start");
	assert_int_equal(callstacks_stats(s.cs)->rooted, 1);
	assert_int_equal(callstacks_stats(s.cs)->truncated, 0);
	session_close(&s);
}

static void kernel_mode_first_user_frame_is_exact(void **state)
{
	/* No kernel frames recorded; the user ip at kernel entry is F_MAIN exactly. */
	const uint64_t ips[] = { F_MAIN, F_START + 0x10 };
	struct session s;
	uint32_t k, u;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	define(&s, 1, 0, 0, ips, 2);
	k = resolve(&s, 1, KIP, 1);
	assert_true(callstacks_get(s.cs, k)->frames[0].flags & CS_F_KERNEL);
	assert_string_equal(frame_name(&s, k, 1), "main");
	/* The same word in a user-mode sample is a return address: looked up at -1. */
	u = resolve(&s, 1, F_LEAF + 4, 1);
	assert_string_equal(frame_name(&s, u, 1), "_start");
	assert_int_not_equal(k, u);
	session_close(&s);
}

static void ids_are_chunk_local_and_stacks_interned(void **state)
{
	const uint64_t one[] = { F_A + 0x10, F_MAIN + 0x10, F_START + 0x10 };
	const uint64_t two[] = { F_B + 0x10, F_MAIN + 0x10, F_START + 0x10 };
	struct session s;
	uint32_t a1, a2, b;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	define(&s, 7, 0, 0, one, 3);
	a1 = resolve(&s, 7, F_LEAF + 4, 1);
	/* Next chunk: id 0 is another stack now. */
	define(&s, 8, 0, 0, two, 3);
	b = resolve(&s, 8, F_LEAF + 4, 1);
	define(&s, 8, 1, 0, one, 3);
	a2 = resolve(&s, 8, F_LEAF + 8, 2);
	assert_int_not_equal(a1, b);
	assert_int_equal(a1, a2);
	assert_string_equal(frame_name(&s, b, 1), "work_b");
	assert_int_equal(callstacks_count(s.cs), 2);
	/* A third chunk without a STACK: id 1 is undefined there. */
	b = resolve(&s, 9, F_LEAF + 4, 1);
	assert_true(callstacks_get(s.cs, b)->frames[1].flags & CS_F_TRUNCATED);
	assert_int_equal(callstacks_stats(s.cs)->damaged, 1);
	session_close(&s);
}

static void chain_without_root_ends_truncated(void **state)
{
	const uint64_t ips[] = { F_A + 0x10, F_ORPHAN + 0x10 };
	struct session s;
	const struct cs_stack *st;
	uint32_t id;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	define(&s, 1, 0, 0, ips, 2);
	id = resolve(&s, 1, F_LEAF + 4, 1);
	st = callstacks_get(s.cs, id);
	assert_int_equal(st->nr, 4);
	assert_true(cs_frame_truncated(&st->frames[3]));
	assert_string_equal(frame_name(&s, id, 3), "[truncated]");
	assert_int_equal(callstacks_stats(s.cs)->truncated, 1);
	assert_int_equal(callstacks_stats(s.cs)->rooted, 0);
	session_close(&s);
}

static void zero_return_and_versioned_root_end_chains(void **state)
{
	/* fp chains of the first frames end in a zero return address (_start zeroes %rbp). */
	const uint64_t zero_end[] = { F_A + 0x10, 0 };
	const uint64_t versioned[] = { F_A + 0x10, F_LSM + 0x10 };
	struct session s;
	uint32_t id;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	define(&s, 1, 0, 0, zero_end, 2);
	define(&s, 1, 1, 0, versioned, 2);
	id = resolve(&s, 1, F_LEAF + 4, 1);
	assert_int_equal(callstacks_get(s.cs, id)->nr, 2);
	id = resolve(&s, 1, F_LEAF + 4, 2);
	assert_int_equal(callstacks_get(s.cs, id)->nr, 3);
	assert_int_equal(callstacks_stats(s.cs)->rooted, 2);
	assert_int_equal(callstacks_stats(s.cs)->truncated, 0);
	assert_int_equal(callstacks_stats(s.cs)->damaged, 0);
	session_close(&s);
}

static void sample_without_stack_is_truncated_unless_root(void **state)
{
	struct session s;
	const struct cs_stack *st;
	uint32_t id;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	/* The fp walk found no frame (e.g. in libc without frame pointers). */
	id = resolve(&s, 1, F_LEAF + 4, 0);
	st = callstacks_get(s.cs, id);
	assert_non_null(st);
	assert_int_equal(st->nr, 2);
	assert_string_equal(frame_name(&s, id, 0), "leaf");
	assert_true(cs_frame_truncated(&st->frames[1]));
	/* A sample in _start itself has nothing above it. */
	id = resolve(&s, 1, F_START + 4, 0);
	assert_int_equal(callstacks_get(s.cs, id)->nr, 1);
	assert_int_equal(callstacks_stats(s.cs)->samples, 2);
	assert_int_equal(callstacks_stats(s.cs)->truncated, 1);
	assert_int_equal(callstacks_stats(s.cs)->rooted, 1);
	session_close(&s);
}

static void damaged_stack_records_counted_never_crash(void **state)
{
	const uint64_t zero[] = { 0, F_MAIN + 0x10 };
	const uint64_t wrong_side[] = { F_A + 0x10, KIP, F_START + 0x10 };
	struct trace_stack huge = { 0, PMIPROF_MAX_STACK + 1, 0, zero };
	struct trace_stack bad_k = { 2, 2, 5, wrong_side };
	struct trace_stack far = { 1u << 30, 1, 0, zero };
	struct session s;
	uint32_t id;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	assert_int_equal(callstacks_define(s.cs, 1, &huge), 0);
	assert_int_equal(callstacks_define(s.cs, 1, &far), 0);
	define(&s, 1, 1, 0, zero, 2);
	define(&s, 1, 3, 0, wrong_side, 3);
	assert_int_equal(callstacks_define(s.cs, 1, &bad_k), 0);
	/* 0: never defined (the huge record was refused); 1: a page-0 frame. */
	id = resolve(&s, 1, F_LEAF + 4, 1);
	assert_true(cs_frame_truncated(&callstacks_get(s.cs, id)->frames[1]));
	id = resolve(&s, 1, F_LEAF + 4, 2);
	assert_true(cs_frame_truncated(&callstacks_get(s.cs, id)->frames[1]));
	/* A kernel address among user frames ends the chain. */
	id = resolve(&s, 1, F_LEAF + 4, 4);
	assert_string_equal(frame_name(&s, id, 1), "work_a");
	assert_true(cs_frame_truncated(&callstacks_get(s.cs, id)->frames[2]));
	/* nr_kernel > nr: clamped, counted. */
	id = resolve(&s, 1, F_LEAF + 4, 3);
	assert_non_null(callstacks_get(s.cs, id));
	id = resolve(&s, 1, F_LEAF + 4, 1000);
	assert_true(cs_frame_truncated(&callstacks_get(s.cs, id)->frames[1]));
	/* Refused or undefined records are damage; page-0 or wrong-side frames are broken walks. */
	assert_int_equal(callstacks_stats(s.cs)->damaged, 5);
	assert_int_equal(callstacks_stats(s.cs)->rooted, 0);
	session_close(&s);
}

/* Adds n samples at ip with chunk-local stack to the view. */
static void add(struct session *s, struct stackview *v, uint32_t seq, uint64_t ip,
		uint32_t stack, int n)
{
	struct trace_sample smp;
	int64_t leaf = session_resolve_ip(s, PID, ip);

	memset(&smp, 0, sizeof(smp));
	smp.ip = ip;
	smp.pid = PID;
	smp.nr = 2;
	smp.counts[0] = 1000;
	smp.counts[1] = 500;
	smp.stack = stack;
	while (n-- > 0) {
		assert_int_equal(callstacks_resolve(s->cs, &smp, seq, (uint32_t)leaf, NULL,
						    &s->stack), 0);
		assert_int_equal(stackview_add(v, &smp, 0, (uint32_t)leaf, 0), 0);
	}
}

static const struct sv_row *row_named(struct session *s, struct stackview *v, const char *name)
{
	uint32_t i;

	for (i = 0; i < v->nr_rows; i++)
		if (v->rows[i].children && !strcmp(symbolizer_sym(s->sy, i)->name, name))
			return &v->rows[i];
	return NULL;
}

static void children_count_recursion_once(void **state)
{
	const uint64_t recur[] = { F_REC + 0x10, F_REC + 0x10, F_REC + 0x10, F_MAIN + 0x10,
				   F_START + 0x10 };
	const uint64_t plain[] = { F_MAIN + 0x10, F_START + 0x10 };
	struct session s;
	struct stackview v;
	const struct sv_row *r;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	assert_int_equal(stackview_init(&v, &s), 0);
	define(&s, 1, 0, 0, recur, 5);
	define(&s, 1, 1, 0, plain, 2);
	add(&s, &v, 1, F_LEAF + 4, 1, 3);	/* leaf <- rec <- rec <- rec <- main */
	add(&s, &v, 1, F_REC + 4, 1, 2);	/* rec itself, recursing: leaf is rec */
	add(&s, &v, 1, F_A + 4, 2, 5);		/* work_a <- main */
	assert_int_equal(stackview_children(&v), 0);
	r = row_named(&s, &v, "rec");
	assert_non_null(r);
	assert_int_equal(r->children, 5);	/* not 3 * 3 + 4 * 2 */
	assert_int_equal(r->self, 2);
	assert_int_equal(r->incl[0], 5000);
	assert_int_equal(r->incl[1], 2500);
	assert_int_equal(r->excl[0], 2000);
	r = row_named(&s, &v, "main");
	assert_int_equal(r->children, 10);
	assert_int_equal(r->self, 0);
	r = row_named(&s, &v, "leaf");
	assert_int_equal(r->children, 3);
	assert_int_equal(r->self, 3);
	r = row_named(&s, &v, "work_a");
	assert_int_equal(r->children, 5);
	stackview_free(&v);
	session_close(&s);
}

/* Output of a view into a string (freed by the caller). */
static char *view(struct stackview *v, const struct sv_opts *o, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = stackview_print(f, v, o);
	fclose(f);
	return buf;
}

/* 2:1 from work_a and work_b into leaf, and 1 sample in main itself. */
static void two_callers(struct session *s, struct stackview *v)
{
	const uint64_t via_a[] = { F_A + 0x10, F_MAIN + 0x10, F_START + 0x10 };
	const uint64_t via_b[] = { F_B + 0x10, F_MAIN + 0x10, F_START + 0x10 };
	const uint64_t in_main[] = { F_START + 0x10 };

	define(s, 1, 0, 0, via_a, 3);
	define(s, 1, 1, 0, via_b, 3);
	define(s, 1, 2, 0, in_main, 1);
	add(s, v, 1, F_LEAF + 4, 1, 60);
	add(s, v, 1, F_LEAF + 4, 2, 30);
	add(s, v, 1, F_MAIN + 4, 3, 10);
}

static void tree_percentages_and_limit(void **state)
{
	struct metric_set ms = { .n = 0 };
	struct sv_opts o = { .kind = SV_TREE, .format = FMT_CSV, .percent_limit = 0.5,
			     .metrics = &ms };
	struct session s;
	struct stackview v;
	char *out;
	int rc;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	assert_int_equal(stackview_init(&v, &s), 0);
	two_callers(&s, &v);
	out = view(&v, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "0,100.0000,0.0000,100,0,_start,"));
	assert_non_null(strstr(out, "1,100.0000,10.0000,100,10,main,"));
	assert_non_null(strstr(out, "2,60.0000,0.0000,60,0,work_a,"));
	assert_non_null(strstr(out, "3,60.0000,60.0000,60,60,leaf,perf-4321.map,"
			       "_start;main;work_a;leaf\n"));
	assert_non_null(strstr(out, "3,30.0000,30.0000,30,30,leaf,perf-4321.map,"
			       "_start;main;work_b;leaf\n"));
	/* work_a's line comes before work_b's: heaviest first. */
	assert_true(strstr(out, "work_a,") < strstr(out, "work_b,"));
	free(out);
	o.percent_limit = 40;
	out = view(&v, &o, &rc);
	assert_null(strstr(out, "work_b"));
	assert_non_null(strstr(out, "work_a"));
	free(out);
	o.format = FMT_TABLE;
	o.percent_limit = 0;
	out = view(&v, &o, &rc);
	assert_non_null(strstr(out, "\n 100.00%  `- main [perf-4321.map]  (self 10.00%)\n"
			       "  60.00%     |- work_a [perf-4321.map]\n"
			       "  60.00%     |  `- leaf [perf-4321.map]  (self 60.00%)\n"
			       "  30.00%     `- work_b [perf-4321.map]\n"));
	free(out);
	stackview_free(&v);
	session_close(&s);
}

static void callers_and_callees_shares(void **state)
{
	struct metric_set ms = { .n = 0 };
	struct sv_opts o = { .kind = SV_CALLERS, .format = FMT_CSV, .sym = "leaf",
			     .metrics = &ms };
	struct session s;
	struct stackview v;
	char *out;
	int rc;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	assert_int_equal(stackview_init(&v, &s), 0);
	two_callers(&s, &v);
	out = view(&v, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "caller,60,60.0000,66.6667,work_a,perf-4321.map\n"));
	assert_non_null(strstr(out, "caller,30,30.0000,33.3333,work_b,perf-4321.map\n"));
	free(out);
	o.kind = SV_CALLEES;
	o.sym = "main";
	out = view(&v, &o, &rc);
	assert_non_null(strstr(out, "callee,60,60.0000,60.0000,work_a,"));
	assert_non_null(strstr(out, "callee,30,30.0000,30.0000,work_b,"));
	assert_non_null(strstr(out, "callee,10,10.0000,10.0000,[self],\n"));
	free(out);
	o.sym = "no_such_function";
	out = view(&v, &o, &rc);
	assert_int_equal(rc, -ENOENT);
	free(out);
	stackview_free(&v);
	session_close(&s);
}

static void children_csv_columns(void **state)
{
	struct metric_set ms = { .n = 0 };
	struct sv_opts o = { .kind = SV_CHILDREN, .format = FMT_CSV, .metrics = &ms };
	struct session s;
	struct stackview v;
	char *out;
	int rc;

	(void)state;
	make_session(&s, PMIPROF_CALL_GRAPH_FP);
	assert_int_equal(stackview_init(&v, &s), 0);
	two_callers(&s, &v);
	out = view(&v, &o, &rc);
	assert_int_equal(rc, 0);
	assert_true(!strncmp(out, "samples,percent,symbol,dso,children,self,children_samples,"
			     "instructions,cycles,self_instructions,self_cycles,dso_path\n", 110));
	/* Sorted by children: _start and main (100) first, leaf 90 before work_a 60. */
	assert_non_null(strstr(out, "90,90.0000,leaf,perf-4321.map,90.0000,90.0000,90,90000,45000,"
			       "90000,45000,"));
	assert_non_null(strstr(out, "10,10.0000,main,perf-4321.map,100.0000,10.0000,100,"));
	assert_true(strstr(out, "leaf,") < strstr(out, "work_a,"));
	free(out);
	stackview_free(&v);
	session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(return_addresses_at_addr_minus_1_and_roots),
		cmocka_unit_test(kernel_mode_first_user_frame_is_exact),
		cmocka_unit_test(ids_are_chunk_local_and_stacks_interned),
		cmocka_unit_test(chain_without_root_ends_truncated),
		cmocka_unit_test(zero_return_and_versioned_root_end_chains),
		cmocka_unit_test(sample_without_stack_is_truncated_unless_root),
		cmocka_unit_test(damaged_stack_records_counted_never_crash),
		cmocka_unit_test(children_count_recursion_once),
		cmocka_unit_test(tree_percentages_and_limit),
		cmocka_unit_test(callers_and_callees_shares),
		cmocka_unit_test(children_csv_columns),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char path[128];

	snprintf(path, sizeof(path), "%s/perf-%d.map", dir, PID);
	unlink(path);
	snprintf(path, sizeof(path), "%s/empty.data", dir);
	unlink(path);
	rmdir(dir);
	return rc;
}
