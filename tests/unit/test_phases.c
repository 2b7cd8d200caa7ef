// SPDX-License-Identifier: GPL-2.0
/*
 * Phase detection's pure parts (report/analysis/phases.c): k-means with BIC finds
 * the number of synthetic clusters it was given and their members; the
 * projection is deterministic; intervals group windows as documented; a
 * mixed interval between two phases is a transition; .bb vectors written
 * parse back to the same (function, count) pairs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/phases.h"

/* deterministic noise in [-a, a) */
static double noise(uint64_t *s, double a)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(*s >> 11) * 0x1.0p-53 * 2 - 1) * a;
}

/* n points per cluster, clusters in order, centres at random corners of [-1,1]^dim */
static double *make_clusters(uint32_t k, uint32_t per, uint32_t dim, double spread, uint64_t seed)
{
	double *x = malloc((size_t)k * per * dim * sizeof(*x)), *c = malloc(k * dim * sizeof(*c));
	uint64_t s = seed;
	uint32_t j, i, d;

	assert_non_null(x);
	assert_non_null(c);
	for (j = 0; j < k * dim; j++)
		c[j] = noise(&s, 1.0);
	for (j = 0; j < k; j++)
		for (i = 0; i < per; i++)
			for (d = 0; d < dim; d++)
				x[((size_t)j * per + i) * dim + d] = c[j * dim + d] + noise(&s, spread);
	free(c);
	return x;
}

static void check_k(uint32_t k, uint32_t per, uint32_t max_k)
{
	uint32_t dim = PHASES_DIM, n = k * per, i;
	double *x = make_clusters(k, per, dim, 0.02, 42 + k);
	struct phases_clustering c;

	assert_int_equal(phases_cluster(x, NULL, n, dim, max_k, 0, &c), 0);
	assert_int_equal(c.k, k);
	/* numbered by first appearance: cluster j's points are phase j, every one */
	for (i = 0; i < n; i++)
		assert_int_equal(c.km.assign[i], i / per);
	/* the representative is a member of its phase */
	for (i = 0; i < k; i++)
		assert_int_equal(c.rep[i] / per, i);
	phases_clustering_free(&c);
	free(x);
}

static void bic_picks_the_number_of_synthetic_clusters(void **state)
{
	(void)state;
	check_k(1, 40, 10);
	check_k(2, 30, 10);
	check_k(3, 30, 10);
	check_k(5, 20, 10);
	check_k(7, 15, 12);
}

static void bic_rises_to_the_true_k_then_falls(void **state)
{
	uint32_t dim = PHASES_DIM, k;
	double *x = make_clusters(4, 25, dim, 0.05, 7);
	struct phases_clustering c;

	(void)state;
	assert_int_equal(phases_cluster(x, NULL, 100, dim, 8, 0, &c), 0);
	for (k = 1; k < 4; k++)
		assert_true(c.bic[k] < c.bic[k + 1]);
	for (k = 4; k < 8; k++)
		assert_true(c.bic[k] > c.bic[k + 1]);
	phases_clustering_free(&c);
	free(x);
}

/* A noise floor above the clusters' separation leaves nothing to split: k = 1. */
static void noise_floor_above_separation_gives_one_phase(void **state)
{
	double *x = make_clusters(3, 20, PHASES_DIM, 0.02, 9);
	struct phases_clustering c;

	(void)state;
	assert_int_equal(phases_cluster(x, NULL, 60, PHASES_DIM, 6, 10.0, &c), 0);
	assert_int_equal(c.k, 1);
	phases_clustering_free(&c);
	free(x);
}

static void kmeans_is_deterministic_and_weights_zero_points_out(void **state)
{
	uint32_t dim = 4, i;
	double *x = make_clusters(3, 10, dim, 0.1, 3), w[30];
	struct kmeans a, b;

	(void)state;
	assert_int_equal(kmeans_fit(x, NULL, 30, dim, 3, 5, 1234, &a), 0);
	assert_int_equal(kmeans_fit(x, NULL, 30, dim, 3, 5, 1234, &b), 0);
	assert_memory_equal(a.assign, b.assign, 30 * sizeof(uint32_t));
	assert_memory_equal(a.centroids, b.centroids, 3 * dim * sizeof(double));
	assert_true(a.sse == b.sse);
	kmeans_free(&b);
	/* a far outlier of weight 0 moves no centroid */
	for (i = 0; i < 30; i++)
		w[i] = 1;
	w[29] = 0;
	for (i = 0; i < dim; i++)
		x[29 * dim + i] = 50;
	assert_int_equal(kmeans_fit(x, w, 30, dim, 3, 5, 1234, &b), 0);
	for (i = 0; i < 3 * dim; i++)
		assert_true(fabs(b.centroids[i]) < 2);
	kmeans_free(&a);
	kmeans_free(&b);
	free(x);
}

