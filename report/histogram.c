// SPDX-License-Identifier: GPL-2.0
/* Per-window metric distributions: quantiles, bins, text bars (see histogram.h). */
#include "histogram.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int float_cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const float *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

int hist_build(struct hist *h, const float *vals, size_t stride, size_t n,
	       const uint32_t *rows, uint32_t row, const struct hist *range)
{
	float *v = malloc((n ? n : 1) * sizeof(*v));
	double sum = 0, w;
	size_t i, m = 0;

	if (!v)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	for (i = 0; i < n; i++) {
		float x = vals[i * stride];

		if (rows && rows[i] != row)
			continue;
		if (isnan(x)) {
			h->nan++;
			continue;
		}
		v[m++] = x;
		sum += x;
	}
	h->n = m;
	if (!m) {
		free(v);
		return 0;
	}
	qsort(v, m, sizeof(*v), float_cmp);
	h->min = v[0];
	h->max = v[m - 1];
	h->mean = sum / (double)m;
	h->p10 = quantile(v, m, 0.10);
	h->p50 = quantile(v, m, 0.50);
	h->p90 = quantile(v, m, 0.90);
	if (range) {
		h->lo = range->lo;
		h->hi = range->hi;
	} else {
		/* Outliers would squeeze everything into one bin: clip at 0.5%. */
		h->lo = quantile(v, m, 0.005);
		h->hi = quantile(v, m, 0.995);
		if (h->hi <= h->lo) {
			h->lo = h->min;
			h->hi = h->max > h->min ? h->max : h->min + 1;
		}
		/* Counts (page faults per window...): whole-number bins, one value or more each. */
		for (i = 0; i < m && v[i] == floorf(v[i]); i++)
			;
		if (i == m) {
			double bw = ceil((floor(h->hi) - floor(h->lo) + 1) / HIST_BINS);

			h->lo = floor(h->lo);
			h->hi = h->lo + (bw < 1 ? 1 : bw) * HIST_BINS;
		}
	}
	w = (h->hi - h->lo) / HIST_BINS;
	for (i = 0; i < m; i++) {
		double b = w > 0 ? floor((v[i] - h->lo) / w) : 0;

		if (b < 0)
			b = 0;
		if (b >= HIST_BINS)
			b = HIST_BINS - 1;
		h->bins[(int)b]++;
	}
	free(v);
	return 0;
}

void hist_print_bars(FILE *f, const struct hist *h, int bar_width)
{
	uint64_t top = 0;
	double w = (h->hi - h->lo) / HIST_BINS;
	int i, j;

	for (i = 0; i < HIST_BINS; i++)
		if (h->bins[i] > top)
			top = h->bins[i];
	for (i = 0; i < HIST_BINS; i++) {
		int len = top ? (int)((double)h->bins[i] * bar_width / (double)top + 0.5) : 0;

		fprintf(f, "  %s%11.4g .. %-11.4g%s |", i == 0 ? "<=" : "  ", h->lo + i * w,
			h->lo + (i + 1) * w, i == HIST_BINS - 1 ? ">=" : "  ");
		for (j = 0; j < bar_width; j++)
			fputc(j < len ? '#' : ' ', f);
		fprintf(f, "| %9llu %5.1f%%\n", (unsigned long long)h->bins[i],
			h->n ? 100.0 * (double)h->bins[i] / (double)h->n : 0.0);
	}
}

const char *hist_sparkline(const struct hist *h, char *buf, size_t size)
{
	static const char levels[] = " .:-=+*#%@";
	uint64_t top = 0;
	size_t i;

	for (i = 0; i < HIST_BINS; i++)
		if (h->bins[i] > top)
			top = h->bins[i];
	for (i = 0; i < HIST_BINS && i + 1 < size; i++) {
		int l = top ? (int)((double)h->bins[i] * 9.0 / (double)top + 0.999) : 0;

		buf[i] = levels[l > 9 ? 9 : l];
	}
	buf[i] = 0;
	return buf;
}
