/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output helpers shared by the report's tables, CSV and JSON: the trace
 * description header (trigger, events, backend, time-based/emulated flags,
 * duration, samples, lost), the attribution rule, quoting and compact
 * number formatting.
 */
#ifndef PMIPROF_REPORT_FORMAT_H
#define PMIPROF_REPORT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input/session.h"

enum out_format { FMT_TABLE, FMT_CSV, FMT_JSON };

#define ATTRIBUTION_RULE \
	"each window's counts go to the function whose sample closes the window"

/* "# "-prefixed description of the trace and what was kept. */
void print_meta_text(FILE *f, const struct session *s);
/* Its parts: what the trace is (known from its header, before reading)... */
void print_meta_trace(FILE *f, const struct session *s);
/* ...and what reading it found: duration, samples, losses, warnings. */
void print_meta_counts(FILE *f, const struct session *s);
/* One more "# " line, wrapped like the others. */
void print_meta_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "\"meta\": {...}" (no trailing comma). */
void print_meta_json(FILE *f, const struct session *s);
/* One-line summary of the windows' nature, e.g. "time-based windows (cpu-clock)". */
const char *window_kind(const struct session *s, char *buf, size_t size);

/* "table", "csv", "json": 0, or -EINVAL. */
int parse_format(const char *arg, enum out_format *f);
/* A JSON string: bytes that are not valid UTF-8 become U+FFFD, controls \u00XX. */
void json_str(FILE *f, const char *s);
/* {"event": count, ...} over the trace's @n events, in trace order. */
void json_event_counts(FILE *f, const struct session *s, const uint64_t *counts, uint32_t n);
void csv_str(FILE *f, const char *s);
/* A duration in ns as "1.5 ms", "250 us", "2 s" (4 significant digits). */
const char *fmt_ns(char *buf, size_t size, double ns);
/* v in at most width characters: exact, else with a k/M/G/T/P suffix. */
const char *fmt_count(char *buf, size_t size, uint64_t v, int width);
/* Short column heading for a well-known event or metric name (the header
 * lists the full names), else name itself. */
const char *column_name(const char *name, char *buf, size_t size);
/* cpu-clock and task-clock (any modifiers): counts in nanoseconds. */
bool event_counts_ns(const char *name);

/*
 * A table column of numbers with one scale for all its cells, chosen from
 * the largest: ns clocks in ms (or s), counts exact or all in k/M/G/..., the
 * unit in the heading ("task-clk(ms)").  width: the largest cell's length.
 */
struct num_col {
	double div;
	int prec;
	int width;
	char unit[4];
};
void num_col_init(struct num_col *c, bool ns, uint64_t max, int max_w);
const char *num_col_head(const struct num_col *c, const char *name, char *buf, size_t size);
const char *num_col_cell(const struct num_col *c, uint64_t v, char *buf, size_t size);

/*
 * Width of a human table on stdout: forced (--width N) if not 0; else, on a
 * terminal, COLUMNS or the tty's width (TIOCGWINSZ); else 0, no limit (as perf).
 */
int table_width(int forced);
/* cut[i]: names[i] is longer than width and its cut form stays unique among names. */
int cut_names_unique(const char **names, uint32_t n, int width, bool *cut);

/* s cut to width characters (marking the cut with '+'), in buf. */
const char *fit(char *buf, size_t size, const char *s, int width);

#endif /* PMIPROF_REPORT_FORMAT_H */
