// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics' tables stay bounded without changing a total
 * (daemon/service/window_metrics.c, driven through its writer tap with
 * record times chosen here): an unnamed (comm, cgroup) pair idle for 60 s is
 * folded into comm="other" and counted in
 * pmiprof_daemon_evictions_total{table="series"}; named pairs never are;
 * the totals of every counter and histogram, summed over all series, are
 * the same before and after; a thread is forgotten 10 s after its EXIT, but
 * not when its id was born again (FORK) meanwhile; past 20,000 unnamed
 * pairs every unnamed one is folded at once.  Naming: the first scrape
 * names the K most active pairs with all they counted (nothing was shown
 * before it); after it a pair is named from its first window while fewer
 * than K are; a pair named for 60 s gives its
 * name to an unnamed one more than twice as active (not to one less
 * active); K lowered gives names back, least active first; through all
 * of it "other" never goes back and no total changes.
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

#define S 1000000000ull

#define MAX_KEPT	256

struct totals {
	double windows, events, ipc_count, mpki_count, ipc_sum;
	/* each series of windows, events and IPC counts: what rate() reads */
	struct kept { char key[200]; double v; } kept[MAX_KEPT];
	unsigned int nr_kept;
	double other_windows, evicted_series, evicted_threads, evicted_named, series_held;
	char comm_of_tid_300[64];
	char named[512];	/* the named comms' windows: " comm=N" each */
};

/* Sum every series' samples of a metric: lines "NAME{...} VALUE". */
static void scrape(struct window_metrics *m, struct totals *t)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(window_metrics_write(m, f, false), 0);
	fclose(f);
	memset(t, 0, sizeof(*t));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *sp = strrchr(line, ' ');
		double v = sp ? strtod(sp + 1, NULL) : 0;

		if (line[0] == '#')
			continue;
		if (sp && (!strncmp(line, "pmiprof_windows_total{", 22) ||
			   !strncmp(line, "pmiprof_events_total{", 21) ||
			   !strncmp(line, "pmiprof_window_ipc_count{", 25))) {
			assert_true(t->nr_kept < MAX_KEPT);
			snprintf(t->kept[t->nr_kept].key, sizeof(t->kept[0].key), "%.*s",
				 (int)(sp - line), line);
			t->kept[t->nr_kept++].v = v;
		}
		if (!strncmp(line, "pmiprof_windows_total{", 22)) {
			t->windows += v;
			if (strstr(line, "comm=\"other\""))
				t->other_windows += v;
			if (strstr(line, "comm=\"reborn-parent\""))
				snprintf(t->comm_of_tid_300, sizeof(t->comm_of_tid_300), "%.0f", v);
			else if (!strstr(line, "comm=\"other\"")) {
				const char *c = strstr(line, "comm=\"") + 6;
				size_t l = strlen(t->named);

				snprintf(t->named + l, sizeof(t->named) - l, " %.*s=%.0f",
					 (int)(strchr(c, '"') - c), c, v);
			}
		} else if (!strncmp(line, "pmiprof_events_total{", 21)) {
			t->events += v;
		} else if (!strncmp(line, "pmiprof_window_ipc_count{", 25)) {
			t->ipc_count += v;
		} else if (!strncmp(line, "pmiprof_window_ipc_sum{", 23)) {
			t->ipc_sum += v;
		} else if (!strncmp(line, "pmiprof_window_mpki_count{", 26)) {
			t->mpki_count += v;
		} else if (!strncmp(line, "pmiprof_daemon_evictions_total{table=\"series\"}", 46)) {
			t->evicted_series = v;
		} else if (!strncmp(line, "pmiprof_daemon_evictions_total{table=\"named\"}", 45)) {
			t->evicted_named = v;
		} else if (!strncmp(line, "pmiprof_daemon_evictions_total{table=\"threads\"}", 47)) {
			t->evicted_threads = v;
		} else if (!strncmp(line, "pmiprof_daemon_series ", 22)) {
			t->series_held = v;
		}
	}
	free(buf);
}

