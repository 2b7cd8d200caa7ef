// SPDX-License-Identifier: GPL-2.0
/*
 * Stack views through `pmiprof report` on hand-written 1.3 traces (the trace
 * writer's trace_write_sample_stack, tiny chunks so chunk-local stack ids
 * restart many times): --children, --tree, --callers, --windows' stack
 * column, filters, traces without stacks, and damaged traces (every byte of
 * a stacks trace flipped in turn: a report or a clean error, never a crash).
 * Functions come from a perf-PID.map written here; the expected shares are
 * this file's construction.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "commands.h"
#include "pmiprof/trace.h"
#include "cmd_capture.h"

#define PID 4322
#define PID2 4323
#define F_START		0x10000ULL
#define F_MAIN		0x10100ULL
#define F_A		0x10200ULL
#define F_B		0x10300ULL
#define F_LEAF		0x10400ULL
#define F_REC		0x10500ULL
/* Construction: 600 leaf via work_a, 300 leaf via work_b, 100 in main, for PID;
 * 50 samples of PID2 in rec recursing 4 deep. */
#define N_A 600
#define N_B 300
#define N_M 100
#define N_R 50

static char dir[64], stacks_path[128], flat_path[128], jit_arg[160];

static void write_trace(const char *path, bool stacks)
{
	static const uint64_t via_a[] = { F_A + 0x10, F_MAIN + 0x10, F_START + 0x10 };
	static const uint64_t via_b[] = { F_B + 0x10, F_MAIN + 0x10, F_START + 0x10 };
	static const uint64_t in_main[] = { F_START + 0x10 };
	static const uint64_t rec[] = { F_REC + 0x10, F_REC + 0x10, F_REC + 0x10, F_MAIN + 0x10,
					F_START + 0x10 };
	struct trace_writer_opts o = { .level = 1, .chunk_size = 512 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	struct trace_comm c = { 1, PID, PID, PMIPROF_COMM_F_EXEC, "cgtest" };
	struct trace_comm c2 = { 1, PID2, PID2, PMIPROF_COMM_F_EXEC, "other" };
	struct trace_finish fin = { 0 };
	uint32_t i;

	memset(&h, 0, sizeof(h));
	h.nr_events = 2;
	snprintf(h.events[0].name, sizeof(h.events[0].name), "instructions");
	snprintf(h.events[1].name, sizeof(h.events[1].name), "cycles");
	h.period = 1000000;
	h.clock_freq_hz = 1000000000ULL;
	h.start_time = 1000;
	if (stacks) {
		h.call_graph = PMIPROF_CALL_GRAPH_FP;
		h.call_graph_max_stack = 127;
	}
	assert_int_equal(trace_writer_open(&w, path, &h, &o), 0);
	assert_int_equal(trace_write_comm(w, &c), 0);
	assert_int_equal(trace_write_comm(w, &c2), 0);
	for (i = 0; i < N_A + N_B + N_M + N_R; i++) {
		const uint64_t *ips;
		uint32_t nr;

		memset(&s, 0, sizeof(s));
		s.time = 1000 + (uint64_t)i * 1000000;	/* 1 ms apart */
		s.pid = s.tid = PID;
		s.nr = 2;
		s.counts[0] = 1000;
		s.counts[1] = 2000;
		/* Interleaved so every chunk holds each kind. */
		switch (i % 10) {
		case 0: case 1: case 2: case 3: case 4: case 5:
			s.ip = F_LEAF + 8;
			ips = via_a;
			nr = 3;
			break;
		case 6: case 7: case 8:
			s.ip = F_LEAF + 8;
			ips = via_b;
			nr = 3;
			break;
		default:
			s.ip = F_MAIN + 8;
			ips = in_main;
			nr = 1;
			break;
		}
		if (i >= N_A + N_B + N_M) {
			s.pid = s.tid = PID2;
			s.ip = F_REC + 8;
			ips = rec;
			nr = 5;
		}
		if (stacks)
			assert_int_equal(trace_write_sample_stack(w, &s, ips, nr, 0), 0);
		else
			assert_int_equal(trace_write_sample(w, &s), 0);
	}
	fin.time = s.time + 1;
	assert_int_equal(trace_write_finish(w, &fin), 0);
	assert_int_equal(trace_writer_close(w), 0);
}

static int setup(void **state)
{
	char path[160];
	FILE *f;
	int pid;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmiprof-cst.XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (pid = PID; pid <= PID2; pid++) {
		snprintf(path, sizeof(path), "%s/perf-%d.map", dir, pid);
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "10000 100 _start\n10100 100 main\n10200 100 work_a\n10300 100 work_b\n"
			"10400 100 leaf\n10500 100 rec\n");
		fclose(f);
	}
	snprintf(stacks_path, sizeof(stacks_path), "%s/stacks.data", dir);
	snprintf(flat_path, sizeof(flat_path), "%s/flat.data", dir);
	snprintf(jit_arg, sizeof(jit_arg), "--jit-dir=%s", dir);
	write_trace(stacks_path, true);
	write_trace(flat_path, false);
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static char *report(int *rc, char **err, const char *a1, const char *a2, const char *a3,
		    const char *a4, const char *a5)
{
	char *argv[] = { "report", "-i", stacks_path, jit_arg, (char *)a1, (char *)a2,
			 (char *)a3, (char *)a4, (char *)a5, NULL };

	return cmd_capture(cmd_report, argv, rc, err);
}

static void children_shares_by_construction(void **state)
{
	char *err, *out;
	int rc;

	(void)state;
	out = report(&rc, &err, "--children", "--format", "csv", "--pid", "4322");
	assert_int_equal(rc, 0);
	/* children, self, children_samples, instructions (inclusive) */
	assert_non_null(strstr(out, "\n0,0.0000,_start,perf-4322.map,100.0000,0.0000,1000,"
			       "1000000,"));
	assert_non_null(strstr(out, "\n100,10.0000,main,perf-4322.map,100.0000,10.0000,1000,"));
	assert_non_null(strstr(out, "\n900,90.0000,leaf,perf-4322.map,90.0000,90.0000,900,"));
	assert_non_null(strstr(out, "\n0,0.0000,work_a,perf-4322.map,60.0000,0.0000,600,"
			       "600000,1200000,0,0,"));
	assert_non_null(strstr(out, "\n0,0.0000,work_b,perf-4322.map,30.0000,0.0000,300,"));
	assert_null(strstr(out, "[truncated]"));
	assert_null(strstr(out, "rec,"));
	free(out);
	free(err);
}

static void children_header_and_recursion_once(void **state)
{
	char *err, *out;
	int rc;

	(void)state;
	out = report(&rc, &err, "--children", "--comm", "other", NULL, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "# call graph: fp, max-stack 127, no kernel frames\n"));
	assert_non_null(strstr(out, "# call stacks: 50 of 50 shown samples have one; 100.00% of "
			       "those reached a root"));
	/* 50 samples, rec four deep in each: 100% children, not 400%. */
	assert_non_null(strstr(out, "\n 100.00% 100.00%       50 "));
	assert_non_null(strstr(out, "  rec [perf-4323.map]\n"));
	assert_int_equal(count_str(out, "100.00%   0.00%"), 2);	/* _start, main */
	free(out);
	free(err);
}

