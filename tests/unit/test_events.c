// SPDX-License-Identifier: GPL-2.0
/*
 * Event parsing: generic, cache, software and raw names, u/k/h modifiers,
 * the :T trigger marker, errors with "did you mean" suggestions, and
 * libpfm4 microarchitecture names encoded for a PMU this machine does not
 * have (LIBPFM_FORCE_PMU=skl, LIBPFM_ENCODE_INACTIVE=1, set before libpfm4
 * is initialised).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "events.h"
#include "event_list.h"

static char err[512];

static void parse_ok(const char *spec, struct pm_event_list *l)
{
	int ret = pm_events_parse(spec, l, err, sizeof(err));

	if (ret)
		print_error("parse '%s': %s\n", spec, err);
	assert_int_equal(ret, 0);
}

static void test_generic_names(void **state)
{
	struct pm_event_list l;

	(void)state;
	parse_ok("instructions,cycles,cache-misses,branch-misses", &l);
	assert_int_equal(l.nr, 4);
	assert_int_equal(l.trigger, 0);
	assert_false(l.trigger_marked);
	assert_int_equal(l.ev[0].type, PERF_TYPE_HARDWARE);
	assert_int_equal(l.ev[0].config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_int_equal(l.ev[1].config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(l.ev[2].config, PERF_COUNT_HW_CACHE_MISSES);
	assert_int_equal(l.ev[3].config, PERF_COUNT_HW_BRANCH_MISSES);
	assert_string_equal(l.ev[0].name, "instructions");
	assert_false(l.ev[0].software);

	parse_ok("cpu-cycles,branch-instructions,ref-cycles", &l);
	assert_int_equal(l.ev[0].config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(l.ev[1].config, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	assert_int_equal(l.ev[2].config, PERF_COUNT_HW_REF_CPU_CYCLES);
}

static void test_cache_and_software(void **state)
{
	struct pm_event_list l;

	(void)state;
	parse_ok("LLC-load-misses,cpu-clock,task-clock,page-faults,context-switches,cs", &l);
	assert_int_equal(l.nr, 6);
	assert_int_equal(l.ev[0].type, PERF_TYPE_HW_CACHE);
	assert_int_equal(l.ev[0].config, PERF_COUNT_HW_CACHE_LL |
			 (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	assert_int_equal(l.ev[1].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.ev[1].config, PERF_COUNT_SW_CPU_CLOCK);
	assert_true(l.ev[1].time_based);
	assert_true(l.ev[2].time_based);
	assert_false(l.ev[3].time_based);
	assert_true(l.ev[3].software);
	assert_int_equal(l.ev[4].config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(l.ev[5].config, PERF_COUNT_SW_CONTEXT_SWITCHES);
}

static void test_raw_and_modifiers(void **state)
{
	struct pm_event_list l;

	(void)state;
	parse_ok("r01c2,r3c:u,instructions:k,cycles:uk", &l);
	assert_int_equal(l.ev[0].type, PERF_TYPE_RAW);
	assert_int_equal(l.ev[0].config, 0x01c2);
	assert_false(l.ev[0].exclude_user);
	assert_false(l.ev[0].exclude_kernel);
	assert_int_equal(l.ev[1].config, 0x3c);
	assert_false(l.ev[1].exclude_user);
	assert_true(l.ev[1].exclude_kernel);
	assert_true(l.ev[2].exclude_user);
	assert_false(l.ev[2].exclude_kernel);
	assert_false(l.ev[3].exclude_user);
	assert_false(l.ev[3].exclude_kernel);
	assert_true(l.ev[3].exclude_hv);
	assert_string_equal(l.ev[1].name, "r3c:u");
}

static void test_trigger_marker(void **state)
{
	struct pm_event_list l;

	(void)state;
	parse_ok("instructions,cycles:T,branch-misses", &l);
	assert_true(l.trigger_marked);
	assert_int_equal(l.trigger, 1);
	assert_string_equal(l.ev[1].name, "cycles");

	parse_ok("cpu-clock,task-clock:uT", &l);
	assert_int_equal(l.trigger, 1);
	assert_string_equal(l.ev[1].name, "task-clock:u");
	assert_true(l.ev[1].exclude_kernel);

	assert_int_equal(pm_events_parse("cycles:T,instructions:T", &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "only one event can be the trigger"));
}

static void test_errors_and_suggestions(void **state)
{
	struct pm_event_list l;
	const char *sug[3];

	(void)state;
	assert_int_equal(pm_events_parse("instrucions", &l, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "unknown event 'instrucions'; did you mean 'instructions'"));
	assert_int_equal(pm_events_parse("cycles,brach-misses", &l, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'branch-misses'"));
	assert_int_equal(pm_events_parse("cycles:q", &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown modifier 'q'"));
	assert_int_equal(pm_events_parse("", &l, err, sizeof(err)), -EINVAL);
	assert_int_equal(pm_events_parse(",,", &l, err, sizeof(err)), -EINVAL);
	assert_int_equal(pm_events_parse("cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,"
					 "cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,"
					 "cycles", &l, err, sizeof(err)), -E2BIG);
	assert_true(pm_events_suggest("page-fault", sug, 3) >= 1);
	assert_string_equal(sug[0], "page-faults");
	/* nothing close: no suggestion, still a clear message */
	assert_int_equal(pm_events_parse("zzzzzzzzzzzzzzzzzzzzzz", &l, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "unknown event 'zzzzzzzzzzzzzzzzzzzzzz'"));
}

