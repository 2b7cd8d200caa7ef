// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel<->user ABI header must stand alone (no other include needed
 * before it) and keep its frozen layout: sizes and field offsets below are
 * the published ABI 1.x.  A failure here means an incompatible ABI change,
 * which needs PMIPROF_ABI_MAJOR to move.
 */
#include <pmiprof/abi.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

static void abi_struct_sizes_are_frozen(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct pmiprof_info), 152);
	assert_int_equal(sizeof(struct pmiprof_event), 16);
	/* 1.2 appended the stack fields, then the task list: the 1.0 prefixes (192, 16) are unchanged */
	assert_int_equal(sizeof(struct pmiprof_config), 272);
	assert_int_equal(offsetof(struct pmiprof_config, stack_mode), 192);
	assert_int_equal(offsetof(struct pmiprof_config, nr_tasks), 208);
	assert_int_equal(sizeof(struct pmiprof_cpu_stats), 200);
	assert_int_equal(sizeof(struct pmiprof_stats_req), 24);
	assert_int_equal(offsetof(struct pmiprof_stats_req, stack_buf), 16);
	assert_int_equal(sizeof(struct pmiprof_stack_stats), 64);
	assert_int_equal(sizeof(struct pmiprof_stack_rec), 24);
	/* 1.2 record size in what was reserved1 */
	assert_int_equal(offsetof(struct pmiprof_sample_rec, size), 44);
	assert_int_equal(sizeof(struct pmiprof_consume), 16);
	assert_int_equal(sizeof(struct pmiprof_ring_header), 64);
	assert_int_equal(sizeof(struct pmiprof_sample_rec), 112);
}

static void abi_field_offsets_are_frozen(void **state)
{
	(void)state;
	assert_int_equal(offsetof(struct pmiprof_info, caps), 32);
	assert_int_equal(offsetof(struct pmiprof_info, ring_bytes), 80);
	assert_int_equal(offsetof(struct pmiprof_config, events), 64);
	assert_int_equal(offsetof(struct pmiprof_sample_rec, counts), 48);
	assert_int_equal(offsetof(struct pmiprof_ring_header, lost), 16);
}

static void abi_ioctl_numbers_are_frozen(void **state)
{
	(void)state;
	assert_int_equal(_IOC_TYPE(PMIPROF_IOC_GET_INFO), 0xB7);
	assert_int_equal(_IOC_NR(PMIPROF_IOC_GET_INFO), 1);
	assert_int_equal(_IOC_SIZE(PMIPROF_IOC_CONFIGURE), sizeof(struct pmiprof_config));
	assert_int_equal(_IOC_DIR(PMIPROF_IOC_GET_STATS), _IOC_READ | _IOC_WRITE);
	assert_int_equal(_IOC_NR(PMIPROF_IOC_CONSUME), 6);
	assert_int_equal(PMIPROF_ABI_MAJOR, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(abi_struct_sizes_are_frozen),
		cmocka_unit_test(abi_field_offsets_are_frozen),
		cmocka_unit_test(abi_ioctl_numbers_are_frozen),
	};

	return cmocka_run_group_tests_name("abi_header", tests, NULL, NULL);
}
