// SPDX-License-Identifier: GPL-2.0
/*
 * Report tests on synthetic traces written with the trace writer: samples
 * placed on real functions of this test program (and of libz), located by
 * MMAP records copied from /proc/self/maps, with hardware event names so
 * the derived metrics apply.  Expected values are this file's constants.
 * Covers the attribution rule, sums, IPC/MPKI/branch-miss %, confidence
 * intervals, grouping, every filter, CSV/JSON/window output, histograms,
 * header flags, damaged traces and usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "commands.h"
#include "util.h"
#include "pmiprof/trace.h"
#include "cmd_capture.h"
#include "analysis/histogram.h"
#include "analysis/metrics.h"
#include "analysis/parallel.h"
#include "analysis/profile.h"
#include "input/session.h"
#include "self_maps.h"

/* Three functions of this program the synthetic samples land in. */
#define SPIN(name)								\
	__attribute__((noinline)) uint64_t name(uint64_t n);			\
	__attribute__((noinline)) uint64_t name(uint64_t n)			\
	{									\
		uint64_t x = n;							\
		for (uint64_t i = 0; i < n; i++)				\
			x = x * 6364136223846793005ULL + i;			\
		return x;							\
	}
SPIN(rep_work_a)
SPIN(rep_work_b)
SPIN(rep_work_c)

#define PID 100
#define TID2 101
#define START_NS 1000000000ULL
#define N_MAIN 100		/* 50 a, 30 b, 20 c */
#define N_LIB 10		/* in libz's crc32 */
#define N_ALL (N_MAIN + N_LIB)
#define LOST 7

enum { EV_INS, EV_CYC, EV_CM, EV_BR, EV_BRM, NR_EV };

static char trace_path[64];
static char damaged_path[64];
/* Set while writing the throttle test's trace: windows 3, 40, 77 are stretched. */
static bool mark_throttled;
#define NR_THROTTLED 3

static void header(struct trace_header *h, uint32_t flags, bool hw)
{
	static const char *const hwn[] = { "instructions", "cycles", "cache-misses", "branches",
					   "branch-misses" };
	static const char *const swn[] = { "cpu-clock", "task-clock", "page-faults",
					   "context-switches", "cpu-migrations" };
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->flags = flags;
	snprintf(h->hostname, sizeof(h->hostname), "testhost");
	h->nr_events = NR_EV;
	for (i = 0; i < NR_EV; i++) {
		snprintf(h->events[i].name, sizeof(h->events[i].name), "%s", hw ? hwn[i] : swn[i]);
		h->events[i].flags = i == 0 ? PMIPROF_EVENT_F_TRIGGER : 0;
	}
	h->trigger_index = 0;
	h->period = 100000;
	h->mode = PMIPROF_MODE_PERF;
	h->backend = PMIPROF_BACKEND_PERF;
	h->clock_id = 1;
	h->clock_freq_hz = 1000000000ULL;
	h->start_time = START_NS;
	snprintf(h->clock_name, sizeof(h->clock_name), "monotonic");
	h->nr_cpus = 2;
	h->cmdline_argc = 1;
	snprintf(h->cmdline, sizeof(h->cmdline), "synthetic");
}

/* Window i: which function closes it and with what counts. */
static void sample_of(unsigned int i, struct trace_sample *s)
{
	static const uint64_t cyc[3] = { 200000, 100000, 50000 };	/* ipc 0.5, 1, 2 */
	static const uint64_t cm[3] = { 100, 200, 0 };			/* mpki 1, 2, 0 */
	static const uint64_t brm[3] = { 100, 500, 0 };			/* 1 %, 5 %, 0 % */
	uintptr_t fn[3] = { (uintptr_t)&rep_work_a, (uintptr_t)&rep_work_b,
			    (uintptr_t)&rep_work_c };
	unsigned int k = i < N_MAIN ? ((i % 10) < 5 ? 0 : (i % 10) < 8 ? 1 : 2) : 3;

	memset(s, 0, sizeof(*s));
	s->time = START_NS + (uint64_t)(i + 1) * 1000000;	/* one window per ms */
	s->cpu = i & 1;
	s->pid = PID;
	s->tid = k == 2 ? TID2 : PID;
	s->flags = PMIPROF_SAMPLE_F_USER;
	s->nr = NR_EV;
	if (k == 3) {
		s->ip = (uintptr_t)&crc32 + 1;
		s->counts[EV_INS] = 100000;
		s->counts[EV_CYC] = 400000;
		s->counts[EV_BR] = 1000;
		return;
	}
	s->ip = fn[k] + 1 + (i % 3);	/* different addresses, same function */
	s->counts[EV_INS] = 100000;
	s->counts[EV_CYC] = cyc[k];
	s->counts[EV_CM] = cm[k];
	s->counts[EV_BR] = 10000;
	s->counts[EV_BRM] = brm[k];
}