static void projection_is_deterministic_and_uniform(void **state)
{
	struct phases_bb one = { 7, 3 }, two[2] = { { 7, 1 }, { 9, 1 } };
	double p1[PHASES_DIM], p2[PHASES_DIM], sum = 0, lo = 1, hi = -1;
	uint32_t f, d;

	(void)state;
	/* the same value on every machine and run: fixed by the algorithm */
	assert_true(phases_proj(PHASES_SEED, 0, 0) == -0.62821758240960279);
	assert_true(phases_proj(PHASES_SEED, 12345, 14) == -0.73160491030811436);
	assert_true(phases_proj(PHASES_SEED, 0, 0) != phases_proj(PHASES_SEED, 0, 1));
	assert_true(phases_proj(PHASES_SEED, 0, 0) != phases_proj(PHASES_SEED, 1, 0));
	assert_true(phases_proj(1, 5, 3) != phases_proj(2, 5, 3));
	for (f = 0; f < 2000; f++)
		for (d = 0; d < PHASES_DIM; d++) {
			double v = phases_proj(PHASES_SEED, f, d);

			assert_true(v >= -1 && v < 1);
			sum += v;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	assert_true(fabs(sum / (2000 * PHASES_DIM)) < 0.02);
	assert_true(lo < -0.99 && hi > 0.99);
	/* a histogram of one function is that function's vector, whatever its count */
	phases_project(&one, 1, PHASES_SEED, NULL, p1);
	for (d = 0; d < PHASES_DIM; d++)
		assert_true(fabs(p1[d] - phases_proj(PHASES_SEED, 7, d)) < 1e-15);
	/* half and half: the mean of the two */
	phases_project(two, 2, PHASES_SEED, NULL, p2);
	for (d = 0; d < PHASES_DIM; d++)
		assert_true(fabs(p2[d] - (phases_proj(PHASES_SEED, 7, d) +
					  phases_proj(PHASES_SEED, 9, d)) / 2) < 1e-15);
}

static void feed(struct phases_builder *b, uint32_t fn, uint32_t n, uint64_t *t)
{
	uint64_t c[PMIPROF_MAX_EVENTS] = { 1000, 2 };
	uint32_t i;

	for (i = 0; i < n; i++) {
		*t += 1000;
		assert_int_equal(phases_builder_add(b, fn, *t, true, c), 0);
	}
}

static void intervals_of_m_windows_and_short_remainder_joins(void **state)
{
	struct phases_rule rule = { .m = 10 };
	struct phases_builder b;
	uint64_t t = 0;

	(void)state;
	assert_int_equal(phases_builder_init(&b, 2, &rule), 0);
	feed(&b, 0, 10, &t);
	feed(&b, 1, 10, &t);
	feed(&b, 2, 4, &t);		/* under M/2: joins interval 1 */
	assert_int_equal(phases_builder_finish(&b), 0);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.iv[0].windows, 10);
	assert_int_equal(b.iv[1].windows, 14);
	assert_int_equal(b.iv[1].first, 10);
	assert_int_equal(b.iv[0].start_ns, 1000);
	assert_int_equal(b.iv[0].end_ns, 10000);
	assert_int_equal(b.iv[1].start_ns, 10000);
	assert_int_equal(b.iv[1].end_ns, 24000);
	assert_int_equal(b.iv[1].bb_n, 2);
	assert_int_equal(b.bb[b.iv[1].bb_off].fn, 1);
	assert_int_equal(b.bb[b.iv[1].bb_off].count, 10);
	assert_int_equal(b.bb[b.iv[1].bb_off + 1].fn, 2);
	assert_int_equal(b.bb[b.iv[1].bb_off + 1].count, 4);
	assert_int_equal(b.sums[PMIPROF_MAX_EVENTS + 0], 14000);
	assert_int_equal(b.sums[PMIPROF_MAX_EVENTS + 1], 28);
	phases_builder_free(&b);
	/* M from the trigger: 1000 per window, 5000 per interval = 5 windows */
	rule = (struct phases_rule){ .target_events = 5000, .trigger = 0 };
	t = 0;
	assert_int_equal(phases_builder_init(&b, 2, &rule), 0);
	feed(&b, 0, 23, &t);		/* the last 3 make an interval of their own */
	assert_int_equal(phases_builder_finish(&b), 0);
	assert_int_equal(b.m, 5);
	assert_int_equal(b.n, 5);
	assert_int_equal(b.iv[4].windows, 3);
	phases_builder_free(&b);
}

