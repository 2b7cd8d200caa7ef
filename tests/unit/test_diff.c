// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof diff's statistics against values computed by hand (docs/diff.md):
 * the two-proportion z-test and its interval, Holm's adjusted p-values, the
 * cost test that flags only the function whose cost changed, identical and
 * proportionally scaled runs that flag nothing, and the running divergence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/diff.h"

#define near(a, b, eps) assert_true(fabs((a) - (b)) < (eps))

static void z_crit_matches_normal_quantiles(void **state)
{
	(void)state;
	near(diff_z_crit(0.05), 1.9599639845400536, 1e-9);
	near(diff_z_crit(0.01), 2.5758293035489, 1e-9);
	near(diff_p_two_sided(1.9599639845400536), 0.05, 1e-12);
}

/* 50 of 100 against 30 of 100: pooled p 0.4, se0 = sqrt(0.4 * 0.6 * 0.02). */
static void ztest_hand_computed(void **state)
{
	struct diff_ztest t;

	(void)state;
	diff_ztest(50, 100, 30, 100, diff_z_crit(0.05), &t);
	near(t.pa, 0.5, 1e-12);
	near(t.pb, 0.3, 1e-12);
	near(t.delta, -0.2, 1e-12);
	near(t.z, -2.886751345948129, 1e-9);
	near(t.p, 0.003892417122778627, 1e-9);
	/* Wald: -0.2 -+ 1.96 * sqrt(0.25/100 + 0.21/100) */
	near(t.lo, -0.33293122498191674, 1e-9);
	near(t.hi, -0.06706877501808325, 1e-9);
}

static void ztest_undefined_cases_are_not_significant(void **state)
{
	struct diff_ztest t;

	(void)state;
	diff_ztest(0, 100, 0, 100, 1.96, &t);		/* absent from both */
	assert_true(t.p == 1 && t.z == 0);
	diff_ztest(100, 100, 50, 50, 1.96, &t);		/* 100 % in both */
	assert_true(t.p == 1);
	diff_ztest(5, 0, 5, 10, 1.96, &t);		/* empty run */
	assert_true(t.p == 1);
	diff_ztest(0, 1000, 40, 1000, 1.96, &t);	/* only in B: a real change */
	assert_true(t.p < 1e-6 && t.z > 0);
}

/* Sorted 0.005, 0.01, 0.03, 0.04 -> 4x, 3x, 2x, 1x, made non-decreasing. */
static void holm_hand_computed(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];

	(void)state;
	assert_int_equal(diff_holm(p, adj, 4), 0);
	near(adj[3], 0.02, 1e-12);
	near(adj[0], 0.03, 1e-12);
	near(adj[2], 0.06, 1e-12);
	near(adj[1], 0.06, 1e-12);	/* 0.04 * 1 would be below 0.06: step-down keeps 0.06 */
}

static void holm_caps_at_one(void **state)
{
	const double p[] = { 0.6, 0.9 };
	double adj[2];

	(void)state;
	assert_int_equal(diff_holm(p, adj, 2), 0);
	near(adj[0], 1.0, 1e-12);
	near(adj[1], 1.0, 1e-12);
}

/*
 * 500/300/200 against 500/600/200: work_b's cost doubled.  Every share
 * moved (all three share tests flag), but only work_b's cost did: after
 * work_b leaves the reference, work_a and work_c keep their ratio.
 */
static void cost_test_flags_only_the_changed_function(void **state)
{
	struct diff_fn f[3];
	struct diff_result r;

	(void)state;
	memset(f, 0, sizeof(f));
	f[0].a = 500; f[0].b = 500;
	f[1].a = 300; f[1].b = 600;
	f[2].a = 200; f[2].b = 200;
	assert_int_equal(diff_compute(f, 3, 1000, 1300, 0.05, &r), 0);
	assert_true(f[0].share_sig && f[1].share_sig && f[2].share_sig);
	assert_int_equal(r.share_sig, 3);
	assert_false(f[0].cost_sig);
	assert_true(f[1].cost_sig);
	assert_false(f[2].cost_sig);
	assert_int_equal(r.cost_sig, 1);
	assert_int_equal(r.rounds, 1);
	assert_true(f[0].in_ref && !f[1].in_ref && f[2].in_ref);
	near(f[0].ratio, 1.0, 1e-12);
	near(f[2].ratio, 1.0, 1e-12);
	/* work_b: 300 of 1000 against 600 of 1300, ratio (600/700)/(300/700) */
	near(f[1].ratio, 2.0, 1e-12);
	near(f[1].ratio_lo, 1.6810438536913024, 1e-9);
	near(f[1].ratio_hi, 2.379473915101407, 1e-9);
	near(f[1].cost.z, 7.86912173772124, 1e-9);
	assert_true(f[1].cost_adj < 1e-13);
}

