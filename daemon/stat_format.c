// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof stat's value formatting and the per-call distributions of
 * stat --regions (see stat_format.h).
 */
#include "stat_format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE_(a) (sizeof(a) / sizeof((a)[0]))

bool stat_scale(const struct stat_reading *r, double *value, double *pct)
{
	*value = 0;
	*pct = 0;
	if (!r->running)
		return false;
	*pct = r->enabled ? 100.0 * (double)r->running / (double)r->enabled : 100.0;
	/* The kernel counted only while scheduled: extrapolate to the enabled time. */
	if (r->running < r->enabled)
		*value = (double)r->value * (double)r->enabled / (double)r->running;
	else
		*value = (double)r->value;
	return true;
}

void stat_format_line(char *buf, size_t len, const char *name, bool time_based,
		      const struct stat_reading *r, const char *sep, const char *extra)
{
	double v, pct;
	bool counted = stat_scale(r, &v, &pct);
	int n;

	if (sep) {
		if (counted)
			snprintf(buf, len, "%.0f%s%s%s%.2f", v, sep, name, sep, pct);
		else
			snprintf(buf, len, "<not counted>%s%s%s%.2f", sep, name, sep, 0.0);
		return;
	}
	if (!counted)
		n = snprintf(buf, len, "  %18s %s %-28s", "<not counted>", time_based ? "msec" : "    ",
			     name);
	else if (time_based)
		n = snprintf(buf, len, "  %18.2f msec %-28s %s", v / 1e6, name, extra ? extra : "");
	else
		n = snprintf(buf, len, "  %18.0f      %-28s %s", v, name, extra ? extra : "");
	/* perf stat's mark of a multiplexed (scaled) count: the share of time counted */
	if (counted && r->running < r->enabled && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%.2f%%)", pct);
}

/* Log-linear bins: DIST_SUB per power of two from 2^-64 up; <= 2^-64 (and 0) in bin 0. */
#define DIST_EXP_MIN	(-64)
#define DIST_EXP_MAX	66
#define DIST_BINS	((DIST_EXP_MAX - DIST_EXP_MIN) * DIST_SUB)

static size_t dist_bin(double x, unsigned int sub)
{
	int e;
	double m;
	long b;

	if (!(x > 0))
		return 0;
	m = frexp(x, &e);		/* x = m * 2^e, m in [0.5, 1) */
	if (e <= DIST_EXP_MIN)
		return 0;
	if (e >= DIST_EXP_MAX)
		return (size_t)(DIST_EXP_MAX - DIST_EXP_MIN) * sub - 1;
	b = (long)(e - DIST_EXP_MIN) * sub + (long)((m - 0.5) * 2 * sub);
	return (size_t)b;
}

/* The middle of bin b (of sub bins per power of two). */
static double dist_bin_mid(size_t b, unsigned int sub)
{
	int e = (int)(b / sub) + DIST_EXP_MIN;
	double m = 0.5 + ((double)(b % sub) + 0.5) / (2.0 * sub);

	return b ? ldexp(m, e) : 0;
}