static void tree_and_callers_through_report(void **state)
{
	char *err, *out;
	int rc;

	(void)state;
	out = report(&rc, &err, "-G", "--pid", "4322", "--format", "csv");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\n2,60.0000,0.0000,600,0,work_a,perf-4322.map,"
			       "_start;main;work_a\n"));
	assert_non_null(strstr(out, "\n3,30.0000,30.0000,300,300,leaf,perf-4322.map,"
			       "_start;main;work_b;leaf\n"));
	free(out);
	free(err);
	out = report(&rc, &err, "--callers", "leaf", "--pid", "4322", NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, " 66.67%  60.00%      600  work_a [perf-4322.map]\n"));
	assert_non_null(strstr(out, " 33.33%  30.00%      300  work_b [perf-4322.map]\n"));
	free(out);
	free(err);
	out = report(&rc, &err, "--callees", "nothing_like_this", NULL, NULL, NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "no function matching 'nothing_like_this'"));
	free(out);
	free(err);
}

static void time_filter_applies_to_stack_views(void **state)
{
	char *err, *out;
	int rc;

	(void)state;
	/* Samples are 1 ms apart: the first 100 ms hold 100 of PID's samples. */
	out = report(&rc, &err, "--children", "--format", "csv", "--time", "0,99.5ms");
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\n10,10.0000,main,perf-4322.map,100.0000,10.0000,100,"));
	assert_non_null(strstr(out, "work_a,perf-4322.map,60.0000,0.0000,60,"));
	free(out);
	free(err);
}

