// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof top's rows (top_view.h): the window's stored samples in scope go
 * through the flat profile's aggregation (or annotate's, for lines), so a
 * row of top holds what `report` (or `annotate --by line`) would print for
 * the same samples.
 */
#include "analysis/top_view.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/annotate.h"
#include "analysis/profile.h"
#include "stacks/callstack.h"
#include "symbols/disasm.h"
#include "util.h"

static const char *const by_names[] = { "process", "thread", "function", "dso", "cgroup",
					"line" };

const char *top_by_name(enum top_by by)
{
	return by_names[by];
}

int top_by_parse(const char *s, enum top_by *by)
{
	uint32_t i;

	/* lines are a zoom into one function, not a --by */
	for (i = 0; i < TOP_BY_LINE; i++)
		if (!strcmp(s, by_names[i])) {
			*by = (enum top_by)i;
			return 0;
		}
	return -EINVAL;
}

void top_scope_init(struct top_scope *sc, enum top_by by)
{
	memset(sc, 0, sizeof(*sc));
	sc->by = by;
	sc->dso = -1;
	sc->sym = -1;
	sc->cgroup = -1;
}

static bool in_scope(const struct top_live *t, const struct top_scope *sc,
		     const struct top_sample *e)
{
	if (sc->pid && e->s.pid != sc->pid)
		return false;
	if (sc->tid && e->s.tid != sc->tid)
		return false;
	if (sc->sym >= 0 && e->sym != (uint32_t)sc->sym)
		return false;
	if (sc->cgroup >= 0 && e->cgroup != (uint32_t)sc->cgroup)
		return false;
	return sc->dso < 0 || symbolizer_sym(t->s.sy, e->sym)->dso == (uint32_t)sc->dso;
}

static bool matches(const struct top_row *r, const char *filter)
{
	return !filter || !*filter || strcasestr(r->name, filter) || strcasestr(r->detail, filter);
}

static int add_row(struct top_view *v, uint32_t *cap, const struct top_row *r, const char *filter)
{
	if (!matches(r, filter))
		return 0;
	if (v->nr == *cap && pm_grow(&v->rows, cap, (uint64_t)v->nr + 1, 64, sizeof(*v->rows)))
		return -ENOMEM;
	v->rows[v->nr++] = *r;
	return 0;
}

/*
 * cgroups: their path ids stand in for the command (BY_COMM groups and
 * names them); callers (a line view's stand-in): functions, by the caller's
 * id in place of the sample's own.
 */
static const enum group_by profile_by[] = { BY_PID, BY_TID, BY_SYMBOL, BY_DSO, BY_COMM,
					    BY_SYMBOL };

/* The first other function up e's stack; a marker for a root or no stack. */
static int64_t caller_of(struct top_live *t, const struct top_sample *e)
{
	const struct cs_stack *st;
	uint32_t k;

	if (e->stack == CS_NONE)
		return symbolizer_marker(t->s.sy, "[no stack]");
	st = callstacks_get(t->s.cs, e->stack);
	/* recursion: the function calling itself is not its caller */
	for (k = 1; k < st->nr; k++)
		if (st->frames[k].sym != e->sym && !(st->frames[k].flags & CS_F_INLINE))
			return st->frames[k].sym;
	return symbolizer_marker(t->s.sy, "[no caller]");
}