/* libpfm4 with a forced Skylake PMU: real encodings without the hardware. */
static void test_pfm_skylake_encodings(void **state)
{
	struct pm_event_list l;
	int ret;

	(void)state;
	if (pm_pfm_init()) {
		skip();
		return;
	}
	ret = pm_events_parse("INST_RETIRED:ANY_P,skl::BR_MISP_RETIRED:ALL_BRANCHES:u,"
			      "MEM_LOAD_RETIRED:L3_MISS:T", &l, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	assert_int_equal(l.nr, 3);
	assert_true(l.ev[0].from_pfm);
	assert_int_equal(l.ev[0].type, PERF_TYPE_RAW);
	assert_int_equal(l.ev[0].config & 0xffff, 0x00c0);	/* event 0xc0, umask 0 */
	assert_int_equal(l.ev[1].config & 0xffff, 0x00c5);	/* event 0xc5, umask 0 */
	assert_true(l.ev[1].exclude_kernel);
	assert_false(l.ev[1].exclude_user);
	assert_int_equal(l.ev[2].config & 0xffff, 0x20d1);	/* event 0xd1, umask 0x20 */
	assert_int_equal(l.trigger, 2);
	assert_string_equal(l.ev[2].name, "MEM_LOAD_RETIRED:L3_MISS");

	/* a misspelt microarchitecture name gets the libpfm4 spelling suggested */
	assert_int_equal(pm_events_parse("INST_RETIRD:ANY_P", &l, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'INST_RETIRED'"));
	/* libpfm4 knows the event but not the unit mask */
	assert_int_equal(pm_events_parse("INST_RETIRED:NO_SUCH_UMASK", &l, err, sizeof(err)),
			 -EINVAL);
}

static void test_trace_desc(void **state)
{
	struct pm_event_list l;
	struct trace_event_desc d;

	(void)state;
	parse_ok("cpu-clock:u,cycles", &l);
	pm_event_to_desc(&l.ev[0], true, &d);
	assert_string_equal(d.name, "cpu-clock:u");
	assert_int_equal(d.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(d.flags, PMIPROF_EVENT_F_TRIGGER | PMIPROF_EVENT_F_EXCL_KERNEL |
			 PMIPROF_EVENT_F_SOFTWARE);
	pm_event_to_desc(&l.ev[1], false, &d);
	assert_int_equal(d.flags, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_names),
		cmocka_unit_test(test_cache_and_software),
		cmocka_unit_test(test_raw_and_modifiers),
		cmocka_unit_test(test_trigger_marker),
		cmocka_unit_test(test_errors_and_suggestions),
		cmocka_unit_test(test_pfm_skylake_encodings),
		cmocka_unit_test(test_trace_desc),
	};

	/* Before libpfm4 initialises: encode for Skylake whatever the host is. */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
