/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotate's outputs: per function, the instructions with their source
 * lines above them (--by insn) or one row per source line (--by line), as
 * a table (perf annotate --stdio's layout, with every event and metric),
 * CSV or JSON (docs/annotate.md).
 */
#ifndef PMIPROF_REPORT_ANNOTATE_OUTPUT_H
#define PMIPROF_REPORT_ANNOTATE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/annotate.h"
#include "output/format.h"
#include "symbols/source_text.h"

struct ann_out {
	enum out_format format;
	bool by_line;
	bool no_source;
	bool color;
	bool percent_global;	/* percent of all samples, not of the function's */
	double min_percent;	/* rows below it are left out (counted) */
	int sort_event;		/* --by line rows by this event (-2: source order, -1: samples) */
	int width;		/* table width, 0: no limit */
	const char *syntax;	/* "att" or "intel", for the header */
	struct source_files *src;
};

/* Before the first function: the trace's header, the skid note, the CSV heading. */
void annotate_print_begin(FILE *f, const struct annotate *a, const struct ann_out *o);
/* One function (nth: 0 for the first). */
void annotate_print_view(FILE *f, const struct annotate *a, const struct ann_view *v,
			 const struct ann_out *o, uint32_t nth);
/* After the last: JSON's closing, the table's summary of what was left out. */
void annotate_print_end(FILE *f, const struct annotate *a, const struct ann_out *o,
			uint32_t shown, uint64_t shown_samples);
/* Why samples may sit an instruction or more after their cause, for this trace. */
const char *annotate_skid_note(const struct session *s);

#endif /* PMIPROF_REPORT_ANNOTATE_OUTPUT_H */