/* Processes, threads, functions, DSOs, cgroups, callers: the flat profile of the samples in scope. */
static int build_profile(struct top_view *v, struct top_live *t, const char *filter)
{
	struct profile p;
	uint32_t i, k, cap = 0;
	/* a profile's line rows: their "file:line" ids stand in for the command */
	bool plines = v->scope.by == TOP_BY_LINE && !v->callers;
	int err = profile_init(&p, &t->s, plines ? BY_COMM : profile_by[v->scope.by], NULL, 0);

	for (i = 0; !err && i < t->closed; i++) {
		const struct top_interval *iv = top_live_interval(t, i);

		for (k = 0; !err && k < iv->n; k++) {
			const struct top_sample *e = &iv->v[k];
			int64_t sym = v->callers ? caller_of(t, e) : e->sym;

			if (!in_scope(t, &v->scope, e) || (plines && e->line == TOP_NO_LINE))
				continue;
			err = sym < 0 ? (int)sym : profile_add_aggregate(&p, &e->s, e->n, (uint32_t)sym,
				plines ? e->line : v->scope.by == TOP_BY_CGROUP ? e->cgroup : e->comm);
		}
	}
	v->samples = p.samples;
	for (i = 0; !err && i < p.nr_rows; i++) {
		const struct prof_row *pr = &p.rows[i];
		struct top_row r = { .key = pr->key, .pid = pr->pid, .samples = pr->samples };
		char buf[32];

		if (!pr->samples)
			continue;
		memcpy(r.counts, pr->counts, sizeof(r.counts));
		if (v->scope.by == TOP_BY_PROCESS || v->scope.by == TOP_BY_THREAD) {
			snprintf(r.name, sizeof(r.name), "%s", session_comm(&t->s, pr->comm));
			r.exited = v->scope.by == TOP_BY_PROCESS && top_live_exited(t, pr->key);
		} else {
			snprintf(r.name, sizeof(r.name), "%s",
				 profile_row_name(&p, pr, buf, sizeof(buf)));
		}
		if (v->scope.by == TOP_BY_FUNCTION || v->callers)
			snprintf(r.detail, sizeof(r.detail), "%s", symbolizer_dso_info(
				 t->s.sy, symbolizer_sym(t->s.sy, pr->key)->dso)->short_name);
		err = add_row(v, &cap, &r, filter);
	}
	profile_free(&p);
	return err;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "??";
}

/* One function's source lines: annotate's aggregation of the samples in scope. */
static int build_lines(struct top_view *v, struct top_live *t, const char *filter)
{
	struct annotate a;
	struct ann_view av;
	struct disasm *d = NULL;
	uint32_t i, k, idx, fi, cap = 0;
	int err;

	if (t->remote) {
		/* the profile's own line numbers; without any, its callers */
		err = build_profile(v, t, filter);
		if (err || v->samples)	/* samples with a line were found */
			return err;
		snprintf(v->why, sizeof(v->why), "the daemon's profile has no source lines for it%s",
			 t->s.cs ? ": its callers instead" : "");
		v->callers = t->s.cs != NULL;
		top_view_free(v);
		return v->callers ? build_profile(v, t, filter) : 0;
	}
	err = annotate_init(&a, &t->s);

	for (i = 0; !err && i < t->closed; i++) {
		const struct top_interval *iv = top_live_interval(t, i);

		for (k = 0; !err && k < iv->n; k++)
			if (in_scope(t, &v->scope, &iv->v[k]))
				err = annotate_add(&a, &iv->v[k].s, iv->v[k].sym, &idx);
	}
	if (!err)
		err = annotate_group(&a, -1);
	v->samples = a.samples;
	for (fi = 0; !err && fi < a.nr_funcs; fi++)
		if (a.funcs[fi].sym == (uint32_t)v->scope.sym)
			break;
	if (err || fi == a.nr_funcs) {
		annotate_free(&a);
		return err;
	}
	err = disasm_open(&d, DISASM_ATT);
	if (!err)
		err = annotate_view(&a, fi, d, &av);
	if (err) {
		disasm_close(d);
		annotate_free(&a);
		return err;
	}
	if (!av.nr_lines)
		snprintf(v->why, sizeof(v->why), "%s%s", av.why ? av.why :
			 "no source lines (the file has no DWARF line table)",
			 t->s.cs ? ": its callers instead" : "");
	if (!av.nr_lines && t->s.cs) {
		/* -g: where it was called from tells what its samples were for */
		v->callers = true;
		ann_view_free(&av);
		disasm_close(d);
		annotate_free(&a);
		return build_profile(v, t, filter);
	}
	for (i = 0; !err && i < av.nr_lines; i++) {
		const struct ann_line *l = &av.lines[i];
		struct top_row r = { .key = (uint64_t)l->line << 8 | (l->depth & 0xff),
				     .samples = l->c.samples };

		if (!l->c.samples)
			continue;
		memcpy(r.counts, l->c.counts, sizeof(r.counts));
		snprintf(r.name, sizeof(r.name), "%s:%d", base_name(l->file), l->line);
		pm_strlcpy(r.detail, l->inl, sizeof(r.detail));
		err = add_row(v, &cap, &r, filter);
	}
	ann_view_free(&av);
	disasm_close(d);
	annotate_free(&a);
	return err;
}

