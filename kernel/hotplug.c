// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug and system sleep: a CPU coming online is probed and, if a
 * session is running, starts sampling; a CPU going offline stops first.
 * The callbacks run on the CPU concerned (CPUHP_AP_ONLINE_DYN), which is
 * what the per-CPU MSR programming and the pinned hrtimer need.  Suspend
 * takes the other CPUs down through hotplug; the boot CPU, which stays up,
 * is stopped and restarted by syscore callbacks, because S3 loses the PMU
 * MSRs.  Rings exist for every possible CPU while the device is open, so
 * nothing is allocated here.
 */
#include <linux/cpuhotplug.h>
#include <linux/smp.h>

#include "compat.h"
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

/* Syscore: the last CPU up, IRQs off, other CPUs offline, tasks frozen. */
static int pmiprof_syscore_suspend(void)
{
	pmiprof_session_cpu_offline(smp_processor_id());
	return 0;
}

static void pmiprof_syscore_resume(void)
{
	pmiprof_session_cpu_online(smp_processor_id());
}

PMIPROF_SYSCORE(pmiprof_syscore, pmiprof_syscore_suspend, pmiprof_syscore_resume);

/* Runs pmiprof_cpu_online() on every CPU already online. */
int pmiprof_hotplug_init(void)
{
	int ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/x86/pmiprof:online",
				    pmiprof_cpu_online, pmiprof_cpu_offline);

	if (ret < 0)
		return ret;
	pmiprof_cpuhp_state = ret;
	pmiprof_register_syscore(&pmiprof_syscore);
	return 0;
}

/* Runs pmiprof_cpu_offline() on every online CPU. */
void pmiprof_hotplug_exit(void)
{
	if (pmiprof_cpuhp_state < 0)
		return;
	pmiprof_unregister_syscore(&pmiprof_syscore);
	cpuhp_remove_state(pmiprof_cpuhp_state);
	pmiprof_cpuhp_state = -1;
}
