// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug and system sleep: a CPU coming online is probed and, if a
 * session is running, starts sampling; a CPU going offline stops first.
 * The callbacks run on the CPU concerned (CPUHP_AP_ONLINE_DYN), which is
 * what the per-CPU MSR programming and the pinned hrtimer need.  Suspend
 * and hibernation lose the PMU MSRs: a PM notifier stops every CPU before
 * the system goes down and restarts them all once it is back.  Rings exist
 * for every possible CPU while the device is open, so nothing is allocated
 * here.
 */
#include <linux/cpuhotplug.h>
#include <linux/notifier.h>
#include <linux/suspend.h>

#include "glue.h"

static int pmiprof_cpuhp_state = -1;

static int pmiprof_cpu_online(unsigned int cpu)
{
	/* A failed probe only excludes this CPU; it must not block the hotplug. */
	pmiprof_coexist_probe_cpu(per_cpu_ptr(&pmiprof_pcpu, cpu));
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

/* Runs pmiprof_cpu_online() on every CPU already online. */
int pmiprof_hotplug_init(void)
{
	int ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/x86/pmiprof:online",
				    pmiprof_cpu_online, pmiprof_cpu_offline);

	if (ret < 0)
		return ret;
	pmiprof_cpuhp_state = ret;
	ret = register_pm_notifier(&pmiprof_pm_nb);
	if (ret) {
		cpuhp_remove_state(pmiprof_cpuhp_state);
		pmiprof_cpuhp_state = -1;
	}
	return ret;
}

/* Runs pmiprof_cpu_offline() on every online CPU. */
void pmiprof_hotplug_exit(void)
{
	if (pmiprof_cpuhp_state < 0)
		return;
	unregister_pm_notifier(&pmiprof_pm_nb);
	cpuhp_remove_state(pmiprof_cpuhp_state);
	pmiprof_cpuhp_state = -1;
}
