/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing the flat profile (and its histograms) as an aligned table, CSV
 * or JSON.  Column set: samples, percent with its 95% confidence interval,
 * one column per recorded event (sum of the window counts attributed to
 * the row), one per derived metric, then the row's name (and DSO).
 */
#ifndef PMIPROF_REPORT_FLAT_OUTPUT_H
#define PMIPROF_REPORT_FLAT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "output/format.h"
#include "analysis/metrics.h"
#include "analysis/profile.h"

struct flat_opts {
	enum out_format format;
	uint32_t limit;			/* 0 = all rows */
	int width;			/* table width budget */
	bool hist;			/* histograms after the table */
	const struct metric_set *metrics;	/* derived metric columns */
	const struct metric *hist_metrics;	/* what the histograms show */
	uint32_t nr_hist;
	uint32_t hist_top;		/* functions with their own distribution */
	bool header_only;		/* table: the header lines only */
	uint32_t below_limit;		/* rows left out by --percent-limit */
	double percent_limit;
};

int print_flat(FILE *f, const struct profile *p, const uint32_t *order, uint32_t n,
	       const struct flat_opts *o);

#endif /* PMIPROF_REPORT_FLAT_OUTPUT_H */
