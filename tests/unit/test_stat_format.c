// SPDX-License-Identifier: GPL-2.0
/*
 * pmiprof stat's value formatting: <not counted> for a counter that never
 * ran, multiplexed counts scaled by enabled/running and marked with the share
 * of time counted (perf stat's "(50.00%)").  Multiplexing needs a hardware
 * PMU with more events than counters, which the test machines lack, so the
 * cases are built here from the (value, enabled, running) triples the
 * kernel returns; t132 checks <not counted> on a real never-running counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../daemon/stat_format.h"

static void never_ran_is_not_counted(void **state)
{
	struct stat_reading r = { .value = 0, .enabled = 0, .running = 0 };
	struct stat_reading r2 = { .value = 0, .enabled = 5000000, .running = 0 };
	char line[256];
	double v, pct;

	(void)state;
	assert_false(stat_scale(&r, &v, &pct));
	assert_false(stat_scale(&r2, &v, &pct));
	stat_format_line(line, sizeof(line), "cycles", false, &r2, NULL, NULL);
	assert_non_null(strstr(line, "<not counted>"));
	assert_non_null(strstr(line, "cycles"));
	assert_null(strstr(line, " 0 "));
	assert_null(strchr(line, '%'));
	stat_format_line(line, sizeof(line), "task-clock", true, &r, NULL, NULL);
	assert_non_null(strstr(line, "<not counted> msec task-clock"));
	stat_format_line(line, sizeof(line), "cycles", false, &r2, ",", NULL);
	assert_string_equal(line, "<not counted>,cycles,0.00");
}

static void full_time_is_unscaled_and_unmarked(void **state)
{
	struct stat_reading r = { .value = 123456789, .enabled = 1000000, .running = 1000000 };
	char line[256];
	double v, pct;

	(void)state;
	assert_true(stat_scale(&r, &v, &pct));
	assert_true(v == 123456789.0);
	assert_true(pct == 100.0);
	stat_format_line(line, sizeof(line), "instructions", false, &r, NULL, "# 1.00 insn per cycle");
	assert_non_null(strstr(line, "123456789      instructions"));
	assert_non_null(strstr(line, "# 1.00 insn per cycle"));
	assert_null(strstr(line, "%)"));
	stat_format_line(line, sizeof(line), "instructions", false, &r, ";", NULL);
	assert_string_equal(line, "123456789;instructions;100.00");
}

static void multiplexed_is_scaled_and_marked(void **state)
{
	/* counted half of the time: the value doubles, "(50.00%)" follows */
	struct stat_reading half = { .value = 1000, .enabled = 2000000, .running = 1000000 };
	/* a quarter, time-based: 2.5 ms counted of 10 ms -> 10 ms */
	struct stat_reading quarter = { .value = 2500000, .enabled = 4000, .running = 1000 };
	char line[256];
	double v, pct;

	(void)state;
	assert_true(stat_scale(&half, &v, &pct));
	assert_true(v == 2000.0);
	assert_true(pct == 50.0);
	stat_format_line(line, sizeof(line), "cache-misses", false, &half, NULL, NULL);
	assert_non_null(strstr(line, " 2000      cache-misses"));
	assert_non_null(strstr(line, " (50.00%)"));
	stat_format_line(line, sizeof(line), "cache-misses", false, &half, ",", NULL);
	assert_string_equal(line, "2000,cache-misses,50.00");
	stat_format_line(line, sizeof(line), "cpu-clock", true, &quarter, NULL, "# 1.000 CPUs utilized");
	assert_non_null(strstr(line, "10.00 msec cpu-clock"));
	assert_non_null(strstr(line, "# 1.000 CPUs utilized (25.00%)"));
}

static void large_counts_do_not_overflow(void **state)
{
	/* value * enabled exceeds 2^64: scaled in floating point */
	struct stat_reading r = { .value = 1ull << 50, .enabled = 1ull << 40, .running = 1ull << 39 };
	double v, pct;

	(void)state;
	assert_true(stat_scale(&r, &v, &pct));
	assert_true(v == (double)(1ull << 51));
	assert_true(pct == 50.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(never_ran_is_not_counted),
		cmocka_unit_test(full_time_is_unscaled_and_unmarked),
		cmocka_unit_test(multiplexed_is_scaled_and_marked),
		cmocka_unit_test(large_counts_do_not_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