static void identical_and_scaled_runs_flag_nothing(void **state)
{
	static const uint64_t a[] = { 500, 300, 200, 7, 1 };
	struct diff_fn f[5];
	struct diff_result r;
	int scale, i;

	(void)state;
	for (scale = 1; scale <= 3; scale++) {
		memset(f, 0, sizeof(f));
		for (i = 0; i < 5; i++) {
			f[i].a = a[i];
			f[i].b = a[i] * (uint64_t)scale;
		}
		assert_int_equal(diff_compute(f, 5, 1008, 1008 * (uint64_t)scale, 0.05, &r), 0);
		assert_int_equal(r.share_sig, 0);
		assert_int_equal(r.cost_sig, 0);
		assert_int_equal(r.rounds, 0);
		assert_int_equal(r.ref_n, 5);
		for (i = 0; i < 5; i++) {
			near(f[i].share.p, 1.0, 1e-12);
			near(f[i].ratio, 1.0, 1e-12);
		}
	}
}

/*
 * 800/100/100 against 800/300/300: b and c tripled.  a's share moved the
 * most (largest |z|), but its cost is the one that stayed: the reference
 * drops b and c (farthest from the weighted median change), not a.
 */
static void two_small_changes_leave_the_big_function_alone(void **state)
{
	struct diff_fn f[3];
	struct diff_result r;

	(void)state;
	memset(f, 0, sizeof(f));
	f[0].a = 800; f[0].b = 800;
	f[1].a = 100; f[1].b = 300;
	f[2].a = 100; f[2].b = 300;
	assert_int_equal(diff_compute(f, 3, 1000, 1400, 0.05, &r), 0);
	assert_true(fabs(f[0].share.z) > fabs(f[1].share.z));
	assert_false(f[0].cost_sig);
	assert_true(f[1].cost_sig && f[2].cost_sig);
	assert_true(f[0].in_ref && !f[1].in_ref && !f[2].in_ref);
	assert_false(r.ref_limited);
	near(f[1].ratio, 3.0, 1e-12);
	near(f[2].ratio, 3.0, 1e-12);
}

/* A function present in one run only is a change; its ratio stays finite-bounded. */
static void function_in_one_run_only(void **state)
{
	struct diff_fn f[3];
	struct diff_result r;

	(void)state;
	memset(f, 0, sizeof(f));
	f[0].a = 600; f[0].b = 600;
	f[1].a = 400; f[1].b = 400;
	f[2].a = 0;   f[2].b = 100;
	assert_int_equal(diff_compute(f, 3, 1000, 1100, 0.05, &r), 0);
	assert_true(f[2].cost_sig);
	assert_false(f[0].cost_sig);
	assert_false(f[1].cost_sig);
	assert_true(isinf(f[2].ratio));
	assert_true(isfinite(f[2].ratio_lo) && f[2].ratio_lo > 1);
}

/* The reference keeps more than half of the baseline's samples. */
static void reference_keeps_half_the_samples(void **state)
{
	struct diff_fn f[2];
	struct diff_result r;

	(void)state;
	memset(f, 0, sizeof(f));
	f[0].a = 500; f[0].b = 500;
	f[1].a = 500; f[1].b = 1500;
	assert_int_equal(diff_compute(f, 2, 1000, 2000, 0.05, &r), 0);
	/* which one changed cannot be told from two functions: both flagged, none dropped */
	assert_true(r.ref_limited);
	assert_int_equal(r.rounds, 0);
	assert_true(f[0].cost_sig && f[1].cost_sig);
}

static void running_distance_and_divergence(void **state)
{
	static const uint32_t fa[] = { 0, 0, 1, 1 }, fb[] = { 0, 1, 1, 1 };
	static const double want[] = { 0, 0.5, 2.0 / 6, 0.25 };
	const float v[] = { 0.5f, 0.05f, 0.2f, 0.3f, 0.4f };
	struct diff_running r;
	int i;

	(void)state;
	assert_int_equal(diff_running_init(&r, 2), 0);
	for (i = 0; i < 4; i++)
		near(diff_running_add(&r, fa[i], fb[i]), want[i], 1e-12);
	diff_running_free(&r);
	assert_int_equal(diff_diverged_from(v, 5, 0.1), 2);
	assert_int_equal(diff_diverged_from(v, 5, 0.45), 5);
	assert_int_equal(diff_diverged_from(v + 2, 3, 0.1), 0);
	near(diff_time_rel(100, 80), 0.2, 1e-12);
	near(diff_time_rel(0, 0), 0, 1e-12);
	near(diff_rel_change(2, 3), 0.5, 1e-12);
	assert_true(isnan(diff_rel_change(0, 3)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(z_crit_matches_normal_quantiles),
		cmocka_unit_test(ztest_hand_computed),
		cmocka_unit_test(ztest_undefined_cases_are_not_significant),
		cmocka_unit_test(holm_hand_computed),
		cmocka_unit_test(holm_caps_at_one),
		cmocka_unit_test(cost_test_flags_only_the_changed_function),
		cmocka_unit_test(identical_and_scaled_runs_flag_nothing),
		cmocka_unit_test(two_small_changes_leave_the_big_function_alone),
		cmocka_unit_test(function_in_one_run_only),
		cmocka_unit_test(reference_keeps_half_the_samples),
		cmocka_unit_test(running_distance_and_divergence),
	};

	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
