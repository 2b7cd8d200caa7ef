// SPDX-License-Identifier: GPL-2.0
/*
 * AMD core PMU driver: K7 legacy counters (4), PerfCtrCore
 * (6 counters at 0xc0010200 + 2i, CPUID 8000_0001 ECX[23]) and PerfMonV2
 * global status/control/clear (CPUID 8000_0022 EAX[0]).  Without PerfMonV2
 * there is no status register: overflow is detected by the counter's sign
 * bit (preload -N with N <= 2^47-1, bit 47 clears on the wrap).  After a
 * handled PMI, otherwise unclaimed NMIs are taken for 100 ms, as perf's
 * amd_pmu_adjust_nmi_window() does, because one NMI can cover overflows
 * whose own NMI arrives later.  All accesses go through hw->ops.
 */
#include "pmu.h"

static const struct pmu_gregs amd_gregs = {
	.status = PMU_MSR_AMD_GLOBAL_STATUS,
	.ctrl = PMU_MSR_AMD_GLOBAL_CTL,
	.ack = PMU_MSR_AMD_GLOBAL_STATUS_CLR,
};

static u32 amd_ctl_msr(const struct pmu_hw *hw, u32 i)
{
	return hw->perfctr_core ? PMU_MSR_F15H_PERF_CTL0 + 2 * i : PMU_MSR_K7_EVNTSEL0 + i;
}

static u32 amd_ctr_msr(const struct pmu_hw *hw, u32 i)
{
	return hw->perfctr_core ? PMU_MSR_F15H_PERF_CTR0 + 2 * i : PMU_MSR_K7_PERFCTR0 + i;
}

static int amd_probe(struct pmu_hw *hw)
{
	u32 a, b, c, d, max_ext, i;

	if (pmiprof_pmu_cpuid_vendor(hw) != PMIPROF_VENDOR_AMD) {
		hw->reason = "not an AMD CPU";
		return -ENODEV;
	}
	hw->vendor = PMIPROF_VENDOR_AMD;
	hw->ops->cpuid(hw, 1, 0, &a, &b, &c, &d);
	hw->family = (a >> 8) & 0xf;
	hw->model = (a >> 4) & 0xf;
	if (hw->family == 0xf) {
		hw->family += (a >> 20) & 0xff;
		hw->model |= ((a >> 16) & 0xf) << 4;
	}
	if (c & BIT(31))
		hw->info_flags |= PMIPROF_INFO_F_HYPERVISOR;
	hw->ops->cpuid(hw, 0x80000000, 0, &max_ext, &b, &c, &d);
	hw->nr_gp = 4;
	hw->version = 1;
	if (max_ext >= 0x80000001) {
		hw->ops->cpuid(hw, 0x80000001, 0, &a, &b, &c, &d);
		hw->perfctr_core = c & BIT(23);
		if (hw->perfctr_core)
			hw->nr_gp = 6;
	}
	if (max_ext >= 0x80000022) {
		hw->ops->cpuid(hw, 0x80000022, 0, &a, &b, &c, &d);
		if (a & BIT(0)) {
			hw->version = 2;
			hw->global_regs = true;
			if (b & 0xf)
				hw->nr_gp = b & 0xf;
		}
	}
	if (hw->nr_gp > PMU_MAX_GP)
		hw->nr_gp = PMU_MAX_GP;
	hw->gp_width = 48;
	hw->gp_mask = BIT_ULL(48) - 1;

	hw->min_period = PMU_MIN_PERIOD;
	hw->max_period = BIT_ULL(47) - 1;	/* the top bit detects the overflow */
	hw->caps = PMIPROF_CAP_PMI | PMIPROF_CAP_TIMER | PMIPROF_CAP_READ_COUNTERS |
		   PMIPROF_CAP_FULL_WIDTH | (hw->global_regs ? PMIPROF_CAP_GLOBAL_CTRL : 0);
	for (i = 0; i < hw->nr_gp; i++) {
		hw->evntsel_msr[i] = amd_ctl_msr(hw, i);
		hw->perfctr_msr[i] = amd_ctr_msr(hw, i);
	}
	hw->probe_msr = amd_ctr_msr(hw, 0);
	scnprintf(hw->name, sizeof(hw->name), "%samd-%s", hw->emulated ? "emul-" : "",
		  hw->global_regs ? "v2" : hw->perfctr_core ? "core" : "k7");
	return 0;
}

static int amd_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg)
{
	u32 k;

	if (cfg->nr_events > hw->nr_gp) {
		hw->reason = "more events than counters";
		return -ENOSPC;
	}
	for (k = 0; k < cfg->nr_events; k++) {
		const struct pmiprof_event *ev = &cfg->events[k];
		struct pmu_slot *s = &hw->slots[k];
		bool pmi = (int)k == hw->trigger && hw->mode == PMIPROF_SAMPLING_PMI;

		s->kind = PMU_SLOT_GP;
		s->idx = k;
		s->ctr_msr = amd_ctr_msr(hw, k);
		s->ctl_msr = amd_ctl_msr(hw, k);
		s->ctl = pmiprof_pmu_build_evtsel(hw, ev, pmi);
		s->status_bit = hw->global_regs ? BIT_ULL(k) : 0;
		s->mask = hw->gp_mask;
		s->top = BIT_ULL(47);
		hw->own_mask |= BIT_ULL(k);
	}
	return 0;
}

