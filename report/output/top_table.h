/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmiprof top's text: the header lines (window, windows/s, losses,
 * backend, the time-based-windows warning), each row's cells as both the
 * screen and the batch tables print them, and the batch formats: a plain
 * table, CSV (a table per refresh, blank line between) and JSON (one
 * object per refresh and line).
 */
#ifndef PMIPROF_REPORT_TOP_TABLE_H
#define PMIPROF_REPORT_TOP_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/top_view.h"
#include "output/format.h"

#define TOP_HEADER_LINES 3

/* What the header says besides the view: the refresh and where rows come from. */
struct top_origin {
	uint64_t refresh;	/* 1, 2, ... */
	const char *backend;	/* "perf", "module" */
	bool paused;
};

/* The header's lines (at most TOP_HEADER_LINES, unused ones ""); returns how many. */
int top_header(const struct top_view *v, const struct top_origin *o,
	       char lines[TOP_HEADER_LINES][320]);
/* The key column's heading and cell ("PID", "1234"; "" for function/dso/line views). */
const char *top_key_head(const struct top_view *v);
const char *top_key_cell(const struct top_view *v, const struct top_row *r, char *buf,
			 size_t size);
/* The name column's heading: "COMMAND", "FUNCTION", "DSO", "LINE". */
const char *top_name_head(const struct top_view *v);
/* Event e's rate heading and cell in at most width characters. */
const char *top_rate_head(const struct top_view *v, uint32_t e, char *buf, size_t size);
const char *top_rate_cell(const struct top_view *v, const struct top_row *r, uint32_t e,
			  char *buf, size_t size, int width);
/* Metric m's cell with its trend ("1.23+0.05"), or "-" without a value. */
const char *top_metric_cell(const struct top_view *v, const struct top_row *r, uint32_t m,
			    char *buf, size_t size);
/* The share's trend: "+1.2", "-0.4", "new" or "" without a previous view. */
const char *top_trend_cell(const struct top_row *r, char *buf, size_t size);

/* One refresh in format fmt. */
void top_print(FILE *f, const struct top_view *v, const struct top_origin *o,
	       enum out_format fmt);

#endif /* PMIPROF_REPORT_TOP_TABLE_H */
