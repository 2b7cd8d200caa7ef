// SPDX-License-Identifier: GPL-2.0
/*
 * test_pmi_stop.c - the stop and refusal paths of the Intel/AMD drivers
 * against the MSR model, with an NMI that arrives in the middle of them:
 * the MSR ops are wrapped so the pending PMI is delivered right before the
 * n-th access, as a real NMI can land between any two instructions of
 * stop_cpu().  Also what a CPU whose start was refused keeps (another
 * agent's counters) when it is stopped anyway.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kcore.h"

#define N 512000ull

/* The NMI injector: deliver the model's pending PMI before access number inj_at. */
static struct kcore *inj_k;
static int inj_at = -1;
static int inj_count;
static int inj_handled = -1;
static bool inj_busy;

static void inject(struct pmu_cpu *pc)
{
	struct pmi_ctx ctx;

	if (inj_busy || inj_at < 0 || inj_count++ != inj_at || !inj_k->model.pmi_pending)
		return;
	inj_busy = true;	/* the handler's own accesses go through here too */
	inj_k->model.pmi_pending--;
	ctx = kcore_ctx(inj_k);
	inj_handled = pc->hw->drv->handle_pmi(pc, &ctx);
	inj_busy = false;
}

static u64 inj_rd(struct pmu_cpu *pc, u32 msr)
{
	inject(pc);
	return pmiprof_pmu_model_msr_ops.rd(pc, msr);
}

static void inj_wr(struct pmu_cpu *pc, u32 msr, u64 val)
{
	inject(pc);
	pmiprof_pmu_model_msr_ops.wr(pc, msr, val);
}

static void inj_lvtpc(struct pmu_cpu *pc)
{
	inject(pc);
	pmiprof_pmu_model_msr_ops.lvtpc(pc);
}

static int inj_rd_safe(struct pmu_hw *hw, u32 msr, u64 *val)
{
	return pmiprof_pmu_model_msr_ops.rd_safe(hw, msr, val);
}

static int inj_wr_safe(struct pmu_hw *hw, u32 msr, u64 val)
{
	return pmiprof_pmu_model_msr_ops.wr_safe(hw, msr, val);
}

static void inj_cpuid(struct pmu_hw *hw, u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	pmiprof_pmu_model_msr_ops.cpuid(hw, leaf, sub, a, b, c, d);
}

static const struct pmu_msr_ops inj_ops = {
	.name = "model+nmi",
	.rd = inj_rd,
	.wr = inj_wr,
	.lvtpc = inj_lvtpc,
	.rd_safe = inj_rd_safe,
	.wr_safe = inj_wr_safe,
	.cpuid = inj_cpuid,
};

static void inj_arm(struct kcore *k, int at)
{
	inj_k = k;
	inj_at = at;
	inj_count = 0;
	inj_handled = -1;
	k->hw.ops = &inj_ops;
}

static void inj_disarm(struct kcore *k)
{
	inj_at = -1;
	k->hw.ops = &pmiprof_pmu_model_msr_ops;
}

static void setup(struct kcore *k, u32 vendor, u32 version, bool full_width)
{
	struct pmu_model_spec spec;

	pmiprof_pmu_model_spec_default(&spec, vendor);
	spec.version = version;
	spec.full_width = full_width;
	assert_int_equal(kcore_setup(k, &spec), 0);
}

/* Trigger @trig_ev (GP when it is not instructions/cycles on Intel), cycles counted too. */
static void start_two(struct kcore *k, u16 trig_ev)
{
	struct pmiprof_event ev[2] = {
		kcore_ev(trig_ev, 0, true, N), kcore_ev(k->hw.vendor == PMIPROF_VENDOR_AMD ?
							0x76 : 0x3c, 0, false, 0)
	};

	assert_int_equal(kcore_configure(k, ev, 2, 0, N), 0);
	assert_int_equal(kcore_start(k), 0);
}

static void assert_stopped_clean(const struct kcore *k)
{
	u32 i;

	assert_false(k->pc.armed);
	assert_int_equal(k->model.global_ctrl & k->hw.own_mask, 0);
	assert_int_equal(k->model.global_status & k->hw.own_mask, 0);
	for (i = 0; i < k->model.spec.nr_gp; i++)
		assert_int_equal(k->model.ctl[i] & PMU_EVTSEL_EN, 0);
	assert_int_equal(k->model.fixed_ctrl, 0);
	assert_int_equal(k->model.faults, 0);
}

/*
 * A trigger overflow whose PMI is still in flight when stop_cpu() begins:
 * wherever the NMI lands in the stop sequence, the handler must still be
 * armed to claim it (return 1: not "NMI received for unknown reason"),
 * consume the status bit, record the window and unmask LVTPC (Intel masked
 * it on delivery).  @trig_ev picks a fixed (0xc0) or GP (0xc4) trigger.
 */
