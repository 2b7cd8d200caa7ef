// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing the PMU with perf, and proving it exists.
 *
 * perf (the NMI watchdog, KVM's vPMU and every hardware event included)
 * reserves every GP counter through reserve_evntsel_nmi() and
 * reserve_perfctr_nmi() while it has a hardware event.  pmiprof takes the
 * same reservations only while a session runs (START to STOP or close) and
 * for the length of the load-time probe, so perf works while the module is
 * merely loaded, and a START while perf holds a counter fails with EBUSY
 * and says who to stop.  Reservations do not cover fixed counters or agents
 * outside the kernel (BIOS), so with the counters reserved each CPU is also
 * checked for enable bits already set on any counter, GP or fixed
 * (pmiprof_pmu_check_idle(), as perf's check_hw_exists()).
 *
 * Each CPU then gets a write/read-back probe of counter 0 (pmiprof_pmu_probe_cpu()),
 * on that CPU with IRQs off (smp_call_function_single(), or the START IPI),
 * never before the reservation: on AMD the NMI watchdog counts on
 * PerfCtr0, and a probe migrated half-way would write one CPU's value into
 * another's counter.  A hypervisor without a vPMU (QEMU TCG) reads unknown
 * MSRs as 0 and ignores writes, and RDPMC raises #UD there: nothing trusts
 * the PMU before the probe passed.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "glue.h"

/* On the CPU being probed, IRQs off. */
static void coexist_probe_fn(void *arg)
{
	struct pmu_cpu *pc = this_cpu_ptr(&pmiprof_pcpu);

	pmiprof_pmu_probe_cpu(pc, arg);
}

void pmiprof_coexist_report(unsigned int cpu, const struct pmu_probe_res *res, bool load)
{
	const struct pmu_busy *b = &res->busy;

	/*
	 * perf's counters are reserved by now, so an enabled counter is owned
	 * outside perf: firmware (perf's "The BIOS has corrupted hw-PMU
	 * resources"), a hypervisor, or a raw MSR user.
	 */
	if (res->err == -EBUSY) {
		pr_err("pmiprof: CPU %u: PMU %s counter %u is already enabled (MSR %#x = %#llx) by an owner outside perf\n",
		       cpu, b->fixed ? "fixed" : "general-purpose", b->idx, b->msr, b->val);
		pr_err("pmiprof: the BIOS/firmware, a hypervisor or a raw MSR user (wrmsr, likwid, another PMU module): %s\n",
		       load ? "stop it (or the BIOS option using it), then load pmiprof again" :
			      "stop it, then start again");
	} else if (res->err == -ENODEV) {
		pr_err("pmiprof: CPU %u: no usable PMU: counter MSR %#x read back %#llx after writing %#llx (a VM without a virtual PMU, e.g. QEMU TCG?)\n",
		       cpu, res->msr, res->got, res->wrote);
		pr_err("pmiprof: load with pmu=none for timer sampling or pmu=emul for the emulated PMU\n");
	} else if (res->err) {
		pr_err("pmiprof: CPU %u: PMU MSR %#x not accessible (%d); load with pmu=none for timer sampling or pmu=emul for the emulated PMU\n",
		       cpu, res->msr, res->err);
	}
}

int pmiprof_coexist_reserve(struct pmu_hw *hw)
{
	u32 idx = 0;

	if (!pmiprof_pmu_reserve(hw, &idx))
		return 0;
	pr_err("pmiprof: PMU counter %u (MSR %#x) is held by perf (a perf hardware event, a KVM guest's vPMU or the NMI watchdog)\n",
	       idx, hw->evntsel_msr[idx]);
	pr_err("pmiprof: stop them (sysctl kernel.nmi_watchdog=0 for the watchdog), then try again\n");
	return -EBUSY;
}

/* Load time: reserve, probe every online CPU pinned on it, release. */
int pmiprof_coexist_probe_all(struct pmu_hw *hw)
{
	unsigned int cpu;
	int ret;

	ret = pmiprof_coexist_reserve(hw);
	if (ret)
		return ret;
	cpus_read_lock();
	/* pmu=emul: reserved in its model like real counters; nothing to probe */
	for_each_online_cpu(cpu) {
		struct pmu_probe_res res = { .err = -EIO };

		if (hw->emulated)
			break;
		smp_call_function_single(cpu, coexist_probe_fn, &res, 1);
		if (res.err) {
			pmiprof_coexist_report(cpu, &res, true);
			ret = res.err;
			break;
		}
	}
	cpus_read_unlock();
	pmiprof_pmu_release(hw);
	return ret;
}