int dist_add(struct dist *d, double x)
{
	if (!d->n || x < d->min)
		d->min = x;
	if (!d->n || x > d->max)
		d->max = x;
	d->n++;
	d->sum += x;
	if (d->hist) {
		d->hist[dist_bin(x, DIST_SUB)]++;
		return 0;
	}
	if (d->n <= DIST_EXACT_MAX) {
		if (d->n > d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 64;
			double *v = realloc(d->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			d->v = v;
			d->cap = cap;
		}
		d->v[d->n - 1] = x;
		return 0;
	}
	/* past the exact limit: every value so far into the histogram */
	d->hist = calloc(DIST_BINS, sizeof(*d->hist));
	if (!d->hist)
		return -ENOMEM;
	for (size_t i = 0; i < DIST_EXACT_MAX; i++)
		d->hist[dist_bin(d->v[i], DIST_SUB)]++;
	d->hist[dist_bin(x, DIST_SUB)]++;
	free(d->v);
	d->v = NULL;
	d->cap = 0;
	return 0;
}

static int dist_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Value of rank r (0-based) of n. */
static double dist_rank(const struct dist *d, uint64_t r)
{
	uint64_t c = 0;
	size_t b;

	if (!d->hist)
		return d->v[r];
	for (b = 0; b < DIST_BINS; b++) {
		c += d->hist[b];
		if (c > r)
			return dist_bin_mid(b, DIST_SUB);
	}
	return d->max;
}

/* Median of the (sorted) exact values that fall in bin b of sub bins per power of two. */
static double dist_bin_median(const struct dist *d, size_t b, unsigned int sub)
{
	size_t i, first = SIZE_MAX, last = 0;

	if (d->hist)
		return dist_bin_mid(b, sub);
	for (i = 0; i < d->n; i++)
		if (dist_bin(d->v[i], sub) == b) {
			if (first == SIZE_MAX)
				first = i;
			last = i;
		}
	return first == SIZE_MAX ? dist_bin_mid(b, sub) : d->v[(first + last) / 2];
}

/* Counts per bin of sub bins per power of two (sub divides DIST_SUB). */
static uint64_t *dist_counts(const struct dist *d, unsigned int sub, size_t *nbins)
{
	size_t n = (size_t)(DIST_EXP_MAX - DIST_EXP_MIN) * sub, i;
	uint64_t *c = calloc(n, sizeof(*c));

	*nbins = n;
	if (!c)
		return NULL;
	if (d->hist)
		for (i = 0; i < DIST_BINS; i++)
			c[i / (DIST_SUB / sub)] += d->hist[i];
	else
		for (i = 0; i < d->n; i++)
			c[dist_bin(d->v[i], sub)]++;
	return c;
}

static void dist_modes(const struct dist *d, struct dist_summary *s)
{
	size_t nb, i, peaks[64], np = 0;
	uint64_t *c = dist_counts(d, 8, &nb);

	if (!c)
		return;
	/* local maxima (first bin of a plateau) with >= 5% of the calls */
	for (i = 0; i < nb && np < ARRAY_SIZE_(peaks); i++) {
		if (!c[i] || c[i] * 20 < d->n)
			continue;
		if (i > 0 && c[i - 1] >= c[i])
			continue;
		size_t j = i;

		while (j + 1 < nb && c[j + 1] == c[i])
			j++;
		if (j + 1 < nb && c[j + 1] > c[i])
			continue;
		peaks[np++] = i;
	}
	/* neighbours without a valley below half the smaller peak are one mode */
	for (i = 0; i + 1 < np;) {
		uint64_t lo = UINT64_MAX, small = c[peaks[i]] < c[peaks[i + 1]] ? c[peaks[i]] : c[peaks[i + 1]];
		size_t k;

		for (k = peaks[i]; k <= peaks[i + 1]; k++)
			if (c[k] < lo)
				lo = c[k];
		if (lo * 2 < small) {
			i++;
			continue;
		}
		if (c[peaks[i + 1]] > c[peaks[i]])
			peaks[i] = peaks[i + 1];
		memmove(&peaks[i + 1], &peaks[i + 2], (np - i - 2) * sizeof(peaks[0]));
		np--;
	}
	/* highest first */
	for (i = 0; i < np; i++)
		for (size_t k = i + 1; k < np; k++)
			if (c[peaks[k]] > c[peaks[i]]) {
				size_t t = peaks[i];

				peaks[i] = peaks[k];
				peaks[k] = t;
			}
	for (i = 0; i < np && i < DIST_MAX_MODES; i++) {
		s->modes[i] = dist_bin_median(d, peaks[i], 8);
		s->mode_share[i] = (double)c[peaks[i]] / (double)d->n;
	}
	s->nr_modes = (unsigned int)i;
	free(c);
}

void dist_summarize(struct dist *d, struct dist_summary *s)
{
	size_t nb, i, best = 0;
	uint64_t *c;

	memset(s, 0, sizeof(*s));
	s->n = d->n;
	if (!d->n)
		return;
	s->exact = !d->hist;
	if (!d->hist)
		qsort(d->v, d->n, sizeof(*d->v), dist_cmp);
	s->sum = d->sum;
	s->mean = d->sum / (double)d->n;
	s->min = d->min;
	s->max = d->max;
	s->median = dist_rank(d, (d->n - 1) / 2);
	s->p99 = dist_rank(d, (uint64_t)ceil(0.99 * (double)d->n) - 1);
	/* mode: the densest of DIST_SUB bins per power of two (~1% wide) */
	c = dist_counts(d, DIST_SUB, &nb);
	if (c) {
		for (i = 1; i < nb; i++)
			if (c[i] > c[best])
				best = i;
		s->mode = dist_bin_median(d, best, DIST_SUB);
		free(c);
	} else {
		s->mode = s->median;
	}
	dist_modes(d, s);
}

void dist_free(struct dist *d)
{
	free(d->v);
	free(d->hist);
	memset(d, 0, sizeof(*d));
}