static void comm(struct window_metrics *m, uint64_t time, uint32_t tid, const char *name)
{
	const struct trace_writer_tap *tap = window_metrics_tap(m);
	struct trace_comm c = { .time = time, .pid = tid, .tid = tid, .comm = name };

	tap->comm(tap->arg, &c);
}

static void task(struct window_metrics *m, uint8_t type, uint64_t time, uint32_t tid,
		 uint32_t parent)
{
	const struct trace_writer_tap *tap = window_metrics_tap(m);
	struct trace_task t = { .time = time, .pid = tid, .tid = tid, .ppid = parent,
				.ptid = parent };

	tap->task(tap->arg, type, &t);
}

/* n windows of tid at time: 1000 instructions, 500 cycles (IPC 2), misses 3 and 7. */
static void windows(struct window_metrics *m, uint64_t time, uint32_t tid, unsigned int n)
{
	const struct trace_writer_tap *tap = window_metrics_tap(m);
	struct trace_sample s[64];
	unsigned int i;

	assert_true(n <= 64);
	for (i = 0; i < n; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].time = time + i;
		s[i].pid = s[i].tid = tid;
		s[i].nr = 4;
		s[i].counts[0] = 1000;
		s[i].counts[1] = 500;
		s[i].counts[2] = 3;
		s[i].counts[3] = 7;
	}
	tap->samples(tap->arg, s, n);
}

static struct window_metrics *new_metrics(uint32_t top)
{
	struct trace_header h;
	struct window_metrics *m;

	tgen_header(&h);
	assert_int_equal(window_metrics_new(&m, &h, top, false), 0);
	return m;
}

static void idle_unnamed_pairs_fold_into_other_totals_unchanged(void **state)
{
	struct window_metrics *m = new_metrics(2);
	struct totals before, after;
	uint32_t i;
	char name[32];

	(void)state;
	comm(m, 1 * S, 100, "busy");
	comm(m, 1 * S, 101, "alsobusy");
	windows(m, 1 * S, 100, 40);
	windows(m, 1 * S, 101, 20);
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "short-%u", i);
		comm(m, 1 * S, 200 + i, name);
		windows(m, 1 * S, 200 + i, 1 + i % 3);
	}
	scrape(m, &before);	/* names busy and alsobusy (top 2) */
	assert_int_equal((int)before.series_held, 32);
	assert_int_equal((int)before.evicted_series, 0);
	/* busy goes on alone for 75 s; the others stay idle (alsobusy is named) */
	for (i = 2; i <= 76; i++)
		windows(m, i * S, 100, 1);
	scrape(m, &after);
	assert_int_equal((int)after.evicted_series, 30);
	assert_int_equal((int)after.series_held, 2);
	assert_true(after.windows == before.windows + 75);
	assert_true(after.ipc_count == before.ipc_count + 75);
	assert_true(after.mpki_count == before.mpki_count + 2 * 75);
	assert_true(after.ipc_sum == before.ipc_sum + 2.0 * 75);
	assert_true(after.events == before.events + 75 * (1000 + 500 + 3 + 7));
	/* the 30 short pairs' windows are now "other" */
	assert_true(after.other_windows == before.other_windows);
	assert_true(after.other_windows == 30 + 10 * (0 + 1 + 2));
	window_metrics_free(m);
}

