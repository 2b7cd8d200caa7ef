// SPDX-License-Identifier: GPL-2.0
/*
 * The real-hardware side of the PMU core's MSR/APIC/CPUID
 * indirection (struct pmu_msr_ops).  The emulated side is msr_model.c.
 * rd/wr/lvtpc run in NMI context on a PMU that passed its probe; the _safe
 * variants are for probing in process context and never fault.
 */
#include <linux/kprobes.h>
#include <asm/nmi.h>

#include "compat.h"
#include "pmu.h"

static u64 ops_native_rd(struct pmu_cpu *pc, u32 msr)
{
	return pmiprof_rdmsr(msr);
}

NOKPROBE_SYMBOL(ops_native_rd);

static void ops_native_wr(struct pmu_cpu *pc, u32 msr, u64 val)
{
	pmiprof_wrmsr(msr, val);
}

NOKPROBE_SYMBOL(ops_native_wr);

static void ops_native_lvtpc(struct pmu_cpu *pc)
{
	pmiprof_lvtpc_nmi();
}

NOKPROBE_SYMBOL(ops_native_lvtpc);

static int ops_native_rd_safe(struct pmu_hw *hw, u32 msr, u64 *val)
{
	return pmiprof_rdmsr_safe(msr, val);
}

static int ops_native_wr_safe(struct pmu_hw *hw, u32 msr, u64 val)
{
	return pmiprof_wrmsr_safe(msr, val);
}

static void ops_native_cpuid(struct pmu_hw *hw, u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	cpuid_count(leaf, sub, a, b, c, d);
}

/* perf's allocation of the GP counters (arch/x86/kernel/cpu/perfctr-watchdog.c). */
static int ops_native_reserve(struct pmu_hw *hw, u32 idx)
{
	if (!reserve_evntsel_nmi(hw->evntsel_msr[idx]))
		return -EBUSY;
	if (!reserve_perfctr_nmi(hw->perfctr_msr[idx])) {
		release_evntsel_nmi(hw->evntsel_msr[idx]);
		return -EBUSY;
	}
	return 0;
}

static void ops_native_release(struct pmu_hw *hw, u32 idx)
{
	release_perfctr_nmi(hw->perfctr_msr[idx]);
	release_evntsel_nmi(hw->evntsel_msr[idx]);
}

const struct pmu_msr_ops pmiprof_pmu_native_msr_ops = {
	.name		= "native",
	.rd		= ops_native_rd,
	.wr		= ops_native_wr,
	.lvtpc		= ops_native_lvtpc,
	.rd_safe	= ops_native_rd_safe,
	.wr_safe	= ops_native_wr_safe,
	.cpuid		= ops_native_cpuid,
	.reserve	= ops_native_reserve,
	.release	= ops_native_release,
};
