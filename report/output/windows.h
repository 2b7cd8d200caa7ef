/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `pmiprof report --windows`: one row per window, streamed as the trace is
 * read (nothing is kept in memory): index, time since the start, cpu, pid,
 * tid, comm, the symbol and DSO of the IP that closed the window, every
 * event's count in the window, and the derived metrics of the window.
 * Windows that per-window statistics leave out (window_in_stats()) are
 * listed too, marked throttled / after_loss.
 */
#ifndef PMIPROF_REPORT_WINDOWS_H
#define PMIPROF_REPORT_WINDOWS_H

#include <stdio.h>

#include "output/format.h"
#include "analysis/metrics.h"
#include "input/session.h"

/* CSV: "comm,symbol,dso" text of recent windows, by comm and symbol id */
#define WINDOWS_CSV_CACHE 64
struct csv_mid {
	uint32_t comm, sym;
	size_t len;			/* 0 = empty */
	char text[496];
};

struct windows_out {
	FILE *f;
	enum out_format format;
	struct session *s;
	const struct metric_set *metrics;
	uint64_t limit;			/* 0 = every window */
	uint64_t rows;
	bool threads;			/* CSV: may format and write in a second thread */
	struct windows_pipe *pipe;	/* that thread, once started (windows.c) */
	int name_w;			/* symbol column width in tables */
	uint32_t ns_events;		/* tables: bit e, event e counts ns (shown in ms) */
	char stack_buf[65536];		/* the current window's folded stack */
	struct csv_mid mid[WINDOWS_CSV_CACHE];
};

/* Large writes for f (before anything is written to it): see windows.c. */
void windows_buffer_output(FILE *f);
/* Column headings (table/CSV) or the JSON opening. */
void windows_begin(struct windows_out *w);
/* session_sample_fn: one row per kept window (arg = windows_out). */
int windows_row(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
		uint32_t comm);
/* Waits for the rows a writer thread still has (after the pass, also on error). */
int windows_flush(struct windows_out *w);
/* JSON closing, the table's summary line. */
void windows_end(struct windows_out *w);

#endif /* PMIPROF_REPORT_WINDOWS_H */