static void check_pmi_in_flight_claimed(u32 vendor, u32 version, bool full_width, u16 trig_ev)
{
	struct kcore k;
	int at;

	for (at = 0; at < 8; at++) {
		setup(&k, vendor, version, full_width);
		start_two(&k, trig_ev);
		/* 0xc4 (branches) runs at 1/5 of the instructions */
		pmiprof_pmu_model_advance(&k.model, (trig_ev == 0xc4 ? 5 : 1) * (N + 10), 0);
		assert_int_equal(k.model.pmi_pending, 1);
		inj_arm(&k, at);
		kcore_stop(&k);
		inj_disarm(&k);
		if (inj_handled != 1)
			fail_msg("NMI landing before stop access %d: handled %d (0 = unknown NMI)",
				 at, inj_handled);
		assert_int_equal(kcore_nrecs, 1);
		assert_int_equal(k.pc.stats.spurious, 0);
		if (vendor == PMIPROF_VENDOR_INTEL)
			assert_int_equal(k.model.lvtpc, PMU_APIC_DM_NMI);	/* unmasked */
		assert_stopped_clean(&k);
	}
}

static void stop_claims_pmi_in_flight_intel_fixed_trigger(void **state)
{
	(void)state;
	check_pmi_in_flight_claimed(PMIPROF_VENDOR_INTEL, 4, true, 0xc0);
}

static void stop_claims_pmi_in_flight_intel_gp_trigger_legacy(void **state)
{
	(void)state;
	check_pmi_in_flight_claimed(PMIPROF_VENDOR_INTEL, 2, false, 0xc4);
}

/* Zen 4: a handler running during the stop's wait must not re-enable GLOBAL_CTL bits. */
static void stop_claims_pmi_in_flight_amd_v2(void **state)
{
	(void)state;
	check_pmi_in_flight_claimed(PMIPROF_VENDOR_AMD, 2, false, 0xc0);
}

/* A PMI that never comes (lost while LVTPC was masked): stop still ends, bounded, clean. */
static void stop_without_the_pmi_is_bounded(void **state)
{
	struct kcore k;

	(void)state;
	setup(&k, PMIPROF_VENDOR_INTEL, 4, true);
	start_two(&k, 0xc0);
	pmiprof_pmu_model_advance(&k.model, N + 10, 0);
	k.model.pmi_pending = 0;		/* lost */
	pmiprof_pmu_model_reset_acc(&k.model);
	kcore_stop(&k);
	assert_true(k.model.acc[PMU_ACC_STATUS_RD] <= PMU_STOP_OVERFLOW_WAIT);
	assert_stopped_clean(&k);
}

/*
 * Another agent (the NMI watchdog, BIOS) runs fixed counter 1 and GP0 with
 * an overflow pending: START is refused there, and the stop that follows a
 * failed START (or a CPU going offline) must leave all of it alone.
 */
static void refused_start_then_stop_keeps_foreign_counters(void **state)
{
	struct pmiprof_event ev[3] = {
		kcore_ev(0xc0, 0, true, N), kcore_ev(0x3c, 0, false, 0), kcore_ev(0xc4, 0, false, 0)
	};
	const u64 gctrl = BIT_ULL(33) | BIT_ULL(0), status = BIT_ULL(33) | BIT_ULL(0);
	struct kcore k;

	(void)state;
	setup(&k, PMIPROF_VENDOR_INTEL, 4, true);
	assert_int_equal(kcore_configure(&k, ev, 3, 0, N), 0);
	k.model.fixed_ctrl = 0xb0;			/* fixed 1: OS+USR+PMI */
	k.model.ctl[0] = PMU_EVTSEL_EN | PMU_EVTSEL_INT | 0x3c;
	k.model.global_ctrl = gctrl;
	pmiprof_pmu_model_set_status(&k.model, status);
	assert_int_equal(kcore_start(&k), -EBUSY);
	pmiprof_pmu_model_reset_acc(&k.model);
	kcore_stop(&k);
	assert_int_equal(k.model.fixed_ctrl, 0xb0);
	assert_int_equal(k.model.ctl[0], PMU_EVTSEL_EN | PMU_EVTSEL_INT | 0x3c);
	assert_int_equal(k.model.global_ctrl, gctrl);
	assert_int_equal(k.model.global_status, status);
	assert_int_equal(pmiprof_pmu_model_acc_total(&k.model), 0);

	/* AMD: the same for a CPU whose PerfCtl0 is someone else's. */
	setup(&k, PMIPROF_VENDOR_AMD, 2, false);
	ev[1] = kcore_ev(0x76, 0, false, 0);
	assert_int_equal(kcore_configure(&k, ev, 2, 0, N), 0);
	k.model.ctl[1] = PMU_EVTSEL_EN | 0x76;
	k.model.global_ctrl = BIT_ULL(1);
	assert_int_equal(kcore_start(&k), -EBUSY);
	pmiprof_pmu_model_reset_acc(&k.model);
	kcore_stop(&k);
	assert_int_equal(k.model.ctl[1], PMU_EVTSEL_EN | 0x76);
	assert_int_equal(k.model.global_ctrl, BIT_ULL(1));
	assert_int_equal(pmiprof_pmu_model_acc_total(&k.model), 0);
}