static void exited_thread_forgotten_unless_born_again(void **state)
{
	struct window_metrics *m = new_metrics(5);
	struct totals t;

	(void)state;
	comm(m, 1 * S, 50, "reborn-parent");
	comm(m, 1 * S, 300, "gone");
	comm(m, 1 * S, 301, "gone");
	windows(m, 1 * S, 300, 1);
	windows(m, 1 * S, 301, 1);
	task(m, PMIPROF_REC_EXIT, 2 * S, 300, 1);
	task(m, PMIPROF_REC_EXIT, 2 * S, 301, 1);
	/* tid 300 comes back as a child of 50, without a COMM of its own */
	task(m, PMIPROF_REC_FORK, 3 * S, 300, 50);
	for (uint32_t i = 4; i <= 25; i++)
		windows(m, i * S, 50, 1);
	scrape(m, &t);
	assert_true(t.evicted_threads >= 1);	/* 301: 10 s after its EXIT */
	/* 300 kept its parent's name: its windows count there, not as [unknown] */
	windows(m, 26 * S, 300, 5);
	windows(m, 26 * S, 301, 2);		/* forgotten: [unknown] */
	scrape(m, &t);
	assert_string_equal(t.comm_of_tid_300, "27");	/* 22 of 50 + 5 of 300 */
	window_metrics_free(m);
}

static void past_the_cap_every_unnamed_pair_folds(void **state)
{
	struct window_metrics *m = new_metrics(1);
	struct totals before, after;
	char name[32];
	uint32_t i;

	(void)state;
	comm(m, 1 * S, 1, "named-one");
	windows(m, 1 * S, 1, 10);
	scrape(m, &before);
	for (i = 0; i < 20100; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		comm(m, 1 * S + i, 1000 + i, name);
		windows(m, 1 * S + i, 1000 + i, 1);
	}
	scrape(m, &after);
	assert_true(after.evicted_series >= 20000);
	assert_true(after.series_held <= 20000);
	assert_true(after.windows == before.windows + 20100);
	assert_true(after.ipc_count == before.ipc_count + 20100);
	window_metrics_free(m);
}

/*
 * What Prometheus's increase() adds up from scrape a to scrape b over every
 * series whose name starts with prefix: a series in both counts b - a (b
 * when it went back: a reset), one new in b counts b (it starts at 0 after
 * a), one gone from b counts nothing (it went stale).
 */
static double increase(const struct totals *a, const struct totals *b, const char *prefix)
{
	double sum = 0;

	for (unsigned int i = 0; i < b->nr_kept; i++) {
		double was = 0;

		if (strncmp(b->kept[i].key, prefix, strlen(prefix)))
			continue;
		for (unsigned int j = 0; j < a->nr_kept; j++)
			if (!strcmp(a->kept[j].key, b->kept[i].key))
				was = a->kept[j].v;
		sum += b->kept[i].v >= was ? b->kept[i].v - was : b->kept[i].v;
	}
	return sum;
}

/*
 * The series' increases from a to b are exactly what was recorded in
 * between (no series jumps by earlier counts: sum(rate()) is the recorded
 * rate), and "other" did not go back.
 */
static void same_totals_other_up(const struct totals *a, const struct totals *b, double windows)
{
	assert_true(increase(a, b, "pmiprof_windows_total{") == windows);
	assert_true(increase(a, b, "pmiprof_window_ipc_count{") == windows);
	assert_true(increase(a, b, "pmiprof_events_total{") == windows * (1000 + 500 + 3 + 7));
	assert_true(b->other_windows >= a->other_windows);
}

static void steady(struct window_metrics *m, uint32_t tid, uint32_t from, uint32_t to,
		   unsigned int n);

static void new_pair_named_from_its_first_window(void **state)
{
	struct window_metrics *m = new_metrics(3);
	struct totals t0, t1;

	(void)state;
	comm(m, 1 * S, 10, "first");
	windows(m, 1 * S, 10, 7);
	comm(m, 1 * S, 11, "second");
	windows(m, 1 * S, 11, 5);
	scrape(m, &t0);
	assert_string_equal(t0.named, " first=7 second=5");
	/* room for one more: named from its first window, with every window */
	comm(m, 2 * S, 12, "third");
	windows(m, 2 * S, 12, 9);
	scrape(m, &t1);
	assert_string_equal(t1.named, " third=9 first=7 second=5");
	assert_true(t1.other_windows == 0);
	same_totals_other_up(&t0, &t1, 9);
	window_metrics_free(m);
}

