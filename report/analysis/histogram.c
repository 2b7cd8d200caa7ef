// SPDX-License-Identifier: GPL-2.0
/* Per-window metric distributions: quantiles, bins, text bars (see histogram.h). */
#include "analysis/histogram.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A value share of exact zeros from which they get a bin of their own. */
#define ZERO_BIN_MIN_SHARE 0.05
/* p99.5 / p0.5 from which bins are log-spaced: two decades. */
#define LOG_SPAN 100.0
#define MIN_BINS 5

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

/*
 * Bin count by Freedman-Diaconis on the values as binned (log10 of them for
 * log-spaced bins): width 2 IQR / n^(1/3), so many windows get fine bins and
 * a few get coarse ones.  An IQR of 0 (most values equal) says nothing: then
 * as many bins as allowed.
 */
static int fd_bins(const float *v, size_t n, double lo, double hi, bool logs, int avail)
{
	double q1 = quantile(v, n, 0.25), q3 = quantile(v, n, 0.75), iqr, span, w;
	int nb;

	if (logs) {
		iqr = log10(q3) - log10(q1);
		span = log10(hi) - log10(lo);
	} else {
		iqr = q3 - q1;
		span = hi - lo;
	}
	if (span <= 0)
		return 1;
	if (iqr <= 0)
		return avail;
	w = 2.0 * iqr / cbrt((double)n);
	nb = (int)ceil(span / w);
	if (nb < MIN_BINS)
		nb = MIN_BINS;
	return nb > avail ? avail : nb;
}

/* Edges of nb bins over [lo, hi] from bin first on; returns the bins made. */
static int make_edges(struct hist *h, int first, int nb, double lo, double hi)
{
	int k, made;

	if (h->integer) {
		double ilo = floor(lo), top = floor(hi) + 1;	/* edges exclusive at the top */

		if (h->scale == HIST_LOG) {
			double r = pow(top / ilo, 1.0 / nb);

			h->edge[first] = ilo;
			for (made = 0; h->edge[first + made] < top && first + made < HIST_BINS; made++) {
				double e = round(ilo * pow(r, made + 1));

				if (e <= h->edge[first + made])
					e = h->edge[first + made] + 1;
				h->edge[first + made + 1] = e > top ? top : e;
			}
			return made;
		} else {
			double width = ceil((top - ilo) / nb);

			if (width < 1)
				width = 1;
			made = (int)ceil((top - ilo) / width);
			for (k = 0; k <= made; k++)
				h->edge[first + k] = ilo + k * width;
			return made;
		}
	}
	if (hi <= lo)
		hi = lo + (lo != 0 ? fabs(lo) * 1e-6 : 1);
	for (k = 0; k <= nb; k++)
		h->edge[first + k] = h->scale == HIST_LOG ? lo * pow(hi / lo, (double)k / nb) :
				     lo + (hi - lo) * k / nb;
	h->edge[first + nb] = hi;
	return nb;
}

static void choose_bins(struct hist *h, const float *v, size_t m)
{
	const float *rest = v;
	size_t r = m, i;
	double lo, hi;
	int first;

	/* Sorted: when the smallest value is 0, the zeros lead and the rest is positive. */
	h->zero_bin = v[0] == 0 && (double)h->zeros >= ZERO_BIN_MIN_SHARE * (double)m;
	if (h->zero_bin) {
		h->edge[0] = h->edge[1] = 0;
		h->nbins = 1;
		if (h->zeros == m) {
			h->lo = h->hi = 0;
			return;
		}
		rest = v + h->zeros;
		r = m - h->zeros;
	}
	first = h->zero_bin ? 1 : 0;
	/* Outliers would squeeze everything into one bin: clip at 0.5%. */
	lo = quantile(rest, r, 0.005);
	hi = quantile(rest, r, 0.995);
	if (hi <= lo) {
		lo = rest[0];
		hi = rest[r - 1];
	}
	for (i = 0; i < r && rest[i] == floorf(rest[i]); i++)
		;
	h->integer = i == r;
	h->scale = lo > 0 && hi >= LOG_SPAN * lo ? HIST_LOG : HIST_LINEAR;
	h->nbins = first + make_edges(h, first, fd_bins(rest, r, lo, hi, h->scale == HIST_LOG,
							 HIST_BINS - first), lo, hi);
	h->lo = h->edge[first];
	h->hi = h->edge[h->nbins];
}