static int write_trace_remap(const char *path, uint32_t flags, bool hw, bool remap)
{
	struct trace_writer_opts wo = { .level = 1, .chunk_size = 512 };
	struct trace_header h;
	struct trace_writer *w;
	struct trace_sample s;
	struct trace_mmap m;
	struct trace_comm c;
	struct trace_task t;
	struct trace_lost l;
	struct trace_finish fin;
	struct mapping mp;
	const void *addrs[2] = { (const void *)&rep_work_a, (const void *)&crc32 };
	unsigned int i;
	int err;

	header(&h, flags, hw);
	err = trace_writer_open(&w, path, &h, &wo);
	if (err)
		return err;
	c = (struct trace_comm){ START_NS, PID, PID, PMIPROF_COMM_F_EXEC, "synth" };
	trace_write_comm(w, &c);
	for (i = 0; i < 2; i++) {
		if (find_mapping(addrs[i], &mp))
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
	}
	t = (struct trace_task){ START_NS, PID, PID, TID2, PID };
	trace_write_fork(w, &t);
	c = (struct trace_comm){ START_NS, PID, TID2, 0, "worker" };
	trace_write_comm(w, &c);
	for (i = 0; i < N_ALL; i++) {
		sample_of(i, &s);
		if (mark_throttled && (i == 3 || i == 40 || i == 77))
			s.flags |= PMIPROF_SAMPLE_F_THROTTLED;
		trace_write_sample(w, &s);
		if (i == 60) {
			l = (struct trace_lost){ s.time, 0, PMIPROF_LOST_RING_FULL, LOST };
			trace_write_lost(w, &l);
		}
		if (remap && i == 70) {
			/* Another file now lies over rep_work_c: later samples there are its. */
			memset(&m, 0, sizeof(m));
			m.time = s.time;
			m.pid = m.tid = PID;
			m.start = (uintptr_t)&rep_work_c & ~(uintptr_t)4095;
			m.len = 4096;
			m.prot = 5;
			m.path = "/nonexistent/overlay.so";
			trace_write_mmap(w, &m);
		}
	}
	fin = (struct trace_finish){ START_NS + 200000000ULL, 0, 0, N_ALL, LOST };
	trace_write_finish(w, &fin);
	return trace_writer_close(w);
}

static int write_trace(const char *path, uint32_t flags, bool hw)
{
	return write_trace_remap(path, flags, hw, false);
}

static int setup(void **state)
{
	struct stat st;
	char *buf;
	FILE *f;
	int fd;

	(void)state;
	snprintf(trace_path, sizeof(trace_path), "/tmp/pmiprof-rep-%d.data", (int)getpid());
	snprintf(damaged_path, sizeof(damaged_path), "/tmp/pmiprof-rep-%d.bad", (int)getpid());
	if (write_trace(trace_path, 0, true))
		return -1;
	/* The damaged copy: cut in the middle of the file. */
	if (stat(trace_path, &st))
		return -1;
	buf = malloc((size_t)st.st_size);
	fd = open(trace_path, O_RDONLY);
	if (!buf || fd < 0 || read(fd, buf, (size_t)st.st_size) != st.st_size)
		return -1;
	close(fd);
	f = fopen(damaged_path, "w");
	if (!f)
		return -1;
	fwrite(buf, 1, (size_t)st.st_size * 2 / 3, f);
	fclose(f);
	free(buf);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace_path);
	unlink(damaged_path);
	return 0;
}

struct prof_run {
	struct session s;
	struct profile p;
};

static void run_profile(struct prof_run *r, struct session_opts *o, enum group_by by)
{
	o->input = trace_path;
	assert_int_equal(session_open(&r->s, o), 0);
	assert_int_equal(profile_init(&r->p, &r->s, by, NULL, 0), 0);
	assert_int_equal(session_run(&r->s, profile_add_sample, &r->p), 0);
}

static void end_profile(struct prof_run *r)
{
	profile_free(&r->p);
	session_close(&r->s);
}

