// SPDX-License-Identifier: GPL-2.0
/* C++ names are shown demangled; everything else passes through unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "symbols/demangle.h"

static void mangled_cxx_names_are_demangled(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(symbol_demangle("_ZN3foo3barEi", buf, sizeof(buf)), "foo::bar(int)");
	assert_string_equal(symbol_demangle("_Z4workv", buf, sizeof(buf)), "work()");
	assert_string_equal(symbol_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", buf, sizeof(buf)),
			    "std::vector<int, std::allocator<int> >::push_back(int const&)");
}

static void version_suffix_is_kept(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(symbol_demangle("_ZNSo5flushEv@@GLIBCXX_3.4", buf, sizeof(buf)),
			    "std::ostream::flush()@@GLIBCXX_3.4");
}

static void c_names_and_bad_manglings_pass_through(void **state)
{
	char buf[256], tiny[4];
	const char *c = "main", *bad = "_Zxyz_not_mangled", *u = "_", *long_one = "_ZN3foo3barEi";

	(void)state;
	assert_ptr_equal(symbol_demangle(c, buf, sizeof(buf)), c);
	assert_ptr_equal(symbol_demangle(bad, buf, sizeof(buf)), bad);
	assert_ptr_equal(symbol_demangle(u, buf, sizeof(buf)), u);
	/* A result that does not fit is not truncated: the mangled name stays. */
	assert_ptr_equal(symbol_demangle(long_one, tiny, sizeof(tiny)), long_one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mangled_cxx_names_are_demangled),
		cmocka_unit_test(version_suffix_is_kept),
		cmocka_unit_test(c_names_and_bad_manglings_pass_through),
	};

	return cmocka_run_group_tests_name("demangle", tests, NULL, NULL);
}
