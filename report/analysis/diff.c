// SPDX-License-Identifier: GPL-2.0
/* Statistics of pmiprof diff: z-tests, Holm, cost reference, divergence (see diff.h). */
#include "analysis/diff.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double diff_p_two_sided(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

double diff_z_crit(double alpha)
{
	double lo = 0, hi = 40;
	int i;

	/* erfc is monotone: bisection to double precision is 60 steps. */
	for (i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (diff_p_two_sided(mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void diff_ztest(uint64_t k_a, uint64_t n_a, uint64_t k_b, uint64_t n_b, double zcrit,
		struct diff_ztest *t)
{
	double na = (double)n_a, nb = (double)n_b, pool, se0, se;

	memset(t, 0, sizeof(*t));
	t->p = 1;
	t->pa = n_a ? (double)k_a / na : 0;
	t->pb = n_b ? (double)k_b / nb : 0;
	t->delta = t->pb - t->pa;
	t->lo = t->hi = t->delta;
	if (!n_a || !n_b)
		return;
	se = sqrt(t->pa * (1 - t->pa) / na + t->pb * (1 - t->pb) / nb);
	t->lo = t->delta - zcrit * se;
	t->hi = t->delta + zcrit * se;
	pool = (double)(k_a + k_b) / (na + nb);
	se0 = sqrt(pool * (1 - pool) * (1 / na + 1 / nb));
	if (se0 <= 0)
		return;		/* both 0 % or both 100 %: no difference to test */
	t->z = t->delta / se0;
	t->p = diff_p_two_sided(t->z);
}

/* qsort has no context argument in C11: the comparison reads this. */
static const double *holm_p;

static int holm_cmp(const void *x, const void *y)
{
	double a = holm_p[*(const uint32_t *)x], b = holm_p[*(const uint32_t *)y];

	if (a != b)
		return a < b ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

int diff_holm(const double *p, double *adj, uint32_t n)
{
	uint32_t *idx, i;
	double run = 0;

	if (!n)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		idx[i] = i;
	holm_p = p;
	qsort(idx, n, sizeof(*idx), holm_cmp);
	for (i = 0; i < n; i++) {
		double v = (double)(n - i) * p[idx[i]];

		if (v > 1)
			v = 1;
		if (v > run)
			run = v;	/* step-down: never below an earlier rank's */
		adj[idx[i]] = run;
	}
	free(idx);
	return 0;
}

double diff_rel_change(double a, double b)
{
	if (a == 0)
		return b == 0 ? 0 : NAN;
	return (b - a) / a;
}

/* Cost test of fn[i] against the reference (without fn[i] itself). */
static void cost_test(struct diff_fn *f, uint64_t ref_a, uint64_t ref_b, double zcrit)
{
	uint64_t ra = ref_a - (f->in_ref ? f->a : 0), rb = ref_b - (f->in_ref ? f->b : 0);
	double ca = (double)f->a, cb = (double)f->b, xa = (double)ra, xb = (double)rb, se;

	diff_ztest(f->a, f->a + ra, f->b, f->b + rb, zcrit, &f->cost);
	if (!ra || !rb) {
		/* no reference: nothing to compare the cost with */
		f->cost.z = 0;
		f->cost.p = 1;
		f->ratio = f->ratio_lo = f->ratio_hi = NAN;
		return;
	}
	f->ratio = ca ? (cb / xb) / (ca / xa) : INFINITY;
	/* Woolf's interval of the odds ratio; a zero cell takes the
	 * Haldane-Anscombe 0.5 so the interval stays finite. */
	if (!f->a || !f->b) {
		ca += 0.5;
		cb += 0.5;
		xa += 0.5;
		xb += 0.5;
	}
	se = sqrt(1 / ca + 1 / cb + 1 / xa + 1 / xb);
	f->ratio_lo = exp(log((cb / xb) / (ca / xa)) - zcrit * se);
	f->ratio_hi = exp(log((cb / xb) / (ca / xa)) + zcrit * se);
}

/* log of function f's share change, +-inf when it is in one run only */
static double log_ratio(const struct diff_fn *f, uint64_t na, uint64_t nb)
{
	if (!f->a)
		return f->b ? INFINITY : 0;
	if (!f->b)
		return -INFINITY;
	return log(((double)f->b / (double)nb) / ((double)f->a / (double)na));
}

struct lr {
	double l, w;
};

static int lr_cmp(const void *x, const void *y)
{
	const struct lr *a = x, *b = y;

	return a->l < b->l ? -1 : a->l > b->l;
}

/*
 * The share-weighted median of the functions' log share changes: the
 * change of the functions whose cost did not change, as long as they hold
 * most of the samples, whatever the others did.
 */
static int median_log_ratio(const struct diff_fn *fn, uint32_t n, uint64_t na, uint64_t nb,
			    double *out)
{
	struct lr *v = malloc(((size_t)n + 1) * sizeof(*v));
	double total = 0, run = 0;
	uint32_t i;

	*out = 0;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		v[i].l = log_ratio(&fn[i], na, nb);
		v[i].w = (double)fn[i].a / (double)na + (double)fn[i].b / (double)nb;
		total += v[i].w;
	}
	qsort(v, n, sizeof(*v), lr_cmp);
	for (i = 0; i < n; i++) {
		run += v[i].w;
		if (run >= total / 2) {
			*out = v[i].l;
			break;
		}
	}
	free(v);
	return 0;
}

int diff_compute(struct diff_fn *fn, uint32_t n, uint64_t na, uint64_t nb, double alpha,
		 struct diff_result *res)
{
	double med = 0;
	double zcrit = diff_z_crit(alpha), *p, *adj;
	uint32_t i;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->na = na;
	res->nb = nb;
	p = calloc((size_t)n + 1, sizeof(*p));
	adj = calloc((size_t)n + 1, sizeof(*adj));
	if (!p || !adj) {
		free(p);
		free(adj);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		diff_ztest(fn[i].a, na, fn[i].b, nb, zcrit, &fn[i].share);
		p[i] = fn[i].share.p;
		fn[i].in_ref = true;
		res->ref_a += fn[i].a;
		res->ref_b += fn[i].b;
	}
	rc = diff_holm(p, adj, n);
	for (i = 0; !rc && i < n; i++) {
		fn[i].share_adj = adj[i];
		fn[i].share_sig = adj[i] < alpha;
		res->share_sig += fn[i].share_sig;
	}
	/*
	 * The reference: every function whose cost is not found changed.
	 * Each round tests every function against it and drops, of the
	 * flagged members, the one whose share changed farthest from the
	 * weighted median change (its change moved the others' shares): the
	 * largest |z| alone could pick a big unchanged function whose share
	 * several smaller changes moved.  At most n rounds.
	 */
	if (!rc && na && nb)
		rc = median_log_ratio(fn, n, na, nb, &med);
	while (!rc) {
		int64_t drop = -1;
		double far = -1;

		for (i = 0; i < n; i++) {
			cost_test(&fn[i], res->ref_a, res->ref_b, zcrit);
			p[i] = fn[i].cost.p;
		}
		rc = diff_holm(p, adj, n);
		if (rc)
			break;
		for (i = 0; i < n; i++) {
			fn[i].cost_adj = adj[i];
			fn[i].cost_sig = adj[i] < alpha;
			double dist = fabs(log_ratio(&fn[i], na, nb) - med);

			if (!fn[i].cost_sig || !fn[i].in_ref)
				continue;
			if (drop < 0 || dist > far ||
			    (dist == far && fabs(fn[i].cost.z) > fabs(fn[drop].cost.z))) {
				drop = i;
				far = dist;
			}
		}
		if (drop < 0)
			break;
		/* the premise: most of the baseline's time did not change its cost */
		if (2 * (res->ref_a - fn[drop].a) <= na || res->ref_b == fn[drop].b) {
			res->ref_limited = true;
			break;
		}
		fn[drop].in_ref = false;
		res->ref_a -= fn[drop].a;
		res->ref_b -= fn[drop].b;
		res->rounds++;
	}
	for (i = 0; !rc && i < n; i++) {
		res->cost_sig += fn[i].cost_sig;
		res->ref_n += fn[i].in_ref;
	}
	free(p);
	free(adj);
	return rc;
}

int diff_running_init(struct diff_running *r, uint32_t nr_funcs)
{
	memset(r, 0, sizeof(*r));
	r->nr_funcs = nr_funcs;
	r->delta = calloc(nr_funcs ? nr_funcs : 1, sizeof(*r->delta));
	return r->delta ? 0 : -ENOMEM;
}

void diff_running_free(struct diff_running *r)
{
	free(r->delta);
	memset(r, 0, sizeof(*r));
}

static void running_bump(struct diff_running *r, uint32_t f, int d)
{
	int64_t *x = &r->delta[f];

	r->sum_abs -= (uint64_t)(*x < 0 ? -*x : *x);
	*x += d;
	r->sum_abs += (uint64_t)(*x < 0 ? -*x : *x);
}

double diff_running_add(struct diff_running *r, uint32_t fa, uint32_t fb)
{
	if (fa < r->nr_funcs)
		running_bump(r, fa, 1);
	if (fb < r->nr_funcs)
		running_bump(r, fb, -1);
	r->n++;
	/* TV = 1/2 sum |ca/n - cb/n| */
	return (double)r->sum_abs / (2.0 * (double)r->n);
}

double diff_time_rel(uint64_t ta, uint64_t tb)
{
	uint64_t m = ta > tb ? ta : tb, d = ta > tb ? ta - tb : tb - ta;

	return m ? (double)d / (double)m : 0;
}

uint64_t diff_diverged_from(const float *v, uint64_t n, double threshold)
{
	uint64_t i = n;

	while (i > 0 && v[i - 1] > threshold)
		i--;
	return i;
}
