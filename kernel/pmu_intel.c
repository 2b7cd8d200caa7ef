// SPDX-License-Identifier: GPL-2.0
/*
 * Intel architectural perfmon (v2+) driver: CPUID.0AH
 * enumeration (checked again on every CPU: hybrid parts differ), full-width
 * counter writes
 * when PERF_CAPABILITIES[13] (else periods <= 2^31-1 because legacy IA32_PMCx
 * writes sign-extend bit 31), fixed counters through FIXED_CTR_CTRL, GP
 * counters through PERFEVTSELx, DEBUGCTL freeze-on-PMI detection.  The PMI
 * handler itself is pmiprof_pmu_handle_global() in pmi_core.c.  All MSR/APIC/CPUID
 * accesses go through hw->ops, so the driver runs unchanged on the MSR model.
 */
#include "pmu.h"

static const struct pmu_gregs intel_gregs = {
	.status = PMU_MSR_IA32_GLOBAL_STATUS,
	.ctrl = PMU_MSR_IA32_GLOBAL_CTRL,
	.ack = PMU_MSR_IA32_GLOBAL_OVF_CTRL,
};

static int intel_probe(struct pmu_hw *hw)
{
	u32 a, b, c, d, mask_len, i;
	u64 caps = 0;

	if (pmiprof_pmu_cpuid_vendor(hw) != PMIPROF_VENDOR_INTEL) {
		hw->reason = "not an Intel CPU";
		return -ENODEV;
	}
	hw->vendor = PMIPROF_VENDOR_INTEL;
	hw->ops->cpuid(hw, 0, 0, &a, &b, &c, &d);
	if (a < 0xa) {
		hw->reason = "no architectural PMU (CPUID max leaf < 0AH)";
		return -ENODEV;
	}
	hw->ops->cpuid(hw, 1, 0, &a, &b, &c, &d);
	hw->family = (a >> 8) & 0xf;
	hw->model = (a >> 4) & 0xf;
	if (hw->family == 0x6 || hw->family == 0xf)
		hw->model |= ((a >> 16) & 0xf) << 4;
	if (hw->family == 0xf)
		hw->family += (a >> 20) & 0xff;
	if (c & BIT(31))
		hw->info_flags |= PMIPROF_INFO_F_HYPERVISOR;
	if (c & BIT(15) && hw->ops->rd_safe(hw, PMU_MSR_IA32_PERF_CAPABILITIES, &caps))
		caps = 0;

	hw->ops->cpuid(hw, 0xa, 0, &a, &b, &c, &d);
	hw->cpuid_a_eax = a;
	hw->cpuid_a_edx = d;
	hw->version = a & 0xff;
	if (hw->version < 2) {
		hw->reason = hw->version ? "architectural perfmon v1 has no global control" :
			     "no architectural PMU (CPUID.0AH version 0)";
		return -ENODEV;
	}
	hw->nr_gp = (a >> 8) & 0xff;
	hw->gp_width = (a >> 16) & 0xff;
	mask_len = (a >> 24) & 0xff;
	/* EBX bit set = event absent; bits beyond the mask length are absent too */
	hw->arch_events_missing = mask_len >= 32 ? b : b | ~(u32)(BIT(mask_len) - 1);
	hw->nr_fixed = d & 0x1f;
	hw->fixed_width = (d >> 5) & 0xff;
	if (!hw->nr_fixed && hw->version < 5 && !(hw->info_flags & PMIPROF_INFO_F_HYPERVISOR)) {
		/* intel_pmu_init(): "v2 perfmon does not report fixed-purpose events" */
		hw->nr_fixed = 3;
		hw->fixed_width = hw->gp_width;
	}
	if (hw->nr_gp > PMU_MAX_GP)
		hw->nr_gp = PMU_MAX_GP;
	if (hw->nr_fixed > 3)
		hw->nr_fixed = 3;	/* fixed 3 (TOPDOWN.SLOTS) is not used */
	if (!hw->nr_gp || hw->gp_width < 32 || hw->gp_width > 63 ||
	    (hw->nr_fixed && (hw->fixed_width < 32 || hw->fixed_width > 63))) {
		hw->reason = "implausible CPUID.0AH counter enumeration";
		return -ENODEV;
	}
	/*
	 * Skylake microcode with TSX_FORCE_ABORT (CPUID.07H EDX[13]) corrupts
	 * PMC3 while RTM may run, unless MSR_TSX_FORCE_ABORT makes every RTM
	 * transaction abort; perf's allow_tsx_force_abort=0 choice is taken:
	 * PMC3 is never used, so profiling does not change how TSX code runs.
	 * Microcode that deprecated TSX (RTM_ALWAYS_ABORT, EDX[11]) frees it.
	 */
	hw->ops->cpuid(hw, 7, 0, &a, &b, &c, &d);
	hw->gp_avoid = 0;
	if ((d & BIT(13)) && !(d & BIT(11)) && hw->nr_gp > 3)
		hw->gp_avoid = BIT(3);
	hw->uarch = pmiprof_pmu_intel_uarch(hw->family, hw->model);

	hw->gp_mask = BIT_ULL(hw->gp_width) - 1;
	hw->fixed_mask = hw->nr_fixed ? BIT_ULL(hw->fixed_width) - 1 : 0;
	hw->full_width = caps & PMU_PERF_CAP_FW_WRITE;
	hw->global_regs = true;
	hw->min_period = PMU_MIN_PERIOD;
	/* Legacy IA32_PMCx writes sign-extend bit 31 (SDM 3B 20.2.6; "Periods"). */
	hw->max_period = hw->full_width ? hw->gp_mask >> 1 : BIT_ULL(31) - 1;
	if (hw->nr_fixed && hw->full_width && (hw->fixed_mask >> 1) < hw->max_period)
		hw->max_period = hw->fixed_mask >> 1;
	hw->caps = PMIPROF_CAP_PMI | PMIPROF_CAP_TIMER | PMIPROF_CAP_GLOBAL_CTRL |
		   PMIPROF_CAP_READ_COUNTERS | (hw->nr_fixed ? PMIPROF_CAP_FIXED : 0) |
		   (hw->full_width ? PMIPROF_CAP_FULL_WIDTH : 0);
	for (i = 0; i < hw->nr_gp; i++) {
		hw->evntsel_msr[i] = PMU_MSR_IA32_PERFEVTSEL0 + i;
		hw->perfctr_msr[i] = PMU_MSR_IA32_PMC0 + i;
	}
	/* the full-width alias restores all 48 bits after the probe */
	hw->probe_msr = hw->full_width ? PMU_MSR_IA32_A_PMC0 : PMU_MSR_IA32_PMC0;
	scnprintf(hw->name, sizeof(hw->name), "%sintel-v%u", hw->emulated ? "emul-" : "",
		  hw->version);
	return 0;
}