static const struct prof_row *row_named(struct prof_run *r, const char *name)
{
	char buf[64];
	uint32_t i;

	for (i = 0; i < r->p.nr_rows; i++)
		if (r->p.rows[i].samples &&
		    !strcmp(profile_row_name(&r->p, &r->p.rows[i], buf, sizeof(buf)), name))
			return &r->p.rows[i];
	return NULL;
}

static void flat_profile_sums_and_attribution(void **state)
{
	struct session_opts o = { 0 };
	struct metric_set ms;
	struct prof_run r;
	const struct prof_row *a, *b, *c, *z;
	double v = -1;

	(void)state;
	run_profile(&r, &o, BY_SYMBOL);
	assert_int_equal(r.s.samples, N_ALL);
	assert_int_equal(r.s.kept, N_ALL);
	assert_int_equal(r.s.lost_total, LOST);
	assert_int_equal(r.s.lost[PMIPROF_LOST_RING_FULL], LOST);
	a = row_named(&r, "rep_work_a");
	b = row_named(&r, "rep_work_b");
	c = row_named(&r, "rep_work_c");
	z = row_named(&r, "crc32");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(z);
	assert_int_equal(a->samples, 50);
	assert_int_equal(b->samples, 30);
	assert_int_equal(c->samples, 20);
	assert_int_equal(z->samples, N_LIB);
	/* Every window's counts go to the function that closed it. */
	assert_int_equal(a->counts[EV_INS], 50 * 100000ULL);
	assert_int_equal(a->counts[EV_CYC], 50 * 200000ULL);
	assert_int_equal(b->counts[EV_CM], 30 * 200ULL);
	assert_int_equal(c->counts[EV_BRM], 0);
	assert_int_equal(z->counts[EV_CYC], N_LIB * 400000ULL);
	metrics_derived(r.s.h, &ms);
	assert_int_equal(ms.n, 4);
	assert_string_equal(ms.m[0].name, "ipc");
	assert_string_equal(ms.m[1].name, "cache-misses-mpki");
	assert_string_equal(ms.m[2].name, "branch-misses-mpki");
	assert_string_equal(ms.m[3].name, "branch-miss-pct");
	assert_true(metric_value(&ms.m[0], a->counts, &v));
	assert_true(fabs(v - 0.5) < 1e-9);
	assert_true(metric_value(&ms.m[0], c->counts, &v));
	assert_true(fabs(v - 2.0) < 1e-9);
	assert_true(metric_value(&ms.m[1], b->counts, &v));
	assert_true(fabs(v - 2.0) < 1e-9);
	assert_true(metric_value(&ms.m[3], b->counts, &v));
	assert_true(fabs(v - 5.0) < 1e-9);
	/* crc32 recorded no branch misses but branches: 0 %; and a zero denominator has none. */
	assert_true(metric_value(&ms.m[3], z->counts, &v));
	assert_true(v == 0);
	end_profile(&r);
}

static void confidence_interval_is_wilson_95(void **state)
{
	double lo, hi;

	(void)state;
	wilson95(50, 100, &lo, &hi);
	/* Wilson 95% for 50/100: [40.38, 59.62] */
	assert_true(fabs(lo - 40.38) < 0.02);
	assert_true(fabs(hi - 59.62) < 0.02);
	wilson95(0, 100, &lo, &hi);
	assert_true(lo < 1e-9 && hi > 3.6 && hi < 3.8);
	wilson95(100, 100, &lo, &hi);
	assert_true(hi == 100 && lo > 96.2 && lo < 96.4);
}

static void grouping_by_dso_tid_comm(void **state)
{
	struct session_opts o = { 0 };
	struct prof_run r;
	const struct prof_row *x;
	uint32_t i, n;

	(void)state;
	run_profile(&r, &o, BY_DSO);
	for (i = 0, n = 0; i < r.p.nr_rows; i++) {
		const struct dso_info *d;

		if (!r.p.rows[i].samples)
			continue;
		n++;
		d = symbolizer_dso_info(r.s.sy, r.p.rows[i].key);
		if (strstr(d->short_name, "libz"))
			assert_int_equal(r.p.rows[i].samples, N_LIB);
		else
			assert_int_equal(r.p.rows[i].samples, N_MAIN);
	}
	assert_int_equal(n, 2);
	end_profile(&r);

	run_profile(&r, &o, BY_TID);
	x = row_named(&r, "101");
	assert_non_null(x);
	assert_int_equal(x->samples, 20);
	end_profile(&r);

	run_profile(&r, &o, BY_COMM);
	x = row_named(&r, "worker");	/* the thread's own name */
	assert_non_null(x);
	assert_int_equal(x->samples, 20);
	x = row_named(&r, "synth");
	assert_non_null(x);
	assert_int_equal(x->samples, N_ALL - 20);
	end_profile(&r);
}

