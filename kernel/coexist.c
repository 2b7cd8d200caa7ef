// SPDX-License-Identifier: GPL-2.0
/*
 * Owning the PMU exclusively, and proving it exists.
 *
 * perf (the NMI watchdog included) reserves every GP event-select through
 * reserve_evntsel_nmi() when its first hardware event is created.  If any
 * reservation fails, someone else owns the PMU: refuse, and say how to free
 * it.  While pmiprof holds them, perf's own hardware events fail with EBUSY
 * instead of silently acking our overflow bits.  Reservations do not cover
 * fixed counters or agents outside the kernel (BIOS), so each CPU is also
 * checked, as perf's check_hw_exists() does, for enable bits already set on
 * any counter, GP or fixed (pmu_check_idle()); the configured ones are
 * checked again at START (driver check_free()).
 *
 * Then each CPU gets a write/read-back probe of a counter, as perf's
 * check_hw_exists() does: a hypervisor without a vPMU (QEMU TCG) reads
 * unknown MSRs as 0 and ignores writes, and executing RDPMC there raises #UD.
 * Nothing trusts the PMU before this probe passed.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/nmi.h>

#include "glue.h"

#define PROBE_VALUE	0xabcdull

static DEFINE_PER_CPU(bool, pmiprof_cpu_ok);
static unsigned int nr_reserved;

static void coexist_release_n(struct pmu_hw *hw, unsigned int n)
{
	while (n--) {
		release_perfctr_nmi(hw->perfctr_msr[n]);
		release_evntsel_nmi(hw->evntsel_msr[n]);
	}
}

struct probe_result {
	int err;
	u32 msr;
	u64 got;
	struct pmu_busy busy;
};

/* On the CPU being probed, IRQs off. */
static void coexist_probe_fn(void *arg)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);
	struct pmu_hw *hw = pc->hw;
	struct probe_result *res = arg;
	u32 msr = hw->perfctr_msr[0];
	u64 saved, got = 0;
	int err;

	res->msr = msr;
	err = pmu_check_idle(pc, &res->busy);
	if (err) {
		res->err = err;
		return;
	}
	err = hw->ops->rd_safe(hw, msr, &saved);
	if (!err)
		err = hw->ops->wr_safe(hw, msr, PROBE_VALUE);
	if (!err)
		err = hw->ops->rd_safe(hw, msr, &got);
	if (!err)
		hw->ops->wr_safe(hw, msr, saved);
	res->got = got;
	res->err = err ? err : (got == PROBE_VALUE ? 0 : -ENODEV);
}

/*
 * perf's counters are reserved by now, so an enabled counter is owned outside
 * perf: firmware (perf's "The BIOS has corrupted hw-PMU resources"), a
 * hypervisor, or a raw MSR user (wrmsr, likwid, another PMU module).
 */
static void coexist_report_busy(unsigned int cpu, const struct pmu_busy *b, bool load)
{
	pr_err("pmiprof: CPU %u: PMU %s counter %u is already enabled (MSR %#x = %#llx) by an owner outside perf: the BIOS/firmware, a hypervisor or a raw MSR user (wrmsr, likwid, another PMU module); %s\n",
	       cpu, b->fixed ? "fixed" : "general-purpose", b->idx, b->msr, b->val,
	       load ? "stop it (or disable the BIOS option that uses PMU counters), then load pmiprof again" :
		      "this CPU will not be sampled");
}

static int coexist_probe_on(unsigned int cpu, struct pmu_hw *hw)
{
	struct probe_result res = { .err = -EIO };

	smp_call_function_single(cpu, coexist_probe_fn, &res, 1);
	per_cpu(pmiprof_cpu_ok, cpu) = !res.err;
	if (res.err == -EBUSY)
		coexist_report_busy(cpu, &res.busy, true);
	else if (res.err == -ENODEV)
		pr_err("pmiprof: CPU %u: no usable PMU: counter MSR %#x read back %#llx after writing %#llx (a VM without a virtual PMU, e.g. QEMU TCG?); load with pmu=none for timer sampling or pmu=emul for the emulated PMU\n",
		       cpu, res.msr, res.got, PROBE_VALUE);
	else if (res.err)
		pr_err("pmiprof: CPU %u: PMU MSR %#x not accessible (%d); load with pmu=none for timer sampling or pmu=emul for the emulated PMU\n",
		       cpu, res.msr, res.err);
	return res.err;
}

int pmiprof_coexist_claim(struct pmu_hw *hw)
{
	unsigned int i, cpu;
	int ret = 0;

	if (hw->emulated)
		return 0;	/* the model is ours alone: nothing to reserve */
	for (i = 0; i < hw->nr_gp && i < PMU_MAX_GP; i++) {
		if (!reserve_evntsel_nmi(hw->evntsel_msr[i]))
			goto busy;
		if (!reserve_perfctr_nmi(hw->perfctr_msr[i])) {
			release_evntsel_nmi(hw->evntsel_msr[i]);
			goto busy;
		}
	}
	nr_reserved = i;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ret = coexist_probe_on(cpu, hw);
		if (ret)
			break;
	}
	cpus_read_unlock();
	if (ret)
		pmiprof_coexist_release(hw);
	return ret;

busy:
	coexist_release_n(hw, i);
	pr_err("pmiprof: PMU counter %u (MSR %#x) is held by perf, most likely the NMI watchdog: run 'sysctl kernel.nmi_watchdog=0' (or boot with nmi_watchdog=0) and stop perf users, then load pmiprof again\n",
	       i, hw->evntsel_msr[i]);
	return -EBUSY;
}

void pmiprof_coexist_release(struct pmu_hw *hw)
{
	coexist_release_n(hw, nr_reserved);
	nr_reserved = 0;
}

/* cpuhp online: probe a CPU that (re)appeared; on that CPU, process context. */
int pmiprof_coexist_probe_cpu(struct pmu_cpu *pc)
{
	struct pmu_hw *hw = pc->hw;
	struct probe_result res = { .err = -EIO };

	if (!hw->drv || hw->emulated)
		return 0;
	local_irq_disable();
	coexist_probe_fn(&res);
	local_irq_enable();
	per_cpu(pmiprof_cpu_ok, pc->cpu) = !res.err;
	if (res.err == -EBUSY)
		coexist_report_busy(pc->cpu, &res.busy, false);
	else if (res.err)
		pr_warn("pmiprof: CPU %u failed its PMU probe (%d): it will not be sampled\n",
			pc->cpu, res.err);
	return res.err;
}

bool pmiprof_cpu_usable(unsigned int cpu)
{
	if (!pmiprof_hw.drv || pmiprof_hw.emulated)
		return true;
	return per_cpu(pmiprof_cpu_ok, cpu);
}
