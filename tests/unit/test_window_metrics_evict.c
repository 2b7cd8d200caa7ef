// SPDX-License-Identifier: GPL-2.0
/*
 * window_metrics' bounded tables (daemon/service/window_metrics.c, compact()):
 * driven through its trace writer tap with explicit record times, read back
 * from its /metrics exposition.  Eviction must change no total (windows,
 * event sums, histogram counts summed over every series), put what it folds
 * into comm="other", count it in pmiprof_daemon_evictions_total, keep a
 * named pair and a thread whose tid was reused, and hold the series cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/window_metrics.h"
#include "trace_gen.h"

#define SEC	1000000000ull
#define CAP	20000u		/* window_metrics.c MAX_SERIES */

struct totals {
	double windows, events[4], hist_count, hist_inf, other_windows, series;
	double ev_series, ev_threads;
};

static struct window_metrics *new_metrics(uint32_t top)
{
	struct window_metrics *m;
	struct trace_header h;

	tgen_sw_header(&h);	/* time-based: a pmiprof_window_cpu_seconds histogram */
	assert_int_equal(window_metrics_new(&m, &h, top, false), 0);
	return m;
}

static char *scrape(struct window_metrics *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(window_metrics_write(m, f, false), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static bool starts(const char *line, const char *prefix)
{
	return !strncmp(line, prefix, strlen(prefix));
}

/* The sums over every series of the exposition text, and the self-metrics. */
static void parse(const char *text, struct totals *t)
{
	static const char *const ev[] = { "cpu-clock", "task-clock", "page-faults",
					  "context-switches" };
	const char *line = text;

	memset(t, 0, sizeof(*t));
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		const char *sp;
		double v;
		unsigned int i;

		/* one line by itself, so that strstr() looks at it alone */
		assert_true(l < sizeof(buf));
		memcpy(buf, line, l);
		buf[l] = 0;
		line = buf;
		sp = strrchr(line, ' ');
		v = sp ? strtod(sp + 1, NULL) : 0;
		if (starts(line, "pmiprof_windows_total{")) {
			t->windows += v;
			if (strstr(line, "comm=\"other\""))
				t->other_windows += v;
		}
		for (i = 0; i < 4; i++) {
			char p[64];

			snprintf(p, sizeof(p), "pmiprof_events_total{event=\"%s\",", ev[i]);
			if (starts(line, p))
				t->events[i] += v;
		}
		if (starts(line, "pmiprof_window_cpu_seconds_count{"))
			t->hist_count += v;
		if (starts(line, "pmiprof_window_cpu_seconds_bucket{") &&
		    strstr(line, "le=\"+Inf\""))
			t->hist_inf += v;
		if (starts(line, "pmiprof_daemon_series "))
			t->series = v;
		if (starts(line, "pmiprof_daemon_evictions_total{table=\"series\"}"))
			t->ev_series = v;
		if (starts(line, "pmiprof_daemon_evictions_total{table=\"threads\"}"))
			t->ev_threads = v;
		line = nl ? nl + 1 : "";
	}
}

static struct totals scrape_totals(struct window_metrics *m)
{
	struct totals t;
	char *text = scrape(m);

	parse(text, &t);
	free(text);
	return t;
}

static void assert_same_sums(const struct totals *a, const struct totals *b)
{
	unsigned int i;

	assert_true(a->windows == b->windows);
	for (i = 0; i < 4; i++)
		assert_true(a->events[i] == b->events[i]);
	assert_true(a->hist_count == b->hist_count);
	assert_true(a->hist_inf == b->hist_inf);
}

static void comm(struct window_metrics *m, uint64_t time, uint32_t tid, const char *name)
{
	struct trace_comm c = { .time = time, .pid = tid, .tid = tid, .comm = name };

	window_metrics_tap(m)->comm(window_metrics_tap(m)->arg, &c);
}

static void task(struct window_metrics *m, uint8_t type, uint64_t time, uint32_t tid)
{
	struct trace_task t = { .time = time, .pid = tid, .tid = tid };

	window_metrics_tap(m)->task(window_metrics_tap(m)->arg, type, &t);
}

static struct trace_sample sample(uint64_t time, uint32_t tid, uint64_t i)
{
	struct trace_sample s = { .time = time, .pid = tid, .tid = tid, .nr = 4 };

	s.counts[0] = 100000 + i % 7;		/* cpu-clock ns */
	s.counts[1] = 90000 + i % 5;
	s.counts[2] = i % 3;
	s.counts[3] = i % 2;
	return s;
}

static void samples(struct window_metrics *m, const struct trace_sample *s, size_t n)
{
	window_metrics_tap(m)->samples(window_metrics_tap(m)->arg, s, n);
}

/* Records moved the clock on: the next batch (even empty) runs compact() when due. */
static void tick(struct window_metrics *m)
{
	samples(m, NULL, 0);
}

/* A line of the exposition for comm's windows, or NULL. */
static const char *windows_line(const char *text, const char *comm_label)
{
	char p[128];

	snprintf(p, sizeof(p), "pmiprof_windows_total{comm=\"%s\"", comm_label);
	return strstr(text, p);
}

static void idle_unnamed_pairs_fold_into_other(void **state)
{
	struct window_metrics *m = new_metrics(1);
	static const char *const names[] = { "busy", "b", "c", "d", "e" };
	struct trace_sample s[64];
	struct totals before, after;
	uint32_t tid, n = 0, i;
	char *text;

	(void)state;
	for (tid = 1; tid <= 5; tid++)
		comm(m, SEC, tid, names[tid - 1]);
	/* busy: 20 windows (named at the first scrape); b..e: 2 each */
	for (i = 0; i < 20; i++, n++)
		s[n] = sample(SEC + i, 1, n);
	for (tid = 2; tid <= 5; tid++)
		for (i = 0; i < 2; i++, n++)
			s[n] = sample(SEC + 100 + n, tid, n);
	samples(m, s, n);	/* the first batch compacts (nothing idle yet) */
	before = scrape_totals(m);
	assert_true(before.windows == 28);
	assert_true(before.other_windows == 8);
	assert_true(before.series == 5);
	assert_true(before.ev_series == 0);

	/* 59 s later nothing is idle long enough (and compact() is not due before 10 s anyway) */
	task(m, PMIPROF_REC_EXIT, 59 * SEC, 999);
	tick(m);
	after = scrape_totals(m);
	assert_true(after.series == 5);
	assert_true(after.ev_series == 0);

	/* 70 s after their last window: b..e fold into other; busy (named) idle too, but stays */
	comm(m, 71 * SEC, 6, "late");
	s[0] = sample(71 * SEC, 6, 0);
	samples(m, s, 1);
	text = scrape(m);
	parse(text, &after);
	assert_true(after.series == 2);			/* busy and late */
	assert_true(after.ev_series == 4);
	assert_true(after.windows == before.windows + 1);
	assert_true(after.other_windows == before.other_windows + 1);	/* + late, unnamed */
	assert_non_null(windows_line(text, "busy"));
	assert_null(windows_line(text, "b"));
	free(text);
	window_metrics_free(m);
}

static void eviction_changes_no_total(void **state)
{
	struct window_metrics *m = new_metrics(2);
	struct trace_sample s[256];
	struct totals before, after;
	uint32_t tid, n = 0, i;
	char name[16], *text;

	(void)state;
	for (tid = 1; tid <= 40; tid++) {
		snprintf(name, sizeof(name), "p%u", tid);
		comm(m, SEC, tid, name);
		for (i = 0; i < (tid <= 2 ? 30 : tid % 4 + 1); i++, n++)
			s[n] = sample(SEC + n, tid, n);
	}
	samples(m, s, n);
	before = scrape_totals(m);	/* names p1 and p2 */
	assert_true(before.windows == n);
	assert_true(before.series == 40);

	/* only the clock moves (an EXIT of a thread never seen): a pass folds the 38 idle ones */
	task(m, PMIPROF_REC_EXIT, 90 * SEC, 5000);
	tick(m);
	text = scrape(m);
	parse(text, &after);
	assert_same_sums(&before, &after);
	assert_true(after.series == 2);
	assert_true(after.ev_series == 38);
	assert_true(after.other_windows == before.other_windows);
	assert_non_null(windows_line(text, "p1"));
	assert_non_null(windows_line(text, "p2"));
	free(text);

	/* a folded pair seen again starts from zero by itself; other keeps what it had */
	s[0] = sample(91 * SEC, 7, 0);
	samples(m, s, 1);
	after = scrape_totals(m);
	assert_true(after.windows == before.windows + 1);
	assert_true(after.other_windows == before.other_windows + 1);
	window_metrics_free(m);
}

static void exited_threads_forgotten_unless_reused(void **state)
{
	struct window_metrics *m = new_metrics(10);
	struct trace_sample s[4];
	struct totals t;
	char *text;

	(void)state;
	comm(m, SEC, 10, "gone");
	comm(m, SEC, 11, "reused");
	comm(m, SEC, 12, "alive");
	task(m, PMIPROF_REC_EXIT, 2 * SEC, 10);
	task(m, PMIPROF_REC_EXIT, 2 * SEC, 11);
	task(m, PMIPROF_REC_FORK, 3 * SEC, 11);	/* tid 11 in use again */
	/* 9 s after the EXITs: a late sample of tid 10 still finds its name */
	s[0] = sample(11 * SEC, 10, 0);
	samples(m, s, 1);
	text = scrape(m);
	assert_non_null(windows_line(text, "gone"));
	free(text);
	t = scrape_totals(m);
	assert_true(t.ev_threads == 0);

	/* 13 s after (compact() due 10 s after the first pass): tid 10 is forgotten */
	s[0] = sample(22 * SEC, 12, 1);
	samples(m, s, 1);
	s[0] = sample(22 * SEC + 1, 10, 2);
	s[1] = sample(22 * SEC + 2, 11, 3);
	samples(m, s, 2);
	text = scrape(m);
	parse(text, &t);
	assert_true(t.ev_threads == 1);
	assert_non_null(windows_line(text, "[unknown]"));	/* tid 10's new sample */
	assert_non_null(strstr(text, "pmiprof_windows_total{comm=\"reused\",cgroup=\"unknown\"} 1"));
	assert_non_null(strstr(text, "pmiprof_windows_total{comm=\"gone\",cgroup=\"unknown\"} 1"));
	assert_true(t.windows == 4);
	free(text);
	window_metrics_free(m);
}

static void series_cap_holds(void **state)
{
	const uint32_t extra = CAP + 50;
	struct window_metrics *m = new_metrics(5);
	struct trace_sample *s = calloc(extra + 100, sizeof(*s));
	struct totals before, after;
	uint32_t tid, n = 0, i;
	char name[16], *text;

	(void)state;
	assert_non_null(s);
	for (tid = 1; tid <= 100; tid++) {
		snprintf(name, sizeof(name), "first%u", tid);
		comm(m, SEC, tid, name);
		for (i = 0; i < (tid <= 5 ? 10 : 1); i++, n++)
			s[n] = sample(SEC + n, tid, n);
	}
	samples(m, s, n);
	before = scrape_totals(m);	/* names first1..first5 */
	assert_true(before.series == 100);

	/* all busy (none idle) but past the cap, within one compaction period */
	for (tid = 1000; tid < 1000 + extra; tid++) {
		snprintf(name, sizeof(name), "new%u", tid);
		comm(m, 2 * SEC, tid, name);
	}
	for (i = 0; i < extra; i++)
		s[i] = sample(2 * SEC + i, 1000 + i, i);
	samples(m, s, extra);
	text = scrape(m);
	parse(text, &after);
	assert_true(after.series <= CAP);
	assert_true(after.series + after.ev_series == 100 + extra);
	assert_true(after.windows == before.windows + extra);
	assert_true(after.hist_count == before.hist_count + extra);
	for (tid = 1; tid <= 5; tid++) {
		snprintf(name, sizeof(name), "first%u", tid);
		assert_non_null(windows_line(text, name));
	}
	free(text);
	free(s);
	window_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_unnamed_pairs_fold_into_other),
		cmocka_unit_test(eviction_changes_no_total),
		cmocka_unit_test(exited_threads_forgotten_unless_reused),
		cmocka_unit_test(series_cap_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