static int filter_opt(struct session_opts *o, int code, const char *arg)
{
	return session_filter_option(o, code, arg, "report");
}

static uint64_t kept_with(int code, const char *arg)
{
	struct session_opts o = { 0 };
	struct prof_run r;
	uint64_t kept;

	assert_int_equal(filter_opt(&o, code, arg), 0);
	run_profile(&r, &o, BY_SYMBOL);
	kept = r.s.kept;
	assert_int_equal(r.s.samples, N_ALL);	/* filters never hide what was read */
	end_profile(&r);
	session_opts_free(&o);
	return kept;
}

static void filters_select_windows(void **state)
{
	(void)state;
	assert_int_equal(kept_with(OPT_FILTER_SYMBOL, "rep_work_b"), 30);
	assert_int_equal(kept_with(OPT_FILTER_SYMBOL, "rep_work_[ac]"), 70);
	assert_int_equal(kept_with(OPT_FILTER_DSO, "libz*"), N_LIB);
	assert_int_equal(kept_with(OPT_FILTER_PID, "999"), 0);
	assert_int_equal(kept_with(OPT_FILTER_PID, "7,100"), N_ALL);
	assert_int_equal(kept_with(OPT_FILTER_TID, "101"), 20);
	assert_int_equal(kept_with(OPT_FILTER_COMM, "worker"), 20);
	/* window i closes at (i+1) ms: 20..50 ms is windows 19..49 */
	assert_int_equal(kept_with(OPT_FILTER_TIME, "0.02,0.05"), 31);
	assert_int_equal(kept_with(OPT_FILTER_TIME, "20ms,50ms"), 31);
	assert_int_equal(kept_with(OPT_FILTER_TIME, "100ms,"), 11);
	assert_int_equal(kept_with(OPT_FILTER_WINDOW, "10-19"), 10);
	assert_int_equal(kept_with(OPT_FILTER_WINDOW, "100-"), 10);
	assert_int_equal(kept_with(OPT_FILTER_WINDOW, "-9"), 10);
	assert_int_equal(kept_with(OPT_FILTER_WINDOW, "5"), 1);
}

static void bad_ranges_are_usage_errors(void **state)
{
	struct session_opts o = { 0 };

	(void)state;
	assert_int_equal(filter_opt(&o, OPT_FILTER_WINDOW, "9-2"), EXIT_USAGE);
	assert_int_equal(filter_opt(&o, OPT_FILTER_WINDOW, "x"), EXIT_USAGE);
	assert_int_equal(filter_opt(&o, OPT_FILTER_TIME, "2,1"), EXIT_USAGE);
	assert_int_equal(filter_opt(&o, OPT_FILTER_TIME, "1"), EXIT_USAGE);
	assert_int_equal(filter_opt(&o, OPT_FILTER_TIME, "1h,2"), EXIT_USAGE);
	assert_int_equal(filter_opt(&o, OPT_FILTER_PID, "12a"), EXIT_USAGE);
	session_opts_free(&o);
}

static void csv_has_fixed_columns_then_events_and_metrics(void **state)
{
	char *argv[] = { "report", "-i", trace_path, "--format", "csv", NULL };
	char *out, *line2;
	int rc;

	(void)state;
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_true(!strncmp(out, "samples,percent,symbol,dso,instructions,cycles,cache-misses,"
			     "branches,branch-misses,ipc,cache-misses-mpki,branch-misses-mpki,"
			     "branch-miss-pct,ci95_low,ci95_high,dso_path,srcline\n", 161));
	line2 = strchr(out, '\n') + 1;
	/* Sorted by samples: rep_work_a first, 50 of 110 samples. */
	assert_true(!strncmp(line2, "50,45.4545,rep_work_a,test_report,5000000,10000000,5000,"
			     "500000,5000,0.5,1,1,1,", 78));
	free(out);
}

