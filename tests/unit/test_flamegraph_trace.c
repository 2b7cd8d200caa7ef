// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks, flame graphs and pprof from a synthetic 1.3 trace with
 * call stacks and hardware counts (no PMU here): frames of this program,
 * known per-stack instructions/cycles, so IPC and miss-rate colours, the
 * --value sums and go tool pprof's flat/cum figures are known by
 * construction.  Also: a trace without stacks is refused with a message.
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

#include "commands.h"
#include "util.h"
#include "pmiprof/trace.h"
#include "cmd_capture.h"
#include "self_maps.h"
#include "input/session.h"
#include "output/stack_export.h"

int main(void);

#define SPIN(name)								\
	__attribute__((noinline)) uint64_t name(uint64_t n);			\
	__attribute__((noinline)) uint64_t name(uint64_t n)			\
	{									\
		uint64_t x = n;							\
		for (uint64_t i = 0; i < n; i++)				\
			x = x * 6364136223846793005ULL + i;			\
		return x;							\
	}
SPIN(fg_fast)
SPIN(fg_slow)
SPIN(fg_mid)

#define PID 300
#define START_NS 1000000000ULL
enum { EV_INS, EV_CYC, EV_CM, NR_EV };
/* Windows by construction. */
#define N_FAST 50	/* main -> fg_mid -> fg_fast: ipc 3 */
#define N_SLOW 30	/* main -> fg_slow: ipc 0.5, 4 cache misses per kilo-instruction */
#define N_NOSTACK 20	/* fg_slow without a recorded stack */
#define N_ALL (N_FAST + 1 + N_SLOW + N_NOSTACK)	/* + 1 fg_fast window after a loss */

static char trace_path[64], nostack_path[64], out_path[64];

static void header(struct trace_header *h, uint32_t call_graph)
{
	static const char *const names[NR_EV] = { "instructions", "cycles", "cache-misses" };
	uint32_t i;

	memset(h, 0, sizeof(*h));
	snprintf(h->hostname, sizeof(h->hostname), "testhost");
	h->nr_events = NR_EV;
	for (i = 0; i < NR_EV; i++)
		snprintf(h->events[i].name, sizeof(h->events[i].name), "%s", names[i]);
	h->events[0].flags = PMIPROF_EVENT_F_TRIGGER;
	h->period = 300000;
	h->mode = PMIPROF_MODE_PERF;
	h->backend = PMIPROF_BACKEND_PERF;
	h->clock_id = 1;
	h->clock_freq_hz = 1000000000ULL;
	h->start_time = START_NS;
	h->start_realtime_ns = 1700000000000000000ULL;
	snprintf(h->clock_name, sizeof(h->clock_name), "monotonic");
	h->nr_cpus = 1;
	h->cmdline_argc = 1;
	snprintf(h->cmdline, sizeof(h->cmdline), "synthetic <stacks> & co");
	h->call_graph = call_graph;
	h->call_graph_max_stack = 127;
}