static void windows_csv_has_folded_stack_column(void **state)
{
	char *err, *out, *first;
	int rc;

	(void)state;
	out = report(&rc, &err, "--windows", "--format", "csv", "--limit", "10");
	assert_int_equal(rc, 0);
	first = strchr(out, '\n');
	assert_non_null(first);
	assert_true(first - out > 6 && !strncmp(first - 6, ",stack", 6));
	assert_non_null(strstr(out, ",0,0,_start;main;work_a;leaf\n"));
	assert_non_null(strstr(out, ",0,0,_start;main;work_b;leaf\n"));
	assert_non_null(strstr(out, ",0,0,_start;main\n"));
	free(out);
	free(err);
}

static void no_stacks_says_record_with_g(void **state)
{
	char *argv[] = { "report", "-i", flat_path, "--tree", NULL };
	char *argv2[] = { "report", "-i", flat_path, "--windows", "--format", "csv", "--limit",
			  "1", NULL };
	char *err, *out;
	int rc;

	(void)state;
	out = cmd_capture(cmd_report, argv, &rc, &err);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "has no call stacks"));
	assert_non_null(strstr(err, "pmiprof record -g"));
	free(out);
	free(err);
	out = cmd_capture(cmd_report, argv2, &rc, &err);
	assert_int_equal(rc, 0);
	assert_null(strstr(out, "stack"));
	free(out);
	free(err);
}

/* Every byte flipped in turn (a stride over the file): never a crash. */
static void flipped_bytes_never_crash(void **state)
{
	char bad[160], *err, *out;
	char *argv[] = { "report", "-q", "-i", bad, jit_arg, "--children", NULL };
	char *argv2[] = { "report", "-q", "-i", bad, jit_arg, "--windows", "--format", "csv",
			  NULL };
	uint8_t *buf;
	struct stat st;
	size_t off;
	FILE *f;
	int rc;

	(void)state;
	snprintf(bad, sizeof(bad), "%s/bad.data", dir);
	assert_int_equal(stat(stacks_path, &st), 0);
	buf = malloc((size_t)st.st_size);
	f = fopen(stacks_path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	for (off = 0; off < (size_t)st.st_size; off += 97) {
		buf[off] ^= 0x5a;
		f = fopen(bad, "wb");
		fwrite(buf, 1, (size_t)st.st_size, f);
		fclose(f);
		buf[off] ^= 0x5a;
		out = cmd_capture(cmd_report, off % 2 ? argv : argv2, &rc, &err);
		assert_true(rc == 0 || rc == 1);
		free(out);
		free(err);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(children_shares_by_construction),
		cmocka_unit_test(children_header_and_recursion_once),
		cmocka_unit_test(tree_and_callers_through_report),
		cmocka_unit_test(time_filter_applies_to_stack_views),
		cmocka_unit_test(windows_csv_has_folded_stack_column),
		cmocka_unit_test(no_stacks_says_record_with_g),
		cmocka_unit_test(flipped_bytes_never_crash),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