static void intel_slot_fixed(struct pmu_hw *hw, struct pmu_slot *s,
			     const struct pmiprof_event *ev, u32 fx, bool pmi)
{
	s->kind = PMU_SLOT_FIXED;
	s->idx = fx;
	s->ctr_msr = PMU_MSR_IA32_FIXED_CTR0 + fx;
	s->ctl_msr = PMU_MSR_IA32_FIXED_CTR_CTRL;
	s->ctl = pmiprof_pmu_build_fixed_nibble(ev, pmi) << (4 * fx);
	s->status_bit = BIT_ULL(32 + fx);
	s->mask = hw->fixed_mask;
	hw->fixed_ctrl |= s->ctl;
}

static void intel_slot_gp(struct pmu_hw *hw, struct pmu_slot *s,
			  const struct pmiprof_event *ev, u32 idx, bool pmi)
{
	s->kind = PMU_SLOT_GP;
	s->idx = idx;
	/* full-width alias when PERF_CAPABILITIES[13], else the sign-extending one */
	s->ctr_msr = (hw->full_width ? PMU_MSR_IA32_A_PMC0 : PMU_MSR_IA32_PMC0) + idx;
	s->ctl_msr = PMU_MSR_IA32_PERFEVTSEL0 + idx;
	s->ctl = pmiprof_pmu_build_evtsel(hw, ev, pmi);
	s->status_bit = BIT_ULL(idx);
	s->mask = hw->gp_mask;
}

/* Instructions, cycles and ref-cycles go to their fixed counter when free, the rest to GP. */
static int intel_place(struct pmu_hw *hw, struct pmu_slot *s, const struct pmiprof_event *ev,
		       bool pmi, u32 *used_fixed, u32 *next_gp)
{
	int fx = pmiprof_pmu_intel_fixed_index(ev);

	if (fx >= 0 && (u32)fx < hw->nr_fixed && !(*used_fixed & BIT(fx))) {
		*used_fixed |= BIT(fx);
		intel_slot_fixed(hw, s, ev, fx, pmi);
		return 0;
	}
	if (pmiprof_pmu_intel_fixed_only(ev)) {
		hw->reason = "reference cycles need a free fixed counter 2";
		return -EOPNOTSUPP;
	}
	while (*next_gp < hw->nr_gp && (hw->gp_avoid & BIT(*next_gp)))
		(*next_gp)++;
	if (*next_gp >= hw->nr_gp) {
		hw->reason = hw->gp_avoid ?
			"more events than GP counters (PMC3 unused under TSX_FORCE_ABORT)" :
			"more events than general-purpose counters";
		return -ENOSPC;
	}
	intel_slot_gp(hw, s, ev, (*next_gp)++, pmi);
	return 0;
}

