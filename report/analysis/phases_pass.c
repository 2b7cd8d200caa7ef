// SPDX-License-Identifier: GPL-2.0
/*
 * Phases of a trace, the pass over the report's session (phases.h): the
 * windows as the report sees them (symbolized, filtered) into intervals,
 * their phases, the flat profile of one phase, and per-phase summaries and
 * names for the commands and pages that show them.  Nothing here prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/phases.h"
#include "analysis/profile.h"
#include "input/session.h"
#include "util.h"

/* ---- detection on a trace ---- */

struct detect_pass {
	struct session *s;
	struct phases_result *r;
};

/* Dense function ids in order of first appearance: the .bb ids and the projection's keys. */
static int64_t fn_of(struct phases_result *r, uint32_t sym)
{
	if (sym >= r->cap_sym) {
		uint32_t cap = r->cap_sym ? r->cap_sym : 1024;
		uint32_t *n;

		while (cap <= sym)
			cap *= 2;
		n = realloc(r->sym_fn, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		memset(n + r->cap_sym, 0, (cap - r->cap_sym) * sizeof(*n));
		r->sym_fn = n;
		r->cap_sym = cap;
	}
	if (!r->sym_fn[sym]) {
		if (r->nr_fn == r->cap_fn) {
			uint32_t cap = r->cap_fn ? r->cap_fn * 2 : 256, *n;

			n = realloc(r->fn_sym, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			r->fn_sym = n;
			r->cap_fn = cap;
		}
		r->fn_sym[r->nr_fn++] = sym;
		r->sym_fn[sym] = r->nr_fn;
	}
	return r->sym_fn[sym] - 1;
}

static int detect_window(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
			 uint32_t comm)
{
	struct detect_pass *d = arg;
	uint32_t had = d->r->nr_fn;
	int64_t fn = fn_of(d->r, sym);
	int err;

	(void)index;
	(void)comm;
	if (fn < 0)
		return (int)fn;
	/* a new function: kernel code by its first window (phases.h) */
	if (d->r->nr_fn != had &&
	    ((smp->flags & (PMIPROF_SAMPLE_F_KERNEL | PMIPROF_SAMPLE_F_IP_HIDDEN)) ||
	     smp->ip >= 0xffff800000000000ULL)) {
		err = phases_builder_kernel_fn(&d->r->b, (uint32_t)fn);
		if (err)
			return err;
	}
	return phases_builder_add(&d->r->b, (uint32_t)fn, session_time_ns(d->s, smp->time),
				  window_counts_events(smp->flags), smp->counts);
}

/* Shown per phase: the derived metrics (clustered on), else the non-clock event rates. */
static void phase_rates(const struct trace_header *h, struct phases_result *r)
{
	uint32_t i;

	metrics_derived(h, &r->rates);
	r->nr_cluster_rates = r->rates.n;
	if (r->rates.n)
		return;
	for (i = 0; i < h->nr_events && i < PMIPROF_MAX_EVENTS && r->rates.n < 6; i++) {
		char name[200], b[128];
		const char *base = event_base_name(h->events[i].name, b, sizeof(b)), *why;

		if (!strcmp(base, "cpu-clock") || !strcmp(base, "task-clock"))
			continue;
		snprintf(name, sizeof(name), "%s-rate", h->events[i].name);
		if (!metric_parse(h, name, &r->rates.m[r->rates.n], &why))
			r->rates.n++;
	}
}

int phases_detect(struct session *s, const struct phases_opts *o, struct phases_result *r)
{
	const struct trace_header *h = s->h;
	bool time_based = h->flags & PMIPROF_TRACE_F_TIME_BASED;
	struct phases_rule rule = {
		.target_events = time_based ? PHASES_TARGET_NS : PHASES_TARGET_EVENTS,
		.trigger = h->trigger_index,
	};
	struct detect_pass d = { s, r };
	double *x = NULL, *w = NULL;
	uint8_t *tr = NULL;
	uint32_t dim, i;
	int err;

	memset(r, 0, sizeof(*r));
	/* A fixed period tells M at once; a frequency's period is measured (phases.h). */
	if (o->interval)
		rule.m = o->interval;
	else if (!(h->trigger_flags & PMIPROF_TRIGGER_F_FREQ) && h->period)
		rule.m = (uint64_t)fmax(1, round(rule.target_events / (double)h->period));
	phase_rates(h, r);
	err = phases_builder_init(&r->b, h->nr_events, &rule);
	if (!err)
		err = session_run(s, detect_window, &d);
	if (!err)
		err = phases_builder_finish(&r->b);
	if (err)
		return err;
	if (!r->b.n)
		return -ENODATA;
	x = phases_features(&r->b, r->rates.m, r->nr_cluster_rates, &dim);
	w = malloc(r->b.n * sizeof(*w));
	tr = malloc(r->b.n);
	if (!x || !w || !tr) {
		err = -ENOMEM;
		goto out;
	}
	phases_transitions(x, r->b.n, dim, tr);
	for (i = 0; i < r->b.n; i++) {
		w[i] = tr[i] ? 0 : r->b.iv[i].windows;
		r->clustered += !tr[i];
	}
	/*
	 * A phase needs a few intervals for the BIC to mean anything: with 9
	 * intervals it would happily find 7 phases.  k is capped at a third of
	 * the intervals clustered, and the table says so.
	 */
	r->max_k_asked = o->max_k ? o->max_k : PHASES_DEFAULT_MAX_K;
	err = phases_cluster(x, w, r->b.n, dim,
			     r->max_k_asked < PHASES_K_CAP(r->clustered) ? r->max_k_asked :
			     PHASES_K_CAP(r->clustered),
			     phases_sampling_var(&r->b, w, dim), &r->c);
	if (!err) {
		err = phases_merge_similar(&r->b, x, w, dim, r->rates.m, r->nr_cluster_rates, &r->c);
		err = err > 0 ? 0 : err;
	}
	for (i = 0; !err && i < r->b.n; i++)
		r->b.iv[i].phase = r->c.km.assign[i];
	r->transition = tr;
	tr = NULL;
out:
	free(x);
	free(w);
	free(tr);
	return err;
}

void phases_result_free(struct phases_result *r)
{
	phases_builder_free(&r->b);
	phases_clustering_free(&r->c);
	free(r->fn_sym);
	free(r->sym_fn);
	free(r->transition);
	memset(r, 0, sizeof(*r));
}

/* ---- report --phase K ---- */

struct phase_filter {
	struct session *s;
	const struct phases_result *r;
	struct profile *p;
	uint32_t phase;
	uint64_t ordinal;	/* kept windows so far */
	uint32_t iv;		/* interval of the current window */
};

static int phase_window(void *arg, const struct trace_sample *smp, uint64_t index, uint32_t sym,
			uint32_t comm)
{
	struct phase_filter *f = arg;
	const struct phases_builder *b = &f->r->b;
	struct session *s = f->s;
	uint32_t e;

	while (f->iv + 1 < b->n && f->ordinal >= b->iv[f->iv + 1].first)
		f->iv++;
	f->ordinal++;
	if (b->iv[f->iv].phase == f->phase)
		return profile_add_sample(f->p, smp, index, sym, comm);
	/* not this phase: the session's counts of what is shown leave it out */
	s->kept--;
	if (smp->flags & PMIPROF_SAMPLE_F_THROTTLED)
		s->throttled--;
	if (smp->flags & PMIPROF_SAMPLE_F_AFTER_LOSS)
		s->after_loss--;
	if (!window_in_stats(smp->flags))
		s->left_out--;
	for (e = 0; window_counts_events(smp->flags) && e < smp->nr && e < PMIPROF_MAX_EVENTS; e++)
		s->kept_totals[e] -= smp->counts[e];
	return 0;
}

int phases_profile(struct session *s, const struct phases_opts *o, uint32_t phase,
		   struct profile *p, uint32_t *nr_phases)
{
	struct phases_result r;
	struct phase_filter f;
	struct session s2;
	int err;

	*nr_phases = 0;
	err = session_open(&s2, &s->opts);
	if (err)
		return err;
	err = phases_detect(&s2, o, &r);
	session_close(&s2);
	if (!err) {
		*nr_phases = r.c.k;
		if (!phase || phase > r.c.k)
			err = -ERANGE;
	}
	if (!err) {
		f = (struct phase_filter){ .s = s, .r = &r, .p = p, .phase = phase - 1 };
		err = session_run(s, phase_window, &f);
	}
	phases_result_free(&r);
	return err;
}

/* ---- plot --phases ---- */

static int fn_cmp(const void *a, const void *b, void *arg)
{
	const uint64_t *sort_w = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_w[x] != sort_w[y])
		return sort_w[x] > sort_w[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

int phases_summarize(const struct phases_result *r, uint32_t top, struct phase_summary *ps)
{
	const struct phases_builder *b = &r->b;
	uint32_t k = r->c.k, nr = r->rates.n, p, i, j, q;

	for (p = 0; p < k; p++) {
		struct phase_summary *x = &ps[p];
		uint32_t *order;
		double v;

		x->mean = calloc(nr ? nr : 1, sizeof(double));
		x->sd = calloc(nr ? nr : 1, sizeof(double));
		x->fn_windows = calloc(r->nr_fn ? r->nr_fn : 1, sizeof(uint64_t));
		order = malloc((r->nr_fn ? r->nr_fn : 1) * sizeof(*order));
		if (!x->mean || !x->sd || !x->fn_windows || !order) {
			free(order);
			return -ENOMEM;
		}
		for (q = 0; q < nr; q++) {
			uint32_t have = 0;
			double s = 0, s2 = 0;

			for (i = 0; i < b->n; i++) {
				if (b->iv[i].phase != p ||
				    !metric_value(&r->rates.m[q], &b->sums[(size_t)i * PMIPROF_MAX_EVENTS],
						  &v))
					continue;
				s += v;
				s2 += v * v;
				have++;
			}
			x->mean[q] = have ? s / have : NAN;
			x->sd[q] = have ? sqrt(fmax(0, s2 / have - x->mean[q] * x->mean[q])) : NAN;
		}
		for (i = 0; i < b->n; i++) {
			if (b->iv[i].phase != p)
				continue;
			x->intervals++;
			x->transitions += r->transition[i];
			x->windows += b->iv[i].windows;
			for (j = 0; j < b->iv[i].bb_n; j++)
				x->fn_windows[b->bb[b->iv[i].bb_off + j].fn] +=
					b->bb[b->iv[i].bb_off + j].count;
		}
		for (i = 0; i < r->nr_fn; i++)
			order[i] = i;
		qsort_r(order, r->nr_fn, sizeof(*order), fn_cmp, x->fn_windows);
		for (i = 0; i < r->nr_fn && i < top && x->fn_windows[order[i]]; i++)
			;
		x->nr_top = i;
		x->top = order;
	}
	return 0;
}

void phases_summary_free(struct phase_summary *ps, uint32_t k)
{
	uint32_t p;

	for (p = 0; ps && p < k; p++) {
		free(ps[p].mean);
		free(ps[p].sd);
		free(ps[p].fn_windows);
		free(ps[p].top);
	}
	free(ps);
}

const char *phases_fn_name(const struct session *s, const struct phases_result *r, uint32_t fn)
{
	return symbolizer_sym(s->sy, r->fn_sym[fn])->name;
}

int phases_names(const struct session *s, const struct phases_result *r, char *names, size_t each)
{
	uint32_t k = r->c.k, p, q;
	struct phase_summary *ps = calloc(k ? k : 1, sizeof(*ps));
	int err;

	if (!ps)
		return -ENOMEM;
	err = phases_summarize(r, 2, ps);
	for (p = 0; !err && p < k; p++) {
		const struct phase_summary *x = &ps[p];
		char *out = names + (size_t)p * each;
		bool dup = false;
		int at;

		if (!x->nr_top || !x->windows) {
			snprintf(out, each, "phase %u", p + 1);
			continue;
		}
		/* two phases with the same top function: their second one tells them apart */
		for (q = 0; q < k; q++)
			dup |= q != p && ps[q].nr_top && ps[q].top[0] == x->top[0];
		at = snprintf(out, each, "phase %u: %s %.0f%%", p + 1, phases_fn_name(s, r, x->top[0]),
			      100.0 * (double)x->fn_windows[x->top[0]] / (double)x->windows);
		if (dup && x->nr_top > 1 && at > 0 && (size_t)at < each)
			snprintf(out + at, each - (size_t)at, ", %s %.0f%%", phases_fn_name(s, r, x->top[1]),
				 100.0 * (double)x->fn_windows[x->top[1]] / (double)x->windows);
	}
	phases_summary_free(ps, k);
	return err;
}

