// SPDX-License-Identifier: GPL-2.0
/*
 * Module load and unload: module parameters, choosing and
 * probing the PMU, and bringing up NMI handler, hotplug and device in an
 * order whose reverse is the unload path.  Rings belong to the open device
 * (chardev.c), so an idle module holds no sample memory.
 *
 *   pmu=auto   the CPU's own PMU (Intel arch perfmon v2+ or AMD); refuses to
 *              load, naming the reason, when there is none or it is busy
 *   pmu=intel|amd   as auto, but insist on that vendor
 *   pmu=emul   the in-memory MSR model driven by an hrtimer (emulation)
 *   pmu=none   no PMU at all: timer mode only (VMs without a vPMU)
 *   ring_kb=N  per-CPU ring data size in KiB (power of two, 8..65536)
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "glue.h"
#include "ring.h"

static char *pmu = "auto";
module_param(pmu, charp, 0444);
MODULE_PARM_DESC(pmu, "PMU to drive: auto, intel, amd, emul (emulated PMU) or none (timer mode only)");

static unsigned int ring_kb = 1024;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb, "per-CPU ring size in KiB, a power of two from 8 to 65536 (default 1024)");

struct pmu_hw pmiprof_hw;
DEFINE_PER_CPU(struct pmu_cpu, pmiprof_pcpu);

static const char pmiprof_fallback_hint[] =
	"load with pmu=none for timer sampling or pmu=emul for the emulated PMU";

static int pmiprof_setup_emul(struct pmu_hw *hw)
{
	int ret = pmiprof_pmu_emul_setup(hw, 0);

	if (ret) {
		pr_err("pmiprof: cannot set up the emulated PMU (%d)\n", ret);
		return ret;
	}
	ret = hw->drv->probe(hw);
	if (ret)
		pr_err("pmiprof: emulated PMU probe failed (%d): %s\n", ret,
		       hw->reason ? hw->reason : "unknown reason");
	else
		ret = pmiprof_coexist_probe_all(hw);	/* the glue path of real PMUs */
	if (ret) {
		pmiprof_pmu_emul_teardown(hw);
		hw->drv = NULL;
	}
	return ret;
}

static int pmiprof_setup_native(struct pmu_hw *hw)
{
	const struct pmu_driver *drv;
	u32 vendor, want = 0;
	int ret;

	if (!strcmp(pmu, "intel"))
		want = PMIPROF_VENDOR_INTEL;
	else if (!strcmp(pmu, "amd"))
		want = PMIPROF_VENDOR_AMD;
	hw->ops = &pmiprof_pmu_native_msr_ops;
	vendor = pmiprof_pmu_cpuid_vendor(hw);
	if (want && vendor != want) {
		pr_err("pmiprof: pmu=%s, but this CPU is not %s; use pmu=auto, or %s\n",
		       pmu, want == PMIPROF_VENDOR_INTEL ? "Intel" : "AMD", pmiprof_fallback_hint);
		return -ENODEV;
	}
	drv = pmiprof_pmu_driver_for_vendor(vendor);
	if (!drv) {
		pr_err("pmiprof: no supported PMU: the CPU vendor is neither Intel nor AMD; %s\n",
		       pmiprof_fallback_hint);
		return -ENODEV;
	}
	hw->drv = drv;
	ret = drv->probe(hw);
	if (!ret)
		ret = pmiprof_coexist_probe_all(hw);
	else
		pr_err("pmiprof: no usable %s PMU: %s; %s\n", drv->name,
		       hw->reason ? hw->reason : "probe failed", pmiprof_fallback_hint);
	if (ret)
		hw->drv = NULL;
	return ret;
}

static int pmiprof_setup_pmu(struct pmu_hw *hw)
{
	hw->stack_ops = &pmiprof_stack_native_ops;	/* call stacks on every PMU (1.2) */
	if (!strcmp(pmu, "none")) {
		strscpy(hw->name, "none", sizeof(hw->name));
		hw->caps = PMIPROF_CAP_TIMER;
		return 0;
	}
	if (!strcmp(pmu, "emul"))
		return pmiprof_setup_emul(hw);
	if (!strcmp(pmu, "auto") || !strcmp(pmu, "intel") || !strcmp(pmu, "amd"))
		return pmiprof_setup_native(hw);
	pr_err("pmiprof: unknown pmu=%s (expected auto, intel, amd, emul or none)\n", pmu);
	return -EINVAL;
}

static void pmiprof_teardown_pmu(struct pmu_hw *hw)
{
	if (!hw->drv)
		return;
	pmiprof_pmu_release(hw);	/* a no-op: STOP and close released it */
	if (hw->emulated)
		pmiprof_pmu_emul_teardown(hw);
	hw->drv = NULL;
}

static void pmiprof_init_cpus(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pmu_cpu *pc = per_cpu_ptr(&pmiprof_pcpu, cpu);

		memset(pc, 0, sizeof(*pc));
		pc->hw = &pmiprof_hw;
		pc->cpu = cpu;
	}
}

static bool pmiprof_uses_nmi(void)
{
	return pmiprof_has_pmu() && !pmiprof_hw.emulated;
}

static int __init pmiprof_init(void)
{
	int ret;

	if (ring_kb < 8 || ring_kb > 65536 || !is_power_of_2(ring_kb)) {
		pr_err("pmiprof: ring_kb=%u must be a power of two from 8 to 65536\n", ring_kb);
		return -EINVAL;
	}
	ret = pmiprof_ring_set_size(ring_kb * 1024);
	if (ret)
		return ret;
	pmiprof_init_cpus();
	pmiprof_timer_init();
	ret = pmiprof_setup_pmu(&pmiprof_hw);
	if (ret)
		return ret;
	if (pmiprof_uses_nmi()) {
		ret = pmiprof_nmi_register();
		if (ret)
			goto err_pmu;
	}
	ret = pmiprof_hotplug_init();
	if (ret)
		goto err_nmi;
	ret = pmiprof_chardev_register();
	if (ret)
		goto err_hotplug;
	pr_info("pmiprof: ready: pmu %s%s, %u CPUs, %u KiB ring per CPU, /dev/%s\n",
		pmiprof_hw.name, pmiprof_hw.emulated ? " (EMULATED PMU)" : "",
		num_possible_cpus(), ring_kb, PMIPROF_DEVICE_NAME);
	return 0;

err_hotplug:
	pmiprof_hotplug_exit();
err_nmi:
	if (pmiprof_uses_nmi())
		pmiprof_nmi_unregister();
err_pmu:
	pmiprof_teardown_pmu(&pmiprof_hw);
	return ret;
}

static void __exit pmiprof_exit(void)
{
	pmiprof_chardev_unregister();
	/* No opener can remain (it pins the module), but stop anyway. */
	pmiprof_session_release();
	pmiprof_hotplug_exit();
	if (pmiprof_uses_nmi())
		pmiprof_nmi_unregister();	/* waits out running handlers */
	pmiprof_teardown_pmu(&pmiprof_hw);
	pmiprof_task_exit();
}

module_init(pmiprof_init);
module_exit(pmiprof_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pmiprof: direct-MSR PMI sampling into per-CPU rings");
MODULE_AUTHOR("pmiprof developers");