static void json_and_sort_by_metric(void **state)
{
	char *argv[] = { "report", "-i", trace_path, "--format", "json", "--sort", "ipc", NULL };
	char *out, *c, *a;
	int rc;

	(void)state;
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"meta\": {"));
	assert_non_null(strstr(out, "\"lost\": 7"));
	assert_non_null(strstr(out, "\"attribution\": \"each window's counts go to the function"));
	c = strstr(out, "\"symbol\": \"rep_work_c\"");
	a = strstr(out, "\"symbol\": \"rep_work_a\"");
	assert_non_null(c);
	assert_non_null(a);
	assert_true(c < a);	/* ipc 2 before ipc 0.5 */
	assert_non_null(strstr(c, "\"ipc\": 2"));
	free(out);
}

static void table_header_states_rule_flags_and_losses(void **state)
{
	char path[64];
	char *argv[] = { "report", "-i", path, "--limit", "2", "--width", "100", NULL };
	char *out, *line, *next;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmiprof-rep-%d.tb", (int)getpid());
	assert_int_equal(write_trace(path, PMIPROF_TRACE_F_TIME_BASED | PMIPROF_TRACE_F_EMULATED,
				     true), 0);
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "# attribution: each window's counts go to the function whose "
			       "sample closes the window"));
	assert_non_null(strstr(out, "TIME-BASED WINDOWS"));
	assert_non_null(strstr(out, "EMULATED PMU"));
	assert_non_null(strstr(out, "110 samples"));
	assert_non_null(strstr(out, "lost 7"));
	assert_non_null(strstr(out, "trigger: instructions every 100000"));
	assert_non_null(strstr(out, "rep_work_a"));
	assert_null(strstr(out, "rep_work_c"));	/* --limit 2 */
	assert_non_null(strstr(out, "2 more rows not shown"));
	/* 5 events + 4 metrics: squeezed, event sums hidden, said so, <= 100 columns. */
	assert_non_null(strstr(out, "# hidden to fit 100 columns"));
	for (line = out; *line; line = next) {
		next = strchrnul(line, '\n');
		assert_true(next - line <= 100);
		if (*next)
			next++;
	}
	free(out);
	unlink(path);
}

static void windows_rows_carry_every_column(void **state)
{
	char *argv[] = { "report", "-i", trace_path, "--windows", "--format", "csv", NULL };
	char *out, *p;
	int rc, lines = 0;

	(void)state;
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_true(!strncmp(out, "index,time_ns,cpu,pid,tid,comm,symbol,dso,instructions,cycles,"
			     "cache-misses,branches,branch-misses,ipc,", 100));
	for (p = out; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 1 + N_ALL);
	/* Window 8 (rep_work_c, on the worker thread) closes at 9 ms on cpu 0. */
	assert_non_null(strstr(out, "\n8,9000000,0,100,101,worker,rep_work_c,"));
	assert_non_null(strstr(out, ",100000,50000,0,10000,0,2,0,0,0,0,0\n"));
	free(out);
}