/* qsort has no context argument in C11: the comparison reads this. */
static const struct top_sort *cmp_sort;

static double sort_value(const struct top_row *r)
{
	if (cmp_sort->kind == TOP_SORT_EVENT)
		return (double)r->counts[cmp_sort->idx];
	if (cmp_sort->kind == TOP_SORT_METRIC)
		return isnan(r->metric[cmp_sort->idx]) ? -1.0 : r->metric[cmp_sort->idx];
	return (double)r->samples;
}

static int cmp_desc(double a, double b)
{
	return a > b ? -1 : a < b;
}

/* The sort key, then (an order independent of arrival) samples, name, key. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct top_row *x = pa, *y = pb;
	int c = cmp_sort->kind == TOP_SORT_NAME ? strcmp(x->name, y->name) :
						 cmp_desc(sort_value(x), sort_value(y));

	if (!c)
		c = cmp_desc((double)x->samples, (double)y->samples);
	if (!c)
		c = strcmp(x->name, y->name);
	return c ? c : (x->key > y->key) - (x->key < y->key);
}

static bool same_scope(const struct top_scope *a, const struct top_scope *b)
{
	return a->by == b->by && a->pid == b->pid && a->tid == b->tid && a->dso == b->dso &&
	       a->sym == b->sym;
}

static const struct top_row *prev_row(const struct top_view *prev, const struct top_row *r)
{
	uint32_t i;

	for (i = 0; i < prev->nr; i++)
		if (prev->rows[i].key == r->key && !strcmp(prev->rows[i].name, r->name))
			return &prev->rows[i];
	return NULL;
}

static void derive(struct top_view *v, const struct top_view *prev)
{
	bool trend = prev && same_scope(&prev->scope, &v->scope);
	uint32_t i, m;

	for (i = 0; i < v->nr; i++) {
		struct top_row *r = &v->rows[i];
		const struct top_row *p = trend ? prev_row(prev, r) : NULL;

		r->share = v->samples ? 100.0 * (double)r->samples / (double)v->samples : 0;
		r->dshare = p ? r->share - p->share : trend ? r->share : NAN;
		for (m = 0; m < v->ms.n; m++) {
			double x;

			r->metric[m] = metric_value(&v->ms.m[m], r->counts, &x) ? x : NAN;
			r->dmetric[m] = p ? r->metric[m] - p->metric[m] : NAN;
		}
	}
}

int top_view_build(struct top_view *v, struct top_live *t, const struct top_scope *sc,
		   const struct top_sort *so, const char *filter, const struct top_view *prev)
{
	int err;

	memset(v, 0, sizeof(*v));
	v->scope = *sc;
	v->h = &t->h;
	v->nr_events = t->h.nr_events < PMIPROF_MAX_EVENTS ? t->h.nr_events : PMIPROF_MAX_EVENTS;
	metrics_derived(&t->h, &v->ms);
	if (v->ms.n > MAX_METRICS * 2)
		v->ms.n = MAX_METRICS * 2;
	v->seconds = top_live_seconds(t);
	top_live_counts(t, &v->seen, &v->lost, &v->throttled);
	err = sc->by == TOP_BY_LINE ? build_lines(v, t, filter) : build_profile(v, t, filter);
	if (err) {
		top_view_free(v);
		return err;
	}
	derive(v, prev);
	cmp_sort = so;
	qsort(v->rows, v->nr, sizeof(*v->rows), row_cmp);
	return 0;
}

void top_view_free(struct top_view *v)
{
	free(v->rows);
	v->rows = NULL;
	v->nr = 0;
}

double top_row_rate(const struct top_view *v, const struct top_row *r, uint32_t e)
{
	return v->seconds > 0 ? (double)r->counts[e] / v->seconds : 0;
}
