// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's header fields about the machine: host, kernel, CPU, clock,
 * command line, and how fallback notes accumulate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/host_info.h"

static void test_fill(void **state)
{
	static struct trace_header h;
	char *argv[] = { "record", "-o", "x.data", "--", "sleep", "1", NULL };
	struct utsname u;

	(void)state;
	memset(&h, 0, sizeof(h));
	host_info_fill(&h, 6, argv);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(h.kernel_release, u.release);
	assert_true(h.hostname[0] != '\0');
	assert_true(h.cpu_vendor[0] != '\0');
	assert_true(h.cpu_model_name[0] != '\0');
	assert_true(h.nr_cpus >= 1);
	assert_int_equal(h.nr_cpus, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(h.clock_id, CLOCK_MONOTONIC);
	assert_int_equal(h.clock_freq_hz, 1000000000ull);
	assert_string_equal(h.clock_name, "monotonic");
	assert_true(h.start_time > 0);
	assert_true(h.start_realtime_ns > 1500000000ull * 1000000000ull);
	assert_non_null(strstr(h.recorder, "pmiprof "));
	assert_int_equal(h.cmdline_argc, 6);
	assert_string_equal(h.cmdline, "record -o x.data -- sleep 1");
	assert_int_equal(h.version_major, PMIPROF_TRACE_VERSION_MAJOR);
}

static void test_notes_and_version(void **state)
{
	static struct trace_header h;
	unsigned int i;

	(void)state;
	memset(&h, 0, sizeof(h));
	host_note_append(&h, "first");
	host_note_append(&h, "second");
	assert_string_equal(h.note, "first; second");
	for (i = 0; i < 100; i++)		/* never overflows, stays terminated */
		host_note_append(&h, "a rather long explanation of yet another fallback");
	assert_true(strlen(h.note) < sizeof(h.note));
	assert_true(host_kernel_version() >= 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_notes_and_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