static int write_trace(const char *path, uint32_t call_graph)
{
	struct trace_writer_opts wo = { .level = 1, .chunk_size = 700 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	struct trace_mmap m;
	struct trace_comm c;
	struct trace_finish fin;
	struct mapping mp;
	uint64_t fast_stack[2] = { (uintptr_t)&fg_mid + 5, (uintptr_t)&main + 5 };
	uint64_t slow_stack[1] = { (uintptr_t)&main + 5 };
	unsigned int i;
	int err;

	header(&h, call_graph);
	err = trace_writer_open(&w, path, &h, &wo);
	if (err)
		return err;
	c = (struct trace_comm){ START_NS, PID, PID, PMIPROF_COMM_F_EXEC, "synth" };
	trace_write_comm(w, &c);
	if (find_mapping((const void *)&fg_fast, &mp))
		return -ENOENT;
	memset(&m, 0, sizeof(m));
	m.time = START_NS;
	m.pid = m.tid = PID;
	m.start = mp.start;
	m.len = mp.end - mp.start;
	m.pgoff = mp.pgoff;
	m.prot = 5;
	m.path = mp.path;
	trace_write_mmap(w, &m);
	for (i = 0; i < N_ALL; i++) {
		const uint64_t *ips = NULL;
		uint32_t nr = 0;

		memset(&s, 0, sizeof(s));
		s.time = START_NS + (uint64_t)(i + 1) * 1000000;
		s.pid = s.tid = PID;
		s.flags = PMIPROF_SAMPLE_F_USER;
		s.nr = NR_EV;
		if (i <= N_FAST) {
			s.ip = (uintptr_t)&fg_fast + 1 + (i % 3);
			s.counts[EV_INS] = 300000;
			s.counts[EV_CYC] = 100000;
			ips = fast_stack;
			nr = 2;
			if (i == N_FAST)	/* its counts go into no sum */
				s.flags |= PMIPROF_SAMPLE_F_AFTER_LOSS;
		} else {
			s.ip = (uintptr_t)&fg_slow + 1;
			s.counts[EV_INS] = 150000;
			s.counts[EV_CYC] = 300000;
			s.counts[EV_CM] = 600;
			if (i < N_FAST + 1 + N_SLOW) {
				ips = slow_stack;
				nr = 1;
			}
		}
		if (call_graph == PMIPROF_CALL_GRAPH_NONE)
			err = trace_write_sample(w, &s);
		else
			err = trace_write_sample_stack(w, &s, ips, nr, 0);
		if (err)
			return err;
	}
	fin = (struct trace_finish){ START_NS + 200000000ULL, 0, 0, N_ALL, 0 };
	trace_write_finish(w, &fin);
	return trace_writer_close(w);
}

static int setup(void **state)
{
	int fd;

	(void)state;
	strcpy(trace_path, "/tmp/test_fg_trace.XXXXXX");
	strcpy(nostack_path, "/tmp/test_fg_nostack.XXXXXX");
	strcpy(out_path, "/tmp/test_fg_out.XXXXXX");
	if ((fd = mkstemp(trace_path)) < 0)
		return -1;
	close(fd);
	if ((fd = mkstemp(nostack_path)) < 0)
		return -1;
	close(fd);
	if ((fd = mkstemp(out_path)) < 0)
		return -1;
	close(fd);
	pm_quiet = true;
	if (write_trace(trace_path, PMIPROF_CALL_GRAPH_FP) ||
	    write_trace(nostack_path, PMIPROF_CALL_GRAPH_NONE))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path);
	unlink(nostack_path);
	unlink(out_path);
	return 0;
}

static char *slurp(const char *path)
{
	char *buf;
	size_t len;

	assert_int_equal(pm_read_file(path, &buf, &len), 0);
	return buf;
}

static int folded_with(const char *value)
{
	struct session_opts so;

	memset(&so, 0, sizeof(so));
	so.input = trace_path;
	return report_folded(&so, value, out_path);
}

static void folded_counts_samples_and_event_sums(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(folded_with(NULL), 0);
	out = slurp(out_path);
	/* Leaf-only samples hang under [truncated]; names are this program's functions. */
	assert_string_equal(out, "[truncated];fg_slow 20\n"
				 "main;fg_mid;fg_fast 51\n"
				 "main;fg_slow 30\n");
	free(out);
	/* The window after a loss adds to no event sum, as in the flat report. */
	assert_int_equal(folded_with("cycles"), 0);
	out = slurp(out_path);
	assert_string_equal(out, "[truncated];fg_slow 6000000\n"
				 "main;fg_mid;fg_fast 5000000\n"
				 "main;fg_slow 9000000\n");
	free(out);
	assert_int_equal(folded_with("no-such-event"), EXIT_USAGE);
}

static void trace_without_stacks_is_refused(void **state)
{
	struct session_opts so;
	char *argv[] = { "flamegraph", "-i", nostack_path, "-o", out_path, NULL };
	char *out, *err;
	int rc;

	(void)state;
	memset(&so, 0, sizeof(so));
	so.input = nostack_path;
	assert_int_equal(report_folded(&so, NULL, out_path), 1);
	out = cmd_capture(cmd_flamegraph, argv, &rc, &err);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(err, "has no call stacks"));
	assert_non_null(strstr(err, "record -g"));
	free(out);
	free(err);
}

/* The fill of the frame whose title starts with name. */
static void fill_of(const char *svg, const char *name, int *r, int *g, int *b)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	p = strstr(svg, key);
	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%d,%d,%d)", r, g, b), 3);
}