static int intel_configure(struct pmu_hw *hw, const struct pmiprof_config *cfg)
{
	u32 k, used_fixed = 0, next_gp = 0;
	int err;

	for (k = 0; k < cfg->nr_events; k++) {
		const struct pmiprof_event *ev = &cfg->events[k];
		struct pmu_slot *s = &hw->slots[k];
		bool pmi = (int)k == hw->trigger && hw->mode == PMIPROF_SAMPLING_PMI;

		err = intel_place(hw, s, ev, pmi, &used_fixed, &next_gp);
		if (err)
			return err;
		s->top = (s->mask >> 1) + 1;
		hw->own_mask |= s->status_bit;
	}
	return 0;
}

static u64 fixed_nibbles(const struct pmu_hw *hw)
{
	u64 m = 0;
	u32 k;

	for (k = 0; k < hw->nr_events; k++)
		if (hw->slots[k].kind == PMU_SLOT_FIXED)
			m |= 0xfull << (4 * hw->slots[k].idx);
	return m;
}

/* Our counters must be idle: BIOS, the NMI watchdog or another tool may own them. */
static int intel_check_free(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	u32 k;

	for (k = 0; k < hw->nr_events; k++) {
		const struct pmu_slot *s = &hw->slots[k];
		u64 v = hw->ops->rd(pc, s->ctl_msr);

		if (s->kind == PMU_SLOT_GP ? v & PMU_EVTSEL_EN : v & (0x3ull << (4 * s->idx))) {
			pc->reason = PMU_BUSY_REASON;
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * When this CPU's PMI handler unmasks LVTPC, as perf's late_ack/mid_ack:
 * mid on Gracemont-class E-cores (hybrid Atom core type, or Alder Lake-N),
 * early on cores older than Haswell/Tremont, late everywhere else.
 */
static u32 intel_lvtpc_when(struct pmu_cpu *pc)
{
	static const u8 early_models[] = {
		0x0f, 0x16, 0x17, 0x1d,		/* Core 2 */
		0x1a, 0x1e, 0x1f, 0x2e,		/* Nehalem */
		0x25, 0x2c, 0x2f,		/* Westmere */
		0x2a, 0x2d, 0x3a, 0x3e,		/* Sandy Bridge, Ivy Bridge */
		0x1c, 0x26, 0x27, 0x35, 0x36,	/* Bonnell */
		0x37, 0x4a, 0x4c, 0x4d, 0x5a, 0x5d,	/* Silvermont, Airmont */
		0x5c, 0x5f, 0x7a,		/* Goldmont, Goldmont Plus */
	};
	struct pmu_hw *hw = pc->hw;
	u32 i;

	if (hw->family != 6)
		return PMU_LVTPC_LATE;
	if (hw->model == 0xbe)			/* Alder Lake-N: Gracemont only */
		return PMU_LVTPC_MID;
	/* hybrid: this CPU's core type */
	if (pmiprof_pmu_intel_core_type(hw) == PMU_CORE_TYPE_ATOM)
		return PMU_LVTPC_MID;
	for (i = 0; i < ARRAY_SIZE(early_models); i++)
		if (hw->model == early_models[i])
			return PMU_LVTPC_EARLY;
	return PMU_LVTPC_LATE;
}

static int intel_start_cpu(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_msr_ops *ops = hw->ops;
	u32 a, b, c, d, k;
	u64 fctl;

	/* Hybrid parts: every CPU must enumerate the PMU the config was built for. */
	ops->cpuid(hw, 0xa, 0, &a, &b, &c, &d);
	if (a != hw->cpuid_a_eax || d != hw->cpuid_a_edx)
		return -ENODEV;
	/* Big-core encodings count something else on E-cores: refuse, not miscount */
	if (hw->bigcore_events && pmiprof_pmu_intel_core_type(hw) == PMU_CORE_TYPE_ATOM) {
		pc->reason = "model-specific event not counted by this CPU's E-core type";
		return -EOPNOTSUPP;
	}

	pmiprof_pmu_cpu_reset_state(pc);
	pc->lvtpc_when = intel_lvtpc_when(pc);
	pc->debugctl = ops->rd(pc, PMU_MSR_IA32_DEBUGCTL);
	/* Freeze-on-PMI set by BIOS/another tool: v4 parks counters until CTR_Frz is acked. */
	if ((pc->debugctl & PMU_DEBUGCTL_FREEZE_ON_PMI) && hw->version >= 4)
		pc->ack_extra = PMU_STATUS_CTR_FRZ;
	WRITE_ONCE(pc->gctrl, ops->rd(pc, PMU_MSR_IA32_GLOBAL_CTRL) | hw->own_mask);

	ops->wr(pc, PMU_MSR_IA32_GLOBAL_CTRL, pc->gctrl & ~hw->own_mask);
	for (k = 0; k < hw->nr_events; k++)
		if (hw->slots[k].kind == PMU_SLOT_GP)
			ops->wr(pc, hw->slots[k].ctl_msr, 0);
	pmiprof_pmu_arm_counters(pc);
	for (k = 0; k < hw->nr_events; k++)
		if (hw->slots[k].kind == PMU_SLOT_GP)
			ops->wr(pc, hw->slots[k].ctl_msr, hw->slots[k].ctl);
	if (hw->nr_fixed) {
		fctl = ops->rd(pc, PMU_MSR_IA32_FIXED_CTR_CTRL);
		fctl = (fctl & ~fixed_nibbles(hw)) | hw->fixed_ctrl;
		ops->wr(pc, PMU_MSR_IA32_FIXED_CTR_CTRL, fctl);
	}
	ops->wr(pc, PMU_MSR_IA32_GLOBAL_OVF_CTRL, hw->own_mask | pc->ack_extra);
	pc->started = true;
	WRITE_ONCE(pc->armed, true);
	ops->lvtpc(pc);
	ops->wr(pc, PMU_MSR_IA32_GLOBAL_CTRL, pc->gctrl);
	return 0;
}

/*
 * Stop while still armed, as amd_stop_cpu() does: a trigger overflow whose
 * PMI is in flight (or that happens while we disable) must find the handler
 * armed, or nmi.c calls it not ours ("NMI received for unknown reason",
 * LVTPC left masked, a panic with unknown_nmi_panic).  The handler consumes
 * our status bits and unmasks LVTPC; only then is the CPU disarmed.
 */
static void intel_stop_cpu(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	const struct pmu_msr_ops *ops = hw->ops;
	u32 k;

	if (!pc->started)
		return;		/* refused or never started: the counters are not ours */
	/* A handler running from here on must not re-enable what we disable. */
	WRITE_ONCE(pc->gctrl, pc->gctrl & ~hw->own_mask);
	ops->wr(pc, PMU_MSR_IA32_GLOBAL_CTRL,
		ops->rd(pc, PMU_MSR_IA32_GLOBAL_CTRL) & ~hw->own_mask);
	for (k = 0; k < hw->nr_events; k++)
		if (hw->slots[k].kind == PMU_SLOT_GP)
			ops->wr(pc, hw->slots[k].ctl_msr, 0);
	if (hw->nr_fixed)
		ops->wr(pc, PMU_MSR_IA32_FIXED_CTR_CTRL,
			ops->rd(pc, PMU_MSR_IA32_FIXED_CTR_CTRL) & ~fixed_nibbles(hw));
	/* The counters are stopped: wait (bounded) for the PMI of a pending trigger bit. */
	if (pc->armed && hw->trigger >= 0) {
		u64 tbit = hw->slots[hw->trigger].status_bit;
		u32 i;

		for (i = 0; i < PMU_STOP_OVERFLOW_WAIT; i++) {
			if (!(ops->rd(pc, PMU_MSR_IA32_GLOBAL_STATUS) & tbit))
				break;
			pmu_udelay(1);
		}
	}
	WRITE_ONCE(pc->armed, false);
	ops->wr(pc, PMU_MSR_IA32_GLOBAL_OVF_CTRL, hw->own_mask | pc->ack_extra);
	pc->started = false;
	/* LVTPC stays APIC_DM_NMI, as perf expects it. */
}

static int intel_handle_pmi(struct pmu_cpu *pc, const struct pmi_ctx *ctx)
{
	return pmiprof_pmu_handle_global(pc, ctx, &intel_gregs);
}

NOKPROBE_SYMBOL(intel_handle_pmi);

const struct pmu_driver pmiprof_pmu_intel_driver = {
	.name = "intel",
	.vendor = PMIPROF_VENDOR_INTEL,
	.probe = intel_probe,
	.configure = intel_configure,
	.check_free = intel_check_free,
	.start_cpu = intel_start_cpu,
	.stop_cpu = intel_stop_cpu,
	.handle_pmi = intel_handle_pmi,
	.read_counters = pmiprof_pmu_read_deltas,
};