/* A CPU stopped twice (failed START, then release) is cleaned once; a restart works. */
static void stop_is_idempotent_and_restartable(void **state)
{
	struct kcore k;

	(void)state;
	setup(&k, PMIPROF_VENDOR_INTEL, 4, true);
	start_two(&k, 0xc0);
	kcore_stop(&k);
	assert_stopped_clean(&k);
	pmiprof_pmu_model_reset_acc(&k.model);
	kcore_stop(&k);
	assert_int_equal(pmiprof_pmu_model_acc_total(&k.model), 0);
	assert_int_equal(kcore_start(&k), 0);
	kcore_run(&k, 2 * N, 1000, 5);
	assert_int_equal(kcore_nrecs, 2);
	kcore_stop(&k);
	assert_stopped_clean(&k);
}

/*
 * At load (nothing configured yet) every counter is checked, as perf's
 * check_hw_exists(): a GP EVENTSEL or fixed counter that firmware left
 * enabled refuses the CPU, naming the counter and the MSR.
 */
static void load_check_refuses_any_enabled_counter(void **state)
{
	struct pmu_busy b;
	struct kcore k;

	(void)state;
	setup(&k, PMIPROF_VENDOR_INTEL, 4, true);
	assert_false(k.hw.configured);
	assert_int_equal(pmiprof_pmu_check_idle(&k.pc, &b), 0);
	k.model.ctl[3] = PMU_EVTSEL_EN | PMU_EVTSEL_OS | 0x3c;	/* BIOS on GP3 */
	assert_int_equal(pmiprof_pmu_check_idle(&k.pc, &b), -EBUSY);
	assert_false(b.fixed);
	assert_int_equal(b.idx, 3);
	assert_int_equal(b.msr, PMU_MSR_IA32_PERFEVTSEL0 + 3);
	assert_int_equal(b.val, k.model.ctl[3]);

	k.model.ctl[3] = PMU_EVTSEL_OS | 0x3c;			/* programmed, not enabled */
	k.model.fixed_ctrl = 0x8;				/* PMI bit alone counts nothing */
	assert_int_equal(pmiprof_pmu_check_idle(&k.pc, &b), 0);
	k.model.fixed_ctrl = 0xb0;				/* fixed 1: OS+USR+PMI */
	assert_int_equal(pmiprof_pmu_check_idle(&k.pc, &b), -EBUSY);
	assert_true(b.fixed);
	assert_int_equal(b.idx, 1);
	assert_int_equal(b.msr, PMU_MSR_IA32_FIXED_CTR_CTRL);
	assert_int_equal(b.val, 0xb0);
	assert_non_null(k.pc.reason);
	assert_non_null(strstr(k.pc.reason, "already enabled"));
	/* checking never writes */
	assert_int_equal(k.model.acc[PMU_ACC_CTL_WR] + k.model.acc[PMU_ACC_GCTRL_WR], 0);

	setup(&k, PMIPROF_VENDOR_AMD, 2, false);
	assert_int_equal(pmiprof_pmu_check_idle(&k.pc, &b), 0);
	k.model.ctl[5] = PMU_EVTSEL_EN | 0x76;
	assert_int_equal(pmiprof_pmu_check_idle(&k.pc, &b), -EBUSY);
	assert_int_equal(b.idx, 5);
	assert_int_equal(b.msr, PMU_MSR_F15H_PERF_CTL0 + 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stop_claims_pmi_in_flight_intel_fixed_trigger),
		cmocka_unit_test(stop_claims_pmi_in_flight_intel_gp_trigger_legacy),
		cmocka_unit_test(stop_claims_pmi_in_flight_amd_v2),
		cmocka_unit_test(stop_without_the_pmi_is_bounded),
		cmocka_unit_test(refused_start_then_stop_keeps_foreign_counters),
		cmocka_unit_test(stop_is_idempotent_and_restartable),
		cmocka_unit_test(load_check_refuses_any_enabled_counter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
