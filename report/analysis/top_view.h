/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One screen of pmiprof top: rows of the live window's samples grouped by
 * process, thread, function or DSO (through the flat profile's
 * aggregation, profile.h), or a function's source lines (through
 * annotate's, annotate.h), limited to a zoom scope (a process's, a
 * thread's or a DSO's functions), with each row's share, event sums,
 * derived metrics and their change since the previous view of the same
 * scope.
 */
#ifndef PMIPROF_REPORT_TOP_VIEW_H
#define PMIPROF_REPORT_TOP_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <pmiprof/trace.h>

#include "analysis/metrics.h"
#include "analysis/top_live.h"

enum top_by { TOP_BY_PROCESS, TOP_BY_THREAD, TOP_BY_FUNCTION, TOP_BY_DSO, TOP_BY_CGROUP,
	      TOP_BY_LINE };

/* "process", "thread", "function", "dso", "cgroup", "line"; parse: 0 or -EINVAL */
const char *top_by_name(enum top_by by);
int top_by_parse(const char *s, enum top_by *by);

/* What a view shows: rows by `by` of the samples that match every set field. */
struct top_scope {
	enum top_by by;
	uint32_t pid, tid;	/* 0: any */
	int64_t cgroup;		/* -1: any; else the cgroup path's string id */
	int64_t dso;		/* -1: any */
	int64_t sym;		/* -1: any; TOP_BY_LINE: the function whose lines */
	char label[300];	/* "process 1234 (shares)", "" at the top level */
};
void top_scope_init(struct top_scope *sc, enum top_by by);

struct top_sort {
	enum { TOP_SORT_SAMPLES, TOP_SORT_EVENT, TOP_SORT_METRIC, TOP_SORT_NAME } kind;
	int idx;		/* event or metric index */
};

struct top_row {
	uint64_t key;		/* pid, tid, symbol id, dso id, cgroup id, source line */
	char name[256];		/* command, function, DSO path, cgroup path, file:line */
	char detail[128];	/* a function's DSO, a line's inline chain; "" */
	uint32_t pid;		/* process and thread rows: the process */
	uint64_t samples;
	uint64_t counts[PMIPROF_MAX_EVENTS];
	double share;		/* % of the view's samples */
	double dshare;		/* share - the previous view's; NAN when it had no such row */
	double metric[MAX_METRICS * 2];	/* NAN where the denominator is 0 */
	double dmetric[MAX_METRICS * 2];	/* NAN when no previous value */
	bool exited;		/* process rows: it exited in the window */
};

struct top_view {
	struct top_scope scope;
	const struct trace_header *h;
	uint32_t nr_events;
	struct metric_set ms;	/* the derived metrics this recording allows */
	double seconds;		/* the window's length */
	uint64_t samples;	/* kept samples in scope */
	uint64_t seen, lost, throttled;	/* the recorder's, in the window */
	struct top_row *rows;
	uint32_t nr;
	char why[200];		/* a line view without lines: why; else "" */
	/* a line view of a function without lines, recorded with -g: its callers
	 * (the first other function up each sample's stack) instead */
	bool callers;
};

/*
 * Build v from t's window for scope sc, ordered by so, rows whose name or
 * detail contain filter (NULL/"": all); prev (NULL: none) is the view
 * shown before, for the trends.  0 or -errno.
 */
int top_view_build(struct top_view *v, struct top_live *t, const struct top_scope *sc,
		   const struct top_sort *so, const char *filter, const struct top_view *prev);
void top_view_free(struct top_view *v);
/* Rate per second of event e in a row: its sum over the window's seconds. */
double top_row_rate(const struct top_view *v, const struct top_row *r, uint32_t e);

#endif /* PMIPROF_REPORT_TOP_VIEW_H */
