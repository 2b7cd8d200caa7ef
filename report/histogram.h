/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distributions of per-window metric values (IPC, miss rates, raw counts):
 * quantiles, fixed-width bins over [p0.5, p99.5] (values outside land in
 * the end bins, which are marked), text bars for the table output and the
 * same bins for plots.
 */
#ifndef PMIPROF_REPORT_HISTOGRAM_H
#define PMIPROF_REPORT_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_BINS 20

struct hist {
	double lo, hi;			/* bin i covers lo + i*(hi-lo)/HIST_BINS */
	uint64_t bins[HIST_BINS];
	uint64_t n;			/* values binned */
	uint64_t nan;			/* windows without a value (zero denominator) */
	double min, max, mean, p10, p50, p90;
};

/*
 * Values are vals[i * stride] for i in [0, n) where rows[i] == row (or
 * every i when rows is NULL).  When range is non-NULL its lo/hi are reused
 * (so functions share the overall bins).  Returns 0 or -ENOMEM.
 */
int hist_build(struct hist *h, const float *vals, size_t stride, size_t n,
	       const uint32_t *rows, uint32_t row, const struct hist *range);
/* Text bars, one line per bin, "# "-free (the caller labels it). */
void hist_print_bars(FILE *f, const struct hist *h, int bar_width);
/* One-line sparkline of the bins (" .:-=+*#%@" by height). */
const char *hist_sparkline(const struct hist *h, char *buf, size_t size);

#endif /* PMIPROF_REPORT_HISTOGRAM_H */
