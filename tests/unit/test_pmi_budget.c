// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmi_budget.c - MSR and APIC accesses per PMI, counted by the MSR
 * model for every driver path and every number of enabled counters.  The
 * budget (issue: kernel, "Performance"): at most 1 status read + one read
 * per enabled counter + 1 ack + one re-arm per overflowed counter + 2
 * global-control writes + 1 LVTPC write; nothing else (no control-register
 * writes, no other MSRs).  Prints the table as TAP diagnostics; set
 * PMIPROF_BUDGET_TIMING=1 to add the handler's user-space time on the model
 * (tests/bench/b40_pmi_msr.sh does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "kcore.h"

#define N	100000ull
#define WINDOWS	200

struct path {
	const char *name;
	u32 vendor, version;
	bool full_width;
	bool gp_trigger;
	u32 max_counters;
	u32 perf_extra;	/* perf's handler: accesses beyond one per counter (6.1 source) */
};

/*
 * perf 6.1 intel_pmu_handle_irq for one overflow in a sampled group of k:
 * GLOBAL_CTRL=0, status read, ack, leader update read + period write,
 * k-1 sibling reads (PERF_SAMPLE_READ group), status re-read, GLOBAL_CTRL
 * write, LVTPC write: k + 7.  amd_pmu_v2_handle_irq: GLOBAL_CTL=0, status,
 * per active counter update read, period write, STATUS_CLR, GLOBAL_CTL,
 * (no LVTPC): k + 5.  x86_pmu_handle_irq (AMD core): LVTPC, per active
 * counter read, period write: k + 2.  Counted from source, not measured.
 */
static const struct path paths[] = {
	{ "intel-v4 fixed trigger, full-width", PMIPROF_VENDOR_INTEL, 4, true, false, 7, 7 },
	{ "intel-v2 GP trigger, legacy writes", PMIPROF_VENDOR_INTEL, 2, false, true, 4, 7 },
	{ "amd-v2 (PerfMonV2)", PMIPROF_VENDOR_AMD, 2, false, false, 6, 5 },
	{ "amd-core (sign bit)", PMIPROF_VENDOR_AMD, 1, false, false, 6, 2 },
};

static const struct pmiprof_event intel_fixed_first[] = {
	{ 0xc0, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x3c, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x00, 0x03, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0xc4, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0xc5, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x2e, 0x4f, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x2e, 0x41, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
};

static const struct pmiprof_event intel_gp_only[] = {
	{ 0xc4, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0xc5, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x2e, 0x4f, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x2e, 0x41, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
};

static const struct pmiprof_event amd_events[] = {
	{ 0xc0, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x76, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0xc2, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0xc3, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x40, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
	{ 0x41, 0x00, 0, PMIPROF_EV_USER | PMIPROF_EV_KERNEL, 0 },
};

static void check_path(const struct path *p)
{
	const struct pmiprof_event *evs = p->vendor == PMIPROF_VENDOR_AMD ? amd_events :
					  p->gp_trigger ? intel_gp_only : intel_fixed_first;
	bool timing = getenv("PMIPROF_BUDGET_TIMING") != NULL;
	bool global = p->vendor == PMIPROF_VENDOR_INTEL || p->version >= 2;
	struct pmu_model_spec spec;
	struct kcore k;
	u32 n;

	print_message("# %-36s %3s %6s %6s %4s %6s %6s %6s %6s %7s %6s %6s%s\n", "path", "ctr",
		      "status", "ctr_rd", "ack", "rearm", "gctrl", "lvtpc", "total", "budget",
		      "perf", "ratio", timing ? " ns/pmi" : "");
	for (n = 1; n <= p->max_counters; n++) {
		u64 mx[PMU_ACC_NR] = { 0 }, mx_total = 0, budget, ns = 0;
		u32 w = 0;

		pmiprof_pmu_model_spec_default(&spec, p->vendor);
		spec.version = p->version;
		spec.full_width = p->full_width;
		assert_int_equal(kcore_setup(&k, &spec), 0);
		assert_int_equal(kcore_configure(&k, evs, n, 0, N), 0);
		assert_int_equal(kcore_start(&k), 0);
		kcore_real_clock = timing;
		while (w < WINDOWS) {
			struct pmi_ctx ctx;
			int a;

			pmiprof_pmu_model_advance(&k.model, 997, 1500);
			if (!k.model.pmi_pending)
				continue;
			k.model.pmi_pending--;
			pmiprof_pmu_model_reset_acc(&k.model);
			ctx = kcore_ctx(&k);
			assert_int_equal(k.hw.drv->handle_pmi(&k.pc, &ctx), 1);
			if (timing)
				ns += pmu_clock_ns() - ctx.time_ns;
			for (a = 0; a < PMU_ACC_NR; a++)
				if (k.model.acc[a] > mx[a])
					mx[a] = k.model.acc[a];
			if (pmiprof_pmu_model_acc_total(&k.model) > mx_total)
				mx_total = pmiprof_pmu_model_acc_total(&k.model);
			w++;
		}
		kcore_real_clock = false;
		assert_int_equal(kcore_nrecs, WINDOWS);
		budget = (global ? 1 : 0) + n + (global ? 1 : 0) + 1 + (global ? 2 : 0) + 1;
		assert_true(mx[PMU_ACC_STATUS_RD] <= (global ? 1 : 0));
		assert_true(mx[PMU_ACC_CTR_RD] <= n);
		assert_true(mx[PMU_ACC_ACK_WR] <= (global ? 1 : 0));
		assert_true(mx[PMU_ACC_CTR_WR] <= 1);
		assert_true(mx[PMU_ACC_GCTRL_WR] <= (global ? 2 : 0));
		assert_true(mx[PMU_ACC_LVTPC_WR] <= 1);
		assert_int_equal(mx[PMU_ACC_CTL_WR], 0);
		assert_int_equal(mx[PMU_ACC_OTHER], 0);
		assert_true(mx_total <= budget);
		assert_int_equal(k.model.faults, 0);
		print_message("# %-36s %3u %6llu %6llu %4llu %6llu %6llu %6llu %6llu %7llu %6u"
			      " %6.2f",
			      p->name, n, (unsigned long long)mx[PMU_ACC_STATUS_RD],
			      (unsigned long long)mx[PMU_ACC_CTR_RD],
			      (unsigned long long)mx[PMU_ACC_ACK_WR],
			      (unsigned long long)mx[PMU_ACC_CTR_WR],
			      (unsigned long long)mx[PMU_ACC_GCTRL_WR],
			      (unsigned long long)mx[PMU_ACC_LVTPC_WR],
			      (unsigned long long)mx_total, (unsigned long long)budget,
			      n + p->perf_extra, (double)mx_total / (n + p->perf_extra));
		if (timing)
			print_message(" %6.0f", (double)ns / WINDOWS);
		print_message("\n");
	}
}

static void budget_intel_fixed(void **state)
{
	(void)state;
	check_path(&paths[0]);
}

static void budget_intel_legacy_gp(void **state)
{
	(void)state;
	check_path(&paths[1]);
}

static void budget_amd_v2(void **state)
{
	(void)state;
	check_path(&paths[2]);
}

static void budget_amd_sign_bit(void **state)
{
	(void)state;
	check_path(&paths[3]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(budget_intel_fixed),
		cmocka_unit_test(budget_intel_legacy_gp),
		cmocka_unit_test(budget_amd_v2),
		cmocka_unit_test(budget_amd_sign_bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
