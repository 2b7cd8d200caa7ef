// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's module backend maps perf's generic event names to
 * event/umask codes (daemon/module/module_dev.c); the module accepts only codes in
 * its whitelist (kernel/pmu_whitelist.c).  Every name the backend offers
 * must pass the whitelist of the vendor/family it was chosen for, or
 * `record --backend module -e <name>` fails on real hardware.
 */
#include "kcore.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "module/module_dev.h"

static const char *const names[] = {
	"instructions", "cycles", "cache-references", "cache-misses", "branches", "branch-misses",
};

static void check_vendor(u32 vendor, u32 family)
{
	struct pmiprof_info info = { .vendor = vendor, .cpu_family = family };
	struct pmu_hw hw = { .vendor = vendor, .family = family };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct module_event_code code;
		struct pmiprof_event ev = { 0 };
		const char *why = NULL;

		assert_int_equal(module_event_lookup(&info, names[i], &code), 0);
		ev.event = code.event;
		ev.umask = code.umask;
		ev.flags = PMIPROF_EV_USER | PMIPROF_EV_KERNEL;
		if (pmiprof_pmu_whitelist_check(&hw, &ev, &why))
			fail_msg("vendor %u family %#x: %s (%#x/%#x) refused: %s", vendor, family,
				 names[i], code.event, code.umask, why);
	}
}

static void intel_generic_events_pass_the_module_whitelist(void **state)
{
	(void)state;
	check_vendor(PMIPROF_VENDOR_INTEL, 6);
}

static void amd_pre_zen_generic_events_pass_the_module_whitelist(void **state)
{
	(void)state;
	check_vendor(PMIPROF_VENDOR_AMD, 0x15);
}

static void amd_zen_generic_events_pass_the_module_whitelist(void **state)
{
	(void)state;
	check_vendor(PMIPROF_VENDOR_AMD, 0x19);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_generic_events_pass_the_module_whitelist),
		cmocka_unit_test(amd_pre_zen_generic_events_pass_the_module_whitelist),
		cmocka_unit_test(amd_zen_generic_events_pass_the_module_whitelist),
	};

	return cmocka_run_group_tests_name("module_events_whitelisted", tests, NULL, NULL);
}
