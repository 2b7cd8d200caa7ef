// SPDX-License-Identifier: GPL-2.0
/*
 * report --html needs its four embedded libraries: a build where any of them
 * was absent (embedded with length 0) is refused before anything is read or
 * written, and PMIPROF_TEST_NO_HTML_LIBS makes any build look like one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "output/html.h"

static void all_four_libraries_are_needed(void **state)
{
	(void)state;
	assert_true(html_libs_embedded(53000, 1800, 25000, 1200));
	assert_false(html_libs_embedded(0, 1800, 25000, 1200));
	assert_false(html_libs_embedded(53000, 0, 25000, 1200));
	assert_false(html_libs_embedded(53000, 1800, 0, 1200));
	assert_false(html_libs_embedded(53000, 1800, 25000, 0));
	assert_false(html_libs_embedded(0, 0, 0, 0));
}

static void env_override_refuses(void **state)
{
	(void)state;
	setenv("PMIPROF_TEST_NO_HTML_LIBS", "1", 1);
	assert_int_equal(html_check_libs(), -ENOENT);
	unsetenv("PMIPROF_TEST_NO_HTML_LIBS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_four_libraries_are_needed),
		cmocka_unit_test(env_override_refuses),
	};

	return cmocka_run_group_tests_name("html_libs", tests, NULL, NULL);
}
