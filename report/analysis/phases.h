/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Program phases, after SimPoint (Sherwood et al., ASPLOS 2002; Hamerly et
 * al., SimPoint 3.0): consecutive windows are grouped into intervals of M
 * windows; each interval's code signature is the normalized histogram of
 * the functions that closed its windows, randomly projected to 15
 * dimensions, plus (hardware events only) its rates (IPC, MPKI, branch-miss
 * %); k-means (k-means++ seeding, fixed seed, restarts) clusters the
 * intervals for k = 1..max-k and the Bayesian information criterion picks k
 * by SimPoint's rule.  Everything here is pure (no trace, no session), so
 * the unit tests drive it with synthetic data; cmd_phases.c feeds it a
 * trace (the last section of this header).
 */
#ifndef PMIPROF_REPORT_PHASES_H
#define PMIPROF_REPORT_PHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pmiprof/trace.h>

#include "analysis/metrics.h"

#define PHASES_DIM		15	/* SimPoint's projected dimensions */
#define PHASES_MAX_K		64
#define PHASES_RESTARTS		5	/* k-means++ seedings per k */
#define PHASES_SEED		0x5157504f494e54ULL
#define PHASES_BIC_FRACTION	0.9	/* SimPoint's -bicThreshold */
#define PHASES_PROBE		4096	/* windows looked at to choose M (freq-mode triggers) */

/* One (function, windows) pair of an interval's histogram; fn is a dense 0-based id. */
struct phases_bb {
	uint32_t fn, count;
};

struct phase_interval {
	uint64_t first;		/* ordinal (among the windows fed) of its first window */
	uint32_t windows;
	/* since the start of the recording: the interval before's end (the first
	 * interval: its first window's time) .. its latest window's time */
	uint64_t start_ns, end_ns;
	uint64_t bb_off;	/* its pairs: bb[bb_off .. bb_off + bb_n), by fn */
	uint32_t bb_n;
	uint32_t phase;		/* 0-based, numbered by first appearance */
};

/*
 * How many windows make an interval.  m > 0: that many.  Else target_events
 * of the trigger event (event index trigger) per interval, from the mean
 * trigger count of the first PHASES_PROBE windows.
 */
struct phases_rule {
	uint64_t m;
	double target_events;
	uint32_t trigger;
};

struct phases_probe_win {
	uint32_t fn, flags;
	uint64_t t;
	uint64_t c[PMIPROF_MAX_EVENTS];
};

struct phases_builder {
	struct phases_rule rule;
	uint64_t m;			/* windows per interval, 0 until chosen */
	uint32_t nev;
	/* the interval being filled */
	uint32_t *cur;			/* windows per fn */
	uint32_t *touched, nr_touched;
	uint32_t cap_fn, nr_fn;		/* nr_fn: highest fn seen + 1 */
	uint64_t cur_first, cur_windows, cur_sums[PMIPROF_MAX_EVENTS];
	uint64_t tmax, prev_end;
	/* closed intervals */
	struct phase_interval *iv;
	uint64_t *sums;			/* nev event sums per interval */
	uint32_t n, cap;
	struct phases_bb *bb;
	uint64_t nbb, cap_bb;
	uint64_t windows;		/* fed so far */
	struct phases_probe_win *probe;
	uint32_t nr_probe;
	/*
	 * Kernel functions (phases_builder_kernel_fn()): counted everywhere
	 * but left out of the code signature while most windows are in user
	 * space.  Time-based samples of a busy machine land in the kernel's
	 * interrupt and scheduler paths at a rate set by the machine's load,
	 * not by the program: in the signature they split one phase into
	 * "quiet" and "busy" ones.
	 */
	uint8_t *kernel_fn;
	uint32_t cap_kernel_fn;
	uint64_t kernel_windows;
};

int phases_builder_init(struct phases_builder *b, uint32_t nev, const struct phases_rule *rule);
/*
 * One window: the function that closed it, its time (ns since the start),
 * whether its counts go into sums (window_counts_events()) and its counts.
 */
int phases_builder_add(struct phases_builder *b, uint32_t fn, uint64_t t_ns, bool sums,
		       const uint64_t *counts);
/* Marks fn as kernel code; its windows count in kernel_windows from here on. */
int phases_builder_kernel_fn(struct phases_builder *b, uint32_t fn);
/* Whether fn is left out of the signatures (see kernel_fn). */
bool phases_sig_skips(const struct phases_builder *b, uint32_t fn);
/* Closes the last interval (a remainder under M/2 joins the one before). */
int phases_builder_finish(struct phases_builder *b);
void phases_builder_free(struct phases_builder *b);