/* SAMPLE_F_THROTTLED windows: counted in every header, marked in --windows. */
static void throttled_windows_in_header_and_windows(void **state)
{
	char path[64];
	char *text[] = { "report", "-i", path, NULL };
	char *json[] = { "report", "-i", path, "--format", "json", NULL };
	char *wcsv[] = { "report", "-i", path, "--windows", "--format", "csv", NULL };
	char *wtab[] = { "report", "-i", path, "--windows", NULL };
	char *wjson[] = { "report", "-i", path, "--windows", "--format", "json", NULL };
	char *plain[] = { "report", "-i", trace_path, NULL };
	char *dump[] = { "dump", "-i", path, NULL };
	struct session_opts o = { 0 };
	struct prof_run seq, par;
	char *out, *line, *next, *comma;
	unsigned int rows = 0, idx[NR_THROTTLED];
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmiprof-rep-%d.thr", (int)getpid());
	mark_throttled = true;
	rc = write_trace(path, 0, true);
	mark_throttled = false;
	assert_int_equal(rc, 0);

	/* Sequential and parallel passes count the same windows. */
	o.input = path;
	assert_int_equal(session_open(&seq.s, &o), 0);
	assert_int_equal(profile_init(&seq.p, &seq.s, BY_SYMBOL, NULL, 0), 0);
	assert_int_equal(session_run(&seq.s, profile_add_sample, &seq.p), 0);
	assert_int_equal(seq.s.throttled, NR_THROTTLED);
	assert_int_equal(seq.s.samples, N_ALL);
	assert_int_equal(session_open(&par.s, &o), 0);
	assert_int_equal(profile_init(&par.p, &par.s, BY_SYMBOL, NULL, 0), 0);
	assert_true(parallel_eligible(&par.s, &par.p));
	assert_int_equal(parallel_profile(&par.s, &par.p), 0);
	assert_int_equal(par.s.throttled, NR_THROTTLED);
	end_profile(&seq);
	end_profile(&par);

	out = cmd_capture(cmd_report, text, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "110 samples (windows)"));
	assert_non_null(strstr(out, "# 3 window(s) stretched by throttling left out of per-window "
			       "statistics"));
	free(out);
	out = cmd_capture(cmd_report, json, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"throttled_windows\": 3,"));
	free(out);

	/* An unthrottled trace says nothing in the table header, 0 in JSON. */
	out = cmd_capture(cmd_report, plain, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_null(strstr(out, "stretched by throttling"));
	free(out);

	/* --windows CSV: a 0/1 column before after_loss, 1 exactly on windows 3, 40, 77. */
	out = cmd_capture(cmd_report, wcsv, &rc, NULL);
	assert_int_equal(rc, 0);
	line = out;
	next = strchr(line, '\n');
	assert_non_null(next);
	*next = 0;
	comma = strrchr(line, ',');
	assert_non_null(comma);
	assert_string_equal(comma, ",after_loss");
	*comma = 0;
	comma = strrchr(line, ',');
	assert_non_null(comma);
	assert_string_equal(comma, ",throttled");
	for (line = next + 1; *line; line = next + 1) {
		next = strchr(line, '\n');
		assert_non_null(next);
		*next = 0;
		comma = strrchr(line, ',');
		assert_non_null(comma);
		assert_string_equal(comma, ",0");	/* no window after a loss here */
		*comma = 0;
		comma = strrchr(line, ',');
		assert_non_null(comma);
		if (!strcmp(comma, ",1")) {
			assert_true(rows < NR_THROTTLED);
			idx[rows++] = (unsigned int)strtoul(line, NULL, 10);
		} else {
			assert_string_equal(comma, ",0");
		}
	}
	assert_int_equal(rows, NR_THROTTLED);
	assert_int_equal(idx[0], 3);
	assert_int_equal(idx[1], 40);
	assert_int_equal(idx[2], 77);
	free(out);

	/* Table: "(throttled)" after the symbol of those rows; header count at the end. */
	out = cmd_capture(cmd_report, wtab, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(count_str(out, "  (throttled)\n"), NR_THROTTLED);
	assert_non_null(strstr(out, "3 window(s) stretched by throttling"));
	free(out);
	out = cmd_capture(cmd_report, wjson, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(count_str(out, "\"throttled\": true,"), NR_THROTTLED);
	assert_int_equal(count_str(out, "\"throttled\": false,"), N_ALL - NR_THROTTLED);
	assert_non_null(strstr(out, "\"throttled_windows\": 3,"));
	free(out);
	/* pmiprof dump names the flag. */
	out = cmd_capture(cmd_dump, dump, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(count_str(out, "0x41(user,throttled)"), NR_THROTTLED);
	free(out);
	unlink(path);
}

static void histograms_of_ipc_and_top_functions(void **state)
{
	char *argv[] = { "report", "-i", trace_path, "--hist", NULL };
	struct metric_set ms;
	struct session_opts o = { .input = trace_path };
	struct session s;
	struct profile p;
	struct hist h;
	char *out;
	int rc;

	(void)state;
	assert_int_equal(session_open(&s, &o), 0);
	metrics_derived(s.h, &ms);
	assert_int_equal(profile_init(&p, &s, BY_SYMBOL, ms.m, 1), 0);
	assert_int_equal(session_run(&s, profile_add_sample, &p), 0);
	assert_int_equal(p.nr_win, N_ALL);
	assert_int_equal(hist_build(&h, p.win_values, p.nr_hist, p.nr_win, NULL, 0, NULL), 0);
	/* ipc: 50 x 0.5, 30 x 1, 20 x 2, 10 x 0.25 */
	assert_int_equal(h.n, N_ALL);
	assert_true(fabs(h.min - 0.25) < 1e-6 && fabs(h.max - 2.0) < 1e-6);
	assert_true(fabs(h.mean - (25 + 30 + 40 + 2.5) / 110.0) < 1e-6);
	assert_true(fabs(h.p50 - 0.5) < 1e-6);
	profile_free(&p);
	session_close(&s);

	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "# distribution of per-window ipc: 110 windows"));
	assert_non_null(strstr(out, "# ipc over the windows each top function closes"));
	assert_non_null(strstr(out, "  rep_work_a "));
	free(out);
}

/* Bins that show the mass: a zero bin, log-spaced for heavy tails, else equal-width. */
static void hist_bins_show_the_mass(void **state)
{
	enum { N = 4000 };
	static float v[N];
	struct hist h;
	uint64_t sum = 0;
	int i;

	(void)state;
	/* 90 % zeros, the rest spread over four decades (1 .. 10^4, log-uniform). */
	for (i = 0; i < N; i++)
		v[i] = i % 10 ? 0.0f : (float)pow(10.0, 4.0 * (double)(i / 10) / (N / 10));
	assert_int_equal(hist_build(&h, v, 1, N, NULL, 0, NULL), 0);
	assert_true(h.zero_bin);
	assert_int_equal(h.bins[0], N - N / 10);
	assert_int_equal(h.scale, HIST_LOG);
	assert_true(h.edge[1] > 0);
	for (i = 1; i < h.nbins; i++) {
		/* log-uniform values: every log-spaced bin holds some */
		assert_true(h.bins[i] > 0);
		sum += h.bins[i];
	}
	assert_int_equal(sum, N / 10);
	/* Every value 0: one bin. */
	memset(v, 0, sizeof(v));
	assert_int_equal(hist_build(&h, v, 1, N, NULL, 0, NULL), 0);
	assert_int_equal(h.nbins, 1);
	assert_true(h.zero_bin);
	assert_int_equal(h.bins[0], N);
	/* A narrow bell: equal-width bins between p0.5 and p99.5, no zero bin. */
	for (i = 0; i < N; i++)
		v[i] = (float)(1.0 + 0.1 * sin(i) * sin(i * 0.37));
	assert_int_equal(hist_build(&h, v, 1, N, NULL, 0, NULL), 0);
	assert_false(h.zero_bin);
	assert_int_equal(h.scale, HIST_LINEAR);
	assert_true(h.nbins >= 5 && h.nbins <= HIST_BINS);
}

static void damaged_trace_reports_readable_part(void **state)
{
	char *argv[] = { "report", "-i", damaged_path, "--format", "csv", NULL };
	struct session_opts o = { .input = damaged_path };
	struct session s;
	char *out;
	int rc;

	(void)state;
	assert_int_equal(session_open(&s, &o), 0);
	assert_int_equal(session_run(&s, NULL, NULL), 0);
	assert_true(s.samples > 0 && s.samples < N_ALL);
	assert_true(trace_reader_stats(s.r)->truncated);
	session_close(&s);
	out = cmd_capture(cmd_report, argv, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "rep_work_a"));
	free(out);
}

