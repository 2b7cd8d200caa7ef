// SPDX-License-Identifier: GPL-2.0
/*
 * CPU enumeration (daemon/engine/cpu_set.c): the kernel's range lists as sysfs
 * prints them ("0-3,5,7-9\n"), malformed ones refused, ids past any fixed
 * table (>= 256), sorted insert/remove, and the online list read from the
 * PMIPROF_SYSFS_CPU_ONLINE override.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/cpu_set.h"

static void expect(const char *list, const int *want, unsigned int n)
{
	struct cpu_set s = { 0 };
	unsigned int i;

	assert_int_equal(cpu_set_parse(&s, list), 0);
	assert_int_equal(s.nr, n);
	for (i = 0; i < n; i++)
		assert_int_equal(s.cpus[i], want[i]);
	cpu_set_free(&s);
}

static void test_range_lists(void **state)
{
	static const int a[] = { 0, 1, 2, 3, 5, 7, 8, 9 }, b[] = { 0 }, c[] = { 0, 2, 3 },
			 d[] = { 4, 6 };

	(void)state;
	expect("0-3,5,7-9\n", a, 8);
	expect("0-3,5,7-9", a, 8);
	expect("0\n", b, 1);
	expect("0,2-3\n", c, 3);
	expect("4,6", d, 2);
	expect("\n", NULL, 0);		/* e.g. .../cpu/offline with every CPU online */
	expect("", NULL, 0);
}

static void test_large_ids_no_cap(void **state)
{
	struct cpu_set s = { 0 };

	(void)state;
	assert_int_equal(cpu_set_parse(&s, "0-1023,4095\n"), 0);
	assert_int_equal(s.nr, 1025);
	assert_int_equal(s.cpus[300], 300);
	assert_int_equal(s.cpus[1024], 4095);
	assert_int_equal(cpu_set_slots(&s), 4096);
	assert_true(cpu_set_has(&s, 511));
	assert_false(cpu_set_has(&s, 1024));
	cpu_set_free(&s);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"a", "0-", "-3", "3-1", "0,,1", "0,", "1,0", "0-3,2", "0 1", "0-3x",
		"99999999999", "0\n1",
	};
	struct cpu_set s = { 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cpu_set_parse(&s, bad[i]) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	}
	cpu_set_free(&s);
}

static void test_add_remove(void **state)
{
	struct cpu_set s = { 0 };

	(void)state;
	assert_int_equal(cpu_set_parse(&s, "0,2,4"), 0);
	assert_int_equal(cpu_set_add(&s, 3), 0);
	assert_int_equal(cpu_set_add(&s, 3), 0);	/* already there */
	assert_int_equal(cpu_set_add(&s, 300), 0);
	assert_int_equal(s.nr, 5);
	assert_int_equal(s.cpus[2], 3);
	assert_int_equal(s.cpus[4], 300);
	cpu_set_remove(&s, 2);
	cpu_set_remove(&s, 7);			/* not there */
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.cpus[1], 3);
	assert_false(cpu_set_has(&s, 2));
	assert_int_equal(cpu_set_slots(&s), 301);
	cpu_set_free(&s);
	assert_int_equal(cpu_set_slots(&s), 0);
}

static void test_online_override(void **state)
{
	char path[] = "/tmp/pmiprof-cpus.XXXXXX";
	struct cpu_set s = { 0 };
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0,2-3\n", 6), 6);
	close(fd);
	setenv("PMIPROF_SYSFS_CPU_ONLINE", path, 1);
	assert_int_equal(cpu_set_online(&s), 0);
	assert_int_equal(s.nr, 3);
	assert_int_equal(s.cpus[1], 2);
	unlink(path);
	assert_int_equal(cpu_set_online(&s), -ENOENT);	/* no silent fallback for the override */
	unsetenv("PMIPROF_SYSFS_CPU_ONLINE");
	assert_int_equal(cpu_set_online(&s), 0);
	assert_true(s.nr >= 1);
	assert_int_equal(s.nr, (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	cpu_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_lists),
		cmocka_unit_test(test_large_ids_no_cap),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_add_remove),
		cmocka_unit_test(test_online_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