static int bin_of(struct hist *h, double x)
{
	int first = h->zero_bin ? 1 : 0, lo, hi;

	if (h->zero_bin && x == 0)
		return 0;
	if (first >= h->nbins)
		return h->nbins - 1;
	if (x < h->edge[first]) {
		h->clip_lo = true;
		return first;
	}
	if (x > h->edge[h->nbins] || (h->integer && x >= h->edge[h->nbins]))
		h->clip_hi = true;
	/* The last bin with edge <= x. */
	lo = first;
	hi = h->nbins - 1;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (h->edge[mid] <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int hist_build(struct hist *h, const float *vals, size_t stride, size_t n,
	       const uint32_t *rows, uint32_t row, const struct hist *range)
{
	float *v = malloc((n ? n : 1) * sizeof(*v));
	double sum = 0;
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
		h->zeros += x == 0;
	}
	h->n = m;
	if (range) {
		h->nbins = range->nbins;
		h->zero_bin = range->zero_bin;
		h->scale = range->scale;
		h->integer = range->integer;
		h->lo = range->lo;
		h->hi = range->hi;
		memcpy(h->edge, range->edge, sizeof(h->edge));
	}
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
	if (!range)
		choose_bins(h, v, m);
	if (h->zero_bin && h->zeros < m) {
		/* sorted, and 0 is the minimum: the non-zero values follow the zeros */
		const float *rest = v + h->zeros;
		size_t r = m - h->zeros;

		h->nz_min = rest[0];
		h->nz_p10 = quantile(rest, r, 0.10);
		h->nz_p50 = quantile(rest, r, 0.50);
		h->nz_p90 = quantile(rest, r, 0.90);
	}
	for (i = 0; i < m; i++)
		h->bins[bin_of(h, v[i])]++;
	free(v);
	return 0;
}

const char *hist_binning(const struct hist *h, char *buf, size_t size)
{
	int other = h->nbins - (h->zero_bin ? 1 : 0);

	if (h->zero_bin && !other)
		snprintf(buf, size, "every value is 0");
	else
		snprintf(buf, size, "%s%d %s%s bin(s)%s", h->zero_bin ? "a bin of zeros, then " : "",
			 other, h->scale == HIST_LOG ? "log-spaced" : "equal-width",
			 h->integer ? " whole-number" : "",
			 h->zero_bin ? " over the non-zero values" : "");
	return buf;
}

void hist_print_bars(FILE *f, const struct hist *h, int bar_width)
{
	int first = h->zero_bin ? 1 : 0, i, j;
	uint64_t top = 0;

	/*
	 * Bars of the other bins are scaled to the largest of them, so a zero
	 * bin holding most windows does not flatten them (hist_print_bars()'s
	 * caller says so).
	 */
	for (i = first; i < h->nbins; i++)
		if (h->bins[i] > top)
			top = h->bins[i];
	for (i = 0; i < h->nbins; i++) {
		uint64_t scale = h->zero_bin && i == 0 ? h->bins[0] : top;
		int len = scale ? (int)((double)h->bins[i] * bar_width / (double)scale + 0.5) : 0;
		const char *pre = i == first && h->clip_lo ? "<=" : "  ";
		const char *post = i == h->nbins - 1 && h->clip_hi ? ">=" : "  ";

		if (h->zero_bin && i == 0)
			fprintf(f, "  %s%11s    %-11s%s |", "  ", "0", "", "  ");
		else if (h->integer && h->edge[i + 1] - h->edge[i] <= 1)
			fprintf(f, "  %s%11.0f    %-11s%s |", pre, h->edge[i], "", post);
		else if (h->integer)
			fprintf(f, "  %s%11.0f .. %-11.0f%s |", pre, h->edge[i], h->edge[i + 1] - 1,
				post);
		else
			fprintf(f, "  %s%11.4g .. %-11.4g%s |", pre, h->edge[i], h->edge[i + 1], post);
		/* A bin too small for a '#' but not empty gets a '.'. */
		for (j = 0; j < bar_width; j++)
			fputc(j < len ? '#' : !j && h->bins[i] ? '.' : ' ', f);
		fprintf(f, "| %9llu %5.1f%%\n", (unsigned long long)h->bins[i],
			h->n ? 100.0 * (double)h->bins[i] / (double)h->n : 0.0);
	}
}

const char *hist_sparkline(const struct hist *h, char *buf, size_t size)
{
	static const char levels[] = " .:-=+*#%@";
	uint64_t top = 0;
	size_t i;

	for (i = 0; i < (size_t)h->nbins; i++)
		if (h->bins[i] > top)
			top = h->bins[i];
	for (i = 0; i < (size_t)h->nbins && i + 1 < size; i++) {
		int l = top ? (int)((double)h->bins[i] * 9.0 / (double)top + 0.999) : 0;

		buf[i] = levels[l > 9 ? 9 : l];
	}
	buf[i] = 0;
	return buf;
}

const char *hist_eng(double v, char *buf, size_t size)
{
	static const char big[] = "kMGTPE";
	static const char *const small[] = { "m", "u", "n" };
	double a = fabs(v);
	int i;

	if (a == 0 || !isfinite(v)) {
		snprintf(buf, size, "%g", v);
		return buf;
	}
	if (a < 1000 && a >= 0.01) {
		snprintf(buf, size, "%.3g", v);
		return buf;
	}
	if (a >= 1000) {
		for (i = 0; a >= 999.5 && i < 6; i++) {
			v /= 1000;
			a /= 1000;
		}
		snprintf(buf, size, "%.3g%c", v, big[i - 1]);
		return buf;
	}
	for (i = 0; a < 0.9995 && i < 3; i++) {
		v *= 1000;
		a *= 1000;
	}
	snprintf(buf, size, "%.3g%s", v, small[i - 1]);
	return buf;
}
