// SPDX-License-Identifier: GPL-2.0
/* Flat profile aggregation, sorting and confidence intervals (see profile.h). */
#include "analysis/profile.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int profile_init(struct profile *p, struct session *s, enum group_by by,
		 const struct metric *hist_metrics, uint32_t nr_hist)
{
	memset(p, 0, sizeof(*p));
	p->by = by;
	p->s = s;
	p->nr_events = s->h->nr_events < PMIPROF_MAX_EVENTS ? s->h->nr_events : PMIPROF_MAX_EVENTS;
	p->hist_metrics = hist_metrics;
	p->nr_hist = nr_hist;
	return hm_init(&p->key2row, 256);
}

void profile_free(struct profile *p)
{
	free(p->rows);
	free(p->win_values);
	free(p->win_rows);
	hm_free(&p->key2row);
	memset(p, 0, sizeof(*p));
}

static int grow_rows(struct profile *p, uint32_t need)
{
	return pm_grow_zero(&p->rows, &p->cap_rows, need, 1024, sizeof(*p->rows));
}

/* Row for a sparse key (pid, tid): looked up in the hash map. */
static int64_t sparse_row(struct profile *p, uint32_t key)
{
	uint32_t r = hm_get(&p->key2row, key, 0);

	if (r != HM_EMPTY)
		return r;
	if (p->nr_rows >= p->cap_rows && grow_rows(p, p->nr_rows + 1))
		return -ENOMEM;
	r = p->nr_rows++;
	p->rows[r].key = key;
	if (hm_put(&p->key2row, key, 0, r))
		return -ENOMEM;
	return r;
}

static int record_window(struct profile *p, const struct trace_sample *smp, uint32_t row)
{
	uint32_t i;

	if (p->nr_win == p->cap_win) {
		uint64_t cap = p->cap_win ? p->cap_win * 2 : 65536;
		float *v = realloc(p->win_values, cap * p->nr_hist * sizeof(*v));
		uint32_t *r;

		if (!v)
			return -ENOMEM;
		p->win_values = v;
		r = realloc(p->win_rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		p->win_rows = r;
		p->cap_win = cap;
	}
	for (i = 0; i < p->nr_hist; i++) {
		double v;

		p->win_values[p->nr_win * p->nr_hist + i] =
			metric_value(&p->hist_metrics[i], smp->counts, &v) ? (float)v : NAN;
	}
	p->win_rows[p->nr_win++] = row;
	return 0;
}

int profile_add_sample(void *arg, const struct trace_sample *smp, uint64_t index,
		       uint32_t sym, uint32_t comm)
{
	(void)index;
	return profile_add_aggregate(arg, smp, 1, sym, comm);
}

int profile_add_aggregate(struct profile *p, const struct trace_sample *smp, uint64_t nsamples,
			  uint32_t sym, uint32_t comm)
{
	struct prof_row *row;
	int64_t r;
	uint32_t i, n;

	switch (p->by) {
	case BY_SYMBOL:
		r = sym;
		break;
	case BY_DSO:
		r = symbolizer_sym(p->s->sy, sym)->dso;
		break;
	case BY_COMM:
		r = comm;
		break;
	case BY_REGION:
		/* row 0: [no region]; region id + 1 wraps REGIONS_NONE to 0 */
		r = (uint32_t)(p->s->region + 1);
		break;
	case BY_PID:
		r = sparse_row(p, smp->pid);
		break;
	default:
		r = sparse_row(p, smp->tid);
		break;
	}
	if (r < 0)
		return (int)r;
	if (p->by == BY_SYMBOL || p->by == BY_DSO || p->by == BY_COMM || p->by == BY_REGION) {
		if ((uint32_t)r >= p->cap_rows && grow_rows(p, (uint32_t)r + 1))
			return -ENOMEM;
		if ((uint32_t)r >= p->nr_rows)
			p->nr_rows = (uint32_t)r + 1;
		p->rows[r].key = (uint32_t)r;
	}
	row = &p->rows[r];
	row->samples += nsamples;
	row->pid = smp->pid;
	row->comm = comm;
	n = !window_counts_events(smp->flags) ? 0 : smp->nr < p->nr_events ? smp->nr :
									     p->nr_events;
	for (i = 0; i < n; i++)
		row->counts[i] += smp->counts[i];
	p->samples += nsamples;
	if (!p->nr_hist)
		return 0;
	if (!window_in_stats(smp->flags)) {
		p->win_left_out += nsamples;
		return 0;
	}
	return record_window(p, smp, (uint32_t)r);
}

const char *profile_row_name(const struct profile *p, const struct prof_row *r,
			     char *buf, size_t size)
{
	switch (p->by) {
	case BY_SYMBOL:
		return symbolizer_sym(p->s->sy, r->key)->name;
	case BY_DSO:
		return symbolizer_dso_info(p->s->sy, r->key)->name;
	case BY_COMM:
		return session_comm(p->s, r->key);
	case BY_REGION:
		return regions_name(&p->s->reg, r->key ? r->key - 1 : REGIONS_NONE);
	default:
		snprintf(buf, size, "%lld", session_task_id(r->key));
		return buf;
	}
}

/* qsort has no context argument in C11: the comparison reads these. */
static const struct profile *cmp_p;
static const struct sort_key *cmp_k;

static double sort_value(const struct prof_row *r)
{
	double v;

	switch (cmp_k->kind) {
	case SORT_EVENT:
		return (double)r->counts[cmp_k->event];
	case SORT_METRIC:
		return metric_value(&cmp_k->metric, r->counts, &v) ? v : -1.0;
	default:
		return (double)r->samples;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct prof_row *x = &cmp_p->rows[*(const uint32_t *)a];
	const struct prof_row *y = &cmp_p->rows[*(const uint32_t *)b];
	char bx[32], by[32];
	double vx, vy;
	int c;

	if (cmp_k->kind == SORT_NAME) {
		c = strcmp(profile_row_name(cmp_p, x, bx, sizeof(bx)),
			   profile_row_name(cmp_p, y, by, sizeof(by)));
		if (c)
			return c;
	} else {
		vx = sort_value(x);
		vy = sort_value(y);
		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	/*
	 * Ties: more samples first, then by name, then by key: an order that
	 * does not depend on the order rows were created in (which differs
	 * between decoding samples and taking chunk summaries).
	 */
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (cmp_k->kind != SORT_NAME) {
		c = strcmp(profile_row_name(cmp_p, x, bx, sizeof(bx)),
			   profile_row_name(cmp_p, y, by, sizeof(by)));
		if (c)
			return c;
	}
	return x->key < y->key ? -1 : x->key > y->key;
}

uint32_t *profile_sorted(const struct profile *p, const struct sort_key *k, uint32_t *n)
{
	uint32_t *idx = malloc(((size_t)p->nr_rows + 1) * sizeof(*idx));
	uint32_t i, m = 0;

	if (!idx)
		return NULL;
	for (i = 0; i < p->nr_rows; i++)
		if (p->rows[i].samples)
			idx[m++] = i;
	cmp_p = p;
	cmp_k = k;
	qsort(idx, m, sizeof(*idx), row_cmp);
	*n = m;
	return idx;
}

void wilson95(uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p, d, c, h;

	if (!n) {
		*lo = *hi = 0;
		return;
	}
	p = (double)k / (double)n;
	d = 1 + z * z / (double)n;
	c = (p + z * z / (2.0 * (double)n)) / d;
	h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
	*lo = 100.0 * (c - h > 0 ? c - h : 0);
	*hi = 100.0 * (c + h < 1 ? c + h : 1);
}
