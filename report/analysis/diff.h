/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics of `pmiprof diff` (docs/diff.md), pure functions over sample
 * counts so they are unit-tested against hand-computed values:
 *
 *  - the two-proportion z-test (pooled standard error for the test, the
 *    unpooled Wald interval for the difference), with Holm's step-down
 *    correction over the functions compared;
 *  - per function, the share change (share of all samples, A vs B) and the
 *    cost change: the function's samples against a reference set of
 *    functions whose cost did not change, i.e. the odds ratio of the 2x2
 *    table (function, reference) x (A, B) with Woolf's interval.  The
 *    reference starts as every function and, while a member is flagged,
 *    drops the flagged member whose share changed farthest from the
 *    share-weighted median change (keeping more than half of the
 *    baseline's samples): a change in one function moves every share, but
 *    not the others' costs relative to each other;
 *  - the running divergence of two window sequences (window i of A against
 *    window i of B): total variation distance of the closing-function
 *    distributions over windows 0..i, and the relative difference of the
 *    time at which window i closes.
 */
#ifndef PMIPROF_REPORT_DIFF_H
#define PMIPROF_REPORT_DIFF_H

#include <stdbool.h>
#include <stdint.h>

/* Upper tail of the standard normal beyond |z|, twice: the two-sided p-value. */
double diff_p_two_sided(double z);
/* The z with P(|Z| > z) = alpha (e.g. 1.959964 for 0.05); alpha in (0, 1). */
double diff_z_crit(double alpha);

struct diff_ztest {
	double pa, pb;		/* k_a / n_a, k_b / n_b */
	double delta;		/* pb - pa */
	double lo, hi;		/* (1 - alpha) Wald interval of delta */
	double z;		/* pooled z statistic (0 when undefined) */
	double p;		/* two-sided p-value (1 when undefined) */
};

/* k_a of n_a against k_b of n_b; zcrit from diff_z_crit(alpha). */
void diff_ztest(uint64_t k_a, uint64_t n_a, uint64_t k_b, uint64_t n_b, double zcrit,
		struct diff_ztest *t);
/*
 * Holm's step-down adjusted p-values: adj[i] = max over the j ranked at or
 * before i of min(1, (n - rank_j) * p_j); reject where adj < alpha.
 */
int diff_holm(const double *p, double *adj, uint32_t n);

struct diff_fn {
	uint64_t a, b;			/* samples in run A, run B */
	/* results */
	struct diff_ztest share;	/* share of all samples */
	double share_adj;		/* Holm-adjusted p of the share test */
	bool share_sig;
	struct diff_ztest cost;		/* share among this function + the reference */
	double ratio, ratio_lo, ratio_hi;	/* cost B / cost A and its interval */
	double cost_adj;
	bool cost_sig;
	bool in_ref;			/* part of the reference at the end */
};

struct diff_result {
	uint64_t na, nb;		/* samples of the runs */
	uint64_t ref_a, ref_b;		/* samples of the reference */
	uint32_t ref_n;			/* functions in it */
	uint32_t rounds;		/* reference refinements made */
	bool ref_limited;		/* stopped: dropping more would leave <= half of A */
	uint32_t share_sig, cost_sig;	/* flagged functions */
};

/* Fills the results of fn[0..n) (a, b set; na, nb = run totals). */
int diff_compute(struct diff_fn *fn, uint32_t n, uint64_t na, uint64_t nb, double alpha,
		 struct diff_result *res);

/* (b - a) / a, NAN when a is 0 (and b is not), 0 when both are. */
double diff_rel_change(double a, double b);

/*
 * Running divergence of two window sequences whose closing functions are
 * small dense ids (< nr_funcs): feed pairs in order, read the distance.
 */
struct diff_running {
	uint32_t nr_funcs;
	int64_t *delta;			/* count in A - count in B, per function */
	uint64_t sum_abs;		/* sum of |delta| */
	uint64_t n;			/* pairs fed */
};

int diff_running_init(struct diff_running *r, uint32_t nr_funcs);
void diff_running_free(struct diff_running *r);
/* Adds window i of A (closing fa) and of B (closing fb); returns the total
 * variation distance of the two distributions over windows 0..i, 0..1. */
double diff_running_add(struct diff_running *r, uint32_t fa, uint32_t fb);
/* |ta - tb| / max(ta, tb), 0 when both are 0. */
double diff_time_rel(uint64_t ta, uint64_t tb);
/*
 * The first index from which v[] stays above threshold to the end (n when
 * it ends at or below it): a divergence that lasts, not a passing bump.
 */
uint64_t diff_diverged_from(const float *v, uint64_t n, double threshold);

#endif /* PMIPROF_REPORT_DIFF_H */
