// SPDX-License-Identifier: GPL-2.0
/*
 * pm_grow: the shared "room for one more" of every growing array: doubles
 * from its first capacity, keeps what was there, zeroes only with
 * pm_grow_zero, and leaves the array alone when the size cannot be had.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"

struct pair {
	uint64_t a, b;
};

static void grow_doubles_from_first_and_keeps_contents(void **state)
{
	struct pair *v = NULL;
	uint32_t cap = 0, i;

	(void)state;
	for (i = 0; i < 100; i++) {
		assert_int_equal(pm_grow(&v, &cap, i + 1, 16, sizeof(*v)), 0);
		v[i] = (struct pair){ i, ~(uint64_t)i };
	}
	assert_int_equal(cap, 128);		/* 16 32 64 128 */
	for (i = 0; i < 100; i++) {
		assert_int_equal(v[i].a, i);
		assert_int_equal(v[i].b, ~(uint64_t)i);
	}
	free(v);
}

static void grow_jumps_to_a_large_need_at_once(void **state)
{
	uint32_t *v = NULL, cap = 4;

	(void)state;
	v = calloc(cap, sizeof(*v));
	assert_non_null(v);
	assert_int_equal(pm_grow(&v, &cap, 1000, 64, sizeof(*v)), 0);
	assert_int_equal(cap, 1024);		/* doubles the current 4, not first */
	v[999] = 7;
	assert_int_equal(pm_grow(&v, &cap, 1024, 64, sizeof(*v)), 0);
	assert_int_equal(cap, 1024);		/* enough room: nothing moves */
	free(v);
}

static void grow_zero_clears_only_new_elements(void **state)
{
	uint8_t *v = NULL;
	uint32_t cap = 0, i;

	(void)state;
	assert_int_equal(pm_grow_zero(&v, &cap, 3, 8, 1), 0);
	assert_int_equal(cap, 8);
	memset(v, 0xaa, cap);
	assert_int_equal(pm_grow_zero(&v, &cap, 9, 8, 1), 0);
	assert_int_equal(cap, 16);
	for (i = 0; i < 8; i++)
		assert_int_equal(v[i], 0xaa);
	for (; i < 16; i++)
		assert_int_equal(v[i], 0);
	free(v);
}

static void grow_refuses_overflow_and_keeps_the_array(void **state)
{
	uint32_t *v = NULL, cap = 0;
	uint32_t *before;

	(void)state;
	assert_int_equal(pm_grow(&v, &cap, 10, 16, sizeof(*v)), 0);
	before = v;
	assert_int_equal(pm_grow(&v, &cap, (uint64_t)UINT32_MAX + 1, 16, sizeof(*v)), -ENOMEM);
	assert_int_equal(pm_grow(&v, &cap, UINT32_MAX, 16, SIZE_MAX / 2), -ENOMEM);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 16);
	free(v);
}

static void clock_pair_is_one_instant(void **state)
{
	uint64_t m0, m1, mono, real, r0;
	int64_t off, ref;

	(void)state;
	m0 = pm_now_ns();
	r0 = pm_realtime_ns();
	pm_clock_pair(&mono, &real);
	m1 = pm_now_ns();
	assert_true(mono >= m0 && mono <= m1);
	assert_true(real >= r0);
	off = (int64_t)(real - mono);
	ref = (int64_t)(r0 - m0);
	/* the same offset as a plain read, to within the time the reads took */
	assert_true(off - ref < (int64_t)(m1 - m0) + 1000000 && ref - off < (int64_t)(m1 - m0) + 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grow_doubles_from_first_and_keeps_contents),
		cmocka_unit_test(grow_jumps_to_a_large_need_at_once),
		cmocka_unit_test(grow_zero_clears_only_new_elements),
		cmocka_unit_test(grow_refuses_overflow_and_keeps_the_array),
		cmocka_unit_test(clock_pair_is_one_instant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
