/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distributions of per-window metric values (IPC, miss rates, raw counts):
 * quantiles, bins chosen to show where the windows are, text bars for the
 * table output and the same bins for CSV, JSON and plots.
 *
 * Bins: when at least 5 % of the windows are exactly 0 (page faults or
 * context switches per window, mostly none), bin 0 holds only the zeros and
 * the other bins cover the non-zero values.  Those bins span the 0.5th to
 * 99.5th percentile of the values they cover (the end bins also hold the
 * values beyond, and are marked); log-spaced when that span covers two
 * decades or more (heavy tails), else equal-width.  Their number follows
 * the Freedman-Diaconis rule (width 2 IQR / n^(1/3), on log values for
 * log-spaced bins) within 5..HIST_BINS; counts get whole-number edges.
 */
#ifndef PMIPROF_REPORT_HISTOGRAM_H
#define PMIPROF_REPORT_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_BINS 20			/* at most, the zero bin included */

enum hist_scale { HIST_LINEAR, HIST_LOG };

struct hist {
	int nbins;			/* bins in use, 1..HIST_BINS */
	bool zero_bin;			/* bin 0 holds exactly the zeros */
	enum hist_scale scale;		/* spacing of the other bins */
	bool integer;			/* whole-number edges (counts) */
	bool clip_lo, clip_hi;		/* first/last other bin holds values beyond it */
	double edge[HIST_BINS + 1];	/* bin i covers [edge[i], edge[i + 1]); zero bin [0, 0] */
	double lo, hi;			/* edge[first other bin], edge[nbins] */
	uint64_t bins[HIST_BINS];
	uint64_t n;			/* values binned */
	uint64_t nan;			/* windows without a value (zero denominator) */
	uint64_t zeros;			/* values == 0 */
	double min, max, mean, p10, p50, p90;
	/* Quantiles of the non-zero values (set when zero_bin). */
	double nz_min, nz_p10, nz_p50, nz_p90;
};

/*
 * Values are vals[i * stride] for i in [0, n) where rows[i] == row (or
 * every i when rows is NULL).  When range is non-NULL its bins are reused
 * (so functions share the overall bins).  Returns 0 or -ENOMEM.
 */
int hist_build(struct hist *h, const float *vals, size_t stride, size_t n,
	       const uint32_t *rows, uint32_t row, const struct hist *range);
/* "a zero bin, then 12 log-spaced bins" etc.: how the bins were chosen. */
const char *hist_binning(const struct hist *h, char *buf, size_t size);
/*
 * Text bars, one line per bin, "# "-free (the caller labels it).  With a
 * zero bin, the other bars are scaled to the largest of them (the zero
 * bar is full).
 */
void hist_print_bars(FILE *f, const struct hist *h, int bar_width);
/* One-line sparkline of the bins (" .:-=+*#%@" by height). */
const char *hist_sparkline(const struct hist *h, char *buf, size_t size);

/*
 * v in engineering notation for axis labels, 3 significant digits and an SI
 * prefix: 0, 12, 0.5, 5.04k, 136k, 1.2M, 2.5m, 40u.  At most 6 characters.
 */
const char *hist_eng(double v, char *buf, size_t size);

#endif /* PMIPROF_REPORT_HISTOGRAM_H */