/*
 * Before the first scrape nothing was shown: the K most active pairs get
 * the names with all they counted, not the first K to have a window (t541:
 * a busy workload started just after 20 one-window commands was "other").
 */
static void first_scrape_names_the_most_active(void **state)
{
	struct window_metrics *m = new_metrics(2);
	struct totals t0, t1;
	uint32_t tid;

	(void)state;
	for (tid = 10; tid < 15; tid++) {
		char name[16];

		snprintf(name, sizeof(name), "ls%u", tid);
		comm(m, 1 * S, tid, name);
		windows(m, 1 * S, tid, 1);
	}
	comm(m, 2 * S, 20, "busy");
	steady(m, 20, 2, 4, 30);
	comm(m, 2 * S, 21, "busier");
	steady(m, 21, 2, 4, 40);
	scrape(m, &t0);
	assert_string_equal(t0.named, " busier=120 busy=90");
	assert_true(t0.other_windows == 5);
	assert_true(t0.windows == 5 + 90 + 120);
	/* no name was taken away: nothing was shown before */
	assert_true(t0.evicted_named == 0);
	steady(m, 20, 5, 5, 1);
	scrape(m, &t1);
	same_totals_other_up(&t0, &t1, 1);
	window_metrics_free(m);
}

/* windows of tid every second from second from to second to, n each */
static void steady(struct window_metrics *m, uint32_t tid, uint32_t from, uint32_t to,
		   unsigned int n)
{
	for (uint32_t i = from; i <= to; i++)
		windows(m, i * S, tid, n);
}

static void busier_pair_takes_the_name_of_one_named_60s_ago(void **state)
{
	struct window_metrics *m = new_metrics(2);
	struct totals t0, t1, t2;
	uint32_t i;

	(void)state;
	comm(m, 1 * S, 10, "steady");
	comm(m, 1 * S, 11, "quiet");
	comm(m, 1 * S, 12, "newcomer");
	windows(m, 1 * S, 11, 3);
	scrape(m, &t0);
	/* steady: 1 a second; quiet: nothing more; newcomer: 20 a second from 30 s */
	for (i = 1; i <= 50; i++) {
		windows(m, i * S, 10, 1);
		if (i >= 30)
			windows(m, i * S + 1000, 12, 20);
	}
	scrape(m, &t1);
	/* quiet was named 49 s ago: it keeps its name */
	assert_string_equal(t1.named, " steady=50 quiet=3");
	assert_true(t1.evicted_named == 0);
	same_totals_other_up(&t0, &t1, 50 + 21 * 20);
	for (i = 51; i <= 70; i++) {
		windows(m, i * S, 10, 1);
		windows(m, i * S + 1000, 12, 20);
	}
	scrape(m, &t2);
	/* newcomer has quiet's place; its windows so far stay in "other" */
	assert_true(t2.evicted_named == 1);
	assert_non_null(strstr(t2.named, " steady=70"));
	assert_non_null(strstr(t2.named, " newcomer=0"));
	assert_null(strstr(t2.named, "quiet"));
	same_totals_other_up(&t1, &t2, 20 + 20 * 20);
	/* quiet's 3 windows were shown under its name: they do not move to "other" */
	assert_true(t2.other_windows == 41 * 20);
	/* named from now on: it counts from 0 */
	windows(m, 71 * S, 12, 4);
	scrape(m, &t1);
	assert_non_null(strstr(t1.named, " newcomer=4"));
	same_totals_other_up(&t2, &t1, 4);
	window_metrics_free(m);
}