static void usage_errors_exit_2(void **state)
{
	char *a1[] = { "report", "-i", trace_path, "--bogus", NULL };
	char *a2[] = { "report", "-i", trace_path, "--window", "5-2", NULL };
	char *a3[] = { "report", "-i", trace_path, "--sort", "nosuch", NULL };
	char *a4[] = { "report", "-i", trace_path, "--by", "planet", NULL };
	char *a5[] = { "report", "-i", trace_path, "--format", "xml", NULL };
	char *a6[] = { "report", "-i", trace_path, "--hist-metric", "ipc,nosuch", NULL };
	char *a7[] = { "plot", "-i", trace_path, NULL };
	char *a8[] = { "plot", "-i", trace_path, "-o", "x.gif", NULL };
	char *out;
	int rc;

	(void)state;
	free(cmd_capture(cmd_report, a1, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	free(cmd_capture(cmd_report, a2, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	free(cmd_capture(cmd_report, a3, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	free(cmd_capture(cmd_report, a4, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	free(cmd_capture(cmd_report, a5, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	free(cmd_capture(cmd_report, a6, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	free(cmd_capture(cmd_plot, a7, &rc, NULL));
	assert_int_equal(rc, EXIT_USAGE);
	out = cmd_capture(cmd_plot, a8, &rc, NULL);
	assert_int_equal(rc, EXIT_USAGE);
	free(out);
}

static void unreadable_trace_fails_with_status_1(void **state)
{
	char *argv[] = { "report", "-i", "/nonexistent/trace.data", NULL };
	int rc;

	(void)state;
	free(cmd_capture(cmd_report, argv, &rc, NULL));
	assert_int_equal(rc, 1);
}

static void metrics_follow_recorded_events(void **state)
{
	struct trace_header h;
	struct metric_set ms;
	struct metric m;
	const char *why;

	(void)state;
	header(&h, PMIPROF_TRACE_F_TIME_BASED, false);
	metrics_derived(&h, &ms);
	assert_int_equal(ms.n, 0);	/* no instructions/cycles: no ipc, no mpki */
	assert_int_equal(metric_parse(&h, "ipc", &m, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(metric_parse(&h, "page-faults-rate", &m, &why), 0);
	assert_int_equal(m.kind, METRIC_PER_SECOND);	/* per second of task-clock */
	assert_int_equal(m.b, 1);
	assert_int_equal(metric_parse(&h, "context-switches", &m, &why), 0);
	assert_int_equal(m.kind, METRIC_EVENT);
	assert_int_equal(metric_parse(&h, "nosuch-rate", &m, &why), -ENOENT);
	header(&h, 0, true);
	assert_int_equal(metric_parse(&h, "cache-misses-rate", &m, &why), 0);
	assert_int_equal(m.kind, METRIC_PER_KILO);	/* per 1000 instructions */
}

/* The parallel pass (chunk ranges) gives exactly the sequential result. */
static void parallel_matches_sequential(void **state)
{
	static const enum group_by bys[] = { BY_SYMBOL, BY_DSO, BY_PID, BY_TID, BY_COMM };
	char path[64], na[64], nb[64];
	struct session_opts o = { 0 };
	struct prof_run seq, par;
	uint32_t i, k, found;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/pmiprof-rep-%d.remap", (int)getpid());
	assert_int_equal(write_trace_remap(path, 0, true, true), 0);
	for (k = 0; k < ARRAY_SIZE(bys); k++) {
		o.input = path;
		assert_int_equal(session_open(&seq.s, &o), 0);
		assert_int_equal(profile_init(&seq.p, &seq.s, bys[k], NULL, 0), 0);
		assert_int_equal(session_run(&seq.s, profile_add_sample, &seq.p), 0);
		assert_int_equal(session_open(&par.s, &o), 0);
		assert_int_equal(profile_init(&par.p, &par.s, bys[k], NULL, 0), 0);
		assert_true(parallel_eligible(&par.s, &par.p));
		assert_int_equal(parallel_profile(&par.s, &par.p), 0);
		assert_int_equal(par.s.samples, seq.s.samples);
		assert_int_equal(par.s.kept, seq.s.kept);
		assert_int_equal(par.s.lost_total, seq.s.lost_total);
		for (i = 0, found = 0; i < seq.p.nr_rows; i++) {
			const struct prof_row *a = &seq.p.rows[i], *b;
			const char *name;

			if (!a->samples)
				continue;
			name = profile_row_name(&seq.p, a, na, sizeof(na));
			b = row_named(&par, name);
			assert_non_null(b);
			assert_string_equal(profile_row_name(&par.p, b, nb, sizeof(nb)), name);
			assert_int_equal(a->samples, b->samples);
			assert_memory_equal(a->counts, b->counts, sizeof(a->counts));
			found++;
		}
		assert_true(found >= 1);
		if (bys[k] == BY_DSO) {
			const struct prof_row *x = row_named(&par, "/nonexistent/overlay.so");

			assert_non_null(x);	/* the remap took effect mid-trace, not before */
			assert_true(x->samples > 0 && x->samples < N_MAIN);
		}
		end_profile(&seq);
		end_profile(&par);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flat_profile_sums_and_attribution),
		cmocka_unit_test(confidence_interval_is_wilson_95),
		cmocka_unit_test(grouping_by_dso_tid_comm),
		cmocka_unit_test(filters_select_windows),
		cmocka_unit_test(bad_ranges_are_usage_errors),
		cmocka_unit_test(csv_has_fixed_columns_then_events_and_metrics),
		cmocka_unit_test(json_and_sort_by_metric),
		cmocka_unit_test(table_header_states_rule_flags_and_losses),
		cmocka_unit_test(windows_rows_carry_every_column),
		cmocka_unit_test(throttled_windows_in_header_and_windows),
		cmocka_unit_test(histograms_of_ipc_and_top_functions),
		cmocka_unit_test(hist_bins_show_the_mass),
		cmocka_unit_test(damaged_trace_reports_readable_part),
		cmocka_unit_test(usage_errors_exit_2),
		cmocka_unit_test(unreadable_trace_fails_with_status_1),
		cmocka_unit_test(metrics_follow_recorded_events),
		cmocka_unit_test(parallel_matches_sequential),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
