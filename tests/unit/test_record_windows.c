// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's pure logic: per-window deltas from PERF_SAMPLE_READ running
 * totals (first window, per-instance keys, tid reuse, forgetting, growth to
 * many instances, sums of deltas equal to the final totals), and option
 * validation (period and frequency ranges, pid lists).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/record.h"
#include "event_list.h"
#include "engine/window_deltas.h"

static void test_first_then_deltas(void **state)
{
	struct window_deltas d;
	uint64_t t1[3] = { 100, 10, 1 }, t2[3] = { 250, 30, 1 }, out[3];

	(void)state;
	assert_int_equal(window_deltas_init(&d, 3), 0);
	assert_int_equal(window_deltas_update(&d, window_key_task(42, 0), t1, out), 1);
	assert_int_equal(out[0], 100);
	assert_int_equal(out[1], 10);
	assert_int_equal(window_deltas_update(&d, window_key_task(42, 0), t2, out), 0);
	assert_int_equal(out[0], 150);
	assert_int_equal(out[1], 20);
	assert_int_equal(out[2], 0);
	/* same tid on another CPU is another event instance */
	assert_int_equal(window_deltas_update(&d, window_key_task(42, 1), t1, out), 1);
	assert_int_equal(out[0], 100);
	/* system-wide keys never collide with task keys */
	assert_true(window_key_cpu(0) != window_key_task(0, 0));
	window_deltas_free(&d);
}

static void test_backwards_is_new_instance(void **state)
{
	struct window_deltas d;
	uint64_t a[2] = { 1000, 5 }, b[2] = { 20, 1 }, out[2];

	(void)state;
	assert_int_equal(window_deltas_init(&d, 2), 0);
	window_deltas_update(&d, 7, a, out);
	/* a reused tid starts from zero again: first window, not a huge wrap */
	assert_int_equal(window_deltas_update(&d, 7, b, out), 1);
	assert_int_equal(out[0], 20);
	assert_int_equal(out[1], 1);
	window_deltas_free(&d);
}

static void test_forget(void **state)
{
	struct window_deltas d;
	uint64_t a[1] = { 50 }, b[1] = { 80 }, out[1];
	unsigned int k;

	(void)state;
	assert_int_equal(window_deltas_init(&d, 1), 0);
	for (k = 0; k < 40; k++)
		window_deltas_update(&d, k, a, out);
	window_deltas_forget(&d, 17);
	window_deltas_forget(&d, 1000);		/* unknown: no-op */
	assert_int_equal(d.used, 39);
	assert_int_equal(window_deltas_update(&d, 17, b, out), 1);
	assert_int_equal(out[0], 80);
	/* every other key still found after the backward-shift deletion */
	for (k = 0; k < 40; k++) {
		if (k == 17)
			continue;
		assert_int_equal(window_deltas_update(&d, k, b, out), 0);
		assert_int_equal(out[0], 30);
	}
	window_deltas_free(&d);
}

/* Many threads x CPUs, random interleaving: deltas sum to the final totals. */
static void test_many_instances_sum_to_totals(void **state)
{
	enum { NK = 5000, NS = 200000 };
	struct window_deltas d;
	uint64_t *tot = calloc(NK, sizeof(*tot)), *sum = calloc(NK, sizeof(*sum));
	unsigned int seed = 12345;
	long i;

	(void)state;
	assert_non_null(tot);
	assert_non_null(sum);
	assert_int_equal(window_deltas_init(&d, 1), 0);
	for (i = 0; i < NS; i++) {
		unsigned int k = (unsigned int)(rand_r(&seed) % NK);
		uint64_t out;

		tot[k] += 1 + (uint64_t)(rand_r(&seed) % 1000);
		assert_true(window_deltas_update(&d, window_key_task(k, k % 4), &tot[k],
						 &out) >= 0);
		sum[k] += out;
	}
	for (i = 0; i < NK; i++)
		assert_int_equal(sum[i], tot[i]);
	assert_true(d.cap >= NK);
	window_deltas_free(&d);
	free(tot);
	free(sum);
}

/* Random updates and forgets against a plain array: same first/delta answers. */
static void test_forget_random_against_reference(void **state)
{
	enum { NK = 300, NOPS = 100000 };
	struct window_deltas d;
	uint64_t prev[NK];
	int known[NK] = { 0 };
	unsigned int seed = 777;
	long i;

	(void)state;
	memset(prev, 0, sizeof(prev));
	assert_int_equal(window_deltas_init(&d, 1), 0);
	for (i = 0; i < NOPS; i++) {
		unsigned int k = (unsigned int)(rand_r(&seed) % NK);
		uint64_t key = window_key_task(k, k & 1), tot, out;

		if (rand_r(&seed) % 4 == 0) {
			window_deltas_forget(&d, key);
			known[k] = 0;
			continue;
		}
		tot = prev[k] + 1 + (uint64_t)(rand_r(&seed) % 100);
		if (!known[k])
			tot = 1 + (uint64_t)(rand_r(&seed) % 100);
		assert_int_equal(window_deltas_update(&d, key, &tot, &out), !known[k]);
		assert_int_equal(out, known[k] ? tot - prev[k] : tot);
		prev[k] = tot;
		known[k] = 1;
	}
	window_deltas_free(&d);
}

static void opts_with(struct record_opts *o, const char *events, uint64_t period, uint64_t freq)
{
	char err[256];

	memset(o, 0, sizeof(*o));
	assert_int_equal(pm_events_parse(events, &o->events, err, sizeof(err)), 0);
	o->period = period;
	o->freq_hz = freq;
}

static void test_rate_ranges(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	opts_with(&o, "instructions", 512000, 0);
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), 0);
	opts_with(&o, "instructions", 1ull << 47, 0);
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "valid is 1..140737488355327"));
	opts_with(&o, "cpu-clock", 9999, 0);
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "valid is 10000.."));
	opts_with(&o, "cpu-clock", 100000, 0);
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), 0);
	opts_with(&o, "page-faults", 1ull << 50, 0);	/* software: no 47-bit limit */
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), 0);
	opts_with(&o, "cpu-clock", 0, 1000000000);
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "perf_event_max_sample_rate"));
	opts_with(&o, "cpu-clock", 0, 1000);
	assert_int_equal(record_check_rate(&o, err, sizeof(err)), 0);
}

static void test_pid_lists(void **state)
{
	struct record_opts o;
	char err[256];

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(record_parse_pids(&o, "12,345", err, sizeof(err)), 0);
	assert_int_equal(o.nr_pids, 2);
	assert_int_equal(o.pids[1], 345);
	memset(&o, 0, sizeof(o));
	assert_int_equal(record_parse_pids(&o, "12,,3", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_parse_pids(&o, "-1", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_parse_pids(&o, "0", err, sizeof(err)), -EINVAL);
	assert_int_equal(record_parse_pids(&o, "", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pid"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_then_deltas),
		cmocka_unit_test(test_backwards_is_new_instance),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_many_instances_sum_to_totals),
		cmocka_unit_test(test_forget_random_against_reference),
		cmocka_unit_test(test_rate_ranges),
		cmocka_unit_test(test_pid_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