/*
 * The random projection: the value of dimension d for function fn, uniform
 * in [-1, 1), the same for the same (seed, fn, d) on every machine.
 */
double phases_proj(uint64_t seed, uint32_t fn, uint32_t d);
/*
 * Normalized histogram pairs[0..n) projected to PHASES_DIM values into out;
 * pairs whose fn b skips (b may be NULL) are left out.
 */
void phases_project(const struct phases_bb *pairs, uint32_t n, uint64_t seed,
		    const struct phases_builder *b, double *out);

/*
 * The feature matrix (n x dim, row-major) of the builder's intervals:
 * PHASES_DIM projected dimensions, then one per rate (metric over the
 * interval's sums), standardized and scaled to the spread of the code
 * dimensions.  *dim_out = PHASES_DIM + nrates.  Returns NULL on ENOMEM.
 */
double *phases_features(const struct phases_builder *b, const struct metric *rates,
			uint32_t nrates, uint32_t *dim_out);

struct kmeans {
	uint32_t k, dim;
	double *centroids;		/* k x dim */
	uint32_t *assign;		/* n */
	double sse;			/* weighted within-cluster sum of squares */
};

/*
 * Lloyd's k-means with k-means++ seeding, best of restarts seedings from
 * seed (deterministic).  x: n x dim; w: weights (NULL = 1 each).
 */
int kmeans_fit(const double *x, const double *w, uint32_t n, uint32_t dim, uint32_t k,
	       uint32_t restarts, uint64_t seed, struct kmeans *out);
void kmeans_free(struct kmeans *km);
/*
 * BIC of a clustering (Pelleg and Moore's spherical Gaussian model, as
 * SimPoint), its per-dimension variance at least noise_var.
 */
double kmeans_bic(const double *x, const double *w, uint32_t n, const struct kmeans *km,
		  double noise_var);
/*
 * The resolution of the signatures, per dimension: an interval's histogram
 * is a sample of its windows, so its projection varies by about
 * Var(projection of one window's function) / windows.  SimPoint's vectors
 * are exact counts; ours are samples, and without this floor every split
 * of that noise (an interval with a few windows of another function
 * against one with none) raises the BIC.  Measured as if each interval's
 * windows were drawn from the run's functions (the intervals of weight
 * > 0; w NULL: all): the noise of a single-phase program, so two phases are
 * told apart when their signatures differ by more than an interval can
 * resolve.
 */
double phases_sampling_var(const struct phases_builder *b, const double *w, uint32_t dim);

/*
 * Transition intervals (Lau et al., "Transition phase classification and
 * prediction", HPCA 2005): an interval whose signature is a mix (share
 * PHASES_TRANSITION_MIX .. 1 - it) of its two neighbours' while they differ
 * by more than PHASES_TRANSITION_JUMP times the median step between
 * consecutive intervals: a phase change inside it.  Left out of the
 * clustering (weight 0), each would otherwise pull k up as a cluster of its
 * own.  Sets tr[i] to 1 for them; returns how many.
 */
#define PHASES_TRANSITION_JUMP	16.0
#define PHASES_TRANSITION_MIX	0.02
uint32_t phases_transitions(const double *x, uint32_t n, uint32_t dim, uint8_t *tr);

struct phases_clustering {
	uint32_t max_k;			/* tried k = 1..max_k */
	double bic[PHASES_MAX_K + 1];	/* by k */
	uint32_t k;			/* chosen */
	struct kmeans km;		/* the chosen clustering, clusters renumbered */
	uint32_t *rep;			/* per phase: the interval nearest its centroid */
	uint32_t k_bic;			/* k as the BIC chose it, before phases_merge_similar() */
};

/*
 * k-means for k = 1..max_k (at most the points of weight > 0), then SimPoint's choice: the
 * smallest k whose BIC reaches PHASES_BIC_FRACTION of the way from the
 * lowest to the highest (noise_var: kmeans_bic()).  Clusters are renumbered by first appearance.
 */
int phases_cluster(const double *x, const double *w, uint32_t n, uint32_t dim, uint32_t max_k,
		   double noise_var, struct phases_clustering *out);
void phases_clustering_free(struct phases_clustering *c);

