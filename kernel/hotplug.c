// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug and system sleep: a CPU coming online is probed and, if a
 * session is running, starts sampling; a CPU going offline stops first.
 * The callbacks run on the CPU concerned (CPUHP_AP_ONLINE_DYN), which is
 * what the per-CPU MSR programming and the pinned hrtimer need.  Suspend
 * and hibernation lose the PMU MSRs: a PM notifier stops every CPU before
 * the system goes down and restarts them all once it is back.  Reboot and
 * kexec stop sampling for good from a reboot notifier, so the next kernel
 * does not inherit running counters and an LVTPC in NMI mode (a crash
 * kexec runs no notifier: the crash kernel's perf init finds the counters
 * enabled and reports them, as it would for any panic).  Rings exist
 * for every possible CPU while the device is open, so nothing is allocated
 * here.
 */
#include <linux/cpuhotplug.h>
#include <linux/notifier.h>
#include <linux/reboot.h>
#include <linux/suspend.h>

#include "glue.h"

static int pmiprof_cpuhp_state = -1;

/* A CPU that fails its probe is only excluded; it must not block the hotplug. */
static int pmiprof_cpu_online(unsigned int cpu)
{
	pmiprof_session_cpu_online(cpu);
	return 0;
}

static int pmiprof_cpu_offline(unsigned int cpu)
{
	pmiprof_session_cpu_offline(cpu);
	return 0;
}

/* Process context, before tasks are frozen / after they are thawed. */
static int pmiprof_pm_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	switch (action) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
		pmiprof_session_suspend();
		break;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		pmiprof_session_resume();
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block pmiprof_pm_nb = {
	.notifier_call = pmiprof_pm_notify,
};

/* kernel_restart_prepare() / kernel_kexec(): process context, all CPUs online. */
static int pmiprof_reboot_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	pmiprof_session_shutdown();
	return NOTIFY_DONE;
}

static struct notifier_block pmiprof_reboot_nb = {
	.notifier_call = pmiprof_reboot_notify,
};

/* Runs pmiprof_cpu_online() on every CPU already online: nothing while no session runs. */
int pmiprof_hotplug_init(void)
{
	int ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/x86/pmiprof:online",
				    pmiprof_cpu_online, pmiprof_cpu_offline);

	if (ret < 0)
		return ret;
	pmiprof_cpuhp_state = ret;
	ret = register_pm_notifier(&pmiprof_pm_nb);
	if (ret)
		goto err_cpuhp;
	ret = register_reboot_notifier(&pmiprof_reboot_nb);
	if (ret)
		goto err_pm;
	return 0;

err_pm:
	unregister_pm_notifier(&pmiprof_pm_nb);
err_cpuhp:
	cpuhp_remove_state(pmiprof_cpuhp_state);
	pmiprof_cpuhp_state = -1;
	return ret;
}

/* Runs pmiprof_cpu_offline() on every online CPU. */
void pmiprof_hotplug_exit(void)
{
	if (pmiprof_cpuhp_state < 0)
		return;
	unregister_reboot_notifier(&pmiprof_reboot_nb);
	unregister_pm_notifier(&pmiprof_pm_nb);
	cpuhp_remove_state(pmiprof_cpuhp_state);
	pmiprof_cpuhp_state = -1;
}