static void flamegraph_colours_by_ipc_by_default(void **state)
{
	char *argv[] = { "flamegraph", "-i", trace_path, "-o", out_path, NULL };
	char *out, *err, *svg;
	int rc, r, g, b;

	(void)state;
	out = cmd_capture(cmd_flamegraph, argv, &rc, &err);
	assert_int_equal(rc, 0);
	svg = slurp(out_path);
	assert_non_null(strstr(svg, "colour: ipc"));
	fill_of(svg, "fg_fast", &r, &g, &b);		/* ipc 3: the good end */
	assert_true(b > r);
	fill_of(svg, "fg_slow", &r, &g, &b);		/* ipc 0.5 */
	assert_true(r > b);
	/* Inclusive: main's windows are 50 fast + 30 slow ones (the after-loss one adds none). */
	assert_non_null(strstr(svg, "<title>main\n81 samples (80.20%)"));
	assert_non_null(strstr(svg, "ipc 1.39"));	/* (50*3e5 + 30*1.5e5) / (50*1e5 + 30*3e5) */
	assert_non_null(strstr(svg, "synthetic &lt;stacks&gt; &amp; co"));
	free(svg);
	free(out);
	free(err);
}

static void flamegraph_colours_by_miss_rate_and_width_by_event(void **state)
{
	char *argv[] = { "flamegraph", "-i", trace_path, "-o", out_path, "--value", "cycles",
			 "--color-by", "cache-misses-rate", "--title", "T", NULL };
	char *bad[] = { "flamegraph", "-i", trace_path, "-o", out_path, "--color-by",
			"nonsense-rate", NULL };
	char *out, *err, *svg;
	int rc, r, g, b;

	(void)state;
	out = cmd_capture(cmd_flamegraph, argv, &rc, &err);
	assert_int_equal(rc, 0);
	free(out);
	free(err);
	svg = slurp(out_path);
	assert_non_null(strstr(svg, "colour: cache-misses-rate"));
	fill_of(svg, "fg_slow", &r, &g, &b);		/* 4 per kilo-instruction: the bad end */
	assert_true(r > b);
	fill_of(svg, "fg_fast", &r, &g, &b);		/* none */
	assert_true(b > r);
	assert_non_null(strstr(svg, "<title>fg_fast\n5000000 cycles"));
	free(svg);
	out = cmd_capture(cmd_flamegraph, bad, &rc, &err);
	assert_int_equal(rc, EXIT_USAGE);
	free(out);
	free(err);
}

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

/* The flat and cum columns of go tool pprof -top for a function, or -1. */
static void top_row(const char *top, const char *fn, long *flat, long *cum)
{
	const char *line;

	*flat = *cum = -1;
	for (line = top; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char name[128];
		long f, c;

		if (sscanf(line, " %ld %*s %*s %ld %*s %127s", &f, &c, name) == 3 &&
		    !strcmp(name, fn)) {
			*flat = f;
			*cum = c;
			return;
		}
	}
}

static void pprof_flat_and_cum_are_pmiprofs(void **state)
{
	struct session_opts so;
	char cmd[256], *out;
	long flat, cum;

	(void)state;
	memset(&so, 0, sizeof(so));
	so.input = trace_path;
	assert_int_equal(report_pprof(&so, NULL, NULL), EXIT_USAGE);	/* needs -o */
	assert_int_equal(report_pprof(&so, "cycles", out_path), 0);
	if (system("go version >/dev/null 2>&1"))
		skip();		/* golang-go not installed */
	snprintf(cmd, sizeof(cmd), "go tool pprof -top -sample_index=samples %s 2>&1", out_path);
	out = run(cmd);
	assert_non_null(out);
	top_row(out, "fg_fast", &flat, &cum);
	assert_int_equal(flat, N_FAST + 1);
	assert_int_equal(cum, N_FAST + 1);
	top_row(out, "fg_slow", &flat, &cum);
	assert_int_equal(flat, N_SLOW + N_NOSTACK);
	top_row(out, "main", &flat, &cum);
	assert_int_equal(flat, 0);
	assert_int_equal(cum, N_FAST + 1 + N_SLOW);
	top_row(out, "fg_mid", &flat, &cum);
	assert_int_equal(cum, N_FAST + 1);
	free(out);
	/* The default type is --value's: cycles, after-loss window counted as 0. */
	snprintf(cmd, sizeof(cmd), "go tool pprof -top %s 2>&1", out_path);
	out = run(cmd);
	assert_non_null(out);
	assert_non_null(strstr(out, "Type: cycles"));
	top_row(out, "fg_fast", &flat, &cum);
	assert_int_equal(flat, 5000000);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(folded_counts_samples_and_event_sums),
		cmocka_unit_test(trace_without_stacks_is_refused),
		cmocka_unit_test(flamegraph_colours_by_ipc_by_default),
		cmocka_unit_test(flamegraph_colours_by_miss_rate_and_width_by_event),
		cmocka_unit_test(pprof_flat_and_cum_are_pmiprofs),
	};

	return cmocka_run_group_tests_name("flamegraph_trace", tests, setup, teardown);
}