/*
 * Phases that are one behaviour: two phases whose function shares (the
 * signature's functions, over their clustered intervals) differ by less
 * than PHASES_MERGE_TV in total variation (half the sum of the absolute
 * differences) and whose clustered rates (over their intervals' sums)
 * differ by less than PHASES_MERGE_RATE relatively are merged, the
 * closest pair first, until no pair is that close.  The BIC splits a
 * steady program on noise the sampling model does not know (shares that
 * wander with the machine's load, a stray window of another function in a
 * few scattered intervals): the split it finds is then a "phase" with the
 * same top functions as the main one.  Centroids and simulation points are
 * recomputed, the numbering stays by first appearance.  Returns the phases
 * merged away, or -ENOMEM.
 */
#define PHASES_MERGE_TV		0.15
#define PHASES_MERGE_RATE	0.10
int phases_merge_similar(const struct phases_builder *b, const double *x, const double *w,
			 uint32_t dim, const struct metric *rates, uint32_t nrates,
			 struct phases_clustering *c);

/*
 * SimPoint's .bb frequency vectors: one line per interval,
 * "T:id:count :id:count ...", ids 1-based (fn + 1), ascending.
 */
int phases_write_bbv(FILE *f, const struct phases_builder *b);
/* One such line into pairs (fn 0-based); -EINVAL when it is not one, -ENOSPC past max. */
int phases_parse_bbv_line(const char *line, struct phases_bb *pairs, uint32_t max, uint32_t *n);

/* ---- on a trace (cmd_phases.c) ---- */
struct session;
struct profile;

struct phases_opts {
	uint64_t interval;		/* windows per interval, 0 = default */
	uint32_t max_k;			/* 0 = default (10) */
};

/* What `pmiprof phases` and `report --phase` agree on: defaults, range checks. */
#define PHASES_DEFAULT_MAX_K		10
#define PHASES_TARGET_EVENTS		10e6	/* trigger events per interval */
#define PHASES_TARGET_NS		100e6	/* time-based: ns per interval */

/* The largest k worth trying on n clustered intervals: 3 per phase on average, at least 1. */
#define PHASES_K_CAP(n)	((n) >= 6 ? (uint32_t)(n) / 3 : 1u)

struct phases_result {
	struct phases_builder b;
	struct phases_clustering c;
	uint32_t *fn_sym;		/* dense fn -> the session's symbol id */
	uint32_t nr_fn, cap_fn;
	uint32_t *sym_fn;		/* symbol id -> fn + 1 (0 = none yet) */
	uint32_t cap_sym;
	struct metric_set rates;	/* shown per phase */
	uint32_t nr_cluster_rates;	/* of them, the first ones clustered on */
	uint8_t *transition;		/* per interval: 1 = a phase change inside it */
	uint32_t max_k_asked;		/* --max-k or the default */
	uint32_t clustered;		/* intervals clustered (transitions left out) */
};

/* One pass over s (opened, not run): the intervals and their phases. */
int phases_detect(struct session *s, const struct phases_opts *o, struct phases_result *r);
void phases_result_free(struct phases_result *r);
/*
 * report --phase K (1-based): detects the phases on a second session
 * opened like s, then runs s feeding p with the windows of phase K.
 * -ERANGE when there is no phase K (*nr_phases says how many there are).
 */
int phases_profile(struct session *s, const struct phases_opts *o, uint32_t phase,
		   struct profile *p, uint32_t *nr_phases);
/* A phase's summary: its windows, intervals, mean and sd of each rate, top functions. */
struct phase_summary {
	uint64_t windows;
	uint32_t intervals, transitions;
	double *mean, *sd;		/* per rate */
	uint64_t *fn_windows;		/* per fn */
	uint32_t *top;			/* top fns */
	uint32_t nr_top;
};
/* ps[0..k): each phase's summary with its `top` hottest functions; 0 or -ENOMEM. */
int phases_summarize(const struct phases_result *r, uint32_t top, struct phase_summary *ps);
void phases_summary_free(struct phase_summary *ps, uint32_t k);
/* The name of dense function fn of r (its symbol in the session that detected it). */
const char *phases_fn_name(const struct session *s, const struct phases_result *r, uint32_t fn);
/*
 * Per phase, its name for a legend: "phase 2: phase_chase 97%" (the top
 * function and its share; a second function when another phase has the
 * same top one), each of `each` bytes in names[k * each].  s: the session
 * the phases were detected on, still open (its symbols name them).
 */
int phases_names(const struct session *s, const struct phases_result *r, char *names, size_t each);

#endif /* PMIPROF_REPORT_PHASES_H */
