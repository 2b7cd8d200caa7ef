// SPDX-License-Identifier: GPL-2.0
/*
 * stat --regions' per-call distributions (daemon/stat_format.c): exact
 * quantiles while the values fit, the histogram beyond DIST_EXACT_MAX with
 * exact count/sum/min/max and quantiles within 1%, the mode of a noisy
 * constant at the constant, and both peaks of a bimodal distribution.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../daemon/stat_format.h"

static void exact_quantiles(void **state)
{
	struct dist d = { 0 };
	struct dist_summary s;

	(void)state;
	for (int i = 100; i >= 1; i--)
		assert_int_equal(dist_add(&d, i), 0);
	dist_summarize(&d, &s);
	assert_true(s.exact);
	assert_int_equal(s.n, 100);
	assert_true(s.sum == 5050 && s.min == 1 && s.max == 100);
	assert_true(s.median == 50);	/* rank (n-1)/2 */
	assert_true(s.p99 == 99);	/* rank ceil(0.99 n) - 1 */
	dist_free(&d);
}

static void histogram_beyond_exact_limit(void **state)
{
	struct dist d = { 0 };
	struct dist_summary s;
	uint64_t n = 3 * DIST_EXACT_MAX;

	(void)state;
	for (uint64_t i = 1; i <= n; i++)
		dist_add(&d, (double)i);
	dist_summarize(&d, &s);
	assert_false(s.exact);
	assert_int_equal(s.n, n);
	assert_true(s.min == 1 && s.max == (double)n);
	assert_true(s.sum == (double)n * (n + 1) / 2);
	assert_true(fabs(s.median - n / 2.0) / (n / 2.0) < 0.01);
	assert_true(fabs(s.p99 - 0.99 * n) / (0.99 * n) < 0.01);
	assert_null(d.v);		/* the exact values are gone: memory bounded */
	dist_free(&d);
}

static void noisy_constant_mode_at_constant(void **state)
{
	struct dist d = { 0 };
	struct dist_summary s;

	(void)state;
	srand(1);
	for (int i = 0; i < 10000; i++) {
		double x = 20000 + rand() % 100;	/* 0.5% jitter */

		if (i % 50 == 0)
			x *= 3 + rand() % 5;		/* 2% interrupted calls */
		dist_add(&d, x);
	}
	dist_summarize(&d, &s);
	assert_true(s.mode >= s.min && s.mode < s.min * 1.02);
	assert_true(s.median < s.min * 1.02);
	assert_int_equal(s.nr_modes, 1);
	dist_free(&d);
}

static void bimodal_both_modes(void **state)
{
	struct dist d = { 0 };
	struct dist_summary s;

	(void)state;
	for (int i = 0; i < 2000; i++)
		dist_add(&d, i % 3 ? 1000 + i % 7 : 4000 + i % 11);
	dist_summarize(&d, &s);
	assert_int_equal(s.nr_modes, 2);
	assert_true(fabs(s.modes[0] - 1003) < 10);	/* the higher peak first */
	assert_true(fabs(s.modes[1] - 4005) < 10);
	assert_true(fabs(s.mode_share[0] - 2 / 3.0) < 0.01);
	dist_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_quantiles),
		cmocka_unit_test(histogram_beyond_exact_limit),
		cmocka_unit_test(noisy_constant_mode_at_constant),
		cmocka_unit_test(bimodal_both_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