static int amd_check_free(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	for (k = 0; k < hw->nr_events; k++) {
		if (hw->ops->rd(pc, hw->slots[k].ctl_msr) & PMU_EVTSEL_EN) {
			pc->reason = PMU_BUSY_REASON;
			return -EBUSY;
		}
	}
	return 0;
}

static int amd_start_cpu(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_msr_ops *ops = hw->ops;
	u32 k;

	pmiprof_pmu_cpu_reset_state(pc);
	pc->lvtpc_when = PMU_LVTPC_EARLY;	/* AMD never masks it; generic x86 order */
	if (hw->global_regs) {
		WRITE_ONCE(pc->gctrl, ops->rd(pc, PMU_MSR_AMD_GLOBAL_CTL) | hw->own_mask);
		ops->wr(pc, PMU_MSR_AMD_GLOBAL_CTL, pc->gctrl & ~hw->own_mask);
	}
	for (k = 0; k < hw->nr_events; k++)
		ops->wr(pc, hw->slots[k].ctl_msr, 0);
	pmiprof_pmu_arm_counters(pc);
	if (hw->global_regs)
		ops->wr(pc, PMU_MSR_AMD_GLOBAL_STATUS_CLR, hw->own_mask);
	pc->started = true;
	WRITE_ONCE(pc->armed, true);
	ops->lvtpc(pc);
	/* Without PerfMonV2 each counter starts on its own EN bit. */
	for (k = 0; k < hw->nr_events; k++)
		ops->wr(pc, hw->slots[k].ctl_msr, hw->slots[k].ctl);
	if (hw->global_regs)
		ops->wr(pc, PMU_MSR_AMD_GLOBAL_CTL, pc->gctrl);
	return 0;
}

static void amd_stop_cpu(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_msr_ops *ops = hw->ops;
	u32 k;

	if (!pc->started)
		return;		/* refused or never started: the counters are not ours */
	/* A handler running during the wait below must not re-enable what we disable. */
	WRITE_ONCE(pc->gctrl, pc->gctrl & ~hw->own_mask);
	if (hw->global_regs)
		ops->wr(pc, PMU_MSR_AMD_GLOBAL_CTL,
			ops->rd(pc, PMU_MSR_AMD_GLOBAL_CTL) & ~hw->own_mask);
	for (k = 0; k < hw->nr_events; k++)
		ops->wr(pc, hw->slots[k].ctl_msr, 0);
	/*
	 * amd_pmu_wait_on_overflow(): an overflow whose NMI is still in flight
	 * must find us armed, or it becomes an "unknown NMI".  The handler
	 * re-arms the trigger (sign bit set again); give it 50 us.
	 */
	if (pc->armed && hw->trigger >= 0) {
		const struct pmu_slot *ts = &hw->slots[hw->trigger];
		u32 i;

		for (i = 0; i < PMU_AMD_OVERFLOW_WAIT; i++) {
			if (ops->rd(pc, ts->ctr_msr) & ts->top)
				break;
			pmu_udelay(1);
		}
	}
	WRITE_ONCE(pc->armed, false);
	if (hw->global_regs)
		ops->wr(pc, PMU_MSR_AMD_GLOBAL_STATUS_CLR, hw->own_mask);
	pc->started = false;
}

static int amd_handle_pmi(struct pmu_cpu *pc, const struct pmi_ctx *ctx)
{
	struct pmu_hw *hw = pc->hw;
	int handled;

	if (!READ_ONCE(pc->armed))
		return 0;
	handled = hw->global_regs ? pmiprof_pmu_handle_global(pc, ctx, &amd_gregs) :
				    pmiprof_pmu_handle_signbit(pc, ctx);
	if (handled) {
		pc->last_handled_ns = ctx->time_ns;
		return handled;
	}
	/* perf's NMI window: a late NMI for an overflow we already handled is ours. */
	if (pc->last_handled_ns && ctx->time_ns - pc->last_handled_ns < PMU_AMD_NMI_WINDOW_NS)
		return 1;
	return 0;
}

NOKPROBE_SYMBOL(amd_handle_pmi);

const struct pmu_driver pmiprof_pmu_amd_driver = {
	.name = "amd",
	.vendor = PMIPROF_VENDOR_AMD,
	.probe = amd_probe,
	.configure = amd_configure,
	.check_free = amd_check_free,
	.start_cpu = amd_start_cpu,
	.stop_cpu = amd_stop_cpu,
	.handle_pmi = amd_handle_pmi,
	.read_counters = pmiprof_pmu_read_deltas,
};
