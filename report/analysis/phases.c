// SPDX-License-Identifier: GPL-2.0
/* Intervals, code signatures, k-means and BIC for phase detection (see phases.h). */
#include "analysis/phases.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic randomness: splitmix64, the same on every machine ---- */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return mix64(*s);
}

/* uniform in [0, 1) */
static inline double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

double phases_proj(uint64_t seed, uint32_t fn, uint32_t d)
{
	uint64_t z = mix64(seed ^ mix64(((uint64_t)fn << 8 | d) + 0x9e3779b97f4a7c15ULL));

	return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

bool phases_sig_skips(const struct phases_builder *b, uint32_t fn)
{
	return b && fn < b->cap_kernel_fn && b->kernel_fn[fn] && b->kernel_windows * 2 <= b->windows;
}

int phases_builder_kernel_fn(struct phases_builder *b, uint32_t fn)
{
	if (fn >= b->cap_kernel_fn) {
		uint32_t cap = b->cap_kernel_fn ? b->cap_kernel_fn : 256;
		uint8_t *n;

		while (cap <= fn)
			cap *= 2;
		n = realloc(b->kernel_fn, cap);
		if (!n)
			return -ENOMEM;
		memset(n + b->cap_kernel_fn, 0, cap - b->cap_kernel_fn);
		b->kernel_fn = n;
		b->cap_kernel_fn = cap;
	}
	b->kernel_fn[fn] = 1;
	return 0;
}

void phases_project(const struct phases_bb *pairs, uint32_t n, uint64_t seed,
		    const struct phases_builder *b, double *out)
{
	uint64_t total = 0;
	uint32_t i, d;

	memset(out, 0, PHASES_DIM * sizeof(*out));
	for (i = 0; i < n; i++)
		total += phases_sig_skips(b, pairs[i].fn) ? 0 : pairs[i].count;
	if (!total)
		return;
	for (i = 0; i < n; i++) {
		double f = (double)pairs[i].count / (double)total;

		if (phases_sig_skips(b, pairs[i].fn))
			continue;
		for (d = 0; d < PHASES_DIM; d++)
			out[d] += f * phases_proj(seed, pairs[i].fn, d);
	}
}

/* ---- intervals ---- */
int phases_builder_init(struct phases_builder *b, uint32_t nev, const struct phases_rule *rule)
{
	memset(b, 0, sizeof(*b));
	b->rule = *rule;
	b->nev = nev < PMIPROF_MAX_EVENTS ? nev : PMIPROF_MAX_EVENTS;
	b->m = rule->m;
	if (!b->m) {
		b->probe = malloc(PHASES_PROBE * sizeof(*b->probe));
		if (!b->probe)
			return -ENOMEM;
	}
	return 0;
}

void phases_builder_free(struct phases_builder *b)
{
	free(b->cur);
	free(b->touched);
	free(b->iv);
	free(b->sums);
	free(b->bb);
	free(b->probe);
	free(b->kernel_fn);
	memset(b, 0, sizeof(*b));
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int close_interval(struct phases_builder *b)
{
	struct phase_interval *iv;
	uint32_t i;

	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		void *n1 = realloc(b->iv, cap * sizeof(*b->iv));

		if (!n1)
			return -ENOMEM;
		b->iv = n1;
		n1 = realloc(b->sums, (size_t)cap * PMIPROF_MAX_EVENTS * sizeof(*b->sums));
		if (!n1)
			return -ENOMEM;
		b->sums = n1;
		b->cap = cap;
	}
	if (b->nbb + b->nr_touched > b->cap_bb) {
		uint64_t cap = b->cap_bb ? b->cap_bb : 1024;
		void *n1;

		while (cap < b->nbb + b->nr_touched)
			cap *= 2;
		n1 = realloc(b->bb, cap * sizeof(*b->bb));
		if (!n1)
			return -ENOMEM;
		b->bb = n1;
		b->cap_bb = cap;
	}
	qsort(b->touched, b->nr_touched, sizeof(*b->touched), u32_cmp);
	iv = &b->iv[b->n];
	iv->first = b->cur_first;
	iv->windows = (uint32_t)b->cur_windows;
	iv->start_ns = b->prev_end;
	iv->end_ns = b->tmax;
	iv->bb_off = b->nbb;
	iv->bb_n = b->nr_touched;
	iv->phase = 0;
	for (i = 0; i < b->nr_touched; i++) {
		uint32_t fn = b->touched[i];

		b->bb[b->nbb++] = (struct phases_bb){ fn, b->cur[fn] };
		b->cur[fn] = 0;
	}
	memcpy(&b->sums[(size_t)b->n * PMIPROF_MAX_EVENTS], b->cur_sums, sizeof(b->cur_sums));
	b->n++;
	b->prev_end = b->tmax;
	b->nr_touched = 0;
	b->cur_windows = 0;
	memset(b->cur_sums, 0, sizeof(b->cur_sums));
	return 0;
}

/* fn counted once more in the current interval */
static int count_fn(struct phases_builder *b, uint32_t fn, uint32_t n)
{
	if (fn >= b->cap_fn) {
		uint32_t cap = b->cap_fn ? b->cap_fn : 256;
		void *n1;

		while (cap <= fn)
			cap *= 2;
		n1 = realloc(b->cur, cap * sizeof(*b->cur));
		if (!n1)
			return -ENOMEM;
		b->cur = n1;
		memset(b->cur + b->cap_fn, 0, (cap - b->cap_fn) * sizeof(*b->cur));
		n1 = realloc(b->touched, cap * sizeof(*b->touched));
		if (!n1)
			return -ENOMEM;
		b->touched = n1;
		b->cap_fn = cap;
	}
	if (!b->cur[fn])
		b->touched[b->nr_touched++] = fn;
	b->cur[fn] += n;
	if (fn >= b->nr_fn)
		b->nr_fn = fn + 1;
	return 0;
}

static int add_window(struct phases_builder *b, uint32_t fn, uint64_t t, bool sums,
		      const uint64_t *counts)
{
	uint32_t e;
	int err = count_fn(b, fn, 1);

	if (err)
		return err;
	if (fn < b->cap_kernel_fn && b->kernel_fn[fn])
		b->kernel_windows++;
	/* the first interval starts at its first window (filters may cut the run's start) */
	if (!b->windows)
		b->prev_end = t;
	if (!b->cur_windows)
		b->cur_first = b->windows;
	b->cur_windows++;
	b->windows++;
	if (t > b->tmax)
		b->tmax = t;
	for (e = 0; sums && e < b->nev; e++)
		b->cur_sums[e] += counts[e];
	return b->cur_windows >= b->m ? close_interval(b) : 0;
}

/* M from the probed windows' mean trigger count; then they go in. */
static int choose_m(struct phases_builder *b)
{
	double sum = 0;
	uint32_t i;
	int err = 0;

	for (i = 0; i < b->nr_probe; i++)
		sum += (double)b->probe[i].c[b->rule.trigger < b->nev ? b->rule.trigger : 0];
	b->m = 100;	/* no trigger counts at all: some interval nonetheless */
	if (sum > 0 && b->nr_probe) {
		double m = b->rule.target_events / (sum / b->nr_probe);

		b->m = m < 1 ? 1 : (uint64_t)(m + 0.5);
	}
	for (i = 0; !err && i < b->nr_probe; i++)
		err = add_window(b, b->probe[i].fn, b->probe[i].t,
				 !(b->probe[i].flags & 1), b->probe[i].c);
	free(b->probe);
	b->probe = NULL;
	b->nr_probe = 0;
	return err;
}

int phases_builder_add(struct phases_builder *b, uint32_t fn, uint64_t t_ns, bool sums,
		       const uint64_t *counts)
{
	if (!b->m) {
		struct phases_probe_win *p = &b->probe[b->nr_probe++];

		p->fn = fn;
		p->flags = sums ? 0 : 1;
		p->t = t_ns;
		memcpy(p->c, counts, b->nev * sizeof(*counts));
		return b->nr_probe == PHASES_PROBE ? choose_m(b) : 0;
	}
	return add_window(b, fn, t_ns, sums, counts);
}

int phases_builder_finish(struct phases_builder *b)
{
	uint32_t e, i;
	int err = 0;

	if (!b->m)
		err = choose_m(b);
	if (err || !b->cur_windows)
		return err;
	/* A short remainder would be a noisy signature of its own. */
	if (b->n && b->cur_windows * 2 < b->m) {
		struct phase_interval *last = &b->iv[b->n - 1];
		const uint64_t *s = &b->sums[(size_t)(b->n - 1) * PMIPROF_MAX_EVENTS];

		for (i = 0; !err && i < last->bb_n; i++)
			err = count_fn(b, b->bb[last->bb_off + i].fn, b->bb[last->bb_off + i].count);
		if (err)
			return err;
		for (e = 0; e < b->nev; e++)
			b->cur_sums[e] += s[e];
		b->cur_first = last->first;
		b->cur_windows += last->windows;
		b->prev_end = last->start_ns;
		b->nbb = last->bb_off;
		b->n--;
	}
	return close_interval(b);
}

/* ---- features ---- */
double *phases_features(const struct phases_builder *b, const struct metric *rates,
			uint32_t nrates, uint32_t *dim_out)
{
	uint32_t dim = PHASES_DIM + nrates, i, d, r;
	double *x = calloc((size_t)(b->n ? b->n : 1) * dim, sizeof(*x));
	double code_var = 0;

	if (!x)
		return NULL;
	*dim_out = dim;
	for (i = 0; i < b->n; i++)
		phases_project(&b->bb[b->iv[i].bb_off], b->iv[i].bb_n, PHASES_SEED, b,
			       &x[(size_t)i * dim]);
	if (!nrates || !b->n)
		return x;
	/* The rates weigh like an average code dimension: scaled to its spread. */
	for (d = 0; d < PHASES_DIM; d++) {
		double m = 0, v = 0;

		for (i = 0; i < b->n; i++)
			m += x[(size_t)i * dim + d];
		m /= b->n;
		for (i = 0; i < b->n; i++)
			v += (x[(size_t)i * dim + d] - m) * (x[(size_t)i * dim + d] - m);
		code_var += v / b->n;
	}
	code_var /= PHASES_DIM;
	for (r = 0; r < nrates; r++) {
		double m = 0, v = 0, sd, scale = code_var > 1e-9 ? sqrt(code_var) : 1.0, val;
		uint32_t have = 0;

		for (i = 0; i < b->n; i++) {
			double *c = &x[(size_t)i * dim + PHASES_DIM + r];

			if (metric_value(&rates[r], &b->sums[(size_t)i * PMIPROF_MAX_EVENTS], &val) &&
			    isfinite(val)) {
				*c = val;
				m += val;
				have++;
			} else {
				*c = NAN;
			}
		}
		m = have ? m / have : 0;
		for (i = 0; i < b->n; i++) {
			double *c = &x[(size_t)i * dim + PHASES_DIM + r];

			if (isnan(*c))
				*c = m;		/* no denominator: the run's mean, no pull */
			v += (*c - m) * (*c - m);
		}
		sd = sqrt(v / b->n);
		for (i = 0; i < b->n; i++) {
			double *c = &x[(size_t)i * dim + PHASES_DIM + r];

			*c = sd > 0 ? (*c - m) / sd * scale : 0;
		}
	}
	return x;
}

double phases_sampling_var(const struct phases_builder *b, const double *w, uint32_t dim)
{
	double *share = calloc(b->nr_fn ? b->nr_fn : 1, sizeof(*share)), total = 0, inv_n = 0;
	double wsum = 0, v = 0;
	uint32_t i, j, d;

	if (!share)
		return 0;
	/* the run's share of each function, over the intervals clustered */
	for (i = 0; i < b->n; i++) {
		const struct phases_bb *pr = &b->bb[b->iv[i].bb_off];
		double wi = w ? w[i] : 1, n = 0;

		if (wi <= 0)
			continue;
		for (j = 0; j < b->iv[i].bb_n; j++) {
			if (phases_sig_skips(b, pr[j].fn))
				continue;
			share[pr[j].fn] += pr[j].count;
			n += pr[j].count;
		}
		if (n > 0) {
			inv_n += wi / n;
			wsum += wi;
		}
	}
	for (j = 0; j < b->nr_fn; j++)
		total += share[j];
	if (total <= 0 || wsum <= 0) {
		free(share);
		return 0;
	}
	/* per dimension: Var of R(fn, d) over windows drawn from those shares */
	for (d = 0; d < PHASES_DIM; d++) {
		double m = 0, m2 = 0;

		for (j = 0; j < b->nr_fn; j++) {
			double r, p = share[j] / total;

			if (p <= 0)
				continue;
			r = phases_proj(PHASES_SEED, j, d);
			m += p * r;
			m2 += p * r * r;
		}
		v += m2 - m * m;
	}
	free(share);
	/* / windows per interval; rate dimensions add none: averaged over all dim */
	return v / PHASES_DIM * (inv_n / wsum) * PHASES_DIM / (dim ? dim : PHASES_DIM);
}

/* ---- k-means ---- */
static inline double dist2(const double *a, const double *b, uint32_t dim)
{
	double s = 0;
	uint32_t d;

	for (d = 0; d < dim; d++)
		s += (a[d] - b[d]) * (a[d] - b[d]);
	return s;
}

static inline double weight(const double *w, uint32_t i)
{
	return w ? w[i] : 1.0;
}

/* Picks index i with probability proportional to p[i] (p >= 0, total > 0). */
static uint32_t pick(const double *p, uint32_t n, double total, uint64_t *rng)
{
	double u = rng_unit(rng) * total, acc = 0;
	uint32_t i, last = 0;

	for (i = 0; i < n; i++) {
		if (p[i] <= 0)
			continue;
		acc += p[i];
		last = i;
		if (u < acc)
			return i;
	}
	return last;
}

/* k-means++ seeding: each next centre drawn with probability ~ w * D(x)^2. */
static void seed_pp(const double *x, const double *w, uint32_t n, uint32_t dim, uint32_t k,
		    double *c, double *d2, uint64_t *rng)
{
	double total = 0;
	uint32_t i, j, f;

	for (i = 0; i < n; i++) {
		d2[i] = weight(w, i);
		total += d2[i];
	}
	f = pick(d2, n, total, rng);
	memcpy(c, &x[(size_t)f * dim], dim * sizeof(*c));
	for (i = 0; i < n; i++)
		d2[i] = dist2(&x[(size_t)i * dim], c, dim);
	for (j = 1; j < k; j++) {
		double *cj = &c[(size_t)j * dim];

		total = 0;
		for (i = 0; i < n; i++)
			total += weight(w, i) * d2[i];
		if (total <= 0) {
			/* fewer distinct points than k: a duplicate centre (an empty cluster) */
			memcpy(cj, c, dim * sizeof(*c));
			continue;
		}
		for (i = 0; i < n; i++)
			d2[i] *= weight(w, i);
		f = pick(d2, n, total, rng);
		memcpy(cj, &x[(size_t)f * dim], dim * sizeof(*c));
		for (i = 0; i < n; i++) {
			double a = dist2(&x[(size_t)i * dim], c, dim), t;
			uint32_t q;

			for (q = 1; q <= j; q++) {
				t = dist2(&x[(size_t)i * dim], &c[(size_t)q * dim], dim);
				a = t < a ? t : a;
			}
			d2[i] = a;
		}
	}
}

/* Lloyd's iterations from the centres in c; returns the weighted SSE. */
static double lloyd(const double *x, const double *w, uint32_t n, uint32_t dim, uint32_t k,
		    double *c, uint32_t *a, double *sumw)
{
	uint32_t it, i, j, d;
	double sse = 0;

	for (i = 0; i < n; i++)
		a[i] = UINT32_MAX;
	for (it = 0; it < 200; it++) {
		bool changed = false;

		sse = 0;
		for (i = 0; i < n; i++) {
			const double *xi = &x[(size_t)i * dim];
			double best = dist2(xi, c, dim), t;
			uint32_t bj = 0;

			for (j = 1; j < k; j++) {
				t = dist2(xi, &c[(size_t)j * dim], dim);
				if (t < best) {
					best = t;
					bj = j;
				}
			}
			sse += weight(w, i) * best;
			if (a[i] != bj) {
				a[i] = bj;
				changed = true;
			}
		}
		if (!changed)
			break;
		/* new centres: weighted means; an empty cluster keeps its centre */
		memset(sumw, 0, k * sizeof(*sumw));
		for (i = 0; i < n; i++)
			sumw[a[i]] += weight(w, i);
		for (j = 0; j < k; j++)
			if (sumw[j] > 0)
				memset(&c[(size_t)j * dim], 0, dim * sizeof(*c));
		for (i = 0; i < n; i++)
			for (d = 0; d < dim; d++)
				c[(size_t)a[i] * dim + d] += weight(w, i) * x[(size_t)i * dim + d];
		for (j = 0; j < k; j++)
			for (d = 0; sumw[j] > 0 && d < dim; d++)
				c[(size_t)j * dim + d] /= sumw[j];
	}
	return sse;
}

void kmeans_free(struct kmeans *km)
{
	free(km->centroids);
	free(km->assign);
	km->centroids = NULL;
	km->assign = NULL;
}

int kmeans_fit(const double *x, const double *w, uint32_t n, uint32_t dim, uint32_t k,
	       uint32_t restarts, uint64_t seed, struct kmeans *out)
{
	double *c = malloc((size_t)k * dim * sizeof(*c)), *d2 = malloc((n ? n : 1) * sizeof(*d2));
	double *sumw = malloc(k * sizeof(*sumw));
	uint32_t *a = malloc((n ? n : 1) * sizeof(*a)), r;
	uint64_t rng = mix64(seed ^ ((uint64_t)k << 32));
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->k = k;
	out->dim = dim;
	out->sse = INFINITY;
	out->centroids = malloc((size_t)k * dim * sizeof(*out->centroids));
	out->assign = malloc((n ? n : 1) * sizeof(*out->assign));
	if (!c || !d2 || !sumw || !a || !out->centroids || !out->assign || !k || !n) {
		err = !k || !n ? -EINVAL : -ENOMEM;
		kmeans_free(out);
		goto out;
	}
	for (r = 0; r < (restarts ? restarts : 1); r++) {
		double sse;

		seed_pp(x, w, n, dim, k, c, d2, &rng);
		sse = lloyd(x, w, n, dim, k, c, a, sumw);
		/* strictly better only: the earliest seeding wins ties, deterministically */
		if (sse < out->sse) {
			out->sse = sse;
			memcpy(out->centroids, c, (size_t)k * dim * sizeof(*c));
			memcpy(out->assign, a, n * sizeof(*a));
		}
	}
out:
	free(c);
	free(d2);
	free(sumw);
	free(a);
	return err;
}

double kmeans_bic(const double *x, const double *w, uint32_t n, const struct kmeans *km,
		  double noise_var)
{
	double wsum = 0, scale, R = 0, K = km->k, M = km->dim, sse = 0, var, ll = 0;
	double rn[PHASES_MAX_K] = { 0 };
	uint32_t i, j;

	/* points of weight 0 (transitions) are not in the model */
	for (i = 0; i < n; i++) {
		wsum += weight(w, i);
		R += weight(w, i) > 0;
	}
	/* weights relative: they sum to the number of intervals */
	scale = wsum > 0 ? R / wsum : 1;
	for (i = 0; i < n; i++) {
		double wi = weight(w, i) * scale;

		if (km->assign[i] < PHASES_MAX_K)
			rn[km->assign[i]] += wi;
		sse += wi * dist2(&x[(size_t)i * km->dim],
				  &km->centroids[(size_t)km->assign[i] * km->dim], km->dim);
	}
	/* per-dimension variance of the spherical Gaussians (maximum likelihood, unbiased) */
	var = R > K ? sse / (M * (R - K)) : 0;
	/* no model explains the points better than their own sampling noise */
	if (var < noise_var)
		var = noise_var;
	if (var < 1e-12)
		var = 1e-12;
	for (j = 0; j < km->k && j < PHASES_MAX_K; j++)
		if (rn[j] > 0)
			ll += rn[j] * log(rn[j] / R);
	ll -= R * M / 2 * log(2 * M_PI * var) + M * (R - K) / 2;
	/* parameters: K - 1 mixing weights, K * M means, one variance */
	return ll - K * (M + 1) / 2 * log(R);
}

void phases_clustering_free(struct phases_clustering *c)
{
	kmeans_free(&c->km);
	free(c->rep);
	c->rep = NULL;
}

int phases_cluster(const double *x, const double *w, uint32_t n, uint32_t dim, uint32_t max_k,
		   double noise_var, struct phases_clustering *out)
{
	struct kmeans km[PHASES_MAX_K + 1];
	double lo = INFINITY, hi = -INFINITY, *best;
	uint32_t k, i, j, *map = NULL, next = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	memset(km, 0, sizeof(km));
	if (!n)
		return -EINVAL;
	if (max_k > PHASES_MAX_K)
		max_k = PHASES_MAX_K;
	for (i = 0, j = 0; i < n; i++)
		j += weight(w, i) > 0;
	if (!j)
		return -EINVAL;
	if (max_k > j)
		max_k = j;
	if (!max_k)
		max_k = 1;
	out->max_k = max_k;
	for (k = 1; k <= max_k; k++) {
		err = kmeans_fit(x, w, n, dim, k, PHASES_RESTARTS, PHASES_SEED, &km[k]);
		if (err)
			goto out;
		out->bic[k] = kmeans_bic(x, w, n, &km[k], noise_var);
		lo = out->bic[k] < lo ? out->bic[k] : lo;
		hi = out->bic[k] > hi ? out->bic[k] : hi;
	}
	/* SimPoint: the smallest k that gets 90% of the way from the worst BIC to the best */
	for (k = 1; k < max_k && out->bic[k] < lo + PHASES_BIC_FRACTION * (hi - lo); k++)
		;
	out->k = k;
	out->k_bic = k;
	out->km = km[k];
	memset(&km[k], 0, sizeof(km[k]));
	/* clusters numbered in order of first appearance */
	map = malloc(k * sizeof(*map));
	best = malloc(k * sizeof(*best));
	out->rep = malloc(k * sizeof(*out->rep));
	if (!map || !best || !out->rep) {
		free(best);
		err = -ENOMEM;
		goto out;
	}
	for (j = 0; j < k; j++)
		map[j] = UINT32_MAX;
	for (i = 0; i < n; i++)
		if (map[out->km.assign[i]] == UINT32_MAX)
			map[out->km.assign[i]] = next++;
	for (j = 0; j < k; j++)
		if (map[j] == UINT32_MAX)
			map[j] = next++;	/* empty clusters last */
	{
		double *c = malloc((size_t)k * dim * sizeof(*c));

		if (!c) {
			free(best);
			err = -ENOMEM;
			goto out;
		}
		for (j = 0; j < k; j++)
			memcpy(&c[(size_t)map[j] * dim], &out->km.centroids[(size_t)j * dim],
			       dim * sizeof(*c));
		free(out->km.centroids);
		out->km.centroids = c;
	}
	for (i = 0; i < n; i++)
		out->km.assign[i] = map[out->km.assign[i]];
	/* SimPoint's simulation point: the interval nearest its phase's centroid */
	for (j = 0; j < k; j++) {
		best[j] = INFINITY;
		out->rep[j] = UINT32_MAX;
	}
	for (i = 0; i < n; i++) {
		uint32_t p = out->km.assign[i];
		double d;

		if (weight(w, i) <= 0)
			continue;
		d = dist2(&x[(size_t)i * dim], &out->km.centroids[(size_t)p * dim], dim);

		if (d < best[p]) {
			best[p] = d;
			out->rep[p] = i;
		}
	}
	free(best);
out:
	free(map);
	for (k = 0; k <= PHASES_MAX_K; k++)
		kmeans_free(&km[k]);
	if (err)
		phases_clustering_free(out);
	return err;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

uint32_t phases_transitions(const double *x, uint32_t n, uint32_t dim, uint8_t *tr)
{
	double *steps = malloc((n > 1 ? n - 1 : 1) * sizeof(*steps)), med;
	uint32_t i, found = 0;

	memset(tr, 0, n);
	if (n < 3 || !steps) {
		free(steps);
		return 0;
	}
	for (i = 0; i + 1 < n; i++)
		steps[i] = dist2(&x[(size_t)i * dim], &x[(size_t)(i + 1) * dim], dim);
	qsort(steps, n - 1, sizeof(*steps), dbl_cmp);
	/* most consecutive intervals lie in one phase: the median step is its noise */
	med = steps[(n - 1) / 2];
	free(steps);
	for (i = 1; i + 1 < n; i++) {
		const double *a = &x[(size_t)(i - 1) * dim], *b = &x[(size_t)(i + 1) * dim];
		const double *xi = &x[(size_t)i * dim];
		double d2 = dist2(a, b, dim), dot = 0, r2 = 0, f, near;
		uint32_t d;

		if (d2 <= 0 || d2 < PHASES_TRANSITION_JUMP * med)
			continue;

		for (d = 0; d < dim; d++)
			dot += (xi[d] - b[d]) * (a[d] - b[d]);
		f = dot / d2;	/* x_i ~ f a + (1 - f) b */
		if (f < PHASES_TRANSITION_MIX || f > 1 - PHASES_TRANSITION_MIX)
			continue;
		for (d = 0; d < dim; d++) {
			double m = b[d] + f * (a[d] - b[d]);

			r2 += (xi[d] - m) * (xi[d] - m);
		}
		near = f < 0.5 ? f : 1 - f;

		/* what the mix leaves unexplained is small beside the way to either side */
		if (r2 <= 0.25 * near * near * d2) {
			tr[i] = 1;
			found++;
		}
	}
	return found;
}

/* ---- merging phases that are one behaviour ---- */

/* Phase p's function shares into sh[nr_fn] (the signature's functions), its sums into sums. */
static void phase_profile(const struct phases_builder *b, const double *w,
			  const struct phases_clustering *c, uint32_t p, double *sh, uint64_t *sums)
{
	double total = 0;
	uint32_t i, j, e;

	memset(sh, 0, b->nr_fn * sizeof(*sh));
	memset(sums, 0, PMIPROF_MAX_EVENTS * sizeof(*sums));
	for (i = 0; i < b->n; i++) {
		const struct phases_bb *pr = &b->bb[b->iv[i].bb_off];

		if (c->km.assign[i] != p || (w && w[i] <= 0))
			continue;
		for (j = 0; j < b->iv[i].bb_n; j++) {
			if (phases_sig_skips(b, pr[j].fn))
				continue;
			sh[pr[j].fn] += pr[j].count;
			total += pr[j].count;
		}
		for (e = 0; e < PMIPROF_MAX_EVENTS; e++)
			sums[e] += b->sums[(size_t)i * PMIPROF_MAX_EVENTS + e];
	}
	for (j = 0; total > 0 && j < b->nr_fn; j++)
		sh[j] /= total;
}

static bool rates_close(const struct metric *rates, uint32_t nrates, const uint64_t *sa,
			const uint64_t *sb)
{
	uint32_t q;

	for (q = 0; q < nrates; q++) {
		double ra, rb;

		if (!metric_value(&rates[q], sa, &ra) || !metric_value(&rates[q], sb, &rb) ||
		    !isfinite(ra) || !isfinite(rb))
			continue;
		if (fabs(ra - rb) > PHASES_MERGE_RATE * fmax(fabs(ra), fabs(rb)))
			return false;
	}
	return true;
}

/* Centroids as the weighted means of their members, simulation points nearest them. */
static void phases_recentre(const double *x, const double *w, uint32_t n, uint32_t dim,
			    struct phases_clustering *c, double *sumw)
{
	uint32_t i, j, d, k = c->k;

	memset(c->km.centroids, 0, (size_t)k * dim * sizeof(*c->km.centroids));
	memset(sumw, 0, k * sizeof(*sumw));
	for (i = 0; i < n; i++) {
		double wi = weight(w, i);

		sumw[c->km.assign[i]] += wi;
		for (d = 0; d < dim; d++)
			c->km.centroids[(size_t)c->km.assign[i] * dim + d] += wi * x[(size_t)i * dim + d];
	}
	for (j = 0; j < k; j++)
		for (d = 0; sumw[j] > 0 && d < dim; d++)
			c->km.centroids[(size_t)j * dim + d] /= sumw[j];
	for (j = 0; j < k; j++) {
		sumw[j] = INFINITY;
		c->rep[j] = UINT32_MAX;
	}
	for (i = 0; i < n; i++) {
		uint32_t p = c->km.assign[i];
		double dd;

		if (weight(w, i) <= 0)
			continue;
		dd = dist2(&x[(size_t)i * dim], &c->km.centroids[(size_t)p * dim], dim);
		if (dd < sumw[p]) {
			sumw[p] = dd;
			c->rep[p] = i;
		}
	}
}

int phases_merge_similar(const struct phases_builder *b, const double *x, const double *w,
			 uint32_t dim, const struct metric *rates, uint32_t nrates,
			 struct phases_clustering *c)
{
	uint32_t k = c->k, nf = b->nr_fn ? b->nr_fn : 1, merged = 0, p, q, i, j;
	double *sh = malloc((size_t)k * nf * sizeof(*sh)), *sumw = malloc(k * sizeof(*sumw));
	uint64_t *sums = malloc((size_t)k * PMIPROF_MAX_EVENTS * sizeof(*sums));

	if (!sh || !sumw || !sums) {
		free(sh);
		free(sumw);
		free(sums);
		return -ENOMEM;
	}
	while (c->k > 1) {
		double best = PHASES_MERGE_TV;
		uint32_t ba = 0, bb = 0;

		for (p = 0; p < c->k; p++)
			phase_profile(b, w, c, p, &sh[(size_t)p * nf],
				      &sums[(size_t)p * PMIPROF_MAX_EVENTS]);
		for (p = 0; p < c->k; p++)
			for (q = p + 1; q < c->k; q++) {
				double tv = 0;

				for (j = 0; j < b->nr_fn; j++)
					tv += fabs(sh[(size_t)p * nf + j] - sh[(size_t)q * nf + j]);
				tv /= 2;
				if (tv < best && rates_close(rates, nrates,
							     &sums[(size_t)p * PMIPROF_MAX_EVENTS],
							     &sums[(size_t)q * PMIPROF_MAX_EVENTS])) {
					best = tv;
					ba = p;
					bb = q;
				}
			}
		if (ba == bb)
			break;
		/* bb into ba (ba appeared first): the numbering by first appearance holds */
		for (i = 0; i < b->n; i++) {
			if (c->km.assign[i] == bb)
				c->km.assign[i] = ba;
			else if (c->km.assign[i] > bb)
				c->km.assign[i]--;
		}
		c->k--;
		c->km.k = c->k;
		merged++;
	}
	if (merged)
		phases_recentre(x, w, b->n, dim, c, sumw);
	free(sh);
	free(sumw);
	free(sums);
	return (int)merged;
}

/* ---- SimPoint .bb files ---- */
int phases_write_bbv(FILE *f, const struct phases_builder *b)
{
	uint32_t i, j;

	for (i = 0; i < b->n; i++) {
		const struct phase_interval *iv = &b->iv[i];

		fputc('T', f);
		for (j = 0; j < iv->bb_n; j++)
			fprintf(f, "%s:%u:%u", j ? " " : "", b->bb[iv->bb_off + j].fn + 1,
				b->bb[iv->bb_off + j].count);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

int phases_parse_bbv_line(const char *line, struct phases_bb *pairs, uint32_t max, uint32_t *n)
{
	const char *p = line;

	*n = 0;
	if (*p++ != 'T')
		return -EINVAL;
	while (*p && *p != '\n') {
		unsigned long long id, count;
		char *end;

		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p != ':' || p[1] < '0' || p[1] > '9')
			return -EINVAL;
		id = strtoull(p + 1, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9' || !id || id > UINT32_MAX)
			return -EINVAL;
		count = strtoull(end + 1, &end, 10);
		if (count > UINT32_MAX || (*end && *end != ' ' && *end != '\n'))
			return -EINVAL;
		if (*n == max)
			return -ENOSPC;
		pairs[(*n)++] = (struct phases_bb){ (uint32_t)(id - 1), (uint32_t)count };
		p = end;
	}
	return 0;
}
