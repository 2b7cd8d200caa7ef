// SPDX-License-Identifier: GPL-2.0
/*
 * lib/proc_cgroup.c, the cgroup of a process for the daemon's cgroup label
 * and top --by cgroup: the cgroup v2 line wins, else v1's name=systemd
 * hierarchy, else the first one listed; a line without its two colons or
 * with an empty path is refused; a path longer than the buffer is cut to
 * it; this process's own cgroup reads as /proc/self/cgroup says; a process
 * that does not exist is -ENOENT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc_cgroup.h"

static void test_parse(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(proc_cgroup_parse("12:cpu:/a\n0::/system.slice/x.service\n", out,
					   sizeof(out)), 0);
	assert_string_equal(out, "/system.slice/x.service");
	assert_int_equal(proc_cgroup_parse("3:cpu,cpuacct:/c\n1:name=systemd:/user.slice/u\n",
					   out, sizeof(out)), 0);
	assert_string_equal(out, "/user.slice/u");
	assert_int_equal(proc_cgroup_parse("\n5:memory:/docker/abc\n4:cpu:/other\n", out,
					   sizeof(out)), 0);
	assert_string_equal(out, "/docker/abc");
	assert_int_equal(proc_cgroup_parse("", out, sizeof(out)), -EINVAL);
	assert_int_equal(proc_cgroup_parse("no colons here\n", out, sizeof(out)), -EINVAL);
	assert_int_equal(proc_cgroup_parse("1:cpu:\n", out, sizeof(out)), -EINVAL);
	assert_int_equal(proc_cgroup_parse("0::/a/very/long/path", out, 8), 0);
	assert_string_equal(out, "/a/very");
}

static void test_read(void **state)
{
	char out[512], want[512], buf[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");
	size_t n;

	(void)state;
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_int_equal(proc_cgroup_parse(buf, want, sizeof(want)), 0);
	assert_int_equal(proc_cgroup_read(getpid(), out, sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(proc_cgroup_read(999999999, out, sizeof(out)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