static void named_pair_half_as_active_keeps_its_name(void **state)
{
	struct window_metrics *m = new_metrics(1);
	struct totals t0, t1;

	(void)state;
	comm(m, 1 * S, 10, "named");
	comm(m, 1 * S, 11, "rival");
	windows(m, 1 * S, 10, 1);
	scrape(m, &t0);
	for (uint32_t i = 2; i <= 100; i++) {
		windows(m, i * S, 10, 10);
		windows(m, i * S + 1000, 11, 15);	/* busier, not twice as busy */
	}
	scrape(m, &t1);
	assert_string_equal(t1.named, " named=991");
	assert_true(t1.evicted_named == 0);
	same_totals_other_up(&t0, &t1, 99 * 25);
	window_metrics_free(m);
}

static void lowering_top_gives_names_back_least_active_first(void **state)
{
	struct window_metrics *m = new_metrics(3);
	struct totals t0, t1;

	(void)state;
	comm(m, 1 * S, 10, "most");
	comm(m, 1 * S, 11, "middle");
	comm(m, 1 * S, 12, "least");
	steady(m, 10, 1, 5, 9);
	steady(m, 11, 1, 5, 5);
	steady(m, 12, 1, 5, 1);
	scrape(m, &t0);
	assert_string_equal(t0.named, " most=45 middle=25 least=5");
	window_metrics_set_top(m, 1);
	scrape(m, &t1);
	assert_string_equal(t1.named, " most=45");
	assert_true(t1.evicted_named == 2);
	/* their 30 windows were shown under their names: "other" does not jump by them */
	assert_true(t1.other_windows == 0);
	same_totals_other_up(&t0, &t1, 0);
	/* what the demoted pairs count from now on is in "other" */
	steady(m, 11, 6, 7, 5);
	steady(m, 12, 6, 7, 1);
	steady(m, 10, 6, 7, 9);
	scrape(m, &t0);
	assert_true(t0.other_windows == 12);
	same_totals_other_up(&t1, &t0, 30);
	window_metrics_free(m);
}

/*
 * Hand-overs under churn: every scrape demotes a pair or names one; the
 * series' increases are always the windows recorded in between, also for
 * the windows a demoted pair counted after the scrape before its demotion
 * (they go to "other", not lost, not counted twice).
 */
static void hand_overs_never_count_earlier_windows(void **state)
{
	struct window_metrics *m = new_metrics(2);
	struct totals a, b;
	uint32_t tid;

	(void)state;
	for (tid = 10; tid < 16; tid++) {
		char name[16];

		snprintf(name, sizeof(name), "p%u", tid);
		comm(m, 1 * S, tid, name);
	}
	steady(m, 10, 1, 2, 8);
	steady(m, 11, 1, 2, 4);
	scrape(m, &a);
	for (uint32_t round = 0; round < 12; round++) {
		double n = 0;

		/* the K shrinks and grows: names change hands at each scrape */
		window_metrics_set_top(m, round % 2 ? 2 : 1);
		for (tid = 10; tid < 16; tid++) {
			unsigned int k = 1 + (tid + round) % 7;

			windows(m, (3 + round) * S + tid * 1000, tid, k);
			n += k;
		}
		scrape(m, &b);
		same_totals_other_up(&a, &b, n);
		a = b;
	}
	assert_true(a.evicted_named >= 6);
	window_metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_unnamed_pairs_fold_into_other_totals_unchanged),
		cmocka_unit_test(exited_thread_forgotten_unless_born_again),
		cmocka_unit_test(past_the_cap_every_unnamed_pair_folds),
		cmocka_unit_test(new_pair_named_from_its_first_window),
		cmocka_unit_test(busier_pair_takes_the_name_of_one_named_60s_ago),
		cmocka_unit_test(named_pair_half_as_active_keeps_its_name),
		cmocka_unit_test(lowering_top_gives_names_back_least_active_first),
		cmocka_unit_test(hand_overs_never_count_earlier_windows),
		cmocka_unit_test(first_scrape_names_the_most_active),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