static void mixed_interval_between_phases_is_a_transition(void **state)
{
	struct phases_rule rule = { .m = 20 };
	struct phases_builder b;
	uint64_t t = 0;
	uint32_t dim, i;
	uint8_t tr[64];
	double *x;

	(void)state;
	assert_int_equal(phases_builder_init(&b, 2, &rule), 0);
	for (i = 0; i < 6; i++) {		/* phase A, a little noise */
		feed(&b, 0, 19, &t);
		feed(&b, 3 + i % 2, 1, &t);
	}
	feed(&b, 0, 8, &t);			/* the change: 8 A, 12 B */
	feed(&b, 1, 12, &t);
	for (i = 0; i < 6; i++) {		/* phase B */
		feed(&b, 1, 19, &t);
		feed(&b, 3 + i % 2, 1, &t);
	}
	assert_int_equal(phases_builder_finish(&b), 0);
	assert_int_equal(b.n, 13);
	x = phases_features(&b, NULL, 0, &dim);
	assert_non_null(x);
	assert_int_equal(dim, PHASES_DIM);
	assert_int_equal(phases_transitions(x, b.n, dim, tr), 1);
	assert_int_equal(tr[6], 1);
	free(x);
	phases_builder_free(&b);
}

static void bbv_written_parses_back(void **state)
{
	struct phases_rule rule = { .m = 7 };
	struct phases_builder b;
	struct phases_bb got[64];
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	uint64_t t = 0, s = 99;
	uint32_t i, n, lines = 0;
	FILE *f;

	(void)state;
	assert_int_equal(phases_builder_init(&b, 2, &rule), 0);
	for (i = 0; i < 500; i++)
		feed(&b, (uint32_t)(noise(&s, 1) * 20 + 20), 1, &t);
	assert_int_equal(phases_builder_finish(&b), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(phases_write_bbv(f, &b), 0);
	fclose(f);
	assert_int_equal(strncmp(buf, "T:", 2), 0);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const struct phase_interval *iv = &b.iv[lines];

		assert_int_equal(phases_parse_bbv_line(line, got, 64, &n), 0);
		assert_int_equal(n, iv->bb_n);
		for (i = 0; i < n; i++) {
			assert_int_equal(got[i].fn, b.bb[iv->bb_off + i].fn);
			assert_int_equal(got[i].count, b.bb[iv->bb_off + i].count);
			assert_true(!i || got[i].fn > got[i - 1].fn);
		}
		lines++;
	}
	assert_int_equal(lines, b.n);
	free(buf);
	/* SimPoint's own spelling; and what is not one */
	assert_int_equal(phases_parse_bbv_line("T:45:1024 :189:99343 :3:2", got, 64, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(got[0].fn, 44);
	assert_int_equal(got[1].count, 99343);
	assert_int_equal(phases_parse_bbv_line("T:0:5", got, 64, &n), -EINVAL);
	assert_int_equal(phases_parse_bbv_line("X:1:5", got, 64, &n), -EINVAL);
	assert_int_equal(phases_parse_bbv_line("T:1:x", got, 64, &n), -EINVAL);
	assert_int_equal(phases_parse_bbv_line("T:1:2 :3:4", got, 1, &n), -ENOSPC);
	phases_builder_free(&b);
}

/* One interval of 200 windows: main_fn mostly, `other` windows of fn 1, `stray` of fn 2. */
static void feed_interval(struct phases_builder *b, uint32_t main_fn, uint32_t other,
			  uint32_t stray, uint64_t *t)
{
	feed(b, main_fn, 200 - other - stray, t);
	feed(b, 1, other, t);
	feed(b, 2, stray, t);
}

/* What 'pmiprof phases' does with the intervals: features, transitions, BIC, merging. */
static void cluster_like_cmd(struct phases_builder *b, struct phases_clustering *c)
{
	uint32_t dim, i;
	double *x = phases_features(b, NULL, 0, &dim), *w = malloc(b->n * sizeof(*w));
	uint8_t *tr = malloc(b->n);

	assert_non_null(x);
	assert_non_null(w);
	assert_non_null(tr);
	phases_transitions(x, b->n, dim, tr);
	for (i = 0; i < b->n; i++)
		w[i] = tr[i] ? 0 : b->iv[i].windows;
	assert_int_equal(phases_cluster(x, w, b->n, dim, 10, phases_sampling_var(b, w, dim), c), 0);
	assert_true(phases_merge_similar(b, x, w, dim, NULL, 0, c) >= 0);
	for (i = 0; i < b->n; i++)
		assert_true(c->km.assign[i] < c->k);
	free(x);
	free(w);
	free(tr);
}

/*
 * A program that does one thing, with the noise of a real run: the share
 * of a second function (a vDSO call) wanders between 1.5 % and 5 % with
 * the machine's load, and one interval in eight has a stray window of a
 * third function (main).  The BIC alone splits that noise into phases of
 * the same top function; merged, it is one phase.  The same noise over
 * A B A C A keeps its three phases.
 */
static void steady_program_with_noise_is_one_phase(void **state)
{
	static const uint32_t seq[5] = { 0, 3, 0, 4, 0 };
	struct phases_rule rule = { .m = 200 };
	struct phases_builder b;
	struct phases_clustering c;
	uint64_t t = 0, s = 42;
	uint32_t i, j;

	(void)state;
	assert_int_equal(phases_builder_init(&b, 2, &rule), 0);
	for (i = 0; i < 96; i++)
		feed_interval(&b, 0, noise(&s, 1) > 0.3 ? 10 : 3, i % 8 == 5, &t);
	assert_int_equal(phases_builder_finish(&b), 0);
	cluster_like_cmd(&b, &c);
	assert_true(c.k_bic > 1);	/* the split the merge undoes */
	assert_int_equal(c.k, 1);
	assert_true(c.rep[0] < b.n);
	phases_clustering_free(&c);
	phases_builder_free(&b);

	assert_int_equal(phases_builder_init(&b, 2, &rule), 0);
	for (j = 0; j < 5; j++)
		for (i = 0; i < 20; i++)
			feed_interval(&b, seq[j], noise(&s, 1) > 0.3 ? 10 : 3, i % 8 == 5, &t);
	assert_int_equal(phases_builder_finish(&b), 0);
	cluster_like_cmd(&b, &c);
	assert_int_equal(c.k, 3);
	/* every segment one phase: A = 1, B = 2, C = 3 by first appearance */
	for (j = 0; j < 5; j++)
		for (i = 2; i < 18; i++)
			assert_int_equal(c.km.assign[j * 20 + i], j == 1 ? 1 : j == 3 ? 2 : 0);
	for (j = 0; j < 3; j++)
		assert_true(c.rep[j] < b.n && c.km.assign[c.rep[j]] == j);
	phases_clustering_free(&c);
	phases_builder_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bic_picks_the_number_of_synthetic_clusters),
		cmocka_unit_test(bic_rises_to_the_true_k_then_falls),
		cmocka_unit_test(noise_floor_above_separation_gives_one_phase),
		cmocka_unit_test(kmeans_is_deterministic_and_weights_zero_points_out),
		cmocka_unit_test(projection_is_deterministic_and_uniform),
		cmocka_unit_test(intervals_of_m_windows_and_short_remainder_joins),
		cmocka_unit_test(mixed_interval_between_phases_is_a_transition),
		cmocka_unit_test(bbv_written_parses_back),
		cmocka_unit_test(steady_program_with_noise_is_one_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
